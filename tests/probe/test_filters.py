"""Filters and sorts of the ``rows`` op, and the ``code`` op, as case tables (no server).

Every operator of the contract on every dtype family (int, float with NaN, nullable
Int64, text as str and object, category, ordered category, bool, nullable boolean,
datetime with and without a time zone; polars' too; numpy arrays; lists of records, with
and without pandas): the rows the probe keeps are checked against the same condition
computed directly, value by value (a missing value — None, NaN, NaT, pd.NA — matches
only ``isnull``; text operators read the column's text as its library writes it).
Then the code round trip: the code the ``code`` op writes, run on the value, binds
``<name>_view`` to exactly the explorer's rows — same index, order and cells, every row.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.protocol import (
    FILTER_OPS,
    MAX_FILTER_CONDITIONS,
    MAX_FILTER_DEPTH,
    BadRequest,
    View,
    check,
)

from ..view_utils import condition

N = 8
DATES = ["2024-01-01", None, "2024-01-03", "2024-01-02", "2024-01-05", "2024-01-03", "2023-12-31",
         "2024-01-04 12:00"]
FRAME = pd.DataFrame({
    "i": [3, 1, 2, 2, 5, 0, 4, -1],
    "f": [1.5, np.nan, 2.0, -1.0, 2.0, 10.25, 0.0, np.nan],
    "n": pd.array([1, None, 3, 2, None, 2, 0, 5], dtype="Int64"),
    "s": ["north", "South", None, "", "east", "NORTH", "n.rth", "a\nb"],
    "o": pd.Series(["a", None, "b", "A", "", "ab", "c", None], dtype=object),
    "c": pd.Categorical(["x", "y", None, "x", "z", "y", "x", "z"]),
    "oc": pd.Categorical(["low", "high", "mid", None, "low", "mid", "high", "low"],
                         categories=["low", "mid", "high"], ordered=True),
    "b": [True, False, True, True, False, False, True, False],
    "nb": pd.array([True, None, False, True, None, False, True, False], dtype="boolean"),
    "d": pd.to_datetime(DATES, format="ISO8601"),
    "dz": pd.to_datetime(DATES, format="ISO8601").tz_localize("Europe/Paris"),
})
TEXT_COLUMNS = {"s", "o", "c"}
PARIS = "Europe/Paris"


def ts(text: str, tz: str | None = None) -> pd.Timestamp:
    return pd.Timestamp(text, tz=tz)


def rank(x: str) -> int:
    return ["low", "mid", "high"].index(x)


# (id, column, op, value, case, the condition on a present value — or the words of a 400)
Case = tuple[str, str, str, Any, bool | None, Any]
PANDAS_CASES: list[Case] = [
    # int64
    ("i-eq", "i", "eq", 2, None, lambda x: x == 2),
    ("i-eq-text", "i", "eq", " 2", None, lambda x: x == 2),
    ("i-ne", "i", "ne", 2, None, lambda x: x != 2),
    ("i-lt", "i", "lt", "2", None, lambda x: x < 2),
    ("i-le", "i", "le", 2, None, lambda x: x <= 2),
    ("i-gt-float", "i", "gt", 2.5, None, lambda x: x > 2.5),
    ("i-ge", "i", "ge", "3", None, lambda x: x >= 3),
    ("i-between", "i", "between", [1, "3"], None, lambda x: 1 <= x <= 3),
    ("i-not-between", "i", "not_between", [1, 3], None, lambda x: not 1 <= x <= 3),
    ("i-in", "i", "in", [2, "5", 9], None, lambda x: x in (2, 5, 9)),
    ("i-not-in", "i", "not_in", [2], None, lambda x: x != 2),
    ("i-contains", "i", "contains", "1", None, lambda t: "1" in t),
    ("i-starts-with", "i", "starts_with", "-", None, lambda t: t.startswith("-")),
    ("i-regex", "i", "regex", "^[0-3]$", None, lambda t: re.search("^[0-3]$", t) is not None),
    ("i-isnull", "i", "isnull", None, None, lambda x: False),
    ("i-notnull", "i", "notnull", None, None, lambda x: True),
    ("i-misfit", "i", "eq", "two", None, "filter value 'two' does not fit column i (int64)"),
    ("i-bool-misfit", "i", "eq", True, None, "does not fit column i (int64)"),
    ("i-empty", "i", "empty", None, None, "filter empty does not apply to column i (int64)"),
    ("i-is-true", "i", "is_true", None, None, "it applies to boolean columns"),
    # float64 with NaN
    ("f-eq", "f", "eq", 2, None, lambda x: x == 2.0),
    ("f-ne", "f", "ne", "2", None, lambda x: x != 2.0),
    ("f-lt", "f", "lt", 1.5, None, lambda x: x < 1.5),
    ("f-ge", "f", "ge", "0", None, lambda x: x >= 0),
    ("f-between", "f", "between", [0, 2], None, lambda x: 0 <= x <= 2),
    ("f-not-between", "f", "not_between", [0, 2], None, lambda x: not 0 <= x <= 2),
    ("f-in", "f", "in", [2, 10.25], None, lambda x: x in (2.0, 10.25)),
    ("f-not-in", "f", "not_in", ["2"], None, lambda x: x != 2.0),
    ("f-not-contains", "f", "not_contains", ".0", None, lambda t: ".0" not in t),
    ("f-isnull", "f", "isnull", None, None, lambda x: False),
    ("f-notnull", "f", "notnull", None, None, lambda x: True),
    ("f-nan-is-no-bound", "f", "lt", "nan", None, "does not fit column f (float64)"),
    # nullable Int64
    ("n-eq", "n", "eq", 2, None, lambda x: x == 2),
    ("n-ne", "n", "ne", 2, None, lambda x: x != 2),
    ("n-lt", "n", "lt", 3, None, lambda x: x < 3),
    ("n-between", "n", "between", [1, 3], None, lambda x: 1 <= x <= 3),
    ("n-not-between", "n", "not_between", [1, 3], None, lambda x: not 1 <= x <= 3),
    ("n-in", "n", "in", [0, 5], None, lambda x: x in (0, 5)),
    ("n-not-in", "n", "not_in", [0, 5], None, lambda x: x not in (0, 5)),
    ("n-isnull", "n", "isnull", None, None, lambda x: False),
    ("n-notnull", "n", "notnull", None, None, lambda x: True),
    # text (pandas' str dtype)
    ("s-eq", "s", "eq", "north", None, lambda x: x == "north"),
    ("s-eq-number-as-text", "s", "eq", 5, None, lambda x: x == "5"),
    ("s-ne", "s", "ne", "north", None, lambda x: x != "north"),
    ("s-lt", "s", "lt", "m", None, lambda x: x < "m"),
    ("s-ge", "s", "ge", "n", None, lambda x: x >= "n"),
    ("s-between", "s", "between", ["a", "n"], None, lambda x: "a" <= x <= "n"),
    ("s-in", "s", "in", ["north", "east"], None, lambda x: x in ("north", "east")),
    ("s-not-in", "s", "not_in", ["north", "east"], None, lambda x: x not in ("north", "east")),
    ("s-contains", "s", "contains", "NOR", None, lambda t: "nor" in t.lower()),
    ("s-contains-case", "s", "contains", "NOR", True, lambda t: "NOR" in t),
    ("s-contains-dot-is-text", "s", "contains", ".", None, lambda t: "." in t),
    ("s-not-contains", "s", "not_contains", "or", None, lambda t: "or" not in t.lower()),
    ("s-starts-with", "s", "starts_with", "n", None, lambda t: t.lower().startswith("n")),
    ("s-starts-with-case", "s", "starts_with", "N", True, lambda t: t.startswith("N")),
    ("s-ends-with", "s", "ends_with", "TH", None, lambda t: t.lower().endswith("th")),
    ("s-regex", "s", "regex", "^n.r", None, lambda t: re.search("^n.r", t, re.I) is not None),
    ("s-regex-case", "s", "regex", r"n\.r", True, lambda t: re.search(r"n\.r", t) is not None),
    ("s-regex-newline", "s", "regex", "a$", None, lambda t: re.search("a$", t, re.I) is not None),
    ("s-bad-regex", "s", "regex", "(", None, "filter regex '(' is not a valid Python regular"),
    ("s-nested-repeat", "s", "regex", r"(\w+\s?)*$", None,
     "repeats a repetition (like (a+)+), which Python's re can take exponential time on"),
    ("s-empty", "s", "empty", None, None, lambda x: x == ""),
    ("s-not-empty", "s", "not_empty", None, None, lambda x: x != ""),
    ("s-isnull", "s", "isnull", None, None, lambda x: False),
    ("s-is-false", "s", "is_false", None, None, "filter is_false does not apply to column s (str)"),
    # text in an object column
    ("o-eq", "o", "eq", "a", None, lambda x: x == "a"),
    ("o-ne", "o", "ne", "a", None, lambda x: x != "a"),
    ("o-contains", "o", "contains", "a", None, lambda t: "a" in t.lower()),
    ("o-contains-case", "o", "contains", "A", True, lambda t: "A" in t),
    ("o-ends-with-case", "o", "ends_with", "b", True, lambda t: t.endswith("b")),
    ("o-in", "o", "in", ["a", "b"], None, lambda x: x in ("a", "b")),
    ("o-empty", "o", "empty", None, None, lambda x: x == ""),
    ("o-not-empty", "o", "not_empty", None, None, lambda x: x != ""),
    ("o-notnull", "o", "notnull", None, None, lambda x: True),
    # category (unordered)
    ("c-eq", "c", "eq", "x", None, lambda x: x == "x"),
    ("c-eq-no-such-category", "c", "eq", "w", None, lambda x: False),
    ("c-ne", "c", "ne", "x", None, lambda x: x != "x"),
    ("c-in", "c", "in", ["x", "z"], None, lambda x: x in ("x", "z")),
    ("c-not-in", "c", "not_in", ["x"], None, lambda x: x != "x"),
    ("c-contains", "c", "contains", "Y", None, lambda t: "y" in t.lower()),
    ("c-isnull", "c", "isnull", None, None, lambda x: False),
    ("c-empty", "c", "empty", None, None, lambda x: x == ""),
    ("c-unordered", "c", "lt", "y", None, "its categories have no order"),
    # ordered category
    ("oc-lt", "oc", "lt", "high", None, lambda x: rank(x) < rank("high")),
    ("oc-ge", "oc", "ge", "mid", None, lambda x: rank(x) >= rank("mid")),
    ("oc-between", "oc", "between", ["low", "mid"], None, lambda x: rank(x) <= 1),
    ("oc-not-between", "oc", "not_between", ["mid", "high"], None, lambda x: rank(x) < 1),
    ("oc-eq", "oc", "eq", "mid", None, lambda x: x == "mid"),
    ("oc-not-a-category", "oc", "lt", "huge", None, "one of its categories expected"),
    # bool
    ("b-eq", "b", "eq", True, None, lambda x: x is True),
    ("b-eq-text", "b", "eq", "FALSE", None, lambda x: x is False),
    ("b-ne", "b", "ne", "true", None, lambda x: x is not True),
    ("b-lt", "b", "lt", "true", None, lambda x: x < True),
    ("b-is-true", "b", "is_true", None, None, lambda x: x is True),
    ("b-is-false", "b", "is_false", None, None, lambda x: x is False),
    ("b-contains", "b", "contains", "ru", None, lambda t: "ru" in t.lower()),
    ("b-misfit", "b", "eq", "yes", None, "filter value 'yes' does not fit column b (bool)"),
    # nullable boolean
    ("nb-is-true", "nb", "is_true", None, None, lambda x: x is True),
    ("nb-is-false", "nb", "is_false", None, None, lambda x: x is False),
    ("nb-ne", "nb", "ne", True, None, lambda x: x is not True),
    ("nb-isnull", "nb", "isnull", None, None, lambda x: False),
    # datetime
    ("d-eq", "d", "eq", "2024-01-03", None, lambda x: x == ts("2024-01-03")),
    ("d-ne", "d", "ne", "2024-01-03", None, lambda x: x != ts("2024-01-03")),
    ("d-lt", "d", "lt", "2024-01-03", None, lambda x: x < ts("2024-01-03")),
    ("d-ge-time", "d", "ge", "2024-01-04T06:00", None, lambda x: x >= ts("2024-01-04 06:00")),
    ("d-between", "d", "between", ["2024-01-02", "2024-01-04"], None,
     lambda x: ts("2024-01-02") <= x <= ts("2024-01-04")),
    ("d-not-between", "d", "not_between", ["2024-01-02", "2024-01-04"], None,
     lambda x: not ts("2024-01-02") <= x <= ts("2024-01-04")),
    ("d-in", "d", "in", ["2024-01-03", "2023-12-31"], None,
     lambda x: x in (ts("2024-01-03"), ts("2023-12-31"))),
    ("d-not-in", "d", "not_in", ["2024-01-03"], None, lambda x: x != ts("2024-01-03")),
    ("d-contains", "d", "contains", "01-0", None, lambda t: "01-0" in t),
    ("d-isnull", "d", "isnull", None, None, lambda x: False),
    ("d-zone-on-naive", "d", "eq", "2024-01-03T00:00+01:00", None,
     "does not fit column d (datetime64[us]): a time without a time zone expected"),
    ("d-misfit", "d", "lt", "soon", None, "filter value 'soon' does not fit column d"),
    ("d-number-misfit", "d", "lt", 5, None, "filter value 5 does not fit column d"),
    # datetime with a time zone
    ("dz-ge-local", "dz", "ge", "2024-01-03", None, lambda x: x >= ts("2024-01-03", PARIS)),
    ("dz-lt-utc", "dz", "lt", "2024-01-02T23:00:00Z", None,
     lambda x: x < ts("2024-01-03", PARIS)),
    ("dz-between", "dz", "between", ["2024-01-01", "2024-01-03"], None,
     lambda x: ts("2024-01-01", PARIS) <= x <= ts("2024-01-03", PARIS)),
    ("dz-in", "dz", "in", ["2024-01-03", "2024-01-02T23:00:00+00:00"], None,
     lambda x: x == ts("2024-01-03", PARIS)),
    ("dz-not-in", "dz", "not_in", ["2024-01-03"], None, lambda x: x != ts("2024-01-03", PARIS)),
    ("dz-eq", "dz", "eq", "2024-01-02", None, lambda x: x == ts("2024-01-02", PARIS)),
    ("dz-notnull", "dz", "notnull", None, None, lambda x: True),
    # positions name columns too
    ("by-position", 0, "gt", 2, None, lambda x: x > 2),
]


def missing(x: Any) -> bool:
    return x is None or x is pd.NA or x is pd.NaT or (isinstance(x, float) and math.isnan(x))


def expected_rows(values: list[Any], texts: list[Any], op: str, test: Callable[[Any], bool]) -> list[int]:
    """The positions where the condition holds, computed value by value."""
    out = []
    for i, (x, t) in enumerate(zip(values, texts, strict=True)):
        if op == "isnull":
            keep = missing(x)
        elif missing(x):
            keep = False  # every other condition, negated ones too, is false on a missing value
        else:
            keep = test(t if op in TEXT_OPS else x)
        if keep:
            out.append(i)
    return out


TEXT_OPS = ("contains", "not_contains", "starts_with", "ends_with", "regex")


def rows(value: Any, view: dict[str, Any] | None = None, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": "rows", "name": "v", "limit": 1000, "view": view, **request},
                           {"v": value})
    return reply.get("rows", reply)


def code(value: Any, view: dict[str, Any] | None = None, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": "code", "name": "v", "view": view, **request}, {"v": value})
    return reply.get("code", reply)


def run_code(value: Any, text: str) -> Any:
    """Run generated code on ``value`` as a user would, and return ``v_view``."""
    scope: dict[str, Any] = {"v": value}
    exec(compile(text, "<generated>", "exec"), scope)
    return scope["v_view"]


def same_rows(value: Any, view: dict[str, Any] | None, columns: list[int] | None = None) -> None:
    """The code's ``v_view`` holds exactly the explorer's rows: index, order and cells."""
    extra = {} if columns is None else {"columns": columns}
    shown = rows(value, view, **extra)
    written = code(value, view, **extra)
    assert "code" in written, written
    result = run_code(value, written["code"])
    again = rows(result)  # the result read the same way: cells as the explorer writes them
    if isinstance(value, list):  # records: pandas' types (1 → 1.0 beside a None)
        assert [c["name"] for c in again["columns"]] == [c["name"] for c in shown["columns"]]
    else:
        assert again["rows"] == shown["rows"], written["code"]
    if not isinstance(value, (pl.DataFrame, pl.Series)):  # polars results have no index
        assert again["index"] == shown["index"], written["code"]
    assert again["total_rows"] == (shown["filtered_rows"] if shown["filtered_rows"] is not None
                                   else shown["total_rows"])


# --- pandas ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("column", "op", "value", "case", "want"), [c[1:] for c in PANDAS_CASES],
                         ids=[c[0] for c in PANDAS_CASES])
def test_pandas_filters(column: Any, op: str, value: Any, case: bool | None, want: Any) -> None:
    view = {"filter": condition(column, op, value, case)}
    got = rows(FRAME, view)
    if isinstance(want, str):
        assert got.get("bad_request") is True and want in got["error"], got
        return
    s = FRAME.iloc[:, column] if isinstance(column, int) else FRAME[column]
    texts = s.tolist() if s.name in TEXT_COLUMNS else s.astype(str).tolist()
    keep = expected_rows(s.tolist(), texts, op, want)
    assert got["index"] == [str(i) for i in keep], (got["index"], keep)
    assert got["filtered_rows"] == len(keep)
    assert got["filter"] == {**condition(column, op, value, case), "value": value,
                             **({"case": bool(case)} if op in TEXT_OPS else {})}
    same_rows(FRAME, view)  # the code keeps the same rows


def test_every_op_is_in_the_case_tables() -> None:
    for cases in (PANDAS_CASES, POLARS_CASES):
        assert {c[2] for c in cases} == set(FILTER_OPS)


TREES = [
    ("or-in-between", {"or": [{"column": "s", "op": "in", "value": ["north", "east"]},
                              {"column": "f", "op": "between", "value": [1, 2]}]},
     lambda r: r["s"] in ("north", "east") or (not missing(r["f"]) and 1 <= r["f"] <= 2)),
    ("and", {"and": [{"column": "i", "op": "gt", "value": 1}, {"column": "s", "op": "notnull"}]},
     lambda r: r["i"] > 1 and not missing(r["s"])),
    ("negation-keeps-no-missing", {"or": [{"column": "f", "op": "ne", "value": 2},
                                          {"column": "n", "op": "not_in", "value": [2]}]},
     lambda r: (not missing(r["f"]) and r["f"] != 2) or (not missing(r["n"]) and r["n"] != 2)),
    ("ne-or-isnull", {"or": [{"column": "f", "op": "ne", "value": 2},
                             {"column": "f", "op": "isnull"}]},
     lambda r: missing(r["f"]) or r["f"] != 2),
    ("nested", {"or": [{"and": [{"column": "b", "op": "is_true"},
                                {"column": "d", "op": "lt", "value": "2024-01-03"}]},
                       {"and": [{"column": "c", "op": "eq", "value": "z"},
                                {"or": [{"column": "f", "op": "isnull"},
                                        {"column": "s", "op": "contains", "value": "A"}]}]}]},
     lambda r: (r["b"] and not missing(r["d"]) and r["d"] < ts("2024-01-03"))
     or (r["c"] == "z" and (missing(r["f"]) or (not missing(r["s"]) and "a" in r["s"].lower())))),
    ("one-item-tree", {"and": [{"column": "o", "op": "empty"}]}, lambda r: r["o"] == ""),
]


@pytest.mark.parametrize(("tree", "want"), [t[1:] for t in TREES], ids=[t[0] for t in TREES])
def test_trees(tree: dict[str, Any], want: Callable[[dict[str, Any]], bool]) -> None:
    got = rows(FRAME, {"filter": tree})
    keep = [i for i, r in enumerate(FRAME.to_dict("records")) if want(r)]
    assert got["index"] == [str(i) for i in keep]
    assert got["filter"] == check({"op": "rows", "name": "v", "view": {"filter": tree}})[1][
        "view"].filter.to_json()
    same_rows(FRAME, {"filter": tree})
    pl_got = rows(POLARS, {"filter": tree}) if all(
        c in POLARS.columns for c in _columns(tree)) else None
    if pl_got is not None:
        assert pl_got["index"] == [str(i) for i in keep]


def _columns(node: dict[str, Any]) -> list[str]:
    if "column" in node:
        return [node["column"]]
    return [c for child in next(iter(node.values())) for c in _columns(child)]


SORTS = [
    ("one-key", [{"column": "f"}]),
    ("one-key-desc-nan-last", [{"column": "f", "desc": True}]),
    ("two-keys", [{"column": "i", "desc": True}, {"column": "f"}]),
    ("ties-stable", [{"column": "b"}]),
    ("ties-stable-desc", [{"column": "b", "desc": True}]),
    ("text-then-int", [{"column": "s"}, {"column": "i", "desc": True}]),
    ("category-order", [{"column": "oc", "desc": True}, {"column": "i"}]),
    ("nullable-and-dates", [{"column": "n"}, {"column": "d", "desc": True}]),
    ("tz-dates", [{"column": "dz", "desc": True}]),
    ("same-column-twice", [{"column": "i"}, {"column": 0, "desc": True}]),
    ("ten-keys", [{"column": c} for c in ["b", "c", "oc", "n", "i", "f", "s", "o", "d", "dz"]]),
]


@pytest.mark.parametrize("keys", [s[1] for s in SORTS], ids=[s[0] for s in SORTS])
def test_pandas_sorts_are_the_librarys_own(keys: list[dict[str, Any]]) -> None:
    got = rows(FRAME, {"sort": keys})
    by, ascending = [], []
    for key in keys:
        name = FRAME.columns[key["column"]] if isinstance(key["column"], int) else key["column"]
        if name not in by:
            by.append(name)
            ascending.append(not key.get("desc", False))
    want = FRAME.sort_values(by, ascending=ascending, kind="stable", na_position="last")
    assert got["index"] == [str(i) for i in want.index]
    assert got["sort"] == ",".join("{}:{}".format(k["column"], "desc" if k.get("desc") else "asc")
                                   for k in keys)
    first = [FRAME[by[0]][int(i)] for i in got["index"]]  # missing values last, both ways
    present = [not missing(x) for x in first]
    assert present == sorted(present, reverse=True)
    same_rows(FRAME, {"sort": keys})


def test_a_filtered_sorted_view_with_columns_round_trips() -> None:
    view = {"sort": [{"column": "s", "desc": True}, {"column": "f"}],
            "filter": {"or": [{"column": "i", "op": "ge", "value": 2},
                              {"column": "o", "op": "isnull"}]}}
    for columns in ([3, 0, 1], [10, 9], None):
        same_rows(FRAME, view, columns)
    written = code(FRAME, view, columns=[3, 0])["code"]
    assert written.endswith('v_view = v_view[["s", "i"]]\n')
    assert "kind=\"stable\", na_position=\"last\"" in written


# --- polars ----------------------------------------------------------------------------------

POLARS = pl.DataFrame({
    "i": [3, 1, 2, 2, 5, 0, 4, -1],
    "f": [1.5, float("nan"), 2.0, -1.0, 2.0, 10.25, 0.0, None],
    "s": ["north", "South", None, "", "east", "NORTH", "n.rth", "a\nb"],
    "c": pl.Series(["x", "y", None, "x", "z", "y", "x", "z"], dtype=pl.Categorical),
    "e": pl.Series(["lo", "hi", "lo", None, "hi", "lo", "hi", "lo"], dtype=pl.Enum(["lo", "hi"])),
    "b": [True, False, None, True, False, False, True, None],
    "d": pl.Series([None if d is None else pd.Timestamp(d).to_pydatetime() for d in DATES]),
    "dd": pl.Series([None if d is None else pd.Timestamp(d).date() for d in DATES]),
}).with_columns(pl.col("d").dt.replace_time_zone(PARIS).alias("dz"),
                pl.col("d").dt.cast_time_unit("ns").alias("dn"))


def dt(text: str, tz: str | None = None) -> Any:
    moment = pd.Timestamp(text, tz=tz).to_pydatetime()
    return moment


POLARS_CASES: list[Case] = [
    ("i-eq", "i", "eq", "2", None, lambda x: x == 2),
    ("i-ne", "i", "ne", 2, None, lambda x: x != 2),
    ("i-lt", "i", "lt", 2, None, lambda x: x < 2),
    ("i-le", "i", "le", 2, None, lambda x: x <= 2),
    ("i-gt", "i", "gt", 2.5, None, lambda x: x > 2.5),
    ("i-ge", "i", "ge", 3, None, lambda x: x >= 3),
    ("i-between", "i", "between", [1, 3], None, lambda x: 1 <= x <= 3),
    ("i-not-between", "i", "not_between", [1, 3], None, lambda x: not 1 <= x <= 3),
    ("i-in", "i", "in", [2, 5], None, lambda x: x in (2, 5)),
    ("i-not-in", "i", "not_in", [2, 5], None, lambda x: x not in (2, 5)),
    ("i-contains", "i", "contains", "1", None, lambda t: "1" in t),
    ("i-misfit", "i", "eq", "x", None, "filter value 'x' does not fit column i (Int64)"),
    ("f-ne-nan-is-missing", "f", "ne", 2, None, lambda x: x != 2.0),
    ("f-gt-nan-is-missing", "f", "gt", 1, None, lambda x: x > 1),
    ("f-not-in", "f", "not_in", [2], None, lambda x: x != 2.0),
    ("f-not-between", "f", "not_between", [0, 2], None, lambda x: not 0 <= x <= 2),
    ("f-isnull-nan-and-null", "f", "isnull", None, None, lambda x: False),
    ("f-notnull", "f", "notnull", None, None, lambda x: True),
    ("s-eq", "s", "eq", "north", None, lambda x: x == "north"),
    ("s-ne", "s", "ne", "north", None, lambda x: x != "north"),
    ("s-contains", "s", "contains", "NOR", None, lambda t: "nor" in t.lower()),
    ("s-contains-case", "s", "contains", "NOR", True, lambda t: "NOR" in t),
    ("s-contains-dot-is-text", "s", "contains", ".", None, lambda t: "." in t),
    ("s-not-contains", "s", "not_contains", "or", None, lambda t: "or" not in t.lower()),
    ("s-starts-with", "s", "starts_with", "N", None, lambda t: t.lower().startswith("n")),
    ("s-starts-with-case", "s", "starts_with", "N", True, lambda t: t.startswith("N")),
    ("s-ends-with", "s", "ends_with", "th", True, lambda t: t.endswith("th")),
    ("s-regex", "s", "regex", "^n.r", None, lambda t: re.search("^n.r", t, re.I) is not None),
    ("s-regex-case", "s", "regex", r"n\.r", True, lambda t: re.search(r"n\.r", t) is not None),
    ("s-bad-regex", "s", "regex", "(", None, "not a valid polars (Rust) regular expression"),
    ("s-nested-repeat-is-linear-in-rust", "s", "regex", "(n+)+", None,
     lambda t: re.search("(n+)+", t, re.I) is not None),
    ("s-empty", "s", "empty", None, None, lambda x: x == ""),
    ("s-not-empty", "s", "not_empty", None, None, lambda x: x != ""),
    ("s-in", "s", "in", ["north", "east"], None, lambda x: x in ("north", "east")),
    ("c-eq", "c", "eq", "x", None, lambda x: x == "x"),
    ("c-in", "c", "in", ["x", "z"], None, lambda x: x in ("x", "z")),
    ("c-not-in", "c", "not_in", ["x"], None, lambda x: x != "x"),
    ("c-contains", "c", "contains", "Y", None, lambda t: "y" in t.lower()),
    ("c-ordering-refused", "c", "lt", "y", None, "its categories have no order"),
    ("e-eq", "e", "eq", "hi", None, lambda x: x == "hi"),
    ("e-ne", "e", "ne", "hi", None, lambda x: x != "hi"),
    ("b-is-true", "b", "is_true", None, None, lambda x: x is True),
    ("b-is-false", "b", "is_false", None, None, lambda x: x is False),
    ("b-eq", "b", "eq", "false", None, lambda x: x is False),
    ("b-isnull", "b", "isnull", None, None, lambda x: False),
    ("d-lt", "d", "lt", "2024-01-03", None, lambda x: x < dt("2024-01-03")),
    ("d-between", "d", "between", ["2024-01-02", "2024-01-04"], None,
     lambda x: dt("2024-01-02") <= x <= dt("2024-01-04")),
    ("d-in", "d", "in", ["2024-01-03", "2023-12-31"], None,
     lambda x: x in (dt("2024-01-03"), dt("2023-12-31"))),
    ("dn-eq", "dn", "eq", "2024-01-03", None, lambda x: x == dt("2024-01-03")),
    ("dn-not-in", "dn", "not_in", ["2024-01-03"], None, lambda x: x != dt("2024-01-03")),
    ("dz-ge", "dz", "ge", "2024-01-03", None, lambda x: x >= dt("2024-01-03", PARIS)),
    ("dz-lt-utc", "dz", "lt", "2024-01-02T23:00:00Z", None, lambda x: x < dt("2024-01-03", PARIS)),
    ("dz-in", "dz", "in", ["2024-01-03"], None, lambda x: x == dt("2024-01-03", PARIS)),
    ("dz-zone-needed", "d", "eq", "2024-01-03T00:00:00+01:00", None,
     "a time without a time zone expected"),
    ("dd-eq", "dd", "eq", "2024-01-03", None, lambda x: str(x) == "2024-01-03"),
    ("dd-ge", "dd", "ge", "2024-01-03", None, lambda x: str(x) >= "2024-01-03"),
    ("dd-misfit", "dd", "eq", "2024-01-03T10:00", None, "a date like 2024-10-02 expected"),
]


@pytest.mark.parametrize(("column", "op", "value", "case", "want"), [c[1:] for c in POLARS_CASES],
                         ids=[c[0] for c in POLARS_CASES])
def test_polars_filters(column: str, op: str, value: Any, case: bool | None, want: Any) -> None:
    view = {"filter": condition(column, op, value, case)}
    got = rows(POLARS, view)
    if isinstance(want, str):
        assert got.get("bad_request") is True and want in got["error"], got
        return
    s = POLARS.get_column(column)
    values = [None if isinstance(x, float) and math.isnan(x) else x for x in s.to_list()]
    texts = s.cast(pl.String).to_list()
    keep = expected_rows(values, texts, op, want)
    assert got["index"] == [str(i) for i in keep], (got["index"], keep)
    same_rows(POLARS, view)


POLARS_SORTS = [
    [{"column": "f"}],
    [{"column": "f", "desc": True}],
    [{"column": "b", "desc": True}, {"column": "i"}],
    [{"column": "s"}, {"column": "f", "desc": True}],
    [{"column": "dz", "desc": True}, {"column": "c"}],
]


@pytest.mark.parametrize("keys", POLARS_SORTS, ids=str)
def test_polars_sorts_are_the_librarys_own(keys: list[dict[str, Any]]) -> None:
    got = rows(POLARS, {"sort": keys})
    by = [pl.col(k["column"]).fill_nan(None) if POLARS.schema[k["column"]].is_float()
          else pl.col(k["column"]) for k in keys]
    want = POLARS.with_row_index("_i").sort(by, descending=[k.get("desc", False) for k in keys],
                                            nulls_last=True, maintain_order=True)
    assert got["index"] == [str(i) for i in want.get_column("_i").to_list()]
    if keys[0]["column"] == "f":  # NaN counts as missing: last (with the null), both ways
        assert [r[1] for r in got["rows"][-2:]] == [None, None]
    same_rows(POLARS, {"sort": keys})


def test_polars_series_and_selected_columns_round_trip() -> None:
    series = POLARS.get_column("f")
    same_rows(series, {"sort": [{"column": "f", "desc": True}],
                       "filter": {"column": "f", "op": "ne", "value": 2}})
    same_rows(POLARS, {"filter": {"column": "i", "op": "gt", "value": 0}}, [2, 0])
    written = code(POLARS, {"filter": {"column": "i", "op": "gt", "value": 0}}, columns=[2, 0])
    assert written["code"].endswith('v_view = v_view.select(["s", "i"])\n')
    assert written["syntax"] == "polars" and written["code"].startswith("import polars as pl\n")


# --- numpy and records -----------------------------------------------------------------------

MATRIX = np.array([[1.0, 5.0, 2.0], [np.nan, 3.0, 1.0], [2.0, 5.0, 0.0], [0.5, np.nan, 9.0]])
RECORDS = [{"a": 2, "b": "x", "t": True}, {"a": None, "b": "y"}, {"a": 1, "b": None, "t": False},
           {"a": 2, "b": "X", "t": True}, {"b": "z", "extra": 1}]


@pytest.mark.parametrize(
    ("value", "view", "want"),
    [
        (MATRIX, {"filter": {"column": "1", "op": "ge", "value": 5}}, ["0", "2"]),
        (MATRIX, {"filter": {"column": 0, "op": "ne", "value": 1}}, ["2", "3"]),
        (MATRIX, {"filter": {"column": "0", "op": "isnull"}}, ["1"]),
        (MATRIX, {"sort": [{"column": "1", "desc": True}, {"column": "2"}]}, ["2", "0", "1", "3"]),
        (MATRIX[:, 0], {"sort": [{"column": "value", "desc": True}]}, ["2", "0", "3", "1"]),
        (RECORDS, {"filter": {"column": "b", "op": "contains", "value": "x"}}, ["0", "3"]),
        (RECORDS, {"filter": {"column": "a", "op": "ne", "value": 2}}, ["2"]),
        (RECORDS, {"filter": {"column": "t", "op": "is_true"}}, ["0", "3"]),
        (RECORDS, {"sort": [{"column": "a", "desc": True}, {"column": "b"}]},
         ["3", "0", "2", "1", "4"]),
    ],
    ids=["matrix-ge", "matrix-ne-by-position", "matrix-isnull", "matrix-two-keys", "1d-desc",
         "records-contains", "records-ne", "records-is-true", "records-two-keys"],
)
@pytest.mark.parametrize("library", ["pandas", "plain"])
def test_arrays_and_records(value: Any, view: dict[str, Any], want: list[str], library: str,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    if library == "plain":  # a kernel where the user never imported pandas
        monkeypatch.setitem(sys.modules, "pandas", None)  # type: ignore[arg-type]
    got = rows(value, view)
    assert got["index"] == want, got
    written = code(value, view)
    if library == "plain":
        assert written["bad_request"] is True and "import pandas in the kernel" in written["error"]
        return
    assert written["code"].startswith("import pandas as pd\nv_view = pd.")
    monkeypatch.undo()
    same_rows(value, view)


def test_records_code_shows_the_explorers_columns() -> None:
    """``pd.DataFrame(records)`` may find keys the explorer's first 200 records lack."""
    records = [{"a": i} for i in range(250)] + [{"a": -1, "late": 1}]
    shown = rows(records)
    assert [c["name"] for c in shown["columns"]] == ["a"]
    written = code(records, {"filter": {"column": "a", "op": "lt", "value": 3}})
    assert written["code"].endswith('v_view = v_view[["a"]]\n')
    same_rows(records, {"filter": {"column": "a", "op": "lt", "value": 3}})


