"""The numpy engine: a rating panel held in memory to its counts (agreebound.panel.counts.PanelCounts),
as DuckDB and Spark give theirs, so every engine's numbers come from the same measuring code
(agreebound.panel.measure.measure_counts, agreebound.panel.alpha.alpha).

The counts keep each pairable unit's histogram as the ratings give it: alpha reads them in one
pass, and the units bootstrap draws from their canonical patterns, the ones the SQL engines count.
"""

from __future__ import annotations

from agreebound.panel.counts import PanelCounts, from_panel
from agreebound.panel.ratings import RatingPanel


def panel_counts(panel: RatingPanel) -> PanelCounts:
    """One dimension's counts from its ratings in memory."""
    return from_panel(panel)
