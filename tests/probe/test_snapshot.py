"""snapshot and detail ops on explicit namespaces: filtering, sorting, paging, caching,
access keys and name validation."""

from __future__ import annotations

import dataclasses
import functools
import math
import time

import pandas as pd
import pytest

from jupyter_kernel_state.probe import detail, snapshot

from . import hostile
from .helpers import validate


def names_of(reply):  # type: ignore[no-untyped-def]
    return [v["name"] for v in reply["variables"]]


def snap(ns, **request):  # type: ignore[no-untyped-def]
    reply = snapshot({"op": "snapshot", **request}, namespace=ns)
    for v in reply["variables"][:10]:  # jsonschema is slow: a sample is enough here
        validate(v, "Variable")
    return reply


class Klass:
    pass


def fn():  # type: ignore[no-untyped-def]
    pass


NAMESPACE = {
    "__name__": "__main__", "__builtins__": __builtins__, "In": [], "Out": {}, "_": 1,
    "__": 2, "_i": "", "_i3": "x = 1", "_3": 3, "_oh": {}, "get_ipython": fn, "exit": fn,
    "x": 1, "_private": 2, "math": math, "fn": fn, "part": functools.partial(fn),
    "Klass": Klass, "obj": Klass(), 7: "not a name", "not an identifier": 1,
}

FILTER_CASES = [
    pytest.param([], ["obj", "x"], id="default"),
    pytest.param(["private"], ["_private", "obj", "x"], id="private"),
    pytest.param(["modules"], ["math", "obj", "x"], id="modules"),
    pytest.param(["callables"], ["fn", "obj", "part", "x"], id="callables"),
    pytest.param(["classes"], ["Klass", "obj", "x"], id="classes"),
    pytest.param(["private", "modules", "callables", "classes"], ["_private", "fn", "Klass", "math", "obj", "part", "x"], id="all"),
]


@pytest.mark.parametrize("include, expected", FILTER_CASES)
def test_filtering(include, expected):  # type: ignore[no-untyped-def]
    reply = snap(dict(NAMESPACE), include=include)
    assert names_of(reply) == expected
    assert reply["total"] == len(expected)


def test_hidden_shell_names_are_not_shown():  # type: ignore[no-untyped-def]
    from jupyter_kernel_state.probe.namespace import visibility as namespace

    ns = {"a": 1, "b": 2}
    assert namespace.visible(ns, (), {"a": ns["a"], "b": object()}) == [("b", 2)]


SORT_CASES = [
    pytest.param("name", ["a", "B", "c", "v2", "v10", "V11"], id="name-natural-caseless"),
    pytest.param("type", ["v2", "v10", "V11", "a", "B", "c"], id="type"),
    pytest.param("size", ["c", "B", "a", "v2", "v10", "V11"], id="size"),
]


@pytest.mark.parametrize("sort, expected", SORT_CASES)
def test_sorting(sort, expected):  # type: ignore[no-untyped-def]
    ns = {"v10": 1.0, "B": [1, 2], "V11": 1.5, "a": "x", "c": [1, 2, 3], "v2": 2.0}
    ns["a"] = 7  # int
    assert names_of(snap(ns, sort=sort)) == expected


def test_paging_has_exact_total():  # type: ignore[no-untyped-def]
    ns = {f"v{i}": i for i in range(1234)}
    pages = [snap(ns, offset=o, limit=500) for o in (0, 500, 1000, 1500)]
    assert [p["total"] for p in pages] == [1234] * 4
    assert [len(p["variables"]) for p in pages] == [500, 500, 234, 0]
    assert [n for p in pages for n in names_of(p)] == [f"v{i}" for i in range(1234)]


@pytest.mark.parametrize(
    "request_fields",
    [{"limit": "5"}, {"sort": "random"}, {"include": ["everything"]}, {"since_ec": "1"}],
)
def test_bad_snapshot_requests(request_fields):  # type: ignore[no-untyped-def]
    reply = snapshot({"op": "snapshot", **request_fields}, namespace={"a": 1})
    assert reply["ok"] is False and reply["bad_request"] is True


def test_unchanged_values_are_not_summarized_again():  # type: ignore[no-untyped-def]
    hostile.CountingRepr.calls = 0
    ns = {"c": hostile.CountingRepr(), "x": 1}
    snap(ns)
    snap(ns)
    ns["x"] = 2
    reply = snap(ns)
    assert hostile.CountingRepr.calls == 1
    assert [v["preview"] for v in reply["variables"]] == ["CountingRepr()", "2"]
    ns["c"] = hostile.CountingRepr()
    snap(ns)
    assert hostile.CountingRepr.calls == 2


