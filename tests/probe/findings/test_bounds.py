"""The findings op's bounds and faults: ``max_findings`` either side of the count (and of
its protocol bounds), the filtered view, the sample past ``sample_rows``, a column that
raises or runs out of time listed with its error while the rest goes on, a hostile object
column, refusals in the table ops' words."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.probe.protocol import BadRequest, check

from .cases import check_filters, counted, findings, kinds, of, one, refused, table

#: Five findings: missing (a), constant (c), outliers (n), numbers as text (s), empty (e).
FIVE = {"a": [1.0, None, *[float(i) for i in range(2, 30)]], "c": ["k"] * 30,
        "n": [*range(1, 30), 500], "s": [str(i) for i in range(30)], "e": [None] * 30}


@pytest.mark.parametrize(("max_findings", "listed", "cut"), [(4, 4, 1), (5, 5, 0), (6, 5, 0)])
def test_max_findings_either_side_of_the_count(max_findings: int, listed: int, cut: int) -> None:
    reply = findings(pd.DataFrame(FIVE), max_findings=max_findings)
    assert (len(reply["findings"]), reply["findings_cut"], reply["findings_total"]) == (
        listed, cut, 5)
    assert sum(reply["severities"].values()) == 5
    assert reply["findings"][0]["kind"] == "empty_column"  # the most severe is never cut


def test_max_findings_protocol_bounds() -> None:
    op = protocol.OPERATIONS["findings"]
    assert op.field("max_findings").default == protocol.DEFAULT_MAX_FINDINGS
    base = {"op": "findings", "name": "t"}
    assert check({**base, "max_findings": protocol.MAX_FINDINGS})[1]["max_findings"] == 1_000
    assert check({**base, "max_findings": protocol.MAX_FINDINGS + 1})[1]["max_findings"] == 1_000
    assert check({**base, "max_findings": 1})[1]["max_findings"] == 1
    assert check({**base, "max_findings": 0})[1]["max_findings"] == 1  # a setting: clamped
    with pytest.raises(BadRequest, match="max_findings must be an integer"):
        check({**base, "max_findings": "5"})
    with pytest.raises(BadRequest, match="syntax must be one of pandas, polars, dplyr, duckdb"):
        check({**base, "syntax": "sql"})
    filled = check(base)[1]
    assert (filled["sample_rows"], filled["column_ms"], filled["syntax"]) == (1_000_000, 1_000, None)
    assert protocol.request("findings", name="t", max_findings=10**6)["max_findings"] == 1_000
    reply = findings(pd.DataFrame(FIVE), max_findings=1)
    assert (len(reply["findings"]), reply["findings_cut"]) == (1, 4)


@pytest.mark.parametrize("library", ["pandas", "polars", "records"])
def test_findings_of_the_filtered_view(library: str) -> None:
    """Rows 0–49 clean, 50–99 with a planted problem each: only the view's rows count, and a
    finding's filter is the view's and its own."""
    n = 100
    cols = {"seq": list(range(n)), "part": ["clean"] * 50 + ["dirty"] * 50,
            "x": [float(i % 10) for i in range(50)] + [None] * 10 + [float(i % 10) for i in range(40)],
            "r": ["North"] * 50 + ["north "] * 5 + ["North"] * 45}
    value = table(cols, library)
    clean = {"column": "part", "op": "eq", "value": "clean"}
    dirty = {"column": "part", "op": "eq", "value": "dirty"}
    assert {f["kind"] for f in findings(value, view={"filter": clean})["findings"]} == {"constant"}
    reply = findings(value, view={"filter": dirty})
    assert reply["filtered_rows"] == 50 and reply["total_rows"] == n
    missing = one(reply, "missing", "x")
    assert missing["count"] == 10 and missing["message"] == "x: 10 missing values (20.0%)"
    assert missing["filter"] == {"and": [dirty, {"column": "x", "op": "isnull"}]}
    assert one(reply, "near_duplicate_labels", "r")["count"] == 5
    assert reply["view"]["filter"] == dirty and reply["view"]["columns"] == [0, 1, 2, 3]
    check_filters(value, reply)


def test_a_view_filter_at_the_limits_leaves_the_findings_own() -> None:
    value = pd.DataFrame({"x": [1.0, None, 3.0] * 10, "k": list(range(30))})
    wide = {"or": [{"column": "k", "op": "ne", "value": -1}] * protocol.MAX_FILTER_CONDITIONS}
    reply = findings(value, view={"filter": wide})
    f = one(reply, "missing", "x")
    assert f["filter"] == {"column": "x", "op": "isnull"} and "whole table" in f["filter_note"]


@pytest.mark.parametrize("library", ["pandas", "polars", "records"])
def test_past_sample_rows_a_fixed_seed_sample_is_checked_and_flagged(library: str) -> None:
    n = 5_000
    cols = {"x": [None if i % 10 == 0 else float(i % 97) for i in range(n)],
            "n": [1_000.0 if i % 500 == 0 else float(i % 50) for i in range(n)],
            "s": [str(i) for i in range(n)], "k": ["a"] * n}
    value = table(cols, library)
    reply = findings(value, sample_rows=1_000)
    assert reply["sampled"] is True and reply["sample_rows"] == 1_000
    missing = one(reply, "missing", "x")
    assert missing["approximate"] is True and abs(missing["count"] - 500) <= 100
    assert "(estimated from a sample of 1,000 rows)" in missing["message"]
    outliers = one(reply, "outliers", "n")
    assert outliers["approximate"] is True and 0 < outliers["count"] <= 40
    assert one(reply, "numbers_as_text", "s")["approximate"] is True
    again = findings(value, sample_rows=1_000)
    assert again["findings"] == reply["findings"]  # the same sample, call after call
    whole = findings(value, sample_rows=n)
    assert whole["sampled"] is False and one(whole, "missing", "x")["count"] == 500


def test_duplicates_in_a_sample_are_a_lower_bound() -> None:
    value = pd.DataFrame({"a": list(range(2_500)) * 2})
    reply = findings(value, sample_rows=1_000)
    f = one(reply, "duplicate_rows")
    assert f["message"].startswith("at least ") and "found in a sample of 1,000 rows" in f["message"]
    assert f["approximate"] is True and f["count"] < 2_500
    assert one(findings(value), "duplicate_rows")["count"] == 2_500


class Hostile:
    """Every comparison, hash and text of it raises."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __str__(self) -> str:
        raise RuntimeError("str")

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __lt__(self, other: object) -> bool:
        raise RuntimeError("lt")


