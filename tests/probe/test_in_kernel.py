"""The probe inside a real ipykernel: silent install, user_expressions calls, change
tracking across user cells, and no side effects on the kernel."""

from __future__ import annotations

import time
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

from jupyter_kernel_state.probe.protocol import with_defaults
from jupyter_kernel_state.service.probe_loader import (
    ProbeMissing,
    call_expression,
    install_code,
    parse_reply,
)

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def kc():  # type: ignore[no-untyped-def]
    km, client = start_new_kernel(kernel_name="python3", startup_timeout=60)
    try:
        yield client
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def execute(kc, code: str = "", *, silent: bool = False, expressions: dict | None = None) -> tuple[dict, list[dict]]:  # type: ignore[no-untyped-def]
    """Run ``code``; return the execute_reply content and this request's IOPub messages."""
    msg_id = kc.execute(
        code, silent=silent, store_history=not silent, user_expressions=expressions or {},
        allow_stdin=False, stop_on_error=False,
    )
    while True:
        reply = kc.get_shell_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    messages = []
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
        if msg["msg_type"] not in ("status", "execute_input"):
            messages.append(msg)
    return reply["content"], messages


def probe(kc, request: dict[str, Any]) -> tuple[dict[str, Any], list[dict]]:  # type: ignore[no-untyped-def]
    content, messages = execute(kc, silent=True, expressions={"r": call_expression(request)})
    assert content["status"] == "ok"
    try:
        return parse_reply(content["user_expressions"]["r"]), messages
    except ProbeMissing:
        install(kc)
        content, messages = execute(kc, silent=True, expressions={"r": call_expression(request)})
        return parse_reply(content["user_expressions"]["r"]), messages


def install(kc) -> list[dict]:  # type: ignore[no-untyped-def]
    content, messages = execute(kc, install_code(), silent=True)
    assert content["status"] == "ok", content
    return messages


STATE = {
    "ec": "get_ipython().execution_count",
    "in": "len(In)",
    "out": "sorted(Out)",
    "under": "[repr(get_ipython().user_ns.get(k, '<absent>'))[:80] for k in ('_', '__', '___')]",
    "keys": "sorted(get_ipython().user_ns)",
}


def kernel_state(kc) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    content, _ = execute(kc, silent=True, expressions=STATE)
    return {k: v["data"]["text/plain"] for k, v in content["user_expressions"].items()}


