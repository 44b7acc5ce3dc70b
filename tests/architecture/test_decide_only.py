"""Only ``decide`` compares a number with a threshold, and every reader gets typed gates.

The first test inspects the syntax tree of every module of the product (src/agreebound, pages/,
app.py). Outside the functions named in :data:`ALLOWED`, a leak is
- a call to a comparison helper of the decide layer (:data:`COMPARATORS`: ``meets``, ``evaluate``,
  ``straddles``, ``cases_to_flip``, the Wilson bound tests), whatever its arguments;
- an ordering of a threshold against another value: ``<``, ``<=``, ``>``, ``>=``, numpy's and
  operator's comparisons, the dunders, and ``max``/``min`` (:data:`ORDERING_CALLS`). A threshold
  against constants alone (a format, a legal range) measures nothing and is not flagged.
A threshold is a field of ``PanelThresholds`` or ``CalibrationThresholds`` (or the contract's
``minimum_*_bps`` / ``maximum_*_bps``), a name, attribute or string key with the word threshold,
floor or cap in it (``r["threshold_bps"]``, ``getattr(th, "alpha_floor_permil")``,
``d.get("ratio_cap_permil")``), that value converted or scaled, a container holding one, and any
name bound to one: assigned (element by element when unpacked), a loop's or a comprehension's
target over one, a walrus, or a parameter some call passes one or defaults to one.
Equality (did the threshold change between two runs?) decides no gate and is not flagged.
:data:`EVASIONS` and :data:`INNOCENT` pin what the checker must and must not see.

The other tests pin the :class:`agreebound.core.gate.Gate` fields that the renderers read.
"""

from __future__ import annotations

import ast
from dataclasses import fields, replace
from fractions import Fraction
from pathlib import Path

import pytest

from agreebound.judge.decide import decide as decide_judge
from agreebound.core.thresholds import RATE_GATES
from agreebound.judge.decision import seed_view
from agreebound.judge.decision import gates_from_report as judge_gates_from_report
from agreebound.core.gate import NOT_EVALUABLE, NOT_MEASURED, SEVERITY, UNBOUNDED, UNDEFINED, cases_to_flip, evaluate, meets
from agreebound.core.thresholds import PanelThresholds
from agreebound.panel.decide import decide
from agreebound.panel.decision import gates_from_report
from agreebound.render.report import EXIT_CODES, panel_report
from agreebound.app.pipeline import decide_panels
from agreebound.core.thresholds import CalibrationThresholds, ThresholdSet
from agreebound.core.thresholds import DriftThresholds

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "agreebound"

THRESHOLD_NAMES = (
    {f.name for f in fields(PanelThresholds)} | {f.name for f in fields(CalibrationThresholds)}
    | {f.name for f in fields(DriftThresholds)}
) - {"strict"} | {"alpha_floor", "ratio_cap", "threshold", "threshold_bps", "floor", "cap", "tolerance"}
#: A word with one of these parts names a threshold too ("alpha_floor_now", "DEFAULT_CAP", "threshold_bps").
THRESHOLD_PARTS = frozenset({"threshold", "floor", "cap"})

#: Names with a threshold's word that hold no threshold, and why.
NOT_THRESHOLDS = {
    "REVIEWER_CAP": "judge_counts: reviewers per case are counted up to it, a bucket of the counts, no gate",
}

#: The comparison helpers of the decide layer: agreebound.core.gate's and the exact bound tests of
#: agreebound.panel.intervals's Wilson interval. A call to one outside ALLOWED is a leak, whatever
#: its arguments.
COMPARATORS = frozenset({"meets", "evaluate", "straddles", "cases_to_flip", "low_at_least", "high_at_most"})
#: Calls that order their arguments: numpy's and operator's comparisons, the dunder methods, and
#: max/min (``max(v, floor) == v`` is ``v >= floor``) and their numpy kin.
ORDERING_CALLS = frozenset({"greater", "greater_equal", "less", "less_equal", "lt", "le", "gt", "ge",
                            "__lt__", "__le__", "__gt__", "__ge__", "max", "min", "maximum", "minimum",
                            "fmax", "fmin", "clip"})