class HostileText(str):
    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")


@pytest.mark.parametrize("library", ["pandas", "records"])
def test_a_hostile_object_column_leaves_the_other_findings(library: str) -> None:
    n = 20
    cols = {"h": [Hostile() for _ in range(n)], "t": [HostileText("a") for _ in range(n)],
            "x": [None, *[float(i) for i in range(n - 1)]], "c": ["k"] * n}
    value = pd.DataFrame(cols) if library == "pandas" else table(cols, "records")
    reply = findings(value)
    assert one(reply, "missing", "x")["count"] == 1 and one(reply, "constant", "c")["count"] == n
    assert all(e["error"].endswith("raised RuntimeError") for e in reply["errors"]), reply["errors"]
    assert ("duplicate_rows", None) in {(e["check"], e["column"]) for e in reply["errors"]}
    if library == "records":  # value by value: its hash is called (pandas hashes the text)
        assert ("column", "t") in {(e["check"], e["column"]) for e in reply["errors"]}


def test_a_column_past_its_guard_is_listed_and_the_rest_goes_on() -> None:
    class Slow(str):
        def __hash__(self) -> int:
            time.sleep(0.05)
            return 1

    value = [{"slow": Slow(f"s{i}"), "c": "k"} for i in range(40)]  # hashed value by value
    reply = findings(value, column_ms=100)
    assert {"check": "column", "column": "slow", "position": 0,
            "error": "checking the column timed out (100 ms)"} in reply["errors"]
    assert one(reply, "constant", "c")["count"] == 40


