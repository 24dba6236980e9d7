"""The MCP tools on a lazy table in an engine (a DuckDB relation of a billion rows), through
a real MCP client against jupyter-server-mcp in the Jupyter server: ``count_rows``, and
``describe_table`` and ``get_rows`` saying in words that the table is lazy, which engine
computed the answer and what it did not count or computed on a sample."""

from __future__ import annotations

import json
from typing import Any

import pytest
from traitlets.config import Config

from .mcp_clients import started_mcp_url

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]
fastmcp = pytest.importorskip("fastmcp")
pytest.importorskip("duckdb")  # not in the other MCP generation's venv (.venv-mcp04)

BILLION = 1_000_000_000
SETUP = f"""
import duckdb
rel = duckdb.connect().sql("select range as i, range*2.5 as x, 'r'||(range%7)::varchar as s "
                           "from range({BILLION})")
"""


@pytest.fixture
def jp_server_config() -> Config:
    return Config({
        "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True,
                                              "jupyter_server_mcp": True}},
        "MCPExtensionApp": {"mcp_port": 0, "mcp_name": "kernel-state-test"},
        "KernelStateMCPAuth": {"validation_timeout": 30.0},
        # Two sampled columns of a billion rows take a few seconds; counts 1.5 s at most.
        "KernelStateApp": {"probe_timeout": 10.0, "engine_count_ms": 1_500},
    })


@pytest.fixture
def mcp_url(jp_serverapp, http_server):  # type: ignore[no-untyped-def]
    """Start the server's MCP extension (the test server does not) and give its URL."""

    async def start() -> str:
        return await started_mcp_url(jp_serverapp)

    return start


def _json(result: Any) -> dict[str, Any]:
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


async def test_count_rows_and_describe_table_on_a_lazy_duckdb_relation(
    jp_serverapp, new_kernel, mcp_url
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    token = jp_serverapp.identity_provider.token
    async with fastmcp.Client(await mcp_url(), auth=token) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert "count_rows" in tools and "engine" in (tools["count_rows"].description or "")

        # DuckDB scans range() to count it (a second or more on a busy machine): this count
        # is given time of its own, the next one is not.
        counted = _json(await client.call_tool("count_rows", {"name": "rel",
                                                              "budget_ms": 30_000}))
        assert (counted["kernel_id"], counted["rows"], counted["filtered"]) == (
            kernel.kernel_id, BILLION, False)
        assert counted["engine"]["name"] == "duckdb"
        assert counted["note"].startswith("1,000,000,000 rows of rel, counted in DuckDB")
        too_long = await client.call_tool("count_rows", {
            "name": "rel", "filter": {"column": "s", "op": "contains", "value": "3"}},
            raise_on_error=False)
        assert too_long.is_error and "1,500 ms" in too_long.content[0].text
        assert "interrupted in DuckDB" in too_long.content[0].text

        window = _json(await client.call_tool("get_rows", {
            "name": "rel", "limit": 3, "filter": {"column": "s", "op": "eq", "value": "r3"}}))
        assert [r[0] for r in window["rows"]] == ["3", "10", "17"]
        assert window["filtered_rows"] is None
        assert "lazy DuckDB table" in window["note"] and "count_rows" in window["note"]

        described = _json(await client.call_tool("describe_table",
                                                 {"name": "rel", "columns": "1,2"}))
        assert [c["name"] for c in described["columns"]] == ["x", "s"]
        assert described["engine"]["name"] == "duckdb"
        note = described["note"]
        assert note.startswith("rel is a lazy DuckDB table: these statistics are DuckDB's")
        assert "approximate" in note and "x, s" in note
        if described["sampled"]:
            assert "first 1,000,000 rows" in note
