"""Panel reliability: ratings, categories, levels, counts, the one alpha, the coefficients, the seed's formulas, measure and decide."""
