"""Case tables for the value families a data scientist meets: every numpy scalar kind,
array flavours, pandas extension dtypes and axes, polars, xarray, dict views, enums,
dataclasses and every kind of callable — expectations in our own terms."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import re
import time
import warnings

import numpy as np
import pandas as pd
import pytest

from jupyter_kernel_state.probe import summarize

from .helpers import contains, startswith, verify_summary

pl = pytest.importorskip("polars")
xr = pytest.importorskip("xarray")


class Color(enum.Enum):
    RED = 1


class Flags(enum.IntFlag):
    A = 1
    B = 2


@dataclasses.dataclass(frozen=True)
class Frozen:
    when: datetime.date
    tags: tuple


class Model:
    def fit(self, x, y=None):  # type: ignore[no-untyped-def]
        return self

    @classmethod
    def load(cls, path):  # type: ignore[no-untyped-def]
        return cls()

    @staticmethod
    def helper(n):  # type: ignore[no-untyped-def]
        return n


def _int(n: int) -> bool:
    return isinstance(n, int) and n > 0


NUMPY_SCALARS = [
    pytest.param(np.bool_(False), {"kind": "boolean", "dtype": "bool", "nbytes": 1, "preview": "False"}, id="bool"),
    *[
        pytest.param(t(7), {"kind": "number", "dtype": t.__name__, "nbytes": np.dtype(t).itemsize, "preview": "7"}, id=t.__name__)
        for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
    ],
    pytest.param(np.float16(1.5), {"kind": "number", "dtype": "float16", "nbytes": 2, "preview": "1.5"}, id="float16"),
    pytest.param(np.float32(0.1), {"kind": "number", "dtype": "float32", "preview": "0.1"}, id="float32"),
    pytest.param(np.float64(-2.25), {"kind": "number", "dtype": "float64", "preview": "-2.25"}, id="float64"),
    pytest.param(np.longdouble(1.5), {"kind": "number", "dtype": str(np.dtype(np.longdouble)), "preview": "1.5"}, id="longdouble"),
    pytest.param(np.float64("nan"), {"kind": "number", "preview": "nan"}, id="float-nan"),
    pytest.param(np.complex64(1 + 2j), {"kind": "number", "dtype": "complex64", "preview": "(1+2j)"}, id="complex64"),
    pytest.param(np.complex128(-1j), {"kind": "number", "dtype": "complex128", "preview": contains("1j")}, id="complex128"),
    pytest.param(np.str_("héllo"), {"kind": "string", "dtype": "<U5", "preview": "'héllo'"}, id="str_"),
    pytest.param(np.bytes_(b"ab"), {"kind": "bytes", "dtype": "|S2", "nbytes": 2, "preview": "b'ab'"}, id="bytes_"),
    pytest.param(np.datetime64("2024-01-01T12:00"), {"kind": "object", "dtype": "datetime64[m]", "preview": "2024-01-01T12:00"}, id="datetime64"),
    pytest.param(np.datetime64("NaT"), {"kind": "object", "preview": "NaT"}, id="datetime64-nat"),
    pytest.param(np.timedelta64(90, "s"), {"kind": "object", "dtype": "timedelta64[s]", "preview": "0:01:30"}, id="timedelta64"),
    pytest.param(np.timedelta64(1, "D") + np.timedelta64(1, "ns"), {"preview": "1 day, 0:00:00.000000001"}, id="timedelta64-ns"),
    pytest.param(np.timedelta64(3, "M"), {"preview": "3 months"}, id="timedelta64-months"),
    pytest.param(np.zeros(1, dtype=[("a", "i4"), ("b", "f8")])[0], {"kind": "object", "dtype": "[('a', '<i4'), ('b', '<f8')]", "nbytes": 12, "preview": "(0, 0.0)"}, id="void"),
]

with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    _matrix = np.matrix([[1, 2, 3], [4, 5, 6]])
_masked = np.ma.array([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]])
_dates = np.array(["2024-01-01T12:00", "NaT", "2024-03-01"], dtype="datetime64[ns]")

NUMPY_ARRAYS = [
    pytest.param(_matrix, {"kind": "array", "type": "matrix", "shape": [2, 3], "preview": "[[1, 2, 3], [4, 5, 6]]"}, id="matrix"),
    pytest.param(np.arange(24).reshape(2, 3, 4), {"shape": [2, 3, 4], "preview": startswith("[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12,")}, id="3d"),
    pytest.param(np.zeros((0, 3)), {"shape": [0, 3], "size": 0, "preview": "[]"}, id="empty-2d"),
    pytest.param(np.ones((1000, 1000)), {"shape": [1000, 1000], "truncated": True, "preview": startswith("[[1.0, 1.0,")}, id="big-2d"),
    pytest.param(np.array(5), {"kind": "array", "shape": [], "size": 1, "preview": "array(5)"}, id="0d-int"),
    pytest.param(np.array(2.5, dtype=np.float32), {"shape": [], "dtype": "float32", "preview": "array(2.5)"}, id="0d-float"),
    pytest.param(np.array("2024-01-01", dtype="datetime64[D]"), {"shape": [], "preview": "array(2024-01-01)"}, id="0d-date"),
    pytest.param(_dates, {"dtype": "datetime64[ns]", "preview": "[2024-01-01T12:00, NaT, 2024-03-01]"}, id="datetime64-ns"),
    pytest.param(np.array(["2024-01-01"], dtype="datetime64[D]"), {"preview": "[2024-01-01]"}, id="datetime64-days"),
    pytest.param(np.array([90, "NaT", -1], dtype="timedelta64[s]"), {"dtype": "timedelta64[s]", "preview": "[0:01:30, NaT, -0:00:01]"}, id="timedelta64"),
    pytest.param(np.array([3_600_000_000_000], dtype="timedelta64[ns]"), {"preview": "[1:00:00]"}, id="timedelta64-ns"),
    pytest.param(_masked, {"type": "MaskedArray", "shape": [2, 2], "preview": "[[1, --], [3, 4]]"}, id="masked"),
    pytest.param(np.zeros(2, dtype=[("a", "i4"), ("b", "f8")]), {"dtype": "[('a', '<i4'), ('b', '<f8')]", "nbytes": 24, "preview": "[(0, 0.0), (0, 0.0)]"}, id="structured"),
    pytest.param(np.array([1, "a", None], dtype=object), {"dtype": "object", "preview": "[1, 'a', None]"}, id="object"),
    pytest.param(np.array(["ab", "c"]), {"dtype": "<U2", "preview": "['ab', 'c']"}, id="unicode"),
    pytest.param(np.array([True, False]), {"dtype": "bool", "preview": "[True, False]"}, id="bool"),
]

PANDAS_VALUES = [
    pytest.param(pd.Series([1, None], dtype="Int64"), {"dtype": "Int64", "preview": "[1, <NA>]"}, id="Int64"),
    pytest.param(pd.Series([True, None], dtype="boolean"), {"dtype": "boolean", "preview": "[True, <NA>]"}, id="boolean"),
    pytest.param(pd.Series(["a", None], dtype="string"), {"dtype": "string", "preview": "['a', <NA>]"}, id="string"),
    pytest.param(pd.Series([1.5, None], dtype="Float64"), {"dtype": "Float64", "preview": "[1.5, <NA>]"}, id="Float64"),
    pytest.param(pd.Series(["a", "b", "a"], dtype="category"), {"dtype": "category", "size": 3, "preview": "['a', 'b', 'a']"}, id="categorical"),
    pytest.param(pd.Categorical(["x", "y"]), {"type": "Categorical", "preview": contains("x")}, id="categorical-array"),
    pytest.param(pd.Series(pd.period_range("2024-01", periods=2, freq="M")), {"dtype": "period[M]", "preview": "[2024-01, 2024-02]"}, id="period"),
    pytest.param(pd.Series(pd.interval_range(0, 2)), {"dtype": "interval[int64, right]", "preview": "[(0, 1], (1, 2]]"}, id="interval"),
    pytest.param(pd.Series(pd.to_datetime(["2024-01-01 12:00", None])), {"dtype": startswith("datetime64["), "preview": "[2024-01-01 12:00:00, NaT]"}, id="datetime-series"),
    pytest.param(pd.Series(pd.date_range("2024-01-01", periods=2, tz="Europe/Paris")), {"dtype": contains("Europe/Paris"), "preview": "[2024-01-01 00:00:00+01:00, 2024-01-02 00:00:00+01:00]"}, id="tz-aware"),
    pytest.param(pd.Series(pd.to_timedelta([1, None], unit="h")), {"dtype": startswith("timedelta64["), "preview": "[0 days 01:00:00, NaT]"}, id="timedelta-series"),
    pytest.param(pd.Series([1, 2], index=pd.to_datetime(["2024-01-01", "2024-01-02"])), {"preview": "{2024-01-01: 1, 2024-01-02: 2}"}, id="datetime-index-labels"),
    pytest.param(pd.date_range("2024-01-01", periods=3), {"kind": "index", "type": "DatetimeIndex", "preview": "[2024-01-01, 2024-01-02, 2024-01-03]"}, id="datetimeindex"),
    pytest.param(pd.MultiIndex.from_tuples([("a", 1), ("b", 2)]), {"kind": "index", "size": 2, "preview": "[('a', 1), ('b', 2)]"}, id="multiindex"),
    pytest.param(pd.DataFrame({"v": [1, 2]}, index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)])), {"shape": [2, 1], "dtype": "int64", "preview": "2×1 — v:int64"}, id="multiindex-rows"),
    pytest.param(pd.DataFrame([[1, 2.0]], columns=pd.MultiIndex.from_tuples([("a", "x"), ("a", "y")])), {"shape": [1, 2], "dtype": "mixed: int64 ×1, float64 ×1", "preview": "1×2 — ('a', 'x'):int64, ('a', 'y'):float64"}, id="multiindex-columns"),
    pytest.param(pd.DataFrame({"a": [1], "b": [2], "c": ["x"]}), {"dtype": startswith("mixed: int64 ×2, "), "nbytes": _int}, id="dtype-summary"),
    pytest.param(pd.Timestamp("2024-01-01 12:00", tz="UTC"), {"kind": "object", "preview": contains("2024-01-01 12:00:00")}, id="timestamp-tz"),
    pytest.param(datetime.datetime(2024, 1, 1, 12, 30), {"kind": "object", "preview": "2024-01-01 12:30:00"}, id="datetime"),
    pytest.param(datetime.datetime(2024, 1, 1), {"kind": "object", "preview": "2024-01-01"}, id="datetime-midnight"),
    pytest.param(datetime.date(2024, 1, 2), {"kind": "object", "preview": "2024-01-02"}, id="date"),
    pytest.param(pd.Timestamp("2024-10-02"), {"kind": "object", "preview": "2024-10-02"}, id="timestamp-midnight"),
    pytest.param(pd.Timestamp("2024-10-02 13:45"), {"kind": "object", "preview": "2024-10-02 13:45:00"}, id="timestamp"),
    pytest.param([pd.Timestamp("2024-10-02"), None], {"preview": "[2024-10-02, None]"}, id="timestamps-in-a-list"),
]

POLARS_XARRAY = [
    pytest.param(pl.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}), {"kind": "dataframe", "shape": [3, 2], "size": 6, "dtype": "mixed: Int64 ×1, String ×1", "nbytes": _int, "preview": "3×2 — a:Int64, b:String", "error": None}, id="polars-frame"),
    pytest.param(pl.DataFrame({"x": [1.0, 2.0]}), {"size": 2, "dtype": "Float64", "error": None}, id="polars-frame-one-dtype"),
    pytest.param(pl.Series("s", [1, None, 3]), {"kind": "series", "size": 3, "shape": [3], "dtype": "Int64", "preview": "[1, None, 3]", "error": None}, id="polars-series"),
    pytest.param(pl.Series("d", [datetime.date(2024, 1, 1)]), {"dtype": "Date", "error": None}, id="polars-dates"),
    pytest.param(pl.DataFrame({"a": [1]}).lazy(), {"kind": "dataframe", "type": "LazyFrame", "size": None, "shape": None, "preview": contains("lazy"), "error": None}, id="polars-lazy"),
    pytest.param(xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("t", "x")), {"kind": "array", "shape": [2, 3], "dtype": "float64", "nbytes": 48, "preview": startswith("(t: 2, x: 3) [0.0, 1.0")}, id="xarray-dataarray"),
    pytest.param(xr.Dataset({"temp": ("x", np.arange(3.0)), "n": ("x", np.arange(3))}), {"kind": "mapping", "size": 2, "preview": "(x: 3) — temp:float64, n:int64"}, id="xarray-dataset"),
]

_d = {"a": 1, "b": [2]}

PYTHON_VALUES = [
    pytest.param(_d.keys(), {"kind": "set", "type": "dict_keys", "size": 2, "preview": "dict_keys(['a', 'b'])"}, id="dict-keys"),
    pytest.param(_d.values(), {"kind": "sequence", "size": 2, "preview": "dict_values([1, [2]])"}, id="dict-values"),
    pytest.param(_d.items(), {"kind": "set", "size": 2, "preview": "dict_items([('a', 1), ('b', [2])])"}, id="dict-items"),
    pytest.param({i: i for i in range(100_000)}.keys(), {"size": 100_000, "truncated": True, "preview": contains("99,980 more")}, id="dict-keys-big"),
    pytest.param(Color.RED, {"kind": "object", "type": "Color", "preview": "<Color.RED: 1>"}, id="enum"),
    pytest.param(Flags.A | Flags.B, {"type": "Flags", "preview": contains("A|B")}, id="intflag"),
    pytest.param(Frozen(datetime.date(2024, 1, 2), ("x",)), {"kind": "object", "preview": "Frozen(when=2024-01-02, tags=('x',))"}, id="dataclass-frozen"),
    pytest.param(Model().fit, {"kind": "callable", "type": "method", "preview": "method Model.fit(x, y=None) of <Model object>"}, id="bound-method"),
    pytest.param(Model.load, {"kind": "callable", "preview": startswith("classmethod Model.load(path) of <class '")}, id="classmethod"),
    pytest.param(Model.helper, {"kind": "callable", "type": "function", "preview": "Model.helper(n)"}, id="staticmethod-via-class"),
    pytest.param(Model.__dict__["helper"], {"kind": "callable", "type": "staticmethod", "preview": "staticmethod Model.helper(n)"}, id="staticmethod-object"),
    pytest.param(Model.__dict__["load"], {"kind": "callable", "type": "classmethod", "preview": "classmethod Model.load(cls, path)"}, id="classmethod-object"),
    pytest.param(functools.partial(Model.helper, 3), {"kind": "callable", "preview": "partial(Model.helper, …)()"}, id="partial"),
    pytest.param("x".upper, {"kind": "callable", "preview": startswith("str.upper(")}, id="builtin-method"),
]


@pytest.mark.parametrize("value, expected", NUMPY_SCALARS + NUMPY_ARRAYS + PANDAS_VALUES + POLARS_XARRAY + PYTHON_VALUES)
def test_value_families(value, expected):  # type: ignore[no-untyped-def]
    verify_summary(value, expected)


def test_wide_dataframe_keeps_every_field_within_the_guard(monkeypatch):  # type: ignore[no-untyped-def]
    """Every field of a 10,000-column frame under the default 100 ms guard (``error`` None:
    none timed out), each computed from the blocks and the first columns: a Series per
    column (``memory_usage`` builds 10,003 of them, seconds) is never built."""
    from pandas.core.generic import NDFrame

    wide = pd.DataFrame(np.zeros((10, 10_000)))
    summarize("w", wide)  # warm pandas' caches
    built = []
    init = NDFrame.__init__
    monkeypatch.setattr(NDFrame, "__init__", lambda self, *a, **k: built.append(1) or init(self, *a, **k))
    t0 = time.perf_counter()
    s = verify_summary(wide, {"shape": [10, 10_000], "size": 100_000, "dtype": "float64", "nbytes": 800_132, "error": None, "preview": startswith("10×10,000 — 0:float64, 1:float64")})
    assert len(built) <= 10, (len(built), s)  # Series and frames built: a few, whatever the width
    wide.memory_usage(index=True, deep=False)
    assert len(built) > 10_000  # (the counter sees the per-column way)
    assert time.perf_counter() - t0 < 10.0  # a hang guard only


def test_a_field_that_times_out_leaves_the_others(monkeypatch):  # type: ignore[no-untyped-def]
    from jupyter_kernel_state.probe.inspect.tables import PandasFrameInspector

    def slow_memory(self, v):  # type: ignore[no-untyped-def]  # as memory_usage once was
        time.sleep(2)
        return 1

    monkeypatch.setattr(PandasFrameInspector, "nbytes", slow_memory)
    t0 = time.perf_counter()
    s = verify_summary(pd.DataFrame({"a": [1]}), {"shape": [1, 1], "size": 1, "dtype": "int64", "nbytes": None, "preview": "1×1 — a:int64"}, time_guard_ms=50)
    assert s["error"] == "nbytes timed out" and time.perf_counter() - t0 < 1.0


def test_block_nbytes_matches_memory_usage():  # type: ignore[no-untyped-def]
    frames = [
        pd.DataFrame({"a": [1, 2], "b": ["x", "y"], "c": pd.array([1, None], dtype="Int64"), "d": [0.5, 1.0]}),
        pd.DataFrame(np.zeros((3, 4)), index=pd.Index(["p", "q", "r"])),
        pd.DataFrame({"t": pd.date_range("2024", periods=3, tz="UTC"), "k": pd.Categorical(["a", "b", "a"])}),
    ]
    for df in frames:
        assert summarize("f", df)["nbytes"] == int(df.memory_usage(index=True, deep=False).sum())


def test_lazy_frames_are_never_computed():  # type: ignore[no-untyped-def]
    calls = []

    def udf(batch):  # type: ignore[no-untyped-def]
        calls.append(1)
        return batch

    lazy = pl.DataFrame({"a": [1, 2]}).lazy().map_batches(udf)
    s = verify_summary(lazy, {"kind": "dataframe", "size": None, "error": None})
    # A table in an engine (backends/polars_lazy): its schema from the plan, nothing run.
    assert calls == [] and s["preview"].startswith("lazy · polars · not counted · 1 column")


# --- previews cut between elements ---------------------------------------------------

#: A cut inside a token (a number, a name) or an ellipsis followed by more: never.
GLITCH = re.compile(r"[0-9A-Za-z_.]…(?!['\"])|…,|… …")


def _cut_cases() -> list:  # type: ignore[type-arg]
    rng = np.random.default_rng(0)
    return [
        pytest.param(list(range(10**6, 10**6 + 100)), 60, "[1000000, 1000001", id="list-long-ints"),
        pytest.param([10**20 + i for i in range(30)], 50, "[100000000000000000000", id="list-huge-ints"),
        pytest.param({i: 10**12 + i for i in range(30)}, 60, "{0: 1000000000000", id="dict-values"),
        pytest.param([[1, 2, 3] * 10] * 5, 60, "[[1, 2, 3, 1", id="nested-list"),
        pytest.param(["abcdefghij" * 3] * 10, 50, "['abcdefghijabcdefghijabcdefghij'", id="list-of-str"),
        pytest.param(tuple(range(1000, 1100)), 40, "(1000, 1001", id="tuple"),
        pytest.param({f"key{i:03d}": [i] * 30 for i in range(20)}, 120, "{'key000': [0, 0", id="dict-of-lists"),
        pytest.param(np.arange(10**6, 10**6 + 100), 60, "[1000000, 1000001", id="ndarray-ints"),
        pytest.param(rng.random(100), 60, "[0.", id="ndarray-floats"),
        pytest.param(rng.standard_normal((512, 256)).astype("float32"), 200, "[[", id="ndarray-2d"),
        pytest.param(pd.Series(range(100), index=pd.date_range("2024-01-01", periods=100, freq="h")),
                     80, "{2024-01-01", id="series-datetime-index"),
    ]


@pytest.mark.parametrize("value, limit, start", _cut_cases())
def test_a_truncated_preview_ends_after_its_last_whole_element(value, limit, start):  # type: ignore[no-untyped-def]
    s = verify_summary(value, {"truncated": True}, preview_chars=limit)
    preview = s["preview"]
    assert preview.startswith(start), preview
    assert len(preview) <= limit and not GLITCH.search(preview), preview
    # one ellipsis, at the end, after a whole element (a nested "… N more]" is whole)
    assert preview.endswith(", …"), preview
    assert re.sub(r"… [\d,]+ more", "", preview).count("…") == 1, preview