#: (module, function) -> why it may compare a number with a threshold. The decide modules'
#: decision functions; anything else is a leak of ``decide``.
ALLOWED: dict[tuple[str, str], str] = {
    ("src/agreebound/core/gate.py", "meets"): "the one comparison every gate makes",
    ("src/agreebound/core/gate.py", "straddles"): "a gate's fragile: its interval against its threshold, for evaluate",
    ("src/agreebound/core/gate.py", "evaluate"): "decide's gate builder",
    ("src/agreebound/core/gate.py", "cases_to_flip"): "a judge gate's cases to decide, for decide",
    ("src/agreebound/core/planner.py", "_plan"): "a gate's plan, for decide: a fragile gate needs at least one more case",
    ("src/agreebound/core/planner.py", "plan_rate"): "a judge rate's plan, for decide: the estimate on the threshold, the "
                                             "distance to it",
    ("src/agreebound/core/planner.py", "plan_difference"): "a net gate's plan, for decide: the estimate on the threshold, the "
                                                   "distance to it",
    ("src/agreebound/core/planner.py", "plan_alpha"): "alpha's plan, for decide: the estimate on the floor, the distance to it",
    ("src/agreebound/panel/decide.py", "decide"): "the panel's decide",
    ("src/agreebound/panel/decide.py", "_optional_gates"): "the panel's decide: the optional gates its thresholds turn on",
    ("src/agreebound/panel/decide.py", "_alpha_gate"): "the panel's decide: alpha's gate",
    ("src/agreebound/panel/decide.py", "alpha_gate_at"): "the panel's decide: alpha's gate on a value alone (explain asks it)",
    ("src/agreebound/panel/decide.py", "_detectors_gate"): "the panel's decide: the structural gate",
    ("src/agreebound/panel/decide.py", "_spread_gate"): "the panel's decide: the spread's gate",
    ("src/agreebound/panel/decide.py", "_reasons"): "the panel's decide: its reasons, from the gates",
    ("src/agreebound/panel/decide.py", "_strict_reasons"): "the panel's decide: strict mode's reasons",
    ("src/agreebound/panel/seed.py", "seed_enforce"): "the seed's own ab_enforce on its integers (the oracle)",
    ("src/agreebound/panel/decision.py", "gates_from_report"): "decide's one reading of a stored report",
    ("src/agreebound/judge/decide.py", "decide"): "the judge's decide",
    ("src/agreebound/scored/decide.py", "_gate"): "a graded or pass/fail judge's gate, for decide_scored",
    ("src/agreebound/judge/decide.py", "_rate_gate"): "the judge's decide: one rate's gate",
    ("src/agreebound/core/planner.py", "rate_mdd"): "a plan's detectable difference: true rates either side of the threshold",
    ("src/agreebound/judge/decide.py", "_net_gate"): "the judge's decide: an opt-in gate on a bias net of disagreement",
    ("src/agreebound/judge/decision.py", "seed_view"): "the judge's decide: the seed's basis points against the limit",
    ("src/agreebound/judge/drift.py", "decide_drift"): "the judge's drift decision: its shift on the anchors against "
                                                       "the tolerance",
    ("src/agreebound/judge/decide.py", "reference_issues"): "the judge's decide: references below minimum_reviewers",
    ("src/agreebound/judge/decision.py", "with_intervals"): "the judge's decide: fragile gates from intervals",
    ("src/agreebound/judge/decision.py", "gates_from_report"): "decide's one reading of a stored report",
    ("src/agreebound/judge/ranking.py", "decide_gate"): "the ranking gate's decide: a model's lead over a baseline "
                                                        "against the margin, fragile when the interval holds it",
    ("src/agreebound/judge/slices.py", "one_sided_p"): "the slices' decide: a slice's p-value of failing its limit "
                                                       "(which side of the limit its rate is on), for decide_slices",
    # Not gates, said here so the exception is visible:
    ("src/agreebound/panel/intervals.py", "q_below"): "KALPHA's q, the share of bootstrap resamples below the floor: "
                                                  "a diagnostic reported beside the gate, it decides nothing",
    ("src/agreebound/judge/contract.py", "_exact_int"): "a contract field's legal range: it checks threshold data, "
                                                  "measures nothing",
    # Drawing, not deciding: an axis spans the value, its interval and the threshold; pass and fail
    # arrive from the decided gate (its passed, its flips_at).
    ("src/agreebound/render/gate_figures.py", "_bullet_range"): "a bullet's axis: it spans the value and the threshold",
    ("src/agreebound/render/gate_figures.py", "_sweep_range"): "the sweep's axis: it spans the value and the threshold",
    ("src/agreebound/render/gate_figures.py", "_on_axis"): "a line's position on the axis: the nearer end when beyond it",
    ("src/agreebound/render/gate_figures.py", "axis_top"): "the top of an axis that shows the rates and the cap's band",
    ("src/agreebound/core/thresholds.py", "check"): "threshold data's legal range: it checks a threshold, measures nothing",
    ("src/agreebound/core/intervals.py", "rate_interval"): "rounds the exact Wilson bounds outward to floats with the "
                                                         "interval's own bound tests: no threshold is involved",
}

ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
#: Calls that keep a threshold a threshold: its value in another type.
_CONVERSIONS = {"float", "Fraction", "int", "round", "abs", "Decimal"}
_ROUNDING = {"floor", "ceil"}  # math.floor(limit): the most errors a maximum allows


