"""Versions of a table kept on request, through REST, MCP and the CLI, against a real
server and a real kernel: a version kept, the table changed in place, the comparison
with ``with=@<execution>`` showing the changed cells and its code run once the version
is bound as its note says; the caps (count ±1, bytes at and one past the cap), eviction
said in the reply, drops (DELETE, the variable deleted through the API or by a cell, a
restart); refusals as 4xx naming what is wrong, never a 5xx."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from .conftest import server_config
from .kernel_utils import get_json, validate
from .mcp_clients import started_mcp_url
from .test_cli import run_cli
from .test_r_kernel import IR_SPEC_DIR, ir_kernelspec  # noqa: F401 (autouse: the `ir` kernelspec)

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

SETUP = """
import numpy as np, pandas as pd, polars as pl
rng = np.random.default_rng(7)
sales = pd.DataFrame({"order_id": np.arange(1, 201), "price": np.round(rng.uniform(10, 200, 200), 2),
                      "region": rng.choice(["north", "south"], 200)})
plain = pl.DataFrame({"k": [1, 2, 3], "v": [1.0, 2.0, 3.0]})
lazy = plain.lazy()
grid = np.zeros((3, 4))
n = 1
it = iter([1])
"""
#: The frames of the byte cap: one of ``CAP_ROWS`` one-byte values, and one a byte larger.
CAP_ROWS = 1000
BYTES = """
small = pd.DataFrame({"x": np.zeros(1000, np.uint8)})
bigger = pd.DataFrame({"x": np.zeros(1001, np.uint8)})
tiny = pd.DataFrame({"x": np.zeros(1, np.uint8)})
"""


def _bytes_of(rows: int) -> int:
    """The bytes the probe measures for a frame of ``rows`` uint8s: its block and index,
    as the list's memory column (the same pandas as the kernel's)."""
    frame = pd.DataFrame({"x": np.zeros(rows, np.uint8)})
    return int(frame.memory_usage(index=True, deep=False).sum())


@pytest.fixture
def jp_server_config(request: pytest.FixtureRequest) -> Config:
    kept = getattr(request, "param", {})
    return server_config(None, KernelStateApp=kept,
                         ServerApp={"jpserver_extensions": {"jupyter_kernel_state": True,
                                                            "jupyter_server_mcp": True}},
                         MCPExtensionApp={"mcp_port": 0, "mcp_name": "kernel-state-test"},
                         KernelStateMCPAuth={"validation_timeout": 30.0})


def caps(**values: int) -> Any:
    return pytest.mark.parametrize("jp_server_config", [values], indirect=True)


async def _kept(jp_fetch, kernel, name: str, method: str = "GET", *extra: str,
                **params: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name, "kept",
                             *extra, method=method, params=params,
                             **({"body": ""} if method == "POST" else {}))
    validate(payload, "KeptVersions")
    return payload  # type: ignore[no-any-return]


async def _keep(jp_fetch, kernel, name: str, **params: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return await _kept(jp_fetch, kernel, name, "POST", **params)


async def _compare(jp_fetch, kernel, name: str, **params: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                             "compare", params=params)
    validate(payload, "TableComparison")
    return payload  # type: ignore[no-any-return]


async def _refused(call) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as info:
        await call
    return info.value.code, json.loads(info.value.response.body)["message"]


async def _execution(kernel) -> int:  # type: ignore[no-untyped-def]
    """The last execution count of the kernel's user cells."""
    return int((await kernel.run("pass"))["execution_count"])


@pytest.fixture
def server(jp_serverapp, jp_http_port, jp_base_url) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The test server's URL and token, for the CLI."""
    return (f"http://127.0.0.1:{jp_http_port}{jp_base_url}",
            str(jp_serverapp.identity_provider.token))


