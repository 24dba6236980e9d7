"""Lineage (probe/changes/lineage.py): the static analysis of a cell as a case table, its
bounds at ±1, and the hook and ``timeline`` op on a real IPython shell in this process."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.inputtransformer2 import TransformerManager
from IPython.core.interactiveshell import InteractiveShell

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes import lineage
from jupyter_kernel_state.probe.changes.lineage import Lineage, analyse

TRANSFORM = TransformerManager().transform_cell

B, C, D = lineage.BOUND, lineage.CHANGED, lineage.DELETED

# code -> (defined {name: kind}, read {name: only in a function}, unknown reasons)
CASES: list[tuple[str, dict[str, str], dict[str, bool], list[str]]] = [
    ("df = pd.read_csv(p)", {"df": B}, {"pd": False, "p": False}, []),
    ("df['x'] += 1", {"df": C}, {"df": False}, []),
    ("df['x'] = df.y * 2", {"df": C}, {"df": False}, []),
    ("obj.attr.sub = v", {"obj": C}, {"obj": False, "v": False}, []),
    ("total += i", {"total": C}, {"total": False, "i": False}, []),
    ("def f(a):\n    return df.x + a + y\n", {"f": B}, {"df": True, "y": True}, []),
    ("def f():\n    df = 1\n    return df\n", {"f": B}, {}, []),
    ("def g():\n    global z\n    z = w\n", {"g": B, "z": B}, {"w": True}, []),
    ("g = lambda v: v + w", {"g": B}, {"w": True}, []),
    ("def outer():\n    k = 1\n    def inner():\n        return k + m\n    return inner\n",
     {"outer": B}, {"m": True}, []),
    ("class A(Base):\n    k = 1\n    def m(self):\n        return k + q\n",
     {"A": B}, {"Base": False, "k": True, "q": True}, []),
    ("squares = [i * k for i in range(n)]", {"squares": B}, {"range": False, "n": False, "k": False},
     []),
    ("d = {key: val for key, val in pairs if val}", {"d": B}, {"pairs": False}, []),
    ("s = sum(x for x in xs)", {"s": B}, {"sum": False, "xs": False}, []),
    ("[(last := i) for i in r]", {"last": B}, {"r": False}, []),
    ("if (n := len(a)) > 2:\n    pass\n", {"n": B}, {"len": False, "a": False}, []),
    ("for i, (j, *rest) in items:\n    pass\n", {"i": B, "j": B, "rest": B}, {"items": False}, []),
    ("with open(f) as fh:\n    data = fh.read()\n", {"fh": B, "data": B},
     {"open": False, "f": False, "fh": False}, []),
    ("try:\n    pass\nexcept E as e:\n    pass\n", {"e": B}, {"E": False}, []),
    ("import os.path as osp, numpy.linalg", {"osp": B, "numpy": B}, {}, []),
    ("from a.b import c as d, e", {"d": B, "e": B}, {}, []),
    ("del x, y[0]", {"x": D, "y": C}, {"y": False}, []),
    ("x: int", {}, {}, []),
    ("x: int = y", {"x": B}, {"int": False, "y": False}, []),
    ("match p:\n    case [a, *others]:\n        pass\n    case {'k': v, **kw}:\n        pass\n",
     {"a": B, "others": B, "v": B, "kw": B}, {"p": False}, []),
    # dynamic access: the execution is unknown, whatever names it shows
    ("globals()['x'] = 1", {}, {"globals": False}, ["globals()"]),
    ("exec(code)", {}, {"exec": False, "code": False}, ["exec()"]),
    ("v = eval('a + b')", {"v": B}, {"eval": False}, ["eval()"]),
    ("vars()['y'] = 2", {}, {"vars": False}, ["vars()"]),
    ("vars(obj)", {}, {"vars": False, "obj": False}, []),
    ("setattr(sys.modules[__name__], 'q', 1)", {}, {"setattr": False, "sys": False,
                                                     "__name__": False},
     ["setattr() on a module", "sys.modules[...]"]),
    ("setattr(obj, 'q', 1)", {}, {"setattr": False, "obj": False}, []),
    ("from os.path import *", {}, {}, ["from os.path import *"]),
    ("def f():\n    return globals()\n", {"f": B}, {"globals": True}, ["globals()"]),
    # IPython syntax, read after IPython's transformation
    ("%store -r foo", {}, {"get_ipython": False}, ["%store"]),
    ("%store foo", {}, {"get_ipython": False}, []),
    ("%run script.py", {}, {"get_ipython": False}, ["%run"]),
    ("%time a = b + 1", {"a": B}, {"b": False, "get_ipython": False}, []),
    ("%%time\nc = d + 1\n", {"c": B}, {"d": False, "get_ipython": False}, []),
    ("%%timeit\nc = d + 1\n", {}, {"d": True, "get_ipython": False}, []),
    ("files = !ls", {"files": B}, {"get_ipython": False}, []),
    ("%matplotlib inline", {}, {"get_ipython": False}, []),
]


@pytest.mark.parametrize(("code", "defined", "read", "unknown"), CASES,
                         ids=[c[0].splitlines()[0][:40] for c in CASES])
def test_what_a_cell_binds_and_reads(code: str, defined: dict[str, str], read: dict[str, bool],
                                     unknown: list[str]) -> None:
    found = analyse(code, TRANSFORM)
    assert found.note is None
    assert found.defined == defined
    assert found.read == read
    assert found.unknown == unknown


@pytest.mark.parametrize("code", ["x = (", "def f(:\n    pass", "x = = 1", "a = 1\nb = (\n"])
def test_a_cell_that_does_not_parse_records_nothing_and_says_so(code: str) -> None:
    found = analyse(code, TRANSFORM)
    assert found.defined == {} and found.read == {} and found.unknown == []
    assert found.note is not None and found.note.startswith("not analysed: invalid syntax")
    assert "nothing recorded" in found.note


def test_code_of_a_magic_that_does_not_parse_is_said() -> None:
    found = analyse("%%time\nx = (\n", TRANSFORM)
    assert found.defined == {} and found.read == {"get_ipython": False}
    assert found.note is not None and found.note.startswith("%time: not analysed: invalid syntax")


def test_cell_size_bound() -> None:
    at_limit = "x = 1" + " " * (lineage.MAX_CELL_CHARS - 5)
    assert len(at_limit) == lineage.MAX_CELL_CHARS
    assert analyse(at_limit).defined == {"x": B}
    over = at_limit + " "
    found = analyse(over)
    assert found.defined == {} and found.read == {}
    assert found.unknown == [f"not analysed: cell over {lineage.MAX_CELL_CHARS:,} characters"]
    two_mb = "y = 2\n" * (2_000_000 // 6)
    assert analyse(two_mb).unknown == found.unknown


def test_names_per_cell_bound() -> None:
    n = lineage.MAX_CELL_NAMES
    found = analyse("\n".join(f"v{i} = 0" for i in range(n)))
    assert len(found.defined) == n and found.cut == 0
    found = analyse("\n".join(f"v{i} = 0" for i in range(n + 1)))
    assert len(found.defined) == n and found.cut == 1 and "v0" in found.defined


def test_reasons_bound() -> None:
    code = "; ".join(f"from m{i} import *" for i in range(lineage.MAX_REASONS + 1))
    found = analyse(code)
    assert len(found.unknown) == lineage.MAX_REASONS
    assert found.unknown[-1] == f"from m{lineage.MAX_REASONS - 1} import *"


def test_deep_nesting_is_not_analysed() -> None:
    found = analyse("x = " + "(" * 5_000 + "1" + ")" * 5_000)
    assert found.defined == {} and found.note is not None
    assert found.note.startswith("not analysed")


def test_executions_held_bound_and_answer_limit() -> None:
    held = Lineage(max_cells=3)
    for ec in range(1, 4):
        held.add(ec, f"cell-{ec}", f"a = a + {ec}", analyse(f"a = a + {ec}"))
    answer = held.of("a")
    assert [e["execution_count"] for e in answer["defined_in"]] == [1, 2, 3]
    assert answer["lineage_complete_after"] is None
    held.add(4, "cell-4", "a = 4", analyse("a = 4"))
    answer = held.of("a", limit=2)
    assert [e["execution_count"] for e in answer["defined_in"]] == [3, 4]
    assert answer["lineage_totals"]["defined_in"] == 3
    assert [e["execution_count"] for e in answer["used_in"]] == [2, 3]
    assert answer["lineage_complete_after"] == 1
    assert held.of_cell("cell-1") is None and held.of_cell("cell-4") is not None


def test_names_held_bound() -> None:
    held = Lineage(max_held=4)
    held.add(1, None, "a = b", analyse("a = b"))  # 2 names
    held.add(2, None, "c = d", analyse("c = d"))  # 4: at the bound
    assert list(held.cells) == [1, 2] and held.held == 4
    held.add(3, None, "e = 1", analyse("e = 1"))  # 5: the oldest goes
    assert list(held.cells) == [2, 3] and held.held == 3 and held.complete_after == 1


def test_code_head_and_cell_id_bounds() -> None:
    held = Lineage()
    code = "a = 1  # " + "x" * lineage.MAX_CODE
    held.add(1, "i" * lineage.MAX_CELL_ID, code, analyse(code))
    held.add(2, "i" * (lineage.MAX_CELL_ID + 1), "a = 2", analyse("a = 2"))
    first, second = held.of("a")["defined_in"]
    assert len(first["code"]) == lineage.MAX_CODE and first["code"].endswith("…")
    assert first["cell_id"] == "i" * lineage.MAX_CELL_ID and second["cell_id"] is None
    assert second["code"] == "a = 2"


@pytest.mark.parametrize(("code", "shown"), [
    ('api_key = "sk-demo-1234567890abcdef"', 'api_key = "[masked]"'),
    ("password = 'hunter2'\nuser = 'me'", "password = '[masked]'\nuser = '[masked]'"),
    ('conn = connect("postgres://u:pw@host/db")', 'conn = connect("pos…[masked]host/db")'),
    ('label = "sk-demo-1234567890abcdef"', 'label = "sk-…[masked]"'),
    ('greeting = "hello"', 'greeting = "hello"'),
    # A literal cut by the head's bound is masked too; masking never makes it longer.
    ("token = '" + "x" * 500 + "'", "token = '[masked]'…"),
    ("keys['a'] = 1\n" * 30, ("keys['a'] = 1\n" * 30)[: lineage.MAX_CODE - 1] + "…"),
])
def test_the_code_head_masks_what_looks_like_a_credential(code: str, shown: str) -> None:
    """A masked variable's value is not told by the code that bound it: credential-like
    values masked, and every string literal when the code names a credential."""
    held = Lineage()
    held.add(1, None, code, analyse(code))
    name = re.split(r"[ \[]", code, maxsplit=1)[0]
    (entry,) = held.of(name)["defined_in"] or held.of(name)["used_in"]
    assert entry["code"] == shown and len(entry["code"]) <= lineage.MAX_CODE


# --- the hook and the timeline op, on IPython's own shell ----------------------------


@pytest.fixture
def ipython() -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    entry.install(shell=ip)
    yield ip
    entry.install(shell=None)
    InteractiveShell.clear_instance()


def run(ip: InteractiveShell, code: str, cell_id: str | None = None) -> None:
    ip.run_cell(code, store_history=True, cell_id=cell_id)


def timeline(name: str, **fields: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": "timeline", "name": name, **fields})
    assert "timeline" in reply, reply
    return reply["timeline"]  # type: ignore[no-any-return]


def executions(entries: list[dict[str, Any]]) -> list[int]:
    return [e["execution_count"] for e in entries]


def test_the_hook_records_what_each_cell_bound_and_read(ipython: InteractiveShell) -> None:
    run(ipython, "p = 3\nrows = list(range(p))", "c1")
    run(ipython, "total = sum(rows)\nprint(total)", "c2")
    run(ipython, "def f():\n    return total * 2\n", "c3")
    run(ipython, "rows.append(f())", "c4")
    run(ipython, "x = (", "c5")
    run(ipython, "globals()['late'] = 1", "c6")
    first = ipython.execution_count - 6
    rows = timeline("rows")
    assert [(e["execution_count"] - first, e["cell_id"], e["kind"]) for e in rows["defined_in"]] \
        == [(0, "c1", B)]
    assert rows["defined_in"][0]["code"] == "p = 3\nrows = list(range(p))"
    assert [(e["execution_count"] - first, e["in_function"]) for e in rows["used_in"]] \
        == [(1, False), (3, False)]
    total = timeline("total")
    assert [(e["cell_id"], e["in_function"]) for e in total["used_in"]] \
        == [("c2", False), ("c3", True)]
    assert [e["cell_id"] for e in total["unknown"]] == ["c6"]
    assert total["unknown"][0]["reasons"] == ["globals()"]
    assert [(e["cell_id"], e["reason"][:28]) for e in total["not_analysed"]] \
        == [("c5", "not analysed: invalid syntax")]
    # builtins and IPython's own names are not recorded as reads
    assert timeline("p")["used_in"][0]["cell_id"] == "c1"
    assert entry.dispatch({"op": "timeline", "name": "print"}).get("ok") is False
    assert timeline("rows", lineage_limit=1)["used_in"][0]["cell_id"] == "c4"
    assert timeline("rows", lineage_limit=1)["lineage_totals"]["used_in"] == 2


def test_magics_are_analysed_after_transformation(ipython: InteractiveShell) -> None:
    run(ipython, "base = 2")
    run(ipython, "%time squared = base ** 2", "t1")
    assert [e["cell_id"] for e in timeline("squared")["defined_in"]] == ["t1"]
    assert [e["cell_id"] for e in timeline("base")["used_in"]] == ["t1"]


def test_lineage_can_be_turned_off(ipython: InteractiveShell) -> None:
    tracker = entry._state.tracker
    tracker.lineage_enabled = False
    run(ipython, "a = 1")
    answer = timeline("a")
    assert answer["defined_in"] == [] and answer["lineage_totals"]["defined_in"] == 0
    tracker.lineage_enabled = True
    run(ipython, "a = 2")
    assert len(timeline("a")["defined_in"]) == 1


def test_the_hook_reads_the_tree_ipython_parsed(ipython: InteractiveShell) -> None:
    tracker = entry._state.tracker
    keepers = [t for t in ipython.ast_transformers if t is tracker.trees]
    assert keepers == [tracker.trees] and ipython.ast_transformers[0] is tracker.trees
    entry.install(shell=ipython)  # a new probe replaces the old keeper and hooks
    tracker = entry._state.tracker
    marked = [t for t in ipython.ast_transformers if getattr(t, "_jupyter_kernel_state_hook", 0)]
    assert marked == [tracker.trees]
    run(ipython, "d = 1")
    assert tracker.trees.tree is None  # taken by the hook
    # the cell's own tree, not the one %%timeit builds for its statement
    run(ipython, "%%timeit -n1 -r1\nc = d + 1\n", "ti")
    assert "c" not in tracker.lineage.cells[ipython.execution_count - 1].defined
    assert [e["cell_id"] for e in timeline("d")["used_in"]] == ["ti"]
    # a silent execution's tree is never taken for the next cell
    ipython.run_cell("silent_name = 1", silent=True)
    run(ipython, "x = (", "bad")
    assert [e["cell_id"] for e in timeline("d")["not_analysed"]] == ["bad"]
    entry.install(shell=None)
    assert not [t for t in ipython.ast_transformers
                if getattr(t, "_jupyter_kernel_state_hook", 0)]
