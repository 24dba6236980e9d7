"""Ibis tables on Ibis's DuckDB backend: windows, counts, profiles and code computed in
DuckDB (never collected), checked against the explorer's rules — missing values (null,
NaN) match only ``isnull`` and sort last — as case tables, and as a seeded property test
against a plain-Python evaluation and the generated code itself; a long query is
interrupted in DuckDB near its time guard."""

from __future__ import annotations

import collections
import datetime
import math
import random
import re
import time
from typing import Any

import pytest

from jupyter_kernel_state.probe import entry, guard, summarize
from jupyter_kernel_state.probe.backends.aggregates import new_texts
from jupyter_kernel_state.probe.backends.ibis import IbisTable
from jupyter_kernel_state.probe.protocol import View
from jupyter_kernel_state.probe.windows.columns import ViewColumns

ibis = pytest.importorskip("ibis")
pa = pytest.importorskip("pyarrow")

#: Ibis 12 reads a table's schema with DuckDB's deprecated ``fetch_arrow_table``.
pytestmark = pytest.mark.filterwarnings(
    r"ignore:fetch_arrow_table\(\) is deprecated:DeprecationWarning")

NAN = float("nan")
ODD = 'it\'s a "name"'
D = datetime.date
T = datetime.datetime

#: The case table: row ``id`` identifies each row in the expectations.
CASES = {
    "id": [0, 1, 2, 3, 4, 5],
    "i": [3, 1, None, 2, 5, 4],
    "f": [1.5, NAN, None, -2.0, 0.25, 3.0],
    "s": ["b", None, "", "Apple", "apple pie", "Cherry"],
    ODD: ["x", "y", "z", "x y", "it's", None],
    "b": [True, False, None, True, False, True],
    "d": [D(2024, 1, 3), D(2024, 1, 1), None, D(2024, 2, 29), D(2023, 12, 31), D(2024, 1, 2)],
    "ts": [T(2024, 1, 3, 10), None, T(2024, 1, 1), T(2024, 2, 29, 23, 59, 59),
           T(2023, 12, 31, 12), T(2024, 1, 2, 8, 30)],
}
TYPES = {"id": pa.int64(), "i": pa.int64(), "f": pa.float64(), "s": pa.string(),
         ODD: pa.string(), "b": pa.bool_(), "d": pa.date32(), "ts": pa.timestamp("us")}


def _arrow(data: dict[str, list[Any]]) -> Any:
    return pa.table({k: pa.array(v, type=TYPES[k]) for k, v in data.items()})


@pytest.fixture(scope="module")
def con() -> Any:
    connection = ibis.duckdb.connect()
    yield connection
    connection.disconnect()


@pytest.fixture(scope="module")
def cases(con: Any) -> Any:
    con.con.register("cases", _arrow(CASES))
    return con.table("cases")


def _ids(reply: dict[str, Any]) -> list[int]:
    assert "rows" in reply, reply
    return [int(row[0]) for row in reply["rows"]["rows"]]


def _rows(table: Any, view: dict[str, Any], **fields: Any) -> dict[str, Any]:
    request = {"op": "rows", "name": "t", "limit": 100, "offset": 0, "columns": [0],
               "view": view, **fields}
    return entry.dispatch(request, {"t": table})


# --- windows: filters and sorts --------------------------------------------------------