async def test_a_kept_version_compared_after_an_in_place_change(jp_fetch, new_kernel, server):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP + "\nbefore = sales.copy()"))["status"] == "ok"
    at = await _execution(kernel)
    got = await _keep(jp_fetch, kernel, "sales")
    assert got["kept"] == {"name": "sales", "execution_count": at, "type": "DataFrame",
                           "library": "pandas", "rows": 200, "columns": 3,
                           "bytes": got["kept"]["bytes"]}
    assert got["kept"]["bytes"] > 200 * 8 * 3 and got["dropped"] == [] and not got["replaced"]
    assert (got["kept_total"], got["bytes_total"]) == (1, got["kept"]["bytes"])
    assert (await kernel.run("sales.loc[sales.price > 100, 'price'] *= 1.1"))["status"] == "ok"

    compared = await _compare(jp_fetch, kernel, "sales", **{"with": f"@{at}",
                                                             "key": "order_id"})
    assert (compared["with"], compared["with_execution"]) == ("sales", at)
    truth = await kernel.run(f"assert (sales.price != before.price).sum() == "
                             f"{compared['changed']}")
    assert truth["status"] == "ok" and compared["added"] == compared["removed"] == 0
    price = next(c for c in compared["columns"] if c["name"] == "price")
    assert price["changed"] == compared["changed"] and price["mean"] > price["with_mean"]
    row = compared["rows"][0]
    assert row["status"] == "changed" and row["changes"][0]["column"] == 0
    # The same through `12` (no @) and `sales@12`.
    for spelled in (str(at), f"sales@{at}"):
        again = await _compare(jp_fetch, kernel, "sales", **{"with": spelled, "key": "order_id"})
        assert again["changed"] == compared["changed"] and again["with_execution"] == at

    # The code names the version sales_at_<at>, says it is no variable of the user's, and
    # runs once the user binds that name as the note says.
    code, note = compared["code"]["code"], compared["code_note"]
    name = f"sales_at_{at}"
    assert code.startswith(f"# {name} is sales as of [{at}]") and "not a variable of yours" in note
    check = (f"{name} = before\n" + code + f"\nassert (sales_vs_{name}['status'] == "
             f"'changed').sum() == {compared['changed']}, sales_vs_{name}")
    assert (await kernel.run(check))["status"] == "ok"

    # Unknown executions: 404 listing what is kept; none kept of another name.
    code_, message = await _refused(_compare(jp_fetch, kernel, "sales",
                                             **{"with": f"@{at + 100}"}))
    assert code_ == 404 and f"kept: [{at}]" in message
    code_, message = await _refused(_compare(jp_fetch, kernel, "before", **{"with": "@1"}))
    assert code_ == 404 and "none is kept" in message
    assert (await _kept(jp_fetch, kernel, "before"))["versions"] == []  # 0 kept: empty

    # MCP's compare_tables and the CLI's compare take the same spelling.
    code_, out, err = await run_cli(
        "--url", server[0], "--token", server[1], "compare", "sales", "--with", f"@{at}",
        "--key", "order_id", "--kernel", kernel.kernel_id)
    assert code_ == 0, err
    assert f"sales vs sales as of [{at}] by key order_id: 0 added, 0 removed" in out


async def test_compare_tables_with_a_kept_version_through_mcp(jp_serverapp, jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    fastmcp = pytest.importorskip("fastmcp")
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    at = await _execution(kernel)
    await _keep(jp_fetch, kernel, "sales")
    assert (await kernel.run("sales.loc[0, 'region'] = 'east'"))["status"] == "ok"
    url = await started_mcp_url(jp_serverapp)
    async with fastmcp.Client(url, auth=jp_serverapp.identity_provider.token) as client:
        got = json.loads((await client.call_tool("compare_tables", {
            "name": "sales", "other": f"@{at}", "key": ["order_id"]})).content[0].text)
        assert got["summary"].startswith(f"sales vs sales as of [{at}] by key order_id: "
                                         "0 added, 0 removed, 1 changed")
        bad = await client.call_tool("compare_tables", {"name": "sales", "other": "@99999"},
                                     raise_on_error=False)
        assert bad.is_error and f"kept: [{at}]" in bad.content[0].text


@caps(max_kept=2)
async def test_the_count_cap_refuses_one_more_and_eviction_says_what_went(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP + BYTES))["status"] == "ok"
    first = await _keep(jp_fetch, kernel, "small")
    second = await _keep(jp_fetch, kernel, "plain")
    assert (first["kept_total"], second["kept_total"], second["max_kept"]) == (1, 2, 2)
    assert second["kept"]["library"] == "polars"
    # Kept again at the same execution: the version is replaced, nothing else dropped.
    again = await _keep(jp_fetch, kernel, "plain")
    assert again["replaced"] and again["dropped"] == [] and again["kept_total"] == 2
    code, message = await _refused(_keep(jp_fetch, kernel, "tiny"))
    assert code == 409 and "2 of 2 versions" in message and "small as of [" in message
    assert (await _kept(jp_fetch, kernel, "tiny"))["kept_total"] == 2  # nothing moved
    evicted = await _keep(jp_fetch, kernel, "tiny", evict="true")
    assert [v["name"] for v in evicted["dropped"]] == ["small"]
    assert evicted["kept_total"] == 2 and evicted["kept"]["name"] == "tiny"
    assert (await _kept(jp_fetch, kernel, "small"))["versions"] == []