# --- the code itself -------------------------------------------------------------------------


def test_names_and_values_are_literals_never_code() -> None:
    nasty = 'it\'s "quoted"\n\\ ]); import os #'
    frame = pd.DataFrame({nasty: ["a", nasty, None], "when": pd.to_datetime(["2024-01-01"] * 3)})
    view = {"filter": {"or": [{"column": nasty, "op": "eq", "value": nasty},
                              {"column": "when", "op": "ge", "value": "2024-01-01T00:00:00"}]},
            "sort": [{"column": nasty, "desc": True}]}
    written = code(frame, view)["code"]
    assert "pd.Timestamp('2024-01-01 00:00:00')" in written
    assert "import pandas as pd" in written
    compile(written, "<generated>", "exec")
    same_rows(frame, view)
    zoned = pl.DataFrame({"t": POLARS.get_column("dz")})
    text = code(zoned, {"filter": {"column": "t", "op": "ge", "value": "2024-01-03"}})["code"]
    assert "zoneinfo.ZoneInfo(key='Europe/Paris')" in text and "import zoneinfo" in text
    same_rows(zoned, {"filter": {"column": "t", "op": "ge", "value": "2024-01-03"}})


@pytest.mark.parametrize(
    ("value", "request_", "words"),
    [
        (FRAME, {"syntax": "polars"}, "polars code is for polars values; v is a DataFrame"),
        (FRAME, {"syntax": "dplyr"}, "dplyr code is for R data.frames"),
        (POLARS, {"syntax": "pandas"}, "pandas code is for pandas values"),
        (FRAME, {"columns": [99]}, "column 99 is out of range"),
        (FRAME, {"view": {"filter": {"column": "nope", "op": "isnull"}}}, "No column named 'nope'"),
        (pd.DataFrame([[1, 2]], columns=["a", "a"]), {"view": {"sort": [{"column": 0}]}},
         "has no label a sort can name"),
        ([1, 2][0], {}, "v is a int (number): code is written for tables"),
        (FRAME, {"syntax": "cobol"}, "syntax must be one of pandas, polars, dplyr, polars_lazy, duckdb, sql, ibis, pyspark, dask"),
    ],
    ids=["pandas-as-polars", "dplyr", "polars-as-pandas", "column", "no-column", "duplicate-labels",
         "not-a-table", "unknown-syntax"],
)
def test_code_refusals(value: Any, request_: dict[str, Any], words: str) -> None:
    got = code(value, **request_)
    assert got.get("ok") is False and words in got["error"], got


