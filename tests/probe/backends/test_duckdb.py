"""DuckDB relations explored in DuckDB: case tables, a seeded property test of filter trees
and sorts against an independent evaluation (and against the generated code, run), the
guard that interrupts DuckDB, and tables that cannot be collected."""

from __future__ import annotations

import datetime
import itertools
import json
import random
import resource
from typing import Any

import duckdb
import pytest

from jupyter_kernel_state.probe import entry, summarize

from .independent import ROOMY, keeps, ordered
from .independent import present as _present

# --- data ----------------------------------------------------------------------------------

N = 240
_RNG = random.Random(7)
COLUMNS = ["id", "n", "f", "s", "b", "d", 'odd "name"', "with space"]


def _rows() -> list[tuple[Any, ...]]:
    out = []
    for i in range(N):
        n = None if i % 17 == 0 else _RNG.randint(-50, 50)
        f = None if i % 13 == 0 else (float("nan") if i % 11 == 0 else round(_RNG.uniform(-5, 5), 3))
        s = None if i % 19 == 0 else _RNG.choice(["alpha", "Beta", "gamma", "", "r1", "r2", "R3", "delta x"])
        b = None if i % 23 == 0 else _RNG.random() < 0.5
        d = None if i % 29 == 0 else datetime.date(2024, 1, 1) + datetime.timedelta(days=_RNG.randint(0, 60))
        out.append((i, n, f, s, b, d, _RNG.randint(0, 3), _RNG.choice(["x", "y"])))
    return out


ROWS = _rows()


@pytest.fixture(scope="module")
def con() -> Any:
    c = duckdb.connect()
    c.execute('CREATE TABLE t (id BIGINT, n INTEGER, f DOUBLE, s VARCHAR, b BOOLEAN, d DATE, '
              '"odd ""name""" INTEGER, "with space" VARCHAR)')
    c.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
    yield c
    c.close()


@pytest.fixture
def rel(con: Any) -> Any:
    return con.table("t")


def call(value: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"name": "t", **request}, {"t": value})
    json.dumps(reply, allow_nan=False)
    return reply


# --- the list and the detail: nothing computed ---------------------------------------------


def test_the_list_entry_reads_the_schema_from_the_plan(rel: Any) -> None:
    s = summarize("t", rel)
    assert s["kind"] == "dataframe"
    assert s["type"] == "DuckDBPyRelation"
    assert s["preview"].startswith("lazy · DuckDB · not counted · 8 columns — id:BIGINT, n:INTEGER")
    assert s["shape"] is None and s["error"] is None


def test_the_detail_has_the_schema_the_plan_and_no_head(rel: Any) -> None:
    d = call(rel, op="detail")["variable"]
    assert [c["name"] for c in d["columns"]] == COLUMNS
    assert d["head"] is None
    engine = d["engine"]
    assert engine["name"] == "duckdb" and engine["lazy"] is True and engine["rows"] is None
    assert "Seq Scan" in engine["plan"] and "Table: memory.main.t" in engine["plan"]


def test_the_scanned_files_are_where_the_data_lives(tmp_path: Any, con: Any) -> None:
    path = tmp_path / "it's.parquet"
    con.execute("COPY (SELECT 1 AS a) TO '{}' (FORMAT parquet)".format(str(path).replace("'", "''")))
    r = duckdb.connect().sql("SELECT * FROM read_parquet('{}')".format(str(path).replace("'", "''")))
    d = call(r, op="detail")["variable"]
    assert d["engine"]["location"] == "files: " + str(path)


# --- windows ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        ({"offset": 0, "limit": 3, "columns": [0, 3]}, [["0", ROWS[0][3]], ["1", ROWS[1][3]], ["2", ROWS[2][3]]]),
        ({"offset": N - 2, "limit": 5, "columns": [0]}, [[str(N - 2)], [str(N - 1)]]),
        ({"offset": N + 10, "limit": 5, "columns": [0]}, []),
        ({"offset": 0, "limit": 2, "column_start": 50}, [[], []]),
    ],
    ids=["first", "end", "past-the-end", "no-columns"],
)
def test_windows(rel: Any, request_: dict[str, Any], expected: list[list[Any]]) -> None:
    got = call(rel, op="rows", **request_)["rows"]
    assert got["rows"] == expected
    assert got["total_rows"] == N and got["engine"]["name"] == "duckdb"
    assert got["index"] == [str(request_["offset"] + i) for i in range(len(expected))]


