"""PySpark DataFrames explored in Spark, classic (one ``local[2]`` session) and Spark
Connect (one server on loopback, when it starts in time): case tables, a seeded property
test of filter trees and sorts against an independent evaluation in plain Python (and
against the generated code, run), windows deep into a billion rows that bring back only
the window, a query past its guard cancelled in Spark, refusals and a stopped session.

Spark is slow to start (a JVM each, ~10–40 s here): one classic session and one Connect
server serve the whole module; the Connect cases and the billion-row ones are marked
slow."""

from __future__ import annotations

import datetime
import functools
import itertools
import json
import math
import random
import re
import resource
import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_kernel_state.probe import entry, summarize
from jupyter_kernel_state.probe.backends import spark as spark_backend

from ... import spark_cluster
from .independent import ROOMY, keeps, ordered
from .independent import present as _present

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.timeout(900, method="thread"),
]

# --- data ----------------------------------------------------------------------------------

N = 48
CHUNKS = 4  # the frame is a union of 4 local relations: 4+ partitions, rows in order
COLUMNS = ["i", "n", "d", "s x", "c.d", "b", "day", "at"]
DDL = "i long, n int, d double, `s x` string, `c.d` string, b boolean, day date, at timestamp"
DTYPES = ["bigint", "int", "double", "string", "string", "boolean", "date", "timestamp"]
NAN = float("nan")
_RNG = random.Random(7)


def _rows() -> list[tuple[Any, ...]]:
    out = []
    start = datetime.datetime(2024, 3, 1, 8, 15)
    for r in range(N):
        n = None if r % 11 == 0 else _RNG.randint(-20, 20)
        d = None if r % 13 == 0 else (NAN if r % 7 == 3 else _RNG.choice([-2.5, 0.0, 1.25, 3.5, 10.0]))
        s = None if r % 9 == 0 else _RNG.choice(["alpha", "Beta", "gamma", "", "r1", "r2", "R3", "del ta"])
        q = _RNG.choice(["x.y", "z", "Q q"])
        b = None if r % 10 == 0 else _RNG.random() < 0.5
        day = None if r % 12 == 5 else datetime.date(2024, 1, 1) + datetime.timedelta(days=_RNG.randint(0, 40))
        at = None if r % 15 == 2 else start + datetime.timedelta(hours=_RNG.randint(0, 100), minutes=_RNG.choice([0, 30]))
        out.append((r, n, d, s, q, b, day, at))
    return out


ROWS = _rows()
DICTS = [dict(zip(COLUMNS, r, strict=True)) for r in ROWS]


def _frame(spark: Any) -> Any:
    size = N // CHUNKS
    parts = [spark.createDataFrame(ROWS[k:k + size], DDL) for k in range(0, N, size)]
    return functools.reduce(lambda a, b: a.union(b), parts)


# --- one classic session, one Connect server ------------------------------------------------


class Classic:
    """The module's classic local[2] session, made again if a test stopped it."""

    def __init__(self) -> None:
        self.session: Any = None
        self.startup_s = 0.0

    def get(self) -> Any:
        if self.session is None or self.session.sparkContext._jsc is None:
            started = time.monotonic()
            self.session = spark_cluster.local_session()
            self.startup_s = time.monotonic() - started
            print(f"classic local[2] session started in {self.startup_s:.1f} s")
        return self.session

    def stop(self) -> None:
        if self.session is not None:
            self.session.stop()


@pytest.fixture(scope="module")
def classic_holder() -> Iterator[Classic]:
    holder = Classic()
    yield holder
    holder.stop()


@pytest.fixture(scope="module")
def connect_server() -> Iterator[spark_cluster.ConnectServer]:
    """A Connect server whose jobs run on a standalone master and worker (2 cores): the
    deployment a Connect client usually meets, its tasks in an executor JVM."""
    cluster = spark_cluster.StandaloneCluster(cores=2, memory="2g")
    server = spark_cluster.ConnectServer()
    try:
        cluster.start(timeout_s=180)
        server.master = cluster.url
        server.start(timeout_s=180)
    except spark_cluster.SparkStartError as exc:
        cluster.stop()
        pytest.skip(f"Spark Connect on a standalone cluster did not start in time: {exc}")
    print(f"standalone cluster started in {cluster.startup_s:.1f} s, "
          f"Spark Connect server on it in {server.startup_s:.1f} s")
    yield server
    server.stop()
    cluster.stop()


