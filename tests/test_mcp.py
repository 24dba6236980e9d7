"""The MCP tools through real MCP clients against running servers.

jupyter-server-mcp runs inside the Jupyter server (as it does for Jupyter AI v3) and
registers our tools from the `jupyter_server_mcp.tools` entry point and our authentication
from `jupyter_server_mcp.middleware`; fastmcp's client and the official MCP SDK's client
talk to it over streamable HTTP on loopback. The in-process tests use pytest-jupyter's
server; the last ones start two `jupyter server` processes with the default configuration.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import secrets
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from jupyter_server.auth.authorizer import Authorizer
from traitlets.config import Config

pytestmark = pytest.mark.kernel
fastmcp = pytest.importorskip("fastmcp")
from fastmcp.client.transports import StreamableHttpTransport  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from jupyter_kernel_state import mcp_auth  # noqa: E402

from .mcp_clients import SDKError, http_library, is_error, mime_type  # noqa: E402
from .mcp_clients import sdk_refusal as _sdk_refusal_with  # noqa: E402
from .mcp_clients import sdk_session as _sdk_session  # noqa: E402

TOOL_NAMES = {"list_kernels", "list_variables", "inspect_variable", "get_rows",
              "describe_table", "variable_timeline", "get_images", "kernel_state_prompt"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}
SSE = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def jp_server_config():  # type: ignore[no-untyped-def]
    return Config({
        "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True,
                                              "jupyter_server_mcp": True}},
        "MCPExtensionApp": {"mcp_port": 0, "mcp_name": "kernel-state-test"},
        # A loaded machine must not turn a slow validation into a refusal.
        "KernelStateMCPAuth": {"validation_timeout": 30.0},
    })


@pytest.fixture
def mcp_app(jp_serverapp, http_server):  # type: ignore[no-untyped-def]
    """Start the server's MCP extension (the test server does not) and return it.

    ``http_server`` makes the Jupyter server listen: the middleware validates tokens by
    asking it over loopback."""

    async def start() -> Any:
        manager = jp_serverapp.extension_manager
        await manager.start_extension("jupyter_server_mcp")
        (app,) = manager.extension_apps["jupyter_server_mcp"]
        return app

    return start


@pytest.fixture
def mcp_url(mcp_app):  # type: ignore[no-untyped-def]
    async def start() -> str:
        app = await mcp_app()
        return f"http://127.0.0.1:{app.mcp_server_instance.port}/mcp"

    return start


@pytest.fixture
def token(jp_serverapp) -> str:  # type: ignore[no-untyped-def]
    return str(jp_serverapp.identity_provider.token)


def _client(url: str, authorization: str | None = None) -> Any:
    """fastmcp's client, sending ``Authorization: <authorization>`` when given."""
    headers = {"Authorization": authorization} if authorization else None
    return fastmcp.Client(StreamableHttpTransport(url, headers=headers))


def _headers(authorization: str | None) -> dict[str, str]:
    return {"Authorization": authorization} if authorization else {}


@asynccontextmanager
async def sdk_session(url: str, authorization: str | None = None
                      ) -> AsyncIterator[ClientSession]:
    """The official MCP SDK's client, initialized."""
    async with _sdk_session(url, _headers(authorization)) as session:
        yield session


async def _sdk_refusal(url: str, authorization: str | None = None) -> Any:
    return await _sdk_refusal_with(url, _headers(authorization))


async def _fastmcp_refusal(url: str, authorization: str | None = None) -> Any:
    with pytest.raises(SDKError) as refused:
        async with _client(url, authorization) as client:
            await client.list_tools()
    return refused.value


def _json(result) -> dict:  # type: ignore[no-untyped-def]
    return json.loads(result.content[0].text)


