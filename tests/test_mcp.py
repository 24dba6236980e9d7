"""The MCP tools through a real MCP client session against a running server.

jupyter-server-mcp runs inside the Jupyter server (as it does for Jupyter AI v3) and
registers our tools from the `jupyter_server_mcp.tools` entry point; fastmcp's client
talks to it over streamable HTTP on loopback.
"""

from __future__ import annotations

import base64
import json

import pytest
from traitlets.config import Config

pytestmark = pytest.mark.kernel
fastmcp = pytest.importorskip("fastmcp")

TOOL_NAMES = {"list_kernels", "list_variables", "inspect_variable", "get_images",
              "kernel_state_prompt"}


@pytest.fixture
def jp_server_config():  # type: ignore[no-untyped-def]
    return Config({
        "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True,
                                              "jupyter_server_mcp": True}},
        "MCPExtensionApp": {"mcp_port": 0, "mcp_name": "kernel-state-test"},
    })


@pytest.fixture
def mcp_url(jp_serverapp):  # type: ignore[no-untyped-def]
    """Start the server's extensions (the test server does not) and return the MCP URL."""

    async def start() -> str:
        manager = jp_serverapp.extension_manager
        await manager.start_extension("jupyter_server_mcp")
        (app,) = manager.extension_apps["jupyter_server_mcp"]
        return f"http://127.0.0.1:{app.mcp_server_instance.port}/mcp"

    return start


def _json(result) -> dict:  # type: ignore[no-untyped-def]
    return json.loads(result.content[0].text)


async def test_a_real_mcp_client_lists_inspects_and_receives_a_plot(
    jp_serverapp, new_kernel, mcp_url
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "import pandas as pd\nsales = pd.DataFrame({'region': ['n', 's'], 'units': [1, 2]})\n"
        "api_key = 'sk-demo-abcdefghijklmnop'\n"
        "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
        "plt.figure(figsize=(2, 2), dpi=40); plt.plot([1, 2]); plt.show()"
    )
    url = await mcp_url()
    async with fastmcp.Client(url) as client:
        tools = {tool.name for tool in await client.list_tools()}
        assert tools >= TOOL_NAMES

        kernels = _json(await client.call_tool("list_kernels", {}))
        assert [k["kernel_id"] for k in kernels["kernels"]] == [kernel.kernel_id]

        listed = _json(await client.call_tool("list_variables", {}))  # default kernel
        names = {v["name"]: v for v in listed["variables"]}
        assert names["sales"]["shape"] == [2, 2]
        assert names["api_key"]["preview"] == "masked (looks like a credential)"

        detail = _json(await client.call_tool("inspect_variable", {"name": "sales"}))
        assert [c["name"] for c in detail["columns"]] == ["region", "units"]

        missing = await client.call_tool("inspect_variable", {"name": "nope"},
                                         raise_on_error=False)
        assert missing.is_error and "Variable not found: nope" in missing.content[0].text

        images = await client.call_tool("get_images", {})
        meta = json.loads(images.content[0].text)
        assert [i["execution_count"] for i in meta["images"]] == [1]
        picture = images.content[1]
        assert picture.type == "image" and picture.mime_type == "image/png"
        assert base64.b64decode(picture.data).startswith(b"\x89PNG")
        again = await client.call_tool("get_images", {})  # "since your last turn"
        assert json.loads(again.content[0].text)["images"] == []

        prompt = await client.call_tool("kernel_state_prompt", {"budget": 2000})
        text = prompt.content[0].text
        assert len(text) <= 2000 and "- sales: DataFrame 2×2" in text
        assert "sk-demo" not in text


async def test_tools_report_clear_errors(jp_serverapp, mcp_url):  # type: ignore[no-untyped-def]
    url = await mcp_url()
    async with fastmcp.Client(url) as client:
        none = await client.call_tool("list_variables", {}, raise_on_error=False)
        assert none.is_error and "No kernel is running" in none.content[0].text
        bad = await client.call_tool(
            "list_variables", {"kernel_id": "00000000-0000-0000-0000-000000000000"},
            raise_on_error=False)
        assert bad.is_error and "Kernel does not exist" in bad.content[0].text
