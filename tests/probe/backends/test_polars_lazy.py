"""polars LazyFrames explored in polars: case tables, a seeded property test of filter trees
and sorts against an independent evaluation in plain Python (and against the generated
code, run), a query past its guard stopped in polars (and polars returning from it), and
(slow) a 30 M-row Parquet scan windowed, sorted, counted and profiled without holding it,
and a sort of it stopped past its guard."""

from __future__ import annotations

import datetime
import itertools
import json
import math
import random
import resource
import statistics
import threading
import time
from typing import Any

import polars as pl
import pytest

from jupyter_kernel_state.probe import entry, summarize
from jupyter_kernel_state.probe.backends import polars_lazy
from jupyter_kernel_state.probe.backends.base import EngineInspector, engine_class
from jupyter_kernel_state.probe.inspect.base import inspector_for

from .independent import ROOMY, keeps, ordered
from .independent import present as _present

# --- data ----------------------------------------------------------------------------------

N = 240
_RNG = random.Random(11)
COLUMNS = ["id", "i", "f", "s", 'a "b"', "with space", "b", "d", "t"]
NAN = float("nan")


def _rows() -> list[tuple[Any, ...]]:
    out = []
    start = datetime.datetime(2024, 3, 1, 8, 0)
    for r in range(N):
        i = None if r % 17 == 0 else _RNG.randint(-30, 30)
        f = None if r % 13 == 0 else (NAN if r % 11 == 0 else _RNG.choice([-2.5, 0.0, 1.25, round(_RNG.uniform(-5, 5), 3)]))
        s = None if r % 19 == 0 else _RNG.choice(["alpha", "Beta", "gamma", "", "r1", "r2", "R3", "delta x", "lah"])
        q = None if r % 7 == 0 else _RNG.choice(["x", 'y "z"', "w w"])
        w = _RNG.randint(0, 3)
        b = None if r % 23 == 0 else _RNG.random() < 0.5
        d = None if r % 29 == 0 else datetime.date(2024, 1, 1) + datetime.timedelta(days=_RNG.randint(0, 40))
        t = None if r % 31 == 0 else start + datetime.timedelta(hours=_RNG.randint(0, 200), minutes=_RNG.choice([0, 30]))
        out.append((r, i, f, s, q, w, b, d, t))
    return out


ROWS = _rows()
DICTS = [dict(zip(COLUMNS, r, strict=True)) for r in ROWS]
SCHEMA = {"id": pl.Int64, "i": pl.Int64, "f": pl.Float64, "s": pl.String, 'a "b"': pl.String,
          "with space": pl.Int64, "b": pl.Boolean, "d": pl.Date, "t": pl.Datetime("us")}


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return pl.DataFrame([list(r) for r in ROWS], schema=SCHEMA, orient="row")


@pytest.fixture
def lf(frame: pl.DataFrame) -> pl.LazyFrame:
    return frame.lazy()


def call(value: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"name": "t", **request}, {"t": value})
    json.dumps(reply, allow_nan=False)
    return reply


# --- the list and the detail: nothing computed ---------------------------------------------


class _MyLazyFrame(pl.LazyFrame):
    """A user's subclass: still polars' LazyFrame, so still the engine's."""


@pytest.mark.parametrize("t", [pl.LazyFrame, _MyLazyFrame], ids=["LazyFrame", "subclass"])
def test_every_lazyframe_is_the_engines_in_the_list_and_the_ops(t: type) -> None:
    """The engine's inspector is resolved before any other (``backends.base`` puts its
    resolver first), and the ops' registry tries the engines first: nothing else needs to
    know a LazyFrame."""
    assert type(inspector_for(t)) is EngineInspector
    assert engine_class(t) is polars_lazy.PolarsLazyTable


def test_the_list_entry_reads_the_schema_from_the_plan(lf: pl.LazyFrame) -> None:
    s = summarize("t", lf)
    assert s["kind"] == "dataframe" and s["type"] == "LazyFrame"
    assert s["preview"].startswith("lazy · polars · not counted · 9 columns — id:Int64, i:Int64, f:Float64")
    assert s["shape"] is None and s["error"] is None


def test_the_detail_has_the_schema_and_the_plan(lf: pl.LazyFrame) -> None:
    d = call(lf.filter(pl.col("i") > 0), op="detail")["variable"]
    assert [c["name"] for c in d["columns"]] == COLUMNS
    assert d["head"] is None
    engine = d["engine"]
    assert engine["name"] == "polars" and engine["lazy"] is True and engine["rows"] is None
    assert engine["location"] is None  # in memory
    assert "DF [" in engine["plan"] and 'col("i")' in engine["plan"]


