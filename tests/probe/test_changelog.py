"""The change log: exact answers or None, within its bounds."""

from __future__ import annotations

import pytest

from jupyter_kernel_state.probe.changes.logs import ChangeLog


@pytest.mark.parametrize(
    ("adds", "since", "limit", "expected"),
    [
        ([], 0, 10, []),
        ([(1, ["a"])], 0, 10, ["a"]),
        ([(1, ["a"])], 1, 10, []),
        ([(1, ["a"]), (2, ["b", "a"])], 0, 10, ["a", "b"]),
        ([(1, ["a"]), (2, ["b"])], 1, 10, ["b"]),
        ([(1, ["a", "b"])], 0, 1, None),  # more than limit
        ([(1, ["a", "b"])], 0, 2, ["a", "b"]),  # exactly limit
        ([(3, ["c"]), (3, ["d"])], 2, 10, ["c", "d"]),  # one execution, two adds
        ([(None, ["x"]), (1, [])], 0, 10, []),  # nothing to log
    ],
)
def test_since(adds, since, limit, expected):  # type: ignore[no-untyped-def]
    log = ChangeLog()
    for ec, names in adds:
        log.add(ec, names)
    got = log.since(since, limit)
    assert (sorted(got) if got is not None else None) == expected


def test_dropped_executions_make_earlier_questions_unanswerable() -> None:
    log = ChangeLog(max_cells=3, max_names=100)
    for ec in range(1, 6):
        log.add(ec, [f"n{ec}"])
    assert log.complete_after == 2
    assert log.since(1, 10) is None
    assert sorted(log.since(2, 10) or []) == ["n3", "n4", "n5"]
    assert log.since(4, 10) == ["n5"]


def test_too_many_names_in_one_execution() -> None:
    log = ChangeLog(max_cells=10, max_names=5)
    log.add(1, ["a"])
    log.add(2, [f"b{i}" for i in range(6)])  # more than the log holds
    log.add(3, ["c"])
    assert log.since(2, 100) == ["c"]
    assert log.since(1, 100) is None  # execution 2 changed more than was kept
    assert log.names_held <= 5


def test_names_bound_stays_within_max_names() -> None:
    log = ChangeLog(max_cells=100, max_names=10)
    for ec in range(1, 30):
        log.add(ec, ["x", "y", "z"])
        assert log.names_held <= 10
    assert log.since(log.complete_after or 0, 100) is not None
