"""Namespaces of any size: exact totals, pages that stitch to the whole set, caches that
overflow without losing a name, and delta replies equal to a from-scratch reference.

The probe runs on the stand-in shell of ``test_tracking`` (a real namespace dict, the
real hook and caches).  The million-name case is marked ``scale``: the test command runs
it with the rest.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes.records import MAX_REMOVED
from jupyter_kernel_state.probe.namespace import visibility as namespace

from .stand_in import DELETE, Shell

PAGE = 10_000


def snap(**request: Any) -> dict[str, Any]:
    return entry.snapshot({"op": "snapshot", **request})


def bind(shell: Shell, count: int, prefix: str = "v") -> list[str]:
    names = [f"{prefix}{i:07d}" for i in range(count)]
    shell.user_ns.update(zip(names, range(count), strict=True))
    shell.run("bind")
    return names


def stitched(total: int, **request: Any) -> list[str]:
    """Every page of the list, in order."""
    out: list[str] = []
    for offset in range(0, total, PAGE):
        reply = snap(offset=offset, limit=PAGE, **request)
        assert reply["total"] == total
        out.extend(v["name"] for v in reply["variables"])
    return out


@pytest.mark.parametrize(
    "count",
    [0, 1, 49_999, 50_001, pytest.param(1_000_000, marks=pytest.mark.scale)],
)
def test_totals_are_exact_and_pages_stitch_to_the_whole_set(shell, count):  # type: ignore[no-untyped-def]
    names = bind(shell, count)
    for _ in range(2):  # the second time from the caches
        assert snap(limit=0)["total"] == count
    if count > 100_000:  # the first, a middle and the last page (stitching all: 100 pages)
        for offset in (0, count // 2, count - PAGE):
            got = [v["name"] for v in snap(offset=offset, limit=PAGE)["variables"]]
            assert got == names[offset : offset + PAGE]
        assert snap(offset=count, limit=PAGE)["variables"] == []
        return
    got = stitched(count)
    assert got == names  # natural order, no duplicates, nothing dropped


def test_a_namespace_past_every_cache_bound_keeps_exact_answers(shell, monkeypatch):  # type: ignore[no-untyped-def]
    """The name caches (categories, sort keys) and the summary cache are smaller than the
    namespace: every answer is still exact, across calls that add and remove names."""
    monkeypatch.setattr(namespace, "MAX_KEY_CACHE", 100)
    entry._state.cache.max_entries = 150
    names = bind(shell, 1_000)
    for round_ in range(3):
        assert stitched(len(names)) == names
        assert len(namespace._name_category) <= 2 * len(shell.user_ns) + 100
        assert len(namespace._natural_keys) <= 2 * len(shell.user_ns) + 100
        extra = [f"w{round_}_{i}" for i in range(300)]
        shell.user_ns.update(dict.fromkeys(extra, 0))
        for name in names[round_ * 100 : round_ * 100 + 50]:
            del shell.user_ns[name]
        shell.run("change")
        names = sorted(
            (n for n in shell.user_ns if n[0] in "vw" and not n.startswith("_")),
            key=namespace.natural_key,
        )
        summaries = snap(limit=PAGE)["variables"]
        assert [v["name"] for v in summaries] == names
        assert all(v["preview"] == "0" for v in summaries if v["name"].startswith("w"))


def test_a_few_names_at_a_time_keep_a_large_cache(monkeypatch):  # type: ignore[no-untyped-def]
    """Names added a few at a time (the hook, after each cell) do not make a cache past
    its bound forget the namespace it was rebuilt from; it stays within twice that."""
    monkeypatch.setattr(namespace, "MAX_KEY_CACHE", 100)
    names = [f"v{i}" for i in range(1_000)]
    namespace.natural_keys(names)
    namespace.name_categories(names)
    for i in range(900):
        namespace.natural_keys([f"extra{i}"])
        namespace.name_categories([f"extra{i}"])
        for cache in (namespace._natural_keys, namespace._name_category):
            assert f"extra{i}" in cache
            assert len(cache) <= 2 * max(100, cache.base)
    # up to twice the rebuilt size the namespace is kept; past it the cache starts again
    assert "v0" not in namespace._natural_keys and "extra899" in namespace._natural_keys
    namespace.natural_keys(names)
    assert all(n in namespace._natural_keys for n in names)


def test_a_failed_computation_leaves_the_names_consistent(shell, monkeypatch):  # type: ignore[no-untyped-def]
    """An error while the visible names are recomputed is an error, then the next request
    is exact — never a smaller namespace presented as the whole."""
    bind(shell, 500)
    assert snap(limit=0)["total"] == 500
    shell.user_ns["extra"] = 1
    shell.run("extra = 1")
    real = namespace.name_categories

    def failing(keys: list[str]) -> list[int]:
        raise KeyError("boom")

    monkeypatch.setattr(namespace, "name_categories", failing)
    with pytest.raises(KeyError):
        entry.dispatch({"op": "snapshot", "limit": 0})
    monkeypatch.setattr(namespace, "name_categories", real)
    assert snap(limit=0)["total"] == 501


def test_a_long_name_and_ten_thousand_character_names(shell):  # type: ignore[no-untyped-def]
    long = "a" * 256
    too_long = "b" * 10_000
    shell.user_ns.update({long: 1, too_long: 2})
    shell.run("names")
    assert [v["name"] for v in snap()["variables"]] == [long]  # longer names are not shown
    assert snap()["total"] == 1


# --- delta replies ----------------------------------------------------------------------


def _apply(held: dict[str, dict[str, Any]], reply: dict[str, Any]) -> None:
    for name in reply["removed"]:
        held.pop(name, None)
    for variable in reply["variables"]:
        held[variable["name"]] = variable


_COMPARED = ("type", "kind", "size", "shape", "preview", "changed_at")


def _view(held: dict[str, dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    return {n: tuple(v[k] for k in _COMPARED) for n, v in held.items()}


@pytest.mark.parametrize("seed", range(12))
def test_delta_replies_equal_a_from_scratch_list_after_random_cells(shell, seed):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    pool = [f"n{i}" for i in range(60)]
    makers = [lambda: rng.randint(0, 9), lambda: "s" * rng.randint(0, 3),
              lambda: [0] * rng.randint(0, 3), lambda: {"k": rng.randint(0, 2)}, lambda: None]
    shell.run("start")
    full = snap(limit=PAGE)
    held = {v["name"]: v for v in full["variables"]}
    since = shell.execution_count - 1
    for _ in range(30):
        binds: dict[str, Any] = {}
        for _ in range(rng.randint(0, 6)):
            name = rng.choice(pool)
            binds[name] = DELETE if name in shell.user_ns and rng.random() < 0.3 else rng.choice(makers)()
        for name, value in list(binds.items()):
            if value is DELETE and name not in shell.user_ns:
                del binds[name]
        if rng.random() < 0.2:  # a list grown in place: a change only its len shows
            lists = [n for n in pool if type(shell.user_ns.get(n)) is list]
            if lists:
                shell.user_ns[rng.choice(lists)].append(1)
        shell.run("cell", **binds)
        reply = snap(since_ec=since, delta=True, limit=PAGE)
        assert reply["delta"] is True
        assert all(v["change"] in ("new", "modified") for v in reply["variables"])
        _apply(held, reply)
        reference = snap(limit=PAGE)
        assert reply["total"] == reference["total"] == len(held)
        assert _view(held) == {v["name"]: tuple(v[k] for k in _COMPARED) for v in reference["variables"]}
        since = shell.execution_count - 1


def test_delta_after_one_change_carries_one_entry(shell):  # type: ignore[no-untyped-def]
    bind(shell, 10_000)
    since = shell.execution_count - 1
    shell.run("v0000005 = -1", v0000005=-1)
    reply = snap(since_ec=since, delta=True)
    assert reply["delta"] is True
    assert [v["name"] for v in reply["variables"]] == ["v0000005"]
    assert reply["variables"][0]["change"] == "modified"
    assert reply["total"] == 10_000
    assert reply["removed"] == []
    since = shell.execution_count - 1
    reply = snap(since_ec=since, delta=True)  # nothing since
    assert (reply["delta"], reply["variables"], reply["total"]) == (True, [], 10_000)


@pytest.mark.parametrize(
    ("case", "expected_delta"),
    [
        ("no since", False),
        ("more changed than limit", False),
        ("changed up to limit", True),
        ("removals the tracker may have dropped", False),
        ("removals it still holds", True),
    ],
)
def test_delta_or_a_full_page(shell, case, expected_delta):  # type: ignore[no-untyped-def]
    names = bind(shell, 2_000)
    since = shell.execution_count - 1
    request: dict[str, Any] = {"since_ec": since, "delta": True, "limit": 100}
    if case == "no since":
        del request["since_ec"]
    elif case == "more changed than limit":
        shell.run("rebind", **dict.fromkeys(names[:101], -1))
    elif case == "changed up to limit":
        shell.run("rebind", **dict.fromkeys(names[:100], -1))
    elif case == "removals the tracker may have dropped":
        shell.run("del", **dict.fromkeys(names[: MAX_REMOVED + 1], DELETE))
    else:
        shell.run("del", **dict.fromkeys(names[: MAX_REMOVED - 1], DELETE))
    reply = snap(**request)
    assert reply["delta"] is expected_delta
    assert reply["total"] == len(shell.user_ns) - len(Shell().user_ns) - (shell.execution_count - 1)
    if not expected_delta:  # a normal first page
        assert len(reply["variables"]) == min(100, reply["total"])


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_delta_must_be_a_boolean(shell, value):  # type: ignore[no-untyped-def]
    reply = entry.dispatch({"op": "snapshot", "delta": value, "since_ec": 0})
    if value is None:
        assert reply["ok"] is False and "delta" in reply["error"]
    else:
        assert reply == {"ok": False, "bad_request": True, "error": "Invalid snapshot request: delta must be true or false"}





def test_a_delta_costs_the_changes_not_the_namespace(shell, monkeypatch):  # type: ignore[no-untyped-def]
    bind(shell, 200_000)
    assert snap(limit=0)["total"] == 200_000
    since = shell.execution_count - 1
    shell.run("v0000007 = -1", v0000007=-1)
    tracker = entry._state.tracker
    looked: list[str] = []
    real = tracker.changed_at

    def counting(name: str) -> Any:
        looked.append(name)
        return real(name)

    monkeypatch.setattr(tracker, "changed_at", counting)
    reply = snap(since_ec=since, delta=True)
    assert reply["delta"] is True and reply["total"] == 200_000
    assert [v["name"] for v in reply["variables"]] == ["v0000007"]
    assert len(looked) <= 3  # the logged names, not 200,000


def test_a_delta_older_than_the_change_log_is_a_full_page(shell, monkeypatch):  # type: ignore[no-untyped-def]
    log = entry._state.tracker.change_log
    monkeypatch.setattr(log, "max_cells", 3)
    bind(shell, 10)
    since = shell.execution_count - 1
    for i in range(5):
        shell.run("cell", **{f"v000000{i}": -1 - i})
    reply = snap(since_ec=since, delta=True)
    assert reply["delta"] is False and reply["total"] == 10
    recent = snap(since_ec=shell.execution_count - 3, delta=True)
    assert recent["delta"] is True
    assert [v["name"] for v in recent["variables"]] == ["v0000003", "v0000004"]


def test_a_name_that_leaves_the_list_without_being_deleted_is_removed_in_the_delta(shell):  # type: ignore[no-untyped-def]
    import math

    shell.run("bind", a=1, b=2)
    since = shell.execution_count - 1
    shell.run("rebind", a=math)  # a module: hidden by default, still bound
    reply = snap(since_ec=since, delta=True)
    assert reply["delta"] is True
    assert reply["variables"] == [] and reply["removed"] == ["a"] and reply["total"] == 1
    with_modules = snap(since_ec=since, delta=True, include=["modules"])
    assert [v["name"] for v in with_modules["variables"]] == ["a"]
    assert with_modules["removed"] == []


@pytest.mark.parametrize(
    "count", [0, 1, 99_990, 100_000, pytest.param(1_000_000, marks=pytest.mark.scale)])
def test_timelines_memory_sort_and_delete_at_any_size(shell, count):  # type: ignore[no-untyped-def]
    """A cell binding ``count`` names; one changes, one is deleted: the timeline stays
    exact (a cell past the bound is "too many", said by ``complete_after``), memory sorts
    every name, and the delete is listed at once."""
    names = bind(shell, count)
    if count == 0:
        assert entry.dispatch({"op": "timeline", "name": "v0000000"})["not_found"] is True
        return
    shell.user_ns[names[-1]] = [1, 2, 3]
    ec = shell.run("change one")
    answer = entry.dispatch({"op": "timeline", "name": names[-1]})["timeline"]
    too_many = count >= 100_000  # with the cell's own `_i` names: past the 100,000 bound
    assert answer["complete_after"] == (ec - 1 if too_many else None)
    expected = [] if too_many else [(ec - 1, "new")]
    assert [(e["execution_count"], e["change"]) for e in answer["entries"]] == [
        *expected, (ec, "modified")]
    by_memory = snap(sort="memory", limit=1)["variables"]
    assert by_memory[0]["name"] == names[-1]  # the list is the largest value
    assert snap(sort="memory:asc", limit=1, offset=count - 1)["variables"][0]["name"] == names[-1]
    assert entry.dispatch({"op": "delete", "name": names[0]}) == {"deleted": names[0]}
    after = snap(limit=0)
    assert after["total"] == count - 1 and after["removed"] == [names[0]]