def test_the_scanned_files_are_where_the_data_lives(tmp_path: Any, frame: pl.DataFrame) -> None:
    parquet, csv = tmp_path / "it's here.parquet", tmp_path / "b.csv"
    frame.select("id", "s").write_parquet(parquet)
    frame.select("id", "s").write_csv(csv)
    d = call(pl.scan_parquet(parquet), op="detail")["variable"]
    assert d["engine"]["location"] == "files: " + str(parquet)
    both = pl.concat([pl.scan_parquet(parquet), pl.scan_csv(csv)])
    got = call(both, op="rows", limit=1)["rows"]
    assert got["engine"]["location"] == f"files: {parquet}, {csv}"
    assert got["total_rows"] == 2 * N


# --- windows ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        ({"offset": 0, "limit": 3, "columns": [0, 3]}, [["0", ROWS[0][3]], ["1", ROWS[1][3]], ["2", ROWS[2][3]]]),
        ({"offset": N - 2, "limit": 5, "columns": [0]}, [[str(N - 2)], [str(N - 1)]]),
        ({"offset": N + 10, "limit": 5, "columns": [0]}, []),
        ({"offset": 0, "limit": 2, "column_start": 50}, [[], []]),
        ({"offset": 5, "limit": 1, "columns": [4, 5]}, [[ROWS[5][4], str(ROWS[5][5])]]),
    ],
    ids=["first", "end", "past-the-end", "no-columns", "odd-names"],
)
def test_windows(lf: pl.LazyFrame, request_: dict[str, Any], expected: list[list[Any]]) -> None:
    got = call(lf, op="rows", **request_)["rows"]
    assert got["rows"] == expected
    assert got["total_rows"] == N and got["engine"]["name"] == "polars"
    assert got["index"] == [str(request_["offset"] + i) for i in range(len(expected))]


def test_cells_are_text_dates_as_iso_and_missing_is_none(lf: pl.LazyFrame) -> None:
    got = call(lf, op="rows", offset=0, limit=12, columns=[2, 7, 8, 6])["rows"]["rows"]
    assert got[0] == [None, None, None, None]  # row 0: every column with gaps misses it
    assert got[1] == [str(ROWS[1][2]), ROWS[1][7].isoformat(), ROWS[1][8].isoformat(sep=" "), str(ROWS[1][6])]
    assert math.isnan(ROWS[11][2]) and got[11][0] is None  # NaN: missing


@pytest.mark.parametrize(
    ("view", "words"),
    [
        ({"filter": {"column": "nope", "op": "isnull"}}, "No column named 'nope'"),
        ({"sort": [{"column": "nope"}]}, "No column named 'nope'"),
        ({"filter": {"column": "i", "op": "gt", "value": "abc"}}, "does not fit column i (Int64)"),
        ({"filter": {"column": "d", "op": "eq", "value": "May 3"}}, "does not fit column d (Date)"),
        ({"filter": {"column": "i", "op": "empty"}}, "applies to text columns"),
        ({"filter": {"column": "s", "op": "is_true"}}, "applies to boolean columns"),
        ({"filter": {"column": "s", "op": "regex", "value": "(["}}, "not a valid polars (Rust) regular expression"),
    ],
    ids=["filter-column", "sort-column", "misfit", "misfit-date", "empty-on-number", "true-on-text", "regex"],
)
def test_bad_views_are_400s_naming_the_problem(lf: pl.LazyFrame, view: dict[str, Any], words: str) -> None:
    for op in ("rows", "count", "code", "profile"):
        if op in ("count", "profile") and view.get("sort"):
            continue
        got = call(lf, op=op, view=view)
        assert got.get("bad_request") is True and words in got["error"], (op, got)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (lambda lf: lf.with_columns(pl.col("s").cast(pl.Int64)), "t (LazyFrame): conversion from `str` to `i64` failed"),
        (lambda lf: lf.select("nope"), 't (LazyFrame): unable to find column "nope"'),
    ],
    ids=["compute-error", "column-not-found"],
)
def test_engine_errors_are_422s_with_polars_own_line(lf: pl.LazyFrame, value: Any, words: str) -> None:
    got = call(value(lf), op="rows")
    assert got.get("unprocessable") is True and got["error"].startswith(words), got


