"""dask DataFrames explored in dask: case tables over a frame of 7 partitions, a seeded
property test of filter trees and top-k sorts against an independent evaluation (and
against the generated code, computed), the refused deep sort, the partitions a window
computes, and a computation past its guard cancelled with no task started after."""

from __future__ import annotations

import datetime
import json
import random
import resource
import threading
import time
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.callbacks import Callback

from jupyter_kernel_state.probe import entry, guard, summarize
from jupyter_kernel_state.probe.backends.dask import TOP_ROWS, DaskTable

from .independent import ROOMY, keeps, ordered
from .independent import present as _present

# --- data ----------------------------------------------------------------------------------

N = 150
PARTS = 7
ODD = "o\"dd 'name"
COLUMNS = ["id", "n", "f", "s", ODD, "b", "d"]
_RNG = random.Random(11)


def _records() -> list[dict[str, Any]]:
    out = []
    for i in range(N):
        out.append({
            "id": i,
            "n": _RNG.randint(-20, 20),
            "f": float("nan") if i % 7 == 0 else round(_RNG.uniform(-5, 5), 2),
            "s": None if i % 11 == 0 else _RNG.choice(["alpha", "Beta", "", "r1", "R3", "delta x", "o'k"]),
            ODD: None if i % 5 == 0 else _RNG.choice(["x", "y", "x y"]),
            "b": _RNG.random() < 0.4,
            "d": None if i % 13 == 0 else datetime.datetime(2024, 1, 1) + datetime.timedelta(days=_RNG.randint(0, 40)),
        })
    return out


RECORDS = _records()


def _frame() -> pd.DataFrame:
    pdf = pd.DataFrame(RECORDS, columns=COLUMNS)
    pdf["s"] = pdf["s"].astype("string")
    pdf[ODD] = pdf[ODD].astype("string")
    pdf["d"] = pd.to_datetime(pdf["d"])
    return pdf


@pytest.fixture(scope="module")
def pdf() -> pd.DataFrame:
    return _frame()


@pytest.fixture(scope="module")
def ddf(pdf: pd.DataFrame) -> Any:
    return dd.from_pandas(pdf, npartitions=PARTS)


def call(value: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"name": "t", **request}, {"t": value})
    json.dumps(reply, allow_nan=False)
    return reply


# --- the list and the detail: nothing computed ---------------------------------------------


def test_a_dask_frame_is_the_dask_engines_table(tmp_path: Any, pdf: pd.DataFrame) -> None:
    frame = dd.from_pandas(pdf, npartitions=5)  # a plan of its own: no other test divides it
    pdf.to_parquet(tmp_path / "t.parquet")
    from_file = dd.read_parquet(str(tmp_path / "t.parquet"))
    assert type(frame).__module__.startswith("dask") and type(frame).__name__ == "DataFrame"
    assert type(from_file) is type(frame)
    s = summarize("t", frame)  # not yet divided into partitions: that is left to a window
    assert s["kind"] == "dataframe" and s["shape"] is None and s["error"] is None
    assert s["preview"].startswith("lazy · dask · not counted · 7 columns — id:int64, n:int64, f:float64")
    assert frame.npartitions == 5
    s = summarize("t", frame)
    assert s["shape"] == [N, 7] and s["preview"].startswith("lazy · dask · 150 rows · 7 columns")
    assert summarize("t", from_file)["shape"] is None  # a file's lengths are not read for the list


def test_the_detail_has_the_schema_the_partitions_and_the_plan(ddf: Any) -> None:
    call(ddf, op="rows", limit=1)  # divides the frame into its partitions
    d = call(ddf, op="detail")["variable"]
    assert [c["name"] for c in d["columns"]] == COLUMNS
    assert d["head"] is None
    engine = d["engine"]
    assert engine["name"] == "dask" and engine["lazy"] is True and engine["rows"] == N
    assert engine["location"] == "7 partitions · from pandas"
    assert engine["plan"].startswith("FromPandas")


