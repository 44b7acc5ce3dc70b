"""Values and figures computed once and shared by every session: a decision per measurement and
thresholds, a plotly figure per inputs. Call them as ``memo.once`` and ``memo.figure`` (a test
can wrap them)."""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, TypeAlias, TypeVar, cast

from agreebound.render.gates import GateView

_V = TypeVar("_V")
_O = TypeVar("_O")
#: A table of values computed once: key -> (the objects held by identity, the value).
_Table: TypeAlias = "dict[tuple[object, ...], tuple[tuple[object, ...], object]]"

#: Values computed once per object and key: (what, id, key) -> ((the object,), its value). The object is
#: held, so its id is not reused while the entry stands; the objects are the cached measurements every
#: session shares, or one rerun's decision; the keys are frozen thresholds. Values are immutable.
_ONCE: _Table = {}


def _memo(table: _Table, limit: int, key: tuple[object, ...], held: tuple[object, ...], compute: Callable[[], _V]) -> _V:
    """``compute()`` once per ``key``; the objects keyed by identity are ``held`` beside the value,
    so a hit is only taken while they are the same objects (an id is never reused meanwhile)."""
    try:
        hit = table.get(key)
    except TypeError:  # a key that cannot be hashed: computed every time
        return compute()
    if hit is not None and all(x is y for x, y in zip(hit[0], held)):
        return cast(_V, hit[1])  # the value compute() gave for this key
    value = compute()
    if len(table) >= limit:
        table.clear()
    table[key] = (held, value)
    return value


def once(what: str, obj: _O, compute: Callable[[_O], _V], key: object = ()) -> _V:
    """``compute(obj)``, once per object and ``key`` (what else it depends on): a slider move, in any
    session, reuses what that slider does not move."""
    return _memo(_ONCE, 1024, (what, id(obj), key), (obj,), lambda: compute(obj))


#: Figures built once per inputs: (builder, inputs) -> (the inputs held by identity, the figure). Building a
#: plotly figure (its validation) was about two thirds of a Panel or Overview rerun's CPU, redone on every
#: rerun for the same measurement. Figures are never changed after building (st.plotly_chart copies one
#: before it serialises it), so sessions share them. Bounded: figures are larger than decisions.
_FIGURES: _Table = {}


def _by_value(arg: object) -> bool:
    """A gate (rebuilt on every rerun, small and frozen) or a plain value is keyed by value; anything
    else (measurements and decisions: the cached objects sessions share) by identity, held."""
    return isinstance(arg, (GateView, tuple, str, int, Fraction))


def figure(build: Callable[..., _V], *args: object, **kw: object) -> _V:
    """``build(*args, **kw)``, a figure from agreebound.render.figures, built once per inputs: a
    rerun (another session's too) whose inputs did not change reuses the figure it drew."""
    parts = tuple(("value", type(a), a) if _by_value(a) else ("id", id(a)) for a in args)
    held = tuple(a for a in args if not _by_value(a))
    return _memo(_FIGURES, 256, (build, parts, tuple(sorted(kw.items()))), held, lambda: build(*args, **kw))
