"""Case tables for ``summarize`` on every kind, on heavy objects and on hostile ones."""

from __future__ import annotations

import collections
import dataclasses
import decimal
import fractions
import functools
import math
import sys
import time
import tracemalloc
import types
import typing

import numpy as np
import pandas as pd
import pytest

from jupyter_kernel_state.probe import format_card, summarize

from . import hostile
from .helpers import at_most, contains, startswith, verify_summary


@dataclasses.dataclass
class Point:
    x: int
    y: list
    secret: str = dataclasses.field(default="s", repr=False)


@dataclasses.dataclass(slots=True)
class Slotted:
    a: int
    b: str


class Pair(typing.NamedTuple):
    left: int
    right: str


class MyList(list):
    pass


class MyDictWithRepr(dict):
    def __repr__(self) -> str:
        return "MyDictWithRepr!"


def plain_function(a, b=1, *args, c=None, **kw):  # type: ignore[no-untyped-def]
    """Add things.

    Second paragraph is not shown."""


BUILTIN_CASES = [
    pytest.param(42, {"kind": "number", "type": "int", "preview": "42", "size": None}, id="int"),
    pytest.param(True, {"kind": "boolean", "preview": "True"}, id="bool"),
    pytest.param(None, {"kind": "none", "preview": "None", "qualname": "NoneType"}, id="none"),
    pytest.param(1.5, {"kind": "number", "preview": "1.5"}, id="float"),
    pytest.param(math.nan, {"kind": "number", "preview": "nan"}, id="nan"),
    pytest.param(1 + 2j, {"kind": "number", "preview": "(1+2j)"}, id="complex"),
    pytest.param(decimal.Decimal("1.10"), {"kind": "number", "preview": "Decimal('1.10')"}, id="decimal"),
    pytest.param(fractions.Fraction(1, 3), {"kind": "number", "preview": "Fraction(1, 3)"}, id="fraction"),
    pytest.param(10**5000, {"kind": "number", "preview": contains("digits"), "truncated": True}, id="huge-int"),
    pytest.param("héllo", {"kind": "string", "size": 5, "preview": "'héllo'", "truncated": False}, id="str"),
    pytest.param("ab" * 1000, {"kind": "string", "size": 2000, "truncated": True, "preview": at_most(200)}, id="long-str"),
    pytest.param(b"\x00ab", {"kind": "bytes", "size": 3, "nbytes": 3, "preview": "b'\\x00ab'"}, id="bytes"),
    pytest.param(bytearray(b"xy"), {"kind": "bytes", "preview": "bytearray(b'xy')"}, id="bytearray"),
    pytest.param(memoryview(b"abcd"), {"kind": "bytes", "size": 4, "shape": [4], "dtype": "B"}, id="memoryview"),
    pytest.param([1, "a", None], {"kind": "sequence", "size": 3, "preview": "[1, 'a', None]"}, id="list"),
    pytest.param((1,), {"kind": "sequence", "preview": "(1,)"}, id="tuple-1"),
    pytest.param((), {"kind": "sequence", "preview": "()"}, id="tuple-0"),
    pytest.param(collections.deque([1, 2], maxlen=5), {"preview": "deque([1, 2])", "size": 2}, id="deque"),
    pytest.param(range(0, 10**12, 3), {"kind": "sequence", "size": 333333333334, "preview": "range(0, 1000000000000, 3)"}, id="range"),
    pytest.param({"a": 1, 2: [3]}, {"kind": "mapping", "size": 2, "preview": "{'a': 1, 2: [3]}"}, id="dict"),
    pytest.param(collections.OrderedDict(a=1), {"preview": "OrderedDict({'a': 1})"}, id="ordereddict"),
    pytest.param(collections.defaultdict(list, a=[1]), {"preview": "defaultdict(list, {'a': [1]})"}, id="defaultdict"),
    pytest.param(collections.Counter("aab"), {"preview": "Counter({'a': 2, 'b': 1})"}, id="counter"),
    pytest.param(types.MappingProxyType({"k": 1}), {"kind": "mapping", "preview": "mappingproxy({'k': 1})"}, id="mappingproxy"),
    pytest.param({3}, {"kind": "set", "size": 1, "preview": "{3}"}, id="set"),
    pytest.param(set(), {"preview": "set()"}, id="empty-set"),
    pytest.param(frozenset({1}), {"kind": "set", "preview": "frozenset({1})"}, id="frozenset"),
    pytest.param(Point(1, [2]), {"kind": "object", "preview": "Point(x=1, y=[2])", "type": "Point"}, id="dataclass"),
    pytest.param(Slotted(1, "b"), {"preview": "Slotted(a=1, b='b')"}, id="dataclass-slots"),
    pytest.param(Pair(1, "r"), {"kind": "sequence", "size": 2, "preview": "Pair(left=1, right='r')"}, id="namedtuple"),
    pytest.param(MyList([1, 2]), {"kind": "sequence", "size": 2, "preview": "[1, 2]", "qualname": contains("MyList")}, id="list-subclass"),
    pytest.param(MyDictWithRepr(a=1), {"kind": "mapping", "size": 1, "preview": "MyDictWithRepr!"}, id="dict-subclass-repr"),
    pytest.param(plain_function, {"kind": "callable", "preview": "plain_function(a, b=1, *args, c=None, **kw)"}, id="function"),
    pytest.param(len, {"kind": "callable", "preview": "len(obj, /)"}, id="builtin"),
    pytest.param([].append, {"kind": "callable", "preview": startswith("list.append(")}, id="method"),
    pytest.param(functools.partial(plain_function, 1), {"kind": "callable", "preview": startswith("partial(plain_function")}, id="partial"),
    pytest.param(Point, {"kind": "class", "preview": contains("Point'>")}, id="class"),
    pytest.param(math, {"kind": "module", "preview": startswith("<module 'math'")}, id="module"),
    pytest.param(object(), {"kind": "object", "preview": startswith("<object object at")}, id="object"),
    pytest.param(hostile.DescribesItself(), {"preview": "a table of 3 customers", "error": None}, id="repr-llm"),
]