def test_duplicate_labels_are_read_by_position() -> None:
    frame = pd.DataFrame([[1, 2], [3, 0], [5, 9]], columns=["a", "a"])
    view = {"filter": {"column": 1, "op": "gt", "value": 1}}
    written = code(frame, view)["code"]
    assert "v.iloc[:, 1]" in written
    same_rows(frame, view)


def test_a_column_whose_eq_raises_is_refused_and_the_value_kept() -> None:
    class Touchy:
        def __eq__(self, other: object) -> bool:
            raise ValueError("no comparing")

        __hash__ = object.__hash__

    frame = pd.DataFrame({"x": pd.Series([Touchy(), Touchy()], dtype=object)})
    before = list(frame["x"])
    got = rows(frame, {"filter": {"column": "x", "op": "eq", "value": "a"}})
    assert got["unprocessable"] is True and "raised ValueError" in got["error"]
    assert list(frame["x"]) == before and frame.shape == (2, 1)


# --- the protocol's checks -------------------------------------------------------------------


def _deep(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"column": "a", "op": "isnull"}
    for _ in range(depth):
        node = {"and": [node]}
    return node


@pytest.mark.parametrize(
    ("filter_", "words"),
    [
        ({"column": "a", "op": "between", "value": [1]}, "filter between needs a value [low, high]"),
        ({"column": "a", "op": "between", "value": 1}, "needs a value [low, high]"),
        ({"column": "a", "op": "in", "value": []}, "filter in needs a value: a list of 1 to 1,000"),
        ({"column": "a", "op": "in", "value": list(range(1001))}, "a list of 1 to 1,000 items"),
        ({"column": "a", "op": "in", "value": [[1]]}, "filter in needs a value (text of"),
        ({"column": "a", "op": "eq", "value": float("nan")}, "a finite number"),
        ({"column": "a", "op": "eq", "value": None}, "filter eq needs a value"),
        ({"column": "a", "op": "contains", "value": 1}, "filter contains needs a value (text"),
        ({"column": "a", "op": "eq", "value": 1, "case": True}, "filter case applies to the text"),
        ({"column": "a", "op": "contains", "value": "x", "case": "yes"}, "case must be true or false"),
        ({"column": "a", "op": "like", "value": "x"}, "filter op must be one of eq, ne"),
        ({"column": "a", "op": "eq", "value": "x", "extra": 1}, "has no field 'extra'"),
        ({"and": []}, '"and" takes a non-empty list'),
        ({"and": [], "or": []}, "a filter tree is"),
        ({"not": [{"column": "a", "op": "isnull"}]}, "has no field 'not'"),
        ({"or": [{"column": "a", "op": "isnull"}] * (MAX_FILTER_CONDITIONS + 1)}, "at most 50 conditions"),
        ({"or": [{"and": [{"column": "a", "op": "isnull"}] * 26}] * 2}, "at most 50 conditions in all"),
        (_deep(MAX_FILTER_DEPTH + 1), "trees at most 5 deep"),
        ({"or": [None]}, "filter must be an object"),
    ],
    ids=["range-one", "range-scalar", "list-empty", "list-1001", "list-nested", "nan", "null",
         "text-op-number", "case-on-eq", "case-text", "unknown-op", "unknown-field", "empty-tree",
         "two-joins", "not", "51-conditions", "51-nested", "depth-6", "null-node"],
)
def test_the_protocol_refuses_malformed_filters(filter_: Any, words: str) -> None:
    with pytest.raises(BadRequest) as info:
        check({"op": "rows", "name": "v", "view": {"filter": filter_}})
    assert words in str(info.value)


def test_the_protocol_takes_the_bounds_exactly() -> None:
    fifty = {"or": [{"column": "a", "op": "eq", "value": i} for i in range(MAX_FILTER_CONDITIONS)]}
    deep = _deep(MAX_FILTER_DEPTH)
    for tree in (fifty, deep):
        view = check({"op": "rows", "name": "v", "view": {"filter": tree}})[1]["view"]
        assert View.from_json(view.to_json()) == view
    listed = {"column": "a", "op": "in", "value": list(range(1000))}
    assert check({"op": "code", "name": "v", "view": {"filter": listed}})[1]["view"].filter.value[-1] == 999
