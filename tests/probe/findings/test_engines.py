"""Findings of tables that live in an engine: DuckDB relations and polars LazyFrames
computed by aggregate queries (nulls, constants by min and max, outliers from the engine's
quartiles, text read as numbers or dates, duplicate rows by a distinct count), the other
kinds listed as not checked with why; nothing collected — a relation over 100 million rows
answers within its guard — and the engines that compute none (Ibis, dask) refuse each kind
cleanly."""

from __future__ import annotations

import re
import resource
import time
from typing import Any

import duckdb
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe.windows.findings import KINDS

from .cases import check_filters, findings, of, one

#: Computed by DuckDB and polars (an engine's column holds one type: no mixed types).
ENGINE_KINDS = set(KINDS) - {"mixed_types"}
N = 200


def _columns() -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {
        "n": [*[float(i % 40) for i in range(N - 2)], 900.0, -700.0],
        "k": ["same"] * N,
        "gaps": [None if i % 8 == 0 else i for i in range(N)],
        "nothing": [None] * N,
        "amount": [str(i) for i in range(N)],
        "when": [f"2024-01-{1 + i % 28:02d} 10:00" for i in range(N)],
        "odd name": [float("nan") if i % 50 == 0 else 1.5 * i for i in range(N)],
        "order_id": [i if i % 60 else i + 1 for i in range(N)],
        "region": [["North", "South", "north ", "NORTH"][i % 4] if i % 3 else "South"
                   for i in range(N)],
    }
    out["y"] = [2.0 * x + 1.0 for x in out["n"]]
    return out


def _lazy() -> pl.LazyFrame:
    cols = _columns()
    frame = pl.DataFrame(cols, schema_overrides={"nothing": pl.Int64}, strict=False)
    return pl.concat([frame, frame.head(3)]).lazy()


def _relation() -> Any:
    frame = pd.DataFrame(_columns())
    frame["nothing"] = frame["nothing"].astype("Int64")
    return duckdb.connect().from_df(pd.concat([frame, frame.head(3)], ignore_index=True))


@pytest.mark.parametrize("make", [_lazy, _relation], ids=["polars-lazy", "duckdb"])
def test_an_engines_findings_by_aggregates(make: Any) -> None:
    value = make()
    reply = findings(value)
    rows = N + 3
    assert reply["total_rows"] == rows and reply["engine"]["name"] in ("polars", "duckdb")
    assert one(reply, "outliers", "n")["count"] == 2  # 900 and -700
    assert one(reply, "constant", "k")["count"] == rows
    gaps = one(reply, "missing", "gaps")
    assert (gaps["count"], gaps["severity"]) == (26, "warning")
    assert one(reply, "missing", "odd name")["count"] == 5  # NaN is missing
    assert one(reply, "empty_column", "nothing")["count"] == rows
    assert one(reply, "numbers_as_text", "amount")["count"] == rows
    assert one(reply, "dates_as_text", "when")["count"] == rows
    assert one(reply, "duplicate_rows")["count"] == 3
    keys = one(reply, "duplicate_keys", "order_id")  # 1 four times (with the copies), …
    assert keys["count"] == 12 and sorted(keys["filter"]["value"]) == [1, 2, 61, 121, 181]
    assert one(reply, "id_like", "order_id")["severity"] == "info"
    near = one(reply, "near_duplicate_labels", "region")
    assert len(near["filter"]["value"]) == 2
    assert set(near["filter"]["value"]) < {"North", "north ", "NORTH"}
    assert one(reply, "correlated", "n")["columns"] == ["n", "y"]
    assert {k["kind"] for k in reply["not_checked"]} == set(KINDS) - ENGINE_KINDS
    assert all(k["reason"] for k in reply["not_checked"]) and reply["errors"] == []
    assert reply["sampled"] is False
    check_filters(value, reply)


def test_duckdb_quartiles_are_estimates_polars_exact() -> None:
    assert one(findings(_relation()), "outliers", "n")["approximate"] is True
    assert one(findings(_lazy()), "outliers", "n")["approximate"] is False