# --- a seeded property test: filter trees and sorts ---------------------------------------

FAMILY = {"i": "integer", "f": "float", "s": "text", 'a "b"': "text", "with space": "integer",
          "b": "bool", "d": "date", "t": "datetime"}
ORDERED = ("eq", "ne", "lt", "le", "gt", "ge", "between", "not_between", "in", "not_in")
TEXT_OPS = ("contains", "not_contains", "starts_with", "ends_with", "regex")


def _value(column: str, rng: random.Random) -> Any:
    kind = FAMILY[column]
    if kind == "integer":
        return rng.choice([str(rng.randint(-30, 30)), rng.randint(0, 3)])
    if kind == "float":
        return rng.choice([str(round(rng.uniform(-5, 5), 2)), -2.5, 0, "1.25"])
    if kind == "text":
        return rng.choice(["alpha", "Beta", "r", "R3", "", "delta x", "a", "x", 'y "z"', "w w"])
    if kind == "date":
        return (datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(0, 40))).isoformat()
    if kind == "datetime":
        moment = datetime.datetime(2024, 3, 1, 8) + datetime.timedelta(hours=rng.randint(0, 200))
        return moment.isoformat()
    return rng.choice(["true", "false", True, False])


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
    if kind == "text":  # see test_a_text_range_compares_with_values_not_columns
        ops = [op for op in ops if op not in ("between", "not_between")]
    op = rng.choice(ops)
    c: dict[str, Any] = {"column": column, "op": op}
    if op in ("between", "not_between"):
        c["value"] = sorted([_value(column, rng), _value(column, rng)], key=lambda v: _typed(column, v))
    elif op in ("in", "not_in"):
        c["value"] = [_value(column, rng) for _ in range(rng.randint(1, 3))]
    elif op == "regex":
        c["value"] = rng.choice(["^r", "a$", "l.h", "^$", "[0-9]$", "^-", '"'])
        c["case"] = rng.random() < 0.5
    elif op in TEXT_OPS:
        c["value"] = rng.choice(["a", "A", "r", "ta", "Del", "1", "-", " "])
        c["case"] = rng.random() < 0.5
    elif op in ORDERED:
        c["value"] = _value(column, rng)
    return c


def _tree(rng: random.Random, depth: int) -> dict[str, Any]:
    if depth == 0 or rng.random() < 0.35:
        return _condition(rng)
    return {rng.choice(["and", "or"]): [_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))]}


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


def _keeps(node: dict[str, Any], row: dict[str, Any]) -> bool:
    return keeps(node, row, _typed)


def _expected(tree: dict[str, Any] | None, sort: list[dict[str, Any]]) -> list[int]:
    """The ids the view keeps, in its order (``independent.ordered``)."""
    return [r["id"] for r in ordered(DICTS, tree, sort, _typed)]


