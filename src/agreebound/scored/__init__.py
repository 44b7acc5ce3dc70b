"""Graded and pass/fail judges audited against human labels, and a judge's stated confidence."""
