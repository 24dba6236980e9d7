"""``GET variables/{name}/rows`` (the data explorer's windows) against a real server and
real kernels, local and behind a Kernel Gateway: every row reachable, sorting in the
kernel, bounds, lazy and hostile objects, busy kernels."""

from __future__ import annotations

import functools
import json
import time
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from .conftest import BOTH_BACKENDS
from .kernel_utils import get_json, validate

pytestmark = [pytest.mark.kernel, BOTH_BACKENDS]

N = 1_000_000
SETUP = f"""
import numpy as np, pandas as pd, polars as pl
rng = np.random.default_rng(0)
sales = pd.DataFrame({{
    "price": rng.random({N}) * 100,
    "units": np.arange({N}) % 7,
    "date": pd.Timestamp("2024-10-02") + pd.to_timedelta(np.arange({N}) % 30, unit="D"),
    "region": np.array(["north", "south", "east", "west"])[np.arange({N}) % 4],
    "<img src=x onerror=alert(1)>": np.arange({N}),
}})
sales.loc[5, "price"] = np.nan
wide = pd.DataFrame(np.arange(3 * 250).reshape(3, 250))
matrix = np.arange(12, dtype="float32").reshape(3, 4) / 10
s = pd.Series([3.5, None, 1.25], index=["a", "b", "c"], name="score")
records = [{{"a": 1, "b": "x"}}, {{"a": None, "b": "y", "c": True}}]
plf = pl.DataFrame({{"x": [3, 1, 2], "d": [None, "a", "b"]}})
lazy = iter(range(5))  # lazy: reading it would consume it
gen = (i for i in range(3))
text = "x" * 5000
long_cells = pd.DataFrame({{"t": ["y" * 1000, "short"]}})
x = 5
"""


async def rows(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name, "rows",
                             params=params)
    validate(payload, "RowsWindow")
    return payload


