"""Every table in memory (``backends.memory.MemoryTable``: one backend per library) through
the four table ops, from one case table: the same column of numbers with a missing value
in each library's own value, the same answers — a window, a sorted and a filtered one,
counts, a profile, code that keeps the rows shown.  A library added without its case
here fails :func:`test_every_backend_in_memory_has_its_case`."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
import xarray as xr

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.backends.base import IN_MEMORY

from ..helpers import validate

NAN = float("nan")
#: Each backend's value (its first column: 3, 1, missing, 2), the syntax of its code, and
#: its ``kind``.
CASES: dict[str, tuple[Any, str, str]] = {
    "PandasFrame": (pd.DataFrame({"n": [3, 1, None, 2], "s": ["b", "a", None, "c"]}), "pandas",
                    "dataframe"),
    "PandasSeries": (pd.Series([3.0, 1.0, None, 2.0], name="n"), "pandas", "series"),
    "PolarsFrame": (pl.DataFrame({"n": [3, 1, None, 2], "s": ["b", "a", None, "c"]}), "polars",
                    "dataframe"),
    "PolarsSeries": (pl.Series("n", [3, 1, None, 2]), "polars", "series"),
    "NumpyArray": (np.array([[3.0, 0.0], [1.0, 1.0], [NAN, 0.0], [2.0, 1.0]]), "pandas", "array"),
    "DataArrayTable": (xr.DataArray(np.array([3.0, 1.0, NAN, 2.0]), dims=("t",)), "pandas",
                       "array"),
    "RecordList": ([{"n": 3, "s": "b"}, {"n": 1, "s": "a"}, {"n": None, "s": None},
                    {"n": 2, "s": "c"}], "pandas", "records"),
}
IDS = sorted(CASES)
#: What the server adds to a probe's table replies.
SERVER = {"stale": False, "kernel_busy": False, "epoch": 0, "generation": 0}


def call(op: str, value: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": op, "name": "t", **request}, {"t": value})
    json.dumps(reply, allow_nan=False)
    return reply


def served(payload: dict[str, Any], definition: str) -> dict[str, Any]:
    validate({**SERVER, "engine": None, **payload}, definition)
    return payload


def test_every_backend_in_memory_has_its_case() -> None:
    assert set(CASES) == {c.__name__ for c in IN_MEMORY}


@pytest.mark.parametrize("backend", IDS)
def test_a_window_and_its_view(backend: str) -> None:
    value, _syntax, kind = CASES[backend]
    whole = served(call("rows", value)["rows"], "RowsWindow")
    assert (whole["kind"], whole["total_rows"], whole["index"]) == (kind, 4, ["0", "1", "2", "3"])
    assert "engine" not in whole and whole["filtered_rows"] is None
    ascending = call("rows", value, view={"sort": [{"column": 0}]})["rows"]
    assert ascending["index"] == ["1", "3", "0", "2"] and ascending["sort"].endswith(":asc")
    kept = call("rows", value, view={"filter": {"column": 0, "op": "gt", "value": 1},
                                     "sort": [{"column": 0, "desc": True}]})["rows"]
    assert (kept["index"], kept["filtered_rows"], kept["total_rows"]) == (["0", "3"], 2, 4)
    paged = call("rows", value, offset=1, limit=2, view={"sort": [{"column": 0}]})["rows"]
    assert paged["index"] == ["3", "0"]


@pytest.mark.parametrize("backend", IDS)
def test_counts(backend: str) -> None:
    value = CASES[backend][0]
    whole = served(call("count", value)["count"], "CountResult")
    assert (whole["rows"], whole["filtered"], whole["engine"]) == (4, False, None)
    kept = call("count", value, view={"filter": {"column": 0, "op": "notnull"}})["count"]
    assert (kept["rows"], kept["filtered"]) == (3, True)


@pytest.mark.parametrize("backend", IDS)
def test_a_profile(backend: str) -> None:
    value, _syntax, kind = CASES[backend]
    profile = served(call("profile", value, columns=[0])["profile"], "TableProfile")
    assert (profile["kind"], profile["total_rows"], profile["sampled"]) == (kind, 4, False)
    [column] = profile["columns"]
    assert (column["family"], column["count"], column["null_count"]) == ("number", 3, 1)
    assert (column["min"], column["max"], column["median"]) == (1, 3, 2)
    kept = call("profile", value, columns=[0], view={"filter": {"column": 0, "op": "lt",
                                                                "value": 3}})["profile"]
    assert (kept["filtered_rows"], kept["columns"][0]["count"]) == (2, 2)


@pytest.mark.parametrize("backend", IDS)
def test_code_keeps_the_rows_shown(backend: str) -> None:
    value, syntax, _kind = CASES[backend]
    view = {"filter": {"column": 0, "op": "gt", "value": 1}, "sort": [{"column": 0}]}
    code = call("code", value, view=view)["code"]
    validate(code, "ViewCode")
    assert code["syntax"] == syntax
    ns: dict[str, Any] = {"t": value}
    exec(code["code"], ns)
    shown = ns["t_view"]
    assert len(shown) == 2
    first = shown.iloc[:, 0] if isinstance(shown, pd.DataFrame) else shown
    if isinstance(shown, pl.DataFrame):
        first = shown.to_series(0)
    assert [float(x) for x in first] == [2.0, 3.0]
