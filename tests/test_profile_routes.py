"""``GET variables/{name}/profile`` against a real server and real kernels: the statistics
as the kernel's own pandas computes them, the filter, the sample, refusals, hostile
values, caching and busy kernels, R kernels (501)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from jupyter_client.kernelspec import KernelSpecManager
from tornado.httpclient import HTTPClientError

from .conftest import BOTH_BACKENDS
from .kernel_utils import get_json, validate

pytestmark = [pytest.mark.kernel]
# Found before the test server isolates its Jupyter paths (the venv's share/jupyter).
IR_SPEC_DIR = KernelSpecManager().find_kernel_specs().get("ir")

N = 200_000
SETUP = f"""
import numpy as np, pandas as pd, polars as pl
_rng = np.random.default_rng(0)
sales = pd.DataFrame({{
    "price": _rng.normal(50, 10, {N}),
    "units": np.arange({N}) % 7,
    "region": np.array(["north", "south", "east", "west", ""])[np.arange({N}) % 5],
    "date": pd.Timestamp("2024-10-02") + pd.to_timedelta(np.arange({N}) % 30, unit="D"),
    "flag": np.arange({N}) % 3 == 0,
}})
sales.loc[5, "price"] = np.nan
sales.loc[6, "price"] = np.inf
plf = pl.from_dict({{"x": [3, 1, None], "s": ["a", "b", "a"]}})
lazy = iter(range(5))  # lazy: reading it would consume it
gen = (i for i in range(3))
records = [{{"a": 1, "b": "x"}}, {{"a": None, "b": "y"}}]
x = 5
del _rng
"""
# The same statistics, computed in the kernel by pandas itself (printed as JSON).
REFERENCE = """
import json as _json
def _reference(frame):
    price = frame["price"][np.isfinite(frame["price"])]
    region = frame["region"].value_counts()
    return {{
        "rows": len(frame), "price_count": int(frame["price"].notna().sum()),
        "mean": price.mean(), "median": price.median(), "std": price.std(),
        "q": [price.quantile(q) for q in (0.05, 0.25, 0.75, 0.95)],
        "hist": np.histogram(price.to_numpy(), bins=50)[0].tolist(),
        "region": {{k: int(v) for k, v in region.items()}},
        "date": [frame["date"].min().isoformat(), frame["date"].max().isoformat(),
                 frame["date"].median().isoformat()],
        "flag": int(frame["flag"].sum()),
    }}
print(_json.dumps(_reference({frame})))
del _reference
"""


async def profile(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                             "profile", params=params)
    validate(payload, "TableProfile")
    return payload


async def refused(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as info:
        await profile(jp_fetch, kernel, name, **params)
    return info.value.code, json.loads(info.value.response.body)["message"]


async def reference(kernel, frame: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    reply = await kernel.run(REFERENCE.format(frame=frame))
    assert reply["status"] == "ok", reply
    text = "".join(m["content"].get("text", "") for m in kernel.outputs
                   if m["msg_type"] == "stream")
    return json.loads(text)  # type: ignore[no-any-return]


def check(result: dict[str, Any], want: dict[str, Any]) -> None:
    price, units, region, date, flag = result["columns"]
    assert price["family"] == "number" and price["count"] == want["price_count"]
    assert price["null_count"] == want["rows"] - want["price_count"]
    for key in ("mean", "median", "std"):
        assert price[key] == pytest.approx(want[key], rel=1e-9), key
    assert list(price["quantiles"].values()) == pytest.approx(want["q"], rel=1e-9)
    assert sum(price["histogram"]["counts"]) == want["price_count"] - 1  # the inf
    assert units["min"] == 0 and units["max"] == 6 and isinstance(units["min"], int)
    assert region["distinct"] == len(want["region"]) and region["empty"] == want["region"][""]
    assert {e["value"]: e["count"] for e in region["top"]} == want["region"]
    assert [date["min"], date["max"], date["median"]] == want["date"]
    assert (flag["true"], flag["false"]) == (want["flag"], want["rows"] - want["flag"])


@BOTH_BACKENDS
async def test_the_profile_is_the_kernels_own_statistics(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    want = await reference(kernel, "sales")
    before = await kernel.inspect_kernel()
    result = await profile(jp_fetch, kernel, "sales")
    assert result["total_rows"] == N and result["columns_total"] == 5
    assert result["filtered_rows"] is None and result["sampled"] is False
    assert result["columns_cut"] == 0 and result["stale"] is False
    assert result["view"] == {"sort": [], "filter": None, "columns": [0, 1, 2, 3, 4]}
    check(result, want)
    # Reading never changes the kernel: counts, history, `_`, names.
    assert await kernel.inspect_kernel() == before

    north = {"or": [{"column": "region", "op": "eq", "value": "north"},
                    {"column": "price", "op": "gt", "value": 70}]}
    filtered = await profile(jp_fetch, kernel, "sales", filter=json.dumps(north))
    want = await reference(kernel, "sales[(sales.region == 'north') | (sales.price > 70)]")
    assert filtered["filtered_rows"] == want["rows"] < N
    assert filtered["view"]["filter"] == north
    check(filtered, want)

    some = await profile(jp_fetch, kernel, "sales", columns="2,0")
    assert [c["name"] for c in some["columns"]] == ["region", "price"]
    assert (await profile(jp_fetch, kernel, "sales", columns="3:10"))["view"]["columns"] == [3, 4]


@pytest.mark.parametrize(
    ("name", "check_"),
    [
        ("plf", lambda p: p["kind"] == "dataframe" and p["columns"][0]["null_count"] == 1
         and p["columns"][1]["top"] == [{"value": "a", "count": 2}, {"value": "b", "count": 1}]),
        ("records", lambda p: p["kind"] == "records" and p["columns"][0]["mean"] == 1.0
         and p["columns"][1]["distinct"] == 2),
    ],
)
async def test_kinds_of_tables(jp_fetch, new_kernel, name, check_):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    assert check_(await profile(jp_fetch, kernel, name))


HOSTILE = """
import pandas as pd, time
class BadShape(pd.DataFrame):
    @property
    def shape(self):
        raise ValueError("no shape for you")
