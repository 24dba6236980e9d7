"""Data-quality findings through REST and MCP, against a real server and a real kernel: a
frame seeded with duplicates, a constant column, numbers stored as text and outliers lists
each finding with its rows and fix code; each fix, run in the kernel as a user inserts it,
makes its finding go away; bad values are 4xx; ``describe_table`` carries the findings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from .kernel_utils import get_json, validate
from .mcp_clients import started_mcp_url

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]
fastmcp = pytest.importorskip("fastmcp")

SETUP = """
import pandas as pd, numpy as np
_rng = np.random.default_rng(7)
sales = pd.DataFrame({
    "order_id": np.arange(1, 201),
    "price": np.round(_rng.normal(50, 5, 200), 2),
    "region": _rng.choice(["North", "South", "East"], 200),
    "amount": [str(i) for i in range(200)],
    "channel": ["web"] * 200,
})
sales.loc[[10, 20], "price"] = [900.0, -400.0]
sales = pd.concat([sales, sales.iloc[[3, 4]]], ignore_index=True)
other = sales.copy()
"""
EXPECTED = {"outliers", "duplicate_rows", "duplicate_keys", "numbers_as_text", "constant",
            "id_like"}


@pytest.fixture
def jp_server_config() -> Config:
    return Config({
        "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True,
                                              "jupyter_server_mcp": True}},
        "MCPExtensionApp": {"mcp_port": 0, "mcp_name": "kernel-state-test"},
        "KernelStateMCPAuth": {"validation_timeout": 30.0},
    })


async def _findings(jp_fetch, kernel, **params: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "sales",
                             "findings", params=params)
    validate(payload, "TableFindings")
    return payload


async def test_findings_list_their_rows_and_fixes_that_make_them_go_away(
        jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    found = await _findings(jp_fetch, kernel)
    kinds = {f["kind"]: f for f in found["findings"]}
    assert set(kinds) >= EXPECTED, sorted(kinds)
    assert found["engine"] is None and found["syntax"] == "pandas" and not found["sampled"]
    # The two seeded outliers and the sample's own tails past the IQR rule's bounds.
    assert kinds["outliers"]["count"] >= 2 and "IQR rule" in kinds["outliers"]["message"]
    low, high = kinds["outliers"]["details"]["low"], kinds["outliers"]["details"]["high"]
    assert low > -400 and high < 900
    assert kinds["duplicate_rows"]["count"] == 2
    assert kinds["constant"]["columns"] == ["channel"]
    # The rows a finding concerns open in the grid: the rows route keeps exactly them.
    rows = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "sales", "rows",
                          params={"filter": json.dumps(kinds["outliers"]["filter"])})
    assert rows["filtered_rows"] == kinds["outliers"]["count"]
    # Severities counted, the most severe first.
    order = ["error", "warning", "info"]
    assert [order.index(f["severity"]) for f in found["findings"]] == sorted(
        order.index(f["severity"]) for f in found["findings"])
    assert sum(found["severities"].values()) == found["findings_total"]

    # Each fix, as the explorer offers it after the last one ran and the user inserts it,
    # makes its finding go away — and leaves the other variable that held the same frame
    # as it was (a fix rebinds, never edits in place).
    for kind in ("duplicate_rows", "outliers", "numbers_as_text", "constant"):
        current = {f["kind"]: f for f in (await _findings(jp_fetch, kernel))["findings"]}
        fix = current[kind]["fix"]
        assert fix and "sales" in fix, (kind, fix)
        assert (await kernel.run(fix))["status"] == "ok", fix
        again = {f["kind"] for f in (await _findings(jp_fetch, kernel))["findings"]}
        assert kind not in again, (kind, again)
    assert (await kernel.run("assert len(other) == 202 and 'channel' in other"))[
        "status"] == "ok"

    # The fix code in another syntax the value takes (dplyr, for the same data in R), a
    # bounded listing; a syntax of another library is a 400 (below).
    dplyr = await _findings(jp_fetch, kernel, syntax="dplyr", max_findings=1)
    assert dplyr["syntax"] == "dplyr" and len(dplyr["findings"]) == 1
    assert dplyr["findings_cut"] == dplyr["findings_total"] - 1
    assert dplyr["findings"][0]["fix"] is None or "%>%" in dplyr["findings"][0]["fix"]


async def test_bad_findings_queries_are_4xx_naming_them(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP + "\nit = iter([1])"))["status"] == "ok"
    for params, code, word in (({"syntax": "cobol"}, 400, "syntax"),
                               ({"syntax": "polars"}, 400, "pandas"),
                               ({"max_findings": "0"}, 400, "max_findings"),
                               ({"filter": '{"column": "nope", "op": "isnull"}'}, 400, "nope"),
                               ({"budget_ms": "60001"}, 400, "budget_ms")):
        with pytest.raises(HTTPClientError) as info:
            await _findings(jp_fetch, kernel, **params)
        message = json.loads(info.value.response.body)["message"]
        assert info.value.code == code and word in message, (params, message)
    with pytest.raises(HTTPClientError) as info:
        await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "it", "findings")
    assert info.value.code == 409


async def test_describe_table_carries_the_findings(jp_serverapp, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    url = await started_mcp_url(jp_serverapp)
    async with fastmcp.Client(url, auth=jp_serverapp.identity_provider.token) as client:
        described = json.loads((await client.call_tool(
            "describe_table", {"name": "sales"})).content[0].text)
        listed = described["findings"]["listed"]
        assert {f["kind"] for f in listed} >= EXPECTED
        assert all(f["fix"] is None or "sales" in f["fix"] for f in listed)
        plain = json.loads((await client.call_tool(
            "describe_table", {"name": "sales", "findings": False})).content[0].text)
        assert "findings" not in plain
