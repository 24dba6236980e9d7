"""What a cell did inside a table, a series or an array, in the probe (no server): the
words of each kind of change, from the content fingerprints (``probe/changes/contents``),
on a stand-in shell whose cells run the real pandas, polars and numpy code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes import tracker as tracking
from jupyter_kernel_state.probe.changes.fingerprints import MAX_CHANGES

# pandas 3.1 deprecates ``inplace``; the cells here still use it, as notebooks do.
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")


def changes_of(shell: Any, name: str, code: str, mutate: Callable[[dict[str, Any]], Any]) -> list[str]:
    """Run ``mutate`` as the user's cell ``code``, then the list's changes of ``name``."""
    mutate(shell.user_ns)
    ec = shell.run(code)
    reply = entry.snapshot({"since_ec": ec - 1, "limit": 10_000})
    return {v["name"]: v for v in reply["variables"]}[name]["changes"]  # type: ignore[no-any-return]


def bind(shell: Any, value: Any) -> None:
    """``v = value`` as a cell, then the list shown after it (which takes the baseline)."""
    shell.run("v = ...", v=value)
    entry.snapshot({"limit": 100})


def hook_words(shell: Any, name: str) -> tuple[str, ...] | None:
    """What the hook (no snapshot) said of ``name`` at the last cell."""
    records = entry._state.tracker.records
    ec = shell.execution_count - 1
    return records.changes.get(name, ()) if records.changed_at.get(name) == ec else None


def frame() -> pd.DataFrame:
    return pd.DataFrame({
        "price": [10.0, 200.0, 150.0, np.nan, 50.0, 120.0],
        "units": [1, 2, 3, 4, 5, 6],
        "region": ["n", "s", "e", "w", "n", "s"],
    })


def scale_price(ns: dict[str, Any]) -> None:
    df = ns["v"]
    df.loc[df.price > 100, "price"] *= 2


def sort_inplace(ns: dict[str, Any]) -> None:
    ns["v"].sort_values("units", ascending=False, inplace=True)


def polars_set(ns: dict[str, Any]) -> None:
    ns["v"][0, "a"] = 10


def array_set(ns: dict[str, Any]) -> None:
    ns["v"][3] = 9.0


#: (id, the value before, the cell (its code, and what it does), the words of the list)
CASES: list[tuple[str, Callable[[], Any], str, Callable[[dict[str, Any]], Any], list[str]]] = [
    # pandas, in place
    ("loc-scale", frame, "v.loc[v.price > 100, 'price'] *= 2", scale_price,
     ["price: 3 values changed, mean 106 → 200"]),
    ("iloc-one", frame, "v.iloc[0, 1] = 100", lambda ns: ns["v"].iloc.__setitem__((0, 1), 100),
     ["units: 1 value changed, mean 3.5 → 20"]),
    ("fillna-inplace", frame, "v.fillna({'price': 0.0}, inplace=True)",
     lambda ns: ns["v"].fillna({"price": 0.0}, inplace=True),
     ["price: 1 value changed, mean 106 → 88.33, nulls 1 → 0"]),
    ("text-column", frame, "v.loc[0, 'region'] = 'x'", lambda ns: ns["v"].loc.__setitem__((0, "region"), "x"),
     ["region: 1 value changed"]),
    ("two-columns", frame, "v.iloc[0, :2] = [1.0, 7]", lambda ns: ns["v"].iloc.__setitem__((0, slice(0, 2)), [1.0, 7]),
     ["rows by position: 1 changed", "price: 1 value changed, mean 106 → 104.2",
      "units: 1 value changed, mean 3.5 → 4.5"]),
    ("drop-inplace", frame, "v.drop(index=[1, 2], inplace=True)", lambda ns: ns["v"].drop(index=[1, 2], inplace=True),
     ["rows 6 → 4", "price: mean 106 → 60", "units: mean 3.5 → 4"]),
    # pandas, rebound
    ("rebound-equal", frame, "v = v.copy()", lambda ns: ns.__setitem__("v", ns["v"].copy()),
     ["values unchanged"]),
    ("rebound-filter", frame, "v = v[v.units > 2]", lambda ns: ns.__setitem__("v", ns["v"][ns["v"].units > 2]),
     ["rows 6 → 4", "units: mean 3.5 → 4.5", "price: mean 106 → 106.7"]),  # named first
    ("rebound-dropna", frame, "v = v.dropna()", lambda ns: ns.__setitem__("v", ns["v"].dropna()),
     ["rows 6 → 5", "price: nulls 1 → 0", "units: mean 3.5 → 3.4"]),  # the same mean: not said
    ("rebound-appended", frame, "v = pd.concat([v, v.iloc[:2]], ignore_index=True)",
     lambda ns: ns.__setitem__("v", pd.concat([ns["v"], ns["v"].iloc[:2]], ignore_index=True)),
     ["rows 6 → 8", "2 rows appended", "price: mean 106 → 105.7", "units: mean 3.5 → 3"]),
    ("rebound-by-index", frame, "v = v.drop(index=[0]); v.loc[9] = ...; v.loc[5, 'units'] = 60",
     lambda ns: ns.__setitem__("v", ns["v"].drop(index=[0]).pipe(
         lambda d: pd.concat([d, pd.DataFrame({"price": [1.0], "units": [9], "region": ["z"]}, index=[9])])
     ).pipe(lambda d: d.assign(units=d.units.where(d.index != 5, 60)))),
     ["rows by index: 1 added, 1 removed, 1 changed", "units: 1 value changed, mean 3.5 → 13.83",
      "price: mean 106 → 104.2"]),
    ("rebound-by-key", lambda: pd.DataFrame({"id": [10, 11, 12, 13], "x": [1.0, 2.0, 3.0, 4.0]}),
     "v = v[v.id != 11] then a new id 20, and x of id 13 set to 0",
     lambda ns: ns.__setitem__("v", pd.DataFrame({"id": [10, 12, 13, 20], "x": [1.0, 3.0, 0.0, 5.0]})),
     ["rows by key id: 1 added, 1 removed, 1 changed", "x: 1 value changed, mean 2.5 → 2.25"]),
    # a series, with an index
    ("series-label", lambda: pd.Series([1.0, 2.0, 3.0], index=["a", "b", "c"]), "v['b'] = 20",
     lambda ns: ns["v"].__setitem__("b", 20.0), ["1 value changed at 'b', mean 2 → 8"]),
    ("series-range", lambda: pd.Series([1, 2, 3, 4]), "v.iloc[[0, 3]] = 0",
     lambda ns: ns["v"].iloc.__setitem__([0, 3], 0), ["2 values changed at [0], [3], mean 2.5 → 1.25"]),
    # polars
    ("polars-set", lambda: pl.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}), 'v[0, "a"] = 10', polars_set,
     ["a: 1 value changed, mean 2 → 5"]),
    ("polars-rebound", lambda: pl.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}),
     "v = v.with_columns(pl.col('b').str.to_uppercase())",
     lambda ns: ns.__setitem__("v", ns["v"].with_columns(pl.col("b").str.to_uppercase())),
     ["b: 3 values changed"]),
    ("polars-series", lambda: pl.Series("s", [1.0, None, 3.0]), "v = v.fill_null(0)",
     lambda ns: ns.__setitem__("v", ns["v"].fill_null(0)), ["1 value changed at [1], mean 2 → 1.333, nulls 1 → 0"]),
    # numpy
    ("array-one", lambda: np.arange(10.0), "v[3] = 9", array_set, ["1 value changed at [3], mean 4.5 → 5.1"]),
    ("array-2d", lambda: np.zeros((4, 5)), "v[2, 3] = 1", lambda ns: ns["v"].__setitem__((2, 3), 1.0),
     ["1 value changed at [2, 3], mean 0 → 0.05"]),
    ("array-many", lambda: np.arange(100), "v[v % 2 == 0] = 0", lambda ns: ns["v"].__setitem__(ns["v"] % 2 == 0, 0),
     ["49 values changed, mean 49.5 → 25"]),
    ("array-nan", lambda: np.arange(4.0), "v[1] = nan", lambda ns: ns["v"].__setitem__(1, np.nan),
     ["1 value changed at [1], mean 1.5 → 1.667, nulls 0 → 1"]),
    ("xarray", lambda: __import__("xarray").DataArray(np.arange(6.0).reshape(2, 3), dims=("x", "y")),
     "v[1, 2] = 50", lambda ns: ns["v"].__setitem__((1, 2), 50.0), ["1 value changed at [1, 2], mean 2.5 → 10"]),
    ("array-appended", lambda: np.arange(3), "v = np.append(v, 3)", lambda ns: ns.__setitem__("v", np.append(ns["v"], 3)),
     ["shape (3,) → (4,)", "1 value appended", "mean 1 → 1.5"]),
]


@pytest.mark.parametrize(("before", "code", "mutate", "expected"),
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_the_words_of_each_change(shell, before, code, mutate, expected):  # type: ignore[no-untyped-def]
    bind(shell, before())
    words = changes_of(shell, "v", code, mutate)
    assert words == expected
    assert len(words) <= MAX_CHANGES and all(len(w) <= 200 for w in words)
    timeline = entry._state.tracker.records.timeline.of("v")[0]
    assert timeline[-1]["changes"] == expected


@pytest.mark.filterwarnings("ignore:The inplace keyword")
def test_sort_values_in_place_reads_as_reordered(shell):  # type: ignore[no-untyped-def]
    bind(shell, frame())
    assert changes_of(shell, "v", "v.sort_values('units', inplace=True)", sort_inplace) == \
        ["rows by index: reordered"]


def test_reset_index_renumbers_and_changes_no_value(shell):  # type: ignore[no-untyped-def]
    bind(shell, frame().iloc[::-1])
    words = changes_of(shell, "v", "v = v.reset_index(drop=True)",
                       lambda ns: ns.__setitem__("v", ns["v"].reset_index(drop=True)))
    assert words == ["values unchanged"]  # the new default index says nothing: by position


def roomy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Time budgets no loaded machine runs out of: what is tested is which comparisons
    the hook makes, not how long they take (test_content_budget.py counts those)."""
    monkeypatch.setattr(tracking, "CONTENT_MS", 1000.0)
    monkeypatch.setattr(tracking, "TURN_MS", 1000.0)


