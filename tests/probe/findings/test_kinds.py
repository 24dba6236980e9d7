"""Each finding kind from a case table, in each library's table (pandas, polars, a list of
records; numpy 2-D where a column of numbers says it): the rule, its threshold on either
side, its severity and count, and its filter, which the ``count`` op keeps as many rows
by as the finding counts."""

from __future__ import annotations

import datetime
from typing import Any

import pandas as pd
import polars as pl
import pytest

from .cases import LIBRARIES, check_filters, findings, kinds, of, one, table

NAN = float("nan")

#: (id, columns, libraries, expected [(kind, column, severity, count)], kinds absent)
CASES: list[tuple[str, dict[str, list[Any]], tuple[str, ...],
                  list[tuple[str, str, str, int]], list[str]]] = [
    ("missing-warning-at-5%", {"a": [1.0] * 95 + [None] * 5}, (*LIBRARIES, "numpy"),
     [("missing", "a", "warning", 5)], []),
    ("missing-info-below-5%", {"a": [1.0] * 96 + [None] * 4, "b": list(range(100))},
     (*LIBRARIES, "numpy"), [("missing", "a", "info", 4)], ["empty_column"]),
    ("empty-column", {"a": [None] * 10, "b": [float(i) for i in range(10)]},
     (*LIBRARIES, "numpy"), [("empty_column", "a", "error", 10)], ["missing", "constant"]),
    ("duplicate-rows", {"a": [1, 2, 3, 1, 2, 1], "b": ["x", "y", "z", "x", "y", "x"]},
     LIBRARIES, [("duplicate_rows", "", "warning", 3)], []),
    ("duplicate-rows-numpy", {"a": [1.0, 2.0, 1.0, 3.0], "b": [5.0, 6.0, 5.0, 5.0]}, ("numpy",),
     [("duplicate_rows", "", "warning", 1)], []),
    ("duplicate-keys", {"order_id": [*range(20), 0, 1], "v": [float(i) for i in range(22)]},
     LIBRARIES, [("duplicate_keys", "order_id", "error", 4), ("id_like", "order_id", "info", 22)],
     ["outliers"]),
    ("id-like-at-90%-distinct", {"customerId": [*range(90), *range(10)]}, LIBRARIES,
     [("id_like", "customerId", "info", 100), ("duplicate_keys", "customerId", "error", 20)], []),
    ("no-id-below-90%-distinct", {"customerId": [*range(89), *range(11)]}, LIBRARIES, [],
     ["id_like", "duplicate_keys"]),
    ("id-named-text", {"uuid": [f"k{i}" for i in range(30)]}, LIBRARIES,
     [("id_like", "uuid", "info", 30)], ["duplicate_keys"]),
    ("an-unnamed-unique-column-is-no-id", {"n": list(range(50))}, LIBRARIES, [], ["id_like"]),
    ("constant-text", {"c": ["x"] * 10, "n": list(range(10))}, LIBRARIES,
     [("constant", "c", "info", 10)], []),
    ("constant-number-with-missing", {"c": [5.0] * 8 + [None] * 2}, (*LIBRARIES, "numpy"),
     [("constant", "c", "info", 8), ("missing", "c", "warning", 2)], ["outliers"]),
    ("constant-boolean", {"c": [True] * 6}, LIBRARIES, [("constant", "c", "info", 6)], []),
    ("outlier-just-past-the-iqr-bound", {"n": [*range(1, 101), 152]}, (*LIBRARIES, "numpy"),
     [("outliers", "n", "warning", 1)], []),
    ("no-outlier-on-the-iqr-bound", {"n": [*range(1, 101), 151]}, (*LIBRARIES, "numpy"), [],
     ["outliers"]),
    ("low-and-high-outliers", {"x": [-500.0, *[float(i % 17) for i in range(200)], 900.0, 800.0]},
     (*LIBRARIES, "numpy"), [("outliers", "x", "warning", 3)], []),
    ("mixed-types", {"code": [1, "a", 2, 3, "b", 4]}, ("pandas", "records"),
     [("mixed_types", "code", "error", 2)], []),
    ("ints-and-floats-are-not-mixed", {"n": [1, 2.5, 3, 4.5]}, ("records",), [], ["mixed_types"]),
    ("numbers-as-text-at-90%", {"amount": [*(str(i) for i in range(1, 10)), "n/a", " ", ""]},
     LIBRARIES, [("numbers_as_text", "amount", "warning", 9)], []),
    ("numbers-as-text-below-90%", {"amount": [*(str(i) for i in range(1, 9)), "n/a", "x"]},
     LIBRARIES, [], ["numbers_as_text"]),
    ("codes-with-leading-zeros-stay-text", {"zip": ["02134", "00501", "10001", "07030"]},
     LIBRARIES, [], ["numbers_as_text"]),
    ("dates-as-text", {"when": ["2024-01-02", "2024-02-03T10:00:00", " 2024-03-04 ", None]},
     LIBRARIES, [("dates_as_text", "when", "warning", 3)], []),
    ("near-duplicate-labels", {"region": ["North"] * 5 + ["north "] * 2 + ["NORTH", "South"] * 2},
     LIBRARIES, [("near_duplicate_labels", "region", "warning", 4)], []),
    ("distinct-labels-are-fine", {"region": ["North", "South", "East", "West"] * 3}, LIBRARIES,
     [], ["near_duplicate_labels"]),
    ("correlated", {"x": [float(i) for i in range(50)],
                    "y": [2.0 * i + (i % 3) for i in range(50)],
                    "z": [float((i * 37) % 11) for i in range(50)]},
     (*LIBRARIES, "numpy"), [("correlated", "x,y", "info", 50)], []),
    ("zero-rows", {"a": [], "b": []}, ("pandas", "polars"), [], ["missing", "constant"]),
    ("one-row", {"a": [1.0], "b": ["x"]}, (*LIBRARIES,), [], ["constant", "id_like"]),
    ("one-missing-row", {"a": [None], "b": [1]}, ("pandas", "records"),
     [("empty_column", "a", "error", 1)], []),
    ("odd-names", {'odd "name"': [1.0] * 9 + [None], "with space": ["a"] * 10,
                   "it's": [*(str(i) for i in range(1, 11))]}, LIBRARIES,
     [("missing", 'odd "name"', "warning", 1), ("constant", "with space", "info", 10),
      ("numbers_as_text", "it's", "warning", 10)], []),
]