async def test_a_real_mcp_client_lists_inspects_and_receives_a_plot(
    jp_serverapp, new_kernel, mcp_url, token
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "import pandas as pd\nsales = pd.DataFrame({'region': ['n', 's'], 'units': [1, 2]})\n"
        "api_key = 'sk-demo-abcdefghijklmnop'\n"
        "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
        "plt.figure(figsize=(2, 2), dpi=40); plt.plot([1, 2]); plt.show()"
    )
    url = await mcp_url()
    async with fastmcp.Client(url, auth=token) as client:  # auth=: "Bearer <token>"
        tools = {tool.name for tool in await client.list_tools()}
        assert tools >= TOOL_NAMES

        kernels = _json(await client.call_tool("list_kernels", {}))
        assert [k["kernel_id"] for k in kernels["kernels"]] == [kernel.kernel_id]
        assert kernels["kernels"][0]["path"] is None  # started without a session

        listed = _json(await client.call_tool("list_variables", {}))  # default kernel
        names = {v["name"]: v for v in listed["variables"]}
        assert names["sales"]["shape"] == [2, 2]
        assert names["api_key"]["preview"] == "masked (looks like a credential)"

        detail = _json(await client.call_tool("inspect_variable", {"name": "sales"}))
        assert [c["name"] for c in detail["columns"]] == ["region", "units"]

        missing = await client.call_tool("inspect_variable", {"name": "nope"},
                                         raise_on_error=False)
        assert missing.is_error and (f"Variable not found: nope in kernel {kernel.kernel_id}"
                                     in missing.content[0].text)

        images = await client.call_tool("get_images", {})
        meta = json.loads(images.content[0].text)
        assert [i["execution_count"] for i in meta["images"]] == [1]
        picture = images.content[1]
        assert picture.type == "image" and mime_type(picture) == "image/png"
        assert base64.b64decode(picture.data).startswith(b"\x89PNG")
        again = await client.call_tool("get_images", {})  # "since your last turn"
        assert json.loads(again.content[0].text)["images"] == []

        prompt = await client.call_tool("kernel_state_prompt", {"budget": 2000})
        text = prompt.content[0].text
        assert text.startswith(f"[kernel {kernel.kernel_id}]\n")
        assert len(text) <= 2000 and "- sales: DataFrame 2×2" in text
        assert "sk-demo" not in text


