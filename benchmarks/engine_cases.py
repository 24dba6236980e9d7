"""Tables in an engine through REST end to end, against the engine's own equivalent query
run in the same kernel and the kernel's floor, in one run.

    python benchmarks/engine_cases.py [--reps N] [--rows 10000000]
        [--engines duckdb,polars,spark,ibis,dask]

For each engine a user's cell makes a 20-column table that is never collected: a DuckDB
relation over ``range(rows)``, a polars ``scan_parquet`` of a generated Parquet file,
a Spark DataFrame over ``spark.range(rows)`` (a ``local[2]`` session in the kernel), an
Ibis table over a DuckDB view of ``range(rows)``, a dask ``read_parquet`` of the same
kind of Parquet file as polars'.
What a caller waits for is the client's wall time of the REST request on a real
jupyter_server whose caches keep one answer, each repetition asking another query
(another offset, sort column or filter bound), so the probe and the engine run every
time; the first window of a view includes its count (kept for the next pages).  The
engine's own query is what a competent user types for the same answer (``rel.limit(100,
off).fetchall()``, ``lf.sort(c).head(100).collect()``, ``df.orderBy(...).limit(100)
.collect()``; for a filter, its first rows and its count, as the window reply holds
both), sent through ``user_expressions`` to the same kernel.  For a profile it computes
everything the profile returns, the best way the engine offers:

* one number column: rows, present values, NaN, min, max, mean, standard deviation and
  the 5/25/50/75/95 % quantiles in one aggregate (approximate where ours is: DuckDB's
  ``approx_quantile``, Spark's ``percentile_approx``, Ibis' ``approx_quantile``; exact in
  polars and dask), then a histogram of 50 equal bins over the range that aggregate
  found — DuckDB ``histogram(c, equi_width_bins(lo, hi, 50, false))``, Spark a
  ``groupBy`` of ``floor((c - lo) / step)``, Ibis the same ``group_by``, dask
  ``np.histogram`` per partition; polars in the same ``select`` (``hist(bin_count=50)``);
* one text column: rows, present values, distinct values, empty strings and the 10 most
  frequent — DuckDB one statement over a ``GROUP BY`` of the column (exact distinct),
  polars one ``select`` (``approx_n_unique``, ``value_counts``), Spark an ``agg`` with
  ``approx_count_distinct`` and a ``groupBy`` top 10 (two jobs), Ibis an aggregate and
  ``value_counts``, dask one ``compute`` of ``nunique_approx`` and ``value_counts``.

A window in the middle of a Spark table is compared with the rows of a key range
(``filter(F.col('c0').between(off, off + 99))``, one pass): Spark's own ``offset``
collects every skipped row in its driver, which no user can afford on a large table.

Target (DESIGN §5): each case ≤ 1.3 × the engine's own query + 3 × the floor.  The guards
are raised for the run (``--KernelStateApp.probe_timeout=120`` and the rows, profile and
count guards) so that every case answers; at the defaults, a sort past 2 s is cancelled
in the engine (tests/probe/backends).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gateway_cases import _generation, _wait_generation
from results import fmt_ratio, log_line, markdown_table, print_tables, text_table
from scale_cases import Row, _timed_get
from server import Server
from table_harness import HEADER, table_kernel

ROWS = 10_000_000
WIDTH = 20
#: The guards raised for the run (every case answers; what each costs is measured).
SERVER_ARGS = [
    "--KernelStateApp.probe_timeout=120",
    "--KernelStateApp.rows_sort_ms=60000",
    "--KernelStateApp.rows_read_ms=60000",
    "--KernelStateApp.profile_column_ms=60000",
    "--KernelStateApp.rows_cache_size=1",
    "--KernelStateApp.profile_cache_size=1",
    "--KernelStateApp.rows_count_ms=60000",
    "--KernelStateApp.engine_count_ms=60000",
]

_DUCKDB = """
import duckdb
_con = duckdb.connect()
_more = ", ".join(f"(range * {{k}} % 1000003)::DOUBLE AS c{{k}}" for k in range(3, {width}))
table = _con.sql("SELECT range AS c0, range * 2.5 AS c1, 'r' || (range % 7)::VARCHAR AS c2, "
                 + _more + " FROM range({rows})")
