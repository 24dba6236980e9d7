"""Two tables compared, case by case, for pandas and polars alike: by a key, by the index,
by position; empty and one-row tables, different columns, a key that repeats, missing
values, dtypes that differ, odd column names; the window's statuses, view and paging;
refusals (not comparable, too large, out of time) and a hostile column."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe import entry

from .cases import LIBRARIES, by_status, changed_cells, compare, counts, refused, table

BEFORE = {"id": [1, 2, 3, 4], "price": [10.0, None, 30.0, 40.0], "region": ["n", "s", "e", "w"]}
AFTER = {"id": [2, 3, 4, 5], "price": [None, 31.0, 40.0, 50.0], "region": ["s", "e", "W", "n"]}


@pytest.mark.parametrize("library", LIBRARIES)
def test_by_a_key_rows_added_removed_and_changed_with_their_cells(library: str) -> None:
    got = compare(table(AFTER, library), table(BEFORE, library), key=["id"])
    assert (got["by"], got["key"], got["key_note"]) == ("key", ["id"], None)
    assert counts(got) == (1, 1, 2, 1)  # 5 added, 1 removed, 3 and 4 changed, 2 the same
    assert changed_cells(got) == {"price": 1, "region": 1}
    assert by_status(got) == {"added": [["5"]], "removed": [["1"]],
                              "changed": [["3"], ["4"]]}
    rows = {row["key"][0]: row for row in got["rows"]}
    assert rows["3"]["changes"] == [{"column": 0, "before": "30.0", "after": "31.0"}]
    assert rows["4"]["changes"] == [{"column": 1, "before": "w", "after": "W"}]
    assert rows["1"]["cells"] == ["10.0", "n"] and rows["1"]["position"] == 0  # with's values
    assert [r["status"] for r in got["rows"]] == ["changed", "changed", "added", "removed"]
    price = got["columns"][0]
    assert (price["with_mean"], price["mean"]) == (pytest.approx(80 / 3), pytest.approx(121 / 3))
    assert (price["with_nulls"], price["nulls"]) == (1, 1)
    assert got["library"] == library and got["total_rows"] == got["with_rows"] == 4


@pytest.mark.parametrize("library", LIBRARIES)
def test_empty_and_one_row_tables(library: str) -> None:
    empty = table({"id": [], "v": []}, library)
    one = table({"id": [7], "v": ["x"]}, library)
    assert counts(compare(empty, empty, key=["id"])) == (0, 0, 0, 0)
    assert counts(compare(one, empty, key=["id"])) == (1, 0, 0, 0)
    gone = compare(empty, one, key=["id"])
    assert counts(gone) == (0, 1, 0, 0) and gone["rows"][0]["cells"] == ["x"]
    assert counts(compare(one, one)) == (0, 0, 0, 1)  # by position
    assert compare(one, one, statuses=["unchanged"])["rows"][0]["key"] == ["0"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_without_a_key_by_position_and_says_why(library: str) -> None:
    before = table({"v": [1, 2, 3]}, library)
    after = table({"v": [1, 9, 3, 4]}, library)
    got = compare(after, before)
    assert got["by"] == "position" and got["key"] is None
    assert "no key given" in got["key_note"]
    assert counts(got) == (1, 0, 1, 2)
    assert by_status(got) == {"changed": [["1"]], "added": [["3"]]}


def test_a_meaningful_pandas_index_is_the_key() -> None:
    before = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0]}, index=["a", "b", "c", "d"])
    after = before.drop(index="b").assign(v=lambda t: t.v.where(t.index != "c", 30.0))
    got = compare(after, before)
    assert (got["by"], got["key_note"]) == ("index", None)
    assert counts(got) == (0, 1, 1, 2)
    assert by_status(got) == {"changed": [["c"]], "removed": [["b"]]}
    # a filtered frame keeps its labels: by the index, not by position
    sales = pd.DataFrame({"p": range(10)})
    kept = compare(sales[sales.p % 3 != 0], sales)
    assert kept["by"] == "index" and counts(kept) == (0, 4, 0, 6)


def test_an_index_that_repeats_is_not_used() -> None:
    before = pd.DataFrame({"v": [1, 2]}, index=[5, 5])
    got = compare(before.copy(), before)
    assert got["by"] == "position" and "repeats labels" in got["key_note"]
    assert counts(got) == (0, 0, 0, 2)


@pytest.mark.parametrize("library", LIBRARIES)
def test_different_columns_compare_the_common_ones_and_list_the_rest(library: str) -> None:
    before = table({"id": [1, 2], "a": [1, 2], "gone": [0, 0]}, library)
    after = table({"new": ["x", "y"], "a": [1, 3], "id": [1, 2]}, library)
    got = compare(after, before, key=["id"])
    assert [c["name"] for c in got["columns"]] == ["a"]
    assert (got["only_in_name"], got["only_in_with"]) == (["new"], ["gone"])
    assert (got["only_in_name_total"], got["only_in_with_total"]) == (1, 1)
    assert counts(got) == (0, 0, 1, 1)
    nothing = compare(table({"id": [1], "x": [1]}, library), table({"id": [1], "y": [1]}, library),
                      key=["id"])
    assert nothing["columns"] == [] and counts(nothing) == (0, 0, 0, 1)


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_key_that_repeats_is_refused_naming_its_values(library: str) -> None:
    before = table({"id": [1, 1, 2, 3, 3], "v": [1, 2, 3, 4, 5]}, library)
    after = table({"id": [1, 2, 3], "v": [1, 2, 3]}, library)
    reply = refused(after, before, key=["id"])
    assert reply["bad_request"] and "not unique in b" in reply["error"]
    assert "2 values repeat (1, 3)" in reply["error"]
    missing = refused(after, table({"v": [1]}, library), key=["id"])
    assert "key column 'id' is not a column of b" in missing["error"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_missing_values_equal_each_other(library: str) -> None:
    before = table({"id": [1, 2, 3, 4], "x": [float("nan"), None, 1.5, None],
                    "s": [None, "a", None, "b"]}, library)
    after = table({"id": [1, 2, 3, 4], "x": [None, float("nan"), 1.5, 2.0],
                   "s": [None, "a", "c", None]}, library)
    got = compare(after, before, key=["id"])
    assert changed_cells(got) == {"x": 1, "s": 2}
    assert counts(got) == (0, 0, 2, 2)


@pytest.mark.parametrize("library", LIBRARIES)
def test_missing_keys_match_each_other(library: str) -> None:
    before = table({"k": [1.0, None, 3.0], "v": [1, 2, 3]}, library)
    after = table({"k": [None, 1.0, 4.0], "v": [2, 1, 4]}, library)
    got = compare(after, before, key=["k"])
    assert counts(got) == (1, 1, 0, 2)


@pytest.mark.parametrize("library", LIBRARIES)
def test_dtypes_that_differ(library: str) -> None:
    before = table({"id": [1, 2, 3], "n": [1, 2, 3], "t": ["1", "2", "3"]}, library)
    after = table({"id": [1.0, 2.0, 3.0], "n": [1.0, 2.5, 3.0], "t": [1, 2, 3]}, library)
    got = compare(after, before, key=["id"])
    assert counts(got) == (0, 0, 3, 0)  # every row: a number never equals text
    assert changed_cells(got) == {"n": 1, "t": 3}
    n = got["columns"][0]
    assert n["dtype"] != n["with_dtype"] and n["error"] is None


@pytest.mark.parametrize("library", LIBRARIES)
def test_odd_column_names(library: str) -> None:
    names = ["order id", 'say "hi"', "status", "_merge", "v_b", "v", "é ü"]
    before = table({n: [1, 2, 3] for n in names}, library)
    after = table({n: [1, 2, 4] if n == "v" else [1, 2, 3] for n in names}, library)
    got = compare(after, before, key=["order id"])
    assert [c["name"] for c in got["columns"]] == names[1:]
    assert counts(got) == (0, 0, 1, 2) and changed_cells(got)["v"] == 1
    comma = compare(table({"a,b": [1], "x": [1]}, library), table({"a,b": [1], "x": [2]}, library),
                    key=["a,b"])
    assert comma["key"] == ["a,b"] and counts(comma) == (0, 0, 1, 0)


def test_pandas_labels_that_repeat_or_are_no_text() -> None:
    before = pd.DataFrame([[1, 2, 3, 4]], columns=["k", "d", "d", 5])
    after = pd.DataFrame([[1, 2, 3, 9]], columns=["k", "d", "d", 5])
    got = compare(after, before, key=["k"])
    assert [c["name"] for c in got["columns"]] == ["5"]
    assert got["not_compared"] == [{"name": "d", "reason": "its label repeats in a"}] * 2
    assert counts(got) == (0, 0, 1, 0)
    assert got["code"] is None and "no text" in got["code_note"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_key_of_two_columns(library: str) -> None:
    before = table({"r": ["n", "n", "s"], "d": [1, 2, 1], "v": [1, 2, 3]}, library)
    after = table({"r": ["s", "n", "n"], "d": [1, 2, 3], "v": [3, 20, 4]}, library)
    got = compare(after, before, key=["r", "d"])
    assert counts(got) == (1, 1, 1, 1)
    assert by_status(got) == {"changed": [["n", "2"]], "added": [["n", "3"]],
                              "removed": [["n", "1"]]}


def test_categories_of_different_categories_compare_by_value() -> None:
    before = pd.DataFrame({"id": [1, 2], "c": pd.Categorical(["a", "b"])})
    after = pd.DataFrame({"id": [1, 2], "c": pd.Categorical(["a", "z"])})
    got = compare(after, before, key=["id"])
    assert changed_cells(got) == {"c": 1}


# --- the window -------------------------------------------------------------------------------


@pytest.mark.parametrize("library", LIBRARIES)
def test_statuses_paging_and_the_view(library: str) -> None:
    n = 50
    before = table({"id": list(range(n)), "v": list(range(n))}, library)
    after = table({"id": list(range(5, n + 5)),
                   "v": [i * 10 if i % 7 == 0 else i for i in range(5, n + 5)]}, library)
    first = compare(after, before, key=["id"], limit=4)
    assert counts(first) == (5, 5, 7, 38) and first["listed_rows"] == 17
    assert not first["reused"]
    paged = compare(after, before, key=["id"], offset=4, limit=4)
    assert paged["reused"] and paged["compare_ms"] == 0
    assert [r["key"] for r in paged["rows"]] == [["35"], ["42"], ["49"], ["50"]]
    only = compare(after, before, key=["id"], statuses=["removed"])
    assert [r["key"][0] for r in only["rows"]] == ["0", "1", "2", "3", "4"]
    everything = compare(after, before, key=["id"], statuses=list(by_status_all()), limit=1000)
    assert len(everything["rows"]) == n + 5
    view = {"sort": [{"column": "v", "desc": True}],
            "filter": {"column": "v", "op": "ge", "value": 40}}
    viewed = compare(after, before, key=["id"], view=view)
    assert viewed["filtered_rows"] == 12 and viewed["sort"] == "v:desc"
    assert [r["cells"][0] for r in viewed["rows"]][:8] == ["490", "420", "350", "280", "210",
                                                          "140", "70", "54"]
    missing = refused(after, before, key=["id"], view={"filter": {"column": "zz",
                                                                  "op": "isnull"}})
    assert missing["bad_request"] and "zz" in missing["error"]


def by_status_all() -> tuple[str, ...]:
    return ("added", "removed", "changed", "unchanged")


def test_a_comparison_is_kept_until_the_next_cell(shell) -> None:  # type: ignore[no-untyped-def]
    shell.run(a=pd.DataFrame({"v": [1, 2]}), b=pd.DataFrame({"v": [1, 3]}))
    request = {"op": "compare", "name": "a", "with": "b"}
    assert not entry.dispatch(request)["comparison"]["reused"]
    assert entry.dispatch(request)["comparison"]["reused"]
    shell.user_ns["a"].loc[0, "v"] = 5
    shell.run("a.loc[0, 'v'] = 5")
    again = entry.dispatch(request)["comparison"]
    assert not again["reused"] and again["changed"] == 2


@pytest.mark.parametrize("library", LIBRARIES)
def test_columns_shown_and_cells_bounded(library: str) -> None:
    before = table({"id": [1], **{f"c{i}": ["x" * 500] for i in range(5)}}, library)
    after = table({"id": [1], **{f"c{i}": ["y" * 500] for i in range(5)}}, library)
    got = compare(after, before, key=["id"], columns=[3, 1], cell_chars=20)
    assert [c["name"] for c in got["window_columns"]] == ["c3", "c1"]  # compared columns' places
    row = got["rows"][0]
    assert row["changed_cells"] == 5 and len(row["changes"]) == 2
    assert all(len(c["before"]) <= 20 and len(c["after"]) <= 20 for c in row["changes"])
    assert got["cells_truncated"] >= 4


# --- refusals ---------------------------------------------------------------------------------


def test_what_is_not_two_dataframes_of_one_library_is_refused() -> None:
    frame = pd.DataFrame({"v": [1]})
    for other, words in ((pl.DataFrame({"v": [1]}), "of one library"),
                         (pd.Series([1]), "b is a Series"),
                         ([1, 2], "b is a list"),
                         (np.arange(3), "between two DataFrames"),
                         (pl.LazyFrame({"v": [1]}), "b is a LazyFrame (a lazy polars table)")):
        reply = refused(frame, other)
        assert reply["bad_request"] and words in reply["error"], reply
    assert "a is a Series" in refused(pd.Series([1]), frame)["error"]
    gone = entry.dispatch({"op": "compare", "name": "a", "with": "zz"}, {"a": frame})
    assert gone["not_found"] and gone["error"] == "Variable not found: zz (given as with)"
    dplyr = refused(frame, frame, syntax="polars")
    assert "polars code is for polars tables" in dplyr["error"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_past_its_cells_a_comparison_is_refused_before_it_starts(library: str) -> None:
    frame = table({"id": list(range(1000)), "v": list(range(1000))}, library)
    started = time.perf_counter()
    reply = refused(frame, frame, key=["id"], max_cells=1999)
    assert reply["unprocessable"] and "1,000 rows × 2 columns is past the 1,999 cells" in \
        reply["error"]
    assert time.perf_counter() - started < 1


class Slow:
    def __eq__(self, other: object) -> bool:
        time.sleep(0.05)
        return True

    __hash__ = object.__hash__


class Raising:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no")

    __hash__ = object.__hash__


def test_the_comparison_stops_at_its_time_guard() -> None:
    before = pd.DataFrame({"o": [Slow() for _ in range(200)]})
    after = pd.DataFrame({"o": [Slow() for _ in range(200)]})  # no identity to short-cut
    started = time.perf_counter()
    reply = refused(after, before, compare_ms=200)
    assert reply["unprocessable"] and "timed out" in reply["error"]
    assert time.perf_counter() - started < 2


def test_a_column_whose_values_refuse_to_compare_is_said_the_rest_goes_on() -> None:
    before = pd.DataFrame({"o": [Raising(), Raising()], "v": [1, 2]})
    after = pd.DataFrame({"o": [Raising(), Raising()], "v": [1, 3]})
    got = compare(after, before)
    o, v = got["columns"]
    assert o["changed"] is None and o["error"] == "comparing raised RuntimeError"
    assert v["changed"] == 1 and counts(got) == (0, 0, 1, 1)


def test_summaries_of_numbers_only_and_finite() -> None:
    before = pd.DataFrame({"f": [math.inf, 1.0], "b": [True, False]})
    got = compare(before.copy(), before)
    f, b = got["columns"]
    assert f["mean"] is None and b["mean"] is None and f["nulls"] == 0
