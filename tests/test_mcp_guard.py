"""Our MCP tools are served only behind our authentication, whichever way they get onto
jupyter-server-mcp's server, and they say which kernel they read.

In-process servers (pytest-jupyter's) with jupyter-server-mcp started as the server starts
it; the installed generation of jupyter-server-mcp (0.3 with Jupyter AI 3 in the main venv,
0.4 in the test command's second venv) is the one exercised.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from traitlets.config import Config

pytestmark = pytest.mark.kernel
fastmcp = pytest.importorskip("fastmcp")

from jupyter_kernel_state import mcp_auth, mcp_server  # noqa: E402

from .mcp_clients import is_error, sdk_refusal, sdk_session  # noqa: E402

OURS = {name.rsplit(":", 1)[1] for name in mcp_server.TOOL_SPECS}
BOTH = {"jupyter_kernel_state": True, "jupyter_server_mcp": True}


@pytest.fixture
def jp_server_config():  # type: ignore[no-untyped-def]
    return Config({
        "ServerApp": {"jpserver_extensions": BOTH},
        "MCPExtensionApp": {"mcp_port": 0},
        "KernelStateMCPAuth": {"validation_timeout": 30.0},
    })


@pytest.fixture
def start_mcp(jp_serverapp, http_server):  # type: ignore[no-untyped-def]
    """Start jupyter-server-mcp as the server does at start-up; return its URL."""

    async def start() -> str:
        manager = jp_serverapp.extension_manager
        await manager.start_extension("jupyter_server_mcp")
        (app,) = manager.extension_apps["jupyter_server_mcp"]
        return mcp_server.mcp_url(app.mcp_server_instance)

    return start


@pytest.fixture
def token(jp_serverapp) -> str:  # type: ignore[no-untyped-def]
    return str(jp_serverapp.identity_provider.token)


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"token {token}"}


async def _tools(url: str, headers: dict[str, str]) -> set[str]:
    async with sdk_session(url, headers) as session:
        return {tool.name for tool in (await session.list_tools()).tools}


def _our_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.levelno >= logging.ERROR and "jupyter_kernel_state" in r.getMessage()]


async def test_when_the_authentication_cannot_be_attached_none_of_our_tools_is_served(
    start_mcp, token, monkeypatch, caplog
):  # type: ignore[no-untyped-def]
    """As with jupyter-server-mcp 0.4.1 forced beside fastmcp 3: the middleware's import
    fails. The MCP server then runs without it, as it would without us, and without our
    tools; the log says why in one line."""

    def broken() -> type:
        raise ImportError("cannot import name 'MCPError' from 'mcp'")

    monkeypatch.setattr(mcp_auth, "middleware_class", broken)
    caplog.set_level(logging.INFO)
    url = await start_mcp()
    listed = await _tools(url, {})  # nothing of ours to protect: the server is open as without us
    assert not listed & OURS, listed & OURS
    (line,) = _our_errors(caplog)
    message = line.getMessage()
    assert "tools are not served" in message and "cannot import name 'MCPError'" in message
    assert "\n" not in message and line.exc_info is None


class TestToolsRegisteredByHand:
    """A user lists our tools in ``MCPExtensionApp.mcp_tools`` with discovery off: our
    entry point never runs, so no authentication is attached -- the tools refuse."""

    @pytest.fixture
    def jp_server_config(self):  # type: ignore[no-untyped-def]
        return Config({
            "ServerApp": {"jpserver_extensions": BOTH},
            "MCPExtensionApp": {
                "mcp_port": 0, "use_tool_discovery": False,
                "mcp_tools": ["jupyter_kernel_state.mcp_tools:list_kernels",
                              "jupyter_kernel_state.mcp_tools:list_variables"],
            },
        })

    async def test_they_answer_nothing(self, start_mcp):  # type: ignore[no-untyped-def]
        url = await start_mcp()
        async with sdk_session(url, {}) as session:
            for name in ("list_kernels", "list_variables"):
                result = await session.call_tool(name, {})
                assert is_error(result), name
                text = result.content[0].text
                assert "answer only behind its authentication" in text
                assert "kernels" not in text.replace("MCP tools", "")


async def test_the_agent_credential_opens_mcp_and_nothing_else(
    jp_serverapp, jp_fetch, start_mcp, token, caplog
):  # type: ignore[no-untyped-def]
    caplog.set_level(logging.DEBUG)
    url = await start_mcp()
    auth = mcp_auth.current()
    assert auth is not None
    credential = auth.agent_credential
    assert len(credential) >= 40 and credential != token
    assert await _tools(url, _auth(credential)) >= OURS
    assert await _tools(url, {"Authorization": f"Bearer {credential}"}) >= OURS
    # One character off, or the credential of another process: refused.
    other = credential[:-1] + ("A" if credential[-1] != "A" else "B")
    refusal = await sdk_refusal(url, _auth(other))
    assert refusal.error.code == mcp_auth.UNAUTHORIZED
    # Not a server credential: REST refuses it.
    from tornado.httpclient import HTTPClientError

    with pytest.raises(HTTPClientError) as refused:
        await jp_fetch("api", "kernel-state", "kernels", headers=_auth(credential))
    assert refused.value.code == 403
    # Never written anywhere: not in the runtime files, not in the log.
    runtime = Path(jp_serverapp.runtime_dir)
    for path in runtime.rglob("*"):
        if path.is_file():
            assert credential not in path.read_text(errors="replace"), path
    assert credential not in caplog.text


async def test_tools_name_the_kernel_and_take_a_unique_id_prefix(
    jp_serverapp, jp_fetch, jp_ws_fetch, start_mcp, token
):  # type: ignore[no-untyped-def]
    from .kernel_utils import UserClient

    sessions = []
    for path in ("analysis.ipynb", "notes/other.ipynb"):
        created = await jp_fetch("api", "sessions", method="POST", body=json.dumps({
            "path": path, "type": "notebook", "name": path,
            "kernel": {"name": "python3"}}))
        sessions.append(json.loads(created.body))
    first, second = (s["kernel"]["id"] for s in sessions)
    kernel = await UserClient(jp_serverapp, first, jp_ws_fetch).connect()
    try:
        await kernel.wait_for_ready()
        await kernel.run("import pandas as pd\n"
                         "sales = pd.DataFrame({'region': list('nsew') * 25, "
                         "'units': range(100)})")
    finally:
        kernel.stop()
    url = await start_mcp()
    prefix = next(first[:n] for n in range(1, 37) if not second.startswith(first[:n]))
    async with sdk_session(url, _auth(token)) as session:
        async def call(name: str, arguments: dict[str, Any]) -> Any:
            result = await session.call_tool(name, arguments)
            return result, result.content[0].text

        result, text = await call("list_kernels", {})
        kernels = {k["kernel_id"]: k for k in json.loads(text)["kernels"]}
        assert kernels[first]["path"] == "analysis.ipynb"
        assert kernels[second]["path"] == "notes/other.ipynb"

        result, text = await call("list_variables", {"kernel_id": prefix, "filter": "sal*"})
        listed = json.loads(text)
        assert (listed["kernel_id"], listed["kernel_path"]) == (first, "analysis.ipynb")
        assert listed["total"] == 1
        # The kernel's total stays the namespace's, whatever a filtered query counted.
        result, text = await call("list_kernels", {})
        assert {k["kernel_id"]: k for k in json.loads(text)["kernels"]}[first][
            "variables_total"] in (None, 1)  # 1: sales is its only variable

        result, text = await call("get_rows", {
            "name": "sales", "kernel_id": prefix, "limit": 3, "sort": "units:desc",
            "filter": {"column": "region", "op": "eq", "value": "n"}})
        assert not is_error(result), text
        window = json.loads(text)
        assert window["kernel_path"] == "analysis.ipynb" and window["filtered_rows"] == 25
        assert [row[1] for row in window["rows"]] == ["96", "92", "88"]

        # A missing variable, in the other kernel: the error names the kernel searched.
        result, text = await call("inspect_variable", {"name": "sales", "kernel_id": second})
        assert is_error(result)
        assert f"Variable not found: sales in kernel {second} (notes/other.ipynb)" in text

        # A prefix both kernels share (the empty one is not a prefix) and one none has.
        shared = next((first[:n] for n in range(1, 36) if second.startswith(first[:n])), None)
        if shared:
            result, text = await call("list_variables", {"kernel_id": shared})
            assert is_error(result) and "matches 2 kernels" in text
        result, text = await call("list_variables", {"kernel_id": "zzzz"})
        assert is_error(result) and "Kernel does not exist: zzzz" in text

        # get_rows' bounds: at most 200 rows, at most 50 columns.
        result, text = await call("get_rows", {"name": "sales", "kernel_id": first,
                                               "limit": 10_000})
        assert len(json.loads(text)["rows"]) == 100  # the whole frame: under 200
        result, text = await call("get_rows", {"name": "sales", "kernel_id": first,
                                               "columns": "0:51"})
        assert is_error(result) and "at most 50 columns" in text
