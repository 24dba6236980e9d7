"""Faults: user code raising any BaseException, a real interrupt, no time guard, and
output the probe must keep from every client."""

from __future__ import annotations

import base64
import json
import logging
import os
import signal
import threading
import time
import types
from typing import Any

import numpy as np
import pandas as pd
import pytest

from jupyter_kernel_state.probe import entry, guard, summarize

from . import hostile
from .helpers import contains, verify_summary

UNAVAILABLE = "not inspected: time guard unavailable (a timer of the user's is pending)"


def encoded(request: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(request).encode()).decode()


def call(request: dict[str, Any]) -> dict[str, Any]:
    return json.loads(repr(entry.call(encoded(request))))


class Publisher:
    def __init__(self) -> None:
        self.published: list[Any] = []

    def publish(self, *args: Any, **kwargs: Any) -> None:
        self.published.append((args, kwargs))

    def clear_output(self, *args: Any, **kwargs: Any) -> None:
        self.published.append("clear")


@pytest.fixture
def shell():  # type: ignore[no-untyped-def]
    sh = types.SimpleNamespace(
        user_ns={}, user_ns_hidden={}, execution_count=1, display_pub=Publisher()
    )
    entry.install(shell=sh)
    yield sh
    entry.install(shell=None)


# --- any BaseException from user code is the field's error --------------------------


@pytest.mark.parametrize("kind", hostile.BASE_EXCEPTIONS, ids=lambda k: k.__name__)
@pytest.mark.parametrize(
    "where, expected",
    [
        ("repr", {"size": 3, "preview": contains("Raises object at"), "error": "repr raised {}"}),
        ("len", {"size": None, "preview": "Raises()", "error": "len raised {}"}),
        ("llm", {"size": 3, "preview": "Raises()", "error": "llm repr raised {}"}),
    ],
)
def test_user_base_exceptions_mark_one_field(kind, where, expected):  # type: ignore[no-untyped-def]
    want = dict(expected, error=expected["error"].format(kind.__name__))
    verify_summary(hostile.raising(kind, where), want)


@pytest.mark.parametrize("kind", hostile.BASE_EXCEPTIONS, ids=lambda k: k.__name__)
def test_one_bad_value_never_empties_the_snapshot(shell, kind):  # type: ignore[no-untyped-def]
    shell.user_ns.update(
        a=1, bad=hostile.raising(kind, "repr"), inner=[hostile.raising(kind, "repr")], z="ok"
    )
    reply = call({"op": "snapshot"})
    assert reply["ok"] is True and "interrupted" not in reply
    v = {x["name"]: x for x in reply["variables"]}
    assert v["a"]["preview"] == "1" and v["z"]["preview"] == "'ok'"
    assert v["bad"]["error"] == "repr raised " + kind.__name__ and v["bad"]["size"] == 3
    assert v["inner"]["preview"] == f"[<Raises object: repr raised {kind.__name__}>]"
    detail = call({"op": "detail", "name": "bad"})["variable"]
    assert "repr raised " + kind.__name__ in detail["error"] and detail["size"] == 3


def test_a_user_property_raising_systemexit_marks_its_field():  # type: ignore[no-untyped-def]
    class Frame(pd.DataFrame):
        @property
        def _constructor(self):  # type: ignore[no-untyped-def]
            return Frame

        @property
        def shape(self):  # type: ignore[no-untyped-def]
            raise SystemExit(3)

    s = verify_summary(Frame({"a": [1, 2]}), {"shape": None, "dtype": "int64", "nbytes": lambda n: n > 0})
    assert "shape raised SystemExit" in s["error"] and "repr raised SystemExit" in s["error"]
    assert "Frame object at" in s["preview"]


class DirExits(type):
    def __dir__(cls):  # type: ignore[no-untyped-def]
        raise SystemExit("from dir")


class EqExits:
    def __hash__(self) -> int:
        return 1

    def __eq__(self, other: object) -> bool:
        raise SystemExit("from eq")

    def __repr__(self) -> str:
        raise GeneratorExit("from repr")


class ShapeInterrupts(np.ndarray):
    @property
    def shape(self):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt("from shape")