@pytest.fixture(scope="module")
def connect_session(connect_server: spark_cluster.ConnectServer) -> Iterator[Any]:
    session = connect_server.session()
    yield session
    session.stop()  # before the server goes: a stop releases the session on it


KINDS = ["classic", pytest.param("connect", marks=pytest.mark.slow)]


@pytest.fixture(params=KINDS)
def spark(request: pytest.FixtureRequest) -> Any:
    if request.param == "classic":
        return request.getfixturevalue("classic_holder").get()
    return request.getfixturevalue("connect_session")


@pytest.fixture
def df(spark: Any) -> Any:
    return _frame(spark)


def _functions(value: Any) -> Any:
    """``F`` for the value's kind (this process holds both: see ConnectServer.session)."""
    if type(value).__module__.startswith("pyspark.sql.connect"):
        from pyspark.sql.connect import functions as connect_functions

        return connect_functions
    from pyspark.sql import functions as classic_functions

    return classic_functions


BILLION = 1_000_000_000

#: Time guards given to each op: Spark's first jobs in a cold JVM take seconds here.
GUARDS = {"rows": ("sort_ms", "count_ms"), "count": ("count_ms",), "profile": ("column_ms",)}


def call(value: Any, **request: Any) -> dict[str, Any]:
    request.setdefault("budget_ms", 60_000)
    request.setdefault("time_guard_ms", 5_000)  # a detail's plan: a round trip to Spark
    for guard in GUARDS.get(request["op"], ()):
        request.setdefault(guard, 30_000)
    reply = entry.dispatch({"name": "t", **request}, {"t": value})
    json.dumps(reply, allow_nan=False)
    return reply


def _text(x: Any) -> str | None:
    """A cell as the rows op writes it."""
    return str(x) if _present(x) else None


# --- the list and the detail: the plan only -------------------------------------------------


def test_the_list_entry_and_the_detail_read_the_schema_and_the_plan(df: Any) -> None:
    s = summarize("t", df, time_guard_ms=5_000)  # a Connect schema: an AnalyzePlan RPC
    title = "Spark Connect" if "connect" in type(df).__module__ else "Spark"
    assert s["kind"] == "dataframe" and s["type"] == "DataFrame" and s["error"] is None, s
    assert s["preview"].startswith(f"lazy · {title} · not counted · 8 columns — i:bigint, n:int, d:double, s x:string")
    assert s["shape"] is None
    started = time.perf_counter()
    again = summarize("t", df)  # pyspark keeps the schema: no round trip, the default guard
    assert again["preview"] == s["preview"] and again["error"] is None, again
    assert time.perf_counter() - started < 5.0  # a hang guard (a round trip would also pass)
    d = call(df.filter(_functions(df).col("n") > 0), op="detail")["variable"]
    assert [(c["name"], c["dtype"]) for c in d["columns"]] == list(zip(COLUMNS, DTYPES, strict=True))
    engine = d["engine"]
    assert engine["name"] == "spark" and engine["title"] == title and engine["rows"] is None
    assert engine["plan"].startswith("== Physical Plan ==") and "Union" in engine["plan"], engine["plan"]
    if title == "Spark":
        assert engine["location"] == "Spark master local[2]"
    else:
        assert re.fullmatch(r"Spark Connect sc://localhost:\d+", engine["location"]), engine["location"]


def test_the_scanned_files_are_where_the_data_lives(spark: Any, tmp_path: Any) -> None:
    path = str(tmp_path / "it's here")
    spark.range(10, numPartitions=2).write.parquet(path)
    got = call(spark.read.parquet(path), op="rows", limit=2, columns=[0])["rows"]
    place = got["engine"]["location"]  # cut at 300 characters
    assert re.match(r"Spark (master local\[2\]|Connect sc://localhost:\d+) · files: "
                    r"file:\S+/it's%20here/part-\S+\.parquet, file:", place), place