ROWS = [
    ({}, [0, 1, 2, 3, 4, 5]),
    ({"sort": [{"column": "f"}, {"column": "id"}]}, [3, 4, 0, 5, 1, 2]),  # NaN, null last
    ({"sort": [{"column": "f", "desc": True}, {"column": "id", "desc": True}]},
     [5, 0, 4, 3, 2, 1]),  # NaN and null alike: ordered by the next key
    ({"sort": [{"column": "i", "desc": True}]}, [4, 5, 0, 3, 1, 2]),
    ({"sort": [{"column": "s"}]}, [2, 3, 5, 4, 0, 1]),  # by code point
    ({"sort": [{"column": "b"}, {"column": "id", "desc": True}]}, [4, 1, 5, 3, 0, 2]),
    ({"sort": [{"column": "ts", "desc": True}]}, [3, 0, 5, 2, 4, 1]),
    ({"filter": {"column": "f", "op": "isnull"}}, [1, 2]),
    ({"filter": {"column": "f", "op": "notnull"}}, [0, 3, 4, 5]),
    ({"filter": {"column": "f", "op": "ne", "value": 1.5}}, [3, 4, 5]),
    ({"filter": {"column": "f", "op": "lt", "value": "1"}}, [3, 4]),
    ({"filter": {"column": "s", "op": "contains", "value": "APPLE"}}, [3, 4]),
    ({"filter": {"column": "s", "op": "contains", "value": "apple", "case": True}}, [4]),
    ({"filter": {"column": "s", "op": "not_contains", "value": "apple"}}, [0, 2, 5]),
    ({"filter": {"column": "s", "op": "starts_with", "value": "ch"}}, [5]),
    ({"filter": {"column": "s", "op": "ends_with", "value": "PIE"}}, [4]),
    ({"filter": {"column": "s", "op": "ends_with", "value": "PIE", "case": True}}, []),
    ({"filter": {"column": "s", "op": "regex", "value": "^a"}}, [3, 4]),
    ({"filter": {"column": "s", "op": "regex", "value": "^a", "case": True}}, [4]),
    ({"filter": {"column": "s", "op": "empty"}}, [2]),
    ({"filter": {"column": "s", "op": "not_empty"}}, [0, 3, 4, 5]),
    ({"filter": {"column": ODD, "op": "eq", "value": "x y"}}, [3]),
    ({"filter": {"column": ODD, "op": "contains", "value": "'"}}, [4]),
    ({"filter": {"column": "b", "op": "is_true"}}, [0, 3, 5]),
    ({"filter": {"column": "b", "op": "is_false"}}, [1, 4]),
    ({"filter": {"column": "b", "op": "ne", "value": "true"}}, [1, 4]),
    ({"filter": {"column": "b", "op": "contains", "value": "TRU"}}, [0, 3, 5]),
    ({"filter": {"column": "d", "op": "between", "value": ["2024-01-01", "2024-01-31"]}},
     [0, 1, 5]),
    ({"filter": {"column": "d", "op": "lt", "value": "2024-01-01"}}, [4]),
    ({"filter": {"column": "d", "op": "starts_with", "value": "2024-01"}}, [0, 1, 5]),
    ({"filter": {"column": "ts", "op": "ge", "value": "2024-01-02T08:30:00"}}, [0, 3, 5]),
    ({"filter": {"column": "ts", "op": "in", "value": ["2024-01-01T00:00:00"]}}, [2]),
    ({"filter": {"column": "i", "op": "in", "value": [1, 5]}}, [1, 4]),
    ({"filter": {"column": "i", "op": "not_in", "value": [1, 5]}}, [0, 3, 5]),
    ({"filter": {"column": "i", "op": "not_between", "value": [2, 4]}}, [1, 4]),
    ({"filter": {"column": "i", "op": "contains", "value": "5"}}, [4]),
    ({"filter": {"column": "f", "op": "contains", "value": ".25"}}, [4]),
    ({"filter": {"or": [{"column": "f", "op": "isnull"}, {"column": "s", "op": "eq",
                                                         "value": "b"}]}}, [0, 1, 2]),
    ({"filter": {"and": [{"column": "b", "op": "is_true"},
                         {"or": [{"column": "i", "op": "gt", "value": 3},
                                 {"column": "s", "op": "eq", "value": "b"}]}]},
      "sort": [{"column": "i"}]}, [0, 5]),
]


@pytest.mark.parametrize(("view", "expected"), ROWS, ids=[str(i) for i in range(len(ROWS))])
def test_rows_keep_and_order_what_the_view_says(cases: Any, view: dict[str, Any],
                                                expected: list[int]) -> None:
    reply = _rows(cases, view)
    assert _ids(reply) == expected
    got = reply["rows"]
    assert got["total_rows"] == 6
    assert got["filtered_rows"] == (None if "filter" not in view else len(expected))
    assert got["engine"]["name"] == "ibis"
    assert got["engine"]["title"] == "Ibis (duckdb)"


