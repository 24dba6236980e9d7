"""The probe runs in the kernel and cannot import the server package, so it repeats a few
of the server's values. Each copy is tied to its source here (the request bounds and
defaults: test_protocol.py)."""

from __future__ import annotations

from jupyter_kernel_state.probe import records, summary, tracking


def test_one_rule_for_held_values_and_removed_names() -> None:
    assert tracking.HELD_TYPES is summary.HELD_TYPES
    assert tracking.HELD_TEXT is summary.HELD_TEXT
    assert tracking.MAX_HELD_TEXT == summary.MAX_HELD_TEXT
    assert records.MAX_REMOVED == tracking.MAX_REMOVED
