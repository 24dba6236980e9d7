"""A cell's table output read by its execution result's handle (``_<n>``, IPython's
``Out[n]``): the rows, profile and code routes reach it (the notebook's output grid),
the list still hides it, and a result deleted or past IPython's output cache is a 404
that says so."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from .kernel_utils import get_json, validate

pytestmark = [pytest.mark.kernel]

SETUP = """
import numpy as np, pandas as pd
rng = np.random.default_rng(1)
sales = pd.DataFrame({"price": rng.random(5000) * 100, "units": np.arange(5000) % 7})
"""


async def read(jp_fetch, kernel, name, route, **params):  # type: ignore[no-untyped-def]
    return await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name, route,
                          params=params)


async def refused(jp_fetch, kernel, name, route):  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as info:
        await read(jp_fetch, kernel, name, route)
    return info.value.code, json.loads(info.value.response.body)["message"]


def execution_count(kernel) -> int:  # type: ignore[no-untyped-def]
    results = [m for m in kernel.outputs if m["msg_type"] == "execute_result"]
    assert len(results) == 1, kernel.outputs
    return int(results[0]["content"]["execution_count"])


async def test_an_unnamed_output_is_read_by_its_handle(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    await kernel.run("sales.head(1000)")
    handle = f"_{execution_count(kernel)}"

    window = await read(jp_fetch, kernel, handle, "rows", limit=20, sort="price:desc")
    validate(window, "RowsWindow")
    assert window["total_rows"] == 1000 and window["name"] == handle
    prices = [float(row[0]) for row in window["rows"]]
    assert prices == sorted(prices, reverse=True)
    await kernel.run("float(sales.head(1000).price.max())")
    top = float(next(m for m in kernel.outputs if m["msg_type"] == "execute_result")
                ["content"]["data"]["text/plain"])
    assert prices[0] == pytest.approx(top, rel=1e-6)

    filtered = await read(jp_fetch, kernel, handle, "rows", limit=5, filter=json.dumps(
        {"column": "units", "op": "eq", "value": 3}))
    assert filtered["filtered_rows"] == sum(1 for i in range(1000) if i % 7 == 3)
    profile = await read(jp_fetch, kernel, handle, "profile", columns="0")
    validate(profile, "TableProfile")
    assert profile["columns"][0]["name"] == "price"
    code = await read(jp_fetch, kernel, handle, "code", sort="price:desc")
    assert handle in code["code"] and "price" in code["code"]

    snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                              params={"include": "private"})
    assert handle not in {v["name"] for v in snapshot["variables"]}


async def test_a_deleted_output_is_gone(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    await kernel.run("sales.tail(10)")
    handle = f"_{execution_count(kernel)}"
    assert (await read(jp_fetch, kernel, handle, "rows"))["total_rows"] == 10
    await kernel.run(f"del {handle}")
    for route in ("rows", "profile", "code"):
        code, message = await refused(jp_fetch, kernel, handle, route)
        assert code == 404 and "gone" in message and "output cache" in message, message
    # Input strings stay unreachable: only results are handles.
    code, _ = await refused(jp_fetch, kernel, "_i2", "rows")
    assert code in (400, 404)
