"""The probe's ``rows`` op on every kind of table, at the edges: a case table of values and
requests with the expected window (or refusal)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
import xarray as xr

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.protocol import DEFAULT_MAX_COLUMNS, DEFAULT_MAX_ROWS

frame = pd.DataFrame({"a": [3, 1, 2], "b": ["x", None, "z"]})
empty = pd.DataFrame()
no_rows = pd.DataFrame({"a": pd.Series([], dtype="int64")})
structured = np.array([(1, 2.5), (2, np.nan)], dtype=[("id", "i4"), ("score", "f8")])
coords = xr.DataArray(np.arange(6).reshape(2, 3), dims=("t", "x"),
                      coords={"t": pd.to_datetime(["2024-01-01", "2024-01-02"]), "x": [10, 20, 30]})


class DaskLike:
    """Stands for a dask collection: only its module is read."""


DaskLike.__module__ = "dask.dataframe.core"


def window(value: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": "rows", "name": "v", **request}, {"v": value})
    return reply.get("rows", reply)


def view(sort: str | None = None, desc: bool = False, where: Any = None) -> dict[str, Any]:
    """A request's ``view``: sorted by column ``sort``, filtered by ``where``."""
    keys = [] if sort is None else [{"column": sort, "desc": desc}]
    return {"view": {"sort": keys, "filter": where}}


