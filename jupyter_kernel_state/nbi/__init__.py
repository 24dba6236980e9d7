"""Notebook Intelligence 6 (NBI) beside us, with nothing to configure.

NBI loads the class named in ``share/jupyter/nbi_extensions/jupyter_kernel_state/
extension.json`` (``nbi.extension``) when its server extension starts in this process. That
extension registers, through NBI's extension API, a tool set for NBI's agent and the
``@kernel`` chat participant (``@var:<name>`` cards). Both stay empty until this module
hands them this server's MCP endpoint: once jupyter-server-mcp has bound its port with our
authentication attached (``mcp_server``), :func:`offer_mcp_server` lists our tools at the
bound URL with the per-process credential of ``mcp_auth`` and fills the tool set. Every
call NBI makes then goes through that URL with that credential, so NBI gets what any
authenticated MCP client gets: hidden variables refused, likely secrets masked.

Fail closed: when our authentication could not be attached, ``mcp_server.tool_specs``
serves nothing and never offers the URL, so the tool set stays empty and ``@kernel`` says
the kernel state is unavailable. The credential is never put in NBI's MCP configuration:
NBI's settings dialog writes that configuration back to ``~/.jupyter/nbi/mcp.json`` whole.
An NBI whose MCP configuration already names this server (by name or URL) is the user's
choice: nothing is added, and the log says so.

This module does not import NBI (only NBI's loader imports ``nbi.extension``).
"""

from __future__ import annotations

import logging
import urllib.parse
from typing import Any, Protocol

from .endpoint import Endpoint, ToolInfo

#: The name by which a user's NBI MCP configuration may list this server's tools.
SERVER_NAME = "jupyter-kernel-state"
_LOOPBACK = {"localhost": "127.0.0.1", "[::1]": "127.0.0.1", "::1": "127.0.0.1"}


class Extension(Protocol):
    """What this module needs of the activated NBI extension (``nbi.extension``)."""

    def configured_mcp_servers(self) -> dict[str, Any]: ...

    def connect(self, endpoint: Endpoint, tools: list[ToolInfo]) -> None: ...


# NBI keeps one host per process (its module-global AIServiceManager); so do we.
_extension: Extension | None = None


def activated(extension: Extension | None) -> None:
    """Called by the NBI extension when NBI activates it."""
    global _extension
    _extension = extension


def user_configured(servers: dict[str, Any], url: str) -> str | None:
    """The name of the server in NBI's MCP configuration that is this one (named
    ``jupyter-kernel-state`` or at ``url``), else None."""
    ours = _normalized(url)
    for name, server in servers.items():
        if name == SERVER_NAME:
            return name
        if isinstance(server, dict) and _normalized(str(server.get("url") or "")) == ours:
            return name
    return None


async def offer_mcp_server(*, url: str, credential: str, log: logging.Logger) -> bool:
    """Give NBI's agent our tools at ``url`` with ``credential``, unless NBI is absent or
    its MCP configuration already lists this server. Returns whether they were given."""
    extension = _extension
    if extension is None:
        return False  # NBI is not installed (or not enabled) in this server
    configured = user_configured(extension.configured_mcp_servers(), url)
    if configured is not None:
        log.info("Notebook Intelligence: keeping its configured MCP server %r; its agent "
                 "reaches this server's MCP tools only with a credential it accepts",
                 configured)
        return False
    endpoint = Endpoint(url, credential)
    try:
        tools = await endpoint.list_tools()
    except Exception as e:  # refused, unreachable, too slow: NBI gets nothing
        log.error("Notebook Intelligence: its agent does not get this server's MCP tools: "
                  "listing them at %s failed (%s)", url, type(e).__name__)
        return False
    extension.connect(endpoint, tools)
    log.info("Notebook Intelligence: its agent gets this server's MCP tools at %s "
             "(%d tools)", url, len(tools))
    return True


def _normalized(url: str) -> tuple[str, str, str] | None:
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    host = (parts.hostname or "").lower()
    return _LOOPBACK.get(host, host), str(port or ""), parts.path.rstrip("/")