async def test_an_agent_asks_names_then_schema_then_full_then_when(
    jp_serverapp, new_kernel, mcp_url, token
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    for cell in [
        "import numpy as np, pandas as pd\n"
        "sales = pd.DataFrame({'price': np.arange(100000) * 1.0, 'units': np.arange(100000)})\n"
        "api_key = 'sk-demo-abcdefghijklmnop'",
        "sales = sales[sales.price > 4008]",
        "sales['revenue'] = sales.price * sales.units",
    ]:
        await kernel.run(cell)
    url = await mcp_url()
    async with fastmcp.Client(url, auth=token) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert '"schema"' in (tools["list_variables"].description or "")
        names = _json(await client.call_tool("list_variables", {"detail": "names"}))
        assert names["variables"] == [{"name": "api_key", "type": "str", "kind": "string"},
                                      {"name": "sales", "type": "DataFrame", "kind": "dataframe"}]
        schema = _json(await client.call_tool("list_variables", {"detail": "schema"}))
        sales = {v["name"]: v for v in schema["variables"]}["sales"]
        assert sales["shape"] == [95991, 3] and [c["name"] for c in sales["columns"]] == [
            "price", "units", "revenue"]
        assert "preview" not in sales
        full = _json(await client.call_tool("list_variables", {"detail": "full"}))
        assert {v["name"]: v for v in full["variables"]}["sales"]["preview"].startswith(
            "95,991×3")
        assert "sk-demo" not in json.dumps([names, schema, full])
        sizes = [len(json.dumps(x)) for x in (names, schema, full)]
        assert sizes[0] < min(sizes[1:]), sizes  # schema holds columns; full, previews
        timeline = _json(await client.call_tool("variable_timeline", {"name": "sales"}))
        assert [(e["execution_count"], e["changes"]) for e in timeline["entries"]] == [
            (1, []), (2, ["rows 100,000 → 95,991"]), (3, ["column revenue added"])]
        # its lineage: which cells bound and read it, the head of their code
        assert [(e["execution_count"], e["kind"]) for e in timeline["defined_in"]] == [
            (1, "bound"), (2, "bound"), (3, "changed")]
        assert [e["execution_count"] for e in timeline["used_in"]] == [2, 3]
        assert timeline["used_in"][0]["code"] == "sales = sales[sales.price > 4008]"
        assert timeline["unknown"] == []
        short = _json(await client.call_tool("variable_timeline",
                                             {"name": "sales", "lineage_limit": 1}))
        assert [e["execution_count"] for e in short["defined_in"]] == [3]
        bad = await client.call_tool("list_variables", {"detail": "all"}, raise_on_error=False)
        assert bad.is_error and "detail must be one of names, schema, full" in bad.content[0].text


@pytest.mark.parametrize("attributes", [False, True])
async def test_inspect_variable_is_quiet_masks_inside_and_says_what_changed(
    jp_serverapp, new_kernel, mcp_url, token, attributes
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("api_key = 'not-a-pattern-but-a-name'\n"
                     "cfg = {'password': 'swordfish', 'depth': 6}\n"
                     "config = {'model': 'gbm', 'depth': 6}")
    await kernel.run("config['depth'] = 8")
    url = await mcp_url()
    async with fastmcp.Client(url, auth=token) as client:
        call = client.call_tool
        key = await call("inspect_variable", {"name": "api_key", "attributes": attributes})
        detail = _json(key)
        names = [a["name"] for a in detail["attributes"]]
        if attributes:  # every attribute of a str is a method
            assert "upper" in names and "attributes_omitted" not in detail
        else:
            assert names == [] and detail["attributes_omitted"] == detail["attributes_total"] > 40
            assert len(key.content[0].text) < 1200  # was 2,376 characters, mostly methods
        assert "not-a-pattern" not in key.content[0].text
        cfg = await call("inspect_variable", {"name": "cfg", "attributes": attributes})
        assert "swordfish" not in cfg.content[0].text and _json(cfg)["likely_secret"] is True
        config = _json(await call("inspect_variable", {"name": "config"}))
        assert config["change"] == "modified" and config["changes"] == ["depth 6 → 8"]
        listed = {v["name"]: v for v in _json(await call("list_variables", {}))["variables"]}
        assert listed["config"]["changes"] == ["depth 6 → 8"]
        assert "swordfish" not in json.dumps(listed)
        timeline = _json(await call("variable_timeline", {"name": "config"}))
        assert timeline["entries"][-1]["changes"] == ["depth 6 → 8"]
        prompt = (await call("kernel_state_prompt", {})).content[0].text
        assert "config (depth 6 → 8)" in prompt and "swordfish" not in prompt


async def test_describe_table_is_the_profile_bounded_for_an_agent(
    jp_serverapp, new_kernel, mcp_url, token
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "import numpy as np, pandas as pd\n"
        "wide = pd.DataFrame({f'c{i}': np.arange(1000) % (i + 2) for i in range(60)})\n"
        "wide['word'] = [f'w{i % 12}' for i in range(1000)]\n"
        "wide.loc[3, 'c0'] = None")
    url = await mcp_url()
    async with fastmcp.Client(url, auth=token) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert "describe_table" in tools and "filter" in (tools["describe_table"].description or "")
        first = _json(await client.call_tool(
            "describe_table", {"name": "wide", "kernel_id": kernel.kernel_id[:8]}))
        assert (first["kernel_id"], first["kernel_path"]) == (kernel.kernel_id, None)
        assert first["columns_total"] == 61 and len(first["columns"]) == 50
        assert first["cut"] == 'columns 50-60 of 61 not asked: columns="50:61" for the next'
        c0 = first["columns"][0]
        assert (c0["family"], c0["count"], c0["null_count"], c0["min"], c0["max"]) == (
            "number", 999, 1, 0.0, 1.0)
        rest = _json(await client.call_tool(
            "describe_table", {"name": "wide", "columns": "50:61",
                               "filter": {"column": "c1", "op": "eq", "value": 0}}))
        word = rest["columns"][-1]
        assert rest["filtered_rows"] == 334 and rest["total_rows"] == 1000
        assert word["family"] == "string" and word["distinct"] == 4
        assert len(word["top"]) == 4 and word["other"] == 0
        everything = _json(await client.call_tool("describe_table",
                                                  {"name": "wide", "columns": "60"}))
        word = everything["columns"][0]
        assert len(word["top"]) == 5 and word["distinct"] == 12  # at most 5 per call
        assert word["other"] == 1000 - sum(e["count"] for e in word["top"])
        assert "the first 5 listed per column" in everything["cut"]
        many = await client.call_tool("describe_table", {"name": "wide", "columns": "0:60"},
                                      raise_on_error=False)
        assert many.is_error and "at most 50 columns" in many.content[0].text
        missing = await client.call_tool("describe_table", {"name": "nope"},
                                         raise_on_error=False)
        assert missing.is_error and f"Variable not found: nope in kernel {kernel.kernel_id}" in (
            missing.content[0].text)


async def test_get_rows_takes_a_filter_tree_and_sort_keys(
    jp_serverapp, new_kernel, mcp_url, token
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\nsales = pd.DataFrame({'region': list('nsewnsew'), "
                     "'units': [3, 1, 2, 2, 5, 0, None, 2]})")
    url = await mcp_url()
    async with fastmcp.Client(url, auth=token) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert '"or"' in (tools["get_rows"].description or "")
        tree = {"or": [{"column": "region", "op": "in", "value": ["n", "e"]},
                       {"column": "units", "op": "between", "value": [2, 3]}]}
        for sort in ("units:desc,region", [{"column": "units", "desc": True},
                                           {"column": "region"}]):
            window = _json(await client.call_tool(
                "get_rows", {"name": "sales", "filter": tree, "sort": sort}))
            assert window["filtered_rows"] == 6 and window["sort"] == "units:desc,region:asc"
            assert window["index"] == ["4", "0", "2", "3", "7", "6"]  # NaN last
        bad = await client.call_tool("get_rows", {"name": "sales", "filter": {
            "column": "units", "op": "between", "value": [1]}}, raise_on_error=False)
        assert bad.is_error and "filter between needs a value [low, high]" in bad.content[0].text


async def test_tools_report_clear_errors(jp_serverapp, mcp_url, token):  # type: ignore[no-untyped-def]
    url = await mcp_url()
    async with _client(url, f"token {token}") as client:
        none = await client.call_tool("list_variables", {}, raise_on_error=False)
        assert none.is_error and "No kernel is running" in none.content[0].text
        bad = await client.call_tool(
            "list_variables", {"kernel_id": "00000000-0000-0000-0000-000000000000"},
            raise_on_error=False)
        assert bad.is_error and "Kernel does not exist" in bad.content[0].text


async def test_only_a_token_the_server_accepts_opens_mcp(
    jp_serverapp, mcp_app, token, caplog
):  # type: ignore[no-untyped-def]
    caplog.set_level(logging.DEBUG)
    app = await mcp_app()
    url = f"http://127.0.0.1:{app.mcp_server_instance.port}/mcp"
    # Our defaults for what the test config leaves unset: loopback only.
    assert app.mcp_server_instance.host == "127.0.0.1"
    wrong = secrets.token_hex(24)

    # No credentials, a wrong token, a scheme Jupyter does not take: refused, by both clients,
    # before any tool is listed.
    for authorization in (None, f"token {wrong}", f"Bearer {wrong}", f"Basic {token}"):
        for refusal in (await _fastmcp_refusal(url, authorization),
                        await _sdk_refusal(url, authorization)):
            assert refusal.error.code == mcp_auth.UNAUTHORIZED
            assert "requires a Jupyter server token" in refusal.error.message
            assert token not in refusal.error.message and wrong not in refusal.error.message
    assert "does not accept this credential" in (
        await _sdk_refusal(url, f"token {wrong}")).error.message

    # The server's own token, in either scheme Jupyter accepts, with the official SDK.
    for authorization in (f"token {token}", f"Bearer {token}"):
        async with sdk_session(url, authorization) as session:
            assert {t.name for t in (await session.list_tools()).tools} >= TOOL_NAMES
            result = await session.call_tool("list_kernels", {})
            assert not is_error(result) and json.loads(result.content[0].text) == {"kernels": []}

    # Every message is checked, not just the session's start: a session opened with the
    # token cannot be used without it.
    async with http_library.AsyncClient(timeout=30) as http:
        opened = await http.post(url, json=INIT, headers={**SSE, "Authorization": f"token {token}"})
        assert opened.status_code == 200 and '"result"' in opened.text
        session = {**SSE, "mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-06-18"}
        for method, params in (("tools/list", {}), ("ping", {}),
                               ("tools/call", {"name": "list_kernels", "arguments": {}})):
            reply = await http.post(url, headers=session, json={
                "jsonrpc": "2.0", "id": 2, "method": method, "params": params})
            if method == "ping" and fastmcp.__version__.startswith("3."):
                # fastmcp 3 answers ping in the SDK, before any middleware: an empty result,
                # nothing a listening port does not already say.
                assert '"result":{}' in reply.text
                continue
            assert "Unauthorized: no credentials" in reply.text, method
            if method == "tools/call" and fastmcp.__version__.startswith("3."):
                # fastmcp 3 turns any error inside a tool call into an error result.
                assert '"isError":true' in reply.text and '"kernels"' not in reply.text
                continue
            assert f'"code":{mcp_auth.UNAUTHORIZED}' in reply.text, method
            assert '"result"' not in reply.text

    # Verdicts are cached per credential (so far: one loopback call for the good token and
    # one for the wrong one), for the configured TTL, in a bounded cache.
    auth = mcp_auth.current()
    assert auth is not None and auth.validations == 2
    async with sdk_session(url, f"token {token}") as session:
        await session.list_tools()
    assert auth.validations == 2
    auth.cache_ttl = 0  # ask the server every time
    async with sdk_session(url, f"token {token}") as session:
        await session.list_tools()
    assert auth.validations >= 4  # at least initialize and tools/list
    auth.cache_ttl, auth.cache_size = 30, 3
    for _ in range(5):
        assert not (await auth.verdict(secrets.token_hex(8))).allowed
    assert auth.cached_verdicts == 3

    # Neither token reached the logs.
    assert token not in caplog.text and wrong not in caplog.text


class NoExecuteAuthorizer(Authorizer):
    """A deployment where the user may read kernels but not execute code in them."""

    def is_authorized(self, handler, user, action, resource):  # type: ignore[no-untyped-def]
        return not (action == "execute" and resource == "kernels")


class TestWithoutExecute:
    @pytest.fixture
    def jp_server_config(self):  # type: ignore[no-untyped-def]
        return Config({
            "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True,
                                                  "jupyter_server_mcp": True},
                          "authorizer_class": NoExecuteAuthorizer},
            "MCPExtensionApp": {"mcp_port": 0},
        })

    async def test_a_token_without_execute_on_kernels_is_refused(
        self, jp_fetch, mcp_url, token
    ):  # type: ignore[no-untyped-def]
        me = json.loads((await jp_fetch("api", "me")).body)  # the token itself is accepted
        assert me["identity"]["username"]
        url = await mcp_url()
        for refusal in (await _fastmcp_refusal(url, f"token {token}"),
                        await _sdk_refusal(url, f"Bearer {token}")):
            assert refusal.error.code == mcp_auth.UNAUTHORIZED
            assert "'execute' on 'kernels'" in refusal.error.message


class TestExplicitMCPSettings:
    @pytest.fixture
    def jp_server_config(self):  # type: ignore[no-untyped-def]
        return Config({
            "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True,
                                                  "jupyter_server_mcp": True}},
            "MCPExtensionApp": {"mcp_port": _free_port()},
            "MCPServer": {"host": "localhost"},
            "KernelStateMCPAuth": {"cache_ttl": 7.5},
        })

    async def test_what_the_user_configured_is_kept(
        self, jp_server_config, mcp_app
    ):  # type: ignore[no-untyped-def]
        app = await mcp_app()
        assert app.mcp_server_instance.port == jp_server_config.MCPExtensionApp.mcp_port
        assert app.mcp_server_instance.host == "localhost"
        auth = mcp_auth.current()
        assert auth is not None and auth.cache_ttl == 7.5


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- Two `jupyter server` processes with the default configuration -------------------------


