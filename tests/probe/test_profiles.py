"""The probe's ``profile`` op: every field of every column checked against pandas, polars
and numpy computing the same statistic directly (a case table of libraries × dtype
families × row counts), the filtered profile against the profile of the filtered table,
samples, bounds and hostile tables."""

from __future__ import annotations

import datetime
import json
import math
import time
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe import entry, protocol
from jupyter_kernel_state.probe.windows import statistics
from jupyter_kernel_state.service.limits import Limits

COMMON = ["name", "position", "dtype", "family", "count", "null_count", "approximate", "error"]
FAMILY_FIELDS = {
    "number": ["min", "max", "mean", "median", "std", "quantiles", "histogram"],
    "string": ["distinct", "empty", "top", "other"],
    "category": ["distinct", "empty", "top", "other"],
    "boolean": ["true", "false"],
    "datetime": ["min", "max", "median"],
    "other": [],
}
TOP_LEVEL = ["name", "type", "kind", "total_rows", "filtered_rows", "columns_total", "columns",
             "columns_cut", "sampled", "sample_rows", "values_truncated", "view"]
N = 240


def profile(value: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": "profile", "name": "v", **request}, {"v": value})
    json.dumps(reply, allow_nan=False)  # every number JSON-finite
    return reply.get("profile", reply)


# --- the tables ----------------------------------------------------------------------

rng = np.random.default_rng(7)
_floats = rng.normal(50, 20, N)
_floats[[3, 40]] = np.nan
_floats[7], _floats[8] = np.inf, -np.inf
_words = np.array([f"w{i % 13}" for i in range(N)], dtype=object)
_words[[1, 2]] = None
_words[5] = ""
_dates = pd.Timestamp("2024-03-01") + pd.to_timedelta(rng.integers(0, 10**7, N), unit="s")

PANDAS = pd.DataFrame({
    "f": _floats,
    "i": rng.integers(-1000, 1000, N),
    "i_na": pd.array([None if k % 17 == 0 else k for k in range(N)], dtype="Int64"),
    "f32": rng.random(N).astype("float32"),
    "b": rng.random(N) > 0.3,
    "b_na": pd.array([None if k % 11 == 0 else k % 3 == 0 for k in range(N)], dtype="boolean"),
    "d": pd.Series(_dates).where(np.arange(N) % 9 != 0),
    "dz": pd.Series(_dates).dt.tz_localize("UTC"),
    "s": pd.Series(_words, dtype="str"),
    "o": pd.Series(_words, dtype=object),
    "c": pd.Categorical(_words, categories=[*sorted({w for w in _words if w is not None}), "unused"]),
    "m": pd.Series([k if k % 2 else str(k) for k in range(N)], dtype=object),
    "const": np.full(N, 2.5),
    "nan": np.full(N, np.nan),
    "none": pd.Series([None] * N, dtype=object),
})
POLARS = pl.DataFrame({
    "f": pl.Series(_floats.tolist()).fill_nan(None).set(pl.Series([k == 40 for k in range(N)]),
                                                         float("nan")),
    "i": pl.Series([None if k % 19 == 0 else int(v) for k, v in enumerate(PANDAS["i"])]),
    "f32": pl.Series(PANDAS["f32"].to_numpy()),
    "b": pl.Series([None if k % 11 == 0 else k % 3 == 0 for k in range(N)]),
    "d": pl.Series([None if k % 9 == 0 else t.to_pydatetime() for k, t in enumerate(_dates)]),
    "date": pl.Series([datetime.date(2024, 1, 1) + datetime.timedelta(days=k % 50)
                       for k in range(N)]),
    "s": pl.Series(_words.tolist(), dtype=pl.Utf8),
    "c": pl.Series(_words.tolist(), dtype=pl.Utf8).cast(pl.Categorical),
    "l": pl.Series([[k] for k in range(N)]),
    "const": pl.Series([7] * N),
    "null": pl.Series([None] * N, dtype=pl.Float64),
})
NUMPY = {
    "float": PANDAS["f"].to_numpy(),
    "int": PANDAS["i"].to_numpy(),
    "bool": PANDAS["b"].to_numpy(),
    "datetime": PANDAS["d"].to_numpy(),
    "str": np.array([w or "" for w in _words]),
    "object": _words,
    "2d": np.arange(N * 3, dtype="float64").reshape(N, 3),
}
RECORDS = [{"x": None if k % 7 == 0 else (k * 1.5 if k % 2 else k), "s": _words[k],
            "b": None if k % 5 == 0 else k % 4 == 0,
            "t": datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=k),
            "mixed": k if k % 2 else "odd"} for k in range(N)]