def test_a_window_is_its_rows_of_the_view(cases: Any) -> None:
    reply = entry.dispatch({"op": "rows", "name": "t", "limit": 2, "offset": 1,
                            "view": {"sort": [{"column": "f", "desc": True}]}}, {"t": cases})
    rows = reply["rows"]
    assert rows["index"] == ["1", "2"]
    assert [c["name"] for c in rows["columns"]] == list(CASES)
    assert rows["rows"][0][:3] == ["0", "3", "1.5"]
    assert rows["rows"][1][6:] == ["2023-12-31", "2023-12-31 12:00:00"]


COUNTS = [
    ({}, 6),
    ({"filter": {"column": "f", "op": "isnull"}}, 2),
    ({"filter": {"column": "s", "op": "contains", "value": "p"}}, 2),
    ({"filter": {"column": "d", "op": "notnull"}}, 5),
]


@pytest.mark.parametrize(("view", "expected"), COUNTS)
def test_count_counts_in_the_engine(cases: Any, view: dict[str, Any], expected: int) -> None:
    reply = entry.dispatch({"op": "count", "name": "t", "view": view}, {"t": cases})
    assert reply["count"]["rows"] == expected
    assert reply["count"]["filtered"] is ("filter" in view)


# --- refusals ------------------------------------------------------------------------------

REFUSED = [
    ({"filter": {"column": "nope", "op": "eq", "value": 1}}, "bad_request", "nope"),
    ({"sort": [{"column": "nope"}]}, "bad_request", "nope"),
    ({"filter": {"column": "f", "op": "eq", "value": "abc"}}, "bad_request", "a number"),
    ({"filter": {"column": "i", "op": "empty"}}, "bad_request", "text columns"),
    ({"filter": {"column": "s", "op": "is_true"}}, "bad_request", "boolean columns"),
    ({"filter": {"column": "s", "op": "regex", "value": "("}}, "unprocessable", "t (Table)"),
]


@pytest.mark.parametrize(("view", "kind", "said"), REFUSED)
def test_a_bad_view_is_a_400_and_an_engine_error_a_422(cases: Any, view: dict[str, Any],
                                                       kind: str, said: str) -> None:
    reply = _rows(cases, view)
    assert reply.get(kind) is True, reply
    assert said in reply["error"]


def test_an_expression_the_engine_cannot_run_is_a_422() -> None:
    unbound = ibis.table({"a": "int64"}, name="nowhere")
    reply = _rows(unbound, {})
    assert reply["unprocessable"] is True
    assert "unbound" in reply["error"]


# --- profiles ------------------------------------------------------------------------------


