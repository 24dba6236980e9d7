"""Through a real MCP client against the server's jupyter-server-mcp: list_variables reaches
one execution's variables in any namespace (changed_in) and keeps the namespace's total
apart from what a filter matched; get_images says which cell drew each image (its
ordinal, execution count and code, each cell once)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.kernel
fastmcp = pytest.importorskip("fastmcp")
from .test_images_history import MAKE_PNG  # noqa: E402
from .test_mcp import jp_server_config, mcp_app, mcp_url, token  # noqa: E402, F401


async def test_get_images_names_the_cell_that_drew_each_image(
    jp_serverapp, new_kernel, mcp_url, token  # noqa: F811
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    first = MAKE_PNG + "publish({'image/png': base64.b64encode(make_png(5, 5)).decode()})"
    loop = ("for i in range(3):\n"
            "    publish({'image/png': base64.b64encode(make_png(2, 2, salt=i)).decode()})")
    await kernel.run(first)
    await kernel.run(loop)
    url = await mcp_url()
    async with fastmcp.Client(url, auth=token) as client:
        result = await client.call_tool("get_images", {"limit": 10})
        meta = json.loads(result.content[0].text)
        assert [(i["seq"], i["execution_count"]) for i in meta["images"]] == [
            (1, 1), (2, 2), (3, 2), (4, 2)]
        assert meta["cells"] == [
            {"execution_count": 1, "code": first, "code_truncated": False},
            {"execution_count": 2, "code": loop, "code_truncated": False},
        ]
        assert meta["dropped"] == 0
        assert len(result.content) == 5  # the text, then the four PNGs


async def test_list_variables_reaches_one_executions_variables(
    jp_serverapp, new_kernel, mcp_url, token  # noqa: F811
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("globals().update({f'v{i:05d}': i for i in range(5_000)})")
    await kernel.run("wide = [1, 2, 3]\nv00007 = -7")
    url = await mcp_url()
    async with fastmcp.Client(url, auth=token) as client:
        first = json.loads((await client.call_tool("list_variables", {"detail": "names"}))
                           .content[0].text)
        assert "wide" not in {v["name"] for v in first["variables"]}
        assert first["total"] == first["matched"] == 5_001
        changed = json.loads((await client.call_tool(
            "list_variables", {"changed_in": 2, "detail": "schema"})).content[0].text)
        assert [(v["name"], v["changed_at"]) for v in changed["variables"]] == [
            ("v00007", 2), ("wide", 2)]
        assert (changed["matched"], changed["total"]) == (2, 5_001)
        filtered = json.loads((await client.call_tool(
            "list_variables", {"filter": "wid*"})).content[0].text)
        assert (filtered["matched"], filtered["total"]) == (1, 5_001)
        kernels = json.loads((await client.call_tool("list_kernels", {})).content[0].text)
        assert kernels["kernels"][0]["variables_total"] == 5_001
