"""Jupyter AI v3 beside us, with nothing configured: what its persona manager hands an agent
reaches our MCP server, which serves Jupyter AI's tools and ours behind our authentication.

Two `jupyter lab` processes started as a user starts them, with every extension pip
installed enabled (Jupyter AI 3.2, jupyterlab-chat, jupyter-server-mcp as pip resolved it
beside this package). The agent is a local persona (Jupyter AI loads them from
`.jupyter/personas/` of the chat's directory): when its chat opens, it takes
`self.get_mcp_settings()` -- the servers and headers Jupyter AI's ACP client passes to an
agent's `session/new` -- connects to each HTTP server with the official MCP SDK, lists the
tools and calls one, and writes what happened to a file (never the header values). A chat is
opened the way the chat panel opens one: its websocket.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jupyter_ai_persona_manager")
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from .mcp_clients import sdk_refusal

pytestmark = pytest.mark.kernel

AGENT_PERSONA = '''
import asyncio, json, os
from jupyter_ai_persona_manager import BasePersona, PersonaDefaults

REPORT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
                      "agent-report.json")


async def _session(url, headers):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    try:
        import httpx2 as httpx
    except ImportError:
        import httpx
    return httpx.AsyncClient(headers=headers, timeout=60), streamable_http_client, ClientSession


class AgentProbePersona(BasePersona):
    """Does what an ACP agent does with the MCP servers it is handed, and reports."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._probe = asyncio.get_event_loop().create_task(self._connect())

    @property
    def defaults(self):
        return PersonaDefaults(name="AgentProbe", description="test agent",
                               avatar_path=os.path.join(os.path.dirname(__file__), "a.svg"),
                               system_prompt="")

    async def process_message(self, message):
        return None

    async def _connect(self):
        report = {"servers": []}
        settings = self.get_mcp_settings()
        for server in (settings.mcp_servers if settings else []):
            entry = {"name": server.name, "url": getattr(server, "url", None),
                     "header_names": sorted(h.name for h in getattr(server, "headers", []))}
            try:
                headers = {h.name: h.value for h in server.headers}
                http, client, Session = await _session(server.url, headers)
                async with http, client(server.url, http_client=http) as streams, \\
                        Session(streams[0], streams[1]) as session:
                    await session.initialize()
                    entry["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
                    result = await session.call_tool("list_kernels", {})
                    entry["list_kernels"] = result.content[0].text
            except BaseException as e:  # report, never crash the persona manager
                entry["error"] = repr(e)[:500]
            # Where the credential must never be: the runtime files, the server's log.
            secret = dict((h.name, h.value) for h in getattr(server, "headers", [])).get(
                "Authorization", "").partition(" ")[2]
            from jupyter_core.paths import jupyter_runtime_dir
            runtime = jupyter_runtime_dir()
            places = [os.path.join(runtime, n) for n in os.listdir(runtime)]
            places.append(os.path.dirname(REPORT) + ".log")
            entry["credential_chars"] = len(secret)
            entry["credential_found_in"] = [
                p for p in places if os.path.isfile(p) and secret and secret in open(
                    p, errors="replace").read()]
            report["servers"].append(entry)
        with open(REPORT + ".tmp", "w") as f:
            json.dump(report, f)
        os.replace(REPORT + ".tmp", REPORT)
'''


class Lab:
    def __init__(self, root: Path, token: str, process: subprocess.Popen[bytes], log: Path):
        self.root, self.token, self.process, self.log = root, token, process, log
        self.info: dict[str, Any] = {}
        self.mcp: dict[str, Any] = {}


def _start(base: Path, name: str, env: dict[str, str], *args: str) -> Lab:
    root = base / name
    personas = root / ".jupyter" / "personas"
    personas.mkdir(parents=True)
    (personas / "agent_probe_persona.py").write_text(AGENT_PERSONA)
    (personas / "a.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    token = secrets.token_hex(16)
    log = base / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--port=0",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}", *args],
            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    return Lab(root, token, process, log)


@pytest.fixture(scope="module")
def labs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Lab]]:
    """One lab with nothing configured, one whose user configured the MCP servers."""
    base = tmp_path_factory.mktemp("jupyter-ai")
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
           "JUPYTER_CONFIG_DIR": str(base / "config"), "JUPYTER_DATA_DIR": str(base / "data")}
    for variable in ("JUPYTER_TOKEN", "JUPYTER_SERVER_URL"):
        env.pop(variable, None)
    started = {
        "default": _start(base, "default", env),
        "configured": _start(base, "configured", env,
                             "--PersonaManager.builtin_mcp_servers=[]"),
    }
    try:
        deadline = time.monotonic() + 120
        for lab in started.values():
            pid = lab.process.pid
            runtime = base / "runtime"
            while not (runtime / f"jpserver-mcp-{pid}.json").exists():
                if lab.process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"lab did not start:\n{lab.log.read_text()[-4000:]}")
                time.sleep(0.2)
            lab.info = json.loads((runtime / f"jpserver-{pid}.json").read_text())
            lab.mcp = json.loads((runtime / f"jpserver-mcp-{pid}.json").read_text())
        yield started
    finally:
        for lab in started.values():
            lab.process.terminate()
        for lab in started.values():
            try:
                lab.process.wait(20)
            except subprocess.TimeoutExpired:
                lab.process.kill()
                lab.process.wait(5)


async def _open_chat(lab: Lab, path: str = "team.chat") -> Any:
    """Open a chat as the chat panel does (jupyterlab-chat's websocket) and wait for the
    persona's report."""
    url = lab.info["url"].replace("http", "ws", 1) + f"api/chat/ws/{path}"
    ws = await websocket_connect(HTTPRequest(
        url, headers={"Authorization": f"token {lab.token}"}))
    report = lab.root / "agent-report.json"
    deadline = time.monotonic() + 90
    while not report.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"no agent report:\n{lab.log.read_text()[-4000:]}")
        await asyncio.sleep(0.2)
    return ws, json.loads(report.read_text())


async def test_jupyter_ai_agents_get_this_servers_tools_behind_its_authentication(labs):
    lab = labs["default"]
    ws, report = await _open_chat(lab)
    try:
        (server,) = report["servers"]
        assert "error" not in server, server
        # What Jupyter AI hands the agent: the bound URL, a credential, its identity headers.
        assert server["url"] == lab.mcp["url"]
        assert server["header_names"] == ["Authorization", "X-Jupyter-Chat-Id",
                                          "X-JupyterAI-Persona-Id"]
        # Jupyter AI's own tools and ours, through our authentication.
        assert {"read_notebook", "run_cell", "list_variables", "get_rows",
                "kernel_state_prompt"} <= set(server["tools"])
        assert json.loads(server["list_kernels"]) == {"kernels": []}
        # A client without the credential, or with the server's token mangled, gets nothing.
        for headers in ({}, {"Authorization": f"token {lab.token}x"}):
            refusal = await sdk_refusal(lab.mcp["url"], headers)
            assert "requires a Jupyter server token" in refusal.error.message
        # The credential Jupyter AI holds is not the server's token, and is in no runtime
        # file and not in the log.
        assert server["credential_chars"] >= 40
        assert server["credential_found_in"] == []
        log = lab.log.read_text()
        assert "Jupyter AI: its agents get this server's MCP tools" in log
        assert "jupyter_kernel_state's tools are not served" not in log
    finally:
        ws.close()


async def test_a_users_own_mcp_configuration_is_kept(labs):
    lab = labs["configured"]
    ws, report = await _open_chat(lab)
    try:
        assert report["servers"] == []  # they chose none: none is added
        assert "keeping the configured PersonaManager.builtin_mcp_servers" in lab.log.read_text()
    finally:
        ws.close()