@pytest.mark.parametrize("seed", range(80))
def test_rows_and_code_agree_with_an_independent_evaluation(lf: pl.LazyFrame, seed: int) -> None:
    rng = random.Random(seed)
    tree = _tree(rng, 3) if seed % 10 else None
    sortable = [c for c in FAMILY if c != "id"]
    sort = [{"column": c, "desc": rng.random() < 0.5} for c in rng.sample(sortable, rng.randint(0, 3))]
    view = {"sort": sort, "filter": tree}
    want = _expected(tree, sort)  # ties in their order: polars' sort keeps it (maintain_order)
    got = call(lf, op="rows", limit=N, columns=[0], view=view, **ROOMY)
    assert "rows" in got, (view, got)
    assert [int(r[0]) for r in got["rows"]["rows"]] == want, view
    if tree is not None:
        assert got["rows"]["filtered_rows"] == len(want)
    offset, limit = rng.randint(0, N // 2), rng.randint(1, 40)  # a page: a sort planned as top-k
    page = call(lf, op="rows", offset=offset, limit=limit, columns=[0], view=view)["rows"]
    assert [int(r[0]) for r in page["rows"]] == want[offset:offset + limit], view
    assert call(lf, op="count", view=view)["count"]["rows"] == len(want)
    for syntax in ("polars_lazy", "polars"):
        code = call(lf, op="code", syntax=syntax, view=view)["code"]["code"]
        scope: dict[str, Any] = {"t": lf}
        exec(code, scope)
        assert isinstance(scope["t_view"], pl.LazyFrame), code
        assert scope["t_view"].collect().get_column("id").to_list() == want, code


def test_a_text_range_compares_with_values_not_columns() -> None:
    """polars reads a plain string given to ``is_between`` as a column's name: the bounds
    are written ``pl.lit("a")``, here where columns named ``a`` and ``b`` exist."""
    lf = pl.LazyFrame({"s": ["a", "b", "c", None], "a": ["z"] * 4, "b": ["b"] * 4})
    view = {"filter": {"column": "s", "op": "between", "value": ["a", "b"]}}
    assert call(lf, op="rows", columns=[0], view=view)["rows"]["rows"] == [["a"], ["b"]]
    code = call(lf, op="code", view=view)["code"]["code"]
    assert 'is_between(pl.lit("a"), pl.lit("b"))' in code
    scope: dict[str, Any] = {"t": lf}
    exec(code, scope)
    assert scope["t_view"].collect().get_column("s").to_list() == ["a", "b"]


def test_code_for_selected_columns_odd_names_and_refused_syntaxes(lf: pl.LazyFrame) -> None:
    view = {"sort": [{"column": 'a "b"', "desc": True}], "filter": {"column": "with space", "op": "ge", "value": "2"}}
    got = call(lf, op="code", columns=[4, 5, 0], view=view)
    code = got["code"]["code"]
    assert got["code"]["syntax"] == "polars_lazy"
    assert code.startswith("import polars as pl\nt_view = (\n    t\n    .filter(")
    assert """.select(['a "b"', "with space", "id"])""" in code
    assert "nulls_last=True, maintain_order=True" in code
    scope: dict[str, Any] = {"t": lf}
    exec(code, scope)
    out = scope["t_view"].collect()
    assert out.columns == ['a "b"', "with space", "id"]
    assert out.get_column("id").to_list() == _expected(view["filter"], view["sort"])
    assert call(lf, op="code")["code"]["code"] == "t_view = t\n"
    short = call(lf, op="code", columns=[0])["code"]["code"]
    assert short == 't_view = t.select(["id"])\n'
    when = call(lf, op="code", view={"filter": {"column": "t", "op": "lt", "value": "2024-03-02T09:30"}})
    assert "datetime.datetime(2024, 3, 2, 9, 30)" in when["code"]["code"]
    assert when["code"]["code"].startswith("import datetime\nimport polars as pl\n")
    refused = call(lf, op="code", syntax="pandas")
    assert refused.get("bad_request") is True and "ask for polars_lazy or polars" in refused["error"]


# --- counts and profiles ------------------------------------------------------------------


def test_count_with_and_without_a_filter(lf: pl.LazyFrame) -> None:
    got = call(lf, op="count")["count"]
    assert got["rows"] == N and got["filtered"] is False and got["engine"]["name"] == "polars"
    flt = {"column": "b", "op": "is_true"}
    got = call(lf, op="count", view={"filter": flt})["count"]
    assert got["rows"] == sum(1 for r in DICTS if r["b"] is True) and got["filtered"] is True


def _quantile(ordered: list[float], q: float) -> float:
    virtual = (len(ordered) - 1) * q
    lo = math.floor(virtual)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (virtual - lo)


@pytest.mark.parametrize("column", ["i", "f", "with space"])
def test_number_profiles_are_polars_exact_aggregates(lf: pl.LazyFrame, column: str) -> None:
    position = COLUMNS.index(column)
    got = call(lf, op="profile", columns=[position])["profile"]["columns"][0]
    values = sorted(float(r[column]) for r in DICTS if _present(r[column]))
    assert got["family"] == "number" and got["approximate"] is False and got["error"] is None
    assert got["count"] == len(values) and got["null_count"] == N - len(values)
    assert got["min"] == values[0] and got["max"] == values[-1]
    assert got["mean"] == pytest.approx(statistics.fmean(values))
    assert got["std"] == pytest.approx(statistics.stdev(values))
    assert got["median"] == pytest.approx(_quantile(values, 0.5))
    for p in ("5", "25", "75", "95"):
        assert got["quantiles"][p] == pytest.approx(_quantile(values, int(p) / 100)), p
    edges, counts = got["histogram"]["edges"], got["histogram"]["counts"]
    assert 1 <= len(counts) <= 50 and len(edges) == len(counts) + 1 and sum(counts) == len(values)
    for k, (lo, hi) in enumerate(itertools.pairwise(edges)):
        last = k == len(counts) - 1
        assert counts[k] == sum(1 for v in values if lo <= v < hi or (last and v == hi)), k


def test_the_in_memory_frames_profile_and_the_engines_agree(frame: pl.DataFrame) -> None:
    engine = call(frame.lazy(), op="profile", columns=[1, 2, 5, 6, 7, 8])["profile"]["columns"]
    memory = call(frame, op="profile", columns=[1, 2, 5, 6, 7, 8])["profile"]["columns"]
    for e, m in zip(engine, memory, strict=True):
        assert e["family"] == m["family"] and e["count"] == m["count"] and e["null_count"] == m["null_count"]
        for key in ("min", "max", "median", "true", "false"):
            assert e.get(key) == pytest.approx(m.get(key)), (e["name"], key)
        if e["family"] == "number":
            assert e["histogram"]["edges"] == pytest.approx(m["histogram"]["edges"])
            assert e["histogram"]["counts"] == m["histogram"]["counts"]


def test_text_boolean_and_date_profiles(lf: pl.LazyFrame) -> None:
    got = call(lf, op="profile", columns=[3, 4, 6, 7, 8], top=3)["profile"]
    assert got["engine"]["name"] == "polars" and got["sampled"] is False
    s, q, b, d, t = got["columns"]
    for column, entry_ in (("s", s), ('a "b"', q)):
        counts: dict[str, int] = {}
        for r in DICTS:
            if r[column] is not None:
                counts[r[column]] = counts.get(r[column], 0) + 1
        best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        # one group_by: the distinct count is exact, as the rest
        assert entry_["family"] == "string" and entry_["approximate"] is False
        assert entry_["distinct"] == len(counts)
        assert entry_["empty"] == counts.get("", 0)
        assert [(x["value"], x["count"]) for x in entry_["top"]] == best
        assert entry_["other"] == sum(counts.values()) - sum(c for _, c in best)
    assert b["true"] == sum(1 for r in DICTS if r["b"] is True)
    assert b["false"] == sum(1 for r in DICTS if r["b"] is False)
    dates = sorted(r["d"] for r in DICTS if r["d"] is not None)
    assert d["family"] == "datetime" and d["min"] == dates[0].isoformat() and d["max"] == dates[-1].isoformat()
    times = sorted(r["t"] for r in DICTS if r["t"] is not None)
    low, high = statistics.median_low(times), statistics.median_high(times)
    assert t["min"] == times[0].isoformat() and t["median"] == (low + (high - low) / 2).isoformat()


def test_a_profile_of_the_filtered_view(lf: pl.LazyFrame) -> None:
    flt = {"or": [{"column": "s", "op": "starts_with", "value": "r", "case": False}, {"column": "f", "op": "isnull"}]}
    got = call(lf, op="profile", columns=[2], view={"filter": flt})["profile"]
    kept = [r for r in DICTS if _keeps(flt, r)]
    present = [r["f"] for r in kept if _present(r["f"])]
    assert got["columns"][0]["count"] == len(present) and got["columns"][0]["null_count"] == len(kept) - len(present)


# --- cancelled in polars ------------------------------------------------------------------


def _sleepy(s: pl.Series) -> pl.Series:
    time.sleep(0.05)
    return s


def _slow_plan() -> pl.LazyFrame:
    """400 branches of 50 ms each: some 10 s of work, each branch's batch passing the
    probe's checkpoint (the stop lands at the next one)."""
    parts = [pl.LazyFrame({"x": [k]}).select(pl.col("x").map_batches(_sleepy, return_dtype=pl.Int64))
             for k in range(400)]
    return pl.concat(parts)


@pytest.mark.parametrize(
    "request_",
    [
        {"op": "count", "count_ms": 300},
        {"op": "rows", "sort_ms": 300, "view": {"sort": [{"column": "x", "desc": True}]}},
    ],
    ids=["count", "sorted-window"],
)
def test_a_query_past_its_guard_is_cancelled_in_polars(lf: pl.LazyFrame, request_: dict[str, Any]) -> None:
    started = time.perf_counter()
    got = call(_slow_plan(), **request_)
    spent = time.perf_counter() - started
    assert got.get("unprocessable") is True, got
    assert "cancelled in polars after" in got["error"] and "its time guard is 300 ms" in got["error"]
    assert spent < 3.0, spent  # 10x the guard
    assert call(lf, op="count", view={"filter": {"column": "b", "op": "is_true"}})["count"]["rows"] > 0
    deadline = time.monotonic() + 5
    while polars_lazy._STOPPING and time.monotonic() < deadline:
        polars_lazy._prune()
        time.sleep(0.01)
    assert polars_lazy._STOPPING == [] and _query_threads() == []  # polars returned: nothing runs


def _query_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "jupyter-kernel-state polars query"]