PANDAS_FAMILIES = {"f": "number", "i": "number", "i_na": "number", "f32": "number",
                   "b": "boolean", "b_na": "boolean", "d": "datetime", "dz": "datetime",
                   "s": "string", "o": "string", "c": "category", "m": "other",
                   "const": "number", "nan": "number", "none": "other"}
POLARS_FAMILIES = {"f": "number", "i": "number", "f32": "number", "b": "boolean",
                   "d": "datetime", "date": "datetime", "s": "string", "c": "category",
                   "l": "other", "const": "number", "null": "number"}
RECORD_FAMILIES = {"x": "number", "s": "string", "b": "boolean", "t": "datetime",
                   "mixed": "other"}
ROWS = {"all": slice(None), "none": slice(0, 0), "one": slice(0, 1), "five": slice(10, 15)}


# --- the same statistics, computed directly ------------------------------------------


def fd_bins(a: np.ndarray) -> int:
    """Freedman–Diaconis (Sturges when the IQR is 0), 1 to 50 bins."""
    n = a.size
    q25, q75 = np.percentile(a, [25, 75])
    span = a.max() - a.min()
    wanted = span / (2 * (q75 - q25) / n ** (1 / 3)) if q75 > q25 and span > 0 else np.log2(n) + 1
    return int(min(50, max(1, math.ceil(wanted))))


def numbers(finite: np.ndarray, low: Any, high: Any, mean: Any, median: Any, std: Any,
            quantiles: list[Any]) -> dict[str, Any]:
    if not finite.size:
        return {"min": None, "max": None, "mean": None, "median": None, "std": None,
                "quantiles": dict.fromkeys(("5", "25", "75", "95")),
                "histogram": {"edges": [], "counts": []}}
    counts, edges = np.histogram(finite.astype("float64"), bins=fd_bins(finite))
    return {"min": low, "max": high, "mean": mean, "median": median,
            "std": None if std is None or std != std else std,
            "quantiles": dict(zip(("5", "25", "75", "95"), quantiles, strict=True)),
            "histogram": {"edges": edges.tolist(), "counts": counts.tolist()}}


def pandas_expected(s: pd.Series, family: str) -> dict[str, Any]:
    present = s.dropna()
    out: dict[str, Any] = {"family": family, "count": len(present),
                           "null_count": int(s.isna().sum())}
    if family == "number":
        values = present.astype("float64")
        finite = present[np.isfinite(values)]
        as_float = finite.astype("float64")
        out.update(numbers(as_float.to_numpy(), finite.min() if len(finite) else None,
                           finite.max() if len(finite) else None, as_float.mean(),
                           as_float.median(), as_float.std(),
                           [as_float.quantile(q / 100) for q in (5, 25, 75, 95)]))
    elif family in ("string", "category"):
        counts = present.value_counts()
        counts = counts[counts > 0]
        out.update({"distinct": present.nunique(),
                    "empty": int((present.astype(object) == "").sum()),
                    "counts": dict(zip(counts.index.astype(object), counts.tolist(), strict=True))})
    elif family == "boolean":
        out.update({"true": int(present.astype(bool).sum()),
                    "false": int((~present.astype(bool)).sum())})
    elif family == "datetime":
        out.update({"min": present.min().isoformat() if len(present) else None,
                    "max": present.max().isoformat() if len(present) else None,
                    "median": present.median().isoformat() if len(present) else None})
    return out