def test_the_files_read_are_where_the_data_lives(tmp_path: Any, pdf: pd.DataFrame) -> None:
    pdf.to_parquet(tmp_path / "t.parquet")
    frame = dd.read_parquet(str(tmp_path / "t.parquet"))
    engine = call(frame, op="detail")["variable"]["engine"]
    assert engine["rows"] is None and engine["location"].endswith("files: " + str(tmp_path / "t.parquet"))
    got = call(frame, op="rows", offset=140, limit=20, columns=[0])["rows"]
    assert [r[0] for r in got["rows"]] == [str(i) for i in range(140, 150)]
    assert got["total_rows"] == N  # from the file's statistics


# --- windows --------------------------------------------------------------------------------


def _cells(record: dict[str, Any]) -> list[Any]:
    out = []
    for name in COLUMNS:
        x = record[name]
        if not _present(x):
            out.append(None)
        elif isinstance(x, datetime.datetime):
            out.append(x.date().isoformat())  # every time is midnight: compact
        else:
            out.append(x if isinstance(x, str) else repr(x))
    return out


@pytest.mark.parametrize(
    ("offset", "limit", "expected"),
    [
        (0, 5, range(0, 5)),
        (20, 30, range(20, 50)),  # across partitions
        (N - 4, 10, range(N - 4, N)),  # the end
        (N + 10, 10, range(0)),  # past the end
    ],
)
def test_windows(ddf: Any, offset: int, limit: int, expected: range) -> None:
    got = call(ddf, op="rows", offset=offset, limit=limit)["rows"]
    assert got["rows"] == [_cells(RECORDS[i]) for i in expected]
    assert got["index"] == [str(i) for i in expected]
    assert got["total_rows"] == N and got["engine"]["name"] == "dask"


def test_a_window_computes_only_the_partitions_that_hold_it(pdf: pd.DataFrame) -> None:
    firsts: list[int] = []

    def seen(part: pd.DataFrame) -> pd.DataFrame:
        if len(part):
            firsts.append(int(part["id"].iloc[0]))
        return part

    frame = dd.from_pandas(pdf, npartitions=PARTS).map_partitions(seen, meta=pdf.iloc[:0])
    starts = list(frame.divisions[:-1])  # the partitions' first ids
    flt = {"column": "id", "op": "ge", "value": "0"}
    call(frame, op="rows", limit=1, view={"filter": flt}, columns=[0])  # the lengths: a pass
    assert set(firsts) == set(starts)
    firsts.clear()
    got = call(frame, op="rows", offset=60, limit=10, view={"filter": flt}, columns=[0])["rows"]
    assert [r[0] for r in got["rows"]] == [str(i) for i in range(60, 70)]
    holding = [a for a, b in zip(starts, [*starts[1:], N], strict=True) if a < 70 and b > 60]
    assert sorted(firsts) == holding  # the lengths were kept: only those partitions ran


@pytest.mark.parametrize(
    ("view", "words"),
    [
        ({"filter": {"column": "nope", "op": "eq", "value": "1"}}, "No column named 'nope'"),
        ({"filter": {"column": "n", "op": "eq", "value": "abc"}}, "does not fit column n (int64)"),
        ({"filter": {"column": "s", "op": "regex", "value": "(a+)+$"}}, "repeats a repetition"),
    ],
)
def test_bad_views_are_400s_naming_the_problem(ddf: Any, view: dict[str, Any], words: str) -> None:
    got = call(ddf, op="rows", view=view)
    assert got.get("bad_request") is True and words in got["error"], got


def test_a_filter_dask_cannot_build_is_refused_with_dasks_reason() -> None:
    frame = dd.from_pandas(pd.DataFrame({"p": pd.period_range("2024-01", periods=12, freq="M")}),
                           npartitions=2)
    got = call(frame, op="rows", view={"filter": {"column": "p", "op": "lt", "value": "3"}})
    assert got.get("bad_request") is True, got
    assert got["error"] == ("dask cannot apply this filter: Invalid comparison between "
                            "dtype=period[M] and str")