"""
_POLARS = """
import polars as pl
_path = {path!r}
pl.select(pl.int_range(0, {rows}).alias("c0")).with_columns(
    (pl.col("c0") * 2.5).alias("c1"), ("r" + (pl.col("c0") % 7).cast(pl.String)).alias("c2"),
    *[((pl.col("c0") * k) % 1000003).cast(pl.Float64).alias(f"c{{k}}") for k in range(3, {width})],
).write_parquet(_path, row_group_size=1_000_000)
table = pl.scan_parquet(_path)
"""
_SPARK = """
from pyspark.sql import SparkSession, functions as F
_spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
          .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
          .getOrCreate())
_spark.sparkContext.setLogLevel("ERROR")
table = _spark.range({rows}).select(
    F.col("id").alias("c0"), (F.col("id") * 2.5).alias("c1"),
    F.concat(F.lit("r"), (F.col("id") % 7).cast("string")).alias("c2"),
    *[((F.col("id") * k) % 1000003).cast("double").alias(f"c{{k}}") for k in range(3, {width})])
"""

_IBIS = """
import ibis
_con = ibis.duckdb.connect()
_more = ", ".join(f"(range * {{k}} % 1000003)::DOUBLE AS c{{k}}" for k in range(3, {width}))
_con.con.execute("CREATE VIEW big AS SELECT range AS c0, range * 2.5 AS c1, "
                 "'r' || (range % 7)::VARCHAR AS c2, " + _more + " FROM range({rows})")
table = _con.table("big")
"""
#: dask over the same Parquet file as polars (written by this cell), its partitions' lengths
#: read once here: the engine's own window is then one partition's slice, as ours is.
_DASK = _POLARS.replace("table = pl.scan_parquet(_path)", """
import dask, dask.dataframe as dd, numpy as np, pandas as pd
table = dd.read_parquet(_path)
_lens = list(table.map_partitions(len).compute())


def _window(off, n=100):
    for part, size in enumerate(_lens):
        if off < size:
            return table.partitions[part].compute().iloc[off:off + n]
        off -= size
