"""Reports of what is loaded, under the thresholds in force: JSON, Markdown and self-contained
HTML, built only when a download button is pressed (the command line's reports, the same words)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Mapping, cast

import streamlit as st

from agreebound.core.json_types import JSONObject
from agreebound.ui import state
from agreebound.ui.data import Loaded
from agreebound.ui.loading import judge_decision, panel_decisions
from agreebound.ui.provenance import is_sample, shown_files
from agreebound.ui.state import K, session

if TYPE_CHECKING:
    from agreebound.app.recipes import PanelRecipe
    from agreebound.core.thresholds import ThresholdSet
    from agreebound.panel.measure import PanelCoefficients, PanelMeasurement


def report_coefficients(loaded: Loaded[PanelRecipe], ms: Mapping[str, PanelMeasurement], t: ThresholdSet
                        ) -> dict[str, PanelCoefficients] | None:
    """The coefficients beside alpha for a report, explained against the floor in force (uploads and
    samples; a data set from the data folder is measured out of core and has none)."""
    from agreebound.ui.data import panel_coefficients

    # a loaded panel's mapping is a Mapping's JSON, or none (ui.data.imported_of)
    ratings, mapping = loaded.recipe.ratings[0], cast("str | None", loaded.recipe.mapping)
    if ratings.data is None:
        return None
    out = {}
    for dim, m in ms.items():
        pc = panel_coefficients(ratings.name, ratings.digest, ratings.data, m.level, dim, mapping)
        out[dim] = replace(pc, explanation=pc.explained(t.panel.alpha_floor_permil))
    return out


def report_downloads(kind: str) -> None:
    """JSON / Markdown / self-contained HTML reports of what is loaded, under the thresholds in
    force; built only when a button is pressed."""
    from agreebound.render.markdown import mark_sample, to_markdown
    from agreebound.render.report import to_json
    from agreebound.render.view import View, calibration_view, panel_view
    from agreebound.app.judge_runs import slice_decisions

    t = state.thresholds()
    sample = is_sample(kind)
    if kind == "panel":
        loaded = session.panel_source
        inputs = shown_files(loaded)
        decided = panel_decisions()  # the decisions the page shows (decided once, ui.memo)
        ms = {dim: m for dim, (m, _) in decided.items()}
        decisions = {dim: d for dim, (_, d) in decided.items()}

        def view() -> View:
            return panel_view(ms, decisions, t, inputs, coefficients=report_coefficients(loaded, ms, t))
    else:
        files = shown_files(session.judge_source)
        bundle, decision = judge_decision()  # the decision the page shows (decided once, ui.memo)

        def view() -> View:
            from agreebound.ui.judge_ranking import report_block  # the ranking and the gate the page shows

            return calibration_view(bundle, decision, t, files, slices=slice_decisions(bundle, t),
                                    ranking=report_block(bundle))

    def marked() -> View:
        """The view when a button is pressed: a bundled sample's report says so."""
        v = view()
        return replace(v, report=mark_sample(v.report)) if sample else v

    def build() -> JSONObject:
        return marked().report

    def html_() -> str:
        return marked().html()

    from datetime import datetime, timezone
    from pathlib import Path

    from agreebound.render.names import report_filename

    label = "panel" if kind == "panel" else "judge"
    stem = Path(shown_files(session.panel_source)[0][0] if kind == "panel" else files[0][0]).stem
    when = datetime.now(timezone.utc)  # the data's name, the domain and the UTC time, as the CLI names them

    def name(ext: str) -> str:
        return report_filename(stem, label, ext, when)

    c1, c2, c3 = st.columns(3)
    c1.download_button(f"{label.capitalize()} report (JSON)", lambda: to_json(build()), file_name=name("json"),
                       mime="application/json", key=K.REPORT_DOWNLOAD.format(label, "json"), on_click="ignore")
    c2.download_button(f"{label.capitalize()} report (Markdown)", lambda: to_markdown(build()),
                       file_name=name("md"), mime="text/markdown", key=K.REPORT_DOWNLOAD.format(label, "md"),
                       on_click="ignore")
    c3.download_button(f"{label.capitalize()} report (HTML)", html_, file_name=name("html"),
                       mime="text/html", key=K.REPORT_DOWNLOAD.format(label, "html"), on_click="ignore")