@pytest.mark.parametrize(
    ("sort", "words"),
    [
        ([{"column": "s"}], "dask cannot sort by s (string) first: its sort splits the rows by the "
                            "first key, which must hold numbers, booleans or times"),
        ([{"column": "b"}, {"column": "s"}], None),
    ],
)
def test_a_sort_by_text_comes_after_a_first_key(ddf: Any, sort: list[dict[str, Any]], words: str | None) -> None:
    got = call(ddf, op="rows", view={"sort": sort})
    if words is None:
        assert "rows" in got, got
    else:
        assert got.get("bad_request") is True and got["error"].startswith(words), got
        assert call(ddf, op="code", view={"sort": sort}).get("bad_request") is True


def _fails(part: pd.DataFrame) -> pd.DataFrame:
    raise ValueError("partition unreadable\nsecond line")


def test_an_engine_error_is_a_422_with_dasks_first_line(pdf: pd.DataFrame) -> None:
    frame = dd.from_pandas(pdf, npartitions=3).map_partitions(_fails, meta=pdf.iloc[:0])
    got = call(frame, op="rows", limit=5)
    assert got.get("unprocessable") is True, got
    assert got["error"] == "t (DataFrame): partition unreadable"


def test_a_sort_past_the_top_rows_is_refused(ddf: Any) -> None:
    view = {"sort": [{"column": "f", "desc": True}]}
    got = call(ddf, op="rows", offset=TOP_ROWS - 5, limit=10, view=view)
    assert got.get("bad_request") is True, got
    assert got["error"] == ("dask cannot sort 10,005 rows without a shuffle; filter first or sort "
                            "in the first 10,000 rows")
    assert "rows" in call(ddf, op="rows", offset=TOP_ROWS - 10, limit=10, view=view)


# --- a seeded property test: filter trees and top-k sorts ------------------------------------

FAMILY = {"id": "number", "n": "number", "f": "number", "s": "text", ODD: "text", "b": "bool",
          "d": "date"}


def _value(column: str, rng: random.Random) -> Any:
    kind = FAMILY[column]
    if kind == "number":
        return str(rng.randint(-20, 20)) if column != "f" else str(round(rng.uniform(-5, 5), 2))
    if kind == "text":
        return rng.choice(["alpha", "beta", "r1", "R3", "", "x", "x y", "o'k"])
    if kind == "date":
        return (datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(0, 40))).isoformat()
    return rng.choice(["true", "false"])


def _condition(rng: random.Random) -> dict[str, Any]:
    column = rng.choice(["n", "f", "s", ODD, "b", "d"])
    kind = FAMILY[column]
    ops = ["isnull", "notnull", "eq", "ne", "lt", "le", "gt", "ge", "between", "not_between", "in", "not_in"]
    if kind == "text":
        ops += ["contains", "not_contains", "starts_with", "ends_with", "regex", "empty", "not_empty"]
    if kind == "bool":
        ops = ["isnull", "notnull", "is_true", "is_false", "eq", "ne"]
    if column == "n":
        ops += ["contains"]  # on the numbers' text
    op = rng.choice(ops)
    c: dict[str, Any] = {"column": column, "op": op}
    if op in ("between", "not_between"):
        a, b = sorted([_value(column, rng), _value(column, rng)], key=lambda v: (float(v) if kind == "number" else v))
        c["value"] = [a, b]
    elif op in ("in", "not_in"):
        c["value"] = [_value(column, rng) for _ in range(rng.randint(1, 3))]
    elif op == "regex":
        c["value"] = rng.choice(["^r", "a$", "l.h", "^$", "x y"])
        c["case"] = rng.random() < 0.5
    elif op in ("contains", "not_contains", "starts_with", "ends_with"):
        c["value"] = rng.choice(["a", "A", "r", "ta", "Del", "1", "'k"])
        c["case"] = rng.random() < 0.5
    elif op in ("eq", "ne", "lt", "le", "gt", "ge"):
        c["value"] = _value(column, rng)
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
        return datetime.datetime.fromisoformat(text)
    if kind == "bool":
        return text == "true"
    return text


def _keeps(node: dict[str, Any], row: dict[str, Any]) -> bool:
    return keeps(node, row, _typed)


def _expected(tree: dict[str, Any] | None, sort: list[dict[str, Any]]) -> list[int]:
    """The ids the view keeps, in its order (``independent.ordered``)."""
    return [r["id"] for r in ordered(RECORDS, tree, sort, _typed)]


