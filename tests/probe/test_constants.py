"""The probe runs in the kernel and cannot import the server package, so it repeats a few
of the server's values. Each copy is tied to its source here."""

from __future__ import annotations

from jupyter_kernel_state.probe import entry, summary, tracking
from jupyter_kernel_state.service import Limits, queries


def test_probe_defaults_are_the_servers() -> None:
    limits = Limits()
    assert limits.page_size == entry.DEFAULT_LIMIT
    assert limits.preview_chars == entry.DEFAULT_PREVIEW
    assert limits.time_guard_ms == entry.DEFAULT_GUARD_MS
    assert limits.probe_budget_ms == entry.DEFAULT_BUDGET_MS
    # The probe's budget for user code stays well inside the server's deadline.
    assert limits.probe_timeout > entry.DEFAULT_BUDGET_MS / 1000


def test_probe_choices_are_the_servers() -> None:
    assert frozenset(queries.INCLUDE_CHOICES) == entry.INCLUDE_GROUPS
    assert frozenset(queries.SORT_CHOICES) == entry.SORTS
    assert entry.MAX_FILTER_CHARS == queries.MAX_FILTER_CHARS


def test_one_rule_for_held_values_and_removed_names() -> None:
    assert tracking.HELD_TYPES is summary.HELD_TYPES
    assert tracking.HELD_TEXT is summary.HELD_TEXT
    assert tracking.MAX_HELD_TEXT == summary.MAX_HELD_TEXT
    assert entry.MAX_REMOVED == tracking.MAX_REMOVED
