"""A preview is never older than the value it describes: the summary cache reuses a kept
summary only while the change tracker's token for the value (its content changes seen,
the digest of what its preview shows) is the same — whatever the hook had time for."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes import tracker as tracking


def preview(name: str) -> str:
    return {v["name"]: v for v in entry.snapshot({"limit": 10_000})["variables"]}[name]["preview"]  # type: ignore[no-any-return]


@pytest.fixture
def blind_hook(monkeypatch):  # type: ignore[no-untyped-def]
    """A hook that has no time for content and fingerprints one value per cell: what the
    cache sees is all the snapshot has to go on."""
    monkeypatch.setattr(tracking, "CONTENT_MS", 0.0)
    monkeypatch.setattr(tracking, "DEEP_BUDGET", 1)


CASES: list[tuple[str, Any, str, Any, str]] = [
    ("ndarray", lambda: np.arange(5), "v[0] = 99", lambda v: v.__setitem__(0, 99), "[99, 1, 2, 3, 4]"),
    ("ndarray-2d", lambda: np.zeros((2, 3), dtype=int), "v[1, 2] = 7", lambda v: v.__setitem__((1, 2), 7),
     "[[0, 0, 0], [0, 0, 7]]"),
    ("series", lambda: pd.Series([1, 2, 3]), "v.iloc[0] = 99", lambda v: v.iloc.__setitem__(0, 99), "[99, 2, 3]"),
    ("series-index", lambda: pd.Series([1, 2], index=["a", "b"]), "v['b'] = 5", lambda v: v.__setitem__("b", 5),
     "{'a': 1, 'b': 5}"),
    ("polars-series", lambda: pl.Series("s", [1, 2, 3]), "v[0] = 99", lambda v: v.__setitem__(0, 99), "[99, 2, 3]"),
    ("nested-dict", lambda: {"db": {"host": "h", "port": 1}}, "v['db']['host'] = 'k'",
     lambda v: v["db"].__setitem__("host", "k"), "{'db': {'host': 'k', 'port': 1}}"),
    ("list-of-lists", lambda: [[1, 2], [3, 4]], "v[1][0] = 9", lambda v: v[1].__setitem__(0, 9), "[[1, 2], [9, 4]]"),
    ("dict-fifth-value", lambda: {k: 0 for k in "abcdef"}, "v['e'] = 1", lambda v: v.__setitem__("e", 1),
     "{'a': 0, 'b': 0, 'c': 0, 'd': 0, 'e': 1, 'f': 0}"),
]


@pytest.mark.parametrize(("make", "code", "mutate", "expected"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_a_preview_after_an_in_place_change(shell, blind_hook, make, code, mutate, expected):  # type: ignore[no-untyped-def]
    shell.run("v = ...", v=make(), **{f"pad{i}": [i] for i in range(20)})  # more than the turn
    shell.run("pass")
    shell.run("pass")  # the turn (one value a cell) has moved past v
    before = preview("v")
    assert before != expected
    mutate(shell.user_ns["v"])
    shell.run(code)
    assert preview("v") == expected


def test_a_change_outside_a_cell_shows_at_the_next_snapshot(shell):  # type: ignore[no-untyped-def]
    """A widget callback or a thread changed the array after the last cell: no hook ran,
    the next list shows the new values anyway."""
    shell.run("arr = np.arange(3)", arr=np.arange(3))
    assert preview("arr") == "[0, 1, 2]"
    shell.user_ns["arr"][0] = 99
    assert preview("arr") == "[99, 1, 2]"


def test_unchanged_values_keep_their_summaries(shell):  # type: ignore[no-untyped-def]
    """The token costs a digest of the preview's items, not a new summary."""
    shell.run("values", arr=np.arange(1000), nested={"a": {"b": [1, 2]}}, frame=pd.DataFrame({"a": [1]}))
    entry.snapshot({"limit": 100})
    cache = entry._state.cache
    misses = cache.misses
    for _ in range(3):
        shell.run("pass")
        entry.snapshot({"limit": 100})
    assert cache.misses == misses


def test_the_detail_is_built_from_the_value(shell):  # type: ignore[no-untyped-def]
    shell.run("arr = ...", arr=np.arange(3))
    assert entry.detail({"name": "arr"})["variable"]["preview"] == "[0, 1, 2]"
    shell.user_ns["arr"][1] = 42
    shell.run("arr[1] = 42")
    assert entry.detail({"name": "arr"})["variable"]["preview"] == "[0, 42, 2]"