@pytest.mark.parametrize("seed", range(28))
def test_rows_and_code_agree_with_an_independent_evaluation(ddf: Any, seed: int) -> None:
    rng = random.Random(seed)
    tree = _tree(rng, 3) if seed % 8 else None
    keys = rng.sample(["n", "f", "b", "d"], rng.randint(0, 2))
    keys += rng.sample(["s", ODD], rng.randint(0, 1)) if keys else []  # text after a first key
    sort = [{"column": c, "desc": rng.random() < 0.5} for c in keys]  # ties: the view's order
    view = {"sort": sort, "filter": tree}
    want = _expected(tree, sort)
    offset, limit = rng.choice([(0, N), (rng.randint(0, 60), rng.randint(1, 40))])
    got = call(ddf, op="rows", offset=offset, limit=limit, columns=[0], view=view, **ROOMY)
    assert "rows" in got, (view, got)
    assert [int(r[0]) for r in got["rows"]["rows"]] == want[offset:offset + limit], view
    if tree is not None:
        assert got["rows"]["filtered_rows"] == len(want)
    code = call(ddf, op="code", view=view, columns=[0])["code"]["code"]
    scope: dict[str, Any] = {"t": ddf}
    exec(code, scope)
    ran = scope["t_view"].compute()["id"].tolist()
    assert _tied(ran, keys) == _tied(want, keys), code  # dask's sort_values: ties unordered


def _tied(ids: list[int], keys: list[str]) -> list[tuple[Any, list[int]]]:
    """Runs of equal sort keys (missing as None), each with its ids in any order."""
    runs: list[tuple[Any, list[int]]] = []
    for i in ids:
        key = tuple(RECORDS[i][k] if _present(RECORDS[i][k]) else None for k in keys)
        if runs and runs[-1][0] == key:
            runs[-1][1].append(i)
        else:
            runs.append((key, [i]))
    return [(key, sorted(group)) for key, group in runs]


# --- counts, profiles, code -----------------------------------------------------------------


def test_count_with_and_without_a_filter(ddf: Any) -> None:
    got = call(ddf, op="count")["count"]
    assert got["rows"] == N and got["filtered"] is False
    flt = {"column": "b", "op": "is_true"}
    got = call(ddf, op="count", view={"filter": flt})["count"]
    assert got["rows"] == sum(1 for r in RECORDS if r["b"]) and got["filtered"] is True
    assert got["engine"]["name"] == "dask"


def _column(reply: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in reply["profile"]["columns"] if c["name"] == name)


def test_profiles_are_dasks_aggregates(ddf: Any, pdf: pd.DataFrame) -> None:
    got = call(ddf, op="profile", top=3)
    assert all(c["error"] is None for c in got["profile"]["columns"]), got
    for name in ("n", "f"):
        c, s = _column(got, name), pdf[name]
        finite = s.dropna()
        assert c["family"] == "number" and c["approximate"] is True
        assert (c["count"], c["null_count"]) == (int(s.count()), int(s.isna().sum()))
        assert (c["min"], c["max"]) == (finite.min(), finite.max())
        assert c["mean"] == pytest.approx(finite.mean()) and c["std"] == pytest.approx(finite.std())
        qs = [c["quantiles"]["5"], c["quantiles"]["25"], c["median"], c["quantiles"]["75"], c["quantiles"]["95"]]
        assert qs == sorted(qs) and c["min"] <= qs[0] and qs[-1] <= c["max"]  # dask's: approximate
        assert abs(c["median"] - finite.median()) <= (finite.max() - finite.min()) / 4
        hist = c["histogram"]
        assert 1 <= len(hist["counts"]) <= 50 and len(hist["edges"]) == len(hist["counts"]) + 1
        assert list(np.histogram(finite, bins=hist["edges"])[0]) == hist["counts"]
    assert isinstance(_column(got, "n")["min"], int)
    c, s = _column(got, "s"), pdf["s"]
    counts = s.value_counts()
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert (c["family"], c["count"], c["null_count"]) == ("string", s.count(), s.isna().sum())
    assert c["distinct"] == s.nunique() and c["empty"] == (s == "").sum()
    assert [(e["value"], e["count"]) for e in c["top"]] == top
    assert c["other"] == s.count() - sum(n for _, n in top)
    c = _column(got, "b")
    assert (c["family"], c["true"], c["false"], c["approximate"]) == (
        "boolean", int(pdf["b"].sum()), int((~pdf["b"]).sum()), False)
    c, s = _column(got, "d"), pdf["d"]
    assert (c["family"], c["count"], c["null_count"]) == ("datetime", s.count(), s.isna().sum())
    assert (c["min"], c["max"]) == (s.min().isoformat(), s.max().isoformat())
    assert c["min"] <= c["median"] <= c["max"] and c["approximate"] is True