class Server:
    def __init__(self, process: subprocess.Popen[bytes], token: str, log: Path) -> None:
        self.process, self.token, self.log = process, token, log
        self.info: dict[str, Any] = {}
        self.mcp: dict[str, Any] = {}


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory) -> Iterator[tuple[dict[str, str], list[Server]]]:  # type: ignore[no-untyped-def]
    """Two servers on one machine, sharing a runtime directory, each with its own token.

    The configuration enables the extensions but sets nothing about MCP: the port and host
    are whatever installing jupyter_kernel_state gives."""
    root = tmp_path_factory.mktemp("servers")
    config_dir = root / "config"
    config_dir.mkdir()
    # Only what these tests need, to keep start-up light on a small machine.
    (config_dir / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {
        "jpserver_extensions": {"jupyter_kernel_state": True, "jupyter_server_mcp": True,
                                "jupyterlab": False, "jupyter_lsp": False,
                                "notebook_shim": False, "jupyter_server_terminals": False},
    }}))
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
           "JUPYTER_CONFIG_DIR": str(config_dir), "JUPYTER_DATA_DIR": str(root / "data")}
    for name in ("JUPYTER_TOKEN", "JUPYTER_SERVER_URL", "JUPYTER_SERVER_MCP_URL"):
        env.pop(name, None)
    servers = []
    for i in range(2):
        token = secrets.token_hex(16)
        log = root / f"server{i}.log"
        project = root / f"project{i}"
        project.mkdir()
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "jupyter_server", "--port=0", "--no-browser",
                 "--allow-root", f"--IdentityProvider.token={token}",
                 f"--ServerApp.root_dir={project}"],
                env=env, stdout=out, stderr=subprocess.STDOUT, cwd=project,
            )
        servers.append(Server(process, token, log))
    try:
        runtime = root / "runtime"
        deadline = time.monotonic() + 90
        for server in servers:
            pid = server.process.pid
            while not (runtime / f"jpserver-mcp-{pid}.json").exists():
                if server.process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"server did not start:\n{server.log.read_text()[-3000:]}")
                time.sleep(0.1)
            server.info = json.loads((runtime / f"jpserver-{pid}.json").read_text())
            server.mcp = json.loads((runtime / f"jpserver-mcp-{pid}.json").read_text())
        yield env, servers
    finally:
        for server in servers:
            server.process.terminate()
        for server in servers:
            try:
                server.process.wait(15)
            except subprocess.TimeoutExpired:
                server.process.kill()
                server.process.wait(5)


