"""How our MCP tools get onto jupyter-server-mcp's server: behind our authentication, or
not at all.

jupyter-server-mcp builds its server in its ``start_extension``: it creates the FastMCP
server object, reads the ``jupyter_server_mcp.tools`` entry points, then starts serving.
Our entry point is :func:`tool_specs`, a callable that both versions call at that moment
(0.3, which Jupyter AI 3 pins, reads no middleware entry point; 0.4 reads one, but only
after registering tools). So it attaches our authentication to the server object being
built, before it serves a request, and returns our tools only if that worked; otherwise it
returns none and says why in one log line (fail closed). The tools themselves also refuse
to answer a request the authentication did not let through (``mcp_auth``), whichever way
they were registered.

Once the server has bound its port, Jupyter AI's personas are offered its URL and a
credential (``jupyter_ai``), and so is Notebook Intelligence's agent (``nbi``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from . import jupyter_ai, mcp_auth, nbi

TOOL_SPECS = (
    "jupyter_kernel_state.mcp_tools:list_kernels",
    "jupyter_kernel_state.mcp_tools:list_variables",
    "jupyter_kernel_state.mcp_tools:inspect_variable",
    "jupyter_kernel_state.mcp_tools:get_rows",
    "jupyter_kernel_state.mcp_tools:describe_table",
    "jupyter_kernel_state.mcp_tools:count_rows",
    "jupyter_kernel_state.mcp_tools:compare_tables",
    "jupyter_kernel_state.mcp_tools:variable_timeline",
    "jupyter_kernel_state.mcp_tools:get_images",
    "jupyter_kernel_state.mcp_tools:kernel_state_prompt",
)
MCP_EXTENSION = "jupyter_server_mcp"
# How long to wait for the MCP server to bind before giving up on offering it to Jupyter AI.
BIND_WAIT_S = 60.0
_WILDCARD_HOSTS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1", "::0": "::1"}

_log = logging.getLogger("jupyter_kernel_state")
_tasks: set[asyncio.Task[None]] = set()


class NotAttached(Exception):
    """Our authentication could not be put on the MCP server; the message says why."""


def tool_specs() -> list[str]:
    """The ``jupyter_server_mcp.tools`` entry point: our tools, once the MCP server being
    built runs our authentication first; none otherwise."""
    auth = mcp_auth.current()
    log = auth.log if auth is not None else _log
    try:
        if auth is None:
            raise NotAttached("the jupyter_kernel_state server extension is not running "
                              "in this server")
        apps = _mcp_apps(auth.serverapp)
        for app in apps:
            mcp_auth.attach(app.mcp_server_instance.mcp)
    except Exception as e:  # whatever it was: fail closed
        log.error("MCP: jupyter_kernel_state's tools are not served: its authentication "
                  "could not be attached (%s: %s)", type(e).__name__, e)
        return []
    for app in apps:
        _spawn(_offer_to_jupyter_ai(app, auth))
    return list(TOOL_SPECS)


def _mcp_apps(serverapp: Any) -> list[Any]:
    """jupyter-server-mcp's extension apps whose server object exists (being built)."""
    manager = getattr(serverapp, "extension_manager", None)
    apps = [app for app in (getattr(manager, "extension_apps", {}) or {}).get(MCP_EXTENSION, ())
            if getattr(app, "mcp_server_instance", None) is not None]
    if not apps:
        raise NotAttached("no jupyter-server-mcp server is being built in this process")
    return apps


def mcp_url(server: Any) -> str:
    """The URL a local client dials for a bound jupyter-server-mcp server."""
    host = str(getattr(server, "host", "") or "")
    host = _WILDCARD_HOSTS.get(host, host or "127.0.0.1")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{int(server.port)}/mcp"


async def _offer_to_jupyter_ai(app: Any, auth: mcp_auth.KernelStateMCPAuth) -> None:
    server = app.mcp_server_instance
    try:
        await asyncio.wait_for(server.wait_until_bound(), BIND_WAIT_S)
    except (asyncio.TimeoutError, AttributeError):
        auth.log.info("MCP: the server did not bind; Jupyter AI is not offered its URL")
        return
    if app.mcp_server_instance is not server:  # stopped (or restarted) meanwhile
        return
    jupyter_ai.offer_mcp_server(
        auth.serverapp, name=str(getattr(app, "mcp_name", "Jupyter MCP Server")),
        url=mcp_url(server), credential=auth.agent_credential, log=auth.log,
    )
    await nbi.offer_mcp_server(url=mcp_url(server), credential=auth.agent_credential,
                               log=auth.log)


def _spawn(coroutine: Any) -> None:
    task = asyncio.ensure_future(coroutine)
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)