""")

#: Per engine: the setup cell and the engine's own query for each case (``{off}``,
#: ``{col}``, ``{low}`` filled per repetition).
ENGINES: dict[str, dict[str, str]] = {
    "duckdb": {
        "setup": _DUCKDB,
        "window": "len(table.limit(100, {off}).fetchall())",
        "sort": "len(table.order('c{col} DESC NULLS LAST').limit(100).fetchall())",
        "filter": ("[len(table.filter(\"c2 = 'r3' AND c1 >= {low}\").limit(100).fetchall()), "
                   "table.filter(\"c2 = 'r3' AND c1 >= {low}\").aggregate('count(*)')"
                   ".fetchall()].__len__()"),
        "profile number": ("(lambda r: len(table.aggregate(f'histogram(c{col}, equi_width_bins("
                           "{{r[3]}}, {{r[4]}}, 50, false))').fetchall()))(table.aggregate("
                           "'count(*), count(c{col}), count(*) FILTER (WHERE isnan(c{col})), "
                           "min(c{col}), max(c{col}), avg(c{col}), stddev_samp(c{col}), "
                           "approx_quantile(c{col}, [0.05, 0.25, 0.5, 0.75, 0.95])')"
                           ".fetchall()[0])"),
        "profile text": ("len(table.query('t', \"WITH g AS (SELECT c2 AS v, count(*) AS n FROM t "
                         "GROUP BY c2) SELECT sum(n), sum(n) FILTER (WHERE v IS NOT NULL), "
                         "count(v), sum(n) FILTER (WHERE v = ''), (SELECT list(v) FROM (SELECT "
                         "v FROM g WHERE v IS NOT NULL ORDER BY n DESC, v LIMIT 10)) FROM g\")"
                         ".fetchall())"),
        "count": "table.filter('c0 >= {low}').aggregate('count(*)').fetchall()[0][0]",
    },
    "polars": {
        "setup": _POLARS,
        "window": "table.slice({off}, 100).collect().height",
        "sort": ("table.sort('c{col}', descending=True, nulls_last=True).head(100)"
                 ".collect().height"),
        "filter": ("[table.filter((pl.col('c2') == 'r3') & (pl.col('c1') >= {low})).head(100)"
                   ".collect().height, table.filter((pl.col('c2') == 'r3') & "
                   "(pl.col('c1') >= {low})).select(pl.len()).collect().item()].__len__()"),
        "profile number": ("table.select(pl.len().alias('rows'), pl.col('c{col}').count()"
                           ".alias('n'), pl.col('c{col}').is_nan().sum().alias('nan'), "
                           "pl.col('c{col}').min().alias('lo'), pl.col('c{col}').max()"
                           ".alias('hi'), pl.col('c{col}').mean().alias('mean'), "
                           "pl.col('c{col}').std().alias('std'), *[pl.col('c{col}')"
                           ".quantile(q).alias(f'q{{q}}') for q in "
                           "(0.05, 0.25, 0.5, 0.75, 0.95)], pl.col('c{col}').hist(bin_count=50, "
                           "include_category=False, include_breakpoint=False).implode()"
                           ".alias('bins')).collect().height"),
        "profile text": ("table.select(pl.len().alias('rows'), pl.col('c2').count().alias('n'), "
                         "pl.col('c2').approx_n_unique().alias('d'), (pl.col('c2') == '').sum()"
                         ".alias('empty'), pl.col('c2').drop_nulls().value_counts(sort=True)"
                         ".head(10).implode().alias('top')).collect().height"),
        "count": "table.filter(pl.col('c0') >= {low}).select(pl.len()).collect().item()",
    },
    "spark": {
        "setup": _SPARK,
        "window": "len(table.limit(100).collect())",
        "middle": "len(table.filter(F.col('c0').between({off}, {off} + 99)).collect())",
        "sort": "len(table.orderBy(F.col('c{col}').desc_nulls_last()).limit(100).collect())",
        "filter": ("[len(table.filter((F.col('c2') == 'r3') & (F.col('c1') >= {low}))"
                   ".limit(100).collect()), table.filter((F.col('c2') == 'r3') & "
                   "(F.col('c1') >= {low})).count()].__len__()"),
        "profile number": ("(lambda r: len(table.select(F.least(F.floor((F.col('c{col}') - r[3]) "
                           "/ ((r[4] - r[3]) / 50)).cast('long'), F.lit(49)).alias('b'))"
                           ".groupBy('b').count().collect()))(table.agg(F.count(F.lit(1)), "
                           "F.count('c{col}'), F.count(F.when(F.isnan('c{col}'), 1)), "
                           "F.min('c{col}'), F.max('c{col}'), F.avg('c{col}'), "
                           "F.stddev('c{col}'), F.percentile_approx('c{col}', "
                           "[0.05, 0.25, 0.5, 0.75, 0.95])).collect()[0])"),
        "profile text": ("[table.agg(F.count(F.lit(1)), F.count('c2'), "
                         "F.approx_count_distinct('c2'), F.count(F.when(F.col('c2') == '', 1)))"
                         ".collect(), table.groupBy('c2').count().orderBy(F.desc('count'))"
                         ".limit(10).collect()].__len__()"),
        "count": "table.filter(F.col('c0') >= {low}).count()",
    },
    "ibis": {
        "setup": _IBIS,
        "window": "table.limit(100, offset={off}).to_pyarrow().num_rows",
        "sort": "table.order_by(ibis.desc('c{col}')).limit(100).to_pyarrow().num_rows",
        "filter": ("[table.filter((table.c2 == 'r3') & (table.c1 >= {low})).limit(100)"
                   ".to_pyarrow().num_rows, table.filter((table.c2 == 'r3') & "
                   "(table.c1 >= {low})).count().execute()].__len__()"),
        "profile number": ("(lambda r: table.group_by(b=((table.c{col} - r['lo']) / ((r['hi'] "
                           "- r['lo']) / 50)).floor().clip(upper=49)).aggregate(n=table.count())"
                           ".to_pyarrow().num_rows)(table.aggregate(rows=table.count(), "
                           "n=table.c{col}.count(), nan=table.c{col}.isnan().sum(), "
                           "lo=table.c{col}.min(), hi=table.c{col}.max(), "
                           "mean=table.c{col}.mean(), std=table.c{col}.std(), "
                           "**{{f'q{{int(q * 100)}}': table.c{col}.approx_quantile(q) for q in "
                           "(0.05, 0.25, 0.5, 0.75, 0.95)}}).to_pyarrow().to_pylist()[0])"),
        "profile text": ("[table.aggregate(rows=table.count(), n=table.c2.count(), "
                         "d=table.c2.approx_nunique(), empty=(table.c2 == '').sum())"
                         ".to_pyarrow(), table.c2.value_counts().order_by(ibis.desc("
                         "'c2_count')).limit(10).to_pyarrow()].__len__()"),
        "count": "table.filter(table.c0 >= {low}).count().execute()",
    },
    "dask": {
        "setup": _DASK,
        "window": "len(_window({off}))",
        "sort": "len(table.nlargest(100, 'c{col}').compute())",
        "filter": ("[len(table[(table.c2 == 'r3') & (table.c1 >= {low})].head(100, "
                   "npartitions=-1)), len(table[(table.c2 == 'r3') & (table.c1 >= {low})])]"
                   ".__len__()"),
        "profile number": ("(lambda r: len(table.c{col}.map_partitions(lambda s: pd.Series("
                           "np.histogram(s.dropna(), 50, (r[3], r[4]))[0])).compute()))("
                           "dask.compute(table.c{col}.size, table.c{col}.count(), "
                           "table.c{col}.isna().sum(), table.c{col}.min(), table.c{col}.max(), "
                           "table.c{col}.mean(), table.c{col}.std(), table.c{col}.quantile("
                           "[0.05, 0.25, 0.5, 0.75, 0.95])))"),
        "profile text": ("len(dask.compute(table.c2.size, table.c2.count(), "
                         "table.c2.nunique_approx(), (table.c2 == '').sum(), "
                         "table.c2.value_counts().nlargest(10)))"),
        "count": "len(table[table.c0 >= {low}])",
    },
}

COLUMNS = "columns=0:20"


def _rest(case: str, rep: int, rows: int) -> tuple[str, str]:
    """(method, path under the variable) of ``case`` at repetition ``rep``."""
    col = 3 + rep % (WIDTH - 3)
    low = rep * 10
    if case == "window at 0":
        return "GET", f"rows?offset={rep}&limit=100&{COLUMNS}"
    if case == "window in the middle":
        return "GET", f"rows?offset={rows // 2 + rep * 100}&limit=100&{COLUMNS}"
    if case == "new sort + window":
        return "GET", f"rows?sort=c{col}:desc&limit=100&{COLUMNS}"
    if case == "two-condition filter + window":
        tree = {"and": [{"column": "c2", "op": "eq", "value": "r3"},
                        {"column": "c1", "op": "ge", "value": str(low)}]}
        return "GET", f"rows?limit=100&{COLUMNS}&filter=" + urllib.parse.quote(json.dumps(tree))
    if case == "profile: one number column":
        return "GET", f"profile?columns={col}"
    if case == "profile: one text column":
        # The only text column, once: its own budget (a part of the answers' key) makes
        # each repetition another query (asking ``columns=2,2`` profiled it twice).
        return "GET", f"profile?columns=2&budget_ms={59_000 + rep}"
    tree = {"column": "c0", "op": "ge", "value": str(low)}
    return "POST", "count?filter=" + urllib.parse.quote(json.dumps(tree))


#: Each REST case and the engine's own query it is compared with.
CASES = (("window at 0", "window"), ("window in the middle", "window"),
         ("new sort + window", "sort"), ("two-condition filter + window", "filter"),
         ("profile: one number column", "profile number"),
         ("profile: one text column", "profile text"), ("row count", "count"))


def _own(query: str, case: str, rep: int, rows: int) -> str:
    off = rep if case == "window at 0" else rows // 2 + rep * 100
    return query.format(off=off, col=3 + rep % (WIDTH - 3), low=rep * 10)


def _timed(server: Server, method: str, path: str) -> tuple[float, object]:
    if method == "GET":
        return _timed_get(server, path)
    started = time.perf_counter()
    status, _, body = server.request(method, path)
    took = time.perf_counter() - started
    if status != 200:
        raise RuntimeError(f"{method} {path}: {status} {body[:300]!r}")
    return took, json.loads(body)


def _memory_mb(pid: int) -> tuple[float, float]:
    """(resident, peak resident) MB of process ``pid`` (Linux ``/proc``)."""
    fields = dict(line.split(":", 1) for line in
                  Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def measure_engine(server: Server, engine: str, rows: int, reps: int,
                   log: Callable[[str], None], workdir: Path) -> list[Row]:
    spec = ENGINES[engine]
    setup = spec["setup"].format(rows=rows, width=WIDTH, path=str(workdir / "table.parquet"))
    with table_kernel(server, rows, reps, log, f"{engine}: a {rows:,}-row × {WIDTH}-column "
                      "table in the engine", setup, "table", "detail=full") as kernel:
        pid = int(str(kernel.floor_client.expression("__import__('os').getpid()")).strip("'\""))
        before, _ = _memory_mb(pid)
        _wait_generation(server, kernel.kernel_id, _generation(server, kernel.kernel_id))
        out: list[Row] = []
        for case, own_key in CASES:
            ours = Row(rows, f"{engine}: {case}")
            if case == "window in the middle" and "middle" in spec:
                own_key = "middle"
            theirs = Row(rows, f"{engine}: the engine's own {own_key}")
            for rep in range(reps):
                method, path = _rest(case, rep, rows)
                took, payload = _timed(server, method, f"{kernel.base}/{path}")
                assert isinstance(payload, dict), payload
                ours.seconds.append(took)
                ours.reply_bytes = len(json.dumps(payload).encode())
                took, size = kernel.floor_client.timed_expression(
                    _own(spec[own_key], case, rep, rows))
                theirs.seconds.append(took)
                theirs.reply_bytes = size
                # The engine's own query is another client's execution: let the server see
                # the kernel idle again before the next request.
                _wait_generation(server, kernel.kernel_id, _generation(server, kernel.kernel_id))
            out += [ours, theirs]
        after, peak = _memory_mb(pid)
        log(f"{engine}: kernel RSS {before:,.0f} MB after the cell, {after:,.0f} MB after the "
            f"cases (peak {peak:,.0f} MB; the cases include the engine's own queries)")
        return kernel.against_floor(*out)


def checks(rows: list[Row]) -> list[tuple[str, str, bool]]:
    """Each case ≤ 1.3 × the engine's own query + 3 × the floor (the floor of its run)."""
    out = []
    for ours, theirs in zip(rows[1::2], rows[2::2], strict=False):
        if not ours.case or "own" in ours.case:
            continue
        bound = 1.3 * theirs.median_ms + 3 * ours.floor_ms
        out.append((ours.case, f"{fmt_ratio(ours.median_ms / bound)} the bound "
                    f"({ours.median_ms:,.0f} ms vs {theirs.median_ms:,.0f} ms own)",
                    ours.median_ms <= bound))
    return out