def _product_files() -> list[Path]:
    return sorted(SRC.rglob("*.py")) + sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]


def _is_word(word: str) -> bool:
    """A name, attribute or string key that names a threshold."""
    if word in NOT_THRESHOLDS:
        return False
    if word in THRESHOLD_NAMES or (word.startswith(("minimum_", "maximum_")) and word.endswith("_bps")):
        return True
    return bool(THRESHOLD_PARTS & set(word.lower().split("_")))


def _callee(call: ast.Call) -> str | None:
    """The called function's own name: ``f`` of ``f(x)``, ``meets`` of ``gate.meets(x)``."""
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _constant_key(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _own(scope: ast.AST):
    """The nodes of one scope, without those of the functions nested in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _FUNCTIONS):
            todo.extend(ast.iter_child_nodes(node))


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _threshold_call(call: ast.Call, names: set[str]) -> bool:
    """A call that gives a threshold: one converted or rounded (float(t), math.floor(t)), read by
    its field's name (getattr(th, "alpha_floor"), d.get("threshold_bps")), or a method of one."""
    f, name = call.func, _callee(call)
    first = call.args[0] if call.args else None
    if name in _CONVERSIONS or isinstance(f, ast.Attribute) and name in _ROUNDING:
        return first is not None and _is_threshold(first, names)
    if name == "getattr" and len(call.args) >= 2:
        return _is_word(_constant_key(call.args[1]) or "")
    if isinstance(f, ast.Attribute):
        if name == "get" and first is not None and _is_word(_constant_key(first) or ""):
            return True
        return _is_threshold(f.value, names)  # t.limit_denominator(), thresholds_by_name.get(k)
    return False


def _is_threshold(value: ast.AST, names: set[str]) -> bool:
    """An expression that is a threshold: a threshold's name or field (an attribute, a string key,
    getattr), its value converted or scaled (``float(t)``, ``t / 100``, ``Fraction(t, BPS)``),
    one of two (``a if c else t``), or a container that holds one (its items are thresholds)."""
    if isinstance(value, ast.Name):
        return value.id in names or _is_word(value.id)
    if isinstance(value, ast.Attribute):
        return _is_word(value.attr) or _is_threshold(value.value, names)
    if isinstance(value, ast.Subscript):
        return _is_word(_constant_key(value.slice) or "") or _is_threshold(value.value, names)
    if isinstance(value, ast.Call):
        return _threshold_call(value, names)
    if isinstance(value, ast.BinOp):
        return _is_threshold(value.left, names) or _is_threshold(value.right, names)
    if isinstance(value, ast.UnaryOp):
        return _is_threshold(value.operand, names)
    if isinstance(value, ast.IfExp):
        return _is_threshold(value.body, names) or _is_threshold(value.orelse, names)
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_threshold(e, names) for e in value.elts)
    if isinstance(value, ast.Dict):
        return any(_is_threshold(v, names) for v in value.values)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _is_threshold(value.elt, names)
    if isinstance(value, ast.DictComp):
        return _is_threshold(value.value, names)
    if isinstance(value, (ast.Starred, ast.NamedExpr)):
        return _is_threshold(value.value, names)
    return False