def test_a_profile_past_its_guard_says_so_per_column() -> None:
    got = call(_slow_plan(), op="profile", column_ms=200)["profile"]
    assert "cancelled in polars" in got["columns"][0]["error"]


# --- a Parquet scan too big to collect (slow) --------------------------------------------

BIG = 30_000_000


@pytest.fixture(scope="module")
def big_parquet(tmp_path_factory: Any) -> str:
    path = str(tmp_path_factory.mktemp("polars") / "big.parquet")
    ids = pl.int_range(0, BIG, dtype=pl.Int64)
    pl.LazyFrame().select(ids.alias("id")).with_columns(
        (pl.col("id") * 7919 % 1_000_003).alias("y"),
        (pl.col("id") % 997).cast(pl.Float64).alias("f"),
        pl.format("r{}", pl.col("id") % 100_003).alias("s"),
    ).sink_parquet(path, row_group_size=1_000_000)
    return path


@pytest.mark.slow
def test_a_big_scan_is_windowed_counted_filtered_and_profiled_in_polars(big_parquet: str) -> None:
    big = pl.scan_parquet(big_parquet)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    middle = call(big, op="rows", offset=BIG // 2, limit=100, budget_ms=60_000, count_ms=30_000)["rows"]
    assert middle["rows"][0][0] == str(BIG // 2) and middle["total_rows"] == BIG
    assert middle["engine"]["location"] == "files: " + big_parquet
    view = {"filter": {"and": [{"column": "s", "op": "eq", "value": "r3"}, {"column": "id", "op": "lt", "value": "1000000"}]},
            "sort": [{"column": "y", "desc": True}]}
    got = call(big, op="rows", view=view, limit=3, columns=[0], budget_ms=60_000, sort_ms=60_000, count_ms=60_000)
    ids = [k for k in range(3, 1_000_000, 100_003)]
    want = [str(k) for k in sorted(ids, key=lambda k: -(k * 7919 % 1_000_003))[:3]]
    assert [r[0] for r in got["rows"]["rows"]] == want and got["rows"]["filtered_rows"] == len(ids)
    # A sort of every row, streamed: polars keeps the top rows, not the scan (its
    # in-memory engine, which collect(background=True) runs, holds the whole scan).
    top = call(big, op="rows", limit=2, columns=[3, 1], budget_ms=60_000, sort_ms=60_000,
               view={"sort": [{"column": "s", "desc": True}, {"column": "y"}]})["rows"]["rows"]
    assert top == [["r99999", str(min(k * 7919 % 1_000_003 for k in range(99_999, BIG, 100_003)))],
                   ["r99999", str(sorted(k * 7919 % 1_000_003 for k in range(99_999, BIG, 100_003))[1])]]
    profile = call(big, op="profile", columns=[2], budget_ms=120_000, column_ms=60_000)["profile"]
    f = profile["columns"][0]
    assert f["error"] is None and f["count"] == BIG and f["min"] == 0.0 and f["max"] == 996.0
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 1024 * 1024, grown_kb  # the scan is 30 M rows (some 3 GB in memory)


@pytest.mark.slow
def test_a_sort_of_a_big_scan_past_its_guard_is_cancelled_in_polars(big_parquet: str) -> None:
    big = pl.scan_parquet(big_parquet)
    started = time.perf_counter()
    # A guard far under the sort's own time on any machine (it took 0.4–1.2 s here).
    got = call(big, op="rows", sort_ms=100, view={"sort": [{"column": "s"}, {"column": "y", "desc": True}]})
    answered = time.perf_counter() - started
    assert got.get("unprocessable") is True and "cancelled in polars after" in got["error"], got
    assert answered < 5.0, answered
    while polars_lazy._STOPPING and time.perf_counter() - started < 120:
        polars_lazy._prune()
        time.sleep(0.05)
    landed = time.perf_counter() - started
    print(f"polars sort of {BIG:,} Parquet rows: answered in {answered:.2f} s, "
          f"stopped in polars {landed:.2f} s after the request")
    assert polars_lazy._STOPPING == [] and _query_threads() == [], landed
    assert call(big, op="rows", limit=1, columns=[0])["rows"]["rows"] == [["0"]]
