"""Every documented maximum is reachable: a view's filter of up to 200,000 characters (and a
detail's deepest path) goes in a JSON body (``POST`` beside the ``GET``), since the HTTP
server cuts a request line past 64 KiB before any handler runs; one character more is a
400 naming the bound. The Python client sends a view that long that way by itself."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_kernel_state.client import KernelStateClient
from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.rest import ROUTES

pytestmark = pytest.mark.kernel

MAX_FILTER = ROUTES["rows"].param("filter").max
SETUP = """
import pandas as pd
df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None]})
"""


def filter_of(size: int) -> dict[str, Any]:
    """An ``in`` filter on ``b`` whose JSON (as ``json.dumps`` writes it) is ``size``
    characters: the most items, of the longest values the protocol allows, trimmed."""
    for length in range(protocol.MAX_FILTER_VALUE, 0, -1):
        items = ["v" * length for _ in range(protocol.MAX_FILTER_ITEMS - 1)] + ["x"]
        condition = {"column": "b", "op": "in", "value": items}
        short = size - len(json.dumps(condition))
        if 0 <= short < protocol.MAX_FILTER_VALUE:
            break
    items[-1] = "x" * (1 + short)
    assert len(json.dumps(condition)) == size
    return condition


async def post(jp_fetch: Any, kid: str, route: str, body: dict[str, Any]) -> Any:
    parts = ROUTES[route].path.format(kernel_id=kid, name="df").split("/")
    response = await jp_fetch("api", "kernel-state", *parts, method="POST",
                              body=json.dumps(body))
    return json.loads(response.body)


async def test_the_largest_filter_goes_in_a_body_and_one_more_character_is_a_400(  # type: ignore[no-untyped-def]
        jp_fetch, new_kernel):
    kernel = await new_kernel()
    await kernel.run(SETUP)
    kid = kernel.kernel_id
    largest = filter_of(MAX_FILTER)
    window = await post(jp_fetch, kid, "rows", {"filter": largest, "sort": "a:desc"})
    assert window["filtered_rows"] == 0 and window["view"]["sort"] == [
        {"column": "a", "desc": True}]
    # the same filter as JSON text in the body, and for the other views of a table
    assert (await post(jp_fetch, kid, "rows", {"filter": json.dumps(largest)}))["offset"] == 0
    assert (await post(jp_fetch, kid, "count", {"filter": largest}))["filtered"] is True
    assert (await post(jp_fetch, kid, "profile", {"filter": largest}))["view"]["filter"]
    assert "df_view" in (await post(jp_fetch, kid, "code", {"filter": largest}))["code"]
    for route in ("rows", "count", "profile", "code"):
        with pytest.raises(HTTPClientError) as e:
            await post(jp_fetch, kid, route, {"filter": filter_of(MAX_FILTER + 1)})
        assert e.value.code == 400
        assert b"filter must be at most 200,000 characters" in e.value.response.body


async def test_the_same_view_in_a_url_is_cut_before_any_handler(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """Why the body exists: the request line of this GET is past 64 KiB."""
    kernel = await new_kernel()
    query = {"filter": json.dumps(filter_of(MAX_FILTER))}
    with pytest.raises(Exception) as e:  # the connection is closed unanswered
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables", "df",
                       "rows", params=query)
    code = getattr(e.value, "code", 599)
    assert code == 599 or 400 <= code < 500


async def test_the_deepest_path_of_the_longest_keys_goes_in_a_body(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    path = ["é" * 1024] * protocol.MAX_PATH  # ≈ 200 KB in a URL once encoded
    with pytest.raises(HTTPClientError) as e:
        await post(jp_fetch, kernel.kernel_id, "variable", {"path": path})
    assert e.value.code == 404  # read, and looked for: no such child
    with pytest.raises(HTTPClientError) as e:
        await post(jp_fetch, kernel.kernel_id, "variable", {"path": [*path, "k"]})
    assert e.value.code == 400 and b"path is deeper than 32 levels" in e.value.response.body


async def test_the_client_sends_a_long_view_in_a_body(  # type: ignore[no-untyped-def]
        jp_serverapp, jp_fetch, jp_http_port, jp_base_url, new_kernel):
    kernel = await new_kernel()
    await kernel.run(SETUP)
    client = KernelStateClient(f"http://127.0.0.1:{jp_http_port}{jp_base_url}",
                               jp_serverapp.identity_provider.token, timeout=30)
    largest = filter_of(MAX_FILTER)
    window = await asyncio.to_thread(client.rows, kernel.kernel_id, "df", filter=largest)
    assert window["view"]["filter"]["op"] == "in"
    counted = await asyncio.to_thread(client.count, kernel.kernel_id, "df", filter=largest)
    assert counted["filtered"] is True
