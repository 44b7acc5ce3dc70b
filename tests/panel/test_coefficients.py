"""The coefficients beside alpha, against irrCAC (Gwet's own definitions, missing data, weights and
variances) and statsmodels.stats.inter_rater, on the examples they ship and on randomized panels,
to 1e-9; published values where the literature gives them."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from agreebound.panel import coefficients as K
from agreebound.panel.alpha import krippendorff_alpha
from agreebound.panel.categories import encode

import irrCAC.raw as irr_raw  # `make test` installs it (without its pins: see the Makefile)
from irrCAC import datasets as irr_data
from statsmodels.stats import inter_rater as sm

TOL = 1e-9
METHODS = {"gwet_ac": "gwet", "fleiss_kappa": "fleiss", "scott_pi": "fleiss", "conger_kappa": "conger",
           "cohen_kappa": "conger", "brennan_prediger": "bp"}


def coded_of(frame: pd.DataFrame):
    rows = [[None if pd.isna(v) else (v.item() if hasattr(v, "item") else v) for v in row]
            for row in frame.to_numpy(dtype=object)]
    return encode(rows)


def irr(frame: pd.DataFrame, weights: str, categories: list) -> dict:
    """irrCAC's estimates. Its categories are given: under pandas 3 its own list would hold NaN. Numbers
    go in as floats with NaN, as its examples hold them (its Conger variance reads an object column's
    ints as not rated)."""
    if all(isinstance(v, (int, float)) for v in categories):
        frame = frame.astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cac = irr_raw.CAC(frame, weights=weights, categories=categories, digits=15)
        return {m: getattr(cac, m)()["est"] for m in ("gwet", "fleiss", "conger", "bp")}


def check_against_irrcac(frame: pd.DataFrame, level: str) -> K.Coefficients:
    co = K.coefficients(coded_of(frame), [str(c) for c in frame.columns], level)
    categories = [float(v) if not isinstance(v, str) else v for v in co.values]
    for weights in K.weights_for(level):
        ref = irr(frame, weights, categories)
        for c in co.table:
            if c.weights != weights:
                continue
            if c.key == "percent_agreement":
                assert float(c.value) == pytest.approx(ref["bp"]["pa"], abs=TOL)
                continue
            e = ref[METHODS[c.key]]
            assert float(c.value) == pytest.approx(e["coefficient_value"], abs=TOL), (c.name, weights)
            assert float(c.pa) == pytest.approx(e["pa"], abs=TOL) and float(c.pe) == pytest.approx(e["pe"], abs=TOL)
            assert c.se == pytest.approx(e["se"], abs=TOL), (c.name, weights)
            assert c.low == pytest.approx(e["confidence_interval"][0], abs=TOL)
            assert c.high == pytest.approx(e["confidence_interval"][1], abs=TOL)
    return co


# --- the examples the packages ship, and published values ---------------------------------------

def test_gwets_four_raters_example_with_missing_ratings():
    """Gwet's Handbook, 12 units x 4 raters with missing cells (irrCAC's raw_4raters): AC1 0.77544,
    Fleiss 0.76117, Conger 0.76282, Brennan-Prediger 0.77273, as irrCAC documents them."""
    frame = irr_data.raw_4raters()
    co = check_against_irrcac(frame, "ordinal")
    published = {"gwet_ac": 0.77544, "fleiss_kappa": 0.76117, "conger_kappa": 0.76282, "brennan_prediger": 0.77273}
    for key, value in published.items():
        assert round(float(co.get(key).value), 5) == value
    assert co.get("percent_agreement").value == Fraction(9, 11)  # 0.81818, exactly


@pytest.mark.parametrize("name", ["raw_5observers", "raw_ben_gerry", "raw_g1g2", "raw_gender"])
def test_irrcac_shipped_examples(name):
    frame = getattr(irr_data, name)()
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) for v in frame.stack(future_stack=True).dropna())
    check_against_irrcac(frame, "interval" if numeric else "nominal")


def _from_table(table) -> pd.DataFrame:
    """Subjects x categories counts as a subjects x raters frame (raters interchangeable)."""
    rows = []
    for counts in np.asarray(table, dtype=int):
        rows.append([k + 1 for k, n in enumerate(counts) for _ in range(n)])
    return pd.DataFrame(rows)


def test_fleiss_1971_and_wikipedia_examples_against_statsmodels_and_print():
    """Fleiss (1971), 30 patients x 6 psychiatrists: kappa 0.430; the Wikipedia example (10
    subjects x 14 raters): 0.210. statsmodels gives both; ours are exact fractions."""
    from statsmodels.stats.tests.test_inter_rater import diagnoses, table1

    for table, published in ((sm.aggregate_raters(diagnoses)[0], 0.430), (table1, 0.210)):
        frame = _from_table(table)
        c = K.counts_of(coded_of(frame), [str(i) for i in frame.columns])
        f = K.fleiss(c)
        assert isinstance(f.value, Fraction) and round(float(f.value), 3) == published
        assert float(f.value) == pytest.approx(sm.fleiss_kappa(np.asarray(table), method="fleiss"), abs=TOL)
        # Randolph's free-marginal kappa is Brennan-Prediger
        assert float(K.brennan_prediger(c).value) == pytest.approx(sm.fleiss_kappa(np.asarray(table), method="randolph"),
                                                                   abs=TOL)


def test_cohens_kappa_statsmodels_example():
    """statsmodels' SAS-checked example (table10): Cohen's kappa, and with linear/quadratic weights
    (category ranks, equally spaced: the same weights as ours)."""
    from statsmodels.stats.tests.test_inter_rater import table10

    m = np.asarray(table10)
    frame = pd.DataFrame([[i + 1, j + 1] for i in range(3) for j in range(3) for _ in range(m[i, j])])
    co = check_against_irrcac(frame, "ordinal")
    assert co.raters == ("0", "1") and co.get("cohen_kappa") is not None and co.get("scott_pi") is not None
    assert float(co.get("cohen_kappa").value) == pytest.approx(sm.cohens_kappa(m, return_results=False), abs=TOL)
    for wt in ("linear", "quadratic"):
        assert float(co.get("cohen_kappa", wt).value) == pytest.approx(
            sm.cohens_kappa(m, wt=wt, return_results=False), abs=TOL)
    pair = co.pairs[0]
    assert (pair.confusion == m).all() and pair.shared == m.sum()
    assert pair.kappa == co.get("cohen_kappa").value  # no missing: the pairwise and the panel's agree


# --- randomized panels --------------------------------------------------------------------------

def random_frame(seed: int) -> tuple[pd.DataFrame, str]:
    rng = np.random.default_rng(seed)
    n, r = int(rng.integers(15, 120)), int(rng.integers(2, 7))
    kind = ["labels", "equal", "unequal"][seed % 3]
    values = {"labels": ["ham", "spam", "eggs", "bacon"], "equal": [1, 2, 3, 4, 5],
              "unequal": [0, 1, 3, 7, 15]}[kind][: int(rng.integers(2, 5)) + (kind != "labels")]
    truth = rng.integers(0, len(values), n)
    data = np.where(rng.random((n, r)) < 0.65, truth[:, None], rng.integers(0, len(values), (n, r)))
    cells = np.array(values, dtype=object)[data]
    cells[rng.random((n, r)) < rng.choice([0.0, 0.15, 0.35])] = None
    cells[0, :] = values[0]  # every category and every rater used, no empty unit
    for k, v in enumerate(values):
        cells[k % n, k % r] = v
    frame = pd.DataFrame(cells, columns=[f"r{j}" for j in range(r)])
    return frame, ("nominal" if kind == "labels" else "interval")


@pytest.mark.parametrize("seed", range(30))
def test_randomized_panels_equal_irrcac(seed):
    frame, level = random_frame(seed)
    co = check_against_irrcac(frame, level)
    assert all(isinstance(c.value, Fraction) for c in co.table if c.value is not None)


@pytest.mark.parametrize("seed", range(10))
def test_two_complete_raters_equal_statsmodels(seed):
    frame, level = random_frame(seed * 3 + 1)  # equally spaced numbers: ranks and values weigh alike
    frame = frame.iloc[:, :2].dropna()
    co = K.coefficients(coded_of(frame), ["a", "b"], "interval")
    q = len(co.values)
    x = K.ratings_matrix(coded_of(frame), K.counts_of(coded_of(frame), ["a", "b"]))
    m = np.bincount(x[:, 0] * q + x[:, 1], minlength=q * q).reshape(q, q)
    for wt, ours in ((None, "identity"), ("linear", "linear"), ("quadratic", "quadratic")):
        assert float(co.get("cohen_kappa", ours).value) == pytest.approx(
            sm.cohens_kappa(m, wt=wt, return_results=False), abs=TOL)


def test_unequal_spacing_is_where_statsmodels_weights_differ():
    """statsmodels weighs by rank; irrCAC and we by the categories' values. On 0, 1, 3, 7, 15 the
    linear-weighted kappas differ, and ours is irrCAC's."""
    rng = np.random.default_rng(7)
    values = np.array([0, 1, 3, 7, 15], dtype=object)
    truth = rng.integers(0, 5, 80)
    noisy = np.where(rng.random(80) < 0.6, truth, rng.integers(0, 5, 80))
    frame = pd.DataFrame({"r0": values[truth], "r1": values[noisy]})
    co = check_against_irrcac(frame, "interval")
    q = len(co.values)
    x = K.ratings_matrix(coded_of(frame), K.counts_of(coded_of(frame), ["r0", "r1"]))
    m = np.bincount(x[:, 0] * q + x[:, 1], minlength=q * q).reshape(q, q)
    assert co.values == (0, 1, 3, 7, 15)
    ranks = sm.cohens_kappa(m, wt="linear", return_results=False)
    assert abs(float(co.get("cohen_kappa", "linear").value) - ranks) > 1e-3


