"""The official MCP SDK's client, as the installed generation has it.

Jupyter AI 3 resolves jupyter-server-mcp 0.3 with fastmcp 3 and ``mcp`` 1.x; jupyter-server-mcp
0.4 alone resolves fastmcp 4 and ``mcp`` 2.x. The SDK's client differs between them (its HTTP
library, the streams it yields, its error class, camelCase fields); the tests run on both,
through these few helpers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

try:  # mcp 2.x
    import httpx2 as http_library
    from mcp import MCPError as SDKError

    MCP_MAJOR = 2
except ImportError:  # mcp 1.x
    import httpx as http_library  # type: ignore[no-redef]
    from mcp.shared.exceptions import McpError as SDKError  # type: ignore[no-redef]

    MCP_MAJOR = 1


@asynccontextmanager
async def sdk_session(url: str, headers: dict[str, str] | None = None
                      ) -> AsyncIterator[ClientSession]:
    """An initialized session of the official SDK's client, sending ``headers``."""
    async with (http_library.AsyncClient(headers=headers or {}, timeout=60) as http,
                streamable_http_client(url, http_client=http) as streams,
                ClientSession(streams[0], streams[1]) as session):
        await session.initialize()
        yield session


def is_error(result: Any) -> bool:
    """A tool result's error flag (``is_error`` in mcp 2, ``isError`` in mcp 1)."""
    flag = getattr(result, "is_error", None)
    return bool(getattr(result, "isError", False) if flag is None else flag)


def mime_type(block: Any) -> str:
    """An image content block's MIME type (``mime_type`` in mcp 2, ``mimeType`` in mcp 1)."""
    return str(getattr(block, "mime_type", None) or getattr(block, "mimeType", ""))


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, as the SDK's task groups raise."""
    inner = getattr(error, "exceptions", None)
    if isinstance(inner, tuple):
        return [leaf for exc in inner for leaf in leaves(exc)]
    return [error]


async def sdk_refusal(url: str, headers: dict[str, str] | None = None) -> Any:
    """Connect with the official SDK and return the error (``.error.code``,
    ``.error.message``) that refused it."""
    try:
        async with sdk_session(url, headers) as session:
            await session.list_tools()
    except Exception as e:
        errors = [x for x in leaves(e) if isinstance(x, SDKError)]
        assert len(errors) == 1, repr(e)
        return errors[0]
    raise AssertionError("the MCP server accepted the session")


async def started_mcp_url(serverapp: Any) -> str:
    """Start jupyter-server-mcp in ``serverapp`` (enabled by the test's config) and give
    the URL of its MCP endpoint."""
    manager = serverapp.extension_manager
    await manager.start_extension("jupyter_server_mcp")
    (app,) = manager.extension_apps["jupyter_server_mcp"]
    return f"http://127.0.0.1:{app.mcp_server_instance.port}/mcp"