def test_slow_repr_is_cached_with_its_error():  # type: ignore[no-untyped-def]
    calls = []

    class CountedSleepyRepr:
        def __repr__(self) -> str:
            calls.append(1)
            time.sleep(5)
            return "slept"

    ns = {"slow": CountedSleepyRepr()}
    first = snap(ns, time_guard_ms=50)
    assert first["variables"][0]["error"] == "repr timed out"
    second = snap(ns, time_guard_ms=50)
    assert second["variables"] == first["variables"]
    assert len(calls) == 1, "an unchanged slow object is not asked again"


def test_mutation_of_a_list_is_seen():  # type: ignore[no-untyped-def]
    ns = {"items": [1, 2]}
    snap(ns)
    ns["items"].append(3)
    assert snap(ns)["variables"][0]["preview"] == "[1, 2, 3]"
    ns["items"][0] = 9
    assert snap(ns)["variables"][0]["preview"] == "[9, 2, 3]"


def test_one_hostile_object_does_not_empty_the_list():  # type: ignore[no-untyped-def]
    ns = {
        "a": hostile.ReprRaises(), "b": hostile.AttributesRaise(), "c": hostile.LenHuge(),
        "d": hostile.ClassProperty(), "e": hostile.ReprSleeps(), "f": 1,
    }
    reply = snap(ns, time_guard_ms=30)
    assert reply["total"] == 6 and len(reply["variables"]) == 6
    assert reply["variables"][-1]["preview"] == "1"


def test_time_budget_bounds_the_whole_call():  # type: ignore[no-untyped-def]
    """20 values each worth its 100 ms guard, 300 ms for the call: at most the values the
    budget holds (3, and one cut short) run their repr; the others are marked, not run."""
    ns = {f"s{i}": hostile.ReprSleeps() for i in range(20)}
    t0 = time.perf_counter()
    reply = snap(ns, time_guard_ms=100, budget_ms=300)
    errors = [v["error"] for v in reply["variables"]]
    assert len(errors) == 20
    timed_out = errors.count("repr timed out")
    exhausted = errors.count("not inspected: probe time budget exhausted")
    assert 1 <= timed_out <= 4 and timed_out + exhausted == 20, errors
    assert time.perf_counter() - t0 < 10.0  # a hang guard only (without a budget: 2 s)


# --- detail -------------------------------------------------------------------------


@dataclasses.dataclass
class Config:
    model: str
    depth: int


def get(ns, name, path=(), **extra):  # type: ignore[no-untyped-def]
    reply = detail({"op": "detail", "name": name, "path": list(path), **extra}, namespace=ns)
    if reply.get("ok", True):
        validate(reply["variable"], "VariableDetail")
    return reply


DETAIL_NS = {
    "d": {"a": 1, 2: [10, 20], (1, 2): "tuple key", None: "none key"},
    "items": [1, [2, 3]],
    "s": {42},
    "cfg": Config("gbm", 6),
    "df": pd.DataFrame({"region": ["n", "s"], "units": [1, 2], 3: [0.5, 1.5]}),
    "obj": hostile.PropertyCounter(),
    "fn": functools.partial,
    "In": [],
}

CHILD_CASES = [
    pytest.param("d", ['k:"a"'], "1", id="dict-str-key"),
    pytest.param("d", ["k:2", "i:1"], "20", id="dict-int-key-then-index"),
    pytest.param("d", ["p:2"], "'tuple key'", id="dict-position"),
    pytest.param("d", ["k:null"], "'none key'", id="dict-none-key"),
    pytest.param("items", ["i:1", "i:0"], "2", id="nested-index"),
    pytest.param("s", ["e:0"], "42", id="set-element"),
    pytest.param("cfg", ["a:model"], "'gbm'", id="dataclass-field"),
    pytest.param("df", ['c:"units"'], "[1, 2]", id="dataframe-column"),
    pytest.param("df", ["c:3"], "[0.5, 1.5]", id="dataframe-int-column"),
    pytest.param("obj", ["a:plain"], "1", id="attribute"),
]


@pytest.mark.parametrize("name, path, preview", CHILD_CASES)
def test_detail_access_keys(name, path, preview):  # type: ignore[no-untyped-def]
    assert get(DETAIL_NS, name, path)["variable"]["preview"] == preview


