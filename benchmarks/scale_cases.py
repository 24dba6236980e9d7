"""Namespaces of any size, through REST end to end: the whole list, the incremental list
after one change, the prompt, and the hook, at 10 to 1,000,000 names, each against the
kernel's floor and the naive "eval + str per variable" approach, in one run.

    python benchmarks/scale_cases.py [--reps N] [--sizes 10,10000,100000,1000000]

What a user waits for: the client's wall time of the REST call to a real jupyter_server
(the cells sent over the server's kernel websocket, as a notebook sends them). The floor
is a silent ``execute_request`` with a constant ``user_expressions`` over ZMQ, the wire
the server itself uses. The naive approach runs in the same kernel through the same kind
of request: every visible name, ``eval`` + ``str`` in full + ``getsizeof`` + ``len``
(benchmarks/kernel_side/peers.py), one JSON text back.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gateway_cases import Websocket, ZmqFloor, _generation, _get, _start, _wait_generation
from kernels import bench_call, kernel_side_code
from results import fmt_ms, fmt_ratio, log_line, percentile, print_tables
from server import Server

SIZES = (10, 10_000, 100_000, 1_000_000)
PAGE = 10_000
HEADER = ("names", "case", "n", "median ms", "p90 ms", "× floor", "reply KB")
HOOK_MS = ("__import__('sys').modules['_jupyter_kernel_state_probe']"
           ".entry._state.tracker.last_hook_ms")


@dataclass
class Row:
    names: int
    case: str
    seconds: list[float] = field(default_factory=list)
    floor_ms: float | None = None
    reply_bytes: int | None = None
    direct_ms: bool = False  # ``seconds`` hold milliseconds read in the kernel

    @property
    def median_ms(self) -> float:
        return statistics.median(self.seconds) * (1 if self.direct_ms else 1e3)

    @property
    def ratio(self) -> float | None:
        return None if not self.floor_ms else self.median_ms / self.floor_ms

    def cells(self) -> tuple[str, ...]:
        ms = [s * (1 if self.direct_ms else 1e3) for s in self.seconds]
        return (f"{self.names:,}", self.case, str(len(ms)), fmt_ms(self.median_ms),
                fmt_ms(percentile(ms, 90)),
                "—" if self.ratio is None else fmt_ratio(self.ratio),
                "—" if self.reply_bytes is None else f"{self.reply_bytes / 1024:,.1f}")


class Floor(ZmqFloor):
    def expression(self, expression: str) -> Any:
        msg_id = self.client.execute("", silent=True, store_history=False,
                                     user_expressions={"r": expression})
        while True:
            reply = self.client.get_shell_msg(timeout=600)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        value = reply["content"]["user_expressions"]["r"]
        if value.get("status") != "ok":
            raise RuntimeError(f"{expression}: {value.get('ename')} {value.get('evalue')}")
        return value["data"]["text/plain"]

    def timed_expression(self, expression: str) -> tuple[float, int]:
        t0 = time.perf_counter()
        text = self.expression(expression)
        return time.perf_counter() - t0, len(text)


def _timed_get(server: Server, path: str) -> tuple[float, dict[str, Any] | str]:
    t0 = time.perf_counter()
    status, _, body = server.request("GET", path)
    took = time.perf_counter() - t0
    if status != 200:
        raise RuntimeError(f"GET {path}: {status} {body[:200]!r}")
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    try:
        return took, json.loads(text)
    except ValueError:
        return took, text


def measure_size(server: Server, count: int, reps: int, log: Callable[[str], None]) -> list[Row]:
    kernel_id = server.start_kernel()
    base = f"/api/kernel-state/kernels/{kernel_id}"
    user = Websocket(f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels",
                     {"Authorization": f"token {server.token}"})
    floor_client = Floor(server, kernel_id)

    def cell(code: str) -> None:
        before = _generation(server, kernel_id)  # (the floor's requests count too)
        user.cell(code)
        _wait_generation(server, kernel_id, before + 1)

    try:
        log(f"scale: {count:,} names")
        cell(kernel_side_code())
        cell(f"for _i in range({count}):\n    globals()['v%07d' % _i] = _i\ndel _i")
        _get(server, f"{base}/variables?limit={PAGE}")  # the probe is installed and warm
        heavy = count >= 100_000
        naive_reps = 1 if count >= 1_000_000 else 2 if heavy else reps
        floor = Row(count, "floor: silent execute round trip")
        for _ in range(reps * 3):
            floor.seconds.append(floor_client.silent_round_trip())
        rest_floor = Row(count, "jupyter_server's own GET api/kernels/{id} (no kernel message)")
        for _ in range(reps * 3):
            rest_floor.seconds.append(_timed_get(server, f"/api/kernels/{kernel_id}")[0])
        naive = Row(count, "naive: eval + str per variable, every name (one JSON text)")
        for _ in range(naive_reps):
            before = _generation(server, kernel_id)
            took, size = floor_client.timed_expression(bench_call("peers.eval_and_str"))
            naive.seconds.append(took)
            naive.reply_bytes = size
            _wait_generation(server, kernel_id, before + 1)
        full_all = Row(count, f"whole list (limit {PAGE:,}) after a cell rebinding every name")
        full_one = Row(count, f"whole list (limit {PAGE:,}) after one name changed")
        page_one = Row(count, "first page (limit 500) after one name changed")
        delta_one = Row(count, "incremental list (delta=true) after one name changed")
        prompt_one = Row(count, "prompt (budget 6,000) after one name changed")
        hook_one = Row(count, "hook: post_run_cell after one name changed (in the kernel)",
                       direct_ms=True)
        rebind_reps = 1 if count >= 1_000_000 else 2 if heavy else reps
        for rep in range(rebind_reps):
            cell(f"for _i in range({count}):\n    globals()['v%07d' % _i] = _i + {rep + 1}\n"
                 "del _i")
            took, payload = _timed_get(server, f"{base}/variables?limit={PAGE}")
            full_all.seconds.append(took)
            full_all.reply_bytes = len(json.dumps(payload))
        for rep in range(reps):
            cell(f"v0000001 = -{rep + 1}")
            before = _generation(server, kernel_id)
            hook_one.seconds.append(float(floor_client.expression(HOOK_MS)))
            _wait_generation(server, kernel_id, before + 1)  # any client's request counts
            took, payload = _timed_get(server, f"{base}/variables?limit={PAGE}")
            assert isinstance(payload, dict) and payload["stale"] is False, payload
            full_one.seconds.append(took)
            full_one.reply_bytes = len(json.dumps(payload))
            held = payload["generation"]
            cell(f"v0000002 = -{rep + 1}")
            took, payload = _timed_get(server, f"{base}/variables?since={held}&delta=true"
                                               f"&limit={PAGE}")
            assert isinstance(payload, dict) and payload["delta"] is True, payload
            assert payload["stale"] is False, payload
            assert [v["name"] for v in payload["variables"]] == ["v0000002"], payload
            assert payload["total"] == count
            delta_one.seconds.append(took)
            delta_one.reply_bytes = len(json.dumps(payload))
            cell(f"v0000003 = -{rep + 1}")
            took, payload = _timed_get(server, f"{base}/variables?limit=500")
            page_one.seconds.append(took)
            page_one.reply_bytes = len(json.dumps(payload))
            cell(f"v0000004 = -{rep + 1}")
            took, text = _timed_get(server, f"{base}/prompt?budget=6000")
            prompt_one.seconds.append(took)
            prompt_one.reply_bytes = len(text if isinstance(text, str) else json.dumps(text))
        rows = [floor, rest_floor, naive, full_all, full_one, page_one, delta_one, prompt_one,
                hook_one]
        for row in rows:
            if row is not hook_one:
                row.floor_ms = floor.median_ms
        return rows
    finally:
        user.close()
        floor_client.close()
        server.request("DELETE", f"/api/kernels/{kernel_id}")


#: A cell binding ``count`` small values of mixed kinds (what a user's namespace holds):
#: ints, floats, short strings, small lists, dicts, tuples, None, bools — ``{seed}``
#: makes every value new.
MIXED = """
def _mixed(i, seed):
    k = i % 8
    if k == 0: return i + seed
    if k == 1: return i * 0.5 + seed
    if k == 2: return "s%d-%d" % (i, seed)
    if k == 3: return [i, seed, i + 1]
    if k == 4: return {{"i": i, "seed": seed}}
    if k == 5: return (i, "t", seed)
    if k == 6: return None
    return (i + seed) % 2 == 0
