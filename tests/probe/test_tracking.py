"""Change tracking and the snapshot caches on a stand-in shell: what a user cell, a
silent execution and the hook's budget each make visible.  No wall-clock assertions:
work is counted (calls, fingerprints) instead."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from jupyter_kernel_state.probe import entry, guard
from jupyter_kernel_state.probe.changes import copies
from jupyter_kernel_state.probe.changes import tracker as tracking
from jupyter_kernel_state.probe.changes.fingerprints import describe_changes, fingerprint
from jupyter_kernel_state.probe.inspect import containers, display, fragments, summary
from jupyter_kernel_state.probe.inspect.base import inspector_for
from jupyter_kernel_state.probe.inspect.cache import HELD_TEXT, HELD_TYPES
from jupyter_kernel_state.probe.namespace import visibility as namespace

from . import hostile
from .stand_in import DELETE, Shell


def snap(**request: Any) -> dict[str, Any]:
    return entry.snapshot({"op": "snapshot", **request})


def names_of(reply: dict[str, Any]) -> list[str]:
    return [v["name"] for v in reply["variables"]]


def by_name(reply: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in reply["variables"]}


def tracker() -> tracking.ChangeTracker:
    return entry._state.tracker


# --- which names are listed ----------------------------------------------------------


@pytest.mark.parametrize("added", [1, 40, 200])
def test_new_names_leave_the_name_caches_of_a_large_namespace(shell, monkeypatch, added):  # type: ignore[no-untyped-def]
    """A cell adding a few names to a namespace larger than namespace's per-name caches
    keeps their entries: the next snapshot does not classify and sort-key every name again."""
    monkeypatch.setattr(namespace, "MAX_KEY_CACHE", 100)
    shell.run(**{f"w{i:04d}": i for i in range(1000)})
    assert snap(limit=5)["total"] == 1000
    cached = set(namespace._name_category), set(namespace._natural_keys)
    assert {f"w{i:04d}" for i in range(1000)} <= cached[0] & cached[1]
    shell.run(**{f"fresh{i}": i for i in range(added)})
    assert cached[0] <= set(namespace._name_category)
    assert cached[1] <= set(namespace._natural_keys)
    assert snap(limit=5)["total"] == 1000 + added
    assert tracker().change_of("fresh0", 0, None)[0] == "unchanged"



def test_names_are_not_recomputed_when_a_cell_changes_one_value(shell, monkeypatch):  # type: ignore[no-untyped-def]
    shell.run(**{f"v{i}": i for i in range(300)})
    assert snap()["total"] == 300
    calls = []
    original = namespace.Visibility._names
    monkeypatch.setattr(namespace.Visibility, "_names", lambda *a: calls.append(1) or original(*a))
    ec = shell.run("v0 = -1", v0=-1)  # also adds IPython's _iN
    reply = snap()
    assert calls == [] and reply["total"] == 300
    assert by_name(reply)["v0"]["preview"] == "-1" and by_name(reply)["v0"]["changed_at"] == ec
    shell.run("v300 = 1", v300=1)  # a new name: listed
    assert snap()["total"] == 301 and calls == [1]


def test_a_name_added_by_a_silent_execution_is_listed_at_once(shell):  # type: ignore[no-untyped-def]
    shell.run(a=1)
    assert names_of(snap()) == ["a"]
    shell.user_ns["silent"] = 2  # no hook: another client's silent execution
    reply = snap()
    assert names_of(reply) == ["a", "silent"] and reply["total"] == 2
    assert by_name(reply)["silent"]["change"] == "new"
    del shell.user_ns["silent"]  # deleted silently too: the size changed
    assert names_of(snap()) == ["a"]


def test_a_name_rebound_to_a_module_leaves_the_list_after_the_next_cell(shell):  # type: ignore[no-untyped-def]
    shell.run(a=1, b=2)
    assert names_of(snap()) == ["a", "b"]
    shell.user_ns["b"] = math  # silently: same size, same last key
    # Documented: until the next user cell the list may keep b; its summary is current.
    stale = by_name(snap())
    assert "b" not in stale or stale["b"]["kind"] == "module"
    shell.run("pass")
    assert names_of(snap()) == ["a"]
    assert names_of(snap(include=["modules"])) == ["a", "b"]
    shell.run(b=3)  # back to a variable
    assert names_of(snap()) == ["a", "b"]


def test_a_hidden_name_rebound_by_the_user_is_listed(shell):  # type: ignore[no-untyped-def]
    shell.user_ns["open"] = shell.user_ns_hidden["open"] = print  # IPython hides its own
    shell.run(x=1)
    assert names_of(snap(include=["callables"])) == ["x"]
    shell.run(open=5)
    assert names_of(snap(include=["callables"])) == ["open", "x"]


def test_deleting_a_name_in_a_cell_reports_it_removed(shell):  # type: ignore[no-untyped-def]
    shell.run(keep=1, gone=[1, 2])
    ec = shell.run(gone=DELETE)
    reply = snap(since_ec=ec - 1)
    assert names_of(reply) == ["keep"] and reply["removed"] == ["gone"]


# --- what changed --------------------------------------------------------------------


def test_in_place_changes_and_rebinding(shell):  # type: ignore[no-untyped-def]
    items = [1, 2]
    first = shell.run(items=items, x=1, text="abc", table={"a": 1})
    items.append(3)
    shell.user_ns["table"]["b"] = 2
    second = shell.run("items.append(3)", x=1)  # x = 1 again: no change
    v = by_name(snap(since_ec=first))
    assert v["items"]["change"] == "modified"
    assert v["items"]["changes"] == ["len 2 → 3", "appended 3"]
    assert v["items"]["changed_at"] == second and v["items"]["preview"] == "[1, 2, 3]"
    assert v["table"]["changes"] == ["len 1 → 2", "key b added"]
    assert v["x"]["change"] == "unchanged" and v["x"]["changed_at"] == first
    third = shell.run(text=5, items=[0] * 5)
    v = by_name(snap(since_ec=second))
    assert v["text"]["changes"] == ["type str → int", "'abc' → 5"]
    assert v["text"]["changed_at"] == third
    assert v["items"]["changes"] == ["len 3 → 5"]  # another list: neither appended nor cut


def test_same_length_change_is_seen_within_the_budget(shell):  # type: ignore[no-untyped-def]
    shell.run(a=[1, 2, 3])
    shell.user_ns["a"][0] = 9
    ec = shell.run("a[0] = 9")
    v = by_name(snap(since_ec=ec - 1))["a"]
    assert v["change"] == "modified" and v["changed_at"] == ec and v["preview"] == "[9, 2, 3]"


def test_hook_work_is_bounded_and_every_value_is_fingerprinted_in_turn(shell):  # type: ignore[no-untyped-def]
    n = tracking.DEEP_BUDGET * 3 + 7
    lists = {f"l{i:04d}": [i, i] for i in range(n)}
    shell.run(**lists)
    t = tracker()
    assert t.deep_checks <= tracking.DEEP_BUDGET
    checked = set()
    for _ in range(4):
        shell.run("pass")
        assert t.deep_checks <= tracking.DEEP_BUDGET
        checked.update(name for name, ec in t.records.verified_at.items() if ec == shell.execution_count - 1)
    assert checked == set(lists)  # every one within ceil(n / budget) cells
    # An append is seen by the hook itself, at its cell, whatever the budget.
    name = f"l{n - 1:04d}"
    shell.user_ns[name].append(1)
    ec = shell.run("append")
    v = by_name(snap(since_ec=ec - 1, limit=10_000))[name]
    assert v["changes"] == ["len 2 → 3", "appended 1"] and v["changed_at"] == ec


def test_a_same_length_change_beyond_the_budget_is_seen_by_the_snapshot(shell, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(tracking, "DEEP_BUDGET", 4)
    shell.run(**{f"l{i:02d}": [i, i] for i in range(20)})  # baselines: l00 … l03
    shell.run("pass")  # this turn: l00 … l03 again
    shell.user_ns["l00"][0] = -1
    ec = shell.run("l00[0] = -1")  # this turn: l04 … l07, not l00
    assert tracker().records.verified_at["l00"] == ec - 1
    v = by_name(snap(since_ec=ec - 1))["l00"]
    assert v["change"] == "modified" and v["changed_at"] == ec and v["preview"] == "[-1, 0]"
    assert by_name(snap(since_ec=ec))["l00"]["change"] == "unchanged"


def test_a_change_after_the_last_cell_is_left_to_the_next_cell(shell):  # type: ignore[no-untyped-def]
    shell.run(a=[1, 2])
    ec = shell.run("pass")
    shell.user_ns["a"][0] = 5  # e.g. a widget callback, outside any cell
    v = by_name(snap(since_ec=ec - 1))["a"]
    assert v["preview"] == "[5, 2]" and v["change"] == "unchanged"
    later = shell.run("pass")
    assert by_name(snap(since_ec=ec))["a"]["changed_at"] == later


def test_rebinding_thousands_of_names_records_each(shell):  # type: ignore[no-untyped-def]
    shell.run(**{f"v{i}": i for i in range(3000)}, s="x", lst=[1])
    ec = shell.run(**{f"v{i}": i + 1 for i in range(3000)})
    shell.run(v5=6)  # equal value again: no change
    v = by_name(snap(since_ec=ec - 1, limit=10_000))
    assert all(v[f"v{i}"]["changed_at"] == ec for i in range(3000))
    assert v["s"]["change"] == "unchanged" and v["lst"]["change"] == "unchanged"


class Spy:
    """Counts every call of the special methods the hook could be tempted to use."""

    calls = 0
    __hash__ = object.__hash__

    def __len__(self) -> int:
        Spy.calls += 1
        return 1

    def __eq__(self, other: object) -> bool:
        Spy.calls += 1
        return False

    def __repr__(self) -> str:
        Spy.calls += 1
        return "Spy()"


class SpyList(list):  # a subclass: its own __len__/__eq__ may be anything
    def __len__(self) -> int:
        Spy.calls += 1
        return 0

    def __eq__(self, other: object) -> bool:
        Spy.calls += 1
        return False

    __hash__ = None  # type: ignore[assignment]


def test_hook_runs_no_user_code(shell):  # type: ignore[no-untyped-def]
    Spy.calls = 0
    spy, spy_list = Spy(), SpyList([1])
    keyed = {spy: spy, "k": Spy(), 1: [spy]}  # the copies hold user objects by id only
    shell.run(a=1, b=spy, c=spy_list, d=[1], e=keyed, f=[spy, Spy()], g={spy, 1})
    shell.run(a=Spy(), b=spy, c=SpyList([2]), d=Spy())  # rebound, across types
    spy_list.append(3)
    keyed["k"], keyed[Spy()] = Spy(), 2
    shell.user_ns["f"][0] = Spy()
    shell.run(a=1, b=Spy(), d=[1, 2], e=dict(keyed), f=[Spy()])
    shell.run("pass")
    assert Spy.calls == 0


# --- summaries -----------------------------------------------------------------------


def test_snapshot_variables_leave_the_server_fields_out(shell):  # type: ignore[no-untyped-def]
    import json

    from jupyter_kernel_state.probe.wire import dumps

    shell.run(x=1)
    v = json.loads(dumps(entry.dispatch({"op": "snapshot"}, None)))["variables"][0]  # the wire
    assert not set(fragments.SERVER_KEYS) & set(v)
    assert set(fragments.SERVER_KEYS) <= set(entry.summarize("x", 1))


def test_small_values_are_not_fingerprinted_again(shell, monkeypatch):  # type: ignore[no-untyped-def]
    shell.run(**{f"v{i}": i for i in range(50)}, s="text")
    snap()
    calls = []
    for t in (int, str):
        insp = inspector_for(t)
        monkeypatch.setattr(insp, "fingerprint", lambda v, calls=calls: calls.append(v))
    snap()
    shell.run(v0=-1)
    reply = snap()
    assert calls == [] and by_name(reply)["v0"]["preview"] == "-1"


def test_plain_containers_are_summarised_without_the_guard(monkeypatch):  # type: ignore[no-untyped-def]
    runs = []
    original = guard.GuardSession.run
    monkeypatch.setattr(guard.GuardSession, "run", lambda self, fn, *a: runs.append(1) or original(self, fn, *a))
    ns = {"a": [1, 2.5, "x", None, True], "t": (1,), "d": {"k": 1}, "s": {3}, "f": frozenset({4})}
    reply = entry.snapshot({"op": "snapshot"}, namespace=ns)
    assert runs == []
    assert [v["preview"] for v in reply["variables"]] == ["[1, 2.5, 'x', None, True]", "{'k': 1}", "frozenset({4})", "{3}", "(1,)"]
    entry.snapshot({"op": "snapshot"}, namespace={"b": [hostile.CountingRepr()]})
    assert runs == [1]  # user code inside: guarded


def test_plain_fast_path_matches_the_general_path():  # type: ignore[no-untyped-def]
    rng = random.Random(7)

    def scalar() -> Any:
        return rng.choice([
            rng.randint(-10**6, 10**6), rng.random() * 10**rng.randint(-5, 20), None, True, False,
            "".join(rng.choice("ab'\"\\\n é") for _ in range(rng.randint(0, 60))), math.inf, -0.0,
            2**63, -(2**70),
        ])

    for _ in range(3000):
        k = rng.choice([1, 2, 3, 5, 19, 20, 21, 40])
        limit = rng.choice([10, 15, 20, 40, 80, 200])
        items = [scalar() for _ in range(k)]
        cases = [items, tuple(items)]
        try:
            cases.append(set(items))
            cases.append(dict(zip(items, reversed(items), strict=True)))
        except TypeError:
            pass
        for value in cases:
            insp = inspector_for(type(value))
            fast = insp.plain_preview(value, limit)
            if fast is None:
                continue
            assert fast == _general_preview(insp, value, limit), (value, limit)
            assert len(fast[0]) <= limit


def _general_preview(insp: Any, value: Any, limit: int) -> tuple[str, bool]:
    """The element-by-element path, with the fast path switched off."""
    saved = containers.SequenceInspector.plain_preview, containers.MappingInspector.plain_preview, containers.SetInspector.plain_preview
    try:
        for cls in (containers.SequenceInspector, containers.MappingInspector, containers.SetInspector):
            cls.plain_preview = lambda self, *a, **k: None  # type: ignore[method-assign]
        return insp.preview(value, limit, 0, display.Ctx())
    finally:
        (containers.SequenceInspector.plain_preview, containers.MappingInspector.plain_preview,
         containers.SetInspector.plain_preview) = saved


def test_turn_wraps_around():  # type: ignore[no-untyped-def]
    names = [f"n{i}" for i in range(10)]
    seen = []
    start = 0
    for _ in range(5):
        chunk, start = tracking._turn(names, start, 4)
        assert len(chunk) == 4
        seen.extend(chunk)
    assert set(seen) == set(names) and seen[:12] == list(itertools.islice(itertools.cycle(names), 12))


def test_fragments_are_the_json_of_the_summary():  # type: ignore[no-untyped-def]
    import json

    import numpy as np
    import pandas as pd

    values = [
        1, -2**70, 1.5, math.nan, True, None, "quo\"te \\ é \n ☃", b"by\x00tes", [1, "a"], {"k": [1]},
        np.arange(6.0).reshape(2, 3), np.float64("nan"), pd.DataFrame({"a": [1, 2]}), hostile.ReprRaises(),
        hostile.LenHuge(), math, print, Spy(),
    ]
    values.append({"password": "swordfish", "depth": 6})  # its secret_reason is sent
    summaries = [summary.build(f"v{i}", v, 80) for i, v in enumerate(values)]
    for s, fragment in zip(summaries, fragments.encode_fragments(summaries), strict=True):
        expected = {k: s[k] for k in fragments.FRAGMENT_KEYS if not fragments._is_default(k, s)}
        got = json.loads(fragment + "}")
        assert list(got) == list(expected)  # lean: the fields at their defaults left out
        if not any(isinstance(x, float) and x != x for x in expected.values()):
            assert got == expected
            assert fragment + "}" == json.dumps(expected, separators=(",", ":"), ensure_ascii=True)
    assert json.loads(fragment + "}")["secret_reason"] == "a key inside looks like a credential"


NOT_HELD = object()


class Reference:
    """What the tracker promises for a namespace within DEEP_BUDGET, written plainly:
    every name fingerprinted and copied after every cell (the probe's behaviour before
    budgets); a change is described by the fingerprints, then by the copies (or, for a
    held scalar bound to another, by the two values)."""

    def __init__(self, shell: Shell) -> None:
        self.shell, self.records, self.removed = shell, {}, {}  # type: ignore[var-annotated]
        self.scan(None)

    @staticmethod
    def changes(rec: list[Any], name: str, value: Any, t: type, fp: Any, copy: Any,
                held: bool) -> tuple[str, ...]:
        old_held = rec[6] is not NOT_HELD
        if rec[1] is not t:
            words = describe_changes(rec[1], rec[2], t, fp)
            return words + ((copies.describe_scalar(rec[6], value),) if held and old_held else ())
        if held:
            return (copies.describe_scalar(rec[6], value),) if old_held else ()
        return (describe_changes(t, rec[2], t, fp) + copies.describe(rec[7], copy, value))[:5]

    def scan(self, ec: int | None) -> None:
        ns = self.shell.user_ns
        hidden = namespace.hidden_names(ns, self.shell.user_ns_hidden)
        for name in [n for n in self.records if n not in ns]:
            del self.records[name]
            self.removed.pop(name, None)
            self.removed[name] = ec
        for name, value in list(ns.items()):
            if namespace.name_category(name) == namespace.INTERNAL_NAME or name in hidden:
                continue
            t = type(value)
            held = t in HELD_TYPES or (t in HELD_TEXT and len(value) <= 4096)
            fp = None if held else fingerprint(value, t)
            copy = None if held else copies.copy_of(value, t)
            rec = self.records.get(name)
            if rec is None:
                self.records[name] = [id(value), t, fp, ec, ec, (), value if held else NOT_HELD, copy]
                self.removed.pop(name, None)
            elif rec[:3] != [id(value), t, fp] or (
                    rec[7] is not None and copy is not None and rec[7] != copy):
                if held and rec[6] is not NOT_HELD and type(rec[6]) is t and rec[6] == value:
                    rec[0], rec[6] = id(value), value
                    continue
                changes = self.changes(rec, name, value, t, fp, copy, held)
                self.records[name] = [id(value), t, fp, rec[3], ec, changes,
                                      value if held else NOT_HELD, copy]
            else:
                rec[7] = copy

    def change_of(self, name: str, value: Any, since: int | None) -> tuple[str, int | None, list[str]]:
        rec = self.records.get(name)
        if rec is None:
            return "new", None, []
        if rec[0] != id(value):
            return "modified", rec[4], []
        if since is None:
            return "unchanged", rec[4], []
        if rec[3] is not None and rec[3] > since:
            return "new", rec[4], []
        if rec[4] is not None and rec[4] > since:
            return "modified", rec[4], list(rec[5])
        return "unchanged", rec[4], []


@pytest.mark.parametrize("seed", range(40))
def test_tracker_matches_the_plain_reference(seed, monkeypatch):  # type: ignore[no-untyped-def]
    import numpy as np
    import pandas as pd
    # The reference knows structural and copy words; content words (what changed inside a
    # table or array) are tested in tests/probe/changes/.
    monkeypatch.setattr(tracking, "CONTENT_MS", 0)

    rng = random.Random(seed)
    sh = Shell()
    new, ref = tracking.ChangeTracker(sh), Reference(sh)
    names = [f"n{i}" for i in range(12)]
    makers = [
        lambda: rng.randint(0, 5), lambda: rng.random(), lambda: "s" * rng.randint(0, 5),
        lambda: [rng.randint(0, 3) for _ in range(rng.randint(0, 4))], lambda: {rng.randint(0, 3): 1},
        lambda: (1, rng.randint(0, 2)), lambda: None, lambda: math, lambda: {1, rng.randint(1, 3)},
        lambda: np.arange(rng.randint(1, 4)), lambda: pd.DataFrame({"a": range(rng.randint(1, 3))}),
        lambda: "x" * 5000 + str(rng.randint(0, 2)), lambda: Spy(),
    ]
    for _ in range(60):
        ns = sh.user_ns
        for _ in range(rng.randint(1, 4)):
            name, op = rng.choice(names), rng.randrange(7)
            value = ns.get(name)
            if op == 0 and name in ns:
                del ns[name]
            elif op == 1 and type(value) is list:
                value.append(1)
            elif op == 2 and type(value) is list and value:
                value[0] = object()
            elif op == 3 and type(value) is dict:
                value[rng.randint(10, 12)] = 1
            elif op == 4 and type(value) is int:
                ns[name] = int(str(value))  # an equal value, another object
            else:
                ns[name] = rng.choice(makers)()
        ec = sh.run("cell")  # no hook registered here: scan both by hand
        new.scan(ec)
        ref.scan(ec)
        for since in (None, ec - 1, ec - 3):
            for name in names:
                if name in ns:
                    assert new.change_of(name, ns[name], since) == ref.change_of(name, ns[name], since), name
            gone = [n for n, e in reversed(ref.removed.items()) if since is None or (e is not None and e > since)]
            assert new.removed_since(since)[0] == gone, since


@pytest.mark.parametrize("seed", range(20))
def test_reused_names_equal_a_fresh_computation(shell, seed):  # type: ignore[no-untyped-def]
    """After every user cell, and after silent additions or deletions, the listed names
    are those a fresh computation gives (the documented exception — a silent rebinding
    that changes a name's kind — is not generated here)."""
    rng = random.Random(seed)
    ns = shell.user_ns
    names = [f"n{i}" for i in range(10)] + ["_p1", "_p2"]
    kinds = [lambda: 1, lambda: "s", lambda: [1], lambda: math, lambda: print, lambda: Spy, lambda: Spy()]
    includes = [(), ("private",), ("modules", "callables"), ("classes", "private")]
    for step in range(40):
        binds: dict[str, Any] = {}
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(names)
            binds[name] = DELETE if name in ns and rng.random() < 0.2 else rng.choice(kinds)()
        shell.run("cell", **binds)
        if rng.random() < 0.3:  # a silent execution adds or deletes a name
            silent = f"s{step}"
            ns[silent] = rng.choice(kinds)()
            if rng.random() < 0.5:
                del ns[silent]
        for include in includes:
            expected = sorted(namespace.Visibility()._names(ns, include, shell.user_ns_hidden))
            assert sorted(names_of(snap(include=list(include), limit=10_000))) == expected