def _profile(table: Any, view: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = entry.dispatch({"op": "profile", "name": "t", "view": view or {}}, {"t": table})
    assert "profile" in reply, reply
    return {c["name"]: c for c in reply["profile"]["columns"]}


PROFILES = [
    ("f", {"family": "number", "count": 4, "null_count": 2, "min": -2.0, "max": 3.0,
           "mean": 0.6875, "error": None}),
    ("i", {"family": "number", "count": 5, "null_count": 1, "min": 1, "max": 5, "mean": 3.0}),
    ("s", {"family": "string", "count": 5, "null_count": 1, "empty": 1, "distinct": 5}),
    (ODD, {"family": "string", "count": 5, "null_count": 1, "empty": 0}),
    ("b", {"family": "boolean", "count": 5, "null_count": 1, "true": 3, "false": 2,
           "approximate": False}),
    ("d", {"family": "datetime", "count": 5, "null_count": 1, "min": "2023-12-31",
           "max": "2024-02-29"}),
    ("ts", {"family": "datetime", "count": 5, "null_count": 1, "min": "2023-12-31T12:00:00",
            "max": "2024-02-29T23:59:59"}),
]


@pytest.mark.parametrize(("name", "expected"), PROFILES, ids=[p[0] for p in PROFILES])
def test_profile_from_the_engines_aggregates(cases: Any, name: str,
                                             expected: dict[str, Any]) -> None:
    column = _profile(cases)[name]
    for key, value in expected.items():
        assert column[key] == value, (key, column)


def test_a_number_profile_has_quantiles_and_a_histogram_of_the_finite_values(
        cases: Any) -> None:
    f = _profile(cases)["f"]
    assert f["approximate"] is True  # approx_quantile
    assert f["std"] == pytest.approx(2.1152, abs=1e-3)
    assert -2.0 <= f["median"] <= 3.0
    assert f["histogram"]["edges"][0] == -2.0 and f["histogram"]["edges"][-1] == 3.0
    assert sum(f["histogram"]["counts"]) == 4
    assert len(f["histogram"]["counts"]) <= 50


def test_a_string_profile_has_its_top_values(cases: Any) -> None:
    s = _profile(cases)["s"]
    assert sorted(e["value"] for e in s["top"]) == ["", "Apple", "Cherry", "apple pie", "b"]
    assert s["other"] == 0


def test_a_profile_is_of_the_views_rows(cases: Any) -> None:
    view = {"filter": {"column": "b", "op": "is_true"}, "sort": [{"column": "f"}]}
    profile = _profile(cases, view)
    assert profile["f"]["count"] == 3 and profile["f"]["null_count"] == 0
    assert profile["b"]["true"] == 3 and profile["b"]["false"] == 0


def test_a_profile_of_the_first_rows_is_the_bounded_fallback(cases: Any) -> None:
    with guard.session(10_000, 30_000) as session:
        table = IbisTable(cases, session)
        columns = ViewColumns(table, View(), table.columns_total())
        entry_ = table.profile_column(View(), 2, 5, 3, 10_000, new_texts(100), columns)
    assert entry_["count"] + entry_["null_count"] == 3


# --- code ----------------------------------------------------------------------------------

CODE = [
    ({}, None, "t_view = t\n"),
    ({"sort": [{"column": "f", "desc": True}, {"column": "s"}]}, None,
     't_view = (\n    t\n    .order_by(t["f"].isnan().ifelse(None, t["f"]).desc(), t["s"])\n)\n'),
    ({"filter": {"column": "s", "op": "contains", "value": "App"}}, [0, 4],
     't_view = (\n    t\n    .filter(t["s"].lower().contains("app"))\n'
     "    .select(\"id\", 'it\\'s a \"name\"')\n)\n"),
    ({"filter": {"column": "d", "op": "ge", "value": "2024-01-02"}}, None,
     'import datetime\nt_view = (\n    t\n'
     '    .filter(t["d"] >= datetime.date(2024, 1, 2))\n)\n'),
    ({"filter": {"column": "f", "op": "isnull"}}, None,
     't_view = (\n    t\n    .filter(t["f"].isnull() | t["f"].isnan())\n)\n'),
]


@pytest.mark.parametrize(("view", "columns", "expected"), CODE)
def test_code_is_ibis_and_keeps_the_rows_shown(cases: Any, view: dict[str, Any],
                                               columns: list[int] | None,
                                               expected: str) -> None:
    reply = entry.dispatch({"op": "code", "name": "t", "view": view, "columns": columns},
                           {"t": cases})
    code = reply["code"]
    assert code["syntax"] == "ibis"
    assert code["code"] == expected
    ns: dict[str, Any] = {"t": cases, "ibis": ibis}
    exec(code["code"], ns)
    shown = _rows(cases, view, columns=None)["rows"]
    kept = ns["t_view"].to_pyarrow()
    assert kept.num_rows == len(shown["rows"])


def test_a_long_filter_is_written_one_condition_a_line(cases: Any) -> None:
    view = {"filter": {"and": [{"column": "s", "op": "contains", "value": "apple"},
                               {"column": "f", "op": "gt", "value": 0},
                               {"column": "b", "op": "is_true"}]}}
    code = entry.dispatch({"op": "code", "name": "t", "view": view}, {"t": cases})["code"]
    assert code["code"] == (
        "t_view = (\n    t\n    .filter(\n"
        '        t["s"].lower().contains("apple")\n'
        '        & (~t["f"].isnan() & (t["f"] > 0.0))\n'
        '        & (t["b"] == True)\n'
        "    )\n)\n")


def test_code_in_another_syntax_is_refused(cases: Any) -> None:
    reply = entry.dispatch({"op": "code", "name": "t", "syntax": "polars"}, {"t": cases})
    assert reply["bad_request"] is True
    assert "ibis" in reply["error"]


# --- the list and the detail: nothing computed -------------------------------------------


def test_detail_and_list_read_the_plan(cases: Any) -> None:
    detail = entry.dispatch({"op": "detail", "name": "t"}, {"t": cases})["variable"]
    engine = detail["engine"]
    assert engine["name"] == "ibis" and engine["title"] == "Ibis (duckdb)"
    assert engine["location"] == "duckdb: in memory · table cases"
    assert engine["plan"].startswith("SELECT") and '"cases"' in engine["plan"]
    assert [c["name"] for c in detail["columns"]] == list(CASES)
    assert detail["columns"][2]["dtype"] == "float64"
    listed = summarize("t", cases)
    assert listed["kind"] == "dataframe"
    assert listed["preview"].startswith("lazy · Ibis (duckdb) · not counted · 8 columns")


def test_a_memtable_runs_on_the_default_backend() -> None:
    table = ibis.memtable(_arrow(CASES))
    assert _ids(_rows(table, {"sort": [{"column": "f"}, {"column": "id"}]})) == [
        3, 4, 0, 5, 1, 2]
    detail = entry.dispatch({"op": "detail", "name": "t"}, {"t": table})["variable"]
    assert detail["engine"]["location"] == "in memory (a memtable)"


# --- cancelling ----------------------------------------------------------------------------


def test_a_long_query_is_interrupted_in_duckdb_near_its_guard() -> None:
    con = ibis.duckdb.connect()
    try:
        con.con.execute("CREATE VIEW big AS SELECT range AS i, hash(range) % 1000003 AS r "
                        "FROM range(1000000000) WHERE hash(range) % 7 <> 0")  # no quick count
        big = con.table("big")
        view = {"sort": [{"column": "r", "desc": True}]}
        for _ in range(2):
            started = time.perf_counter()
            reply = entry.dispatch({"op": "rows", "name": "t", "limit": 3, "offset": 0,
                                    "sort_ms": 500, "view": view}, {"t": big})
            spent = time.perf_counter() - started
            assert reply.get("unprocessable") is True, reply
            assert "interrupted in Ibis (duckdb)" in reply["error"]
            assert "it needs more time" in reply["error"]
            assert spent < 5.0  # a hang guard: 10x the guard
        started = time.perf_counter()
        reply = entry.dispatch({"op": "rows", "name": "t", "limit": 3, "offset": 0,
                                "count_ms": 300}, {"t": big})
        assert time.perf_counter() - started < 5.0  # a hang guard
        assert len(reply["rows"]["rows"]) == 3
        assert reply["rows"]["total_rows"] is None  # its count cancelled, not awaited
        assert con.con.execute("SELECT 42").fetchall() == [(42,)]  # not busy
        reply = entry.dispatch({"op": "profile", "name": "t", "column_ms": 200,
                                "sample_rows": 1_000}, {"t": big})
        profile = reply["profile"]
        assert profile["sampled"] is True and profile["sample_rows"] == 1_000
        assert [c["count"] for c in profile["columns"]] == [1_000, 1_000]
        assert [c["error"] for c in profile["columns"]] == [None, None]
    finally:
        con.disconnect()


# --- the property test: random filters and sorts --------------------------------------------

SEED = 20_240_229
ROWS_N = 60
CASES_N = 100
WORDS = ["apple", "Apple pie", "banana", "", "cherry", "BANANA split", "a.c", "x_y", "pie"]
BASE_DAY = D(2024, 1, 1)
BASE_TIME = T(2024, 1, 1)


def _random_data(rng: random.Random) -> dict[str, list[Any]]:
    def maybe(make: Any, missing: float = 0.15) -> Any:
        return None if rng.random() < missing else make()

    def float_value() -> Any:
        x = rng.random()
        if x < 0.1:
            return None
        if x < 0.2:
            return NAN
        return rng.randint(-8, 8) / 4

    return {
        "id": list(range(ROWS_N)),
        "i": [maybe(lambda: rng.randint(-5, 5)) for _ in range(ROWS_N)],
        "f": [float_value() for _ in range(ROWS_N)],
        "s": [maybe(lambda: rng.choice(WORDS)) for _ in range(ROWS_N)],
        ODD: [maybe(lambda: rng.choice(WORDS)) for _ in range(ROWS_N)],
        "b": [maybe(lambda: rng.random() < 0.5) for _ in range(ROWS_N)],
        "d": [maybe(lambda: BASE_DAY + datetime.timedelta(days=rng.randint(0, 20)))
              for _ in range(ROWS_N)],
        "ts": [maybe(lambda: BASE_TIME + datetime.timedelta(hours=rng.randint(0, 60)))
               for _ in range(ROWS_N)],
    }


KINDS = {"id": "int", "i": "int", "f": "float", "s": "str", ODD: "str", "b": "bool",
         "d": "date", "ts": "time"}
TEXT_OPS = ("contains", "not_contains", "starts_with", "ends_with", "regex")
ORDER_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "between", "not_between", "in", "not_in")
OPS = {
    "int": ORDER_OPS + TEXT_OPS + ("isnull", "notnull"),
    "float": ORDER_OPS + TEXT_OPS + ("isnull", "notnull"),
    "str": ORDER_OPS + TEXT_OPS + ("isnull", "notnull", "empty", "not_empty"),
    "bool": ("eq", "ne", "in", "not_in", "is_true", "is_false", "isnull", "notnull",
             "contains", "starts_with"),
    "date": ORDER_OPS + TEXT_OPS + ("isnull", "notnull"),
    "time": ORDER_OPS + TEXT_OPS + ("isnull", "notnull"),
}
PATTERNS = ["^a", "e$", "an", "a.c", "[0-9]", "^2024-01-0", "5$", "\\.25", "^-", "^$", "tr"]
PIECES = ["a", "an", "pie", "P", "1", "0", "2024-01-1", ".5", "-", "e", "tru", "x_"]