async def test_two_servers_with_the_default_config_serve_mcp_on_their_own_ports(
    two_servers,
):  # type: ignore[no-untyped-def]
    _, (first, second) = two_servers
    assert first.mcp["port"] != second.mcp["port"]
    for server in (first, second):
        assert server.mcp["host"] == "127.0.0.1"
        assert server.mcp["url"] == f"http://127.0.0.1:{server.mcp['port']}/mcp"
    for server, other in ((first, second), (second, first)):
        async with _client(server.mcp["url"], f"token {server.token}") as client:
            assert {t.name for t in await client.list_tools()} >= TOOL_NAMES
            assert _json(await client.call_tool("list_kernels", {})) == {"kernels": []}
        # The other server's token (another user's, say) opens nothing here.
        refusal = await _sdk_refusal(server.mcp["url"], f"token {other.token}")
        assert refusal.error.code == mcp_auth.UNAUTHORIZED


async def _cli(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "jupyter_kernel_state.cli", *args, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode(), err.decode()


async def test_cli_mcp_config_prints_each_servers_url_and_a_working_config(
    two_servers,
):  # type: ignore[no-untyped-def]
    env, servers = two_servers
    code, out, err = await _cli(env, "--json", "mcp-config")
    assert code == 0, err
    entries = {entry["pid"]: entry for entry in json.loads(out)}
    assert set(entries) == {server.process.pid for server in servers}
    for server in servers:
        entry = entries[server.process.pid]
        assert entry["mcp_url"] == server.mcp["url"]
        assert entry["server_url"] == server.info["url"]
        assert entry["headers"] == {"Authorization": f"token {server.token}"}

    # --url picks one server; the default output is a snippet that works as pasted.
    second = servers[1]
    code, out, err = await _cli(env, "--url", f"http://127.0.0.1:{second.info['port']}/",
                                "mcp-config")
    assert code == 0, err
    assert f"# MCP URL: {second.mcp['url']}" in out and servers[0].mcp["url"] not in out
    snippet = json.loads(out[out.index("{"):])
    config = snippet["mcpServers"]["jupyter-kernel-state"]
    assert config["url"] == second.mcp["url"]
    async with sdk_session(config["url"], config["headers"]["Authorization"]) as session:
        assert {t.name for t in (await session.list_tools()).tools} >= TOOL_NAMES

    code, out, _ = await _cli({**env, "JUPYTER_TOKEN": "from-env"}, "--url",
                              second.info["url"], "mcp-config", "--format", "claude")
    assert code == 0
    assert (f"claude mcp add --transport http jupyter-kernel-state {second.mcp['url']} "
            f"--header 'Authorization: token from-env'") in out
    code, out, _ = await _cli(env, "--url", second.info["url"], "mcp-config",
                              "--format", "codex")
    assert code == 0
    assert f'url = "{second.mcp["url"]}"\nbearer_token_env_var = "JUPYTER_TOKEN"' in out

    # A URL no running server has: a clear error.
    code, _, err = await _cli(env, "--url", "http://127.0.0.1:1/", "mcp-config")
    assert code == 1 and "no running Jupyter server with an MCP server at" in err


async def test_cli_mcp_proxy_serves_the_servers_tools_on_stdio_with_its_token(
    two_servers,
):  # type: ignore[no-untyped-def]
    """For clients that start a command: no port or token in their configuration."""
    env, (first, second) = two_servers
    # A kernel in the second server only, to tell the servers apart through MCP.
    async with http_library.AsyncClient(timeout=60) as http:
        started = await http.post(f"{second.info['url']}api/kernels", json={},
                                  headers={"Authorization": f"token {second.token}"})
        assert started.status_code == 201, started.text
        kernel_id = started.json()["id"]

    code, out, _ = await _cli(env, "--url", second.info["url"], "mcp-config",
                              "--format", "stdio")
    assert code == 0
    snippet = out[out.index("{"):]
    assert second.token not in snippet and second.mcp["url"] not in snippet, out
    configured = json.loads(snippet)["mcpServers"]["jupyter-kernel-state"]

    launches = {
        # as `mcp-config --format stdio` prints it
        "configured": (configured["command"], configured["args"], first.info["root_dir"]),
        # by working directory, as jupyter_server_mcp.proxy picks a server
        "by cwd": (sys.executable, ["-m", "jupyter_kernel_state.cli", "mcp-proxy"],
                   second.info["root_dir"]),
    }
    for label, (command, args, cwd) in launches.items():
        params = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
        async with (stdio_client(params) as streams,
                    ClientSession(streams[0], streams[1]) as session):
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} >= TOOL_NAMES, label
            listed = json.loads((await session.call_tool("list_kernels", {})).content[0].text)
            assert [k["kernel_id"] for k in listed["kernels"]] == [kernel_id], label