def by_name(reply: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The reply's variables by name, made whole as a reader does (the wire is lean)."""
    return {v["name"]: with_defaults(v) for v in reply["variables"]}


def test_probe_leaves_no_trace(kc):  # type: ignore[no-untyped-def]
    execute(kc, "import sys\nnt_value = 41\nnt_value + 1")  # an output, so _ and Out are set
    before = kernel_state(kc)
    assert install(kc) == []
    reply, messages = probe(kc, {"op": "snapshot"})
    assert messages == [] and reply["ok"] is True
    assert by_name(reply)["nt_value"]["preview"] == "41"
    detail, messages = probe(kc, {"op": "detail", "name": "nt_value"})
    assert messages == [] and detail["variable"]["preview"] == "41"
    assert kernel_state(kc) == before
    assert reply["execution_count"] == int(before["ec"])
    missing, _ = probe(kc, {"op": "detail", "name": "In"})
    assert missing == {**missing, "ok": False, "not_found": True, "error": "Variable not found: In"}
    assert "sys" not in by_name(reply) and "In" not in by_name(reply)


def test_changes_across_cells(kc):  # type: ignore[no-untyped-def]
    install(kc)
    content, _ = execute(kc, "import pandas as pd\nch_df = pd.DataFrame({'x': range(1000)})\nch_items = [1, 2]\nch_gone = 1")
    first_ec = content["execution_count"]
    reply, _ = probe(kc, {"op": "snapshot", "since_ec": first_ec - 1})
    v = by_name(reply)
    assert v["ch_df"]["change"] == "new" and v["ch_df"]["changed_at"] == first_ec
    assert v["ch_items"]["change"] == "new"
    content, _ = execute(kc, "ch_df = ch_df.iloc[:980].assign(ratio=1.0)\nch_items.append(3)\ndel ch_gone")
    second_ec = content["execution_count"]
    reply, _ = probe(kc, {"op": "snapshot", "since_ec": first_ec})
    v = by_name(reply)
    assert v["ch_df"]["change"] == "modified" and v["ch_df"]["changed_at"] == second_ec
    assert v["ch_df"]["changes"] == ["rows 1,000 → 980", "column ratio added"]
    assert v["ch_items"]["change"] == "modified"
    assert v["ch_items"]["changes"] == ["len 2 → 3", "appended 3"]
    assert v["ch_items"]["preview"] == "[1, 2, 3]"
    assert "ch_gone" in reply["removed"] and reply["removed_total"] >= 1
    # Relative to the latest execution (since_ec omitted), and an unchanged rerun:
    execute(kc, "ch_other = 5")
    reply, _ = probe(kc, {"op": "snapshot"})
    v = by_name(reply)
    assert v["ch_other"]["change"] == "new" and v["ch_df"]["change"] == "unchanged"
    assert v["ch_df"]["changed_at"] == second_ec and v["ch_df"]["changes"] == []


def test_printing_repr_is_silent(kc):  # type: ignore[no-untyped-def]
    install(kc)
    execute(kc, "class Loud:\n    def __repr__(self):\n        print('LOUD'); import sys; print('ERR', file=sys.stderr); return 'Loud()'\nloud = Loud()")
    reply, messages = probe(kc, {"op": "snapshot"})
    assert by_name(reply)["loud"]["preview"] == "Loud()"
    assert messages == []
    detail, messages = probe(kc, {"op": "detail", "name": "loud"})
    assert messages == [] and detail["variable"]["repr"] == "Loud()"


def test_sleeping_repr_is_guarded(kc):  # type: ignore[no-untyped-def]
    install(kc)
    execute(kc, "import time\nclass Slow:\n    def __repr__(self):\n        time.sleep(5); return 'Slow()'\nslow = Slow()\nslow_ok = 1")
    t0 = time.perf_counter()
    reply, messages = probe(kc, {"op": "snapshot", "time_guard_ms": 100})
    assert time.perf_counter() - t0 < 2.5  # a hang guard (the repr sleeps 5 s)
    v = by_name(reply)
    assert v["slow"]["error"] == "repr timed out" and v["slow_ok"]["preview"] == "1"
    assert messages == []
    # The kernel stays usable and the user's own alarm handler is untouched.
    content, _ = execute(kc, "import signal\nassert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL\nassert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)")
    assert content["status"] == "ok"


def test_reinstall_gives_a_new_probe_id(kc):  # type: ignore[no-untyped-def]
    install(kc)
    first, _ = probe(kc, {"op": "ping"})
    install(kc)
    second, _ = probe(kc, {"op": "ping"})
    assert first["probe_id"] != second["probe_id"]
    hooks, _ = execute(kc, silent=True, expressions={
        "n": "len([f for f in get_ipython().events.callbacks['post_run_cell'] if getattr(f, '_jupyter_kernel_state_hook', False)])"
    })
    assert hooks["user_expressions"]["n"]["data"]["text/plain"] == "1"


def test_ten_thousand_variables(kc):  # type: ignore[no-untyped-def]
    install(kc)
    execute(kc, "for _k in range(10000):\n    globals()[f'tv{_k}'] = _k\ndel _k")
    first, _ = probe(kc, {"op": "snapshot", "limit": 500})
    assert first["total"] >= 10000 and len(first["variables"]) == 500
    execute(kc, "tv5 = 'changed'")
    second, _ = probe(kc, {"op": "snapshot", "limit": 500})
    assert by_name(second)["tv5"]["change"] == "new" or by_name(second)["tv5"]["change"] == "modified"
    hook, _ = execute(kc, silent=True, expressions={
        "ms": "__import__('sys').modules['_jupyter_kernel_state_probe'].entry._state.tracker.last_hook_ms"
    })
    hook_ms = float(hook["user_expressions"]["ms"]["data"]["text/plain"])
    assert hook_ms < 100, hook_ms  # a few ms unloaded; generous for shared CI
    execute(kc, "for _k in range(10000):\n    del globals()[f'tv{_k}']\ndel _k")


def test_silent_additions_and_rebinding_to_a_module(kc):  # type: ignore[no-untyped-def]
    install(kc)
    execute(kc, "sv_a = 1\nsv_b = 2")
    assert {"sv_a", "sv_b"} <= set(by_name(probe(kc, {"op": "snapshot"})[0]))
    # Another client's silent execution adds a name: no hook runs, it is listed at once.
    content, _ = execute(kc, "get_ipython().user_ns['sv_silent'] = [3]", silent=True)
    assert content["status"] == "ok"
    v = by_name(probe(kc, {"op": "snapshot"})[0])
    assert v["sv_silent"]["preview"] == "[3]" and v["sv_silent"]["change"] == "new"
    # A user cell rebinding a variable to a module: gone from the list after that cell.
    execute(kc, "import json as sv_a")
    reply, _ = probe(kc, {"op": "snapshot"})
    assert "sv_a" not in by_name(reply) and "sv_b" in by_name(reply)
    assert by_name(probe(kc, {"op": "snapshot", "include": ["modules"]})[0])["sv_a"]["kind"] == "module"
    execute(kc, "del sv_a, sv_b, sv_silent")


def test_pending_user_timer_no_user_code(kc):  # type: ignore[no-untyped-def]
    install(kc)
    execute(kc, "import signal, time\nclass Slow3:\n    calls = 0\n    def __repr__(self):\n        Slow3.calls += 1; time.sleep(3); return 'Slow3()'\npt_slow = Slow3()\npt_ok = [1, 2]\nsignal.signal(signal.SIGALRM, lambda *a: None)\nsignal.setitimer(signal.ITIMER_REAL, 1000)")
    try:
        t0 = time.perf_counter()
        reply, messages = probe(kc, {"op": "snapshot", "time_guard_ms": 100})
        elapsed = time.perf_counter() - t0
        v = by_name(reply)
        assert elapsed < 1.0, elapsed  # a hang guard (the repr sleeps 3 s)
        assert v["pt_slow"]["error"] == "not inspected: time guard unavailable (a timer of the user's is pending)"
        assert v["pt_slow"]["preview"] == "" and v["pt_ok"]["preview"] == "[1, 2]" and messages == []
        content, _ = execute(kc, silent=True, expressions={"left": "signal.getitimer(signal.ITIMER_REAL)[0]"})
        assert float(content["user_expressions"]["left"]["data"]["text/plain"]) > 900  # untouched
        content, _ = execute(kc, silent=True, expressions={"calls": "Slow3.calls"})
        assert content["user_expressions"]["calls"]["data"]["text/plain"] == "0"  # never called
    finally:
        execute(kc, "signal.setitimer(signal.ITIMER_REAL, 0)\nsignal.signal(signal.SIGALRM, signal.SIG_DFL)\ndel pt_slow, pt_ok")


def test_repr_that_displays_warns_and_logs_is_silent(kc):  # type: ignore[no-untyped-def]
    install(kc)
    execute(kc, "import logging, warnings\nlogging.basicConfig()\nfrom IPython.display import display\nclass Noisy:\n    def __repr__(self):\n        display('DISPLAYED'); warnings.warn('WARNED'); logging.getLogger('x').error('LOGGED'); return 'Noisy()'\nnoisy = Noisy()")
    reply, messages = probe(kc, {"op": "snapshot"})
    assert by_name(reply)["noisy"]["preview"] == "Noisy()"
    assert messages == []
    detail, messages = probe(kc, {"op": "detail", "name": "noisy"})
    assert detail["variable"]["repr"] == "Noisy()" and messages == []
    # Everything is restored: the user's own display and logging still reach clients.
    content, messages = execute(kc, "display('visible'); logging.getLogger('x').error('seen')")
    kinds = sorted(m["msg_type"] for m in messages)
    assert content["status"] == "ok" and kinds == ["display_data", "stream"], kinds
    execute(kc, "del noisy")


def test_user_keyboardinterrupt_vs_real_sigint(kc):  # type: ignore[no-untyped-def]
    install(kc)
    execute(kc, "import os, signal, time\nclass UserKI:\n    def __repr__(self):\n        raise KeyboardInterrupt('mine')\nclass RealSigint:\n    def __repr__(self):\n        os.kill(os.getpid(), signal.SIGINT); time.sleep(1); return 'late'\nki_user = UserKI()\nki_ok = 5")
    before, _ = execute(kc, silent=True, expressions={"h": "repr(signal.getsignal(signal.SIGINT))"})
    reply, messages = probe(kc, {"op": "snapshot"})
    assert reply["ok"] is True and messages == []
    v = by_name(reply)
    assert v["ki_user"]["error"] == "repr raised KeyboardInterrupt" and v["ki_ok"]["preview"] == "5"
    execute(kc, "ki_real = RealSigint()")
    t0 = time.perf_counter()
    reply, messages = probe(kc, {"op": "snapshot", "time_guard_ms": 3000})
    assert reply["ok"] is False and reply["interrupted"] is True
    assert time.perf_counter() - t0 < 0.9
    after, _ = execute(kc, silent=True, expressions={"h": "repr(signal.getsignal(signal.SIGINT))"})
    assert after["user_expressions"]["h"] == before["user_expressions"]["h"]
    content, _ = execute(kc, "del ki_real, ki_user, ki_ok\n1 + 1")
    assert content["status"] == "ok"
