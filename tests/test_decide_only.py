"""Only ``decide`` compares a number with a threshold, and every reader gets typed gates.

The first test inspects the syntax tree of every module of the product (src/agreebound, pages/,
app.py): an ordering comparison (<, <=, >, >=) with an operand that names a threshold fails the
test outside the decide functions named in :data:`ALLOWED`. A name is a threshold when it is a
field of ``PanelThresholds`` or ``CalibrationThresholds`` (or the contract's ``minimum_*_bps`` /
``maximum_*_bps``), the floor's and the cap's fraction properties, a gate's ``threshold``, the
words ``floor`` and ``cap``, or a local name assigned from any of these in the same function.
Equality (did the threshold change between two runs?) decides no gate and is not flagged.

The other tests pin the :class:`agreebound.gate.Gate` fields that the renderers read.
"""

from __future__ import annotations

import ast
from dataclasses import fields, replace
from fractions import Fraction
from pathlib import Path

import pytest

from agreebound.calibration import decide as decide_judge
from agreebound.calibration import gates_from_report as judge_gates_from_report
from agreebound.gate import NOT_EVALUABLE, NOT_MEASURED, SEVERITY, UNBOUNDED, UNDEFINED, cases_to_flip, evaluate
from agreebound.panel import PanelThresholds, decide, gates_from_report
from agreebound.render.report import EXIT_CODES, panel_report
from agreebound.thresholds import CalibrationThresholds, ThresholdSet

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "agreebound"

THRESHOLD_NAMES = (
    {f.name for f in fields(PanelThresholds)} | {f.name for f in fields(CalibrationThresholds)}
) - {"strict"} | {"alpha_floor", "ratio_cap", "threshold", "threshold_bps", "floor", "cap"}

#: (module, function) -> why it may compare a number with a threshold. The decide modules'
#: decision functions; anything else is a leak of ``decide``.
ALLOWED: dict[tuple[str, str], str] = {
    ("src/agreebound/gate.py", "meets"): "the one comparison every gate makes",
    ("src/agreebound/gate.py", "evaluate"): "decide's gate builder",
    ("src/agreebound/gate.py", "cases_to_flip"): "a judge gate's cases to decide, for decide",
    ("src/agreebound/panel.py", "decide"): "the panel's decide",
    ("src/agreebound/panel.py", "_alpha_gate"): "the panel's decide: alpha's gate",
    ("src/agreebound/panel.py", "_spread_gate"): "the panel's decide: the spread's gate",
    ("src/agreebound/panel.py", "_reasons"): "the panel's decide: its reasons, from the gates",
    ("src/agreebound/panel.py", "_strict_reasons"): "the panel's decide: strict mode's reasons",
    ("src/agreebound/panel.py", "seed_enforce"): "the seed's own ab_enforce on its integers (the oracle)",
    ("src/agreebound/panel.py", "gates_from_report"): "decide's one reading of a stored report",
    ("src/agreebound/calibration.py", "decide"): "the judge's decide",
    ("src/agreebound/calibration.py", "_rate_gate"): "the judge's decide: one rate's gate",
    ("src/agreebound/calibration.py", "_reference_issues"): "the judge's decide: references below minimum_reviewers",
    ("src/agreebound/calibration.py", "with_intervals"): "the judge's decide: fragile gates from intervals",
    ("src/agreebound/calibration.py", "gates_from_report"): "decide's one reading of a stored report",
    # Not gates, said here so the exception is visible:
    ("src/agreebound/judge_counts.py", "issues"): "which references have fewer reviewers than minimum_reviewers, "
                                                  "counted beside the counts for the judge's decide (its reference "
                                                  "issues) and the SQL engines' summary; to move into decide",
    ("src/agreebound/uncertainty.py", "q_below"): "KALPHA's q, the share of bootstrap resamples below the floor: "
                                                  "a diagnostic reported beside the gate, it decides nothing",
}

ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _product_files() -> list[Path]:
    return sorted(SRC.rglob("*.py")) + sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]


