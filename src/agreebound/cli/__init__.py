"""The agreebound command line: argparse and exit codes (0/1/2 verdicts, 3 bad input, 4 internal error)."""
