"""``GET variables/{name}/code`` against a real server and a real kernel: the code of a
view, run in the kernel, binds ``<name>_view`` to exactly the rows the explorer shows —
same index, order and cells, every row — for every filter operator, and/or trees and
several sort keys, in pandas and in polars; refusals with clear messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from .kernel_utils import get_json, validate
from .view_utils import condition as cond

pytestmark = [pytest.mark.kernel]

SETUP = """
import numpy as np, pandas as pd, polars as pl
dates = ["2024-01-01", None, "2024-01-03", "2024-01-02", "2024-01-05", "2024-01-03",
         "2023-12-31", "2024-01-04 12:00"]
df = pd.DataFrame({
    "i": [3, 1, 2, 2, 5, 0, 4, -1],
    "f": [1.5, np.nan, 2.0, -1.0, 2.0, 10.25, 0.0, np.nan],
    "n": pd.array([1, None, 3, 2, None, 2, 0, 5], dtype="Int64"),
    "s": ["north", "South", None, "", "east", "NORTH", "n.rth", "a'b"],
    "c": pd.Categorical(["x", "y", None, "x", "z", "y", "x", "z"]),
    "b": pd.array([True, None, False, True, None, False, True, False], dtype="boolean"),
    "d": pd.to_datetime(dates, format="ISO8601"),
    "dz": pd.to_datetime(dates, format="ISO8601").tz_localize("Europe/Paris"),
    'odd "name"\\n': range(8),
}, index=[f"r{k}" for k in range(8)])
pf = pl.DataFrame({
    "id": list(range(8)),
    "i": [3, 1, 2, 2, 5, 0, 4, -1],
    "f": [1.5, float("nan"), 2.0, -1.0, 2.0, 10.25, 0.0, None],
    "s": ["north", "South", None, "", "east", "NORTH", "n.rth", "a'b"],
    "c": pl.Series(["x", "y", None, "x", "z", "y", "x", "z"], dtype=pl.Categorical),
    "b": [True, False, None, True, False, False, True, None],
    "d": pl.Series([None if d is None else pd.Timestamp(d).to_pydatetime() for d in dates]),
}).with_columns(pl.col("d").dt.replace_time_zone("Europe/Paris").alias("dz"))
matrix = np.array([[1.0, 5.0], [np.nan, 3.0], [2.0, 5.0], [0.5, np.nan]])
records = [{"a": 2, "b": "x"}, {"a": None, "b": "y"}, {"a": 1, "b": None}]
lazy = iter(range(5))  # lazy: reading it would consume it
"""


# Every operator at least once per library, then trees; (filter, sort).
PANDAS_VIEWS: list[tuple[dict[str, Any] | None, str | None]] = [
    (cond("i", "eq", 2), None), (cond("f", "ne", "2"), "f:desc"), (cond("n", "lt", 3), None),
    (cond("i", "le", 2), "i"), (cond("f", "gt", 1), None), (cond("d", "ge", "2024-01-03"), None),
    (cond("n", "between", [1, 3]), None), (cond("f", "not_between", [0, 2]), None),
    (cond("s", "in", ["north", "east"]), None), (cond("c", "not_in", ["x"]), "c,i:desc"),
    (cond("s", "contains", "NOR"), None), (cond("s", "not_contains", "or", True), None),
    (cond("s", "starts_with", "n"), None), (cond("s", "ends_with", "TH", True), None),
    (cond("s", "regex", r"^n.r|'"), None), (cond("f", "isnull"), None),
    (cond("n", "notnull"), "n:desc,f"), (cond("s", "empty"), None), (cond("s", "not_empty"), None),
    (cond("b", "is_true"), None), (cond("b", "is_false"), None),
    (cond("dz", "lt", "2024-01-02T23:00:00Z"), "dz:desc"),
    (cond('odd "name"\n', "in", [1, 2, 7]), None),
    ({"or": [cond("s", "in", ["north", "east"]), cond("f", "between", [1, 2])]}, "s:desc,f"),
    ({"and": [cond("i", "gt", 0), {"or": [cond("f", "isnull"), cond("c", "eq", "z")]}]}, None),
    ({"or": [cond("f", "ne", 2), cond("n", "not_in", [2])]}, "b:desc,i"),
    (None, "c:desc,f:asc,s"),
    (None, None),
]
POLARS_VIEWS: list[tuple[dict[str, Any] | None, str | None]] = [
    (cond("i", "eq", 2), None), (cond("f", "ne", 2), "f:desc"), (cond("i", "lt", 3), None),
    (cond("i", "le", 2), "i"), (cond("f", "gt", 1), "f"), (cond("d", "ge", "2024-01-03"), None),
    (cond("i", "between", [1, 3]), None), (cond("f", "not_between", [0, 2]), None),
    (cond("s", "in", ["north", "east"]), None), (cond("c", "not_in", ["x"]), "c,i:desc"),
    (cond("s", "contains", "NOR"), None), (cond("s", "not_contains", "or", True), None),
    (cond("s", "starts_with", "n"), None), (cond("s", "ends_with", "TH", True), None),
    (cond("s", "regex", r"^n.r|'"), None), (cond("f", "isnull"), None),
    (cond("b", "notnull"), "b:desc,f"), (cond("s", "empty"), None), (cond("s", "not_empty"), None),
    (cond("b", "is_true"), None), (cond("b", "is_false"), None),
    (cond("dz", "lt", "2024-01-02T23:00:00Z"), "dz:desc"),
    ({"or": [cond("s", "in", ["north", "east"]), cond("f", "between", [1, 2])]}, "s:desc,f"),
    ({"and": [cond("i", "gt", 0), {"or": [cond("f", "isnull"), cond("c", "eq", "z")]}]}, None),
    (None, "b,f:desc"),
]


async def read(jp_fetch, kernel, name, route, **params):  # type: ignore[no-untyped-def]
    return await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name, route,
                          params={k: v for k, v in params.items() if v is not None})


async def refused(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as info:
        await read(jp_fetch, kernel, name, "code", **params)
    return info.value.code, json.loads(info.value.response.body)["message"]


async def round_trip(jp_fetch, kernel, name, views, syntax):  # type: ignore[no-untyped-def]
    """Each view's code, run in the kernel, gives the explorer's rows; the mismatches."""
    wrong = []
    for where, sort in views:
        query = {"filter": None if where is None else json.dumps(where), "sort": sort}
        written = await read(jp_fetch, kernel, name, "code", **query)
        validate(written, "ViewCode")
        assert written["syntax"] == syntax and written["name"] == name
        reply = await kernel.run(written["code"])
        assert reply["status"] == "ok", (written["code"], reply)
        shown = await read(jp_fetch, kernel, name, "rows", limit=1000, **query)
        got = await read(jp_fetch, kernel, f"{name}_view", "rows", limit=1000)
        same = got["rows"] == shown["rows"] and (syntax == "polars"
                                                 or got["index"] == shown["index"])
        if not same or got["total_rows"] != (shown["filtered_rows"] if where else 8):
            wrong.append((where, sort, written["code"], shown["index"], got["index"]))
    return wrong


@pytest.mark.slow
async def test_pandas_code_gives_the_explorers_rows(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    assert await round_trip(jp_fetch, kernel, "df", PANDAS_VIEWS, "pandas") == []


@pytest.mark.slow
async def test_polars_code_gives_the_explorers_rows(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    assert await round_trip(jp_fetch, kernel, "pf", POLARS_VIEWS, "polars") == []


async def test_arrays_records_and_the_columns_shown(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    views = [(cond("1", "ge", 5), "0:desc")]
    assert await round_trip(jp_fetch, kernel, "matrix", views, "pandas") == []
    written = await read(jp_fetch, kernel, "records", "code", filter=json.dumps(cond("a", "notnull")))
    assert written["code"].startswith("import pandas as pd\nrecords_view = pd.DataFrame(records)\n")
    assert (await kernel.run(written["code"] + "assert list(records_view.index) == [0, 2]"))[
        "status"] == "ok"
    chosen = await read(jp_fetch, kernel, "df", "code", columns="3,0", sort="i:desc")
    assert chosen["view"] == {"sort": [{"column": "i", "desc": True}], "filter": None,
                              "columns": [3, 0]}
    assert chosen["code"].endswith('df_view = df_view[["s", "i"]]\n')
    assert (await kernel.run(chosen["code"] + "assert list(df_view.columns) == ['s', 'i']"))[
        "status"] == "ok"


REFUSALS = [
    ("df", {"syntax": "polars"}, 400, "polars code is for polars values; df is a DataFrame"),
    ("df", {"syntax": "dplyr"}, 400, "dplyr code is for R data.frames"),
    ("df", {"syntax": "cobol"}, 400, "syntax must be one of pandas, polars, dplyr, polars_lazy"),
    ("pf", {"syntax": "pandas"}, 400, "pandas code is for pandas values"),
    ("df", {"filter": json.dumps(cond("i", "eq", "two"))}, 400,
     "filter value 'two' does not fit column i (int64)"),
    ("df", {"filter": json.dumps(cond("c", "lt", "y"))}, 400, "its categories have no order"),
    ("pf", {"filter": json.dumps(cond("s", "regex", "("))}, 400,
     "not a valid polars (Rust) regular expression"),
    ("df", {"filter": '{"and": ['}, 400, "filter must be JSON"),
    ("df", {"sort": "nope:desc"}, 400, "No column named 'nope'"),
    ("df", {"columns": "0,99"}, 400, "column 99 is out of range: the value has 9 columns"),
    ("df", {"columns": "x"}, 400, "columns must be a range"),
    ("nothing", {}, 404, "Variable not found: nothing"),
    ("not-a-name", {}, 400, "Invalid variable name"),
    ("lazy", {}, 409, "lazy is a range_iterator, an iterator"),
    ("x", {}, 400, "x is a int (number): code is written for tables"),
]


async def test_refusals(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP + "x = 5\n"))["status"] == "ok"
    before = await kernel.inspect_kernel()
    for name, params, status, words in REFUSALS:
        code, message = await refused(jp_fetch, kernel, name, **params)
        assert (code, words in message) == (status, True), (name, params, message)
    assert await kernel.inspect_kernel() == before  # nothing ran in the user's namespace
