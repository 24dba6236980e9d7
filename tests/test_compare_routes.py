"""Two tables compared through REST, MCP and the CLI, against a real server and a real
kernel: a cleaning step's before and after by key, paged from the kept comparison (no new
comparison until a cell runs), its pandas code run in the kernel finding the same rows;
refusals as 4xx naming what is wrong; ``compare_tables`` through fastmcp's client; the
``compare`` command as a separate process."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from .kernel_utils import get_json, validate
from .mcp_clients import started_mcp_url
from .test_cli import run_cli

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]
fastmcp = pytest.importorskip("fastmcp")

SETUP = """
import numpy as np, pandas as pd, polars as pl
rng = np.random.default_rng(3)
raw = pd.DataFrame({
    "order_id": np.arange(1, 1001),
    "price": np.round(rng.normal(100, 20, 1000), 2),
    "region": rng.choice(["North", "South", "north "], 1000),
})
raw.loc[[5, 6, 7], "price"] = np.nan
clean = raw.dropna(subset=["price"]).assign(region=lambda t: t.region.str.strip().str.title())
clean = pd.concat([clean, pd.DataFrame({"order_id": [5000], "price": [1.0],
                                        "region": ["East"]})], ignore_index=True)
clean["margin"] = clean.price * 0.2
plain = pl.DataFrame({"k": [1, 2, 3], "v": [1.0, 2.0, 3.0]})
it = iter([1])
"""


@pytest.fixture
def jp_server_config() -> Config:
    return Config({
        "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True,
                                              "jupyter_server_mcp": True}},
        "MCPExtensionApp": {"mcp_port": 0, "mcp_name": "kernel-state-test"},
        "KernelStateMCPAuth": {"validation_timeout": 30.0},
    })


async def _compare(jp_fetch, kernel, name="clean", **params: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                             "compare", params=params)
    validate(payload, "TableComparison")
    return payload


async def _refused(jp_fetch, kernel, name="clean", **params: Any) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as info:
        await _compare(jp_fetch, kernel, name, **params)
    return info.value.code, json.loads(info.value.response.body)["message"]


async def test_a_cleaning_step_compared_by_key_paged_and_its_code_run(
        jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    first = await _compare(jp_fetch, kernel, **{"with": "raw", "key": "order_id", "limit": "5"})
    assert (first["by"], first["key"], first["library"]) == ("key", ["order_id"], "pandas")
    assert (first["added"], first["removed"]) == (1, 3)
    assert first["changed"] > 0 and first["changed"] + first["unchanged"] == 997
    assert first["only_in_name"] == ["margin"] and first["only_in_with"] == []
    region = next(c for c in first["columns"] if c["name"] == "region")
    assert region["changed"] == first["changed"]  # only the labels were cleaned
    price = next(c for c in first["columns"] if c["name"] == "price")
    assert (price["changed"], price["with_nulls"], price["nulls"]) == (0, 3, 0)
    assert len(first["rows"]) == 5 and not first["reused"] and not first["stale"]
    changed = first["rows"][0]
    assert changed["status"] == "changed" and changed["changes"][0]["after"] in (
        "North", "South")

    # Paging: the comparison is kept in the kernel until a cell runs.
    page = await _compare(jp_fetch, kernel, **{"with": "raw", "key": "order_id",
                                               "offset": "5", "limit": "5"})
    assert page["reused"] and page["compare_ms"] == 0
    assert page["rows"][0]["key"] != first["rows"][0]["key"]
    removed = await _compare(jp_fetch, kernel, **{"with": "raw", "key": "order_id",
                                                  "status": "removed,added"})
    assert sorted(r["key"][0] for r in removed["rows"]) == ["5000", "6", "7", "8"]
    viewed = await _compare(jp_fetch, kernel, **{
        "with": "raw", "key": "order_id", "sort": "price:desc",
        "filter": json.dumps({"column": "region", "op": "eq", "value": "East"})})
    assert viewed["filtered_rows"] == 1 and viewed["rows"][0]["key"] == ["5000"]

    # The code, run as the user would insert it, finds the same rows.
    code = first["code"]["code"]
    assert first["code"]["syntax"] == "pandas" and "indicator=" in code
    check = (code + "\nassert (clean_vs_raw['status'].value_counts().to_dict() == "
             f"{{'changed': {first['changed']}, 'removed': 3, 'added': 1}}), "
             "clean_vs_raw['status'].value_counts()")
    assert (await kernel.run(check))["status"] == "ok"
    again = await _compare(jp_fetch, kernel, **{"with": "raw", "key": "order_id"})
    assert not again["reused"] and again["generation"] > first["generation"]

    # Without a key: the index is the default on both sides, so by position, said so.
    positional = await _compare(jp_fetch, kernel, **{"with": "raw"})
    assert positional["by"] == "position" and "no key given" in positional["key_note"]
    dplyr = await _compare(jp_fetch, kernel, **{"with": "raw", "key": "order_id",
                                                "syntax": "dplyr"})
    assert "anti_join(clean, raw" in dplyr["code"]["code"]


async def test_bad_comparisons_are_4xx_naming_what_is_wrong(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP + "\ntwice = pd.DataFrame({'order_id': [1, 1]})"))[
        "status"] == "ok"
    for name, params, code, words in (
            ("clean", {}, 400, "with is required"),
            ("clean", {"with": "nope"}, 404, "Variable not found: nope (given as with)"),
            ("nope", {"with": "raw"}, 404, "Variable not found: nope"),
            ("clean", {"with": "1x"}, 400, "with: Invalid variable name"),
            ("clean", {"with": "plain"}, 400, "of one library"),
            ("clean", {"with": "twice", "key": "order_id"}, 400, "not unique in twice"),
            ("clean", {"with": "raw", "key": "zz"}, 400, "key column 'zz'"),
            ("clean", {"with": "raw", "status": "moved"}, 400, "status"),
            ("clean", {"with": "raw", "syntax": "polars"}, 400, "polars code is for polars"),
            ("clean", {"with": "raw", "budget_ms": "60001"}, 400, "budget_ms"),
            ("it", {"with": "raw"}, 409, "it is"),
            ("clean", {"with": "it"}, 400, "it is")):
        got, message = await _refused(jp_fetch, kernel, name, **params)
        assert (got, words in message) == (code, True), (params, got, message)
    with pytest.raises(HTTPClientError) as info:
        await get_json(jp_fetch, "kernels", "00000000-0000-0000-0000-000000000000",
                       "variables", "clean", "compare", params={"with": "raw"})
    assert info.value.code == 404


async def test_compare_tables_through_a_real_mcp_client(jp_serverapp, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    url = await started_mcp_url(jp_serverapp)
    async with fastmcp.Client(url, auth=jp_serverapp.identity_provider.token) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert "compare_tables" in tools and "key" in (tools["compare_tables"].description or "")
        got = json.loads((await client.call_tool("compare_tables", {
            "name": "clean", "other": "raw", "key": ["order_id"], "limit": 3})).content[0].text)
        assert got["kernel_id"] == kernel.kernel_id and len(got["rows"]) == 3
        assert got["summary"].startswith("clean vs raw by key order_id: 1 added, 3 removed, ")
        assert "region: " in got["summary"] and "missing 3 → 0" not in got["summary"]
        bad = await client.call_tool("compare_tables", {"name": "clean", "other": "raw",
                                                        "key": "zz"}, raise_on_error=False)
        assert bad.is_error and "key column 'zz'" in bad.content[0].text


async def test_the_cli_compares(jp_serverapp, jp_http_port, jp_base_url, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    url = f"http://127.0.0.1:{jp_http_port}{jp_base_url}"
    token = jp_serverapp.identity_provider.token
    code, out, err = await run_cli("--url", url, "--token", token, "compare", "clean",
                                   "--with", "raw", "--key", "order_id", "--status",
                                   "removed,added")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["status", "key", "price"]
    assert [line.split()[:2] for line in lines[1:5]] == [
        ["added", "5000"], ["removed", "6"], ["removed", "7"], ["removed", "8"]]
    assert "clean vs raw by key order_id: 1 added, 3 removed," in out
    assert "only in clean: margin" in out
    code, out, err = await run_cli("--url", url, "--token", token, "compare", "clean",
                                   "--with", "raw", "--key", "order_id", "--code")
    assert code == 0 and out.startswith("import numpy as np"), err
    code, _, err = await run_cli("--url", url, "--token", token, "compare", "clean",
                                 "--with", "nope")
    assert code == 1 and "Variable not found: nope (given as with)" in err
