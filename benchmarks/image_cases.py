"""Images listener (issue 3): cost of ImageStore.handle / HistoryLog.handle per IOPub
message on real captured messages, and a flood of distinct PNGs through a real server."""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psutil
from jupyter_client.session import Session
from kernels import BenchKernel, bench_call, kernel_side_code
from server import Server, Watcher

from jupyter_kernel_state.service.history import HistoryLog
from jupyter_kernel_state.service.images import ImageStore

MATPLOTLIB_CELL = (
    "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
    "for i in range(5):\n"
    "    plt.figure(figsize=(4, 3), dpi=72); plt.plot([1, 3, 2, i])\n"
    "    plt.title(str(i)); plt.show()\n"
)
SMALL_PNG_CELL = "__import__('sys').modules['_jks_bench'].images.flood(60, 200, 0)"
WAIT_S = 30.0
MAX_FLOOD_IMAGES = 40_000
LAST_FLOOD = "__import__('sys').modules['_jks_bench'].images.last"
RSS_SAMPLE_S = 0.05


@dataclass
class MicroRow:
    source: str
    msg_type: str
    count: int
    store_us: list[float] = field(default_factory=list)
    history_us: list[float] = field(default_factory=list)
    decode_us: list[float] = field(default_factory=list)

    def cells(self) -> tuple[str, ...]:
        return (self.source, self.msg_type, str(self.count),
                f"{statistics.median(self.decode_us):.1f}",
                f"{statistics.median(self.store_us):.1f}",
                f"{statistics.median(self.history_us):.1f}",
                f"{statistics.median(map(sum, self._store_and_history())):.1f}")

    def _store_and_history(self) -> list[tuple[float, float]]:
        return list(zip(self.store_us, self.history_us, strict=False))


MICRO_HEADER = ("captured from", "IOPub message", "messages per pass",
                "Session.deserialize µs/msg (signed frames, as KernelConnection)",
                "ImageStore.handle µs/msg", "HistoryLog.handle µs/msg", "both µs/msg")


def replay(messages: list[dict[str, Any]], source: str, passes: int) -> list[MicroRow]:
    """Replay one cell's messages through a fresh store and log per pass, as
    KernelState._on_iopub does; per message type, µs per message (median over passes)."""
    rows: dict[str, MicroRow] = {}
    perf = time.perf_counter
    session = Session(key=b"benchmark-key")
    frames = {id(m): session.serialize(m) for m in messages}
    for _ in range(passes):
        store, log = ImageStore(), HistoryLog()
        spent: dict[str, list[float]] = {}
        for msg in messages:
            session.digest_history.clear()  # replaying a message is not an attack here
            tz = perf()
            _, parts = session.feed_identities(frames[id(msg)])
            session.deserialize(parts, content=True)
            t0 = perf()
            ids = store.handle(msg, False, 0)
            t1 = perf()
            log.handle(msg, False, ids)
            t2 = perf()
            acc = spent.setdefault(msg["msg_type"], [0.0, 0.0, 0, 0.0])
            acc[0] += t1 - t0
            acc[1] += t2 - t1
            acc[2] += 1
            acc[3] += t0 - tz
        for kind, (s, h, n, d) in spent.items():
            row = rows.setdefault(kind, MicroRow(source, kind, n))
            row.decode_us.append(d / n * 1e6)
            row.store_us.append(s / n * 1e6)
            row.history_us.append(h / n * 1e6)
        if store.rejected:
            raise RuntimeError(f"{store.rejected} captured images were rejected")
    return list(rows.values())


async def micro(passes: int) -> list[MicroRow]:
    kernel = await BenchKernel.start()
    try:
        plots = await kernel.cell(MATPLOTLIB_CELL)
        small = await kernel.cell(SMALL_PNG_CELL)
    finally:
        await kernel.shutdown()
    png_bytes = [len(m["content"]["data"]["image/png"]) * 3 // 4 for m in plots
                 if m["msg_type"] == "display_data"]
    label = f"matplotlib cell: 5 plots (~{statistics.median(png_bytes) / 1024:.0f} KiB PNG)"
    return (replay(plots, label, passes)
            + replay(small, "200 distinct 4×4 PNGs in one cell (cap 50: eviction)", passes))


