"""The kernel: no domain words. Errors, escaping, limits, threshold data, the Gate and its one comparison, the planner, the interval arithmetic both domains use."""
