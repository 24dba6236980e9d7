"""Each variable's change timeline (probe/timeline.py) and the ``delete`` and ``timeline``
ops, on a stand-in shell: a scripted session, the bounds, deletions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes.logs import Timeline

from .stand_in import DELETE


def timeline(name: str, **request: object) -> dict:  # type: ignore[type-arg]
    reply = entry.dispatch({"op": "timeline", "name": name, **request})
    return reply.get("timeline", reply)  # type: ignore[no-any-return]


def entries(name: str, **request: object) -> list[tuple[int, str, list[str]]]:
    return [(e["execution_count"], e["change"], e["changes"])
            for e in timeline(name, **request)["entries"]]


def test_a_scripted_session(shell) -> None:  # type: ignore[no-untyped-def]
    sales = pd.DataFrame({"price": np.arange(100_000) * 1.0, "units": np.arange(100_000)})
    shell.run("sales = ...", sales=sales)
    shell.run("filter rows", sales=sales[sales.price > 4008])
    frame = shell.user_ns["sales"]
    frame["revenue"] = frame.price * frame.units
    shell.run("add a column")
    frame["units"] = frame["units"].astype("float64")
    shell.run("change a dtype")
    shell.run("unrelated", other=1)
    shell.run("rebind", sales="now text")
    shell.run("delete", sales=DELETE)
    assert entries("sales") == [
        (1, "new", []),
        (2, "modified", ["rows 100,000 → 95,991"]),
        (3, "modified", ["column revenue added"]),
        (4, "modified", ["column units dtype int64 → float64"]),
        (6, "modified", ["type DataFrame → str"]),
        (7, "removed", []),
    ]
    answer = timeline("sales")
    assert answer["total"] == 6 and answer["exists"] is False and answer["complete_after"] is None
    assert entries("sales", limit=1) == [(7, "removed", [])]
    shell.run("bound again", sales=[1, 2])
    assert entries("sales", limit=2) == [(7, "removed", []), (8, "new", [])]
    assert timeline("other")["total"] == 1


def test_delete_is_recorded_at_once(shell) -> None:  # type: ignore[no-untyped-def]
    shell.run("x = 1", x=1, keep=2)
    assert entry.dispatch({"op": "delete", "name": "x"}) == {"deleted": "x"}
    assert "x" not in shell.user_ns and shell.user_ns["keep"] == 2
    assert entries("x") == [(1, "new", []), (1, "removed", [])]
    snapshot = entry.snapshot({"op": "snapshot"})
    assert [v["name"] for v in snapshot["variables"]] == ["keep"]
    assert snapshot["removed"] == ["x"]
    shell.run("next cell")
    assert entry.snapshot({"op": "snapshot"})["removed"] == []  # listed until the next cell


@pytest.mark.parametrize(
    ("name", "error"),
    [("missing", "not_found"), ("In", "not_found"), ("_i1", "not_found"),
     ("not a name", "bad_request"), ("class", "bad_request"), (None, "bad_request")],
)
def test_delete_refuses_what_is_not_a_variable(shell, name, error) -> None:  # type: ignore[no-untyped-def]
    shell.run("x = 1", x=1)
    before = dict(shell.user_ns)
    assert entry.dispatch({"op": "delete", "name": name})[error] is True
    assert shell.user_ns == before


@pytest.mark.parametrize("limit", [0, 101, "3", True])
def test_timeline_limits(shell, limit) -> None:  # type: ignore[no-untyped-def]
    shell.run("x = 1", x=1)
    assert timeline("x", limit=limit)["bad_request"] is True


def test_the_timeline_is_bounded_and_says_from_when() -> None:
    t = Timeline(max_cells=3, max_names=10)
    for ec in range(1, 6):
        t.add(ec, "modified", ["a"])
    found, total, complete_after = t.of("a")
    assert [e["execution_count"] for e in found] == [3, 4, 5] and total == 3
    assert complete_after == 2  # executions 1 and 2 were dropped
    t.add(6, "new", [f"n{i}" for i in range(11)])  # more names than held at all
    found, total, complete_after = t.of("n0")
    assert found == [] and total == 0 and complete_after == 6
    assert t.held <= 10


def test_one_cell_binding_a_million_names_is_cheap_and_honest() -> None:
    t = Timeline()
    names = [f"v{i}" for i in range(1_000_000)]
    t.add(1, "new", names)
    assert t.held == 0  # kept as "too many", not a million entries
    assert t.of("v5") == ([], 0, 1)
    t.add(2, "modified", ["v5"])
    assert t.of("v5") == ([{"execution_count": 2, "change": "modified", "changes": []}], 1, 1)


def test_descriptions_are_bounded() -> None:
    t = Timeline()
    t.add(1, "modified", ["a"])
    t.describe(1, {"a": [f"change {i}" for i in range(20)]})
    assert len(t.of("a")[0][0]["changes"]) == 5
