"""What changed inside a value, in the probe (no server): the change texts for each kind,
from the tracker's bounded copies; the copies' bounds (items, names, values described per
cell) and the hook's work counted, never timed (a time bound only guards against a hang)."""

from __future__ import annotations

import collections
import dataclasses
import time
import tracemalloc
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes import copies
from jupyter_kernel_state.probe.changes import tracker as tracking
from jupyter_kernel_state.probe.changes.fingerprints import MAX_CHANGES


@dataclasses.dataclass
class Config:
    lr: float
    name: str


class Point(NamedTuple):
    x: int
    y: int


class Run:
    def __init__(self) -> None:
        self.lr = 0.1
        self.tags = ["a"]


def changes_of(shell, name: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The changes the list shows for ``name`` after the last cell."""
    reply = entry.snapshot({"since_ec": shell.execution_count - 2, "limit": 10_000})
    return {v["name"]: v for v in reply["variables"]}[name]["changes"]


#: Stands for a fresh ``Run()`` in the table (each case gets its own object).
A_RUN = object()


#: (id, the value before, the cell that changes it (on the namespace ``ns``), the texts)
CASES = [
    # dicts
    ("dict-scalar", {"model": "gbm", "depth": 6}, "ns['v']['depth'] = 8", ["depth 6 → 8"]),
    ("dict-added", {"a": 1}, "ns['v']['lr'] = 0.1", ["len 1 → 2", "key lr added"]),
    ("dict-added-many", {"a": 1}, "ns['v'].update(b=1, c=2, d=3, e=4, f=5)",
     ["len 1 → 6", "keys b, c, d and 2 more added"]),
    ("dict-removed", {"a": 1, "tmp": 2}, "del ns['v']['tmp']", ["len 2 → 1", "key tmp removed"]),
    ("dict-many-values", {k: 0 for k in "abcdef"}, "ns['v'].update(dict.fromkeys('abcde', 1))",
     ["a 0 → 1", "b 0 → 1", "c 0 → 1", "2 more values changed"]),
    ("dict-nested-replaced", {"db": {"host": "h"}}, "ns['v']['db'] = {'host': 'k'}", ["db changed"]),
    ("dict-entry-retyped", {"n": 1}, "ns['v']['n'] = [1]", ["n 1 → <list>"]),
    ("dict-odd-keys", {"my key": 1, 3: "a"}, "ns['v']['my key'] = 2; ns['v'][3] = 'b'",
     ["['my key'] 1 → 2", "[3] 'a' → 'b'"]),
    ("dict-long-text", {"s": "a" * 30}, "ns['v']['s'] = 'b' * 60",
     ["s 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' → 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb…'"]),
    ("dict-bigger-than-a-copy", {i: i for i in range(100)}, "ns['v'][5] = -1", ["[5] 5 → -1"]),
    ("dict-beyond-the-copy", {i: i for i in range(100)}, "ns['v'][99] = -1; ns['v'][100] = 0",
     ["len 100 → 101"]),
    ("dict-rebound", {"depth": 6}, "ns['v'] = {'depth': 7}", ["depth 6 → 7"]),
    ("counter", collections.Counter("aab"), "ns['v'].update('a')", ["a 2 → 3"]),
    ("ordered-dict", collections.OrderedDict(a=1), "ns['v']['b'] = 2", ["len 1 → 2", "key b added"]),
    # sequences
    ("list-append", [1, 2], "ns['v'].append(3)", ["len 2 → 3", "appended 3"]),
    ("list-extend", [1, 2], "ns['v'].extend([3, 4])", ["len 2 → 4", "appended 3, 4"]),
    ("list-extend-many", [1], "ns['v'].extend(range(50))", ["len 1 → 51", "50 items appended"]),
    ("list-append-object", [1], "ns['v'].append(object())", ["len 1 → 2", "1 item appended"]),
    ("list-pop", [1, 2, 3], "ns['v'].pop()", ["len 3 → 2", "1 item removed from the end"]),
    ("list-pop-front", [1, 2, 3], "ns['v'].pop(0)", ["len 3 → 2", "1 item removed from the start"]),
    ("list-insert-front", [1, 2, 3], "ns['v'].insert(0, 0)",
     ["len 3 → 4", "1 item inserted at the start"]),
    ("list-item", [1, 2, 3], "ns['v'][0] = 9", ["[0] 1 → 9"]),
    ("list-items", list(range(10)), "ns['v'][:5] = [-1] * 5",
     ["[0] 0 → -1", "[1] 1 → -1", "[2] 2 → -1", "2 more items changed"]),
    ("long-list-append", list(range(1000)), "ns['v'].append(-1)", ["len 1,000 → 1,001", "appended -1"]),
    ("long-list-last", list(range(1000)), "ns['v'][-1] = -1", ["[999] 999 → -1"]),
    ("long-list-middle", list(range(1000)), "ns['v'][500] = -1", None),  # beyond the copy
    ("tuple-rebound", (1, 2, 3), "ns['v'] = ns['v'] + (4,)", ["len 3 → 4", "appended 4"]),
    ("deque-left", collections.deque([1, 2]), "ns['v'].appendleft(0)",
     ["len 2 → 3", "1 item inserted at the start"]),
    # sets
    ("set-add", {"a"}, "ns['v'].add('b')", ["len 1 → 2", "item 'b' added"]),
    ("set-remove", {1, 2, 3}, "ns['v'].discard(2)", ["len 3 → 2", "item 2 removed"]),
    ("frozenset-rebound", frozenset({1}), "ns['v'] = frozenset({2, 3})",
     ["len 1 → 2", "items 2, 3 added", "item 1 removed"]),
    ("big-set", set(range(100)), "ns['v'].add(-1)", ["len 100 → 101"]),  # no copy: len only
    # scalars and short texts
    ("int", 6, "ns['v'] = 8", ["6 → 8"]),
    ("float", 0.5, "ns['v'] = 0.25", ["0.5 → 0.25"]),
    ("str", "alpha", "ns['v'] = 'beta'", ["'alpha' → 'beta'"]),
    ("bytes", b"ab", "ns['v'] = b'cd'", ["b'ab' → b'cd'"]),
    ("retyped", True, "ns['v'] = 2", ["type bool → int", "True → 2"]),
    ("none", None, "ns['v'] = 1", ["type NoneType → int", "None → 1"]),
    ("a-credential-looking-text", "x", "ns['v'] = 'sk-abcdefghijklmnopqrstu'",
     ["'x' → 'sk-…[masked]'"]),
    # objects
    ("object-attribute", A_RUN, "ns['v'].lr = 0.01", ["lr 0.1 → 0.01"]),
    ("object-attributes", A_RUN, "ns['v'].epochs = 3; del ns['v'].tags",
     ["attribute epochs added", "attribute tags removed"]),
    ("dataclass", Config(0.1, "a"), "ns['v'].lr = 0.2", ["lr 0.1 → 0.2"]),
    ("namedtuple-rebound", Point(1, 2), "ns['v'] = ns['v']._replace(y=3)", ["y 2 → 3"]),
    # arrays and frames: what the fingerprints tell
    ("ndarray", np.arange(3), "ns['v'] = np.arange(4)",
     ["shape (3,) → (4,)", "1 value appended", "mean 1 → 1.5"]),
    ("dataframe", pd.DataFrame({"a": range(5)}), "ns['v'] = ns['v'].iloc[:3].assign(c=1)",
     ["rows 5 → 3", "column c added"]),
]


@pytest.mark.parametrize("before, cell, expected", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_the_change_texts_of_each_kind(shell, before, cell, expected):  # type: ignore[no-untyped-def]
    ns = shell.user_ns
    shell.run(v=Run() if before is A_RUN else before)
    exec(cell, {"ns": ns, "np": np})  # the user's cell
    shell.run(cell)
    if expected is None:  # a change the bounded copy does not reach: not reported
        assert changes_of(shell, "v") == [] or "modified" not in changes_of(shell, "v")
        return
    assert changes_of(shell, "v") == expected
    timeline = entry._state.tracker.records.timeline.of("v")[0]
    assert timeline[-1]["changes"] == expected[:MAX_CHANGES]
    assert all(len(text) <= 200 for text in expected)


def test_a_change_accumulates_in_the_timeline(shell):  # type: ignore[no-untyped-def]
    shell.run(config={"depth": 6})
    for depth in (7, 8):
        shell.user_ns["config"]["depth"] = depth
        shell.run(f"config['depth'] = {depth}")
    entries = entry._state.tracker.records.timeline.of("config")[0]
    assert [e["changes"] for e in entries] == [[], ["depth 6 → 7"], ["depth 7 → 8"]]


def test_a_change_seen_by_a_snapshot_is_described_once(shell, monkeypatch):  # type: ignore[no-untyped-def]
    """With more values than the hook's budget, the snapshot that shows a name tells its
    change (``observe``) with the copy's words; the hook's later turn does not again."""
    monkeypatch.setattr(tracking, "DEEP_BUDGET", 2)
    shell.run(**{f"d{i}": {"depth": i} for i in range(10)})
    for _ in range(5):
        shell.run("pass")  # every copy taken in turn
    shell.user_ns["d0"]["depth"] = -1
    ec = shell.run("d0['depth'] = -1")
    v = {x["name"]: x for x in entry.snapshot({"since_ec": ec - 1})["variables"]}["d0"]
    assert v["changes"] == ["depth 0 → -1"]
    for _ in range(6):
        shell.run("pass")
    entries = entry._state.tracker.records.timeline.of("d0")[0]
    assert [e["changes"] for e in entries if e["change"] == "modified"] == [["depth 0 → -1"]]


# --- bounds ------------------------------------------------------------------------


def test_copies_are_capped_and_the_refused_counted(shell):  # type: ignore[no-untyped-def]
    store = entry._state.tracker.records.copies
    store.max_copies = 5
    shell.run(**{f"c{i}": {"depth": i} for i in range(12)})
    assert len(store.by_name) == 5 and store.refused == 7
    shell.user_ns["c0"]["depth"], shell.user_ns["c11"]["depth"] = -1, -1
    shell.run("c0['depth'] = c11['depth'] = -1")
    assert changes_of(shell, "c0") == ["depth 0 → -1"]  # kept: described
    # refused: the change is seen by the fingerprint (a new first value), not in words
    reply = {v["name"]: v for v in entry.snapshot({"since_ec": shell.execution_count - 2})["variables"]}
    assert reply["c11"]["change"] == "modified" and reply["c11"]["changes"] == []
    assert len(store.by_name) <= 5
    shell.run(**{f"c{i}": copies.copy_of for i in range(12)})  # functions: no copies
    assert store.by_name == {}


def test_a_copy_holds_a_bounded_number_of_small_values():  # type: ignore[no-untyped-def]
    big = {f"key{i}": "x" * 1000 if i % 2 else i for i in range(10_000)}
    copy = copies.copy_of(big, dict)
    assert copy[1] == 10_000 and len(copy[2]) == len(copy[3]) == copies.COPY_ITEMS
    long_texts = [x for x in copy[3] if type(x) is str]
    assert long_texts == []  # a long text is kept by identity, not by value
    seq = copies.copy_of(list(range(10_000)), list)
    assert len(seq[2]) + len(seq[3]) == copies.COPY_ITEMS
    assert copies.copy_of(set(range(10_000)), set) == ("set", 10_000, None)


def test_the_memory_copies_hold_is_bounded():  # type: ignore[no-untyped-def]
    """The worst case: every copy full of texts of COPY_TEXT characters whose dicts have
    since dropped them (so the copies alone keep them alive)."""
    store = copies.Copies()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(copies.MAX_COPIES + 10):
            value = {f"k{j:02d}{i}": f"{i:08d}{j:02d}".ljust(copies.COPY_TEXT, "x")
                     for j in range(copies.COPY_ITEMS)}
            store.retake(f"n{i}", value, dict)
            del value
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(store.by_name) == copies.MAX_COPIES and store.refused == 10
    per_copy = held / copies.MAX_COPIES
    # 32 keys and 32 texts of 64 characters (about 113 bytes each) and four tuples
    assert per_copy < 12_000, per_copy
    assert store.held_items() == copies.MAX_COPIES * 2 * copies.COPY_ITEMS


def test_the_hook_work_is_counted_within_its_budgets(shell, monkeypatch):  # type: ignore[no-untyped-def]
    """10,000 names (ints, texts, small lists: benchmarks/kernel_side/states.make_small):
    copies taken per cell stay within DEEP_BUDGET, values described in words within
    VALUE_BUDGET, whatever changed; the time bound only guards against a hang."""
    taken, described = [], []
    retake, describe = copies.Copies.retake, copies.describe
    monkeypatch.setattr(copies.Copies, "retake", lambda self, *a: taken.append(1) or retake(self, *a))
    from jupyter_kernel_state.probe.changes import records
    monkeypatch.setattr(records, "describe", lambda *a: described.append(1) or describe(*a))
    monkeypatch.setattr(tracking, "describe", lambda *a: described.append(1) or describe(*a))
    ns = shell.user_ns

    def make(salt: int) -> dict[str, Any]:
        return {f"v{i}": (i * 1000 + salt, f"s{i}-{salt}", [i, salt, i + 1])[i % 3] for i in range(10_000)}

    started = time.monotonic()
    shell.run(**make(0))
    for salt in range(1, 4):
        taken.clear(), described.clear()
        shell.run(**make(salt))  # a cell rebinding all
        assert len(taken) <= tracking.DEEP_BUDGET and len(described) <= copies.VALUE_BUDGET
        taken.clear(), described.clear()
        ns["v2"].append(salt)
        shell.run("v2.append(salt)")  # one change
        assert len(taken) <= tracking.DEEP_BUDGET and len(described) <= copies.VALUE_BUDGET
    assert time.monotonic() - started < 60  # a hang guard, not a measure
    assert changes_of(shell, "v2")[:1] == ["len 3 → 4"]