def test_the_view_is_in_partition_order_over_several_partitions(df: Any) -> None:
    F = _functions(df)
    parts = df.groupBy(F.spark_partition_id().alias("p")).count().collect()
    assert len(parts) >= CHUNKS, parts  # the deep pages below cross partitions
    got = call(df, op="rows", limit=N, columns=[0])["rows"]
    assert [r[0] for r in got["rows"]] == [str(i) for i in range(N)]
    assert got["total_rows"] == N and got["shape"] == [N, len(COLUMNS)]


# --- windows: Spark's own offset near the top, partition pages deeper -----------------------


@pytest.mark.parametrize(
    ("offset", "limit"),
    [(0, 5), (3, 4), (10, 6), (23, 3), (45, 10), (60, 5)],
    ids=["first", "near-the-top", "across-partitions", "a-middle-partition", "the-end", "past-the-end"],
)
@pytest.mark.parametrize("direct_rows", [10_000, 4], ids=["direct", "partition-pages"])
def test_windows(df: Any, monkeypatch: pytest.MonkeyPatch, offset: int, limit: int, direct_rows: int) -> None:
    monkeypatch.setattr(spark_backend, "DIRECT_ROWS", direct_rows)
    got = call(df, op="rows", offset=offset, limit=limit)["rows"]
    want = [[_text(x) for x in r] for r in ROWS[offset:offset + limit]]
    assert got["rows"] == want
    assert got["index"] == [str(offset + k) for k in range(len(want))]
    assert got["total_rows"] == N and got["engine"]["name"] == "spark"


def test_a_filtered_view_is_paged_by_partition_too(df: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spark_backend, "DIRECT_ROWS", 3)
    flt = {"column": "d", "op": "notnull"}
    kept = [r["i"] for r in DICTS if _present(r["d"])]
    got = call(df, op="rows", offset=5, limit=9, columns=[0], view={"filter": flt})["rows"]
    assert [int(r[0]) for r in got["rows"]] == kept[5:14]
    assert got["filtered_rows"] == len(kept)


def test_cells_nan_null_dates_and_odd_names(df: Any) -> None:
    got = call(df, op="rows", offset=0, limit=N, columns=[2, 3, 4, 6, 7])["rows"]
    assert [c["name"] for c in got["columns"]] == ["d", "s x", "c.d", "day", "at"]
    for r, row in zip(ROWS, got["rows"], strict=True):
        assert row == [_text(r[2]), _text(r[3]), r[4], _text(r[6]), _text(r[7])]
    assert any(isinstance(r[2], float) and math.isnan(r[2]) for r in ROWS)  # NaN read as missing


def test_the_sorted_deep_page_is_refused(df: Any) -> None:
    view = {"sort": [{"column": "d", "desc": True}]}
    got = call(df, op="rows", offset=20_000, limit=5, view=view)
    assert got.get("bad_request") is True, got
    assert "Spark would collect every earlier row in its driver" in got["error"]
    assert "filter first" in got["error"]


@pytest.mark.parametrize(
    ("view", "words"),
    [
        ({"filter": {"column": "nope", "op": "isnull"}}, "No column named 'nope'"),
        ({"sort": [{"column": "nope"}]}, "No column named 'nope'"),
        ({"filter": {"column": "n", "op": "gt", "value": "abc"}}, "does not fit column n (int)"),
        ({"filter": {"column": "day", "op": "eq", "value": "May 3"}}, "does not fit column day (date)"),
        ({"filter": {"column": "n", "op": "empty"}}, "applies to text columns"),
        ({"filter": {"column": "s x", "op": "is_true"}}, "applies to boolean columns"),
        ({"filter": {"column": "s x", "op": "regex", "value": "(a+)+$"}}, "repeats a repetition"),
    ],
    ids=["filter-column", "sort-column", "misfit", "misfit-date", "empty-on-number", "true-on-text", "nested-regex"],
)
def test_bad_views_are_400s_naming_the_problem(df: Any, view: dict[str, Any], words: str) -> None:
    for op in ("rows", "count", "code", "profile"):
        if op in ("count", "profile") and view.get("sort"):
            continue
        got = call(df, op=op, view=view, **({} if op == "count" else {"columns": [0]}))
        assert got.get("bad_request") is True and words in got["error"], (op, got)