def test_cells_are_text_dates_compact_and_missing_is_none(rel: Any) -> None:
    got = call(rel, op="rows", offset=0, limit=30, columns=[2, 5])["rows"]["rows"]
    assert got[0][1] == ROWS[0][5] and got[0][1] is None  # row 0: date missing (0 % 29)
    assert got[1][1] == ROWS[1][5].isoformat()
    assert got[11][0] is None  # NaN: missing


@pytest.mark.parametrize(
    ("view", "words"),
    [
        ({"filter": {"column": "nope", "op": "isnull"}}, "No column named 'nope'"),
        ({"sort": [{"column": "nope"}]}, "No column named 'nope'"),
        ({"filter": {"column": "n", "op": "gt", "value": "abc"}}, "does not fit column n (INTEGER)"),
        ({"filter": {"column": "n", "op": "empty"}}, "applies to text columns"),
        ({"filter": {"column": "s", "op": "is_true"}}, "applies to boolean columns"),
    ],
    ids=["filter-column", "sort-column", "misfit", "empty-on-number", "true-on-text"],
)
def test_bad_views_are_400s_naming_the_problem(rel: Any, view: dict[str, Any], words: str) -> None:
    got = call(rel, op="rows", view=view)
    assert got.get("bad_request") is True and words in got["error"], got


def test_an_engine_error_is_a_422_with_duckdbs_own_line(rel: Any) -> None:
    got = call(rel, op="rows", view={"filter": {"column": "s", "op": "regex", "value": "(["}})
    assert got.get("unprocessable") is True
    assert got["error"].startswith("t (DuckDBPyRelation): Invalid Input Error: missing ]"), got


def test_a_closed_connection_is_a_clear_422() -> None:
    c = duckdb.connect()
    r = c.sql("SELECT 1 AS a")
    c.close()
    got = call(r, op="rows")
    assert got.get("unprocessable") is True and "closed" in got["error"].lower(), got


# --- a seeded property test: filter trees and sorts ---------------------------------------

FAMILY = {"n": "number", "f": "number", "s": "text", "b": "bool", "d": "date", "id": "number"}


def _value(column: str, rng: random.Random) -> Any:
    kind = FAMILY[column]
    if kind == "number":
        return str(rng.randint(-50, 50)) if column != "f" else str(round(rng.uniform(-5, 5), 2))
    if kind == "text":
        return rng.choice(["alpha", "beta", "r", "R3", "", "delta", "a"])
    if kind == "date":
        return (datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(0, 60))).isoformat()
    return "true"


def _condition(rng: random.Random) -> dict[str, Any]:
    column = rng.choice(["n", "f", "s", "b", "d"])
    kind = FAMILY[column]
    ops = ["isnull", "notnull", "eq", "ne", "lt", "le", "gt", "ge", "between", "not_between", "in", "not_in"]
    if kind == "text":
        ops += ["contains", "not_contains", "starts_with", "ends_with", "regex", "empty", "not_empty"]
    if kind == "bool":
        ops = ["isnull", "notnull", "is_true", "is_false", "eq", "ne"]
    op = rng.choice(ops)
    c: dict[str, Any] = {"column": column, "op": op}
    if op in ("between", "not_between"):
        a, b = sorted([_value(column, rng), _value(column, rng)], key=lambda v: (float(v) if kind == "number" else v))
        c["value"] = [a, b]
    elif op in ("in", "not_in"):
        c["value"] = [_value(column, rng) for _ in range(rng.randint(1, 3))]
    elif op == "regex":
        c["value"] = rng.choice(["^r", "a$", "l.h", "^$"])
        c["case"] = rng.random() < 0.5
    elif op in ("contains", "not_contains", "starts_with", "ends_with"):
        c["value"] = rng.choice(["a", "A", "r", "ta", "Del"])
        c["case"] = rng.random() < 0.5
    elif op in ("eq", "ne", "lt", "le", "gt", "ge"):
        c["value"] = _value(column, rng) if kind != "bool" else rng.choice(["true", "false"])
    return c


def _tree(rng: random.Random, depth: int) -> dict[str, Any]:
    if depth == 0 or rng.random() < 0.4:
        return _condition(rng)
    return {rng.choice(["and", "or"]): [_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))]}


def _typed(column: str, text: Any) -> Any:
    kind = FAMILY[column]
    if kind == "number":
        return float(text)
    if kind == "date":
        return datetime.date.fromisoformat(text)
    if kind == "bool":
        return text == "true"
    return text


def _keeps(node: dict[str, Any], row: dict[str, Any]) -> bool:
    return keeps(node, row, _typed)


