"""The data explorer's windows through REST end to end: a 100×20 window of a
1,000,000-row DataFrame (first, last, sorted, paging a sort), against the kernel's floor
and the naive approaches, in one run.

    python benchmarks/rows_cases.py [--reps N] [--rows 1000000]

What a user waits for: the client's wall time of ``GET variables/{name}/rows`` on a real
jupyter_server (each rep asks a window not asked before, so the probe runs every time;
repeated identical requests are served from cache). The floor is a silent
``execute_request`` with a constant ``user_expressions`` over ZMQ. The naive approaches
run in the same kernel through the same kind of request: the classic variable
inspector's matrix view (the first 10,000 rows as ``to_json(orient="table")``), and a
sorted page computed from scratch each time (``sort_values`` then ``iloc``, as JSON).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gateway_cases import Websocket, _generation, _start, _wait_generation
from results import fmt_ratio, log_line, print_tables
from scale_cases import Floor, Row, _timed_get
from server import Server

ROWS = 1_000_000
HEADER = ("rows", "case", "n", "median ms", "p90 ms", "× floor", "reply KB")
SETUP = """
import numpy as np, pandas as pd
_rng = np.random.default_rng(0)
sales = pd.DataFrame({{f"c{{i}}": _rng.random({rows}) for i in range(18)}})
sales["when"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange({rows}) % 365, unit="D")
sales["region"] = np.array(["north", "south", "east", "west"])[np.arange({rows}) % 4]
del _rng
"""
CLASSIC = "sales.iloc[:10000].to_json(orient='table', index=True)"
NAIVE_SORTED = ("sales.sort_values('c{col}', ascending=False).iloc[{offset}:{offset} + 100]"
                ".to_json(orient='table', index=True)")


def measure(server: Server, rows: int, reps: int, log: Callable[[str], None]) -> list[Row]:
    kernel_id = server.start_kernel()
    base = f"/api/kernel-state/kernels/{kernel_id}/variables/sales/rows"
    user = Websocket(f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels",
                     {"Authorization": f"token {server.token}"})
    floor_client = Floor(server, kernel_id)
    try:
        log(f"rows: a {rows:,}-row DataFrame")
        before = _generation(server, kernel_id)
        user.cell(SETUP.format(rows=rows))
        _wait_generation(server, kernel_id, before + 1)
        _timed_get(server, f"{base}?limit=1")  # the probe is installed and warm

        floor = Row(rows, "floor: silent execute round trip")
        for _ in range(reps * 3):
            floor.seconds.append(floor_client.silent_round_trip())
        # The floor's requests are another client's executions: let the server see the
        # kernel idle again (a busy kernel gets 503 for a window never asked before).
        _wait_generation(server, kernel_id, _generation(server, kernel_id))
        first = Row(rows, "window 100×20 near the top")
        last = Row(rows, "window 100×20 at the end")
        sorted_first = Row(rows, "sorted window 100×20 (a new sort each time)")
        sorted_page = Row(rows, "sorted window 100×20, paging a kept sort")
        for rep in range(reps):
            for row, query in [
                (first, f"offset={rep * 100}&limit=100&columns=0:20"),
                (last, f"offset={rows - 100 - rep}&limit=100&columns=0:20"),
                (sorted_first, f"offset=0&limit=100&columns=0:20&sort=c{rep % 18}:desc"),
                (sorted_page, f"offset={(rep + 1) * 100}&limit=100&columns=0:20"
                              f"&sort=c{(reps - 1) % 18}:desc"),
            ]:
                took, payload = _timed_get(server, f"{base}?{query}")
                assert isinstance(payload, dict) and len(payload["rows"]) == 100, payload
                assert payload["total_rows"] == rows and payload["stale"] is False
                row.seconds.append(took)
                row.reply_bytes = len(str(payload).encode())
        classic = Row(rows, "naive: classic inspector matrix (10,000 rows as JSON)")
        naive_sorted = Row(rows, "naive: sort_values + iloc page as JSON, each time")
        for rep in range(max(1, reps // 3)):
            took, size = floor_client.timed_expression(CLASSIC)
            classic.seconds.append(took)
            classic.reply_bytes = size
            took, size = floor_client.timed_expression(
                NAIVE_SORTED.format(col=rep % 18, offset=rep * 100))
            naive_sorted.seconds.append(took)
            naive_sorted.reply_bytes = size
        out = [floor, first, last, sorted_first, sorted_page, classic, naive_sorted]
        for row in out[1:]:
            row.floor_ms = floor.median_ms
        return out
    finally:
        user.close()
        floor_client.close()
        server.request("DELETE", f"/api/kernels/{kernel_id}")


def checks(rows: list[Row]) -> list[tuple[str, str, bool]]:
    """DESIGN §5: a 100×20 window of a 1e6-row DataFrame ≤ 3× floor."""
    out = []
    for r in rows:
        if r.case.startswith("window 100×20") and r.names >= 1_000_000:
            out.append((f"{r.case}, {r.names:,} rows", f"{fmt_ratio(r.ratio or 0)} floor",
                        (r.ratio or 0) <= 3.0))
    return out


def run(reps: int, log: Callable[[str], None], rows: int = ROWS) -> list[Row]:
    server = Server(debug_log=False)
    try:
        _start(server)
        return measure(server, rows, reps, log)
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9, help="repetitions of each case")
    parser.add_argument("--rows", type=int, default=ROWS)
    args = parser.parse_args()
    started = time.perf_counter()
    result = run(args.reps, log_line, args.rows)
    log_line(f"rows cases took {time.perf_counter() - started:.0f} s")
    return print_tables(HEADER, [r.cells() for r in result], checks(result))


if __name__ == "__main__":
    sys.exit(main())