def test_engine_errors_are_422s_with_sparks_own_line(df: Any) -> None:
    F = _functions(df)
    got = call(df.select(F.col("s x").cast("int").alias("x")), op="rows")  # 'alpha' as an int
    assert got.get("unprocessable") is True, got
    assert got["error"].startswith("t (DataFrame): [CAST_INVALID_INPUT] The value "), got
    assert "\n" not in got["error"]
    got = call(df, op="rows", view={"filter": {"column": "s x", "op": "regex", "value": "([a-"}})
    assert got.get("unprocessable") is True and "t (DataFrame): " in got["error"], got
    if "connect" in type(df).__module__:  # analysed by the server, when first asked
        got = call(df.select(F.col("nope")), op="rows")
        assert got.get("unprocessable") is True, got
        assert got["error"].startswith("t (DataFrame): [UNRESOLVED_COLUMN.WITH_SUGGESTION] "), got


# --- a seeded property test: filter trees and sorts -----------------------------------------

FAMILY = {"i": "integer", "n": "integer", "d": "float", "s x": "text", "c.d": "text", "b": "bool",
          "day": "date", "at": "datetime"}
ORDERED = ("eq", "ne", "lt", "le", "gt", "ge", "between", "not_between", "in", "not_in")
TEXT_OPS = ("contains", "not_contains", "starts_with", "ends_with", "regex")


def _value(column: str, rng: random.Random) -> Any:
    kind = FAMILY[column]
    if kind == "integer":
        return rng.choice([str(rng.randint(-20, 20)), rng.randint(0, 30)])
    if kind == "float":
        return rng.choice([str(rng.choice([-2.5, 0.0, 1.25, 3.5])), -1, 0.5, "10"])
    if kind == "text":
        return rng.choice(["alpha", "Beta", "r", "R3", "", "del ta", "x.y", "Q q"])
    if kind == "date":
        return (datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(0, 40))).isoformat()
    if kind == "datetime":
        moment = datetime.datetime(2024, 3, 1, 8, 15) + datetime.timedelta(hours=rng.randint(0, 100))
        return moment.isoformat()
    return rng.choice(["true", "false", True, False])


def _typed(column: str, value: Any) -> Any:
    kind = FAMILY[column]
    if kind in ("integer", "float"):
        return float(value)
    if kind == "date":
        return datetime.date.fromisoformat(value)
    if kind == "datetime":
        return datetime.datetime.fromisoformat(value)
    if kind == "bool":
        return value is True or value == "true"
    return value


def _condition(rng: random.Random) -> dict[str, Any]:
    column = rng.choice(list(FAMILY))
    kind = FAMILY[column]
    ops = ["isnull", "notnull", *ORDERED]
    if kind in ("text", "integer"):
        ops += TEXT_OPS
    if kind == "text":
        ops += ["empty", "not_empty"]
    if kind == "bool":
        ops = ["isnull", "notnull", "is_true", "is_false", "eq", "ne", "in", "not_in"]
    op = rng.choice(ops)
    c: dict[str, Any] = {"column": column, "op": op}
    if op in ("between", "not_between"):
        c["value"] = sorted([_value(column, rng), _value(column, rng)], key=lambda v: _typed(column, v))
    elif op in ("in", "not_in"):
        c["value"] = [_value(column, rng) for _ in range(rng.randint(1, 3))]
    elif op == "regex":
        c["value"] = rng.choice(["^r", "a$", "l.h", "^$", "[0-9]$", "^-", "\\."])
        c["case"] = rng.random() < 0.5
    elif op in TEXT_OPS:
        c["value"] = rng.choice(["a", "A", "r", "ta", "Del", "1", "-", " ", "."])
        c["case"] = rng.random() < 0.5
    elif op in ORDERED:
        c["value"] = _value(column, rng)
    return c


def _tree(rng: random.Random, depth: int) -> dict[str, Any]:
    if depth == 0 or rng.random() < 0.35:
        return _condition(rng)
    return {rng.choice(["and", "or"]): [_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))]}


SEEDS = 20


def _keeps(node: dict[str, Any], row: dict[str, Any]) -> bool:
    return keeps(node, row, _typed)


def _expected(tree: dict[str, Any] | None, sort: list[dict[str, Any]]) -> list[int]:
    """The ids the view keeps, in its order (``independent.ordered``)."""
    return [r["i"] for r in ordered(DICTS, tree, sort, _typed)]