def _named(node: ast.AST, names: set[str]) -> set[str]:
    found = set()
    for n in ast.walk(node):
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else None
        if name is None:
            continue
        if name in names or (name.startswith(("minimum_", "maximum_")) and name.endswith("_bps")):
            if isinstance(n, ast.Attribute) and name in ("floor", "cap"):
                continue  # math.floor is no threshold
            found.add(name)
    return found


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
#: Calls that keep a threshold a threshold: its value in another type.
_CONVERSIONS = {"float", "Fraction", "int", "round"}
_ROUNDING = {"floor", "ceil"}  # math.floor(limit): the most errors a maximum allows


def _own(scope: ast.AST):
    """The nodes of one scope, without those of the functions nested in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _FUNCTIONS):
            todo.extend(ast.iter_child_nodes(node))


def _is_threshold(value: ast.AST, names: set[str]) -> bool:
    """An expression that is a threshold: a threshold's name, its value converted (float(...),
    Fraction(...)), or it scaled (``t / 100``, ``Fraction(t, BPS)``, ``t * n``)."""
    if isinstance(value, (ast.Name, ast.Attribute)):
        return bool(_named(value, names))
    if isinstance(value, ast.Call) and (isinstance(value.func, ast.Name) and value.func.id in _CONVERSIONS
                                        or isinstance(value.func, ast.Attribute) and value.func.attr in _ROUNDING):
        return bool(value.args) and _is_threshold(value.args[0], names)
    if isinstance(value, ast.BinOp):
        return _is_threshold(value.left, names) or _is_threshold(value.right, names)
    if isinstance(value, ast.UnaryOp):
        return _is_threshold(value.operand, names)
    return False


def _tainted(scope: ast.AST, inherited: set[str]) -> set[str]:
    """The threshold names in a scope: the inherited ones (a closure sees its function's) and the
    local names assigned a threshold, to a fixed point."""
    names = set(inherited)
    while True:
        grown = set(names)
        for node in _own(scope):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                    and _is_threshold(node.value, names):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                grown |= {t.id for t in targets if isinstance(t, ast.Name)}
        if grown == names:
            return names
        names = grown


def _comparisons(scope: ast.AST, name: str, inherited: set[str]):
    """(function, comparison node, names) for every ordering comparison naming a threshold."""
    names = _tainted(scope, inherited)
    for node in _own(scope):
        if isinstance(node, _FUNCTIONS):
            yield from _comparisons(node, getattr(node, "name", "<lambda>"), names)
        elif isinstance(node, ast.Compare) and any(isinstance(op, ORDERING) for op in node.ops):
            hits = set().union(*(_named(o, names) for o in [node.left, *node.comparators]))
            if hits:
                yield name, node, hits


def threshold_comparisons() -> list[str]:
    out = []
    for path in _product_files():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name, node, hits in _comparisons(tree, "<module>", set(THRESHOLD_NAMES)):
            if (rel, name) not in ALLOWED:
                out.append(f"{rel}:{node.lineno} in {name}: {ast.unparse(node)} (names {sorted(hits)})")
    return sorted(out)


def test_no_threshold_comparison_outside_decide():
    assert threshold_comparisons() == []


def test_the_checker_sees_a_leak():
    leak = ast.parse("def f(m, th):\n    t = float(th.alpha_floor_permil) / 1000\n"
                     "    def side(x):\n        return x >= t\n    return side(m.alpha.value)\n")
    assert [(name, hits) for name, _, hits in _comparisons(leak, "<module>", set(THRESHOLD_NAMES))] == \
        [("side", {"t"})]


#: The panel's reason codes: read back as gates only by panel.gates_from_report (GATE_CHECKS).
REASON_CODES = ("single_detector", "alpha_undefined", "alpha_below_floor", "alpha_interval_missing",
                "alpha_lower_bound_below_floor", "ratio_unbounded", "ratio_above_cap", "spread_interval_missing",
                "spread_upper_unbounded", "spread_upper_above_cap")


def test_no_reason_code_is_parsed_outside_decide():
    """Pass/fail is never rebuilt from a reason's code outside the panel's decide module: no
    string constant there names one (a sample file's name is no reason code)."""
    found = []
    for path in _product_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel == "src/agreebound/panel.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    any(code in node.value and f"{code}.csv" not in node.value for code in REASON_CODES):
                found.append(f"{rel}:{node.lineno}: {node.value[:60]!r}")
    assert found == []


def test_every_allowed_function_exists():
    """An exception names a function that is still there (a rename must not leave a hole)."""
    for (rel, name), _ in ALLOWED.items():
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        assert any(getattr(n, "name", None) == name for n in ast.walk(tree)), (rel, name)


# --- the gates ---------------------------------------------------------------------------------


def test_a_panel_at_the_floor_exactly_passes():
    d = decide(3, Fraction(3, 5), [1, 1], PanelThresholds(600, 2000))
    alpha = d.gate("alpha")
    assert alpha.passed and alpha.value_passed and alpha.state == "measured"
    assert alpha.exact == alpha.threshold == Fraction(3, 5) and alpha.margin == 0
    assert alpha.margin_words == "exactly at the threshold"
    assert (alpha.kind, alpha.threshold_field, alpha.threshold_source) == ("min", "alpha_floor_permil", "default")
    just_below = decide(3, Fraction(599_999, 1_000_000), [1, 1]).gate("alpha")
    assert just_below.passed is False and just_below.margin_words == "0.000 short"
    assert [g.name for g in d.gates] == ["detectors", "alpha", "spread"]


def test_undefined_alpha_has_state_undefined_and_fails():
    d = decide(3, None, [1, 1])
    alpha = d.gate("alpha")
    assert (alpha.state, alpha.passed, alpha.exact, alpha.margin) == (UNDEFINED, False, None, None)
    assert [r.check for r in d.reasons] == ["alpha_undefined"]


def test_an_unbounded_spread_and_an_unmeasured_one():
    unbounded = decide(3, Fraction(9, 10), [0, 3], spread_low=1.5, spread_high=None).gate("spread")
    assert (unbounded.state, unbounded.passed, unbounded.exact) == (UNBOUNDED, False, None)
    assert (unbounded.low, unbounded.high) == (1.5, None)
    unmeasured = decide(3, Fraction(9, 10), []).gate("spread")
    assert (unmeasured.state, unmeasured.passed) == (NOT_MEASURED, None)  # not checked: it does not block


def test_strict_mode_bound_and_fragile():
    th = PanelThresholds(600, 2000, strict=True)
    d = decide(3, Fraction(13, 20), [1, 1], th, alpha_low=0.55, alpha_high=0.72, spread_low=1.0, spread_high=1.5)
    alpha = d.gate("alpha")
    assert (alpha.value_passed, alpha.bound_passed, alpha.passed, alpha.fragile) == (True, False, False, True)
    assert d.verdict.value == "REPORT_ONLY"
    assert [r.check for r in d.reasons] == ["alpha_lower_bound_below_floor"]
    assert d.gate("spread").bound_passed is True and not d.gate("spread").fragile


def test_the_gates_say_what_the_reasons_say():
    for ndet, alpha, rates in [(1, Fraction(1, 2), [1, 5]), (2, Fraction(7, 10), [1, 1]), (3, None, [0, 1])]:
        d = decide(ndet, alpha, rates)
        checks = {r.check for r in d.reasons}
        assert d.gate("detectors").passed == ("single_detector" not in checks)
        assert d.gate("alpha").passed == (not checks & {"alpha_undefined", "alpha_below_floor"})
        assert d.gate("spread").passed == (not checks & {"ratio_unbounded", "ratio_above_cap"})


def test_a_stored_dimension_gives_back_the_decided_gates():
    from agreebound.analysis import decide_panel, measure_panels
    from agreebound.io.formats import parse_detector_rates, parse_ratings

    samples = ROOT / "sample_data"
    panels = parse_ratings("p.csv", (samples / "detector_panel.csv").read_bytes())
    rates = parse_detector_rates("r.csv", (samples / "detector_rates.csv").read_bytes())
    measured = {**measure_panels(panels, rates=rates, rates_file="r.csv"),
                **{"k": m for m in measure_panels(parse_ratings(
                    "k.csv", (samples / "krippendorff_2011.csv").read_bytes()), "auto").values()}}
    for strict in (False, True):
        th = ThresholdSet(PanelThresholds(600, 2000, strict=strict))
        report = panel_report(measured, th, [("p.csv", b"")])
        for dimension, m in zip(report["panel"]["dimensions"], measured.values(), strict=True):
            stored = gates_from_report(dimension, report["thresholds"]["panel"])
            live = decide_panel(m, th.panel).gates
            keep = ("name", "passed", "state", "exact", "threshold", "fragile")
            assert [[getattr(g, k) for k in keep] for g in stored] == [[getattr(g, k) for k in keep] for g in live]


def _judge_measurement():
    from agreebound.pipeline import parse_judge_bundle

    path = ROOT / "sample_data" / "judge_failing.json"
    return parse_judge_bundle(path.name, path.read_bytes()).measurement


def test_a_judge_gate_carries_its_cases_to_decide():
    m = _judge_measurement()
    d = decide_judge(m)
    for c, g in zip(d.checks, d.gates):
        assert g.name == c.name and g.passed == c.passed or g.state == NOT_EVALUABLE
        assert g.cases_to_decide == cases_to_flip(c.rate.numerator, c.rate.denominator, c.threshold_bps, c.kind)
        assert g.threshold == Fraction(c.threshold_bps, 10_000) and g.unit == "%"
        assert g.threshold_source == "contract"
    flip = d.gate("position_flip")
    assert flip.passed is False and flip.cases_to_decide[0] == "pass"  # k fewer flips would pass
    edited = decide_judge(m, replace(m.contract.thresholds, maximum_position_flip_bps=10_000))
    assert edited.gate("position_flip").passed and edited.gate("position_flip").threshold_source == "draft"
    assert edited.gate("position_flip").cases_to_decide[0] == "fail"


def test_a_stored_judge_report_gives_back_its_gates():
    from agreebound.render.report import calibration_section
    from agreebound.pipeline import parse_judge_bundle

    path = ROOT / "sample_data" / "judge_failing.json"
    bundle = parse_judge_bundle(path.name, path.read_bytes())
    d = decide_judge(bundle.measurement)
    stored = judge_gates_from_report(calibration_section(bundle, d)["rates"])
    assert [(g.name, g.passed, g.exact, g.cases_to_decide) for g in stored] == \
        [(g.name, g.passed, g.exact, g.cases_to_decide) for g in d.gates]


def test_one_table_of_severity():
    assert {v: 2 - s for v, s in SEVERITY.items()} == EXIT_CODES
    assert set(SEVERITY) == {"ENFORCE", "REPORT_ONLY", "REFUSE_SINGLE", "PASS_CALIBRATION", "FAIL_CALIBRATION",
                             "INCOMPLETE"}


@pytest.mark.parametrize("kind, value, threshold, low, high, fragile", [
    ("min", Fraction(13, 20), Fraction(3, 5), 0.55, 0.72, True),
    ("min", Fraction(13, 20), Fraction(3, 5), 0.61, 0.72, False),
    ("max", Fraction(9, 5), Fraction(2), 1.2, None, True),  # unbounded above
    ("max", Fraction(3, 2), Fraction(2), 1.2, 1.9, False),
])
def test_fragile_when_the_interval_holds_both_results(kind, value, threshold, low, high, fragile):
    assert evaluate("g", kind, value, threshold, low=low, high=high).fragile is fragile