def test_a_profile_of_a_filtered_view(ddf: Any, pdf: pd.DataFrame) -> None:
    flt = {"column": "s", "op": "eq", "value": "alpha"}
    got = call(ddf, op="profile", columns=[1, 3], view={"filter": flt})
    kept = pdf[pdf["s"] == "alpha"]
    assert _column(got, "n")["count"] == len(kept) and _column(got, "n")["max"] == kept["n"].max()
    assert _column(got, "s")["top"] == [{"value": "alpha", "count": len(kept)}]


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({}, "t_view = t\n"),
        ({"columns": [0, 4]}, "t_view = t[[\"id\", 'o\"dd \\'name']]\n"),
        ({"view": {"filter": {"column": "n", "op": "between", "value": ["1", "5"]}}},
         't_view = t[t["n"].notnull() & t["n"].between(1, 5)]\n'),
        ({"view": {"filter": {"column": "d", "op": "lt", "value": "2024-01-05"}}},
         "import pandas as pd\n"
         "t_view = t[t[\"d\"].notnull() & (t[\"d\"] < pd.Timestamp('2024-01-05 00:00:00'))]\n"),
        ({"view": {"sort": [{"column": "f", "desc": True}, {"column": "s"}]}, "columns": [0]},
         't_view = t.sort_values(["f", "s"], ascending=[False, True], na_position="last", '
         'sort_function_kwargs={"kind": "stable"})\nt_view = t_view[["id"]]\n'),
    ],
)
def test_code(ddf: Any, request_: dict[str, Any], code: str) -> None:
    got = call(ddf, op="code", **request_)["code"]
    assert got["syntax"] == "dask" and got["code"] == code


def test_code_in_another_syntax_is_refused(ddf: Any) -> None:
    refused = call(ddf, op="code", syntax="pandas")
    assert refused.get("bad_request") is True and "ask for dask" in refused["error"]


# --- work past its guard: cancelled, nothing started after ----------------------------------


