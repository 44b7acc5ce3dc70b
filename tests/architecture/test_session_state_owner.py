"""One owner of session state: ui/state.py. Every other module of the dashboard (src/agreebound/ui,
pages/, app.py) reads and writes ``st.session_state`` only through ``ui.state.session`` (its
properties and named setters), and names a key (a widget's ``key=`` too) only by a constant of
``ui.state.K``. Each check is also run on planted violations, so that it can fail."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "src" / "agreebound" / "ui"
OWNER = UI / "state.py"

#: Methods of a mapping (and of st.session_state) that change it.
WRITING_METHODS = {"pop", "popitem", "setdefault", "update", "clear", "__setitem__", "__delitem__", "__setattr__",
                   "__delattr__"}
#: ui.state.Session's methods that take a key: their key arguments must be K constants.
KEY_METHODS = {"widget": 1, "has": 1, "set_widget": 1, "seed_widget": 1, "forget_prefixed": 1, "forget": None}
#: Elements whose ``key=`` is a CSS class only (no session state): a literal is fine there.
STATELESS_KEYS = {"container", "responsive_table"}


def dashboard_files() -> list[Path]:
    return sorted(UI.rglob("*.py")) + sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]


def _where(path: Path | str, node: ast.AST) -> str:
    name = path.relative_to(ROOT).as_posix() if isinstance(path, Path) else path
    return f"{name}:{node.lineno}"


def _aliases(tree: ast.AST) -> set[str]:
    """Names bound to st.session_state in this module (``S = st.session_state``, an import)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "streamlit":
            names |= {a.asname or a.name for a in node.names if a.name == "session_state"}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            if any(isinstance(n, ast.Attribute) and n.attr == "session_state" for n in ast.walk(node.value)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _is_state(node: ast.AST, aliases: set[str]) -> bool:
    """``node`` is st.session_state: the attribute, an alias of it, or ui.state's own alias (``state.S``)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "session_state" or (node.attr in ("S", "_S") and isinstance(node.value, ast.Name)
                                                 and node.value.id == "state")
    return isinstance(node, ast.Name) and (node.id in aliases or node.id == "session_state")


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        found = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        found = [node.target]
    elif isinstance(node, ast.Delete):
        found = list(node.targets)
    else:
        return []
    flat: list[ast.AST] = []
    while found:
        t = found.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            found.extend(t.elts)
        elif isinstance(t, ast.Starred):
            found.append(t.value)
        else:
            flat.append(t)
    return flat


def state_writes(source: str, path: Path | str) -> list[str]:
    """file:line of each write to st.session_state in ``source``: an item or attribute assigned or
    deleted, a writing method called on it, setattr/delattr on it."""
    tree = ast.parse(source)
    aliases = _aliases(tree)
    found = []
    for node in ast.walk(tree):
        for t in _targets(node):
            if isinstance(t, (ast.Subscript, ast.Attribute)) and _is_state(t.value, aliases):
                found.append(_where(path, node))
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in WRITING_METHODS and _is_state(f.value, aliases):
                found.append(_where(path, node))
            if isinstance(f, ast.Name) and f.id in ("setattr", "delattr") and node.args \
                    and _is_state(node.args[0], aliases):
                found.append(_where(path, node))
    return found


def _literal(node: ast.AST) -> bool:
    """A key spelled out here: a string, an f-string, a string joined to something, "...".format()."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _literal(node.left) or _literal(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _literal(node.func.value)
    return False


def _callee(call: ast.Call) -> str | None:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _is_session(node: ast.AST) -> bool:
    """ui.state.session (``session``, ``state.session``)."""
    return (isinstance(node, ast.Name) and node.id == "session") or \
        (isinstance(node, ast.Attribute) and node.attr == "session")


def literal_keys(source: str, path: Path | str) -> list[str]:
    """file:line of each key named outside ui.state's constants: st.session_state touched at all (a
    read names its key too), a widget's ``key=`` spelled out, a literal given to a key method of
    ui.state.session."""
    tree = ast.parse(source)
    aliases = _aliases(tree)
    found = []
    for node in ast.walk(tree):
        if _is_state(node, aliases) or (isinstance(node, ast.ImportFrom) and node.module == "streamlit"
                                        and any(a.name == "session_state" for a in node.names)):
            found.append(f"{_where(path, node)}: st.session_state used")
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "key" and _callee(node) not in STATELESS_KEYS and not isinstance(kw.value, ast.Lambda) \
                    and _literal(kw.value):
                found.append(f"{_where(path, node)}: key= spelled out")
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in KEY_METHODS and _is_session(f.value):
            n = KEY_METHODS[f.attr]
            if any(_literal(a) for a in (node.args if n is None else node.args[:n])):
                found.append(f"{_where(path, node)}: session.{f.attr} given a literal key")
    return found


def test_only_ui_state_writes_session_state():
    found = [w for p in dashboard_files() if p != OWNER for w in state_writes(p.read_text(encoding="utf-8"), p)]
    assert not found, "session state written outside ui/state.py (use ui.state.session's setters): " + ", ".join(found)


def test_no_key_is_spelled_out_outside_ui_state():
    found = [w for p in dashboard_files() if p != OWNER for w in literal_keys(p.read_text(encoding="utf-8"), p)]
    assert not found, "a session-state key named outside ui.state.K: " + "; ".join(found)


def test_the_checks_find_planted_violations():
    planted = '''import streamlit as st
from streamlit import session_state as ss
S = st.session_state
S["level"] = "auto"
st.session_state.level = 1
del S.pending
S.pop("x", None)
ss.update({})
a, S.b = 1, 2
setattr(st.session_state, "c", 3)
S.level += 1
st.session_state.get("level")
st.selectbox("Level", [], key="level_widget")
st.slider("x", 0, 1, key="slider_" + field)
session.widget(f"record_label_{kind}")
st.button("Go", key=K.RECORD.format(kind))
st.container(key="headline")
sorted(x, key=lambda r: r["now"])
'''
    writes = state_writes(planted, "planted.py")
    assert sorted(writes, key=lambda w: int(w.split(":")[1])) == [f"planted.py:{n}" for n in range(4, 12)], writes
    keys = literal_keys(planted, "planted.py")
    lines = sorted({int(k.split(":")[1]) for k in keys})
    assert lines == list(range(2, 16)), keys  # not 16-18: a K constant, a CSS-only key, a sort key
    assert "planted.py:12: st.session_state used" in keys  # a read names its key too
    assert "planted.py:13: key= spelled out" in keys and "planted.py:14: key= spelled out" in keys
    assert "planted.py:15: session.widget given a literal key" in keys


def test_the_keys_are_distinct_constants():
    from agreebound.ui.state import K

    keys = [v for name, v in vars(K).items() if not name.startswith("_") and isinstance(v, str)]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    assert len(keys) > 50