def test_pairwise_kappa_is_statsmodels_on_the_shared_units():
    frame, _ = random_frame(4)
    coded = coded_of(frame)
    co = K.coefficients(coded, list(frame.columns), "interval")
    for p in co.pairs:
        shared = frame[[p.a, p.b]].dropna()
        assert p.shared == len(shared)
        if p.kappa is not None:
            assert float(p.kappa) == pytest.approx(sm.cohens_kappa(p.confusion, return_results=False), abs=TOL)


def test_specific_agreement_by_hand():
    # three units, two raters: (a, a), (a, b), (b, b): a-pairs agreeing 2 of 3, b-pairs 2 of 3
    co = K.coefficients(encode([["a", "a"], ["a", "b"], ["b", "b"]]), ["x", "y"])
    assert co.specific == (Fraction(2, 3), Fraction(2, 3))
    co = K.coefficients(encode([["a", "a"], ["a", "a"], ["a", "b"], ["b", None]]), ["x", "y"])
    assert co.specific == (Fraction(4, 5), Fraction(0))  # b is never agreed on
    assert co.shares == (Fraction(5, 7), Fraction(2, 7))


def test_undefined_is_said_not_faked():
    co = K.coefficients(encode([["a", None], [None, "a"]]), ["x", "y"])
    assert all(c.value is None for c in co.table)
    assert co.get("percent_agreement").note == "no unit has two ratings"
    one = K.coefficients(encode([["a", "a"], ["a", "a"]]), ["x", "y"])
    assert one.get("percent_agreement").value == 1 and one.get("scott_pi").value is None
    assert "chance agreement is 1" in one.get("scott_pi").note