def polars_expected(s: pl.Series, family: str) -> dict[str, Any]:
    present = s.drop_nulls()
    floats = s.dtype in (pl.Float32, pl.Float64)
    nans = int(present.is_nan().sum()) if floats else 0
    out: dict[str, Any] = {"family": family, "count": len(present) - nans,
                           "null_count": s.null_count() + nans}
    if family == "number":
        finite = present.filter(present.is_finite()) if floats else present
        as_float = finite.cast(pl.Float64)  # numbers are read as float64
        out.update(numbers(as_float.to_numpy(), finite.min(), finite.max(), as_float.mean(),
                           as_float.median(), as_float.std(),
                           [as_float.quantile(q / 100, "linear") for q in (5, 25, 75, 95)]))
    elif family in ("string", "category"):
        counts = present.cast(pl.Utf8).value_counts()
        out.update({"distinct": present.n_unique(),
                    "empty": int((present.cast(pl.Utf8) == "").sum()),
                    "counts": dict(counts.rows())})
    elif family == "boolean":
        out.update({"true": int(present.sum()), "false": int((~present).sum())})
    elif family == "datetime":
        out.update({k: None if len(present) == 0 else getattr(present, k)().isoformat()
                    for k in ("min", "max", "median")})
    return out


def numpy_expected(a: np.ndarray, family: str) -> dict[str, Any]:
    if a.dtype.kind == "O":
        present = np.array([x for x in a if x is not None], dtype=object)
    elif a.dtype.kind == "f":
        present = a[~np.isnan(a)]
    elif a.dtype.kind == "M":
        present = a[~np.isnat(a)]
    else:
        present = a
    out: dict[str, Any] = {"family": family, "count": present.size,
                           "null_count": a.size - present.size}
    if family == "number":
        finite = present[np.isfinite(present)]
        if finite.size:
            out.update(numbers(finite, finite.min().item(), finite.max().item(),
                               np.mean(finite), np.median(finite),
                               np.std(finite, ddof=1) if finite.size > 1 else None,
                               list(np.percentile(finite, [5, 25, 75, 95]))))
        else:
            out.update(numbers(finite, None, None, None, None, None, []))
    elif family == "string":
        values, counts = np.unique(present.astype(str), return_counts=True)
        out.update({"distinct": values.size, "empty": int((present == "").sum()),
                    "counts": dict(zip(values.tolist(), counts.tolist(), strict=True))})
    elif family == "boolean":
        out.update({"true": int(present.sum()), "false": int((~present).sum())})
    elif family == "datetime" and present.size:
        out.update({"min": str(np.datetime_as_string(present.min())),
                    "max": str(np.datetime_as_string(present.max())),
                    "median": str(np.datetime_as_string(np.percentile(present, 50)))})
    elif family == "datetime":
        out.update({"min": None, "max": None, "median": None})
    return out


def records_expected(values: list[Any], family: str) -> dict[str, Any]:
    present = [x for x in values if x is not None and x == x]
    out: dict[str, Any] = {"family": family, "count": len(present),
                           "null_count": len(values) - len(present)}
    if family == "number":
        finite = np.array(present, dtype="float64")
        whole = all(type(x) is int for x in present)
        out.update(numbers(finite, min(present) if whole else finite.min(),
                           max(present) if whole else finite.max(), np.mean(finite),
                           np.median(finite), np.std(finite, ddof=1),
                           list(np.percentile(finite, [5, 25, 75, 95]))))
    elif family == "string":
        series = pd.Series(present, dtype=object)
        out.update({"distinct": series.nunique(), "empty": present.count(""),
                    "counts": series.value_counts().to_dict()})
    elif family == "boolean":
        out.update({"true": present.count(True), "false": present.count(False)})
    elif family == "datetime":
        series = pd.Series(present)
        out.update({"min": min(present).isoformat(), "max": max(present).isoformat(),
                    "median": series.median().to_pydatetime().isoformat()})
    return out