class Started(Callback):
    """Counts the tasks any scheduler starts, with the time each started."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []
        self.lock = threading.Lock()

    def _pretask(self, key: Any, dsk: Any, state: Any) -> None:
        with self.lock:
            self.times.append(time.perf_counter())


_TAGS = iter(range(1_000_000))


def _slow_frame(parts: int, seconds: float) -> tuple[Any, list[float]]:
    """A frame whose partitions each take ``seconds``, and the times they started (its
    own tag: dask would otherwise take it for an earlier one of the same tokens)."""
    ran: list[float] = []
    pdf = pd.DataFrame({"x": np.arange(parts * 10)})

    def slow(part: pd.DataFrame, tag: int) -> pd.DataFrame:
        ran.append(time.perf_counter())
        time.sleep(seconds)
        return part

    frame = dd.from_pandas(pdf, npartitions=parts).map_partitions(slow, tag=next(_TAGS), meta=pdf.iloc[:0])
    return frame, ran


@pytest.mark.parametrize(
    ("op", "request_"),
    [
        ("count", {"count_ms": 800}),
        ("rows", {"sort_ms": 800, "count_ms": 800, "view": {"sort": [{"column": "x"}]}}),
    ],
)
def test_a_computation_past_its_guard_is_cancelled_and_starts_no_task_after(
    op: str, request_: dict[str, Any]
) -> None:
    frame, ran = _slow_frame(40, 0.3)  # 6 s of work on 2 threads
    with Started() as started:
        began = time.perf_counter()
        got = call(frame, op=op, budget_ms=10_000, **request_)
        answered = time.perf_counter()
        time.sleep(0.6)  # a task already running finishes; none may start
    assert got.get("unprocessable") is True, got
    assert "cancelled in dask after" in got["error"] and "its time guard is 800 ms" in got["error"]
    assert answered - began < 1.8
    assert started.times and all(t < answered for t in started.times)
    assert ran and all(t < answered for t in ran) and len(ran) < 40


def test_the_scheduler_callback_alone_stops_a_compute_between_tasks() -> None:
    """The second lock, without the guard's signal: past its deadline (or once
    cancelled, as the watchdog does) no further task starts.  200 tasks of 0.1 s take
    10 s on two threads: stopped, far fewer ran, none after the stop (the time bounds
    only guard against a hang)."""
    frame, ran = _slow_frame(200, 0.1)
    table = DaskTable(frame, None)  # no guard session: nothing but the callback
    began = time.perf_counter()
    with pytest.raises(guard.ProbeTimeout):
        table._compute(300, frame.index.map_partitions(len))
    stopped = time.perf_counter()
    time.sleep(0.3)
    assert 0.3 <= stopped - began < 5.0
    assert ran and all(t < stopped for t in ran) and len(ran) < 200
    frame, ran = _slow_frame(200, 0.1)
    table = DaskTable(frame, None)
    began = time.perf_counter()
    threading.Timer(0.2, table.cancel).start()  # the watchdog's way
    with pytest.raises(guard.ProbeTimeout):
        table._compute(60_000, frame.index.map_partitions(len))
    stopped = time.perf_counter()
    time.sleep(0.3)
    assert 0.2 <= stopped - began < 5.0  # at the next task's start
    # (on a loaded machine the cancel may come before the first task: none ran at all)
    assert all(t < stopped for t in ran) and len(ran) < 200


def test_a_profile_past_its_guard_falls_back_to_the_leading_partitions() -> None:
    frame, ran = _slow_frame(100, 0.05)
    got = call(frame, op="profile", column_ms=600, sample_rows=1000, budget_ms=10_000)
    assert "profile" in got, got
    c = got["profile"]["columns"][0]
    assert got["profile"]["sampled"] is True and c["approximate"] is True and c["error"] is None
    assert c["count"] == 10 and (c["min"], c["max"]) == (0, 9)  # the first partition's rows
    assert len(ran) < 100  # never the whole frame


# --- a size that is not collected --------------------------------------------------------

BIG_PART = 200_000


def _generated(i: int) -> pd.DataFrame:
    ids = np.arange(i * BIG_PART, (i + 1) * BIG_PART)
    return pd.DataFrame({"i": ids, "x": (ids % 1000) * 0.5})


@pytest.mark.slow
def test_twenty_million_generated_rows_are_windowed_counted_sorted_and_profiled_in_dask() -> None:
    meta = pd.DataFrame({"i": np.array([], "int64"), "x": np.array([], "float64")})
    big = dd.from_map(_generated, range(100), meta=meta)  # 320 MB if it were collected
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    slow = {"budget_ms": 30_000, "count_ms": 20_000, "sort_ms": 20_000}
    middle = call(big, op="rows", offset=10_000_000, limit=3, **slow)["rows"]
    assert middle["rows"] == [[str(i), str((i % 1000) * 0.5)] for i in range(10_000_000, 10_000_003)]
    assert middle["total_rows"] == 20_000_000
    top = call(big, op="rows", limit=3, view={"sort": [{"column": "x", "desc": True}]}, **slow)["rows"]
    assert top["rows"] == [["999", "499.5"], ["1999", "499.5"], ["2999", "499.5"]]  # ties in order
    flt = {"column": "x", "op": "eq", "value": "499.5"}
    counted = call(big, op="count", view={"filter": flt}, budget_ms=30_000, count_ms=20_000)
    assert counted["count"]["rows"] == 20_000
    profile = call(big, op="profile", columns=[1], budget_ms=30_000, column_ms=20_000)["profile"]
    x = profile["columns"][0]
    assert x["error"] is None and (x["count"], x["min"], x["max"]) == (20_000_000, 0.0, 499.5)
    assert sum(x["histogram"]["counts"]) == 20_000_000
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 128 * 1024, grown_kb
