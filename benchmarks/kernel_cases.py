"""Kernel cases: floor, the product's probe and the two naive peers, side by side on the
same kernel and the same states, repetitions interleaved so drift hits all alike."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from kernels import BenchKernel, Timeout, bench_call, bench_cell
from results import Measure

from jupyter_kernel_state.service import probe_loader

FLOOR_EXPRESSIONS = {"x": "1"}
PROBE_HOOK_MS = ("__import__('sys').modules['_jupyter_kernel_state_probe']"
                 ".entry._state.tracker.last_hook_ms")
# The server's probe deadline (DESIGN §4): the hostile cases must answer within it.
DEADLINE_S = 5.0
USABLE_TIMEOUT_S = 2.0
SMALL_COUNTS = (10, 1_000, 10_000)
HOSTILE_KINDS = ("slow_repr", "blocking_repr", "huge_repr")


def snapshot_request(limit: int) -> dict[str, Any]:
    return {"op": "snapshot", "include": [], "offset": 0, "limit": limit, "sort": "name",
            "since_ec": None, "preview_chars": 200, "time_guard_ms": 100}


@dataclass
class Plan:
    reps_small: int
    reps_heavy: int
    reps_peer_heavy: int
    reps_hostile: int
    peer_timeout_s: float


class Session:
    """One kernel holding one state; measures approaches on it."""

    def __init__(self, kernel: BenchKernel, state: str) -> None:
        self.kernel = kernel
        self.state = state
        self.floor = Measure(state, "floor: silent execute, user_expressions {x: 1}")
        self.measures: dict[str, Measure] = {self.floor.approach: self.floor}

    def measure(self, approach: str, note: str = "") -> Measure:
        m = self.measures.get(approach)
        if m is None:
            m = self.measures[approach] = Measure(self.state, approach, note=note,
                                                  floor=self.floor)
        return m

    async def timed(self, m: Measure, call: Callable[[], Awaitable[Any]]) -> Any:
        await self.kernel.silent("", {"t": bench_call("states.trim")})
        before = self.kernel.reset_peak()
        t0 = time.perf_counter()
        result = await call()
        elapsed = time.perf_counter() - t0
        m.add(elapsed, self.kernel.peak_growth_mb(before))
        return result

    async def floor_once(self) -> None:
        await self.timed(self.floor, lambda: self.kernel.silent("", FLOOR_EXPRESSIONS))

    async def install_probe(self) -> None:
        """Install the probe as the server does (one user_expressions entry)."""
        content, _ = await self.kernel.silent("", {"r": probe_loader.install_expression()})
        error = probe_loader.install_error((content.get("user_expressions") or {}).get("r"))
        if error is not None:
            raise RuntimeError(f"probe install failed: {error}")

    async def probe(self, m: Measure, limit: int, timeout: float = 60.0) -> dict[str, Any]:
        expression = probe_loader.call_expression(snapshot_request(limit))

        async def call() -> dict[str, Any]:
            content, _ = await self.kernel.silent("", {"r": expression}, timeout)
            return probe_loader.parse_reply(content["user_expressions"]["r"])

        return await self.timed(m, call)  # type: ignore[no-any-return]

    async def peer(self, m: Measure, function: str, timeout: float) -> bool:
        """One naive-peer run; False (and the failure noted) when it hangs."""
        try:
            await self.timed(m, lambda: self.kernel.expression(bench_call(function), timeout))
            return True
        except Timeout:
            m.failure = f"hang: no reply in {timeout:g} s"
            return False

    async def hook_ms(self, m: Measure) -> None:
        value, _ = await self.kernel.expression(PROBE_HOOK_MS)
        if isinstance(value, (int, float)):
            m.add(value / 1e3)

    async def usable(self) -> bool:
        try:
            content, _ = await self.kernel.silent("", FLOOR_EXPRESSIONS, USABLE_TIMEOUT_S)
            return content["status"] == "ok"
        except Timeout:
            return False


# -- small variables -------------------------------------------------------------------


async def small_state(count: int, plan: Plan) -> list[Measure]:
    kernel = await BenchKernel.start()
    try:
        s = Session(kernel, f"{count:,} small")
        await s.install_probe()
        await kernel.cell(bench_cell("states.make_small", count, 0))
        cold = {lim: s.measure(f"probe, first snapshot (cold probe), limit {lim:,}",
                               "probe reinstalled: every cache empty") for lim in (500, 10_000)}
        new = {lim: s.measure(f"probe, first snapshot (new values), limit {lim:,}",
                              "installed probe; a cell rebound every variable")
               for lim in (500, 10_000)}
        changed = {lim: s.measure(f"probe, after `v0 = -1`, limit {lim:,}",
                                  "one variable changed by a user cell") for lim in (500, 10_000)}
        hook_all = s.measure("probe hook: post_run_cell after a cell rebinding all",
                             "in-kernel time added to that user cell")
        hook_one = s.measure("probe hook: post_run_cell after `v0 = -1`",
                             "in-kernel time added to that user cell")
        peer_a = s.measure("naive A: full repr then cut (TaskWeaver style)")
        peer_b = s.measure("naive B: eval + str per variable (classic inspector style)")
        salt = 1
        for _rep in range(plan.reps_small):
            await s.floor_once()
            for lim, m in cold.items():
                await s.install_probe()
                await s.probe(m, lim)
            for lim, m in new.items():
                await kernel.cell(bench_cell("states.make_small", count, salt))
                salt += 1
                await s.hook_ms(hook_all)
                await s.probe(m, lim)
            for lim, m in changed.items():
                await kernel.cell(f"v0 = -{salt}")
                salt += 1
                await s.hook_ms(hook_one)
                await s.probe(m, lim)
            await s.peer(peer_a, "peers.full_repr_then_cut", plan.peer_timeout_s)
            await s.peer(peer_b, "peers.eval_and_str", plan.peer_timeout_s)
        hook_all.floor = hook_one.floor = None
        return list(s.measures.values())
    finally:
        await kernel.shutdown()


# -- heavy objects ---------------------------------------------------------------------


async def heavy_state(plan: Plan) -> list[Measure]:
    kernel = await BenchKernel.start()
    try:
        s = Session(kernel, "heavy (5 objects)")
        await s.install_probe()
        await kernel.cell(bench_cell("states.make_heavy"))
        cold = s.measure("probe, first snapshot (cold probe), limit 500",
                         "probe reinstalled: every cache empty")
        warm = s.measure("probe, repeat snapshot (cached summaries), limit 500")
        peer_a = s.measure("naive A: full repr then cut (TaskWeaver style)")
        peer_b = s.measure("naive B: eval + str per variable (classic inspector style)")
        for rep in range(plan.reps_heavy):
            await s.floor_once()
            await s.install_probe()
            reply = await s.probe(cold, 500)
            await s.probe(warm, 500)
            if rep < plan.reps_peer_heavy:
                await s.peer(peer_a, "peers.full_repr_then_cut", plan.peer_timeout_s * 6)
                await s.peer(peer_b, "peers.eval_and_str", plan.peer_timeout_s * 6)
        errors = [f"{v['name']}: {v['error']}" for v in reply["variables"] if v.get("error")]
        if errors:
            cold.note += "; errors: " + ", ".join(errors)
        return list(s.measures.values())
    finally:
        await kernel.shutdown()


# -- hostile objects -------------------------------------------------------------------


async def _hostile_kernel(kinds: tuple[str, ...]) -> BenchKernel:
    kernel = await BenchKernel.start()
    _content, _ = await kernel.silent("", {"r": probe_loader.install_expression()})
    await kernel.cell(bench_cell("states.make_hostile", list(kinds)))
    return kernel


async def hostile_state(kinds: tuple[str, ...], plan: Plan, peers: bool) -> list[Measure]:
    """The probe (cold, every rep) then each peer once with a timeout; a hung kernel is
    replaced by a new one holding the same state."""
    kernel = await _hostile_kernel(kinds)
    label = "hostile: " + " + ".join(kinds)
    s = Session(kernel, label)
    try:
        m = s.measure("probe, first snapshot (cold probe), limit 500")
        problems = []
        for _ in range(plan.reps_hostile):
            await s.floor_once()
            await s.install_probe()
            try:
                reply = await s.probe(m, 500, timeout=DEADLINE_S * 2)
            except Timeout:
                m.failure = f"hang: no reply in {DEADLINE_S * 2:g} s"
                return list(s.measures.values())
            if not await s.usable():
                problems.append("kernel unusable after the snapshot")
        errors = sorted({f"{v['name']}: {v['error']}" for v in reply["variables"]
                         if v.get("error")})
        over = [t for t in m.seconds if t > DEADLINE_S]
        m.note = "; ".join(
            ["within 5 s" if not over else f"{len(over)} over 5 s",
             "kernel usable after" if not problems else problems[0], *errors]
        )
        if not peers:
            return list(s.measures.values())
        for approach, function in (
            ("naive A: full repr then cut (TaskWeaver style)", "peers.full_repr_then_cut"),
            ("naive B: eval + str per variable (classic inspector style)", "peers.eval_and_str"),
        ):
            peer = s.measure(approach)
            if not await s.peer(peer, function, plan.peer_timeout_s):
                await kernel.shutdown()
                kernel = s.kernel = await _hostile_kernel(kinds)
                peer.note = "kernel restarted to go on"
            else:
                peer.note = "answered" + (" (kernel usable after)" if await s.usable() else "")
        return list(s.measures.values())
    finally:
        await s.kernel.shutdown()


async def run_all(plan: Plan, log: Callable[[str], None]) -> list[Measure]:
    measures: list[Measure] = []
    for count in SMALL_COUNTS:
        log(f"kernel: {count:,} small variables")
        measures += await small_state(count, plan)
    log("kernel: heavy objects")
    measures += await heavy_state(plan)
    for kind in HOSTILE_KINDS:
        log(f"kernel: hostile {kind}")
        measures += await hostile_state((kind,), plan, peers=True)
    log("kernel: all hostile objects at once")
    measures += await hostile_state(HOSTILE_KINDS, plan, peers=False)
    return measures


# -- where the probe's time goes -------------------------------------------------------


PROFILE_TRIES = 3


async def _best_phases(kernel: BenchKernel, limit: int, before: Callable[[], Awaitable[Any]]
                       ) -> dict[str, Any]:
    """Phase timings of the fastest of PROFILE_TRIES snapshots (others share the CPU)."""
    best: dict[str, Any] | None = None
    for _ in range(PROFILE_TRIES):
        await before()
        value, _ = await kernel.expression(
            bench_call("profile_probe.phases", snapshot_request(limit)))
        if best is None or value["total_ms"] < best["total_ms"]:
            best = value
    assert best is not None
    return best


async def profile_probe(count: int) -> tuple[list[tuple[str, dict[str, Any]]],
                                             list[dict[str, Any]], list[dict[str, Any]]]:
    """Phase timings of the probe's snapshot on ``count`` small variables (cold and after
    one change, both page sizes), a cProfile of the cold full-page snapshot and one of
    the post_run_cell hook."""
    kernel = await BenchKernel.start()
    try:
        s = Session(kernel, f"{count:,} small")
        await s.install_probe()
        await kernel.cell(bench_cell("states.make_small", count, 0))
        scenarios = []
        for limit in (500, 10_000):
            scenarios.append((f"cold probe, limit {limit:,}",
                              await _best_phases(kernel, limit, s.install_probe)))
        for limit in (500, 10_000):
            await s.probe(Measure("", ""), limit)  # warm every summary first
            salt = iter(range(1, 100))

            async def change(salt: Any = salt) -> None:
                await kernel.cell(f"v0 = -{next(salt)}")

            scenarios.append((f"after `v0 = -1`, limit {limit:,}",
                              await _best_phases(kernel, limit, change)))
        await s.install_probe()
        hotspots, _ = await kernel.expression(
            bench_call("profile_probe.hotspots", snapshot_request(10_000)))
        hook, _ = await kernel.expression(bench_call("profile_probe.hook_hotspots"))
        return scenarios, hotspots, hook
    finally:
        await kernel.shutdown()