def test_t_quantile_against_scipy():
    from scipy import stats

    for df in (1, 2, 3, 5, 11, 29, 30, 100, 1000, 10**6):
        for p in (0.5, 0.8, 0.975, 0.995, 0.999):
            assert K.t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-12, abs=1e-12)


# --- the explanation ----------------------------------------------------------------------------

def test_the_kappa_paradox_is_explained_with_numbers():
    """93% of the values in one category, high agreement, low alpha: prevalence, with the share
    and chance agreement; a biased rater named with the ratio; a dragging rater named."""
    rows = [["0", "0", "0"]] * 170 + [["1", "0", "0"]] * 12 + [["0", "1", "0"]] * 3 + [["1", "1", "1"]] * 4 + \
        [["1", "0", "1"]] * 3 + [["0", "0", "1"]] * 8
    coded = encode(rows)
    co = K.coefficients(coded, ["alice", "bob", "carol"])
    alpha = krippendorff_alpha(coded, "nominal").value
    without = {"alice": Fraction(1, 2), "bob": alpha, "carol": alpha}
    text = K.explain(co, alpha, ["0", "1"], without, Fraction(3, 5))
    pa = co.get("percent_agreement").value
    assert pa >= Fraction(4, 5) and alpha < Fraction(1, 2)
    assert text[0] == (f"Raters agree on {float(pa):.0%} of the pairs they rated together, yet alpha is "
                       f"{float(alpha):.3f}: alpha counts only the agreement beyond what chance would give with "
                       "these marginals.")
    share = co.shares[0]
    assert f"Prevalence: one category ('0') holds {float(share):.0%} of the values." in text[1]
    assert f"Chance alone would agree {float(co.get('fleiss_kappa').pe):.0%} of the time" in text[1]
    bias = next(t for t in text if t.startswith("Bias"))
    assert bias.startswith("Bias: 'alice' uses '1' ") and "as often as 'bob'" in bias
    drag = next(t for t in text if t.startswith("One rater"))
    assert drag == f"One rater drags alpha down: leaving out 'alice' raises it from {float(alpha):.3f} to 0.500."