def _bound(target: ast.AST, value: ast.AST, names: set[str]) -> set[str]:
    """The names a binding makes thresholds: ``t = th.alpha_floor``; element by element
    ``lo, hi = th.alpha_floor, th.ratio_cap``; every name of the target otherwise."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts) and not any(isinstance(e, ast.Starred) for e in value.elts):
        return set().union(*(_bound(t, v, names) for t, v in zip(target.elts, value.elts)))
    return _names_in(target) if _is_threshold(value, names) else set()


def _bindings(node: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """(target, value) of every binding a node makes: assignments, walrus, and loop targets (a
    loop over thresholds binds thresholds: ``for t in (g.threshold, ...)``)."""
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [(node.target, node.iter)]
    return []


def _tainted(scope: ast.AST, inherited: set[str]) -> set[str]:
    """The threshold names in a scope: the inherited ones (a closure sees its function's; a
    parameter some call passes a threshold) and the local names bound to a threshold, to a fixed
    point."""
    names = set(inherited)
    while True:
        grown = set(names)
        for node in _own(scope):
            for target, value in _bindings(node):
                grown |= _bound(target, value, grown)
        if grown == names:
            return names
        names = grown


def _leaves(node: ast.AST) -> list[ast.AST]:
    """The values an expression is made of: names, attributes, items and calls' results (a
    conversion stands for its argument); constants, strings and operators are no values."""
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        return [node]
    if isinstance(node, ast.Call):
        if _callee(node) in _CONVERSIONS | _ROUNDING:
            return [leaf for a in node.args for leaf in _leaves(a)]
        return [node]
    if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Lambda)):
        return []
    if isinstance(node, ast.BinOp):
        return _leaves(node.left) + _leaves(node.right)
    if isinstance(node, ast.BoolOp):
        return [leaf for v in node.values for leaf in _leaves(v)]
    if isinstance(node, ast.IfExp):
        return _leaves(node.body) + _leaves(node.orelse)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [leaf for e in node.elts for leaf in _leaves(e)]
    if isinstance(node, ast.Dict):
        return [leaf for v in node.values for leaf in _leaves(v)]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _leaves(node.elt) * 2  # its values are many: max(x for x in (v, t)) orders v and t
    if isinstance(node, ast.UnaryOp):
        return _leaves(node.operand)
    if isinstance(node, (ast.Starred, ast.NamedExpr)):
        return _leaves(node.value)
    return [node]


def _ordered(node: ast.AST) -> list[ast.AST] | None:
    """What a node puts in order: a comparison's operands, an ordering call's arguments (not
    ``key=``); None for any other node."""
    if isinstance(node, ast.Compare) and any(isinstance(op, ORDERING) for op in node.ops):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Call) and _callee(node) in ORDERING_CALLS:
        receiver = [node.func.value] if isinstance(node.func, ast.Attribute) and node.func.attr.startswith("__") else []
        operands = [*receiver, *node.args, *(k.value for k in node.keywords if k.arg != "key")]
        if len(operands) == 1 and isinstance(operands[0], (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            return operands * 2  # max(values): one iterable, its values ordered among themselves
        return operands
    return None


def _leak(node: ast.AST, names: set[str]) -> str | None:
    """Why a node leaks decide: it calls a comparison helper, or it orders a threshold against
    another value (a threshold against constants alone, as a format or a legal range does,
    measures nothing)."""
    if isinstance(node, ast.Call) and _callee(node) in COMPARATORS:
        return f"calls {_callee(node)}"
    operands = _ordered(node)
    if operands is None:
        return None
    leaves = [leaf for o in operands for leaf in _leaves(o)]
    thresholds = [leaf for leaf in leaves if _is_threshold(leaf, names)]
    if thresholds and len(leaves) > 1:
        return "orders " + ", ".join(sorted({ast.unparse(t) for t in thresholds}))
    return None


def _parameters(fn: ast.AST, names: set[str], passed: dict[str, set[str]]) -> set[str]:
    """The parameters of ``fn`` that hold a threshold: passed one by some call (``passed``, by
    function name), or given one as default (evaluated in the enclosing scope's ``names``)."""
    if isinstance(fn, ast.Lambda):
        return set()
    args = fn.args
    held = passed.get(fn.name, set()) & {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                                         *filter(None, (args.vararg, args.kwarg))]}
    positional = args.posonlyargs + args.args
    for a, default in [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
                       *zip(args.kwonlyargs, args.kw_defaults)]:
        if default is not None and _is_threshold(default, names):
            held.add(a.arg)
    return held