def test_dir_eq_and_shape_raising_base_exceptions():  # type: ignore[no-untyped-def]
    value = DirExits("WithDir", (), {"x": 1})()
    out = entry.detail({"name": "v"}, namespace={"v": value})["variable"]
    assert out["error"] == "attributes raised SystemExit" and out["repr"].startswith("<")
    verify_summary({EqExits(): 1, 2: 2}, {"size": 2, "error": None, "preview": contains("<EqExits object: repr raised GeneratorExit>: 1")})
    s = verify_summary(np.arange(3).view(ShapeInterrupts), {"dtype": "int64", "nbytes": 24, "size": 3})
    assert "shape raised KeyboardInterrupt" in s["error"]


class FloatEqSleeps(float):
    calls = 0

    def __eq__(self, other: object) -> bool:
        FloatEqSleeps.calls += 1
        time.sleep(5)
        raise SystemExit("from eq")

    __hash__ = float.__hash__


def test_a_number_subclass_is_never_compared(shell):  # type: ignore[no-untyped-def]
    shell.user_ns["f"] = FloatEqSleeps(1.5)
    FloatEqSleeps.calls = 0
    t0 = time.perf_counter()
    for _ in range(2):  # the second snapshot checks the cached fingerprint
        reply = call({"op": "snapshot"})
        assert reply["ok"] is True and reply["variables"][0]["preview"] == "1.5"
    assert FloatEqSleeps.calls == 0
    assert time.perf_counter() - t0 < 1.0  # a hang guard (one comparison sleeps 5 s)


def test_the_time_guard_still_works_after_user_base_exceptions():  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    verify_summary([hostile.raising(SystemExit, "repr"), hostile.ReprSleeps()], {"error": "repr timed out"}, time_guard_ms=50)
    assert time.perf_counter() - t0 < 1.0


# --- a real interrupt ends the request -------------------------------------------


class InterruptsItself:
    """Sends the process a real SIGINT (as the stop button does), then works on."""

    swallow = False

    def __repr__(self) -> str:
        os.kill(os.getpid(), signal.SIGINT)
        try:
            for _ in range(50):
                time.sleep(0.001)
        except BaseException:
            if not self.swallow:
                raise
        return "survived"


class SwallowsInterrupt(InterruptsItself):
    swallow = True


@pytest.mark.parametrize("cls", [InterruptsItself, SwallowsInterrupt])
def test_a_real_sigint_ends_the_request(shell, cls):  # type: ignore[no-untyped-def]
    before = signal.getsignal(signal.SIGINT)
    shell.user_ns.update(a=1, b=cls())
    reply = call({"op": "snapshot", "time_guard_ms": 2000})
    assert reply["ok"] is False and reply["interrupted"] is True
    assert signal.getsignal(signal.SIGINT) is before  # the kernel's handler is back
    # The next request works (and the user's own KeyboardInterrupt is just an error).
    shell.user_ns["b"] = hostile.raising(KeyboardInterrupt, "repr")
    reply = call({"op": "snapshot"})
    assert reply["ok"] is True
    assert {x["name"]: x for x in reply["variables"]}["b"]["error"] == "repr raised KeyboardInterrupt"


def test_without_our_sigint_handler_a_keyboardinterrupt_is_taken_as_real():  # type: ignore[no-untyped-def]
    with guard.session() as session:
        assert session.sigint
        with pytest.raises(KeyboardInterrupt):
            session.sigint = False  # as on another thread, or SIGINT ignored
            guard.check(KeyboardInterrupt())
        session.sigint = True
        guard.check(KeyboardInterrupt())  # the user's: returns


# --- no time guard: no user code --------------------------------------------------


class SlowEverything:
    calls = 0

    def __repr__(self) -> str:
        SlowEverything.calls += 1
        time.sleep(3)
        return "slow"

    def __len__(self) -> int:
        SlowEverything.calls += 1
        time.sleep(3)
        return 1


