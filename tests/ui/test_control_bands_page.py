"""The History page's control bands (AppTest): no band until a baseline run is pinned (and it says
so); pinned, a chart per gating number with its band, the baseline and the runs in alarm marked, a
sentence per alarm; a dimension's name is user text, escaped in the sentences and the chart."""

from __future__ import annotations

import json

from agreebound.cli.main import main
from tests.support import apptest
from tests.support.apptest import ok, said
from tests.support.panels import agreeing

#: Markdown and HTML in a dimension's name: shown as the text it is.
NAME = "tox*ic* <b>x</b>"


def record(tmp_path, db: str, agreements: list[float]) -> list[str]:
    from agreebound.app.store import Store

    for week, a in enumerate(agreements, start=1):
        folder = tmp_path / f"week{week}"
        folder.mkdir()
        (folder / "ratings.csv").write_bytes(agreeing(a, seed=week, dimension=NAME))
        main(["panel", str(folder / "ratings.csv"), "--record", "--label", f"week {week}", "--db", db])
    with Store.open(db) as s:
        return [r.id for r in reversed(s.runs())]  # oldest first


def test_bands_appear_once_a_baseline_is_pinned_and_mark_the_drift(db, tmp_path, capsys):
    weeks = record(tmp_path, db, [0.85, 0.85, 0.85, 0.85, 0.5, 0.45])
    capsys.readouterr()
    at = apptest.app(page="pages/history.py")
    assert len(at.get("plotly_chart")) == 1  # the timeline only: no band without a baseline
    assert "No baseline is pinned, so no control band is drawn" in said(at)

    ok(at.selectbox(key="band_baseline_panel").set_value(weeks[0]).run())
    charts = at.get("plotly_chart")
    assert len(charts) == 3  # the timeline, then alpha's band and the spread's
    alpha = json.loads(charts[1].proto.spec)
    assert alpha["layout"]["title"]["text"] == "tox*ic* &lt;b&gt;x&lt;/b&gt; (nominal) alpha: control band (ratings.csv)"
    traces = {t.get("name"): t for t in alpha["data"]}
    assert [c[0] for c in traces["alarm"]["customdata"]] == weeks[4:]  # the two drifted weeks, marked
    assert len(traces["value"]["x"]) == 5 and traces["baseline run"]["customdata"] == [[weeks[0]]]
    assert traces["control band"]["fill"] == "tonexty"
    shown = said(at)
    assert "2 of 5 runs after it are in alarm. The newest run is in alarm." in shown
    assert (f"tox*ic* <b>x</b> (nominal) alpha of run {weeks[4][:12]} (" in shown
            and ", week 5) is 0.251: the smoothed value 0.635 is below the lower control limit 0.683 (baseline 0.767)."
            in shown)
    assert not any("<b>" in m.value for m in at.markdown)  # escaped: no raw HTML or emphasis reaches Markdown

    ok(at.selectbox(key="band_method_panel").set_value("cusum").run())
    assert "the shortfall below the baseline, accumulated, is 13.4 standard errors, past h = 5" in said(at)