NUMPY_PANDAS_CASES = [
    pytest.param(np.arange(12.0).reshape(3, 4), {"kind": "array", "size": 12, "shape": [3, 4], "dtype": "float64", "nbytes": 96, "preview": "[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]"}, id="ndarray"),
    pytest.param(np.array(5), {"kind": "array", "shape": [], "size": 1, "preview": "array(5)"}, id="ndarray-0d"),
    pytest.param(np.array([object(), hostile.ReprRaises()], dtype=object), {"kind": "array", "preview": contains("repr raised ValueError")}, id="ndarray-object"),
    pytest.param(np.float32(1.5), {"kind": "number", "dtype": "float32", "preview": "1.5"}, id="np-float"),
    pytest.param(np.bool_(True), {"kind": "boolean", "preview": "True"}, id="np-bool"),
    pytest.param(np.str_("hi"), {"kind": "string", "preview": "'hi'"}, id="np-str"),
    pytest.param(pd.DataFrame({"region": ["n", "s"], "units": [1, 2]}), {"kind": "dataframe", "shape": [2, 2], "size": 4, "preview": startswith("2×2 — region:"), "nbytes": lambda n: isinstance(n, int) and n > 0}, id="dataframe"),
    pytest.param(pd.Series([1, 2, 3], dtype="int64"), {"kind": "series", "size": 3, "dtype": "int64", "preview": "[1, 2, 3]"}, id="series"),
    pytest.param(pd.Series({"north": 625000, "south": 1}), {"preview": "{'north': 625000, 'south': 1}"}, id="series-labels"),
    pytest.param(pd.Index(["a", "b"]), {"kind": "index", "size": 2, "preview": "['a', 'b']"}, id="index"),
    pytest.param(pd.RangeIndex(5), {"kind": "index", "preview": "RangeIndex(start=0, stop=5, step=1)"}, id="rangeindex"),
]


@pytest.mark.parametrize("value, expected", BUILTIN_CASES + NUMPY_PANDAS_CASES)
def test_summarize_kinds(value, expected):  # type: ignore[no-untyped-def]
    verify_summary(value, expected)


