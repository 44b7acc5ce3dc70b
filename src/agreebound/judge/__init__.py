"""The pairwise judge audit: the contract and its records, counts, measure, decide, bias, the corrected headline."""
