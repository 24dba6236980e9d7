"""Engine tables through the REST routes, against a real server and a real kernel: a DuckDB
relation of a billion rows (and a polars LazyFrame) listed, detailed, windowed, filtered,
sorted past its guard, counted, profiled and written as code — in the engine, never
collected; every 2xx body checked against the schema. The prompt's line, the CLI's text
and the client's request are checked without a server at the end."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from jupyter_kernel_state.cli_views import cmd_count, cmd_rows
from jupyter_kernel_state.probe.protocol import SYNTAXES
from jupyter_kernel_state.prompt_lines import LAZY_HINT, variable_line
from jupyter_kernel_state.service import Limits

from .conftest import server_config
from .kernel_utils import _SCHEMA, get_json, validate
from .view_utils import condition

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]
duckdb = pytest.importorskip("duckdb")

BILLION = 1_000_000_000
# The count guard of this module: far past a count of a million rows, far short of a scan
# of a billion.
COUNT_MS = 1_500
SETUP = f"""
import duckdb, polars as pl
con = duckdb.connect()
rel = con.sql("select range as i, range*2.5 as x, 'r'||(range%7)::varchar as s, "
              "DATE '2024-01-01' + (range % 100)::INTEGER as d from range({BILLION})")
part = rel.limit(1_000_000)
lf = pl.LazyFrame({{"a": [3, 1, 2, None], "b": ["x", "y", "z", "w"]}}).filter(pl.col("a") > 0)
other = duckdb.connect()
closed = other.sql("select 1 as a")
"""
# Both conditions hold for i in 3, 10, …, 997 (i % 7 == 3): 143 rows.
TWO_CONDITIONS = {"and": [condition("s", "eq", "r3"), condition("i", "lt", 1000)]}
KEPT = 143


@pytest.fixture
def jp_server_config(gateway_url: str | None) -> Config:
    # probe_timeout 10 s: a table request may spend 8 s (a profile of two sampled
    # columns); the sort keeps its default guard (2 s), the count gets COUNT_MS.
    return server_config(gateway_url, KernelStateApp={"probe_timeout": 10.0,
                                                      "engine_count_ms": COUNT_MS})


async def _get(jp_fetch, kernel, name, route, definition, **params):  # type: ignore[no-untyped-def]
    parts = ["kernels", kernel.kernel_id, "variables", name] + ([route] if route else [])
    payload = await get_json(jp_fetch, *parts, params=params)
    validate(payload, definition)
    return payload


async def _count(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    response = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables",
                              name, "count", method="POST", body="", params=params)
    payload = json.loads(response.body)
    validate(payload, "CountResult")
    return payload


async def _refused(call) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as info:
        await call
    return info.value.code, json.loads(info.value.response.body)["message"]


async def test_a_billion_rows_listed_detailed_windowed_and_written_as_code(
        jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"

    listing = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    entries = {v["name"]: v for v in listing["variables"]}
    assert entries["rel"]["kind"] == "dataframe"
    assert entries["rel"]["preview"].startswith("lazy · DuckDB · ")
    assert "4 columns — i:BIGINT, x:" in entries["rel"]["preview"]
    assert entries["lf"]["kind"] == "dataframe"
    assert entries["lf"]["preview"].startswith("lazy · polars · ")

    prompt = (await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "prompt",
                             params={"budget": 4000})).body.decode()
    assert "- rel: DuckDBPyRelation, lazy DuckDB table, " in prompt
    assert "4 columns — i:BIGINT, x:" in prompt and LAZY_HINT in prompt
    assert "- lf: LazyFrame, lazy polars table, " in prompt

    detail = await _get(jp_fetch, kernel, "rel", None, "VariableDetail")
    assert detail["engine"]["name"] == "duckdb" and detail["engine"]["lazy"] is True
    assert detail["head"] is None and detail["engine"]["plan_truncated"] is False
    assert [c["name"] for c in detail["columns"]] == ["i", "x", "s", "d"]

    first = await _get(jp_fetch, kernel, "rel", "rows", "RowsWindow", limit=5)
    middle = await _get(jp_fetch, kernel, "rel", "rows", "RowsWindow", limit=3,
                        offset=BILLION // 2)
    for window in (first, middle):
        assert window["total_rows"] == BILLION and window["shape"] == [BILLION, 4]
        assert window["engine"]["name"] == "duckdb" and window["engine"]["title"] == "DuckDB"
    assert first["index"] == ["0", "1", "2", "3", "4"] and first["rows"][4][0] == "4"
    assert middle["index"][0] == str(BILLION // 2)
    assert middle["rows"][0][:3] == [str(BILLION // 2), "1250000000.0", "r3"]

    # Two conditions: pushed down, their count in a window's guard (a billion rows: not
    # counted; a million: counted).
    kept = await _get(jp_fetch, kernel, "rel", "rows", "RowsWindow", limit=5,
                      filter=json.dumps(TWO_CONDITIONS))
    assert [r[0] for r in kept["rows"]] == ["3", "10", "17", "24", "31"]
    assert kept["total_rows"] == BILLION and kept["filtered_rows"] is None
    counted = await _get(jp_fetch, kernel, "part", "rows", "RowsWindow", limit=2,
                         filter=json.dumps(TWO_CONDITIONS), sort="i:desc")
    assert counted["filtered_rows"] == KEPT and counted["rows"][0][0] == "997"
    assert counted["engine"]["rows"] == KEPT

    # A polars LazyFrame: the same window, in polars.
    lazy = await _get(jp_fetch, kernel, "lf", "rows", "RowsWindow", sort="a")
    assert lazy["engine"]["name"] == "polars" and [r[0] for r in lazy["rows"]] == ["1", "2", "3"]

    # Code in the engine's own syntax; another syntax lists those that fit.
    for syntax, word in (("duckdb", ".filter("), ("sql", "SELECT")):
        code = await _get(jp_fetch, kernel, "rel", "code", "ViewCode", syntax=syntax,
                          filter=json.dumps(TWO_CONDITIONS))
        assert code["syntax"] == syntax and code["code"].startswith("rel_view = ")
        assert word in code["code"] and "r3" in code["code"]
    assert (await _get(jp_fetch, kernel, "lf", "code", "ViewCode"))["syntax"] == "polars_lazy"
    status, message = await _refused(_get(jp_fetch, kernel, "rel", "code", "ViewCode",
                                          syntax="pandas"))
    assert status == 400 and "duckdb" in message and "sql" in message

    status, message = await _refused(_get(jp_fetch, kernel, "rel", "rows", "RowsWindow",
                                          filter=json.dumps(condition("nope", "eq", 1))))
    assert status == 400 and "nope" in message

    # The plan, as text (under Jupyter, DuckDB's explain() shows HTML unless asked for text).
    assert "RANGE" in detail["engine"]["plan"].upper(), detail["engine"]


async def test_work_past_a_guard_is_cancelled_and_counts_are_asked_for(
        jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"

    # Sorting a billion rows past rows_sort_ms (2 s): interrupted in DuckDB, and the
    # kernel free at once for the next request and the user's next cell.
    started = time.monotonic()
    status, message = await _refused(_get(jp_fetch, kernel, "rel", "rows", "RowsWindow",
                                          sort="x:desc", limit=5))
    assert status == 422 and ("interrupted" in message or "cancelled" in message), message
    assert "2,000 ms" in message and time.monotonic() - started < 8
    after = await _get(jp_fetch, kernel, "rel", "rows", "RowsWindow", limit=1, offset=7)
    assert after["rows"][0][0] == "7"
    started = time.monotonic()
    assert (await kernel.run("after_the_sort = 1", timeout=10))["status"] == "ok"
    assert time.monotonic() - started < 5
    await kernel.wait_idle()

    # Counts: known by the engine, of a filter, and a filter past the count's guard.
    whole = await _count(jp_fetch, kernel, "rel")
    assert whole["rows"] == BILLION and whole["filtered"] is False
    assert whole["engine"]["name"] == "duckdb" and whole["stale"] is False
    filtered = await _count(jp_fetch, kernel, "part", filter=json.dumps(TWO_CONDITIONS))
    assert filtered["rows"] == KEPT and filtered["filtered"] is True
    asked = kernel.state.probe_requests
    assert await _count(jp_fetch, kernel, "part", filter=json.dumps(TWO_CONDITIONS)) \
        == filtered
    assert kernel.state.probe_requests == asked  # kept for this execution: not asked again
    status, message = await _refused(_count(
        jp_fetch, kernel, "rel", filter=json.dumps(condition("s", "contains", "3"))))
    assert status == 422 and f"{COUNT_MS:,} ms" in message, message
    assert "interrupted" in message or "cancelled" in message
    assert await _count(jp_fetch, kernel, "rel") == whole

    # A closed connection: DuckDB's own message, a 422 (not a 500).
    assert (await kernel.run("other.close()"))["status"] == "ok"
    status, message = await _refused(_get(jp_fetch, kernel, "closed", "rows", "RowsWindow"))
    assert status == 422 and "closed" in message.lower(), message

    # A profile of a number and a text column, from DuckDB's aggregates.
    profile = await _get(jp_fetch, kernel, "rel", "profile", "TableProfile", columns="1,2")
    assert profile["engine"]["name"] == "duckdb" and profile["columns_cut"] == 0
    number, text = profile["columns"]
    assert (number["name"], number["family"], text["name"], text["family"]) == (
        "x", "number", "s", "string")
    assert number["approximate"] and text["approximate"]
    assert text.get("distinct") == 7 and {e["value"] for e in text["top"]} == {
        f"r{k}" for k in range(7)}
    if profile["sampled"]:
        assert profile["sample_rows"] and profile["sample_rows"] > 0


# A relation whose every row costs DuckDB a Python call that sleeps 0.2 ms: its sort takes
# 4 s or more on any machine (past the sort's 2 s guard), and DuckDB checks for an
# interrupt between vectors of 2,048 rows (0.4 s apart).
SLOW = """
import duckdb, time
slow_con = duckdb.connect()
def _slow(x):
    time.sleep(0.0002)
    return x
