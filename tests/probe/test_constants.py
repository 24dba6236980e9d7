"""The probe runs in the kernel and cannot import the server package, so it repeats a few
of the server's values; and two of its parts must follow one rule. Each copy is tied to
its source here (the request bounds and defaults: test_protocol.py)."""

from __future__ import annotations

from jupyter_kernel_state.probe.changes import records
from jupyter_kernel_state.probe.inspect import cache, static


def test_one_rule_for_held_values() -> None:
    """The change tracker holds (and compares by value) what the summary cache holds."""
    assert records.HELD_TYPES is cache.HELD_TYPES
    assert records.HELD_TEXT is cache.HELD_TEXT
    assert records.MAX_HELD_TEXT is cache.MAX_HELD_TEXT
    assert records.HELD_OR_TEXT == cache.HELD_TYPES | cache.HELD_TEXT


def test_one_list_of_types_whose_len_is_c_code() -> None:
    assert records.LEN_TYPES is static.LEN_TYPES
    assert records.LEN_DESCRIBED == static.LEN_TYPES - cache.HELD_TEXT


def test_the_ops_list_removed_names_within_the_trackers_bound() -> None:
    from jupyter_kernel_state.probe.ops import digest, snapshot

    assert snapshot.MAX_REMOVED is records.MAX_REMOVED is digest.MAX_REMOVED