@pytest.mark.parametrize(
    ("columns", "library", "expected", "absent"),
    [(c[1], library, c[3], c[4]) for c in CASES for library in c[2]],
    ids=[f"{c[0]}-{library}" for c in CASES for library in c[2]])
def test_each_kind(columns: dict[str, list[Any]], library: str,
                   expected: list[tuple[str, str, str, int]], absent: list[str]) -> None:
    value = table(columns, library)
    reply = findings(value)
    if library == "numpy":  # its columns are named by position
        names = {name: str(i) for i, name in enumerate(columns)}
        expected = [(k, ",".join(names[c] for c in col.split(",")) if col else "", s, n)
                    for k, col, s, n in expected]
    got = {(f["kind"], ",".join(f["columns"])): f for f in reply["findings"]}
    for kind, column, severity, count in expected:
        assert (kind, column) in got, (kind, column, kinds(reply))
        f = got[(kind, column)]
        assert (f["severity"], f["count"], f["approximate"]) == (severity, count, False), f
    for kind in absent:
        assert not of(reply, kind), (kind, kinds(reply))
    assert reply["errors"] == [] and reply["not_checked"] == [] and reply["sampled"] is False
    assert reply["findings_total"] == len(reply["findings"]) and reply["findings_cut"] == 0
    check_filters(value, reply)


def test_the_reply_lists_by_severity_then_column_and_counts_each() -> None:
    value = pd.DataFrame({"notes": [None] * 20, "price": [*range(1, 20), 1000],
                          "id": list(range(20)), "c": ["x"] * 20})
    reply = findings(value)
    severities = [f["severity"] for f in reply["findings"]]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert reply["severities"] == {"error": 1, "warning": 1, "info": 2}
    assert [f["kind"] for f in reply["findings"]] == ["empty_column", "outliers", "id_like",
                                                       "constant"]
    outliers = one(reply, "outliers", "price")
    assert outliers["message"] == "price: 1 outlier (IQR rule: outside [-8, 29])"
    assert outliers["filter"] == {"or": [{"column": "price", "op": "lt", "value": -8},
                                         {"column": "price", "op": "gt", "value": 29}]}
    assert outliers["details"]["rule"] == "iqr"


