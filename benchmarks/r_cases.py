"""R kernels (IRkernel) through REST end to end, against the R kernel's own floor.

    python benchmarks/r_cases.py [--reps 9]

A real jupyter_server subprocess on 127.0.0.1 with the extension, a real IRkernel (the
`ir` kernelspec, see scripts/setup.sh). Prints a Markdown table:

- floor: a silent ``execute_request`` of ``NULL`` (our own client, its shell reply);
- ours: ``GET variables?limit=1000`` of 1,000 variables, ``GET variables/big`` of a
  1e6-row data.frame, each after a user cell (a new generation: never a cached answer);
- naive peer: what a simple inspector does — ``ls.str()`` / ``str(big)`` printed by a
  non-silent request, read back from IOPub until its idle status.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import Server, Watcher

VARIABLES = """
for (i in seq_len(250)) {
  assign(paste0("n", i), i)
  assign(paste0("s", i), paste("text", i))
  assign(paste0("v", i), seq_len(i %% 50 + 2) / 3)
  assign(paste0("d", i), data.frame(a = 1:3, b = c("x", "y", "z")))
}
rm(i)
"""
BIG = """
big <- data.frame(a = seq_len(1e6), b = as.numeric(seq_len(1e6)) / 7,
                  c = rep(c("north", "south", "east", "west"), 2.5e5),
                  f = factor(rep(c("lo", "hi"), 5e5)))
"""


async def round_trip(watcher: Watcher, code: str) -> float:
    """A silent request of our own client: ms to its shell reply."""
    client = watcher.client
    started = time.perf_counter()
    msg_id = client.execute(code, silent=True, store_history=False)
    while True:
        reply = await client.get_shell_msg(timeout=120)
        if reply["parent_header"].get("msg_id") == msg_id:
            return (time.perf_counter() - started) * 1000


async def peer_output(watcher: Watcher, code: str) -> float:
    """A naive inspector: prints with a non-silent request (output to every client)."""
    client = watcher.client
    started = time.perf_counter()
    msg_id = client.execute(code, silent=False, store_history=False)
    event = watcher._idle[msg_id] = asyncio.Event()
    await asyncio.wait_for(event.wait(), 300)
    del watcher._idle[msg_id]
    return (time.perf_counter() - started) * 1000


class RWatcher(Watcher):
    async def start(self) -> None:
        # wait_for_ready's heartbeat check misreads IRkernel as dead: ask kernel_info.
        client = self.client
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            msg_id = client.kernel_info()
            try:
                while True:
                    reply = await client.get_shell_msg(timeout=2)
                    if reply["parent_header"].get("msg_id") == msg_id:
                        self._task = asyncio.ensure_future(self._drain())
                        return
            except Exception:
                continue
        raise RuntimeError("the R kernel never answered kernel_info")


def timed_get(server: Server, path: str) -> tuple[float, Any]:
    started = time.perf_counter()
    status, _, body = server.request("GET", path)
    elapsed = (time.perf_counter() - started) * 1000
    if status != 200:
        raise RuntimeError(f"GET {path}: {status} {body[:300]!r}")
    return elapsed, body


async def user_cell(server: Server, watcher: Watcher, kernel_id: str, code: str) -> None:
    """A user cell, then until the server has seen it finish (a new generation)."""
    def generation() -> tuple[int, str]:
        kernels = server.get_json("/api/kernel-state/kernels")["kernels"]
        entry = next(k for k in kernels if k["kernel_id"] == kernel_id)
        return int(entry["generation"]), str(entry["execution_state"])

    before = generation()[0]
    await watcher.cell(code)
    deadline = time.monotonic() + 30
    while True:
        now, state = generation()
        if now > before and state == "idle":
            return
        if time.monotonic() > deadline:
            raise RuntimeError("the server never saw the cell finish")
        await asyncio.sleep(0.01)


async def fresh_get(server: Server, watcher: Watcher, kernel_id: str, path: str,
                    reps: int) -> list[float]:
    times = []
    for _ in range(reps):
        await user_cell(server, watcher, kernel_id, "invisible(NULL)")  # nothing cached
        times.append(timed_get(server, path)[0])
    return times


async def run(reps: int) -> list[tuple[str, float, float, float | None]]:
    server = Server(debug_log=False)
    try:
        await server.wait_ready()
        status, _, body = server.request("POST", "/api/kernels", {"name": "ir"})
        if status != 201:
            raise RuntimeError(f"R kernel start failed: {status} {body[:200]!r}")
        kernel_id = json.loads(body)["id"]
        watcher = RWatcher(server, kernel_id)
        await watcher.start()
        base = f"/api/kernel-state/kernels/{kernel_id}/variables"
        page = base + "?limit=1000"
        await user_cell(server, watcher, kernel_id, "invisible(NULL)")
        timed_get(server, base)  # the probe is installed (at start, or now)
        floor = statistics.median([await round_trip(watcher, "NULL")
                                   for _ in range(max(reps * 3, 15))])
        rows: list[tuple[str, float, float, float | None]] = [
            ("floor: silent execute_request of NULL", floor, floor, None)]

        await user_cell(server, watcher, kernel_id, VARIABLES)
        total = json.loads(timed_get(server, page)[1])["total"]
        assert total == 1000, total
        ours = statistics.median(await fresh_get(server, watcher, kernel_id, page, reps))
        peer = statistics.median([await peer_output(watcher, "ls.str(envir = globalenv())")
                                  for _ in range(max(1, reps // 3))])
        rows.append(("snapshot, 1,000 variables (`limit=1000`); peer: `ls.str()`",
                     ours, floor, peer))

        await user_cell(server, watcher, kernel_id, BIG)
        ours = statistics.median(await fresh_get(server, watcher, kernel_id, base + "/big", reps))
        peer = statistics.median([await peer_output(watcher, "str(big)")
                                  for _ in range(max(1, reps // 3))])
        rows.append(("detail of a 1e6-row data.frame; peer: `str(big)`", ours, floor, peer))
        ours = statistics.median(await fresh_get(server, watcher, kernel_id, page, reps))
        rows.append(("snapshot, 1,001 variables with the 1e6-row data.frame", ours, floor, None))
        await watcher.stop()
        server.request("DELETE", f"/api/kernels/{kernel_id}")
        return rows
    finally:
        server.stop()


def markdown(rows: list[tuple[str, float, float, float | None]]) -> str:
    lines = ["| case | ours (ms) | × floor | naive peer (ms) | peer × floor |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for label, ours, floor, peer in rows:
        peer_cells = (f"{peer:.1f} | {peer / floor:.1f}×" if peer is not None else "– | –")
        lines.append(f"| {label} | {ours:.1f} | {ours / floor:.1f}× | {peer_cells} |")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9, help="repetitions per case (median)")
    args = parser.parse_args()
    print(markdown(asyncio.run(run(args.reps))))