def test_no_paradox_no_excuse():
    rows = [["a", "a"], ["b", "b"], ["c", "c"], ["a", "b"], ["b", "b"], ["c", "a"]] * 5
    coded = encode(rows)
    co = K.coefficients(coded, ["x", "y"])
    text = K.explain(co, krippendorff_alpha(coded, "nominal").value, ["a", "b", "c"])
    assert not any(t.startswith(("Raters agree", "Prevalence", "Bias", "One rater")) for t in text)


# --- everywhere: the command line and the reports; the verdict does not change ---------------------

def test_cli_coefficients_json_text_and_reports(tmp_path, capsys):
    import json
    from pathlib import Path

    import jsonschema

    from agreebound.cli.main import main
    from agreebound.io.ratings import parse_ratings

    sample = Path(__file__).resolve().parents[2] / "sample_data" / "detector_panel.csv"
    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "report.schema.json").read_text())
    plain = main(["panel", str(sample), "--json"])
    before = json.loads(capsys.readouterr().out)
    code = main(["panel", str(sample), "--json", "--coefficients"])
    after = json.loads(capsys.readouterr().out)
    jsonschema.validate(after, schema)
    assert code == plain == 1 and after["panel"]["verdict"] == before["panel"]["verdict"] == "REPORT_ONLY"
    for b, a in zip(before["panel"]["dimensions"], after["panel"]["dimensions"]):
        section = a["coefficients"]
        assert {k: v for k, v in a.items() if k != "coefficients"} == b  # nothing else moves
        panel = parse_ratings(sample.name, sample.read_bytes())[a["dimension"]]
        co = K.coefficients(panel.ratings("nominal"), panel.raters, "nominal")
        assert [(c["key"], c["exact"]) for c in section["table"]] == [(c.key, str(c.value)) for c in co.table]
        assert section["decides"] is False and len(section["pairs"]) == 6
    insult = next(d for d in after["panel"]["dimensions"] if d["dimension"] == "insult")["coefficients"]
    assert insult["explanation"][0].startswith("Raters agree on 84% of the pairs they rated together, yet alpha is 0.431")
    main(["panel", str(sample), "--coefficients"])
    text = capsys.readouterr().out
    assert "other coefficients (beside alpha; they do not decide):" in text
    assert "  why: Prevalence: one category ('0') holds 83% of the values." in text
    md = tmp_path / "r.md"
    main(["panel", str(sample), "--coefficients", "--report", str(md)])
    capsys.readouterr()
    assert "### Other coefficients (beside alpha; they do not decide)" in md.read_text()
    html = tmp_path / "r.html"
    main(["panel", str(sample), "--coefficients", "--report", str(html)])
    capsys.readouterr()
    assert "Other coefficients (beside alpha; they do not decide)</h3>" in html.read_text()
    assert main(["panel", str(sample), "--coefficients", "--engine", "duckdb"]) == 3
    assert "--coefficients is not available with --engine duckdb" in capsys.readouterr().err


def test_user_text_in_the_explanation_is_cut_and_escaped():
    long = "<b>x</b>" * 40
    rows = [[long, long, long]] * 50 + [["y", long, long]] * 2
    coded = encode(rows)
    co = K.coefficients(coded, ["a", "b", "c"])
    text = K.explain(co, krippendorff_alpha(coded, "nominal").value, list(co.values))
    assert text and all(len(t) < 400 for t in text)
    from agreebound.render.markdown import coefficients_markdown

    section = {"explanation": text, "table": [], "pairs": [], "categories": []}
    md = "\n".join(coefficients_markdown(section))
    assert "<b>" not in md and "\\<b\\>" in md


