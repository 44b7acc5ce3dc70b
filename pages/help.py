"""Formats & help."""

import streamlit as st

from agreebound.ui.data import help_text, templates
from agreebound.ui import shell
from agreebound.ui.state import K

shell.enter(__file__)

st.title("Formats & help")
st.markdown("""
**Verdicts.** `ENFORCE`: at least two independent detectors, Krippendorff's alpha at or above the
floor, and the detectors' rates within the spread cap. `REPORT_ONLY`: measure and publish, but do
not auto-enforce (alpha undefined or low, or a spread that is unbounded or too wide).
`REFUSE_SINGLE`: fewer than two independent detectors; refused structurally, whatever the scores.

**Exactness.** Alpha and every rate are exact fractions; gates compare exact values. The seed's
integer formulas round alpha *up* to permil and rates half-up to basis points; where that rounding
would have decided differently, the page says so.

**Judge calibration.** Human agreement (>=), position flip, repeat variance, verbosity bias and
self-preference (<=) in basis points against a content-addressed contract. A rate with no
opportunities is *not evaluable* and passes, as in the seed. Edited thresholds make a *draft*
contract with its own content id; the snapshot stays bound to the original.
""")
st.header("The specification", anchor="the-specification")
st.markdown("""
Agreebound's verdicts follow a specification written as two small programs (the *seeds*): their
integer formulas, sentinels, rounding and check order are the contract. The **specification's
integer formula** for alpha is nominal, in permil, rounded up, and counts the values of units with a
single rating in its marginals; Agreebound decides on the exact fraction instead, and says so
wherever the integer formula would have reached another verdict.
""")
st.header("Levels of measurement", anchor="levels")
st.markdown("""
Alpha depends on what a difference between two values means. **nominal**: values are categories
(a 3 is as far from a 4 as from a 9); **ordinal**: ranks; **interval**: differences are measured;
**ratio**: proportions from a true zero. The level in force is one that someone chose (`--level`,
the level picker, a mapping file), or the default: **nominal**, the specification's level and R
`kripp.alpha`'s, except where nominal cannot mean anything (numbers with decimals, or more than 20
distinct whole numbers: then interval). The suggested level is offered beside it with its reason,
one click away. Every verdict names its level, and when another admissible level would decide
otherwise the verdict says so: it *depends on the level*.
""")
st.header("Glossary", anchor="glossary")
st.markdown("""
- **specification (seed)**: the two programs whose semantics Agreebound implements (see above).
- **level**: nominal, ordinal, interval or ratio: what a difference between two ratings means.
- **detector / rater**: a detector is an independent automated or human labeller whose verdicts
  are compared; human raters in a human study are raters, and a panel needs two independent ones.
- **permil**: thousandths (600 permil = 0.600); the specification's unit for alpha and the spread.
- **bps (basis points)**: ten-thousandths (500 bps = 5.00%); the unit of the judge's rates.
- **interval (95%)**: by default the units bootstrap, which resamples whole units with their
  ratings. **KALPHA** (Hayes & Krippendorff's macro) resamples pairs of values instead; that pair
  bootstrap is narrower than 95% when units have three or more ratings, and is offered as an option.
- **q**: the share of bootstrap resamples in which alpha falls below the floor, P(alpha < floor).
- **fragile**: the 95% interval of a gate's value includes its threshold: another sample of the same
  size could decide the other way.
- **strict**: a mode in which a gate passes only if its whole 95% interval does (alpha's lower bound
  at or above the floor, the spread's upper bound within the cap).
- **design effect / effective n**: a judge's observations of one case are not independent; the
  design effect is how much the clustering inflates the variance, and the effective n is the number
  of independent observations they are worth.
- **contract**: the thresholds and structure a judge audit is decided against, named by the hash of
  its content; without one, the judge is measured against illustrative limits and not decided.
""")
st.header("Templates: one of every input")
st.caption("Each is read by the same code that reads your files, and loads to a known result: the rating templates "
           "to Krippendorff's (2011) published alpha (nominal 0.743, interval 0.849), the judge templates to the "
           "seed's illustrative audit (PASS_CALIBRATION).")
columns = st.columns(3)
for i, t in enumerate(templates()):
    with columns[i % 3]:
        st.download_button(f"{t.title} ({t.file_name})", t.build, file_name=t.file_name, mime=t.mime,
                           key=K.TEMPLATE.format(t.key), on_click="ignore", width="stretch")
        st.caption(t.what)
st.markdown(help_text())
