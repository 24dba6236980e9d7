"""Edges of the content fingerprints: empty and one-row tables, block boundaries, the size
threshold, NaN and -0.0, object, categorical, time-zoned and duplicate-labelled columns,
a MultiIndex — each as a cell on a stand-in shell (real pandas and numpy)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes import contents
from jupyter_kernel_state.probe.changes.contents import MIN_BLOCK_ROWS


def cell(shell: Any, code: str, mutate: Callable[[dict[str, Any]], Any] | None = None,
         name: str = "v") -> tuple[str, list[str]]:
    """Run a cell, then the list's change and changes of ``name``."""
    if mutate is not None:
        mutate(shell.user_ns)
    ec = shell.run(code)
    variable = {v["name"]: v for v in entry.snapshot({"since_ec": ec - 1})["variables"]}[name]
    return variable["change"], variable["changes"]


def bind(shell: Any, value: Any) -> None:
    shell.run("v = ...", v=value)
    entry.snapshot({"limit": 100})  # the baseline, as the list after the cell takes it


def setter(*key: Any, value: Any = None, via: str = "loc") -> Callable[[dict[str, Any]], Any]:
    def run(ns: dict[str, Any]) -> None:
        getattr(ns["v"], via).__setitem__(key if len(key) > 1 else key[0], value)
    return run


# --- sizes ------------------------------------------------------------------------------


def test_an_empty_table_then_one_row(shell):  # type: ignore[no-untyped-def]
    bind(shell, pd.DataFrame({"a": pd.Series([], dtype="float64")}))
    assert cell(shell, "v = v with a row", lambda ns: ns.__setitem__("v", pd.DataFrame({"a": [1.0]}))) == \
        ("modified", ["rows 0 → 1", "1 row appended", "a: mean none → 1"])


def test_a_one_row_table(shell):  # type: ignore[no-untyped-def]
    bind(shell, pd.DataFrame({"a": [1.0], "b": ["x"]}))
    assert cell(shell, "v.loc[0, 'a'] = 2", setter(0, "a", value=2.0)) == \
        ("modified", ["a: 1 value changed, mean 1 → 2"])
    assert cell(shell, "v.loc[0, 'a'] = 2", setter(0, "a", value=2.0)) == ("unchanged", [])


@pytest.mark.parametrize("rows", [MIN_BLOCK_ROWS - 1, MIN_BLOCK_ROWS, MIN_BLOCK_ROWS + 1])
def test_blocks_at_their_boundary(shell, monkeypatch, rows):  # type: ignore[no-untyped-def]
    """Without value words (a table past DETAIL_VALUES) a change is told by blocks: the
    last row is in the first block up to MIN_BLOCK_ROWS rows, in a second one after."""
    monkeypatch.setattr(contents, "DETAIL_VALUES", 0)
    bind(shell, pd.DataFrame({"a": np.arange(rows, dtype="int64")}))
    blocks = 1 if rows <= MIN_BLOCK_ROWS else 2
    _, words = cell(shell, "v.iloc[-1, 0] = -1", setter(-1, 0, value=-1, via="iloc"))
    assert words[0].startswith(f"a: values changed in 1 of {blocks} block")
    _, words = cell(shell, "v.iloc[0, 0] = -1", setter(0, 0, value=-1, via="iloc"))
    assert words[0].startswith(f"a: values changed in 1 of {blocks} block")


@pytest.mark.parametrize(("cells", "compared"), [(99, True), (100, True), (101, False)])
def test_the_size_threshold(shell, monkeypatch, cells, compared):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(contents, "MAX_COMPARED", 100)
    bind(shell, np.arange(cells, dtype="float64"))
    change = cell(shell, "v[0] = -1", lambda ns: ns["v"].__setitem__(0, -1.0))
    assert (change[0] == "modified") is compared
    rebound = cell(shell, "v = v + 1", lambda ns: ns.__setitem__("v", ns["v"] + 1))
    if compared:
        assert rebound[1][0].startswith(f"{cells:,} values changed, mean ")
    else:
        assert rebound == ("modified", [f"changed (not compared: {cells:,} values)"])