def _expected(tree: dict[str, Any] | None, sort: list[dict[str, Any]]) -> list[int]:
    """The ids the view keeps, in its order (``independent.ordered``)."""
    return [r["id"] for r in ordered([dict(zip(["id", "n", "f", "s", "b", "d"], r[:6], strict=True)) for r in ROWS], tree, sort, _typed)]


@pytest.mark.parametrize("seed", range(60))
def test_rows_and_code_agree_with_an_independent_evaluation(rel: Any, seed: int) -> None:
    rng = random.Random(seed)
    tree = _tree(rng, 3) if seed % 10 else None
    sort = [{"column": c, "desc": rng.random() < 0.5} for c in rng.sample(["n", "f", "s", "b", "d"], rng.randint(0, 2))]
    sort.append({"column": "id", "desc": False})  # ties broken: the order is exact
    view = {"sort": sort, "filter": tree}
    got = call(rel, op="rows", limit=N, columns=[0], view=view, **ROOMY)
    assert "rows" in got, (view, got)
    ids = [int(r[0]) for r in got["rows"]["rows"]]
    want = _expected(tree, sort)
    assert ids == want, view
    if tree is not None:
        assert got["rows"]["filtered_rows"] == len(want)
    for syntax in ("duckdb", "sql"):
        code = call(rel, op="code", syntax=syntax, view=view)["code"]["code"]
        scope: dict[str, Any] = {"t": rel}
        exec(code, scope)
        assert [r[0] for r in scope["t_view"].fetchall()] == want, code


def test_code_for_selected_columns_and_refused_syntaxes(rel: Any) -> None:
    got = call(rel, op="code", columns=[3, 6], view={"sort": [{"column": 'odd "name"', "desc": True}]})
    code = got["code"]["code"]
    assert got["code"]["syntax"] == "duckdb"
    assert '.project(\'"s", "odd ""name"""\')' in code
    scope: dict[str, Any] = {"t": rel}
    exec(code, scope)
    assert scope["t_view"].columns == ["s", 'odd "name"']
    refused = call(rel, op="code", syntax="pandas")
    assert refused.get("bad_request") is True and "ask for duckdb or sql" in refused["error"]


# --- counts and profiles ------------------------------------------------------------------


def test_count_with_and_without_a_filter(rel: Any) -> None:
    assert call(rel, op="count")["count"]["rows"] == N
    flt = {"column": "b", "op": "is_true"}
    want = sum(1 for r in ROWS if r[4] is True)
    got = call(rel, op="count", view={"filter": flt})["count"]
    assert got["rows"] == want and got["filtered"] is True and got["engine"]["name"] == "duckdb"


def test_profiles_are_the_engines_aggregates(rel: Any) -> None:
    got = call(rel, op="profile", columns=[1, 2, 3, 4, 5])["profile"]
    n, f, s, b, d = got["columns"]
    present_n = [r[1] for r in ROWS if r[1] is not None]
    assert n["count"] == len(present_n) and n["null_count"] == N - len(present_n)
    assert n["min"] == min(present_n) and n["max"] == max(present_n)
    assert n["mean"] == pytest.approx(sum(present_n) / len(present_n))
    assert sum(n["histogram"]["counts"]) == len(present_n)
    present_f = [r[2] for r in ROWS if _present(r[2])]
    assert f["null_count"] == N - len(present_f) and f["approximate"] is True
    assert s["family"] == "string" and s["empty"] == sum(1 for r in ROWS if r[3] == "")
    counts: dict[str, int] = {}
    for r in ROWS:
        if r[3] is not None:
            counts[r[3]] = counts.get(r[3], 0) + 1
    assert s["top"][0]["count"] == max(counts.values())
    assert b["true"] == sum(1 for r in ROWS if r[4] is True)
    assert d["min"] == min(r[5] for r in ROWS if r[5] is not None).isoformat()
    assert got["engine"]["name"] == "duckdb" and got["sampled"] is False


def _bin_counts(values: list[float], edges: list[float]) -> list[int]:
    """The in-memory rule: a bin holds [left, right), the last one [left, right]."""
    last = len(edges) - 2
    return [sum(1 for v in values if lo <= v < hi or (k == last and v == hi))
            for k, (lo, hi) in enumerate(itertools.pairwise(edges))]