async def refused(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as info:
        await rows(jp_fetch, kernel, name, **params)
    body = json.loads(info.value.response.body)
    return info.value.code, body["message"]


async def test_every_row_of_a_million_is_reachable(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    before = await kernel.inspect_kernel()

    first = await rows(jp_fetch, kernel, "sales", limit=100, columns="0:20")
    assert first["total_rows"] == N and first["shape"] == [N, 5]
    assert first["kind"] == "dataframe" and first["columns_total"] == 5
    assert [c["name"] for c in first["columns"]] == [
        "price", "units", "date", "region", "<img src=x onerror=alert(1)>"]
    assert [c["position"] for c in first["columns"]] == [0, 1, 2, 3, 4]
    assert first["columns"][1]["dtype"] == "int64"
    assert len(first["rows"]) == 100 and first["index"][:3] == ["0", "1", "2"]
    assert first["rows"][0][2] == "2024-10-02"  # midnight dates print as dates
    assert first["rows"][5][0] is None  # NaN is a missing value
    assert first["rows"][1][3] == "south"

    last = await rows(jp_fetch, kernel, "sales", offset=N - 100, limit=100)
    assert len(last["rows"]) == 100 and last["index"][-1] == str(N - 1)
    assert last["rows"][-1][4] == str(N - 1)

    clamped = await rows(jp_fetch, kernel, "sales", offset=N - 2000, limit=1001, columns="4")
    assert clamped["limit"] == 1000 and len(clamped["rows"]) == 1000  # clamped, and says so
    edge = await rows(jp_fetch, kernel, "sales", offset=N - 1, limit=1000)
    assert edge["index"] == [str(N - 1)] and len(edge["rows"]) == 1
    beyond = await rows(jp_fetch, kernel, "sales", offset=N, limit=5)
    assert beyond["rows"] == [] and beyond["total_rows"] == N

    # Reading never changes the kernel: counts, history, `_`, names.
    assert await kernel.inspect_kernel() == before


async def test_sort_in_the_kernel_pages_consistently(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    top = await rows(jp_fetch, kernel, "sales", limit=50, sort="price:desc", columns="0,4")
    assert top["sort"] == "price:desc"
    prices = [float(r[0]) for r in top["rows"]]
    assert prices == sorted(prices, reverse=True) and prices[0] > 99.99
    following = await rows(jp_fetch, kernel, "sales", offset=50, limit=50, sort="price:desc",
                           columns="0")
    assert float(following["rows"][0][0]) <= prices[-1]
    # The missing price sorts last, both ways.
    tail = await rows(jp_fetch, kernel, "sales", offset=N - 1, limit=1, sort="price:asc")
    assert tail["rows"][0][0] is None and tail["index"] == ["5"]
    assert (await rows(jp_fetch, kernel, "sales", offset=N - 1, limit=1,
                       sort="price:desc"))["index"] == ["5"]
    # A bare name sorts ascending; a hostile name is matched as text.
    asc = await rows(jp_fetch, kernel, "sales", limit=3, sort="units")
    assert asc["sort"] == "units:asc" and [r[1] for r in asc["rows"]] == ["0", "0", "0"]
    hostile = await rows(jp_fetch, kernel, "sales", limit=2,
                         sort="<img src=x onerror=alert(1)>:desc")
    assert hostile["rows"][0][4] == str(N - 1)


async def test_filter_in_the_kernel_with_an_exact_count(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    north = json.dumps({"column": "region", "op": "contains", "value": "NOR"})
    window = await rows(jp_fetch, kernel, "sales", filter=north, sort="price:desc", limit=5,
                        columns="0,3")
    assert window["filtered_rows"] == N // 4 and window["total_rows"] == N
    assert window["filter"] == {"column": "region", "op": "contains", "value": "NOR", "case": False}
    assert all(r[1] == "north" for r in window["rows"])
    prices = [float(r[0]) for r in window["rows"]]
    assert prices == sorted(prices, reverse=True)
    last = await rows(jp_fetch, kernel, "sales", filter=north, sort="price:desc",
                      offset=N // 4 - 1, limit=5, columns="0,3")
    assert len(last["rows"]) == 1 and float(last["rows"][0][0]) < 0.01  # the smallest
    later = json.dumps({"column": "date", "op": "ge", "value": "2024-10-31"})
    window = await rows(jp_fetch, kernel, "sales", filter=later, limit=3, columns="2")
    assert window["filtered_rows"] == N // 30 and window["rows"][0] == ["2024-10-31"]
    nulls = await rows(jp_fetch, kernel, "sales", limit=3,
                       filter=json.dumps({"column": "price", "op": "isnull"}))
    assert nulls["filtered_rows"] == 1 and nulls["index"] == ["5"]


async def test_trees_and_sort_keys_match_pandas(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """An OR of ``in`` and ``between`` keeps as many rows as pandas says, sorted by two keys
    as ``sort_values`` orders them (stable, missing values last), on a million rows."""
    kernel = await new_kernel()
    await kernel.run(SETUP)
    local: dict[str, Any] = {}
    exec(SETUP, local)  # the same frame here (a seeded generator)
    sales = local["sales"]
    tree = {"or": [{"column": "region", "op": "in", "value": ["north", "east"]},
                   {"column": "price", "op": "between", "value": [10, "20"]}]}
    kept = sales[sales["region"].isin(["north", "east"]) | sales["price"].between(10, 20)]
    want = kept.sort_values(["units", "price"], ascending=[False, True], kind="stable",
                            na_position="last")
    window = await rows(jp_fetch, kernel, "sales", filter=json.dumps(tree),
                        sort="units:desc,price", limit=50, columns="0,1,3")
    assert window["filtered_rows"] == len(kept) and window["total_rows"] == N
    assert window["sort"] == "units:desc,price:asc" and window["filter"] == tree
    assert window["index"] == [str(i) for i in want.index[:50]]
    last = await rows(jp_fetch, kernel, "sales", filter=json.dumps(tree), limit=5, columns="0",
                      sort='[{"column": "units", "desc": true}, {"column": "price"}]',
                      offset=len(kept) - 5)
    assert last["index"] == [str(i) for i in want.index[-5:]]
    # Missing values match only isnull: the NaN price is in neither "ne" nor "not_between".
    negated = {"or": [{"column": "price", "op": "ne", "value": 1},
                      {"column": "price", "op": "not_between", "value": [0, 1]}]}
    window = await rows(jp_fetch, kernel, "sales", filter=json.dumps(negated), limit=1)
    assert window["filtered_rows"] == N - 1


@pytest.mark.parametrize(
    ("name", "params", "check"),
    [
        ("matrix", {}, lambda w: w["kind"] == "array" and w["shape"] == [3, 4]
         and w["rows"][0] == ["0.0", "0.1", "0.2", "0.3"] and w["columns"][0]["dtype"] == "float32"),
        ("s", {"sort": "score:desc"}, lambda w: w["kind"] == "series"
         and w["index"] == ["a", "c", "b"] and w["rows"] == [["3.5"], ["1.25"], [None]]),
        ("records", {}, lambda w: w["kind"] == "records"
         and [c["name"] for c in w["columns"]] == ["a", "b", "c"]
         and w["rows"] == [["1", "x", None], [None, "y", "True"]]),
        ("plf", {"sort": "x"}, lambda w: w["rows"] == [["1", "a"], ["2", "b"], ["3", None]]),
        ("wide", {}, lambda w: w["columns_total"] == 250 and len(w["columns"]) == 100),
        ("wide", {"columns": "240:260"}, lambda w: [c["position"] for c in w["columns"]]
         == list(range(240, 250))),
        ("long_cells", {}, lambda w: w["cells_truncated"] == 1
         and len(w["rows"][0][0]) <= 200 and w["rows"][1][0] == "short"),
    ],
)
async def test_kinds_of_tables(jp_fetch, new_kernel, name, params, check):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    assert check(await rows(jp_fetch, kernel, name, **params))


@pytest.mark.parametrize(
    ("name", "params", "status", "words"),
    [
        ("x", {}, 400, "x is a int (number): rows show tables"),
        ("text", {}, 400, "rows show tables"),
        ("nothing", {}, 404, "Variable not found: nothing"),
        ("not-a-name", {}, 400, "Invalid variable name"),
        ("sales", {"limit": "0"}, 400, "limit"),
        ("sales", {"offset": "-1"}, 400, "offset"),
        ("sales", {"columns": "0:101"}, 400, "at most 100 columns"),
        ("sales", {"columns": "a,b"}, 400, "columns must be"),
        ("sales", {"columns": "5%"}, 400, "got '5%'"),  # a literal %, not %% or %%%%
        ("sales", {"columns": "7"}, 400, "column 7 is out of range: the value has 5 columns"),
        ("sales", {"sort": "nope:asc"}, 400, "No column named 'nope'"),
        ("sales", {"filter": "price>3"}, 400, "filter must be JSON"),
        ("sales", {"filter": '{"column": "price", "op": "like", "value": "1"}'}, 400,
         "filter op must be one of eq, ne, lt"),
        ("sales", {"filter": '{"column": "price", "op": "gt"}'}, 400, "filter gt needs a value"),
        ("sales", {"filter": '{"column": "price", "op": "gt", "value": "ten"}'}, 400,
         "filter value 'ten' does not fit column price (float64): a number expected"),
        ("sales", {"filter": '{"column": "date", "op": "in", "value": ["2024-10-02", "x"]}'},
         400, "filter value 'x' does not fit column date (datetime64"),
        ("sales", {"filter": '{"column": "units", "op": "is_true"}'}, 400,
         "filter is_true does not apply to column units (int64)"),
        ("sales", {"filter": '{"column": "region", "op": "regex", "value": "("}'}, 400,
         "filter regex '(' is not a valid Python regular expression"),
        ("sales", {"filter": json.dumps(functools.reduce(
            lambda node, _: {"and": [node]}, range(6), {"column": "price", "op": "isnull"}))},
         400, "trees at most 5 deep"),
        ("sales", {"filter": json.dumps({"or": [{"column": "units", "op": "eq", "value": i}
                                                for i in range(51)]})}, 400,
         "at most 50 conditions"),
        ("sales", {"filter": '{"column": "nope", "op": "isnull"}'}, 400, "No column named"),
        ("sales", {"sort": "price:desc,"}, 400, "sort must name a column in each key"),
        ("sales", {"sort": '[{"column": "price", "desc": "yes"}]'}, 400,
         "sort desc must be true or false"),
        ("sales", {"sort": ",".join(["units"] * 11)}, 400, "at most 10 sort keys"),
        ("sales", {"sort": "units,nope:desc"}, 400, "No column named 'nope'"),
        ("lazy", {}, 409, "lazy is a range_iterator, an iterator"),
        ("gen", {}, 409, "an iterator: showing rows would consume it"),
    ],
)
async def test_refusals(jp_fetch, new_kernel, name, params, status, words):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    code, message = await refused(jp_fetch, kernel, name, **params)
    assert (code, words in message) == (status, True), message
    if name == "gen":  # never consumed
        reply = await kernel.run("assert next(gen) == 0")
        assert reply["status"] == "ok"


HOSTILE = """
import pandas as pd, time
class SlowFrame(pd.DataFrame):
    @property
    def iloc(self):
        time.sleep(30)
class BadFrame(pd.DataFrame):
    @property
    def iloc(self):
        raise ValueError("no rows for you")
class BadSort(pd.DataFrame):
    def sort_values(self, *a, **k):
        raise RuntimeError
class Touchy:
    def __eq__(self, other):
        raise ValueError("no comparing")
    __hash__ = object.__hash__
touchy = pd.DataFrame({"t": pd.Series([Touchy(), Touchy()], dtype=object)})
slow = SlowFrame({"a": [1, 2]})
bad = BadFrame({"a": [1, 2]})
mixed = pd.DataFrame({"m": [1, "a", None, 2.5]})
"""


async def test_hostile_tables_are_refused_in_time(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(HOSTILE)
    started = time.monotonic()
    code, message = await refused(jp_fetch, kernel, "slow")
    assert code == 422 and "Reading rows of slow (SlowFrame) timed out" in message
    assert time.monotonic() - started < 5
    code, message = await refused(jp_fetch, kernel, "bad")
    assert code == 422 and message == "bad (BadFrame): reading rows raised ValueError"
    code, message = await refused(jp_fetch, kernel, "mixed", sort="m:asc")
    assert code == 422 and "raised TypeError" in message
    # A column whose __eq__ raises: 422 saying so, the value untouched.
    code, message = await refused(jp_fetch, kernel, "touchy",
                                  filter='{"column": "t", "op": "eq", "value": "a"}')
    assert code == 422 and message == "touchy (DataFrame): reading rows raised ValueError"
    assert (await kernel.run("assert touchy.shape == (2, 1)"))["status"] == "ok"
    # Unsorted, the mixed column reads fine; the kernel is still usable.
    assert (await rows(jp_fetch, kernel, "mixed"))["rows"] == [["1"], ["a"], [None], ["2.5"]]
    assert (await kernel.run("y = 1"))["status"] == "ok"


async def test_busy_kernel_gets_the_last_window_or_503(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\ndf = pd.DataFrame({'a': range(10)})")
    window = await rows(jp_fetch, kernel, "df", limit=5)
    assert window["stale"] is False
    kernel.submit("import time; time.sleep(3)")
    await kernel.wait_busy()
    again = await rows(jp_fetch, kernel, "df", limit=5)
    assert again["stale"] is True and again["kernel_busy"] is True
    assert again["rows"] == window["rows"]
    code, message = await refused(jp_fetch, kernel, "df", limit=6)
    assert code == 503 and "busy" in message
    await kernel.wait_idle(timeout=10)


async def test_a_changed_variable_gets_a_new_window(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\ndf = pd.DataFrame({'a': range(10)})")
    first = await rows(jp_fetch, kernel, "df", limit=3, sort="a:desc")
    assert first["rows"] == [["9"], ["8"], ["7"]] and first["changed_at"] == 1
    await kernel.run("df['a'] = df['a'] * 10")  # in place: the sort is not reused
    second = await rows(jp_fetch, kernel, "df", limit=3, sort="a:desc")
    assert second["rows"] == [["90"], ["80"], ["70"]]
    assert second["generation"] > first["generation"]
