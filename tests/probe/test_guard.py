"""The time guard where its alarm lands in code that cannot raise: a weakref callback or a
``__del__`` run by the garbage collector while a guarded call runs.  Python reports such
an exception as "unraisable" (and pytest turns that into a failure); the alarm is the
probe's, not the user's, so the guard keeps it out of ``sys.unraisablehook`` — and still
ends the guarded call, by its re-fire — while anything else unraisable goes on to the
hook that was there before."""

from __future__ import annotations

import sys
import time
import weakref
from typing import Any

import pytest

from jupyter_kernel_state.probe import guard


class _Thing:
    pass


def _slow_callback(_ref: Any) -> None:
    ends = time.perf_counter() + 0.2
    while time.perf_counter() < ends:  # the alarm fires in here
        pass


def _drop_in_a_slow_callback() -> None:
    thing = _Thing()
    kept = weakref.ref(thing, _slow_callback)
    del thing  # the callback runs now, past the 20 ms guard
    time.sleep(2)  # the re-fire ends the call here
    assert kept  # pragma: no cover - not reached


@pytest.fixture
def reported(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    seen: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_type))
    return seen


def test_an_alarm_inside_a_gc_callback_is_not_reported_and_still_ends_the_call(
        reported: list[Any]) -> None:
    hook = sys.unraisablehook
    with guard.GuardSession(per_value_ms=20, budget_ms=5_000) as session:
        started = time.perf_counter()
        with pytest.raises(guard.ProbeTimeout):
            session.run(_drop_in_a_slow_callback)
        assert time.perf_counter() - started < 1.5  # the re-fire, not the sleep
    assert session.timeouts >= 2  # the one swallowed in the callback, then the re-fire
    assert reported == []
    assert sys.unraisablehook is hook  # restored on exit


def test_another_unraisable_error_still_reaches_the_previous_hook(reported: list[Any]) -> None:
    def failing(_ref: Any) -> None:
        raise ValueError("the user's own")

    def drop() -> int:
        thing = _Thing()
        kept = weakref.ref(thing, failing)
        del thing
        return 0 if kept() is None else 1

    with guard.GuardSession(per_value_ms=1_000, budget_ms=5_000) as session:
        assert session.run(drop) == 0
    assert reported == [ValueError]


def test_a_nested_session_leaves_the_hook_to_the_outer_one(reported: list[Any]) -> None:
    hook = sys.unraisablehook
    with guard.GuardSession() as outer:
        mine = sys.unraisablehook
        assert mine is not hook
        with guard.GuardSession():
            assert sys.unraisablehook is mine
        assert sys.unraisablehook is mine and outer.active
    assert sys.unraisablehook is hook