def test_judge_against_the_human_reference():
    from pathlib import Path

    from agreebound.app.pipeline import parse_judge_bundle

    f = Path(__file__).resolve().parents[2] / "sample_data" / "judge_failing.json"
    m = parse_judge_bundle(f.name, f.read_bytes()).measurement
    rows, cols, table, kappa = K.judge_confusion(m.cases)
    assert table.sum() == 2 * m.n_cases == 480 and table[:, 3].sum() == 0  # three repetitions: always a majority
    assert table.tolist() == [[137, 83, 12, 0], [60, 146, 6, 0], [4, 6, 26, 0]]
    assert table.sum(axis=1).tolist() == [2 * int((m.cases["preferred"] == c).sum()) for c in rows]
    assert float(kappa) == pytest.approx(sm.cohens_kappa(table[:, :3], return_results=False), abs=TOL)


def test_a_review_s_edge_cases():
    """One category, a rater who never uses a label, continuous scores, a name that looks like a
    plotly field."""
    one = K.coefficients(encode([["yes", "yes"], ["yes", None]]), ["a", "b"])
    assert K.explain(one, None, ["yes"]) == [
        "Every value is 'yes': with one category there is no variation, so alpha and the chance-corrected "
        "coefficients are undefined, and agreement is 100% by construction."]
    assert one.get("gwet_ac").note == "one category only: there is no chance agreement to correct for"
    rows = [["1", "0"]] * 20 + [["0", "0"]] * 80
    never = K.explain(K.coefficients(encode(rows), ["a", "b"]), krippendorff_alpha(encode(rows), "nominal").value, ["0", "1"])
    assert "Bias: 'a' uses '1' while 'b' never does (20% of their ratings against 0%)." in " ".join(never)
    assert not any("inf" in t for t in never)

    from agreebound.panel.measure import panel_coefficients
    from agreebound.io.ratings import parse_ratings

    rng = np.random.default_rng(1)
    text = "unit,a,b,c\n" + "".join(f"u{i},{rng.random():.4f},{rng.random():.4f},{rng.random():.4f}\n" for i in range(80))
    panel = next(iter(parse_ratings("scores.csv", text.encode()).values()))
    pc = panel_coefficients(panel, "interval")
    assert pc.coefficients is None and pc.explanation[0].startswith(f"{len(pc.texts)} distinct values: agreement coefficients are "
                                                                    "computed for at most 50 categories")
    from agreebound.render.report import coefficients_section

    assert coefficients_section(pc)["table"] == [] and pc.explained(600) == pc.explanation

    from agreebound.render.figures import confusion_heatmap

    co = K.coefficients(encode([["x", "y"], ["x", "x"]]), ["%{z} units", "<b>b</b>"])
    fig = confusion_heatmap(co.pairs[0], ["x", "y"])
    assert fig.data[0].hovertemplate == "%{customdata}<extra></extra>"
    assert "&lt;b&gt;b&lt;/b&gt;" in fig.data[0].customdata[0][0] and "%{z} units: x" in fig.data[0].customdata[0][0]


def test_krippendorff_in_irrcac_is_ours_at_the_nominal_level_but_its_ordinal_weights_are_another_metric():
    """irrCAC's alpha with identity weights is Krippendorff's nominal alpha, ours to 1e-9. Its
    "ordinal" weights are a fixed function of the category ranks, where Krippendorff's ordinal
    metric weighs the marginals between two categories: the two ordinal alphas differ, and the
    product's is Krippendorff's (published 0.8154 on Krippendorff 2011, in test_panel)."""
    for seed in range(8):
        frame, _ = random_frame(seed * 3 + 1)  # equally spaced numbers, missing cells
        coded = coded_of(frame)
        categories = [float(v) for v in K.counts_of(coded, list(frame.columns)).values]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nominal = irr_raw.CAC(frame.astype(float), categories=categories, digits=15).krippendorff()["est"]
            ordinal = irr_raw.CAC(frame.astype(float), weights="ordinal", categories=categories,
                                  digits=15).krippendorff()["est"]
        assert float(krippendorff_alpha(coded, "nominal").value) == pytest.approx(nominal["coefficient_value"], abs=TOL)
        if len(categories) > 2:
            assert abs(float(krippendorff_alpha(coded, "ordinal").value) - ordinal["coefficient_value"]) > 1e-6