def _random_value(rng: random.Random, kind: str) -> Any:
    if kind == "int":
        return rng.randint(-6, 6)
    if kind == "float":
        return rng.randint(-9, 9) / 4
    if kind == "str":
        return rng.choice(WORDS)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "date":
        return (BASE_DAY + datetime.timedelta(days=rng.randint(-1, 21))).isoformat()
    return (BASE_TIME + datetime.timedelta(hours=rng.randint(-1, 61))).isoformat()


def _random_condition(rng: random.Random) -> dict[str, Any]:
    column = rng.choice(list(KINDS))
    kind = KINDS[column]
    op = rng.choice(OPS[kind])
    condition: dict[str, Any] = {"column": column, "op": op}
    if op in ("between", "not_between"):
        condition["value"] = sorted([_random_value(rng, kind), _random_value(rng, kind)])
        if rng.random() < 0.2:
            condition["value"].reverse()
    elif op in ("in", "not_in"):
        condition["value"] = [_random_value(rng, kind) for _ in range(rng.randint(1, 3))]
    elif op == "regex":
        condition["value"] = rng.choice(PATTERNS)
    elif op in TEXT_OPS:
        condition["value"] = rng.choice(PIECES)
    elif op in ORDER_OPS:
        condition["value"] = _random_value(rng, kind)
    if op in TEXT_OPS:
        condition["case"] = rng.random() < 0.5
    return condition