def run(reps: int, log: Callable[[str], None], rows: int = ROWS,
        engines: tuple[str, ...] = ("duckdb", "polars")) -> list[Row]:
    out: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="jks-engines-") as tmp:
        for engine in engines:
            server = Server(debug_log=False, extra_args=SERVER_ARGS)
            try:
                from gateway_cases import _start

                _start(server)
                out += measure_engine(server, engine, rows, reps, log, Path(tmp))
            finally:
                server.stop()
    return out


#: Where ``run.py`` writes this benchmark's table into the report (report_template.md).
REPORT_MARK = "<!-- engine_cases -->"


def tables(rows: list[Row], markdown: bool) -> str:
    table = (markdown_table if markdown else text_table)(HEADER, [r.cells() for r in rows])
    verdicts = [f"- {'met' if ok else 'MISSED'}: {name} ({value})"
                for name, value, ok in checks(rows)]
    return table + "\n\n" + "\n".join(verdicts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--engines", default="duckdb,polars")
    args = parser.parse_args()
    started = time.perf_counter()
    engines = tuple(e for e in args.engines.split(",") if e)
    result = run(args.reps, log_line, args.rows, engines)
    log_line(f"engine cases took {time.perf_counter() - started:.0f} s")
    # Each engine's rows carry their own floor; the checks pair a case with its own query.
    checked: list[tuple[str, str, bool]] = []
    for engine in engines:
        part = [r for r in result if r.case.startswith(engine + ":") or r.case.startswith("floor")]
        mine = [r for r in result if r.case.startswith(engine + ":")]
        floor = next((r for r in result if r.case.startswith("floor")), None)
        if floor is not None and part:
            checked += checks([floor, *mine])
    return print_tables(HEADER, [r.cells() for r in result], checked)


if __name__ == "__main__":
    raise SystemExit(main())
