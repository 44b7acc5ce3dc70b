"""Reliability data from the literature, with the values published for them.

The doctests of the measuring functions and the tests read these, so that each function's example
is a number someone else printed, not one we computed.
"""

from __future__ import annotations

#: Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12
#: units, None where an observer did not rate. Published alpha: nominal 0.743, ordinal 0.815,
#: interval 0.849, ratio 0.797.
KRIPPENDORFF_2011 = (
    (1, 1, None, 1), (2, 2, 3, 2), (3, 3, 3, 3), (3, 3, 3, 3), (2, 2, 2, 2), (1, 2, 3, 4),
    (4, 4, 4, 4), (1, 1, 2, 1), (2, 2, 2, 2), (None, 5, 5, 5), (None, None, 1, 1), (None, 3, None, None),
)

#: Gwet (2014), "Handbook of Inter-Rater Reliability", 4th ed., the 4 raters x 12 units example with
#: missing ratings (irrCAC's raw_4raters). Published (unweighted): AC1 0.77544, Fleiss' kappa 0.76117,
#: Conger's kappa 0.76282, Brennan-Prediger 0.77273, percent agreement 0.81818.
GWET_2014_FOUR_RATERS = (
    (1, 1, None, 1), (2, 2, 3, 2), (3, 3, 3, 3), (3, 3, 3, 3), (2, 2, 2, 2), (1, 2, 3, 4),
    (4, 4, 4, 4), (1, 1, 2, 1), (2, 2, 2, 2), (None, 5, 5, 5), (None, None, 1, 1), (None, None, 3, None),
)