def test_children_round_trip():  # type: ignore[no-untyped-def]
    for name in ("d", "items", "s", "cfg", "df"):
        for child in get(DETAIL_NS, name)["variable"]["children"]:
            assert get(DETAIL_NS, name, [child["access_key"]])["variable"]["type"] == child["type"]


BAD_KEYS = ["i:99", "i:-1", "zz", 'k:"missing"', "k:{not json", "p:100", "e:5", "a:nothing", "c:\"nope\"", "x" * 5000]


@pytest.mark.parametrize("key", BAD_KEYS)
def test_bad_access_keys(key):  # type: ignore[no-untyped-def]
    for name in ("d", "items", "s", "df", "obj"):
        reply = get(DETAIL_NS, name, [key])
        assert reply == {"ok": False, "not_found": True, "error": reply["error"]}
        assert reply["error"].startswith("Child not found: ")


@pytest.mark.parametrize("name", ["1abc", "class", "a" * 257, "", "a.b", "a b", None, 5, "__import__('os')"])
def test_detail_rejects_invalid_names(name):  # type: ignore[no-untyped-def]
    reply = get(DETAIL_NS, name)
    assert reply["ok"] is False and reply["bad_request"] is True


@pytest.mark.parametrize("name", ["missing", "In", "ｘ"])
def test_detail_not_found(name):  # type: ignore[no-untyped-def]
    ns = dict(DETAIL_NS, x=1)
    assert get(ns, name) == {"ok": False, "not_found": True, "error": f"Variable not found: {name}"}


def test_detail_of_a_dataframe():  # type: ignore[no-untyped-def]
    v = get(DETAIL_NS, "df")["variable"]
    assert v["columns"] == [{"name": "region", "dtype": "str"}, {"name": "units", "dtype": "int64"}, {"name": "3", "dtype": "float64"}]
    assert v["columns_total"] == 3
    assert v["head"] == {"columns": ["region", "units", "3"], "rows": [["n", "1", "0.5"], ["s", "2", "1.5"]], "index": ["0", "1"]}
    assert "region" in v["repr"] and v["children_total"] == 3


def test_detail_of_a_mapping_and_attributes():  # type: ignore[no-untyped-def]
    v = get(DETAIL_NS, "d")["variable"]
    assert v["keys"] == ["'a'", "2", "(1, 2)", "None"] and v["keys_total"] == 4
    obj = get(DETAIL_NS, "obj")["variable"]
    assert {"name": "expensive", "type": "property"} in obj["attributes"]
    assert {"name": "plain", "type": "int"} in obj["attributes"]
    assert hostile.PropertyCounter.reads == 0


class Tool:
    """Every way a class holds a callable, beside its data."""

    limit = 3

    def __init__(self) -> None:
        self.name = "saw"

    def use(self) -> None:
        pass

    @classmethod
    def make(cls) -> Tool:
        return cls()

    @staticmethod
    def check() -> bool:
        return True

    sharpen = functools.partialmethod(use)

    @functools.cached_property
    def weight(self) -> int:
        return 1


# A type's callables are its methods, whatever the type and however it stores them (a
# builtin container's classmethod is a `classmethod_descriptor`: dict.fromkeys); data and
# properties are its attributes.
ATTRIBUTE_CASES = [
    pytest.param({"a": 1}, {"fromkeys": "classmethod", "get": "method", "keys": "method"},
                 [], id="dict"),
    pytest.param([1], {"append": "method", "sort": "method"}, [], id="list"),
    pytest.param({1}, {"add": "method", "union": "method"}, [], id="set"),
    pytest.param((1,), {"count": "method", "index": "method"}, [], id="tuple"),
    pytest.param(b"x", {"fromhex": "classmethod", "decode": "method",
                        "maketrans": "staticmethod"}, [], id="bytes"),
    pytest.param("x", {"maketrans": "staticmethod", "upper": "method"}, [], id="str"),
    pytest.param(7, {"from_bytes": "classmethod", "bit_length": "method"},
                 ["denominator", "imag", "numerator", "real"], id="int"),
    pytest.param(1.5, {"fromhex": "classmethod", "hex": "method"}, ["imag", "real"],
                 id="float"),
    pytest.param(Tool(), {"use": "method", "make": "classmethod", "check": "staticmethod",
                          "sharpen": "method"}, ["limit", "name", "weight"], id="own-class"),
]