CASES = [
    # (id, value, request, expected subset of the window)
    ("frame", frame, {}, {"total_rows": 3, "shape": [3, 2], "rows": [["3", "x"], ["1", None], ["2", "z"]],
                          "index": ["0", "1", "2"]}),
    ("frame-limit-1", frame, {"limit": 1}, {"rows": [["3", "x"]], "limit": 1}),
    ("frame-offset-last", frame, {"offset": 2}, {"rows": [["2", "z"]]}),
    ("frame-offset-at-end", frame, {"offset": 3}, {"rows": [], "index": []}),
    ("frame-offset-past-end", frame, {"offset": 10**9}, {"rows": [], "total_rows": 3}),
    ("frame-sort-asc", frame, view("a"), {"index": ["1", "2", "0"], "sort": "a:asc"}),
    ("frame-sort-desc", frame, view("a", desc=True), {"index": ["0", "2", "1"]}),
    ("frame-sort-nulls-last", frame, view("b", desc=True), {"index": ["2", "0", "1"]}),
    ("frame-one-column", frame, {"columns": [1]}, {"rows": [["x"], [None], ["z"]],
                                                   "columns": [{"name": "b", "dtype": str(frame.dtypes["b"]),
                                                                "position": 1}]}),
    ("frame-column-range", frame, {"column_start": 1, "column_stop": 5}, {"rows": [["x"], [None], ["z"]]}),
    ("frame-column-range-past", frame, {"column_start": 5, "column_stop": 9}, {"columns": [], "rows": [[], [], []]}),
    ("empty-frame", empty, {}, {"total_rows": 0, "columns_total": 0, "rows": []}),
    ("no-rows", no_rows, {}, {"total_rows": 0, "columns_total": 1, "rows": []}),
    ("series", pd.Series([1.5, None], name="s"), {}, {"kind": "series", "rows": [["1.5"], [None]]}),
    ("series-unnamed", pd.Series([1]), {}, {"columns": [{"name": "value", "dtype": "int64", "position": 0}]}),
    ("ndarray-1d", np.array([1.0, np.nan, 2.5]), {}, {"kind": "array", "rows": [["1.0"], [None], ["2.5"]]}),
    ("ndarray-1d-sort-desc", np.array([1.0, np.nan, 2.5]), view("value", desc=True),
     {"index": ["2", "0", "1"]}),
    ("ndarray-2d", np.arange(6).reshape(2, 3), {"columns": [2]}, {"rows": [["2"], ["5"]], "shape": [2, 3]}),
    ("ndarray-bool", np.array([True, False]), {}, {"rows": [["True"], ["False"]]}),
    ("ndarray-empty", np.zeros((0, 4)), {}, {"total_rows": 0, "columns_total": 4, "rows": []}),
    ("structured", structured, {}, {"columns": [{"name": "id", "dtype": "int32", "position": 0},
                                                {"name": "score", "dtype": "float64", "position": 1}],
                                    "rows": [["1", "2.5"], ["2", None]]}),
    ("datetime64", np.array(["2024-10-02", "NaT"], dtype="datetime64[ns]"), {}, {"rows": [["2024-10-02"], [None]]}),
    ("xarray-coords", coords, {}, {"index": ["2024-01-01", "2024-01-02"],
                                   "columns": [{"name": "10", "dtype": "int64", "position": 0},
                                               {"name": "20", "dtype": "int64", "position": 1},
                                               {"name": "30", "dtype": "int64", "position": 2}],
                                   "index_name": "t"}),
    ("polars", pl.DataFrame({"x": [2, None, 1]}), view("x"), {"rows": [["1"], ["2"], [None]]}),
    ("polars-series", pl.Series("p", [1, 2]), {"offset": 1}, {"rows": [["2"]], "index": ["1"]}),
    ("records", [{"a": 1}, {"a": 2, "b": 3}], {}, {"kind": "records", "rows": [["1", None], ["2", "3"]]}),
    ("records-sort", [{"a": 2}, {"a": None}, {"a": 1}], view("a"), {"index": ["2", "0", "1"]}),
    ("ragged-tuples", [(1,), (2, 3)], {}, {"rows": [["1", None], ["2", "3"]]}),
    ("plain-list", ["x", 1, None], {}, {"rows": [["x"], ["1"], [None]]}),
    ("empty-list", [], {}, {"total_rows": 0, "rows": []}),
    ("range-is-not-a-table", range(3), {}, {"bad_request": True}),
    ("long-cell", ["y" * 500], {"cell_chars": 10}, {"cells_truncated": 1}),
    ("3d-array", np.zeros((2, 2, 2)), {}, {"bad_request": True}),
    ("int", 5, {}, {"bad_request": True}),
    ("dict", {"a": 1}, {}, {"bad_request": True}),
    ("dask", DaskLike(), {}, {"lazy": True}),
    ("generator", (i for i in range(3)), {}, {"lazy": True}),
    ("iterator", iter([1, 2]), {}, {"lazy": True}),
    ("map", map(str, [1]), {}, {"lazy": True}),
    ("limit-0", frame, {"limit": 0}, {"bad_request": True}),
    ("limit-max", frame, {"limit": DEFAULT_MAX_ROWS}, {"limit": DEFAULT_MAX_ROWS}),
    ("limit-max+1", frame, {"limit": DEFAULT_MAX_ROWS + 1}, {"bad_request": True}),
    ("columns-empty-list", frame, {"columns": []}, {"bad_request": True}),
    ("columns-too-many", frame, {"columns": list(range(DEFAULT_MAX_COLUMNS + 1))}, {"bad_request": True}),
    ("column-out-of-range", frame, {"columns": [2]}, {"bad_request": True}),
    ("sort-unknown", frame, view("zz"), {"bad_request": True}),
    ("filter-gt", frame, view(where={"column": "a", "op": "gt", "value": "1"}),
     {"index": ["0", "2"], "filtered_rows": 2}),
    ("filter-and-sort", frame, view("a", where={"column": "a", "op": "gt", "value": "1"}), {"index": ["2", "0"], "filtered_rows": 2}),
    ("filter-none-kept", frame, view(where={"column": "a", "op": "gt", "value": "9"}),
     {"rows": [], "filtered_rows": 0, "total_rows": 3}),
    ("filter-contains-text", frame, view(where={"column": "b", "op": "contains", "value": "X"}),
     {"index": ["0"]}),
    ("filter-isnull", frame, view(where={"column": "b", "op": "isnull"}), {"index": ["1"]}),
    ("filter-numpy", np.array([5, 1, 3]), view(where={"column": "value", "op": "le", "value": "3"}),
     {"index": ["1", "2"]}),
    ("filter-records", [{"a": 1}, {"a": None}, {"a": 3}],
     view(where={"column": "a", "op": "notnull"}), {"index": ["0", "2"]}),
    ("filter-polars", pl.DataFrame({"x": ["ab", None, "AB"]}),
     view(where={"column": "x", "op": "contains", "value": "b"}), {"index": ["0", "2"]}),
    ("filter-bad-value", frame, view(where={"column": "a", "op": "gt", "value": "x"}),
     {"bad_request": True}),
    ("filter-bad-op", frame, view(where={"column": "a", "op": "~", "value": "x"}),
     {"bad_request": True}),
    ("filter-not-an-object", frame, view(where="a > 1"), {"bad_request": True}),
    ("sort-by-position", frame, {"view": {"sort": [{"column": 0, "desc": True}]}},
     {"index": ["0", "2", "1"], "sort": "0:desc"}),
    ("position-out-of-range", frame, view(where={"column": 5, "op": "isnull"}), {"bad_request": True}),
    ("view-echoed", frame, view("a", where={"column": "b", "op": "notnull"}),
     {"view": {"sort": [{"column": "a", "desc": False}], "filter": {"column": "b", "op": "notnull", "value": None}},
      "sort": "a:asc", "filter": {"column": "b", "op": "notnull", "value": None}, "index": ["2", "0"]}),
    ("no-view-echoed", frame, {}, {"view": {"sort": [], "filter": None}, "sort": None, "filter": None,
                                   "filtered_rows": None}),
    ("two-sort-keys", pd.DataFrame({"a": [2, 1, 2, 1], "b": ["x", "y", "a", None]}),
     {"view": {"sort": [{"column": "a", "desc": True}, {"column": "b"}]}},
     {"index": ["2", "0", "1", "3"], "sort": "a:desc,b:asc"}),
    ("filter-tree", frame, view(where={"or": [{"column": "a", "op": "eq", "value": 3},
                                              {"column": "b", "op": "isnull"}]}),
     {"index": ["0", "1"], "filtered_rows": 2}),
    ("eleven-sort-keys", frame, {"view": {"sort": [{"column": "a"}] * 11}}, {"bad_request": True}),
]