def check_column(column: dict[str, Any], expected: dict[str, Any], top: int = 10) -> None:
    """Every field of ``column`` (and no other) as ``expected`` says."""
    family = expected["family"]
    assert list(column) == COMMON + FAMILY_FIELDS[family], column
    assert column["error"] is None and column["approximate"] is False
    for key in ("family", "count", "null_count", "distinct", "empty", "true", "false"):
        if key in expected:
            assert column[key] == expected[key], (key, column[key], expected[key])
    if family == "number":
        for key in ("min", "max", "mean", "median", "std"):
            want = expected[key]
            got = column[key]
            assert got == (None if want is None else pytest.approx(float(want), rel=1e-9)), key
            if key in ("min", "max") and isinstance(want, (int, np.integer)):
                assert type(got) is int and got == want  # whole numbers stay exact
        for q, want in expected["quantiles"].items():
            assert column["quantiles"][q] == (None if want is None else pytest.approx(want,
                                                                                     rel=1e-9))
        assert column["histogram"]["counts"] == expected["histogram"]["counts"]
        assert column["histogram"]["edges"] == pytest.approx(expected["histogram"]["edges"],
                                                             rel=1e-12)
        assert len(column["histogram"]["counts"]) <= 50
    elif family in ("string", "category"):
        counts = expected["counts"]
        listed = column["top"]
        assert len(listed) == min(top, len(counts))
        assert [e["count"] for e in listed] == sorted(counts.values(), reverse=True)[:len(listed)]
        for e in listed:
            assert counts[e["value"]] == e["count"], e
        assert column["other"] == expected["count"] - sum(e["count"] for e in listed)
    elif family == "datetime":
        for key in ("min", "max", "median"):
            assert column[key] == expected[key], (key, column[key], expected[key])


# --- the case table ------------------------------------------------------------------

CASES = (
    [("pandas", c, rows) for c in PANDAS_FAMILIES for rows in ROWS]
    + [("polars", c, rows) for c in POLARS_FAMILIES for rows in ROWS]
    + [("numpy", c, rows) for c in NUMPY if c != "2d" for rows in ROWS]
    + [("records", c, rows) for c in RECORD_FAMILIES for rows in ("all", "five")]
)


@pytest.mark.parametrize(("library", "column", "rows"), CASES,
                         ids=["-".join(case) for case in CASES])
def test_every_field_as_the_library_computes_it(library: str, column: str, rows: str) -> None:
    cut = ROWS[rows]
    if library == "pandas":
        table = PANDAS.iloc[cut]
        position = list(PANDAS.columns).index(column)
        family = PANDAS_FAMILIES[column]
        expected = pandas_expected(table[column], family)
    elif library == "polars":
        table = POLARS[cut]
        position = POLARS.columns.index(column)
        family = POLARS_FAMILIES[column]
        expected = polars_expected(table[column], family)
    elif library == "numpy":
        table, position = NUMPY[column][cut], 0
        family = {"float": "number", "int": "number", "bool": "boolean",
                  "datetime": "datetime", "str": "string", "object": "string"}[column]
        expected = numpy_expected(table, family)
    else:
        table = RECORDS[cut]
        position = list(RECORDS[0]).index(column)
        family = RECORD_FAMILIES[column]
        expected = records_expected([r[column] for r in table], family)
    if (library, column) in (("pandas", "o"), ("pandas", "m"), ("numpy", "object")):
        present = {type(x) for x in np.asarray(table[column] if library == "pandas" else table,
                                               dtype=object) if x is not None}
        family = "string" if present == {str} else "other"  # what the values are
        expected = (pandas_expected(table[column], family) if library == "pandas"
                    else numpy_expected(table, family))
    result = profile(table, columns=[position])
    assert list(result) == TOP_LEVEL
    assert result["total_rows"] == len(table) and result["columns_cut"] == 0
    (got,) = result["columns"]
    assert (got["name"], got["position"]) == ((column, position) if library != "numpy"
                                              else ("value", 0))
    check_column(got, expected)


def test_a_2d_arrays_columns_are_its_second_axis() -> None:
    result = profile(NUMPY["2d"])
    assert [c["name"] for c in result["columns"]] == ["0", "1", "2"]
    for j, column in enumerate(result["columns"]):
        check_column(column, numpy_expected(NUMPY["2d"][:, j], "number"))