@caps(max_kept_bytes=_bytes_of(CAP_ROWS))
async def test_the_byte_cap_holds_at_the_cap_and_refuses_one_byte_past(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP + BYTES))["status"] == "ok"
    cap = _bytes_of(CAP_ROWS)
    assert _bytes_of(CAP_ROWS + 1) == cap + 1
    code, message = await _refused(_keep(jp_fetch, kernel, "bigger"))
    assert code == 422 and f"{cap + 1:,} bytes, past the {cap:,} bytes" in message
    code, message = await _refused(_keep(jp_fetch, kernel, "bigger", evict="true"))
    assert code == 422  # no eviction makes room for what passes the cap alone
    at_cap = await _keep(jp_fetch, kernel, "small")
    assert at_cap["kept"]["bytes"] == at_cap["bytes_total"] == cap
    code, message = await _refused(_keep(jp_fetch, kernel, "tiny"))
    assert code == 409 and "no room to keep tiny" in message
    listed = await _kept(jp_fetch, kernel, "small")
    assert [v["bytes"] for v in listed["versions"]] == [cap]


@caps(max_kept=0)
async def test_keeping_turned_off(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    code, message = await _refused(_keep(jp_fetch, kernel, "sales"))
    assert code == 422 and "max_kept is 0" in message


async def test_kept_versions_go_with_their_variable_and_the_kernel(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP + "\nother = sales.copy()"))["status"] == "ok"
    at = await _execution(kernel)
    await _keep(jp_fetch, kernel, "sales")
    await _keep(jp_fetch, kernel, "other")
    await _keep(jp_fetch, kernel, "plain")
    # DELETE one version: the reply names it; a second DELETE is a 404.
    dropped = await _kept(jp_fetch, kernel, "plain", "DELETE", str(at))
    assert [v["execution_count"] for v in dropped["dropped"]] == [at]
    assert dropped["versions"] == [] and dropped["kept_total"] == 2
    code, message = await _refused(_kept(jp_fetch, kernel, "plain", "DELETE", str(at)))
    assert code == 404 and "none is kept" in message
    # The variable deleted through the API, then by a cell: its versions go.
    await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables", "sales",
                   method="DELETE")
    code, message = await _refused(_kept(jp_fetch, kernel, "sales"))
    assert code == 404 and "Variable not found: sales" in message
    assert (await _kept(jp_fetch, kernel, "plain"))["kept_total"] == 1  # other's
    assert (await kernel.run("del other"))["status"] == "ok"
    assert (await _refused(_kept(jp_fetch, kernel, "other")))[0] == 404
    assert (await _kept(jp_fetch, kernel, "plain"))["kept_total"] == 0
    # A restart: the probe and everything it kept are gone.
    await _keep(jp_fetch, kernel, "plain")
    await kernel.restart(jp_fetch)
    assert (await kernel.run("import pandas as pd\nplain = pd.DataFrame({'k': [1]})"))[
        "status"] == "ok"
    assert (await _kept(jp_fetch, kernel, "plain"))["kept_total"] == 0


async def test_what_cannot_be_kept_is_a_4xx_naming_why(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    for name, code, words in (("grid", 400, "versions are kept of pandas or polars"),
                              ("n", 400, "versions are kept of pandas or polars"),
                              ("lazy", 400, "never collected from an engine"),
                              ("it", 409, "it is"),
                              ("nope", 404, "Variable not found: nope"),
                              ("1x", 400, "Invalid variable name")):
        got, message = await _refused(_keep(jp_fetch, kernel, name))
        assert (got, words in message) == (code, True), (name, got, message)
    for execution, words in (("x", "execution must be an integer"),
                             ("-1", "execution must be ≥ 0")):
        got, message = await _refused(_kept(jp_fetch, kernel, "sales", "DELETE", execution))
        assert (got, words in message) == (400, True), (execution, message)
    for spelled in ("sales@", "@x", "@1@2x", "@" + "9" * 19, "1x@3"):
        got, message = await _refused(_compare(jp_fetch, kernel, "sales", **{"with": spelled}))
        assert got == 400 and message.startswith("with: "), (spelled, message)
    got, message = await _refused(_compare(jp_fetch, kernel, "sales", **{"with": "plain@1"}))
    assert got == 404 and "No version of plain as of [1]" in message
    got, message = await _refused(jp_fetch(
        "api", "kernel-state", "kernels", "00000000-0000-0000-0000-000000000000",
        "variables", "sales", "kept", method="POST", body=""))
    assert got == 404 and "Kernel does not exist" in message


@pytest.mark.skipif(IR_SPEC_DIR is None, reason="no IRkernel kernelspec `ir`")
async def test_r_kernels_keep_nothing_yet(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel("ir")
    await kernel.run("sales <- data.frame(x = 1:3)")
    for call in (_keep(jp_fetch, kernel, "sales"), _kept(jp_fetch, kernel, "sales"),
                 _kept(jp_fetch, kernel, "sales", "DELETE", "1"),
                 _compare(jp_fetch, kernel, "sales", **{"with": "@1"})):
        code, message = await _refused(call)
        assert code == 501 and "not available for R kernels" in message, message