slow_con.create_function("slow", _slow, ["BIGINT"], "BIGINT", side_effects=True)
slow = slow_con.sql("select slow(range) as v, range as i from range(20000)")
del _slow
"""


async def test_a_request_given_more_time_answers_what_the_guards_cancel(
        jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SLOW))["status"] == "ok"

    # At the server's guards: cancelled in DuckDB past the sort's 2 s, and says so.
    status, message = await _refused(_get(jp_fetch, kernel, "slow", "rows", "RowsWindow",
                                          sort="v:desc", limit=3))
    assert status == 422 and "2,000 ms" in message, message
    await kernel.wait_idle()

    # The same request given 50 s of its own (the reply awaited past probe_timeout,
    # 10 s here): every guard raised, the sort done in DuckDB.
    window = await _get(jp_fetch, kernel, "slow", "rows", "RowsWindow", sort="v:desc",
                        limit=3, budget_ms=50_000)
    assert [row[0] for row in window["rows"]] == ["19999", "19998", "19997"]
    assert window["engine"]["name"] == "duckdb"
    # A profile and a count given time too (the count is the engine's, known at once).
    profile = await _get(jp_fetch, kernel, "slow", "profile", "TableProfile", columns="0",
                         budget_ms=50_000)
    assert profile["columns"][0]["count"] == 20_000 and not profile["columns"][0].get("error")
    counted = await _count(jp_fetch, kernel, "slow", budget_ms=50_000)
    assert counted["rows"] == 20_000

    # More than the server allows (max_request_budget_ms, 60 s), or nothing: a 400 naming it.
    for bad in ("60001", "0", "soon"):
        status, message = await _refused(_get(jp_fetch, kernel, "slow", "rows",
                                              "RowsWindow", budget_ms=bad))
        assert status == 400 and "budget_ms" in message, message
    # The kernel runs the user's cells at once after all of it.
    assert (await kernel.run("after = 1", timeout=10))["status"] == "ok"


async def test_a_table_in_memory_is_counted_and_says_no_engine(
        jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(
        "import pandas as pd\nsales = pd.DataFrame({'units': range(100)})\ngen = iter([1])"
    ))["status"] == "ok"
    counted = await _count(jp_fetch, kernel, "sales",
                           filter=json.dumps(condition("units", "ge", 90)))
    assert (counted["rows"], counted["filtered"], counted["engine"]) == (10, True, None)
    window = await _get(jp_fetch, kernel, "sales", "rows", "RowsWindow", limit=1)
    assert window["engine"] is None and window["total_rows"] == 100
    profile = await _get(jp_fetch, kernel, "sales", "profile", "TableProfile")
    assert profile["engine"] is None
    status, _ = await _refused(_count(jp_fetch, kernel, "gen"))
    assert status == 409
    status, message = await _refused(_count(jp_fetch, kernel, "sales", filter="{"))
    assert status == 400 and "filter" in message


# --- without a server ---------------------------------------------------------------------


def test_the_schema_lists_every_syntax_and_guards_stay_inside_the_deadline() -> None:
    assert _SCHEMA["$defs"]["ViewCode"]["properties"]["syntax"]["enum"] == list(SYNTAXES)
    assert Limits().table_budget_ms == 4_000  # 80 % of probe_timeout
    assert Limits(probe_timeout=15.0).table_budget_ms == 12_000


@pytest.mark.parametrize(("entry", "expected"), [
    ({"name": "rel", "type": "DuckDBPyRelation", "kind": "dataframe",
      "preview": "lazy · DuckDB · not counted · 2 columns — i:BIGINT, s:VARCHAR"},
     "- rel: DuckDBPyRelation, lazy DuckDB table, not counted, 2 columns — i:BIGINT, "
     f"s:VARCHAR ({LAZY_HINT})"),
    ({"name": "lf", "type": "LazyFrame", "kind": "dataframe", "shape": [1000, 1],
      "preview": "lazy · polars · 1,000 rows · 1 column — a:Int64"},
     f"- lf: LazyFrame, lazy polars table, 1,000 rows, 1 column — a:Int64 ({LAZY_HINT})"),
    ({"name": "df", "type": "DataFrame", "kind": "dataframe", "shape": [3, 1],
      "preview": "3×1 — a:int64"},
     "- df: DataFrame 3×1 — a:int64"),
])
def test_a_lazy_tables_prompt_line_says_its_engine_and_how_to_read_it(
        entry: dict[str, Any], expected: str) -> None:
    assert variable_line(entry) == expected


class _Client:
    """The client's side of ``count``, as the CLI calls it."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.asked: list[tuple[Any, ...]] = []

    def count(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self.asked.append((args, kwargs))
        return self.answer

    def rows(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self.answer


def test_the_cli_says_what_an_engine_counted_and_what_it_did_not() -> None:
    import argparse

    engine = {"name": "duckdb", "title": "DuckDB", "lazy": True, "rows": None,
              "location": None, "cost_ms": 12}
    args = argparse.Namespace(kernel_id="k", name="rel", filter='{"column": "s"}', json=False,
                              offset=0, limit=1, columns=None, sort=None)
    client = _Client({"name": "rel", "type": "DuckDBPyRelation", "rows": 143,
                      "filtered": True, "cost_ms": 7, "engine": engine, "stale": False})
    assert cmd_count(client, args) == (  # type: ignore[arg-type]
        "143 rows kept by the filter of rel (lazy DuckDB table, counted in DuckDB in 7 ms)")
    assert client.asked == [(("k", "rel"), {"filter": '{"column": "s"}'})]
    window = _Client({"columns": [{"name": "i", "dtype": "BIGINT", "position": 0}],
                      "columns_total": 1, "offset": 0, "index": ["0"], "rows": [["3"]],
                      "total_rows": None, "filter": {"column": "s"}, "filtered_rows": None,
                      "engine": engine})
    text = cmd_rows(window, args)  # type: ignore[arg-type]
    assert "rows 1-1 of ? matching (?); lazy DuckDB table, computed in DuckDB in 12 ms; " \
        "?: not counted in time" in text
