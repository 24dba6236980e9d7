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

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import fmt_ratio
from scale_cases import Row, _timed_get
from server import Server
from table_harness import command_line, run_on_server, table_kernel

ROWS = 1_000_000
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
    with table_kernel(server, rows, reps, log, f"rows: a {rows:,}-row DataFrame",
                      SETUP.format(rows=rows), "sales/rows", "limit=1") as kernel:
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
                took, payload = _timed_get(server, f"{kernel.base}?{query}")
                assert isinstance(payload, dict) and len(payload["rows"]) == 100, payload
                assert payload["total_rows"] == rows and payload["stale"] is False
                row.seconds.append(took)
                row.reply_bytes = len(str(payload).encode())
        classic = Row(rows, "naive: classic inspector matrix (10,000 rows as JSON)")
        naive_sorted = Row(rows, "naive: sort_values + iloc page as JSON, each time")
        for rep in range(max(1, reps // 3)):
            took, size = kernel.floor_client.timed_expression(CLASSIC)
            classic.seconds.append(took)
            classic.reply_bytes = size
            took, size = kernel.floor_client.timed_expression(
                NAIVE_SORTED.format(col=rep % 18, offset=rep * 100))
            naive_sorted.seconds.append(took)
            naive_sorted.reply_bytes = size
        return kernel.against_floor(first, last, sorted_first, sorted_page, classic,
                                    naive_sorted)


def checks(rows: list[Row]) -> list[tuple[str, str, bool]]:
    """DESIGN §5: a 100×20 window of a 1e6-row DataFrame ≤ 3× floor."""
    out = []
    for r in rows:
        if r.case.startswith("window 100×20") and r.names >= 1_000_000:
            out.append((f"{r.case}, {r.names:,} rows", f"{fmt_ratio(r.ratio or 0)} floor",
                        (r.ratio or 0) <= 3.0))
    return out


def run(reps: int, log: Callable[[str], None], rows: int = ROWS) -> list[Row]:
    return run_on_server(measure, rows, reps, log)


def main() -> int:
    return command_line(__doc__, "rows", ROWS, run, checks)


if __name__ == "__main__":
    sys.exit(main())