@pytest.mark.parametrize("make", [_lazy, _relation], ids=["polars-lazy", "duckdb"])
def test_an_engines_filtered_view(make: Any) -> None:
    view = {"filter": {"column": "odd name", "op": "notnull"}}
    reply = findings(make(), view=view)
    assert not of(reply, "missing", "odd name")
    assert one(reply, "missing", "gaps")["count"] == 24  # row 0 and its copy left out
    assert one(reply, "outliers", "n")["filter"]["and"][0] == {**view["filter"], "value": None}
    assert reply["filtered_rows"] == N + 3 - 5


HUNDRED_MILLION = ("SELECT range AS i, range * 2.5 AS x, 'r' || (range % 7)::VARCHAR AS s "
                   "FROM range(100000000)")


def test_a_hundred_million_row_relation_answers_within_its_guard() -> None:
    con = duckdb.connect()
    big = con.sql(HUNDRED_MILLION)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    reply = findings(big, column_ms=500, budget_ms=6_000)
    spent = time.perf_counter() - started
    assert spent < 8.0, spent  # each query stopped at its guard
    assert reply["errors"] == [] or all("interrupted in DuckDB" in e["error"]
                                        for e in reply["errors"])
    assert reply["sampled"] is True  # the duplicate rows: the first sample_rows rows
    assert not of(reply, "duplicate_rows") and not of(reply, "outliers")
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 256 * 1024, grown_kb  # a collected table would be gigabytes
    assert con.sql("SELECT 41 + 1").fetchall() == [(42,)]  # DuckDB answers next


def test_a_hundred_million_row_lazyframe_answers_within_its_guard() -> None:
    big = pl.LazyFrame({"k": list(range(1_000))}).join(
        pl.LazyFrame({"j": list(range(100_000))}), how="cross").with_columns(
        (pl.col("j") * 2.5).alias("x"))
    # polars' in-memory engine materialises the cross join for any aggregate over it (1.6
    # GB): the engine's own query sets the baseline the findings must stay near, whatever
    # ran before in this process.
    assert big.select(pl.col("x").mean()).collect().item() > 0
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    # A guard long enough for a loaded machine: cancelled, a column falls back on its
    # first rows, whose quartiles (k = 0 … 9 there) would call most rows outliers.
    reply = findings(big, column_ms=5_000, budget_ms=30_000)
    assert time.perf_counter() - started < 30.0
    assert reply["total_rows"] == 100_000_000 and reply["sampled"] is True
    assert not of(reply, "outliers")  # quartiles of every k-th row, not of the first rows
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 256 * 1024, grown_kb  # beyond the engine's own: collected is 2.4 GB


def test_a_column_past_its_guard_is_computed_on_the_first_rows_and_flagged() -> None:
    big = duckdb.connect().sql(
        "SELECT CASE WHEN range % 3 = 0 THEN NULL ELSE range END AS v FROM range(200000000)")
    reply = findings(big, column_ms=300, budget_ms=6_000, sample_rows=1_000)
    missing = one(reply, "missing", "v")
    assert missing["approximate"] is True and "the first 1,000 rows" in missing["message"]
    assert missing["count"] == 334


def test_an_engine_that_computes_none_says_so_per_kind() -> None:
    ibis = pytest.importorskip("ibis")
    pa = pytest.importorskip("pyarrow")
    table = ibis.memtable(pa.table({"a": [1, 1, None], "b": ["x", "x", "y"]}))
    reply = findings(table)
    assert reply["findings"] == [] and reply["errors"] == []
    assert [k["kind"] for k in reply["not_checked"]] == list(KINDS)
    # "Ibis" or "Ibis (duckdb)": the backend is named once a default one has been made
    assert all(re.search(r"not computed in Ibis( \(\w+\))? yet", k["reason"])
               for k in reply["not_checked"])
    assert reply["syntax"] is None


def test_dask_computes_none_and_collects_nothing() -> None:
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(pd.DataFrame({"a": [1, 1, None]}), npartitions=1)
    reply = findings(frame)
    assert reply["findings"] == [] and len(reply["not_checked"]) == len(KINDS)