def test_a_whole_table_at_once_and_its_bounds() -> None:
    result = profile(PANDAS)
    assert result["columns_total"] == len(PANDAS.columns) == len(result["columns"])
    assert [c["family"] for c in result["columns"]] == list(PANDAS_FAMILIES.values())
    assert result["view"] == {"sort": [], "filter": None,
                              "columns": list(range(len(PANDAS.columns)))}
    assert result["filtered_rows"] is None and result["sampled"] is False
    assert profile(PANDAS, column_start=2, column_stop=4)["view"]["columns"] == [2, 3]
    assert [c["position"] for c in profile(PANDAS, max_columns=3)["columns"]] == [0, 1, 2]
    few = profile(PANDAS, columns=[8], top=3)["columns"][0]
    check_column(few, pandas_expected(PANDAS["s"], "string"), top=3)
    assert profile(PANDAS, columns=[8], top=99)["columns"][0]["top"] == profile(
        PANDAS, columns=[8])["columns"][0]["top"]  # clamped to 10


def test_ties_in_the_top_values_keep_their_first_appearance() -> None:
    for value in (["b", "a", "c", "a", "b", "c"], pd.Series(["b", "a", "c", "a", "b", "c"]),
                  pl.Series(["b", "a", "c", "a", "b", "c"]),
                  pd.Series(["b", "a", "c", "a", "b", "c"], dtype="category")):
        top = profile(value)["columns"][0]["top"]
        assert [e["value"] for e in top] == ["b", "a", "c"], type(value)


def test_infinities_count_but_no_statistic_has_them() -> None:
    column = profile(pd.Series([1.0, np.inf, -np.inf, 3.0, np.nan]))["columns"][0]
    assert (column["count"], column["null_count"]) == (4, 1)
    assert (column["min"], column["max"], column["mean"]) == (1.0, 3.0, 2.0)
    assert sum(column["histogram"]["counts"]) == 2  # count minus the infinities
    only = profile(np.array([np.inf, -np.inf]))["columns"][0]
    assert only["count"] == 2 and only["mean"] is None and only["histogram"]["counts"] == []
    wide = profile(np.array([-1e308, 1e308, 0.0]))["columns"][0]
    assert wide["min"] == -1e308 and wide["histogram"] == {"edges": [], "counts": []}


def test_the_filtered_profile_is_the_profile_of_the_filtered_table() -> None:
    condition = {"column": "i", "op": "gt", "value": 100}
    for table, filtered in ((PANDAS, PANDAS[PANDAS["i"] > 100].reset_index(drop=True)),
                            (POLARS, POLARS.filter(pl.col("i") > 100)),
                            (RECORDS, [r for r in RECORDS if r["x"] is not None and r["x"] > 100])):
        if table is RECORDS:
            condition = {"column": "x", "op": "gt", "value": 100}
        result = profile(table, view={"filter": condition})
        plain = profile(filtered)
        assert result["filtered_rows"] == len(filtered) < result["total_rows"]
        assert result["view"]["filter"]["column"] == condition["column"]
        assert result["columns"] == plain["columns"]


def test_a_filtered_sample_is_the_sample_of_the_filtered_table() -> None:
    n = 6_000
    frame = pd.DataFrame({"k": np.arange(n) % 3, "x": np.arange(n) * 0.5,
                          "w": np.array(["a", None, "b"], dtype=object)[np.arange(n) % 3]})
    records = frame.to_dict("records")
    keep = {"column": "k", "op": "ne", "value": 1}
    for table, filtered in ((frame, frame[frame["k"] != 1].reset_index(drop=True)),
                            (records, [r for r in records if r["k"] != 1])):
        result = profile(table, view={"filter": keep}, sample_rows=1_000)
        assert result["sampled"] and result["filtered_rows"] == 4_000
        assert result["columns"] == profile(filtered, sample_rows=1_000)["columns"]