@pytest.mark.parametrize("value, methods, data", ATTRIBUTE_CASES)
def test_attributes_list_a_types_callables_as_methods(value, methods, data):  # type: ignore[no-untyped-def]
    v = get({"v": value}, "v")["variable"]
    kinds = {a["name"]: a["type"] for a in v["attributes"]}
    assert {name: kinds.get(name) for name in methods} == methods
    listed_as_data = [a["name"] for a in v["attributes"]
                      if a["type"] not in ("method", "classmethod", "staticmethod")]
    assert listed_as_data == data  # data first, by name; no callable among them
    assert len(v["attributes"]) == v["attributes_total"]


def test_detail_of_a_callable():  # type: ignore[no-untyped-def]
    def documented(a, b=2):  # type: ignore[no-untyped-def]
        """First paragraph.

        Second."""

    v = get({"f": documented}, "f")["variable"]
    assert v["signature"] == "(a, b=2)" and v["doc"] == "First paragraph."


def test_detail_repr_is_bounded_and_llm_repr_is_used():  # type: ignore[no-untyped-def]
    ns = {"big": list(range(100_000)), "me": hostile.DescribesItself(), "huge": hostile.ReprHuge()}
    v = get(ns, "big", max_chars=1000)["variable"]
    assert len(v["repr"]) <= 1000 and v["repr_truncated"] is True and v["children_total"] == 100_000
    assert len(v["children"]) == 100
    me = get(ns, "me")["variable"]
    assert me["llm_repr"] == "a table of 3 customers" == me["preview"]
    huge = get(ns, "huge", max_chars=65536, time_guard_ms=2000)["variable"]
    assert len(huge["repr"]) == 65536


def test_detail_of_hostile_objects_reports_each_part():  # type: ignore[no-untyped-def]
    v = get({"h": hostile.AttributesRaise()}, "h")["variable"]
    assert "AttributesRaise object" in v["repr"] and v["error"] is None  # nothing of it was called
    s = get({"s": hostile.ReprSleeps()}, "s", time_guard_ms=50)["variable"]
    assert "repr timed out" in s["error"]


# --- call(): the server's entry point -----------------------------------------------


def encoded(request) -> str:  # type: ignore[no-untyped-def]
    import base64
    import json

    return base64.urlsafe_b64encode(json.dumps(request).encode()).decode()


@pytest.mark.parametrize(
    "argument",
    ["!!!", encoded([1]), encoded({"op": "nope"}), encoded({"op": "snapshot", "limit": -1, "sort": 3}), None],
)
def test_call_never_raises(argument):  # type: ignore[no-untyped-def]
    import json

    from jupyter_kernel_state.probe import call

    reply = json.loads(repr(call(argument)))
    assert reply["ok"] is False and isinstance(reply["error"], str) and "Traceback" not in reply["error"]


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, RecursionError])
def test_call_survives_base_exceptions(monkeypatch, exc):  # type: ignore[no-untyped-def]
    import json

    from jupyter_kernel_state.probe import call, entry

    def boom(state, fields, ns, hidden, tracker):  # type: ignore[no-untyped-def]
        raise exc()

    monkeypatch.setitem(entry.HANDLERS, "ping", boom)
    reply = json.loads(repr(call(encoded({"op": "ping"}))))
    assert reply["ok"] is False and reply["error"] == f"probe error: {exc.__name__}"
    assert bool(reply.get("interrupted")) is (exc is KeyboardInterrupt)  # the stop button


def test_call_swallows_output_and_restores_streams(capsys):  # type: ignore[no-untyped-def]
    import json
    import sys

    from jupyter_kernel_state.probe import call

    main = sys.modules["__main__"].__dict__
    main["jks_loud"] = hostile.Prints()
    try:
        out, err = sys.stdout, sys.stderr
        reply = json.loads(repr(call(encoded({"op": "detail", "name": "jks_loud"}))))
        assert sys.stdout is out and sys.stderr is err
    finally:
        del main["jks_loud"]
    assert reply["variable"]["preview"] == "Prints()"
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_reply_pretty_printer_is_one_line():  # type: ignore[no-untyped-def]
    from IPython.lib.pretty import pretty

    from jupyter_kernel_state.probe import call

    reply = call(encoded({"op": "ping"}))
    assert pretty(reply) == repr(reply) and "\n" not in repr(reply)
