"""The ``digest`` op (what the prompt asks): exact counts, bounded replies, runs of like
names, at any size.

The probe runs on the stand-in shell of ``test_tracking`` (a real namespace dict, the real
hook and caches), as in ``test_scale``; the million-name case is marked ``scale``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.namespace import visibility
from jupyter_kernel_state.probe.ops import digest as digest_op

from .stand_in import DELETE


def digest(**request: Any) -> dict[str, Any]:
    return json.loads(entry.dumps(entry.dispatch({"op": "digest", **request})))


def run(first: str, last: str, count: int, type_: str, low: Any = None,
        high: Any = None) -> dict[str, Any]:
    kind = {"int": "number", "float": "number", "str": "string", "bool": "boolean"}[type_]
    return {"first": first, "last": last, "count": count, "type": type_, "kind": kind,
            "low": low, "high": high}


def ints(prefix: str, numbers: range) -> dict[str, Any]:
    return {f"{prefix}{i}": i for i in numbers}


@pytest.mark.parametrize(
    ("bound", "runs", "listed"),
    [
        ({}, [], []),
        ({"x": 1}, [], ["x"]),
        (ints("v", range(300)), [run("v0", "v299", 300, "int", 0, 299)], []),
        (  # a gap, four names (too few), another type in the middle, a table kind
            {**ints("a", range(6)), **ints("a", range(7, 13)), **ints("c", range(1, 5)),
             **{f"b{i}": "x" for i in range(5)}, "b5": 1.5, **{f"b{i}": "y" for i in range(6, 11)},
             **{f"d{i}": {"k": i} for i in range(5)},
             **{f"f{i}": i / 2 for i in range(5)}},
            [run("a0", "a5", 6, "int", 0, 5), run("a7", "a12", 6, "int", 7, 12),
             run("b0", "b4", 5, "str"), run("b6", "b10", 5, "str"),
             run("f0", "f4", 5, "float", 0.0, 2.0)],
            ["d0", "d1", "d2", "d3", "d4", "b5", "c1", "c2", "c3", "c4"],
        ),
    ],
    ids=["empty", "one", "run-of-300", "mixed"],
)
def test_runs_and_notable_names(shell, bound, runs, listed):  # type: ignore[no-untyped-def]
    shell.run("bind", **bound)
    reply = digest(limit=50)
    assert reply["total"] == len(bound)
    assert reply["runs"] == runs
    assert reply["names_in_runs"] == sum(r["count"] for r in runs)
    assert reply["notable_total"] == len(bound) - reply["names_in_runs"]
    # every name is new in this cell: the changed entries come first, then the notable
    assert reply["changed"]["new"] == len(bound)
    names = [v["name"] for v in reply["variables"]]
    assert len(names) == len(set(names)) <= 2 * 50
    notable = names[reply["changed"]["listed"]:]
    assert set(notable) | set(names[: reply["changed"]["listed"]]) >= set(listed)
    shell.run("nothing")
    quiet = digest(limit=50)
    assert quiet["changed"]["new"] == quiet["changed"]["modified"] == 0
    assert [v["name"] for v in quiet["variables"]] == listed  # tables first, then the rest


def test_counts_are_exact_beyond_the_limit_and_replies_bounded(shell):  # type: ignore[no-untyped-def]
    shell.run("bind", **ints("v", range(300)), gone=1, also=2)
    shell.run("grow", **ints("w", range(40_000)), v5=-7, gone=DELETE)
    reply = digest(limit=50)
    assert reply["changed"]["new"] == 40_000
    assert reply["changed"]["modified"] == 1
    assert (reply["changed"]["removed"], reply["changed"]["removed_names"]) == (1, ["gone"])
    assert reply["changed"]["listed"] == 50 and len(reply["variables"]) <= 100
    assert len(reply["runs"]) <= 50
    assert reply["total"] == 40_301
    v_run = next(r for r in reply["runs"] if r["first"] == "v0")
    assert (v_run["low"], v_run["high"]) == (-7, 299)  # bounds follow the rebound name
    w_run = next(r for r in reply["runs"] if r["first"] == "w0")
    assert (w_run["count"], w_run["low"], w_run["high"]) == (40_000, None, None)  # > 10,000
    shell.run("one", v7=-9)
    after = digest(limit=50)
    assert (after["changed"]["new"], after["changed"]["modified"]) == (0, 1)
    assert after["variables"][0]["name"] == "v7"
    assert after["variables"][0]["change"] == "modified"
    assert next(r for r in after["runs"] if r["first"] == "v0")["low"] == -9


def test_many_runs_are_listed_up_to_the_limit_and_the_rest_counted(shell):  # type: ignore[no-untyped-def]
    bound: dict[str, Any] = {}
    for p in range(30):
        bound.update(ints(f"p{p}_", range(5 + p)))
    shell.run("bind", **bound)
    reply = digest(limit=10)
    assert reply["runs_total"] == 30 and len(reply["runs"]) == 10
    assert min(r["count"] for r in reply["runs"]) == 25  # the largest runs are listed
    assert reply["names_in_unlisted_runs"] == sum(range(5, 25))
    assert reply["names_in_runs"] == len(bound)


def test_annotated_names_are_sent_when_pinned(shell):  # type: ignore[no-untyped-def]
    shell.run("bind", **ints("v", range(100)), _private=1, note=2)
    shell.run("nothing")
    reply = digest(limit=5, pinned=["v42", "_private", "missing", 7])
    assert [v["name"] for v in reply["variables"]][:1] == ["v42"]
    assert "_private" not in [v["name"] for v in reply["variables"]]


def test_bad_requests_are_refused(shell):  # type: ignore[no-untyped-def]
    assert digest(limit="x")["bad_request"] is True
    assert digest(include=["nope"])["bad_request"] is True


@pytest.mark.scale
def test_a_million_names_after_one_change(shell, monkeypatch):  # type: ignore[no-untyped-def]
    count = 1_000_000
    shell.user_ns.update({f"v{i:07d}": i for i in range(count)})
    shell.run("bind")
    first = digest(limit=250)
    assert first["total"] == count and first["changed"]["new"] == count
    assert first["runs"] == [run("v0000000", "v0999999", count, "int")]
    assert len(json.dumps(first)) < 200_000
    shell.run("one", v0000004=-1)
    passes = []
    names_of, shape_of, same = visibility.Visibility._names, digest_op.Shape.__init__, digest_op.Shape.same
    monkeypatch.setattr(visibility.Visibility, "_names", lambda *a: passes.append("names") or names_of(*a))
    monkeypatch.setattr(digest_op.Shape, "__init__", lambda *a: passes.append("shape") or shape_of(*a))
    monkeypatch.setattr(digest_op.Shape, "same", lambda *a: passes.append("same") or same(*a))
    started = time.perf_counter()
    reply = digest(limit=250)
    took = time.perf_counter() - started
    assert passes == []  # the visible names, their order and runs: all reused
    assert (reply["changed"]["new"], reply["changed"]["modified"]) == (0, 1)
    assert [v["name"] for v in reply["variables"]] == ["v0000004"]
    assert reply["total"] == count and reply["names_in_runs"] == count
    assert len(json.dumps(reply)) < 2_000
    assert took < 1.0  # a hang guard (measured well under a millisecond)