def _calls_with_thresholds(node: ast.AST, names: set[str]):
    """(function, where, through an attribute) for each argument of a call that is a threshold:
    ``where`` its position, or its keyword."""
    if isinstance(node, ast.Call) and _callee(node) is not None:
        via = isinstance(node.func, ast.Attribute)
        for i, a in enumerate(node.args):
            if not isinstance(a, ast.Starred) and _is_threshold(a, names):
                yield _callee(node), i, via
        for k in node.keywords:
            if k.arg is not None and _is_threshold(k.value, names):
                yield _callee(node), k.arg, via


def _scope_leaks(scope: ast.AST, name: str, inherited: set[str], passed: dict[str, set[str]], calls: set):
    """(function, node, why) for every leak in a scope and the functions in it; ``calls`` gathers
    the calls that pass a threshold (:func:`_calls_with_thresholds`)."""
    names = _tainted(scope, inherited)
    for node in _own(scope):
        if isinstance(node, _FUNCTIONS):
            inner = name if isinstance(node, ast.Lambda) else node.name  # a lambda is its function's
            yield from _scope_leaks(node, inner, names | _parameters(node, names, passed), passed, calls)
            continue
        calls.update(_calls_with_thresholds(node, names))
        why = _leak(node, names)
        if why:
            yield name, node, why


def _passed(trees: dict[str, ast.AST], calls: set) -> dict[str, set[str]]:
    """Function name -> its parameters that some call passes a threshold (a method called through
    an attribute: its ``self`` does not count)."""
    out: dict[str, set[str]] = {}
    wanted = {c for c, _, _ in calls}
    for tree in trees.values():
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name not in wanted:
                continue
            positional = [a.arg for a in fn.args.posonlyargs + fn.args.args]
            every = set(positional) | {a.arg for a in fn.args.kwonlyargs}
            for c, where, via in calls:
                if c != fn.name:
                    continue
                if isinstance(where, str):
                    held = {where} & every
                else:  # past the named positions: *args holds it
                    k = where + (1 if via and positional[:1] in (["self"], ["cls"]) else 0)
                    held = {positional[k]} if k < len(positional) else {fn.args.vararg.arg} if fn.args.vararg else set()
                out.setdefault(fn.name, set()).update(held)
    return out


def _scan(trees: dict[str, ast.AST], passed: dict[str, set[str]]) -> tuple[list[tuple[str, str, int, str]], set]:
    calls: set = set()
    found = [(rel, fn, node.lineno, f"{ast.unparse(node)} ({why})")
             for rel, tree in trees.items() for fn, node, why in _scope_leaks(tree, "<module>", set(), passed, calls)]
    return sorted(found), calls