def test_a_table_past_the_threshold_says_so(shell, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(contents, "MAX_COMPARED", 1_000)
    bind(shell, pd.DataFrame({"a": np.arange(600.0), "b": np.arange(600.0)}))
    assert cell(shell, "v = v * 2", lambda ns: ns.__setitem__("v", ns["v"] * 2)) == \
        ("modified", ["changed (not compared: 600 rows)"])


# --- values -----------------------------------------------------------------------------


def test_nan_becoming_nan_and_minus_zero_are_no_change(shell):  # type: ignore[no-untyped-def]
    bind(shell, pd.DataFrame({"a": [np.nan, 0.0, 1.0]}))
    snan = np.frombuffer(np.array([0xFFF8000000000001], dtype=np.uint64).tobytes(), dtype=np.float64)[0]
    assert cell(shell, "v.loc[0, 'a'] = another nan", setter(0, "a", value=snan)) == ("unchanged", [])
    assert cell(shell, "v.loc[1, 'a'] = -0.0", setter(1, "a", value=-0.0)) == ("unchanged", [])
    assert cell(shell, "v.loc[0, 'a'] = 5", setter(0, "a", value=5.0))[1] == \
        ["a: 1 value changed, mean 0.5 → 2, nulls 1 → 0"]


def test_object_columns_compare_identities(shell):  # type: ignore[no-untyped-def]
    tags = [["a"], ["b"], ["c"]]
    bind(shell, pd.DataFrame({"tags": pd.Series(tags, dtype=object)}))
    assert cell(shell, "v.at[0, 'tags'] = ['z']", setter(0, "tags", value=["z"], via="at")) == \
        ("modified", ["tags: 1 object replaced"])
    # an element changed in place is the same object: not seen (docs/rest-api.md says so)
    assert cell(shell, "v.tags[1].append('x')", lambda ns: ns["v"]["tags"][1].append("x")) == ("unchanged", [])


def test_categorical_values_follow_their_categories(shell):  # type: ignore[no-untyped-def]
    bind(shell, pd.DataFrame({"c": pd.Categorical(["x", "y", "x"])}))
    renamed = cell(shell, "v['c'] = v.c.cat.rename_categories({'x': 'z'})",
                   lambda ns: ns["v"].__setitem__("c", ns["v"]["c"].cat.rename_categories({"x": "z"})))
    assert renamed == ("modified", ["c: 2 values changed"])
    unused = cell(shell, "v['c'] = v.c.cat.add_categories(['w'])",
                  lambda ns: ns["v"].__setitem__("c", ns["v"]["c"].cat.add_categories(["w"])))
    assert unused == ("unchanged", [])  # no value changed (the dtype's text is the same)
    assert cell(shell, "v.loc[1, 'c'] = 'w'", setter(1, "c", value="w"))[1] == ["c: 1 value changed"]
    assert cell(shell, "v.loc[2, 'c'] = None", setter(2, "c", value=None))[1] == \
        ["c: 1 value changed, nulls 0 → 1"]


def test_datetimes_with_a_time_zone(shell):  # type: ignore[no-untyped-def]
    bind(shell, pd.DataFrame({"t": pd.date_range("2024-01-01", periods=4, freq="h", tz="Europe/Paris")}))
    assert cell(shell, "v.loc[1, 't'] = v.t[0]", lambda ns: ns["v"].loc.__setitem__((1, "t"), ns["v"]["t"][0]))[1] == \
        ["t: 1 value changed"]
    assert cell(shell, "v.loc[2, 't'] = pd.NaT", setter(2, "t", value=pd.NaT))[1] == \
        ["t: 1 value changed, nulls 0 → 1"]
    before = str(shell.user_ns["v"]["t"].dtype)
    converted = cell(shell, "v['t'] = v.t.dt.tz_convert('UTC')",
                     lambda ns: ns["v"].__setitem__("t", ns["v"]["t"].dt.tz_convert("UTC")))
    after = before.replace("Europe/Paris", "UTC")
    assert converted == ("modified", [f"column t dtype {before} → {after}"])  # the same instants


def test_duplicate_column_labels_stay_apart(shell):  # type: ignore[no-untyped-def]
    frame = pd.DataFrame(np.zeros((3, 2)), columns=["a", "a"])
    bind(shell, frame)
    assert cell(shell, "v.iloc[0, 1] = 1", setter(0, 1, value=1.0, via="iloc"))[1] == \
        ["a: 1 value changed, mean 0 → 0.3333"]
    entries = entry._state.tracker.records.contents.facts["v"].columns
    assert list(entries) == [("a", 0), ("a", 1)]
    assert entries[("a", 0)].mean == 0 and entries[("a", 1)].mean == pytest.approx(1 / 3)


def test_a_multiindex_matches_rows_by_its_labels(shell):  # type: ignore[no-untyped-def]
    index = pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1), ("b", 2)])
    bind(shell, pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}, index=index))
    change = cell(shell, "v = v.drop(('a', 2)) with ('b', 1) set to 30 and a row ('c', 1)",
                  lambda ns: ns.__setitem__("v", pd.DataFrame(
                      {"x": [1.0, 30.0, 4.0, 5.0]},
                      index=pd.MultiIndex.from_tuples([("a", 1), ("b", 1), ("b", 2), ("c", 1)]))))
    assert change == ("modified", ["rows by index: 1 added, 1 removed, 1 changed",
                                   "x: 1 value changed, mean 2.5 → 10"])


def test_masked_integers(shell):  # type: ignore[no-untyped-def]
    bind(shell, pd.DataFrame({"n": pd.array([1, None, 3], dtype="Int64")}))
    assert cell(shell, "v.loc[1, 'n'] = 2", setter(1, "n", value=2))[1] == \
        ["n: 1 value changed, nulls 1 → 0"]  # the mean of 1, 2, 3 is that of 1 and 3
    assert cell(shell, "v.loc[0, 'n'] = pd.NA", setter(0, "n", value=pd.NA))[1] == \
        ["n: 1 value changed, mean 2 → 2.5, nulls 0 → 1"]