for _i in range({count}):
    globals()["m%05d" % _i] = _mixed(_i, {seed})
del _i, _mixed
"""


def _head(payload: object) -> str:
    """A reply's fields but its variables (for an assertion's message)."""
    if not isinstance(payload, dict):
        return str(payload)[:200]
    return str({k: v for k, v in payload.items() if k != "variables"})


def measure_mixed(server: Server, count: int, reps: int, log: Callable[[str], None]) -> list[Row]:
    """What the sidebar waits for: the first ``GET variables?limit=10000`` sent as soon as
    the user's cell is done (its ``execute_reply`` and idle on the kernel's websocket),
    no request in between, on ``count`` values of mixed kinds, after one change and after a
    cell rebinding every name; the naive loop and the floor in the same kernel."""
    kernel_id = server.start_kernel()
    base = f"/api/kernel-state/kernels/{kernel_id}"
    user = Websocket(f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels",
                     {"Authorization": f"token {server.token}"})
    floor_client = Floor(server, kernel_id)
    try:
        log(f"scale: {count:,} names of mixed kinds, the first GET right after the cell")
        user.cell(kernel_side_code())
        user.cell(MIXED.format(count=count, seed=0))
        _get(server, f"{base}/variables?limit={PAGE}")  # the probe is installed and warm
        floor = Row(count, "floor: silent execute round trip")
        for _ in range(reps * 3):
            floor.seconds.append(floor_client.silent_round_trip())
        naive = Row(count, "naive: eval + str per variable, mixed kinds (one JSON text)")
        for _ in range(reps):
            took, size = floor_client.timed_expression(bench_call("peers.eval_and_str"))
            naive.seconds.append(took)
            naive.reply_bytes = size
        one = Row(count, f"mixed kinds: first whole list (limit {PAGE:,}) right after a "
                         "cell changing one name")
        every = Row(count, f"mixed kinds: first whole list (limit {PAGE:,}) right after a "
                           "cell rebinding every name")
        for rep in range(reps):
            user.cell(f"m00001 = -{rep + 1}")
            took, payload = _timed_get(server, f"{base}/variables?limit={PAGE}")
            assert isinstance(payload, dict) and payload["stale"] is False, _head(payload)
            assert payload["total"] >= count, payload["total"]
            one.seconds.append(took)
            one.reply_bytes = len(json.dumps(payload))
            user.cell(MIXED.format(count=count, seed=rep + 1))
            took, payload = _timed_get(server, f"{base}/variables?limit={PAGE}")
            assert isinstance(payload, dict) and payload["stale"] is False, _head(payload)
            every.seconds.append(took)
            every.reply_bytes = len(json.dumps(payload))
        rows = [floor, naive, one, every]
        for row in rows:
            row.floor_ms = floor.median_ms
        return rows
    finally:
        user.close()
        floor_client.close()
        server.request("DELETE", f"/api/kernels/{kernel_id}")


def checks(rows: list[Row]) -> list[tuple[str, str, bool]]:
    """DESIGN §5 targets at scale (issue "Namespaces of any size")."""
    out: list[tuple[str, str, bool]] = []
    by = {(r.names, r.case.split(" (")[0].split(" after")[0]): r for r in rows}
    for r in rows:
        if r.case.startswith("incremental"):
            out.append((f"incremental after one change, {r.names:,} names",
                        f"{fmt_ratio(r.ratio or 0)} floor", (r.ratio or 0) <= 2.0))
        if r.case.startswith("whole list") and "one name" in r.case and r.names == 10_000:
            out.append(("whole list after one change, 10,000 names",
                        f"{fmt_ratio(r.ratio or 0)} floor", (r.ratio or 0) <= 8.0))
        if r.case.startswith("mixed kinds") and "one name" in r.case:
            out.append((f"mixed kinds, first whole list after one change, {r.names:,} names",
                        f"{fmt_ratio(r.ratio or 0)} floor", (r.ratio or 0) <= 8.0))
        if r.case.startswith("mixed kinds") and "every name" in r.case:
            naive = next((n for n in rows if n.names == r.names and
                          n.case.startswith("naive: eval + str per variable, mixed")), None)
            if naive is not None:
                out.append((f"mixed kinds, first whole list after rebinding all, {r.names:,} "
                            "names, vs the naive loop", f"{fmt_ms(r.median_ms)} ms vs "
                            f"{fmt_ms(naive.median_ms)} ms", r.median_ms < naive.median_ms))
        if r.case.startswith("hook") and r.names == 10_000:
            out.append(("hook, 10,000 names, one changed", f"{fmt_ms(r.median_ms)} ms",
                        r.median_ms <= 1.0))
        if r.case.startswith("prompt"):
            page = by.get((r.names, "first page"))
            if page is not None:
                ratio = r.median_ms / page.median_ms
                out.append((f"prompt vs a 500-name page, {r.names:,} names",
                            f"{ratio:.2f}×", ratio <= 2.0))
    return out


def run(reps: int, log: Callable[[str], None], sizes: tuple[int, ...] = SIZES) -> list[Row]:
    rows: list[Row] = []
    server = Server(debug_log=False)
    try:
        _start(server)
        for count in sizes:
            rows += measure_size(server, count, reps, log)
            if count == 10_000:  # the sidebar's case, as users wait for it
                rows += measure_mixed(server, count, reps, log)
    finally:
        server.stop()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9, help="repetitions of each case")
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    args = parser.parse_args()

    sizes = tuple(int(s) for s in args.sizes.split(","))
    rows = run(args.reps, log_line, sizes)
    return print_tables(HEADER, [r.cells() for r in rows], checks(rows))


if __name__ == "__main__":
    sys.exit(main())