def test_nan_and_none_are_both_missing() -> None:
    pandas = findings(pd.DataFrame({"o": [None, NAN, "a", "b"], "f": [NAN, None, 1.0, 2.0]}))
    assert one(pandas, "missing", "o")["count"] == 2 and one(pandas, "missing", "f")["count"] == 2
    polars = findings(pl.DataFrame({"f": [NAN, None, 1.0, 2.0]}))
    assert one(polars, "missing", "f")["count"] == 2
    records = findings([{"f": NAN}, {"f": None}, {"f": 1.0}, {"f": 2.0}])
    assert one(records, "missing", "f")["count"] == 2
    check_filters(pl.DataFrame({"f": [NAN, None, 1.0, 2.0]}), polars)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_categories_near_duplicates_and_constants(library: str) -> None:
    labels = ["North"] * 4 + ["NORTH "] * 2 + ["South"] * 3
    if library == "pandas":
        value = pd.DataFrame({"r": pd.Categorical(labels), "k": pd.Categorical(["a"] * 9)})
    else:
        value = pl.DataFrame({"r": labels, "k": ["a"] * 9},
                             schema={"r": pl.Categorical, "k": pl.Categorical})
    reply = findings(value)
    near = one(reply, "near_duplicate_labels", "r")
    assert near["count"] == 2 and near["filter"] == {"column": "r", "op": "in", "value": ["NORTH "]}
    assert one(reply, "constant", "k")["count"] == 9
    check_filters(value, reply)


def test_time_zoned_datetimes() -> None:
    moment = pd.Timestamp("2024-10-02 13:45", tz="Europe/Paris")
    value = pd.DataFrame({"same": [moment] * 5, "gaps": [moment, pd.NaT, moment, pd.NaT,
                                                         moment + pd.Timedelta("1h")]})
    reply = findings(value)
    assert one(reply, "constant", "same")["message"].endswith("('2024-10-02T13:45:00+02:00')")
    assert one(reply, "missing", "gaps")["count"] == 2
    pl_value = pl.DataFrame({"same": [datetime.datetime(2024, 10, 2, 13, 45)] * 5}).with_columns(
        pl.col("same").dt.replace_time_zone("Europe/Paris"))
    assert one(findings(pl_value), "constant", "same")["count"] == 5
    check_filters(value, reply)


def test_a_series_and_a_one_dimensional_array() -> None:
    series = findings(pd.Series([*range(1, 101), 152], name="n"))
    assert one(series, "outliers", "n")["count"] == 1
    assert one(findings(pl.Series("n", [*range(1, 101), 152])), "outliers", "n")["count"] == 1
    import numpy as np

    assert one(findings(np.array([*range(1, 101), 152.0])), "outliers", "value")["count"] == 1


def test_the_mad_rule_when_the_iqr_is_zero() -> None:
    """Quartiles equal: the MAD rule says which; a MAD of 0 too gives no finding."""
    from jupyter_kernel_state.probe.windows.findings import Col, FindingList, Rules

    out = FindingList()
    col = Col(0, "x", "x")
    Rules(out).outliers(col, [5.0, 5.0, 5.0], lambda median: 1.0, False, lambda lo, hi: 2)
    f = out.found[0][0]
    assert f["details"]["rule"] == "mad" and "MAD rule: outside [-0.189029, 10.1891]" in f["message"]
    out = FindingList()
    Rules(out).outliers(col, [5.0, 5.0, 5.0], lambda median: 0.0, False, lambda lo, hi: 2)
    assert out.found == []


@pytest.mark.parametrize(("y", "found"), [
    ([i + (3.0 if i % 2 else -3.0) for i in range(40)], True),   # r ≈ 0.96
    ([i + (4.0 if i % 2 else -4.0) for i in range(40)], False),  # r ≈ 0.94
])
def test_the_correlation_threshold(y: list[float], found: bool) -> None:
    import numpy as np

    x = [float(i) for i in range(40)]
    r = float(np.corrcoef(x, y)[0, 1])
    assert (abs(r) >= 0.95) is found
    for library in LIBRARIES:
        reply = findings(table({"x": x, "y": y}, library))
        assert bool(of(reply, "correlated")) is found, (library, r)
        if found:
            assert one(reply, "correlated")["details"]["r"] == pytest.approx(r, abs=1e-6)