STATIC_CASES = [
    pytest.param(SlowEverything(), {"size": None, "preview": "", "error": UNAVAILABLE}, id="slow-object"),
    pytest.param([SlowEverything()], {"size": 1, "preview": "", "error": UNAVAILABLE}, id="list-of-slow"),
    pytest.param({"k": SlowEverything()}, {"size": 1, "kind": "mapping", "error": UNAVAILABLE}, id="dict-of-slow"),
    pytest.param(b"ab", {"size": 2, "nbytes": 2, "preview": "b'ab'", "error": None}, id="bytes"),
    pytest.param([1, 2], {"size": 2, "preview": "[1, 2]", "error": None}, id="plain-list"),
    pytest.param(7, {"preview": "7", "error": None}, id="int"),
    pytest.param(np.zeros((2, 3)), {"shape": [2, 3], "dtype": "float64", "nbytes": 48, "error": None}, id="numeric-array"),
    pytest.param(np.array([SlowEverything()], dtype=object), {"shape": [1], "dtype": "object", "preview": "", "error": UNAVAILABLE}, id="object-array"),
    pytest.param(np.int16(5), {"dtype": "int16", "preview": "5"}, id="np-scalar"),
    pytest.param(pd.DataFrame({"a": [SlowEverything()], "b": [1]}), {"shape": [1, 2], "size": 2, "preview": "", "error": UNAVAILABLE}, id="dataframe"),
    pytest.param(pd.Series([SlowEverything()] * 3), {"shape": [3], "size": 3, "dtype": "object", "error": UNAVAILABLE}, id="series"),
    pytest.param(hostile.DescribesItself(), {"preview": "", "error": UNAVAILABLE}, id="repr-llm"),
]


@pytest.mark.parametrize("value, expected", STATIC_CASES)
def test_pending_user_timer_means_no_user_code(value, expected):  # type: ignore[no-untyped-def]
    SlowEverything.calls = 0
    signal.setitimer(signal.ITIMER_REAL, 1000)
    try:
        t0 = time.perf_counter()
        verify_summary(value, expected)
        assert time.perf_counter() - t0 < 2.5  # any call into the value sleeps 3 s
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 900  # the user's timer untouched
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    assert SlowEverything.calls == 0


def test_off_the_main_thread_no_user_code():  # type: ignore[no-untyped-def]
    SlowEverything.calls = 0
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(summarize("s", SlowEverything())))
    thread.start()
    thread.join(10)
    assert result["error"] == "not inspected: time guard unavailable (not the main thread)"
    assert SlowEverything.calls == 0


def test_detail_without_a_time_guard_calls_no_user_code():  # type: ignore[no-untyped-def]
    SlowEverything.calls = 0
    signal.setitimer(signal.ITIMER_REAL, 1000)
    try:
        t0 = time.perf_counter()
        out = entry.detail({"name": "s"}, namespace={"s": [SlowEverything(), SlowEverything()]})
        assert time.perf_counter() - t0 < 0.5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    v = out["variable"]
    assert v["error"] == UNAVAILABLE and v["size"] == 2 and SlowEverything.calls == 0
    assert v["repr"] == "" and v["children"] == []  # nothing listed that would need a guard


# --- nothing reaches a client -----------------------------------------------------


def test_display_warnings_and_logging_from_a_repr_are_muted(shell, capsys):  # type: ignore[no-untyped-def]
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    pub = ip.display_pub
    published: list[Any] = []
    pub.publish = lambda *a, **k: published.append(a)  # type: ignore[method-assign]
    shell.display_pub = pub
    handler_records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = handler_records.append  # type: ignore[method-assign]
    logging.getLogger("hostile").addHandler(handler)
    try:
        shell.user_ns["d"] = hostile.DisplaysFromRepr()
        reply = call({"op": "snapshot"})  # filterwarnings=error: a warning would fail it
        assert reply["ok"] is True and reply["variables"][0]["preview"] == "DisplaysFromRepr()"
        assert published == [] and handler_records == []
        assert pub.publish is not None and logging.root.manager.disable == 0
        logging.getLogger("hostile").error("after")
        assert len(handler_records) == 1  # logging is back
    finally:
        logging.getLogger("hostile").removeHandler(handler)
        del pub.publish
        InteractiveShell.clear_instance()
    assert capsys.readouterr().out == ""


def test_the_shells_publisher_is_restored(shell):  # type: ignore[no-untyped-def]
    pub = shell.display_pub
    before = pub.publish
    shell.user_ns["x"] = hostile.raising(SystemExit, "repr")
    call({"op": "snapshot"})
    assert pub.publish == before and "publish" not in pub.__dict__ and pub.published == []
