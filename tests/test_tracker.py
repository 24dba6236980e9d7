"""ExecutionTracker on crafted IOPub sequences: the cases real kernels produce only under a
flood (lost messages) or with side channels; normal sequences are covered with real
kernels in test_variables_routes.py and test_faults.py."""

from __future__ import annotations

import pytest

from jupyter_kernel_state.service.tracker import ExecutionTracker


def status(state, parent, parent_type="execute_request"):  # type: ignore[no-untyped-def]
    return {"header": {"msg_type": "status"},
            "parent_header": {"msg_id": parent, "msg_type": parent_type} if parent else {},
            "content": {"execution_state": state}}


def run(tracker, events):  # type: ignore[no-untyped-def]
    for event in events:
        own = event[0] == "own"
        tracker.handle(status(*event[1:]) if own else status(*event), own)


@pytest.mark.parametrize(
    ("events", "generation", "busy", "lost"),
    [
        ([("busy", "a"), ("idle", "a")], 1, False, 0),
        ([("busy", "a")], 0, True, 0),
        # a's idle lost; b's busy proves a finished
        ([("busy", "a"), ("busy", "b")], 1, True, 1),
        ([("busy", "a"), ("busy", "b"), ("idle", "b")], 2, False, 1),
        # a's idle lost, then our own probe runs: a is over, and the probe is no execution
        ([("busy", "a"), ("own", "busy", "p"), ("own", "idle", "p")], 1, False, 1),
        # a debug request on the control channel runs beside the cell: a is still busy
        ([("busy", "a"), ("busy", "d", "debug_request"), ("idle", "d", "debug_request")],
         0, True, 0),
        # kernel_info on shell is not an execution
        ([("busy", "k", "kernel_info_request"), ("idle", "k", "kernel_info_request")],
         0, False, 0),
        ([("busy", "a"), ("starting", None)], 0, False, 0),
    ],
)
def test_sequences(events, generation, busy, lost) -> None:  # type: ignore[no-untyped-def]
    tracker = ExecutionTracker()
    run(tracker, events)
    assert (tracker.generation, tracker.busy, tracker.lost_idles) == (generation, busy, lost)


def test_own_kernel_info_statuses_order_like_executions() -> None:
    tracker = ExecutionTracker()
    run(tracker, [("busy", "a"), ("own", "busy", "k", "kernel_info_request"),
                  ("own", "idle", "k", "kernel_info_request")])
    assert (tracker.generation, tracker.busy, tracker.lost_idles) == (1, False, 1)


def test_a_cell_lost_before_the_new_subscription_was_live_moves_the_generation() -> None:
    """After a gap the first idle proves IOPub live: the cell that may have run unseen
    before it counts, even though its busy and idle never arrived."""
    tracker = ExecutionTracker()
    tracker.resume_unseen()
    after_gap = tracker.generation
    assert tracker.busy
    # our own kernel_info_request's statuses: the first ones the new wire sees
    assert tracker.handle(status("busy", "ours"), True) is False
    assert tracker.handle(status("idle", "ours"), True) is True
    assert tracker.generation == after_gap + 1 and not tracker.busy
    # later idles of our own requests do not move it
    tracker.handle(status("busy", "again"), True)
    assert tracker.handle(status("idle", "again"), True) is False
    assert tracker.generation == after_gap + 1