class SlowColumns(pd.DataFrame):
    @property
    def iloc(self):
        time.sleep(30)
bad = BadShape({"a": [1, 2]})
slow = SlowColumns({"a": [1, 2], "b": [3, 4]})
"""


@pytest.mark.parametrize(
    ("name", "params", "status", "words"),
    [
        ("x", {}, 400, "x is a int (number): profiles show tables"),
        ("nothing", {}, 404, "Variable not found: nothing"),
        ("not-a-name", {}, 400, "Invalid variable name"),
        ("sales", {"columns": "0:101"}, 400, "at most 100 columns"),
        ("sales", {"columns": "9"}, 400, "column 9 is out of range: the value has 5 columns"),
        ("sales", {"filter": "price>3"}, 400, "filter must be JSON"),
        ("sales", {"filter": '{"column": "price", "op": "gt", "value": "ten"}'}, 400, "price"),
        ("sales", {"filter": '{"column": "nope", "op": "isnull"}'}, 400, "No column named"),
        ("lazy", {}, 409, "lazy is a range_iterator, an iterator"),
        ("gen", {}, 409, "an iterator: profiling it would consume it"),
        ("bad", {}, 422, "bad (BadShape): profiling raised ValueError"),
    ],
)
async def test_refusals(jp_fetch, new_kernel, name, params, status, words):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP + HOSTILE)
    code, message = await refused(jp_fetch, kernel, name, **params)
    assert (code, words in message) == (status, True), message
    if name == "gen":  # never consumed
        assert (await kernel.run("assert next(gen) == 0"))["status"] == "ok"


async def test_a_slow_table_is_answered_in_time_with_each_columns_error(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(HOSTILE)
    started = time.monotonic()
    result = await profile(jp_fetch, kernel, "slow")
    assert time.monotonic() - started < 30  # a hang guard (about 2 s: two column guards)
    assert [c["error"] for c in result["columns"]] == ["profiling timed out (1,000 ms)"] * 2
    assert (await kernel.run("y = 1"))["status"] == "ok"  # the kernel is still usable


async def test_past_a_million_rows_a_fixed_sample(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import numpy as np\nbig = np.arange(1_500_000, dtype='float64')")
    result = await profile(jp_fetch, kernel, "big")
    assert (result["sampled"], result["sample_rows"]) == (True, 1_000_000)
    (column,) = result["columns"]
    assert column["approximate"] is True and column["count"] == 1_500_000  # exact
    assert column["min"] >= 0 and column["max"] <= 1_499_999
    assert column["median"] == pytest.approx(750_000, rel=0.01)
    assert sum(column["histogram"]["counts"]) == pytest.approx(1_500_000, abs=50)


async def test_answers_are_cached_and_a_busy_kernel_gets_the_last_one(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\ndf = pd.DataFrame({'a': range(10)})")
    first = await profile(jp_fetch, kernel, "df")
    requests = kernel.state.probe_requests
    again = await profile(jp_fetch, kernel, "df")
    assert again == first and kernel.state.probe_requests == requests  # no kernel message
    await kernel.run("df['a'] = df['a'] * 10")
    changed = await profile(jp_fetch, kernel, "df")
    assert changed["columns"][0]["max"] == 90 and changed["generation"] > first["generation"]
    kernel.submit("import time; time.sleep(3)")
    await kernel.wait_busy()
    stale = await profile(jp_fetch, kernel, "df")
    assert stale["stale"] is True and stale["kernel_busy"] is True
    assert stale["columns"] == changed["columns"]
    code, message = await refused(jp_fetch, kernel, "df", columns="0")
    assert code == 503 and "busy" in message
    await kernel.wait_idle(timeout=10)


async def test_kernels_without_a_profile_answer_501(jp_fetch, new_kernel, other_language_kernelspec):  # type: ignore[no-untyped-def]
    kernel = await new_kernel(other_language_kernelspec)
    code, message = await refused(jp_fetch, kernel, "df")
    assert code == 501 and "not supported" in message
