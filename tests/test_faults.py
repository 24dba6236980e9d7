"""Busy, restarting, dying and deleted kernels; hostile objects; side effects of a probe."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from tornado.httpclient import HTTPClientError

from .conftest import BOTH_BACKENDS, EVERY_GATEWAY, server_config
from .kernel_utils import get_json, validate

pytestmark = [pytest.mark.kernel, BOTH_BACKENDS, EVERY_GATEWAY]

HOSTILE = '''
import threading
class SleepyRepr:
    def __repr__(self):
        import time; time.sleep(5); return "slept"
class BlockingRepr:
    def __repr__(self):
        threading.Lock().acquire(); l = threading.Lock(); l.acquire(); l.acquire()
class RaisingRepr:
    def __repr__(self): raise ValueError("no repr for you")
class HugeRepr:
    def __repr__(self): return "x" * 50_000_000
class LyingLen:
    def __len__(self): return -1
    def __repr__(self): return "LyingLen()"
class HostileAttrs:
    def __getattr__(self, name): raise RuntimeError(name)
    def __dir__(self): raise RuntimeError("dir")
    @property
    def __class__(self): raise RuntimeError("class")
cycle = []; cycle.append(cycle)
deep = []
node = deep
for _ in range(10_000):
    node.append([]); node = node[0]
sleepy, blocking, raising, huge, lying, attrs = (SleepyRepr(), BlockingRepr(), RaisingRepr(),
                                                 HugeRepr(), LyingLen(), HostileAttrs())
fine = "still here"
'''


async def test_hostile_objects_are_marked_and_the_rest_survives(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(HOSTILE)
    before = await kernel.inspect_kernel()
    started = time.monotonic()
    snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    elapsed = time.monotonic() - started
    validate(snapshot, "Snapshot")
    names = {v["name"]: v for v in snapshot["variables"]}
    assert names["fine"]["preview"] == "'still here'"
    assert "timed out" in names["sleepy"]["error"]
    assert "timed out" in names["blocking"]["error"]
    assert "ValueError" in names["raising"]["error"]
    # A 50 MB repr is cut when it is made within its guard, and past the guard (a slow or
    # busy machine) the preview is the default object repr and the error says the repr
    # timed out: either way the row says its text is not the value's whole repr.
    huge = names["huge"]
    assert len(huge["preview"]) <= 200
    assert huge["truncated"] or "repr timed out" in (huge["error"] or ""), huge
    assert names["lying"]["size"] is None
    assert names["cycle"]["preview"].startswith("[")
    assert names["deep"]["kind"] == "sequence"
    assert elapsed < 5, "the probe must never wait for a hostile repr"  # bound, not a benchmark
    assert await kernel.inspect_kernel() == before
    # The kernel is still usable afterwards.
    reply = await kernel.run("ok = 1 + 1")
    assert reply["status"] == "ok"


async def test_probe_leaves_no_trace_in_the_kernel(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    await kernel.run("x")  # makes Out and _ non-empty
    before = await kernel.inspect_kernel()
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                   params={"include": "private,modules,callables,classes"})
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "x")
    assert await kernel.inspect_kernel() == before


async def test_printing_repr_does_not_reach_the_notebook(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("class Loud:\n    def __repr__(self):\n        print('LOUD'); return 'L'\n"
                     "loud = Loud()")
    snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert {v["name"]: v["preview"] for v in snapshot["variables"]}["loud"] == "L"
    # Everything the kernel published since, as the notebook's own client received it.
    seen = await kernel.drain_iopub()
    probe_statuses = [m for m in seen if m["header"]["msg_type"] == "status"
                      and m["parent_header"].get("msg_type") == "execute_request"]
    assert probe_statuses, "the probe's request was published on IOPub, so it was watched"
    assert [m for m in seen if m["header"]["msg_type"] == "stream"] == []


async def test_busy_kernel_gets_last_snapshot_at_once(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    fresh = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    kernel.submit("import time; time.sleep(3); x = 2")
    await kernel.wait_busy()
    requests_before = kernel.state.probe_requests
    stale = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    validate(stale, "Snapshot")
    assert stale["stale"] and stale["kernel_busy"]
    assert stale["variables"] == fresh["variables"]
    assert kernel.state.probe_requests == requests_before, "nothing is queued behind a cell"
    # A detail while busy is refused, not queued.
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables", "x")
    assert e.value.code == 503
    await kernel.wait_generation(stale["generation"] + 1)
    after = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert not after["stale"]
    assert {v["name"]: v["preview"] for v in after["variables"]}["x"] == "2"


async def test_busy_kernel_without_snapshot_gets_503(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    kernel.submit("import time; time.sleep(2)")
    await kernel.wait_busy()
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables")
    assert e.value.code == 503
    assert e.value.response.headers["Retry-After"] == "1"


async def test_restart_starts_a_new_epoch(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("before_restart = 1")
    first = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    await kernel.restart(jp_fetch)
    second = None
    for _ in range(50):
        try:
            second = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
            break
        except HTTPClientError as e:
            assert e.code == 503
            await asyncio.sleep(0.2)
    assert second is not None
    assert second["epoch"] > first["epoch"]
    assert not second["stale"]
    assert "before_restart" not in {v["name"] for v in second["variables"]}


async def test_deleted_kernel_gets_404(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    await jp_fetch("api", "kernels", kernel.kernel_id, method="DELETE")
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables")
    assert e.value.code == 404


# A repr that stays inside one C call for about 3 s (a key derivation, calibrated in the
# kernel): signal handlers, the probe's time guard among them, run only once it returns, so
# a GET waits on it.
SLOW_IN_C_REPR = (
    "import hashlib, time\n"
    "_t = time.perf_counter(); hashlib.pbkdf2_hmac('sha256', b'k', b's', 20_000)\n"
    "_rounds = int(20_000 * 3.0 / max(time.perf_counter() - _t, 1e-6))\n"
    "class Slow:\n    def __repr__(self):\n"
    "        hashlib.pbkdf2_hmac('sha256', b'k', b's', _rounds); return 'slow'\n"
    "s = Slow()\ndel _t"
)


async def waiting_get(jp_fetch, kernel):  # type: ignore[no-untyped-def]
    """A snapshot GET that is still waiting on the kernel."""
    await kernel.run(SLOW_IN_C_REPR)
    pending = asyncio.ensure_future(
        jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables"))
    await asyncio.sleep(0.5)
    assert not pending.done(), "the GET should be waiting on the slow repr"
    return pending


class TestInterrupt:
    @pytest.fixture
    def jp_server_config(self, gateway_url):  # type: ignore[no-untyped-def]
        # Only the interrupt ends the request, however loaded the machine: its deadline is
        # far past the slow repr's 3 s.
        return server_config(gateway_url, KernelStateApp={"probe_timeout": 30.0})

    async def test_user_interrupt_during_a_probe_request_gives_503(self, jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
        kernel = await new_kernel()
        pending = await waiting_get(jp_fetch, kernel)
        await jp_fetch("api", "kernels", kernel.kernel_id, "interrupt", method="POST", body="")
        with pytest.raises(HTTPClientError) as e:
            await pending
        assert e.value.code == 503
        assert json.loads(e.value.response.body)["message"].startswith("Inspection interrupted")
        reply = await kernel.run("still_usable = 1")  # the kernel is fine
        assert reply["status"] == "ok"


class TestShortDeadline:
    @pytest.fixture
    def jp_server_config(self, gateway_url):  # type: ignore[no-untyped-def]
        return server_config(gateway_url, KernelStateApp={"probe_timeout": 1.0})

    async def test_no_second_request_while_one_is_still_in_the_kernel(self, jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
        kernel = await new_kernel()
        await kernel.run("a = 1")
        await kernel.run(SLOW_IN_C_REPR)  # a repr of 3 s; the deadline is 1 s
        connection = kernel.state.connection()
        with pytest.raises(HTTPClientError) as e:
            await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables")
        assert e.value.code == 503 and "did not answer within 1 s" in e.value.response.body.decode()
        assert connection.waiting_on == 1
        sent = connection.sent
        for route in ("variables", "variables/a"):
            with pytest.raises(HTTPClientError) as e:
                await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, *route.split("/"))
            assert e.value.code == 503 and e.value.response.headers["Retry-After"]
            assert "An earlier inspection is still running" in json.loads(e.value.response.body)["message"]
        assert connection.sent == sent, "nothing more was queued in the kernel"
        await kernel.run("del s")  # runs once our first request has answered
        assert connection.waiting_on == 0
        snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
        assert [v["name"] for v in snapshot["variables"]] == ["a"] and not snapshot["stale"]


async def test_a_request_the_kernel_never_answers_does_not_block_the_next(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """A request dropped on its way (here: a message type the kernel does not know, which
    it drops without a reply) stays overdue until a later request's reply proves it lost;
    it does not answer "an earlier inspection is still running" for ever."""
    from jupyter_kernel_state.service.connection import OVERDUE_GRACE_S, RequestTimeout

    kernel = await new_kernel()
    await kernel.run("kept = 1")
    connection = kernel.state.connection()
    with pytest.raises(RequestTimeout):
        await connection.request("kernel_state_unknown_request", {}, timeout=1.0)
    assert connection.waiting_on == 1
    with pytest.raises(HTTPClientError) as e:  # just overdue: it may yet be running
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables")
    assert e.value.code == 503 and "earlier inspection" in e.value.response.body.decode()
    await asyncio.sleep(OVERDUE_GRACE_S)
    snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert [v["name"] for v in snapshot["variables"]] == ["kept"]
    assert connection.waiting_on == 0 and connection.lost_requests == 1


async def test_kernel_deleted_while_a_get_waits_gets_404(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    pending = await waiting_get(jp_fetch, kernel)
    started = time.monotonic()
    await jp_fetch("api", "kernels", kernel.kernel_id, method="DELETE")
    with pytest.raises(HTTPClientError) as e:
        await pending
    assert e.value.code == 404
    assert json.loads(e.value.response.body)["message"] == (
        f"Kernel does not exist: {kernel.kernel_id}")
    assert time.monotonic() - started < 5  # not the stale snapshot after the deadline


async def test_kernel_dying_mid_request_gives_503(jp_fetch, jp_serverapp, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import os, signal\nclass Killer:\n    def __repr__(self):\n"
                     "        os.kill(os.getpid(), signal.SIGKILL)\nk = Killer()")
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables",
                       request_timeout=30)
    assert e.value.code == 503
    assert json.loads(e.value.response.body)["message"]


async def test_a_lost_idle_is_recovered_on_request(jp_fetch, new_kernel, monkeypatch):  # type: ignore[no-untyped-def]
    """Under a flood ZMQ can drop a cell's final idle; the kernel must not stay busy."""
    from jupyter_kernel_state.service import kernel_state

    kernel = await new_kernel()
    await kernel.run("x = 1")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    await asyncio.sleep(0.5)  # let the probe request's own statuses arrive first
    kernel.state.sync()
    tracker = kernel.state.tracker
    # Replay what a lost idle leaves behind: a user request still marked busy.
    tracker.handle({"header": {"msg_type": "status"},
                    "parent_header": {"msg_id": "lost", "msg_type": "execute_request"},
                    "content": {"execution_state": "busy"}}, False)
    assert tracker.busy
    monkeypatch.setattr(kernel_state, "SILENT_BUSY_CHECK_S", 0.0)
    stale = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert stale["stale"] and stale["kernel_busy"]
    await kernel.wait_idle()
    assert not tracker.busy and tracker.lost_idles == 1
    fresh = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert not fresh["stale"]