def _random_filter(rng: random.Random, depth: int) -> dict[str, Any]:
    if depth >= 3 or rng.random() < 0.45:
        return _random_condition(rng)
    return {rng.choice(["and", "or"]): [_random_filter(rng, depth + 1)
                                        for _ in range(rng.randint(1, 3))]}


def _random_view(rng: random.Random) -> dict[str, Any]:
    view: dict[str, Any] = {}
    if rng.random() < 0.85:
        view["filter"] = _random_filter(rng, 1)
    keys = rng.sample([c for c in KINDS if c != "id"], rng.randint(0, 2))
    view["sort"] = [{"column": c, "desc": rng.random() < 0.5} for c in keys]
    return view


# A plain-Python evaluation of the same rules, written apart from the probe.


def _missing(x: Any) -> bool:
    return x is None or (type(x) is float and math.isnan(x))


def _typed(kind: str, value: Any) -> Any:
    if kind == "float":
        return float(value)
    if kind == "date":
        return D.fromisoformat(value)
    if kind == "time":
        return T.fromisoformat(value)
    return value


def _text(x: Any) -> str:
    """A value as DuckDB casts it to text."""
    if type(x) is bool:
        return "true" if x else "false"
    return str(x)


def _holds(condition: dict[str, Any], x: Any) -> bool:
    kind, op, value = KINDS[condition["column"]], condition["op"], condition.get("value")
    if op == "isnull":
        return _missing(x)
    if _missing(x):
        return False
    if op == "notnull":
        return True
    if op in TEXT_OPS:
        text, case = _text(x), condition["case"]
        if op == "regex":
            return re.search(value, text, 0 if case else re.IGNORECASE) is not None
        if not case:
            text, value = text.lower(), value.lower()
        found = {"contains": value in text, "not_contains": value not in text,
                 "starts_with": text.startswith(value), "ends_with": text.endswith(value)}
        return found[op]
    if op in ("empty", "not_empty"):
        return (x == "") is (op == "empty")
    if op in ("is_true", "is_false"):
        return x is (op == "is_true")
    if op in ("between", "not_between"):
        low, high = (_typed(kind, v) for v in value)
        return (low <= x <= high) is (op == "between")
    if op in ("in", "not_in"):
        return any(x == _typed(kind, v) for v in value) is (op == "in")
    v = _typed(kind, value)
    return {"eq": x == v, "ne": x != v, "lt": x < v, "le": x <= v, "gt": x > v,
            "ge": x >= v}[op]


