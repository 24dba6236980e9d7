"""This server's MCP endpoint as Notebook Intelligence reaches it: the bound URL and our
per-process credential, one official-SDK session per call.

Everything NBI gets from us goes through here, so it passes our MCP authentication like any
other client: no in-process shortcut around it. The credential lives in this object only
(never in NBI's configuration, a file, a log line or a repr).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

# Every call has a deadline: the tools' own (the probe's reply deadline) is far shorter.
CALL_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ToolInfo:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """A tool's answer as text (its JSON, or the error the model can read)."""

    text: str
    is_error: bool


class Endpoint:
    def __init__(self, url: str, credential: str) -> None:
        self.url = url
        self._headers = {"Authorization": f"token {credential}"}

    def __repr__(self) -> str:
        return f"Endpoint({self.url!r})"

    async def list_tools(self) -> list[ToolInfo]:
        async with self.connected() as connection:
            return await connection.list_tools()

    async def call(self, name: str, arguments: dict[str, Any]) -> Reply:
        async with self.connected() as connection:
            return await connection.call(name, arguments)

    @asynccontextmanager
    async def connected(self) -> AsyncIterator[Connection]:
        """One MCP session for several calls: the SDK's server logs an error for every
        session a client closes, so an operation that calls several tools uses one."""
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        http = _http_library()
        async with (http.AsyncClient(headers=self._headers, timeout=CALL_TIMEOUT_S) as client,
                    streamable_http_client(self.url, http_client=client) as streams,
                    ClientSession(streams[0], streams[1]) as session):
            await asyncio.wait_for(session.initialize(), CALL_TIMEOUT_S)
            yield Connection(session)


class Connection:
    def __init__(self, session: Any) -> None:
        self._session = session

    async def list_tools(self) -> list[ToolInfo]:
        tools = (await asyncio.wait_for(self._session.list_tools(), CALL_TIMEOUT_S)).tools
        return [ToolInfo(t.name, t.description or "", _parameters(t)) for t in tools]

    async def call(self, name: str, arguments: dict[str, Any]) -> Reply:
        result = await asyncio.wait_for(self._session.call_tool(name, arguments),
                                        CALL_TIMEOUT_S)
        flag = getattr(result, "is_error", None)  # mcp 2.x; isError in mcp 1.x
        failed = bool(getattr(result, "isError", False) if flag is None else flag)
        return Reply("\n".join(_text(block) for block in result.content), failed)


def _http_library() -> Any:
    """The HTTP library the installed MCP SDK speaks: httpx2 for mcp 2.x, httpx for 1.x
    (which Notebook Intelligence 6 requires)."""
    try:
        import httpx2 as http  # type: ignore[import-not-found,unused-ignore]
        from mcp import MCPError  # type: ignore[attr-defined,unused-ignore]  # noqa: F401
    except ImportError:
        import httpx as http  # type: ignore[no-redef,unused-ignore]
    return http


def _parameters(tool: Any) -> dict[str, Any]:
    schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None)
    return dict(schema) if isinstance(schema, dict) else {"type": "object", "properties": {}}


def _text(block: Any) -> str:
    text = getattr(block, "text", None)
    if isinstance(text, str):
        return text
    kind = getattr(block, "mime_type", None) or getattr(block, "mimeType", None) or "content"
    return f"[{kind} not passed on: Notebook Intelligence's tool results are text]"