def test_the_budget_cuts_columns_and_the_table_s_checks_are_not_checked() -> None:
    class Slow(str):
        def __hash__(self) -> int:
            time.sleep(0.05)
            return 1

    value = [{f"s{j}": Slow(f"s{i}") for j in range(6)} for i in range(40)]
    reply = findings(value, column_ms=100, budget_ms=250)
    assert reply["columns_cut"] >= 3
    assert {n["kind"] for n in reply["not_checked"]} == {"duplicate_rows", "correlated"}


@pytest.mark.parametrize(("value", "kind", "words"), [
    ({"a": 1}, "bad_request", "t is a dict (mapping): findings are made for tables"),
    (iter([1]), "lazy", "an iterator: checking it would consume it"),
])
def test_refusals_in_the_table_ops_words(value: Any, kind: str, words: str) -> None:
    reply = refused(value)
    assert reply.get(kind) is True and words in reply["error"], reply


def test_refusals_for_a_missing_name_and_a_missing_column() -> None:
    from jupyter_kernel_state.probe import entry

    assert entry.dispatch({"op": "findings", "name": "nope"}, {})["not_found"] is True
    reply = refused(pd.DataFrame({"a": [1]}), columns=[3])
    assert reply["bad_request"] is True and "out of range" in reply["error"]
    reply = refused(pd.DataFrame({"a": [1]}), view={"filter": {"column": "b", "op": "isnull"}})
    assert "No column named 'b'" in reply["error"]


def test_messages_and_details_stay_bounded() -> None:
    long = "x" * 5_000
    labels = [long + str(i % 3) for i in range(30)] + [" " + long.upper() + "0"]
    reply = findings(pd.DataFrame({long: labels, "c": [long] * 31}))
    for f in reply["findings"]:
        assert len(f["message"]) <= 300
        assert len(str(f["details"])) <= 1_000
    near = one(reply, "near_duplicate_labels")
    assert near["filter"] is None and "no filter" in near["filter_note"]  # a label past 1,000 chars
    assert near["fix"] is not None


def test_many_repeated_keys_have_no_filter() -> None:
    keys = [*range(1_200), *range(1_200)]
    value = pd.DataFrame({"id": keys + list(range(1_200, 30_000))})
    f = one(findings(value), "duplicate_keys", "id")
    assert f["filter"] is None and "1,200 keys repeat" in f["filter_note"]
    assert f["count"] == 2_400


def test_an_array_of_numbers_and_a_structured_one() -> None:
    a = np.array([[1.0, 2.0], [1.0, 2.0], [3.0, np.nan]])
    reply = findings(a)
    assert one(reply, "duplicate_rows")["count"] == 1 and one(reply, "missing", "1")["count"] == 1
    s = np.array([(1, "a"), (1, "a"), (2, "b")], dtype=[("n", "i8"), ("s", "U2")])
    assert one(findings(s), "duplicate_rows")["count"] == 1
    assert kinds(findings(np.array([], dtype=float))) == set()


def test_polars_object_and_unhashable_cells() -> None:
    rows = [{"l": [1, 2], "n": 1.0}, {"l": [1, 2], "n": None}, {"l": [3], "n": 2.0}]
    reply = findings(rows)
    assert one(reply, "missing", "n")["count"] == 1
    assert any(e["check"] == "duplicate_rows" for e in reply["errors"])
    frame = pl.DataFrame({"l": [[1, 2], [1, 2], [3]], "n": [1.0, 1.0, 2.0]})
    assert one(findings(frame), "duplicate_rows")["count"] == 1  # polars compares lists
    assert counted(frame, {"column": "n", "op": "isnull"}) == 0
    assert not of(findings(frame), "missing")
