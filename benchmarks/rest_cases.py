"""REST cases through a real jupyter_server: cached GETs, 304s, and a burst of
concurrent GETs after a change (how many probe requests reach the kernel)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kernels import bench_cell, kernel_side_code
from results import fmt_ms, percentile
from server import HOST, Server, Watcher

SMALL_COUNT = 10_000
CONCURRENT = 50
WAIT_S = 30.0


@dataclass
class RestRow:
    case: str
    rtt_s: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    kernel_requests: int | None = None
    note: str = ""

    def cells(self) -> tuple[str, ...]:
        rtt = [t * 1e3 for t in self.rtt_s]
        return (
            self.case, str(len(self.rtt_s)),
            fmt_ms(statistics.median(rtt)) if rtt else "—",
            fmt_ms(percentile(rtt, 90)) if rtt else "—",
            fmt_ms(statistics.median(self.server_ms)) if self.server_ms else "—",
            fmt_ms(percentile(self.server_ms, 90)) if self.server_ms else "—",
            ", ".join(f"{k}×{v}" for k, v in sorted(self.statuses.items())),
            "—" if self.kernel_requests is None else str(self.kernel_requests),
            self.note,
        )


REST_HEADER = ("case", "n", "round trip median ms", "p90", "server median ms", "p90",
               "statuses", "probe requests to kernel", "note")


async def _until(predicate: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise TimeoutError(what)


def _kernel_info(server: Server, kernel_id: str) -> dict[str, Any]:
    kernels = server.get_json("/api/kernel-state/kernels")["kernels"]
    return next(k for k in kernels if k["kernel_id"] == kernel_id)


async def _wait_generation(server: Server, kernel_id: str, generation: int) -> None:
    def seen() -> bool:
        info = _kernel_info(server, kernel_id)
        return bool(info["generation"] >= generation and info["execution_state"] == "idle")

    await _until(seen, f"server never saw generation {generation}")


def _timed_get(server: Server, path: str, headers: dict[str, str] | None = None
               ) -> tuple[int, Any, float]:
    t0 = time.perf_counter()
    status, response_headers, _ = server.request("GET", path, headers=headers)
    return status, response_headers, time.perf_counter() - t0


async def repeated_gets(server: Server, watcher: Watcher, path: str, label: str,
                        reps: int) -> list[RestRow]:
    status, headers, _ = _timed_get(server, path)  # fill the cache for this page
    etag = headers.get("ETag", "")
    await watcher.settle()
    rows = []
    for case, extra, expect in (
        (f"repeat GET {label} (cached 200)", None, 200),
        (f"repeat GET {label} with If-None-Match (304)", {"If-None-Match": etag}, 304),
    ):
        row = RestRow(case)
        before = watcher.probe_requests
        offset = server.log_offset()
        for _ in range(reps):
            status, headers, elapsed = _timed_get(server, path, extra)
            row.rtt_s.append(elapsed)
            row.statuses[status] = row.statuses.get(status, 0) + 1
            if headers.get("ETag", etag) != etag:
                row.note = "ETag changed between unchanged GETs"
        await watcher.settle()
        row.kernel_requests = watcher.probe_requests - before
        row.server_ms = [ms for st, ms in server.request_times_ms(offset, "/variables")
                         if st == expect]
        if not row.note:
            row.note = "server time: request_time from the server's own access log"
        rows.append(row)
    return rows


def _burst(port: int, token: str, path: str, count: int) -> list[tuple[int, float]]:
    """``count`` GETs released together, each on its own connection."""
    barrier = threading.Barrier(count)

    def one() -> tuple[int, float]:
        conn = http.client.HTTPConnection(HOST, port, timeout=30)
        try:
            conn.connect()
            barrier.wait(10)
            t0 = time.perf_counter()
            conn.request("GET", path, headers={"Authorization": f"token {token}"})
            response = conn.getresponse()
            response.read()
            return response.status, time.perf_counter() - t0
        finally:
            conn.close()

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        return list(pool.map(lambda _: one(), range(count)))


async def concurrent_gets(server: Server, watcher: Watcher, kernel_id: str, path: str,
                          rounds: int) -> RestRow:
    row = RestRow(f"{CONCURRENT} concurrent GETs after a change (×{rounds} rounds)")
    counts = []
    loop = asyncio.get_running_loop()
    for i in range(rounds):
        generation = _kernel_info(server, kernel_id)["generation"]
        await watcher.cell(f"v0 = -{i + 1}")
        await _wait_generation(server, kernel_id, generation + 1)
        await watcher.settle()
        before = watcher.probe_requests
        offset = server.log_offset()
        results = await loop.run_in_executor(
            None, _burst, server.port, server.token, path, CONCURRENT)
        await watcher.settle(0.5)
        counts.append(watcher.probe_requests - before)
        for status, elapsed in results:
            row.statuses[status] = row.statuses.get(status, 0) + 1
            row.rtt_s.append(elapsed)
        row.server_ms += [ms for _, ms in server.request_times_ms(offset, "/variables")]
    row.kernel_requests = max(counts)
    row.note = "probe requests per round: " + ", ".join(map(str, counts))
    return row


async def run_rest(reps: int, rounds: int, log: Callable[[str], None]) -> list[RestRow]:
    server = Server(debug_log=True)
    watcher = None
    try:
        await server.wait_ready()
        kernel_id = server.start_kernel()
        watcher = Watcher(server, kernel_id)
        await watcher.start()
        base = f"/api/kernel-state/kernels/{kernel_id}/variables"
        # The extension installs its probe when the kernel starts; wait for a snapshot.
        await _until(lambda: server.request("GET", base)[0] == 200, "no first snapshot")
        generation = _kernel_info(server, kernel_id)["generation"]
        await watcher.cell(kernel_side_code() + bench_cell("states.make_small", SMALL_COUNT, 0))
        await _wait_generation(server, kernel_id, generation + 1)
        await watcher.settle()
        log(f"rest: {SMALL_COUNT:,} variables in a server kernel")
        first = RestRow(f"first GET after the cell ({SMALL_COUNT:,} vars, limit 500)")
        before = watcher.probe_requests
        offset = server.log_offset()
        status, _, elapsed = _timed_get(server, base)
        first.rtt_s.append(elapsed)
        first.statuses[status] = 1
        await watcher.settle()
        first.kernel_requests = watcher.probe_requests - before
        first.server_ms = [ms for _, ms in server.request_times_ms(offset, "/variables")]
        first.note = "takes the snapshot (probe call)"
        rows = [first]
        rows += await repeated_gets(server, watcher, base, "limit 500", reps)
        rows += await repeated_gets(server, watcher, base + "?limit=10000", "limit 10,000",
                                    max(5, reps // 4))
        rows.append(await concurrent_gets(server, watcher, kernel_id, base, rounds))
        return rows
    finally:
        if watcher is not None:
            await watcher.stop()
        server.stop()