def leaks(sources: dict[str, str]) -> list[tuple[str, str, int, str]]:
    """(module, function, line, what) for every threshold comparison in ``sources`` (module ->
    its text), the functions of ALLOWED included. A threshold passed to a function (by its name,
    in any module) taints its parameter; one hop only: a parameter passed on does not taint
    further, or the collisions of common names (``check``, ``data``) would taint every reader."""
    trees = {rel: ast.parse(text) for rel, text in sources.items()}
    _, calls = _scan(trees, {})
    return _scan(trees, _passed(trees, calls))[0]


def threshold_comparisons() -> list[str]:
    sources = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in _product_files()}
    return [f"{rel}:{line} in {fn}: {what}" for rel, fn, line, what in leaks(sources) if (rel, fn) not in ALLOWED]


def test_no_threshold_comparison_outside_decide():
    assert threshold_comparisons() == []


def test_the_checker_sees_a_leak():
    leak = ("def f(m, th):\n    t = float(th.alpha_floor_permil) / 1000\n"
            "    def side(x):\n        return x >= t\n    return side(m.alpha.value)\n")
    assert [(fn, what) for _, fn, _, what in leaks({"m.py": leak})] == [("side", "x >= t (orders t)")]


#: Ways around a checker that sees only ``value >= th.field``: each must be seen.
EVASIONS = {
    "a report's key": "def f(r):\n    return r['value'] >= r['threshold_bps']\n",
    "a report's key, read by get": "def f(r):\n    return r['value'] >= r.get('alpha_floor_permil')\n",
    "tuple unpacking": "def f(v, th):\n    lo, hi = th.alpha_floor, th.ratio_cap\n    return v >= lo\n",
    "unpacking a pair": ("def f(v, th):\n    pair = (th.alpha_floor, th.ratio_cap)\n    lo, hi = pair\n"
                         "    return v >= lo\n"),
    "gate.meets": "from agreebound import gate\ndef f(v, t):\n    return gate.meets(v, 'min', t)\n",
    "meets": "from agreebound.core.gate import meets\ndef f(v):\n    return meets(v, 'min', 1)\n",
    "evaluate": "def f(v, t):\n    return evaluate('alpha', 'min', v, t).passed\n",
    "straddles": "def f(lo, hi, t):\n    return straddles(lo, hi, 'min', t)\n",
    "cases_to_flip": "def f(r, t):\n    return cases_to_flip(r.numerator, r.denominator, t, 'max')\n",
    "a Wilson bound test": "def f(w, x):\n    return w.low_at_least(x)\n",
    "np.greater_equal": "import numpy as np\ndef f(v, th):\n    return np.greater_equal(v, th.alpha_floor)\n",
    "np.less": "import numpy as np\ndef f(v, g):\n    return np.less(v, g.threshold)\n",
    "operator.ge": "import operator\ndef f(v, th):\n    return operator.ge(v, th.alpha_floor)\n",
    "a dunder": "def f(v, g):\n    return v.__ge__(g.threshold)\n",
    "max": "def f(v, th):\n    floor = th.alpha_floor\n    return max(v, floor) == v\n",
    "min of a list": "def f(v, g):\n    return min([v, g.threshold]) is v\n",
    "getattr": "def f(v, th):\n    return v >= getattr(th, 'alpha_floor_permil')\n",
    "a loop over thresholds": ("def f(v, g):\n    for t in (g.threshold,):\n        if v < t:\n"
                               "            return False\n"),
    "a comprehension": "def f(v, gates):\n    return [v >= t for t in [g.threshold for g in gates]]\n",
    "a dict": "def f(v, th):\n    d = {'x': th.alpha_floor}\n    return v >= d['x']\n",
    "a parameter named limit": ("def above(v, limit):\n    return v >= limit\n"
                                "def f(v, th):\n    return above(v, th.alpha_floor)\n"),
    "a keyword to a method": ("class C:\n    def above(self, v, limit=0):\n        return v >= limit\n"
                              "def f(c, v, g):\n    return c.above(v, limit=g.threshold)\n"),
    "a default": "def f(v, limit=PanelThresholds().alpha_floor):\n    return v >= limit\n",
    "a walrus": "def f(v, th):\n    return (t := th.ratio_cap) and v <= t\n",
    "either threshold": "def f(v, th, a):\n    t = th.alpha_floor if a else th.ratio_cap\n    return v > t\n",
    "a difference against zero": "def f(v, g):\n    return g.threshold - v > 0\n",
    "a constant named as a floor": "DEFAULT_FLOOR = 0.6\ndef f(v):\n    return v >= DEFAULT_FLOOR\n",
    "a star parameter": "def top(*xs):\n    return max(xs)\ndef f(v, g):\n    return top(v, g.threshold)\n",
    "a lambda": "def f(vs, g):\n    return list(filter(lambda v: v > g.threshold, vs))\n",
    "two thresholds": "def f(v, th):\n    lo = th.alpha_floor\n    return max(v, lo) == v\n",
    "a mixed loop": "def f(g):\n    return min([-0.2] + [x - 0.05 for x in (g.value, g.threshold)])\n",
    "a mixed list": "def f(g):\n    xs = [g.value, g.threshold]\n    return max(xs)\n",
}