@pytest.mark.parametrize("sql", [
    # integers on the edges (0, 2, 4 … of 50 bins over 0–100), with NULLs
    "SELECT CASE WHEN range % 17 = 0 THEN NULL ELSE range END AS x FROM range(101)",
    # doubles with NaN and ±inf (missing, out of the bins), a skewed spread
    "SELECT CASE WHEN range % 13 = 0 THEN 'NaN'::DOUBLE WHEN range = 5 THEN 'inf'::DOUBLE "
    "WHEN range = 6 THEN '-inf'::DOUBLE ELSE (range * range) / 7.0 END AS x FROM range(300)",
    # one value (one bin of ±0.5)
    "SELECT 3.25::DOUBLE AS x FROM range(9)",
])
def test_the_histogram_bins_are_closed_on_the_left(sql: str) -> None:
    rel = duckdb.connect().sql(sql)
    got = call(rel, op="profile", columns=[0])["profile"]["columns"][0]
    present = [v for (v,) in rel.fetchall() if v is not None and v == v]  # NaN is missing
    values = [v for v in present if abs(v) != float("inf")]  # the bins hold finite values
    edges, counts = got["histogram"]["edges"], got["histogram"]["counts"]
    assert got["error"] is None and got["count"] == len(present), got
    assert counts == _bin_counts(values, edges) and sum(counts) == len(values)


def test_a_text_profile_is_one_exact_statement(con: Any) -> None:
    rel = con.sql("SELECT * FROM (VALUES ('b'), ('a'), (''), (NULL), ('b'), ('a'), ('c'), "
                  "(NULL), ('')) v(s)")
    got = call(rel, op="profile", columns=[0], top=2)["profile"]["columns"][0]
    assert (got["count"], got["null_count"], got["distinct"], got["empty"]) == (7, 2, 4, 2)
    assert [(x["value"], x["count"]) for x in got["top"]] == [("", 2), ("a", 2)]  # ties by value
    assert got["other"] == 3 and got["approximate"] is False
    empty = call(con.sql("SELECT s FROM t WHERE false"), op="profile", columns=[0])
    assert empty["profile"]["columns"][0]["count"] == 0


# --- sizes that cannot be collected; the guard interrupts DuckDB --------------------------

BILLION = ("SELECT range AS i, range * 2.5 AS x, 'r' || (range % 7)::VARCHAR AS s "
           "FROM range(1000000000)")


def test_a_billion_rows_are_windowed_counted_filtered_and_profiled_in_duckdb() -> None:
    big = duckdb.connect().sql(BILLION)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    middle = call(big, op="rows", offset=500_000_000, limit=100, budget_ms=30_000, count_ms=20_000)["rows"]
    assert middle["rows"][0][0] == "500000000" and middle["total_rows"] == 1_000_000_000
    view = {"filter": {"and": [{"column": "s", "op": "eq", "value": "r3"}, {"column": "i", "op": "lt", "value": "100"}]}}
    got = call(big, op="rows", view=view, limit=5, budget_ms=30_000)["rows"]
    assert [r[0] for r in got["rows"]] == ["3", "10", "17", "24", "31"]
    # The column's aggregate over a billion rows is cancelled at its guard, then computed
    # over the first sample_rows rows (a guard a loaded machine meets for a million rows).
    profile = call(big, op="profile", columns=[1], column_ms=3_000, budget_ms=30_000)["profile"]
    column = profile["columns"][0]
    assert column["family"] == "number" and column["error"] is None, column
    assert profile["sampled"] is True and column["count"] == 1_000_000
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 64 * 1024, grown_kb


def test_a_sort_past_its_guard_is_interrupted_in_duckdb_and_duckdb_answers_next() -> None:
    con = duckdb.connect()
    big = con.sql(BILLION)
    got = call(big, op="rows", sort_ms=300, view={"sort": [{"column": "x", "desc": True}]})
    assert got.get("unprocessable") is True, got
    assert "interrupted in DuckDB after" in got["error"] and "its time guard is 300 ms" in got["error"]
    assert con.sql("SELECT 41 + 1").fetchall() == [(42,)]
    assert call(big, op="rows", limit=1)["rows"]["rows"] == [["0", "0.0", "r0"]]


def test_a_count_kept_is_never_read_for_another_value_of_the_same_id() -> None:
    """Counts are kept by the value's id; an id is reused once its value is gone (a
    240-row table's count was read for a billion-row relation): each count holds its value
    and answers only for it."""
    from jupyter_kernel_state.probe.backends import engine
    from jupyter_kernel_state.probe.protocol import EMPTY_VIEW

    first, second = object(), object()
    key = engine.count_key(first, EMPTY_VIEW, 7)
    engine.COUNTS.put(key, first, 240)
    assert engine.COUNTS.get(key, first) == 240
    assert engine.COUNTS.get(key, second) is None