def test_the_hook_says_it_in_the_cell_that_made_it(shell, monkeypatch):  # type: ignore[no-untyped-def]
    """No snapshot between the cells: the hook alone compares what the cell named."""
    roomy(monkeypatch)
    bind(shell, frame())
    scale_price(shell.user_ns)
    shell.run("v.loc[v.price > 100, 'price'] *= 2")
    assert hook_words(shell, "v") == ("price: 3 values changed, mean 106 → 200",)
    shell.run("other = 1", other=1)
    assert hook_words(shell, "v") is None  # nothing more at the next cell


def test_an_unnamed_change_is_found_in_turn(shell, monkeypatch):  # type: ignore[no-untyped-def]
    """A change the cell's code does not name (a function did it) is found in turn."""
    roomy(monkeypatch)
    bind(shell, frame())
    shell.user_ns["v"].iloc[0, 1] = 7
    shell.run("update()")
    assert hook_words(shell, "v") == ("units: 1 value changed, mean 3.5 → 4.5",)


def test_columns_past_the_room_are_counted(shell):  # type: ignore[no-untyped-def]
    bind(shell, pd.DataFrame({f"c{i}": np.arange(10.0) for i in range(8)}))
    words = changes_of(shell, "v", "v += 1", lambda ns: ns["v"].__iadd__(1))
    assert len(words) == MAX_CHANGES
    assert words[0] == "rows by position: 10 changed"
    assert words[1:4] == [f"c{i}: 10 values changed, mean 4.5 → 5.5" for i in range(3)]
    assert words[4] == "5 more columns changed"


def test_named_columns_come_first(shell):  # type: ignore[no-untyped-def]
    bind(shell, pd.DataFrame({f"c{i}": np.arange(10.0) for i in range(8)}))
    words = changes_of(shell, "v", "v['c6'] += 1; v['c7'] += 1; v['c0'] += 1",
                       lambda ns: [ns["v"].__setitem__(c, ns["v"][c] + 1) for c in ("c6", "c7", "c0")])
    assert words[1:] == [f"c{i}: 10 values changed, mean 4.5 → 5.5" for i in (0, 6, 7)]