@pytest.mark.parametrize("snippet", EVASIONS.values(), ids=EVASIONS.keys())
def test_the_checker_sees_each_way_around_it(snippet):
    assert leaks({"m.py": snippet}) != []


#: Comparisons that decide no gate: each must pass unflagged.
INNOCENT = {
    "a value against a constant": "def f(v):\n    return v >= 0.5\n",
    "equality of thresholds": "def f(a, b):\n    return a.alpha_floor == b.alpha_floor\n",
    "a threshold's format": ("def fmt(x):\n    return f'{x:.2f}x' if x < 10 else f'{x:,.1f}x'\n"
                             "def f(g):\n    return fmt(g.threshold)\n"),
    "a legal range": "def f(th):\n    if not 0 <= th.alpha_floor_permil <= 1000:\n        raise ValueError\n",
    "math.floor": "import math\ndef f(n, k):\n    return math.floor(n / 2) > k\n",
    "a size limit": "def f(rows, limit=500):\n    return len(rows) >= limit\n",
    "a gate's passed": "def f(g):\n    return 'passes' if g.passed else 'fails'\n",
    "max by key": "def f(gains):\n    return max(gains, key=lambda x: gains[x])\n",
    "the caption's key": "def f(d, n):\n    return len(d['caption']) > n\n",
}


@pytest.mark.parametrize("snippet", INNOCENT.values(), ids=INNOCENT.keys())
def test_the_checker_lets_innocent_code_be(snippet):
    assert leaks({"m.py": snippet}) == []