def test_past_sample_rows_the_statistics_come_from_a_fixed_sample() -> None:
    n = 5_000
    frame = pd.DataFrame({"x": np.arange(n, dtype="float64"),
                          "w": np.array(["a", "b", "c", "d"], dtype=object)[np.arange(n) % 4],
                          "flag": np.arange(n) % 5 == 0,
                          "o": np.array(["p", "q", "r", "s", "t", None, "u"],
                                        dtype=object)[np.arange(n) % 7]})
    frame.loc[::10, "x"] = np.nan
    first = profile(frame, sample_rows=1_000)
    assert first == profile(frame, sample_rows=1_000)  # a fixed seed
    assert (first["sampled"], first["sample_rows"]) == (True, 1_000)
    picked = np.sort(np.random.default_rng(0).choice(n, 1_000, replace=False, shuffle=False))
    sample = frame.iloc[picked].reset_index(drop=True)
    x, w, flag, o = first["columns"]
    assert all(c["approximate"] for c in first["columns"])
    assert (x["count"], x["null_count"]) == (n - n // 10, n // 10)  # exact
    exact_sample = pandas_expected(sample["x"], "number")
    assert x["mean"] == pytest.approx(exact_sample["mean"])
    assert x["median"] == pytest.approx(exact_sample["median"])
    assert sum(x["histogram"]["counts"]) == pytest.approx(x["count"], abs=len(x["histogram"]["counts"]))
    scale = n / len(sample)  # counts of a sample scaled to the column's
    in_sample = sorted(sample["w"].value_counts(sort=False).items(), key=lambda kv: -kv[1])
    assert [(e["value"], e["count"]) for e in w["top"]] == [
        (k, round(c * scale)) for k, c in in_sample]
    assert flag["true"] + flag["false"] == n and abs(flag["true"] - n // 5) < 100
    if frame["o"].dtype == object:
        # Python objects: missing values are the sample's share (a pass in Python is not
        # cheap)
        in_sample = int(sample["o"].isna().sum())
        assert o["null_count"] == round(in_sample * n / 1_000)
    else:  # pandas 3 keeps text as its string dtype: a vectorized mask, exact
        assert o["null_count"] == int(frame["o"].isna().sum())
    assert o["count"] == n - o["null_count"]
    assert profile(frame, sample_rows=n)["sampled"] is False  # not past it
    assert profile(frame, sample_rows=10)["sample_rows"] == protocol.MIN_SAMPLE_ROWS  # clamped


def test_long_values_are_cut_and_counted() -> None:
    big = pd.DataFrame({"t": ["x" * 1_000_000 + str(k % 3) for k in range(30)]}, dtype=object)
    result = profile(big, value_chars=50)
    (column,) = result["columns"]
    assert column["family"] == "string" and column["distinct"] == 3
    assert all(len(e["value"]) <= 50 for e in column["top"])
    assert result["values_truncated"] == 3
    assert len(json.dumps(result)) < 5_000


class RaisingEq:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing")

    __hash__ = object.__hash__


class RaisingHash(str):
    def __hash__(self) -> int:
        raise RuntimeError("no hashing")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing")


class SlowHash(str):
    def __hash__(self) -> int:
        time.sleep(0.01)
        return 1


def test_hostile_columns_are_errors_of_their_own() -> None:
    frame = pd.DataFrame({"eq": pd.Series([RaisingEq(), RaisingEq(), None], dtype=object),
                          "hash": pd.Series([RaisingHash("a"), RaisingHash("b"), None],
                                            dtype=object),
                          "ok": [1.0, 2.0, 3.0]})
    result = profile(frame)
    eq, hashing, ok = result["columns"]
    assert (eq["family"], eq["count"], eq["error"]) == ("other", 2, None)
    assert hashing["family"] == "string" and hashing["count"] == 2
    assert hashing["error"] == "profiling raised RuntimeError" and "top" not in hashing
    assert ok["error"] is None and ok["mean"] == 2.0
    slow = [{"slow": SlowHash(f"s{k}"), "ok": k} for k in range(500)]
    started = time.monotonic()
    timed = profile(slow, column_ms=100)
    assert time.monotonic() - started < 30  # a hang guard (about 0.1 s)
    assert timed["columns"][0]["error"] == "profiling timed out (100 ms)"
    assert timed["columns"][1]["error"] is None


def test_five_thousand_columns_are_cut_by_the_budget_never_hung() -> None:
    wide = pd.DataFrame(np.zeros((20, 5_000)))
    started = time.monotonic()
    result = profile(wide, max_columns=5_000, column_stop=5_000, budget_ms=300)
    assert time.monotonic() - started < 30  # a hang guard (about 0.3 s)
    assert result["columns_cut"] > 0
    assert len(result["columns"]) + result["columns_cut"] == 5_000
    assert [c["position"] for c in result["columns"]] == list(range(len(result["columns"])))
    assert all(c["error"] is None for c in result["columns"])


class DaskLike:
    """Stands for a dask collection: only its module is read."""


DaskLike.__module__ = "dask.dataframe.core"


@pytest.mark.parametrize(
    ("value", "request_", "kind", "words"),
    [
        (DaskLike(), {}, "lazy", "dask"),
        ((i for i in range(3)), {}, "lazy", "an iterator: profiling it would consume it"),
        (5, {}, "bad_request", "v is a int (number): profiles show tables"),
        (PANDAS, {"columns": [99]}, "bad_request", "column 99 is out of range"),
        (PANDAS, {"view": {"filter": {"column": "nope", "op": "isnull"}}}, "bad_request",
         "No column named 'nope'"),
        (PANDAS, {"view": {"filter": {"column": "i", "op": "gt", "value": "ten"}}},
         "bad_request", "ten"),
    ],
)
def test_refusals(value: Any, request_: dict[str, Any], kind: str, words: str) -> None:
    reply = profile(value, **request_)
    assert reply.get(kind) is True and words in reply["error"], reply


def test_a_missing_or_hidden_name_is_not_found() -> None:
    reply = entry.dispatch({"op": "profile", "name": "nope"}, {})
    assert reply == {"ok": False, "not_found": True, "error": "Variable not found: nope"}


# --- the arithmetic, bit for bit -------------------------------------------------------


def test_quantiles_and_edges_are_numpys_bit_for_bit() -> None:
    local = np.random.default_rng(1)
    for n in (1, 2, 3, 10, 99, 1000):
        x = np.sort(local.normal(size=n) * 10.0 ** local.integers(-5, 5))
        for q in (0, 5, 25, 50, 75, 95, 100):
            assert statistics.quantile(x.tolist(), q / 100) == np.percentile(x, q)
        for bins in (1, 2, 7, 50):
            assert statistics.edges_for(x[0], x[-1], bins) == np.histogram(x, bins=bins)[1].tolist()
    assert statistics.edges_for(3, 3, 2) == np.histogram([3.0], bins=2)[1].tolist()


@pytest.mark.parametrize(("n", "q25", "q75", "low", "high", "bins"), [
    (0, 0, 0, 0, 0, 0),
    (1, 5, 5, 5, 5, 1),  # Sturges: log2(1) + 1
    (1000, 3, 3, 0, 9, 11),  # IQR 0: Sturges, ceil(log2(1000) + 1)
    (1000, 0, 1, 0, 1, 5),  # width 2 / 10: 5 bins
    (10**6, 0, 1e-9, 0, 1, 50),  # capped
])
def test_the_bin_count(n: int, q25: float, q75: float, low: float, high: float,
                       bins: int) -> None:
    assert statistics.bins_for(n, q25, q75, low, high) == bins


def test_the_probes_defaults_are_the_servers() -> None:
    limits = Limits()
    op = protocol.OPERATIONS["profile"]
    assert op.field("max_columns").default == limits.profile_max_columns
    assert op.field("sample_rows").default == limits.profile_sample_rows
    assert op.field("column_ms").default == limits.profile_column_ms
    assert op.field("value_chars").default == limits.rows_cell_chars
    assert op.field("filter_ms").default == limits.rows_sort_ms
    assert op.field("top").max == protocol.MAX_TOP == 10