HOSTILE_CASES = [
    pytest.param(hostile.ReprRaises(), {"error": "repr raised ValueError", "preview": contains("ReprRaises object at")}, id="repr-raises"),
    pytest.param(hostile.ReprSleeps(), {"error": "repr timed out", "preview": contains("ReprSleeps object")}, id="repr-sleeps"),
    pytest.param(hostile.ReprSwallowsTimeout(), {"error": "repr timed out"}, id="repr-swallows-timeout"),
    pytest.param(hostile.ReprHuge(), {"preview": at_most(200), "error": lambda e: e in (None, "repr timed out")}, id="repr-huge"),
    pytest.param(hostile.ReprNotStr(), {"error": "repr raised TypeError"}, id="repr-not-str"),
    pytest.param(hostile.LenRaises(), {"error": "len raised TypeError", "preview": "LenRaises()", "size": None}, id="len-raises"),
    pytest.param(hostile.LenNegative(), {"error": "len raised ValueError", "preview": "LenRaises()"}, id="len-negative"),
    pytest.param(hostile.LenHuge(), {"error": "len raised OverflowError"}, id="len-huge"),
    pytest.param(hostile.LenNotInt(), {"error": "len raised TypeError"}, id="len-not-int"),
    pytest.param(hostile.AttributesRaise(), {"kind": "object", "type": "AttributesRaise", "preview": contains("AttributesRaise object")}, id="attributes-raise"),
    pytest.param(hostile.ClassProperty(), {"type": "ClassProperty", "preview": "ClassProperty()"}, id="class-property"),
    pytest.param(hostile.cycle_list(), {"preview": "[1, [...]]", "size": 2}, id="cycle-list"),
    pytest.param(hostile.cycle_dict(), {"preview": "{'a': 1, 'self': {...}}"}, id="cycle-dict"),
    pytest.param(hostile.deep_list(), {"preview": "[[[[[…]]]]]", "truncated": True}, id="deep-nesting"),
    pytest.param([hostile.ReprRaises(), 1], {"preview": "[<ReprRaises object: repr raised ValueError>, 1]", "error": None}, id="element-repr-raises"),
    pytest.param([hostile.ReprSleeps()], {"error": "repr timed out", "size": 1}, id="element-repr-sleeps"),
    pytest.param({hostile.EqRaises(): 1}, {"kind": "mapping", "size": 1, "preview": "{<EqRaises object: repr raised RuntimeError>: 1}"}, id="hostile-key"),
    pytest.param(hostile.DescribesBadly(), {"error": "llm repr raised TypeError", "preview": contains("DescribesBadly object")}, id="repr-llm-not-str"),
]


@pytest.mark.parametrize("value, expected", HOSTILE_CASES)
def test_summarize_hostile(value, expected):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    verify_summary(value, expected, time_guard_ms=50)
    assert time.perf_counter() - t0 < 2.0


def test_blocking_repr_is_interrupted():  # type: ignore[no-untyped-def]
    hostile.ReprBlocks.lock.acquire()
    try:
        t0 = time.perf_counter()
        verify_summary(hostile.ReprBlocks(), {"error": "repr timed out"}, time_guard_ms=50)
        assert time.perf_counter() - t0 < 1.0
    finally:
        hostile.ReprBlocks.lock.release()


@pytest.mark.timeout(60, method="thread")
def test_guard_stands_down_when_a_user_timer_is_pending():  # type: ignore[no-untyped-def]
    import signal

    signal.setitimer(signal.ITIMER_REAL, 30)
    try:
        verify_summary([1, 2], {"preview": "[1, 2]"})
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 20  # the user's timer is untouched
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def test_properties_are_never_evaluated():  # type: ignore[no-untyped-def]
    hostile.PropertyCounter.reads = 0
    summarize("p", hostile.PropertyCounter())
    assert hostile.PropertyCounter.reads == 0


def test_preview_chars_is_respected():  # type: ignore[no-untyped-def]
    for chars in (10, 50, 500):
        verify_summary([list(range(100))] * 100, {"truncated": True, "preview": at_most(chars)}, preview_chars=chars)