def test_every_comparator_is_a_helper_of_the_decide_layer():
    defined = {n.name for rel in ("core/gate.py", "core/planner.py", "core/intervals.py", "panel/intervals.py")
               for n in ast.walk(ast.parse((SRC / rel).read_text(encoding="utf-8")))
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert COMPARATORS <= defined


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
        if rel in ("src/agreebound/panel/decide.py", "src/agreebound/panel/decision.py"):
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
    from agreebound.panel.measure import measure_panels
    from agreebound.panel.decide import decide_panel
    from agreebound.io.detector_rates import parse_detector_rates
    from agreebound.io.ratings import parse_ratings

    samples = ROOT / "sample_data"
    panels = parse_ratings("p.csv", (samples / "detector_panel.csv").read_bytes())
    rates = parse_detector_rates("r.csv", (samples / "detector_rates.csv").read_bytes())
    measured = {**measure_panels(panels, rates=rates, rates_file="r.csv"),
                **{"k": m for m in measure_panels(parse_ratings(
                    "k.csv", (samples / "krippendorff_2011.csv").read_bytes()), "auto").values()}}
    for strict in (False, True):
        th = ThresholdSet(PanelThresholds(600, 2000, strict=strict))
        report = panel_report(measured, decide_panels(measured, th), th, [("p.csv", b"")])
        for dimension, m in zip(report["panel"]["dimensions"], measured.values(), strict=True):
            stored = gates_from_report(dimension, report["thresholds"]["panel"])
            live = decide_panel(m, th.panel).gates
            keep = ("name", "passed", "state", "exact", "threshold", "fragile")
            assert [[getattr(g, k) for k in keep] for g in stored] == [[getattr(g, k) for k in keep] for g in live]


def _judge_measurement():
    from agreebound.app.pipeline import parse_judge_bundle

    path = ROOT / "sample_data" / "judge_failing.json"
    return parse_judge_bundle(path.name, path.read_bytes()).measurement


def test_a_judge_gate_carries_its_cases_to_decide():
    m = _judge_measurement()
    d = decide_judge(m)
    for (name, field_name, kind), g, rate in zip(RATE_GATES, d.gates, d.rates, strict=True):
        assert (g.name, rate.name, g.kind) == (name, name, kind) and g.threshold_field == field_name
        t = getattr(m.contract, field_name)
        assert g.state == NOT_EVALUABLE or g.passed == meets(rate.value, kind, Fraction(t, 10_000))
        assert g.cases_to_decide == cases_to_flip(rate.numerator, rate.denominator, t, kind)
        assert g.threshold == Fraction(t, 10_000) and seed_view(g).threshold_bps == t and g.unit == "%"
        assert g.threshold_source == "contract"
    flip = d.gate("position_flip")
    assert flip.passed is False and flip.cases_to_decide[0] == "pass"  # k fewer flips would pass
    edited = decide_judge(m, replace(m.contract.thresholds, maximum_position_flip_bps=10_000))
    assert edited.gate("position_flip").passed and edited.gate("position_flip").threshold_source == "draft"
    assert edited.gate("position_flip").cases_to_decide[0] == "fail"


def test_a_stored_judge_report_gives_back_its_gates():
    from agreebound.render.report import calibration_section
    from agreebound.app.pipeline import parse_judge_bundle

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


def test_a_gate_says_where_its_verdict_flips():
    """``flips_at``: the value; strict mode's bound (the tighter of the two); None when strict
    mode's upper bound is unbounded or there is no value. The sweep draws it."""
    assert evaluate("alpha", "min", Fraction(13, 20), Fraction(3, 5), low=0.55, high=0.72).flips_at == Fraction(13, 20)
    assert evaluate("alpha", "min", Fraction(13, 20), Fraction(3, 5), low=0.55, high=0.72, strict=True).flips_at == 0.55
    assert evaluate("alpha", "min", Fraction(13, 20), Fraction(3, 5), low=0.7, high=0.8, strict=True).flips_at \
        == Fraction(13, 20)  # an interval above its value: the value fails first
    assert evaluate("spread", "max", Fraction(3, 2), Fraction(2), low=1.2, high=2.5, strict=True).flips_at == 2.5
    assert evaluate("spread", "max", Fraction(3, 2), Fraction(2), low=1.2, high=None, strict=True).flips_at is None
    assert evaluate("alpha", "min", None, Fraction(3, 5)).flips_at is None
    for floor in (Fraction(1, 2), Fraction(13, 20), Fraction(7, 10)):  # passes exactly up to flips_at
        g = evaluate("alpha", "min", Fraction(13, 20), floor, low=0.55, high=0.72)
        assert g.passed == (floor <= g.flips_at)


def test_explain_asks_decide_where_leaving_a_rater_out_lands():
    from agreebound.panel.decide import alpha_gate_at

    assert alpha_gate_at(Fraction(3, 5), Fraction(3, 5)).passed is True
    assert alpha_gate_at(Fraction(599, 1000), Fraction(3, 5)).passed is False
    assert alpha_gate_at(Fraction(599, 1000), Fraction(3, 5)).threshold_field == "alpha_floor_permil"