@pytest.mark.parametrize(("value", "request_", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_rows_case_table(value: Any, request_: dict[str, Any], expected: dict[str, Any]) -> None:
    got = window(value, **request_)
    for key, want in expected.items():
        if key == "cells_truncated":
            assert got[key] == want and all(len(c or "") <= 10 for r in got["rows"] for c in r)
        else:
            assert got.get(key) == want, (key, got)


def test_a_lazy_value_is_never_consumed() -> None:
    gen = (i for i in range(3))
    assert window(gen)["lazy"] is True
    assert next(gen) == 0


class SlowILoc(pd.DataFrame):
    @property
    def iloc(self):  # type: ignore[no-untyped-def, override]
        time.sleep(5)


class RaisingLen(list):  # type: ignore[type-arg]
    def __len__(self) -> int:
        raise ValueError("no")


class Weird:
    def __repr__(self) -> str:
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (SlowILoc({"a": [1]}), "Reading rows of v (SlowILoc) timed out"),
        (RaisingLen([1, 2]), "reading rows raised ValueError"),
    ],
)
def test_hostile_tables_are_refused_in_time(value: Any, words: str) -> None:
    started = time.monotonic()
    got = window(value, time_guard_ms=200)
    assert got["unprocessable"] is True and words in got["error"]
    assert time.monotonic() - started < 2


def test_a_hostile_cell_is_marked_not_fatal() -> None:
    got = window([Weird(), 1])
    assert got["rows"][0][0].startswith("<Weird object: repr raised RuntimeError")
    assert got["rows"][1] == ["1"]


def test_a_sort_is_kept_for_paging_and_dropped_after_a_cell() -> None:
    ns = {"v": pd.DataFrame({"a": np.arange(1000)[::-1]})}
    state = entry._state
    request = {"op": "rows", "name": "v", **view("a"), "limit": 10}
    first = entry.dispatch(request, ns)["rows"]
    assert first["rows"][0] == ["0"] and len(state.row_orders.orders) == 1
    entry.dispatch({**request, "offset": 10}, ns)
    assert len(state.row_orders.orders) == 1  # the same order, reused
    entry.dispatch({**request, **view("a", desc=True)}, ns)
    entry.dispatch({**request, **view("a"), "offset": 20}, ns)
    assert len(state.row_orders.orders) == 2  # bounded: the two last sorts


class SlowRepr:
    def __repr__(self) -> str:
        time.sleep(5)
        return "late"


def test_slow_cells_are_marked_and_the_window_ends_in_time() -> None:
    started = time.monotonic()
    got = window([SlowRepr(), 1] * 50, cell_guard_ms=20, budget_ms=500, limit=100)
    assert time.monotonic() - started < 5  # a hang guard: 10x the budget
    assert got["rows"][0][0] == "<SlowRepr object: repr timed out>"
    assert got["rows"][1] == ["1"]  # plain values need no time
    assert got["cells_unread"] == 50
    assert any(r[0] == "<SlowRepr object: not read: time budget exhausted>" for r in got["rows"])


def test_huge_ints_are_bounded() -> None:
    got = window([10 ** 5000], cell_chars=50)
    assert len(got["rows"][0][0]) <= 50 and got["cells_truncated"] == 1