# --- heavy objects: bounded time and memory ----------------------------------------


@pytest.fixture(scope="module")
def heavy():  # type: ignore[no-untyped-def]
    n = 1_000_000
    return {
        "dataframe": pd.DataFrame({"a": np.arange(n), "b": np.random.default_rng(0).random(n), "c": ["x"] * n}),
        "dict": {i: i for i in range(n)},
        "list": list(range(n)),
        "str": "s" * 100_000_000,
        "set": set(range(n)),
        "series": pd.Series(np.arange(n)),
        "ndarray": np.zeros((1000, 1000)),
    }


HEAVY_CASES = [
    pytest.param("dataframe", {"kind": "dataframe", "shape": [1_000_000, 3], "preview": startswith("1,000,000×3 — a:int64, b:float64, c:")}, id="dataframe"),
    pytest.param("dict", {"size": 1_000_000, "truncated": True, "preview": contains("more}")}, id="dict"),
    pytest.param("list", {"size": 1_000_000, "preview": contains("999,980 more")}, id="list"),
    pytest.param("str", {"size": 100_000_000, "truncated": True}, id="str"),
    pytest.param("set", {"size": 1_000_000, "truncated": True}, id="set"),
    pytest.param("series", {"size": 1_000_000, "dtype": "int64"}, id="series"),
    pytest.param("ndarray", {"size": 1_000_000, "nbytes": 8_000_000}, id="ndarray"),
]


@pytest.mark.parametrize("key, expected", HEAVY_CASES)
def test_heavy_objects_are_cheap(heavy, key, expected):  # type: ignore[no-untyped-def]
    value = heavy[key]
    verify_summary(value, expected)  # also warms the type caches
    # Time is for benchmarks/; here the bound is memory: no full repr, no traversal copy.
    tracemalloc.start()
    try:
        summarize("v", value)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, peak


# --- optional libraries -------------------------------------------------------------


def test_polars():  # type: ignore[no-untyped-def]
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    verify_summary(df, {"kind": "dataframe", "shape": [3, 2], "preview": "3×2 — a:Int64, b:String"})
    verify_summary(df["a"], {"kind": "series", "size": 3, "dtype": "Int64", "preview": "[1, 2, 3]"})


def test_xarray():  # type: ignore[no-untyped-def]
    xr = pytest.importorskip("xarray")
    da = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("time", "x"))
    verify_summary(da, {"kind": "array", "shape": [2, 3], "dtype": "float64", "preview": startswith("(time: 2, x: 3) [0.0, 1.0")})
    ds = xr.Dataset({"temp": da})
    verify_summary(ds, {"kind": "mapping", "size": 1, "preview": contains("temp:float64")})


def test_torch():  # type: ignore[no-untyped-def]
    torch = pytest.importorskip("torch")
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    verify_summary(t, {"kind": "tensor", "shape": [3, 4], "dtype": "float32", "size": 12, "nbytes": 48, "preview": startswith("[0.0, 1.0, 2.0, 3.0")})


def test_probe_never_imports_libraries():  # type: ignore[no-untyped-def]
    import subprocess

    code = (
        "import sys\n"
        "from jupyter_kernel_state.probe import summarize, snapshot\n"
        "summarize('x', [1, 2]); snapshot({'op': 'snapshot'}, namespace={'a': 1})\n"
        "bad = [m for m in ('numpy', 'pandas', 'polars', 'torch', 'xarray', 'IPython') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-W", "error", "-c", code], check=True, timeout=60)


def test_format_card():  # type: ignore[no-untyped-def]
    s = summarize("sales", pd.DataFrame({"a": [1]}), description="raw export", constraints="read-only")
    assert s["description"] == "raw export" and s["change"] == "unchanged" and s["changed_at"] is None
    card = format_card(s)
    assert card.splitlines()[0] == "Variable: sales"
    for text in ("Type: pandas.DataFrame (dataframe)", "Description: raw export", "Constraints: read-only", "Shape: 1×1", "Preview: 1×1 — a:int64"):
        assert text in card
    assert "Total length: 5 characters" in format_card(summarize("s", "hello"))
