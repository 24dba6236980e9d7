"""MCP get_images says which cell drew each image: its ordinal, execution count and code
(each cell once), through a real MCP client against the server's jupyter-server-mcp."""

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