def _keeps(node: dict[str, Any], row: dict[str, Any]) -> bool:
    if "and" in node:
        return all(_keeps(n, row) for n in node["and"])
    if "or" in node:
        return any(_keeps(n, row) for n in node["or"])
    return _holds(node, row[node["column"]])


def _expected(data: dict[str, list[Any]], view: dict[str, Any]) -> list[list[Any]]:
    names = list(data)
    rows = [dict(zip(names, values, strict=True))
            for values in zip(*data.values(), strict=True)]
    if view.get("filter"):
        rows = [r for r in rows if _keeps(view["filter"], r)]
    for key in reversed(view.get("sort", [])):  # stable passes, last key first
        c = key["column"]
        present = sorted((r for r in rows if not _missing(r[c])), key=lambda r: r[c],
                         reverse=key["desc"])
        rows = present + [r for r in rows if _missing(r[c])]
    return [[r[n] for n in names] for r in rows]


def _same(x: Any) -> Any:
    return "<missing>" if _missing(x) else x


def _assert_same_rows(got: list[list[Any]], expected: list[list[Any]],
                      sort_positions: list[int], context: Any) -> None:
    """The same rows (as multisets), in the same order of their sort keys (ties in any
    order)."""
    def key(row: list[Any]) -> tuple[Any, ...]:
        return tuple(_same(row[p]) for p in sort_positions)

    assert [key(r) for r in got] == [key(r) for r in expected], context
    assert (collections.Counter(tuple(map(_same, r)) for r in got)
            == collections.Counter(tuple(map(_same, r)) for r in expected)), context


def test_random_views_keep_the_rows_python_keeps_and_the_code_keeps_them_too(
        con: Any) -> None:
    rng = random.Random(SEED)
    data = _random_data(rng)
    con.con.register("random_cases", _arrow(data))
    table = con.table("random_cases")
    names = list(data)
    for case in range(CASES_N):
        view_json = _random_view(rng)
        view = View.from_json(view_json)
        context = (case, view_json)
        expected = _expected(data, view_json)
        sort_positions = [names.index(k["column"]) for k in view_json["sort"]]
        with guard.session(20_000, 60_000) as session:
            ibis_table = IbisTable(table, session)
            columns = ViewColumns(ibis_table, view, len(names))
            got = ibis_table.window(view, 0, 1_000, list(range(len(names))), 20_000, columns)
            counted = ibis_table.count(view, 20_000, columns)
            code = ibis_table.code(view, None, "ibis", "t", columns)
        _assert_same_rows(got, expected, sort_positions, context)
        assert counted == len(expected), context
        ns: dict[str, Any] = {"t": table, "ibis": ibis}
        exec(code, ns)
        arrow = ns["t_view"].to_pyarrow()
        from_code = [list(r.values()) for r in arrow.to_pylist()]
        _assert_same_rows(from_code, got, sort_positions, (context, code))