@pytest.mark.parametrize("seed", range(SEEDS))
def test_rows_and_code_agree_with_an_independent_evaluation(
        df: Any, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = random.Random(seed)
    tree = _tree(rng, 3) if seed % 10 else None
    sortable = [c for c in FAMILY if c != "i"]
    sort = [{"column": c, "desc": rng.random() < 0.5} for c in rng.sample(sortable, rng.randint(0, 2))]
    if sort or seed % 2:
        sort.append({"column": "i", "desc": rng.random() < 0.5})
    view = {"sort": sort, "filter": tree}
    want = _expected(tree, sort)
    got = call(df, op="rows", limit=N, columns=[0], view=view, **ROOMY)
    assert "rows" in got, (view, got)
    assert [int(r[0]) for r in got["rows"]["rows"]] == want, view
    if tree is not None:
        assert got["rows"]["filtered_rows"] == len(want)
    code = call(df, op="code", view=view)["code"]["code"]
    assert code.startswith("from pyspark.sql import functions as F\n"), code
    if "connect" in type(df).__module__:  # what a Connect kernel's import of F dispatches to
        monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
    scope: dict[str, Any] = {"t": df}
    exec(code, scope)
    assert [row["i"] for row in scope["t_view"].collect()] == want, code


def test_code_for_selected_columns_odd_names_and_refused_syntaxes(df: Any) -> None:
    view = {"sort": [{"column": "d", "desc": True}, {"column": "i"}],
            "filter": {"and": [{"column": "c.d", "op": "starts_with", "value": "q"},
                               {"column": "at", "op": "lt", "value": "2024-03-03T09:30"}]}}
    code = call(df, op="code", columns=[4, 3, 0], view=view)["code"]["code"]
    assert code == (
        "from pyspark.sql import functions as F\n"
        "import datetime\n"
        "\n"
        "t_view = (\n"
        "    t\n"
        '    .filter((F.col("`c.d`").isNotNull() & F.lower(F.col("`c.d`")).startswith("q"))'
        ' & (F.col("at").isNotNull() & (F.col("at") < datetime.datetime(2024, 3, 3, 9, 30))))\n'
        '    .orderBy(F.nanvl(F.col("d"), F.lit(None)).desc_nulls_last(), F.col("i").asc_nulls_last())\n'
        '    .select(["`c.d`", "s x", "i"])\n'
        ")\n"), code
    assert call(df, op="code")["code"]["code"] == "t_view = t\n"
    refused = call(df, op="code", syntax="pandas")
    assert refused.get("bad_request") is True and "ask for pyspark" in refused["error"]


# --- counts and profiles --------------------------------------------------------------------


def test_count_with_and_without_a_filter(df: Any) -> None:
    got = call(df, op="count")["count"]
    assert got["rows"] == N and got["filtered"] is False and got["engine"]["name"] == "spark"
    flt = {"or": [{"column": "b", "op": "is_true"}, {"column": "d", "op": "isnull"}]}
    got = call(df, op="count", view={"filter": flt})["count"]
    assert got["rows"] == sum(1 for r in DICTS if _keeps(flt, r)) and got["filtered"] is True


def _quantile(ordered: list[float], q: float) -> float:
    virtual = (len(ordered) - 1) * q
    lo = math.floor(virtual)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (virtual - lo)


@pytest.mark.parametrize("column", ["n", "d"])
def test_number_profiles_from_one_aggregate(df: Any, column: str) -> None:
    position = COLUMNS.index(column)
    got = call(df, op="profile", columns=[position])["profile"]["columns"][0]
    values = sorted(float(r[column]) for r in DICTS if _present(r[column]))
    assert got["family"] == "number" and got["approximate"] is True and got["error"] is None, got
    assert got["count"] == len(values) and got["null_count"] == N - len(values)
    assert got["min"] == values[0] and got["max"] == values[-1]
    assert got["mean"] == pytest.approx(statistics.fmean(values))
    assert got["std"] == pytest.approx(statistics.stdev(values))
    # percentile_approx returns a value of the column (no interpolation) of about that rank
    half = len(values) / 2
    assert got["median"] in values
    assert sum(v < got["median"] for v in values) <= half <= sum(v <= got["median"] for v in values)
    edges, counts = got["histogram"]["edges"], got["histogram"]["counts"]
    assert 1 <= len(counts) <= 50 and len(edges) == len(counts) + 1 and sum(counts) == len(values)
    for k, (lo, hi) in enumerate(itertools.pairwise(edges)):
        last = k == len(counts) - 1
        assert counts[k] == sum(1 for v in values if lo <= v < hi or (last and v == hi)), k


def test_text_boolean_and_date_profiles(df: Any) -> None:
    got = call(df, op="profile", columns=[3, 5, 6, 7], top=3)["profile"]
    assert got["engine"]["name"] == "spark" and got["sampled"] is False
    s, b, day, at = got["columns"]
    counts: dict[str, int] = {}
    for r in DICTS:
        if r["s x"] is not None:
            counts[r["s x"]] = counts.get(r["s x"], 0) + 1
    best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert s["family"] == "string" and s["approximate"] is True and s["error"] is None, s
    assert s["distinct"] == len(counts) and s["empty"] == counts.get("", 0)
    assert [(x["value"], x["count"]) for x in s["top"]] == best
    assert s["other"] == sum(counts.values()) - sum(c for _, c in best)
    assert b["true"] == sum(1 for r in DICTS if r["b"] is True)
    assert b["false"] == sum(1 for r in DICTS if r["b"] is False)
    assert b["null_count"] == sum(1 for r in DICTS if r["b"] is None)
    dates = sorted(r["day"] for r in DICTS if r["day"] is not None)
    assert day["family"] == "datetime" and day["min"] == dates[0].isoformat() and day["max"] == dates[-1].isoformat()
    assert day["median"] in {x.isoformat() for x in dates}
    times = sorted(r["at"] for r in DICTS if r["at"] is not None)
    assert at["min"] == times[0].isoformat() and at["max"] == times[-1].isoformat()


def test_a_profile_of_the_filtered_view_and_of_its_first_rows(df: Any) -> None:
    flt = {"or": [{"column": "s x", "op": "starts_with", "value": "r", "case": False}, {"column": "d", "op": "isnull"}]}
    got = call(df, op="profile", columns=[2], view={"filter": flt})["profile"]
    kept = [r for r in DICTS if _keeps(flt, r)]
    present = [r["d"] for r in kept if _present(r["d"])]
    column = got["columns"][0]
    assert column["count"] == len(present) and column["null_count"] == len(kept) - len(present)


# --- cancelled in Spark ---------------------------------------------------------------------


def _slow_sort(spark: Any) -> Any:
    """A sort of 300 M rows: many seconds of work in 60 partitions, each ended within a
    second or so of its job's cancel (a range task checks for it only at its end)."""
    F = _functions(spark.range(1))
    return spark.range(0, 300_000_000, numPartitions=60).select(
        "id", ((F.col("id") * 7919) % 1_000_003).alias("x"))


def test_a_sort_past_its_guard_is_cancelled_in_spark(spark: Any) -> None:
    slow = _slow_sort(spark)
    started = time.perf_counter()
    got = call(slow, op="rows", sort_ms=400, view={"sort": [{"column": "x", "desc": True}]})
    answered = time.perf_counter() - started
    assert got.get("unprocessable") is True, got
    # 400 ms asked, Spark's least guard given: a job's fixed cost
    floor = f"its time guard is {spark_backend.MIN_QUERY_MS:,} ms"
    assert "cancelled in Spark" in got["error"] and floor in got["error"], got
    print(f"sort of 300 M rows cancelled: answered in {answered:.2f} s: {got['error']}")
    assert answered < 20, answered
    if "connect" not in type(slow).__module__:
        tracker = spark.sparkContext.statusTracker()
        assert tracker.getActiveJobsIds() == [] and tracker.getActiveStageIds() == []
    again = call(slow, op="rows", limit=2, columns=[0])["rows"]
    assert again["rows"] == [["0"], ["1"]]


@pytest.mark.slow
def test_tasks_that_run_on_after_the_cancel_are_said(classic_holder: Classic) -> None:
    """A range's task checks for its cancel once per batch (up to 2^31 rows): two tasks of
    100 M rows each run on for seconds after their job was cancelled, and the refusal says
    so."""
    spark = classic_holder.get()
    F = _functions(spark.range(1))
    slow = spark.range(0, 200_000_000, numPartitions=2).select(
        "id", ((F.col("id") * 7919) % 1_000_003).alias("x"))
    assert call(slow, op="rows", limit=1, columns=[0])["rows"]["rows"] == [["0"]]  # warm
    got = call(slow, op="rows", sort_ms=1_000, view={"sort": [{"column": "x"}]})
    assert got.get("unprocessable") is True, got
    assert "cancelled in Spark" in got["error"], got
    assert re.search(r"\(\d of its tasks still finishing: Spark stops a task at its next "
                     r"interruption check\)$", got["error"]), got
    assert spark.sparkContext.statusTracker().getActiveJobsIds() == []
    started = time.monotonic()
    while _running_tasks(spark) and time.monotonic() - started < 120:
        time.sleep(0.2)  # the next tests get both cores back
    print(f"tasks of a cancelled range sort ran on {time.monotonic() - started:.1f} s")
    assert _running_tasks(spark) == 0


def _running_tasks(spark: Any) -> int:
    infos = spark.sparkContext._jsc.sc().statusTracker().getExecutorInfos()
    return sum(info.numRunningTasks() for info in infos)


def test_a_profile_past_its_guard_says_so_per_column(spark: Any) -> None:
    got = call(_slow_sort(spark), op="profile", columns=[1], column_ms=300, sample_rows=1_000)
    column = got["profile"]["columns"][0]
    if column["error"] is None:  # the first 1,000 rows, in time
        assert column["approximate"] is True and got["profile"]["sampled"] is True
    else:
        assert "cancelled in Spark" in column["error"]


def test_every_spark_query_gets_at_least_a_jobs_fixed_cost(
        spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small table's profile answers however short the per-column guard: a Spark job
    costs a fraction of a second whatever its input, and each query is given at least
    the engine's ``min_query_ms`` (within the call's budget).  The floor is raised here
    so that a loaded machine cannot make the test flaky; without one the same profile is
    cancelled."""
    df = _frame(spark)
    call(df, op="count")  # a warm session: the first jobs of a JVM take seconds
    assert spark_backend.SparkTable.min_query_ms == spark_backend.MIN_QUERY_MS >= 1_000
    monkeypatch.setattr(spark_backend.SparkTable, "min_query_ms", 25_000)
    got = call(df, op="profile", columns=[1, 3, 5], column_ms=10, budget_ms=30_000)["profile"]
    assert [c["error"] for c in got["columns"]] == [None, None, None], got
    assert got["sampled"] is False and got["columns"][0]["count"] == sum(
        1 for r in DICTS if r["n"] is not None)
    monkeypatch.setattr(spark_backend.SparkTable, "min_query_ms", 0)
    got = call(df, op="profile", columns=[1], column_ms=10, budget_ms=30_000)["profile"]
    assert "its time guard is 10 ms" in got["columns"][0]["error"], got


def test_a_billion_row_profile_at_the_default_guards_stops_and_is_cancelled(spark: Any) -> None:
    """At the server's defaults (1 s a column, 4 s in all) a billion-row column stops at
    its guard — the engine's floor, within the budget — is cancelled in Spark, and is
    computed again on its first rows in what is left, or says it was cancelled."""
    F = _functions(spark.range(1))
    big = spark.range(0, BILLION, numPartitions=200).select(
        "id", (F.col("id") % 1000 / 10).alias("price"))
    started = time.perf_counter()
    got = entry.dispatch({"name": "t", "op": "profile", "columns": [1], "column_ms": 1_000,
                          "budget_ms": 4_000}, {"t": big})["profile"]
    answered = time.perf_counter() - started
    column = got["columns"] and got["columns"][0]
    if column and column["error"] is None:
        assert got["sampled"] is True and column["count"] <= 1_000_000, got
    elif column:
        assert "cancelled in Spark" in column["error"], column
        guard_ms = int(re.search(r"its time guard is ([\d,]+) ms", column["error"])[1]
                       .replace(",", ""))
        assert guard_ms <= spark_backend.MIN_QUERY_MS, column
    print(f"a billion-row profile at the defaults answered in {answered:.2f} s: {got['columns']}")
    assert answered < 4 + spark_backend.JOIN_S, answered
    if "connect" not in type(big).__module__:
        assert spark.sparkContext.statusTracker().getActiveJobsIds() == []


# --- a billion rows (slow) ------------------------------------------------------------------



@pytest.mark.slow
def test_a_billion_rows_are_windowed_paged_and_filtered_without_collecting(spark: Any) -> None:
    F = _functions(spark.range(1))
    big = spark.range(BILLION).select(
        "id", (F.col("id") % 1000).alias("k"), (F.col("id") * 0.5).alias("x"),
        F.concat(F.lit("r"), (F.col("id") % 97).cast("string")).alias("s"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    timings = {}
    started = time.perf_counter()
    first = call(big, op="rows", limit=100, count_ms=300)["rows"]
    timings["first window"] = time.perf_counter() - started
    assert [r[0] for r in first["rows"][:3]] == ["0", "1", "2"]
    started = time.perf_counter()
    middle = call(big, op="rows", offset=BILLION // 2, limit=100, sort_ms=60_000, count_ms=300,
                  budget_ms=240_000)["rows"]
    timings["middle page"] = time.perf_counter() - started
    assert [r[0] for r in middle["rows"]] == [str(BILLION // 2 + k) for k in range(100)]
    assert middle["rows"][0][3] == f"r{(BILLION // 2) % 97}"
    started = time.perf_counter()
    view = {"filter": {"and": [{"column": "k", "op": "eq", "value": "7"}, {"column": "s", "op": "eq", "value": "r3"}]}}
    kept = call(big, op="rows", limit=3, columns=[0], view=view, count_ms=300, sort_ms=60_000)["rows"]
    timings["filter"] = time.perf_counter() - started
    want = [k for k in range(0, 400_000) if k % 1000 == 7 and k % 97 == 3][:3]
    assert [int(r[0]) for r in kept["rows"]] == want
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(f"{type(big).__module__}: a billion rows: " + ", ".join(
        f"{k} {v:.1f} s" for k, v in timings.items()) + f"; max RSS grew {grown_kb / 1024:.1f} MB")
    assert grown_kb < 100 * 1024, grown_kb  # a billion rows are 8 GB of ids alone


# --- a session that is gone ------------------------------------------------------------------


@pytest.mark.slow
def test_a_stopped_connect_session_and_a_server_gone_are_422s_at_once(
        connect_server: spark_cluster.ConnectServer, connect_session: Any) -> None:
    other = connect_server.session()
    gone = other.range(5)
    other.stop()
    relay = spark_cluster.Relay(connect_server.port)
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    behind = RemoteSparkSession.builder.remote(f"sc://localhost:{relay.port}/;token={connect_server.token}").create()
    try:
        away = behind.range(5)
        assert call(away, op="rows", limit=2, columns=[0])["rows"]["rows"] == [["0"], ["1"]]
        relay.close()
        for value, words in ((gone, "its Spark Connect session was stopped"),
                             (away, "does not answer")):
            started = time.perf_counter()
            got = call(value, op="rows", limit=2)
            spent = time.perf_counter() - started
            assert got.get("unprocessable") is True and words in got["error"], got
            assert connect_server.token not in got["error"]
            assert spent < 5, spent
    finally:
        relay.close()
        time.sleep(0.5)  # grpc's connectivity poller (our check subscribed) ends in 0.2 s
        behind.client.close()  # no release: the server is gone for this client
    assert call(connect_session.range(3), op="count")["count"]["rows"] == 3


def test_a_stopped_classic_session_is_a_422_at_once(classic_holder: Classic) -> None:
    """Last in the module: it stops the module's classic session (made again on demand)."""
    spark = classic_holder.get()
    df = _frame(spark)  # nothing counted nor read yet: nothing kept to answer from
    spark.stop()
    started = time.perf_counter()
    for op in ("rows", "count", "profile"):
        got = call(df, op=op, **({} if op == "count" else {"columns": [0]}))
        assert got.get("unprocessable") is True and "its SparkSession was stopped" in got["error"], got
    assert time.perf_counter() - started < 20  # a hang guard: never the client's retries