class RssSampler:
    """Peak RSS of a process, sampled in a thread (bounded by ``stop``)."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.peak = self.process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(RSS_SAMPLE_S):
            self.peak = max(self.peak, self.process.memory_info().rss)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(5)
        return self.peak


@dataclass
class FloodResult:
    round: int
    published: int
    kernel_seconds: float
    caught_up_seconds: float | None
    counted: int  # kept + dropped growth this round
    kept: int
    dropped: int
    rejected: int
    rss_before_mb: float
    rss_peak_mb: float
    rss_after_mb: float
    watcher_display_data: int
    history_image_ids: int | None
    server_view_after: str

    def cells(self) -> tuple[str, ...]:
        lost = self.published - self.counted
        rate = self.published / self.kernel_seconds if self.kernel_seconds else 0
        served = (f"{self.published / self.caught_up_seconds:,.0f}"
                  if self.caught_up_seconds else "did not catch up")
        return (str(self.round), f"{self.published:,}", f"{rate:,.0f}", served,
                f"{self.kept} + {self.dropped:,} (cumulative)", str(lost),
                f"{self.watcher_display_data:,}", str(self.rejected),
                f"{self.rss_before_mb:.0f} → {self.rss_peak_mb:.0f} → {self.rss_after_mb:.0f}",
                "—" if self.history_image_ids is None else f"{self.history_image_ids:,}",
                self.server_view_after)


FLOOD_HEADER = ("round", "published", "kernel publish/s", "server kept up, msg/s",
                "kept + dropped", "lost (never reached the store)",
                "received by our own IOPub client", "rejected",
                "server RSS MB before → peak → after",
                "image_ids in the last history entry",
                "server's view of the kernel after (kernels list; GET variables)")


async def flood(seconds: float, rounds: int, log: Callable[[str], None]) -> list[FloodResult]:
    server = Server(debug_log=False)
    watcher = None
    try:
        await server.wait_ready()
        kernel_id = server.start_kernel()
        watcher = Watcher(server, kernel_id)
        await watcher.start()
        base = f"/api/kernel-state/kernels/{kernel_id}"
        deadline = time.monotonic() + WAIT_S
        while server.request("GET", base + "/variables")[0] != 200:
            if time.monotonic() > deadline:
                raise TimeoutError("no first snapshot")
            await asyncio.sleep(0.1)
        await watcher.cell(kernel_side_code())
        results = []
        start = 0
        for r in range(1, rounds + 1):
            listing = server.get_json(base + "/images?limit=1")
            counted_before = listing["total"] + listing["dropped"]
            rss_before = psutil.Process(server.pid).memory_info().rss
            sampler = RssSampler(server.pid)
            seen_before = watcher.display_data
            log(f"images: flood round {r} ({seconds:g} s)")
            t0 = time.perf_counter()
            reply = await watcher.cell(
                bench_call("images.flood", seconds, MAX_FLOOD_IMAGES, start),
                expressions={"n": LAST_FLOOD},
            )
            sent, kernel_s = _parse_last(reply)
            start += sent
            caught_up = None
            end = time.monotonic() + WAIT_S
            while time.monotonic() < end:
                listing = server.get_json(base + "/images?limit=1")
                if listing["total"] + listing["dropped"] - counted_before >= sent:
                    caught_up = time.perf_counter() - t0
                    break
                await asyncio.sleep(0.05)
            peak = sampler.stop()
            await asyncio.sleep(0.5)
            history = server.get_json(base + "/history?limit=1")["entries"]
            info = next(k for k in server.get_json("/api/kernel-state/kernels")["kernels"]
                        if k["kernel_id"] == kernel_id)
            status, _, body = server.request("GET", base + "/variables")
            after = (f"{info['execution_state']}; GET variables {status}"
                     + (" stale" if status == 200 and b'"stale":true' in body else ""))
            results.append(FloodResult(
                round=r, published=sent, kernel_seconds=kernel_s,
                caught_up_seconds=caught_up,
                counted=listing["total"] + listing["dropped"] - counted_before,
                kept=listing["total"], dropped=listing["dropped"], rejected=listing["rejected"],
                rss_before_mb=rss_before / 2**20, rss_peak_mb=peak / 2**20,
                rss_after_mb=psutil.Process(server.pid).memory_info().rss / 2**20,
                watcher_display_data=watcher.display_data - seen_before,
                history_image_ids=len(history[-1]["image_ids"]) if history else None,
                server_view_after=after,
            ))
        return results
    finally:
        if watcher is not None:
            await watcher.stop()
        server.stop()


def _parse_last(reply: dict[str, Any]) -> tuple[int, float]:
    entry = reply["user_expressions"]["n"]
    if entry.get("status") != "ok":
        raise RuntimeError(f"flood failed: {entry.get('evalue')}")
    sent, seconds = entry["data"]["text/plain"].strip("()").split(",")
    return int(sent), float(seconds)


def micro_rows(rows: list[MicroRow]) -> list[tuple[str, ...]]:
    return [r.cells() for r in rows]


def flood_rows(results: list[FloodResult]) -> list[tuple[str, ...]]:
    return [r.cells() for r in results]

