"""What the REST benchmarks of one table (rows_cases, profile_cases) share: a real
jupyter_server, a kernel holding the table a user's cell made, the kernel's floor
measured first and every case's row against it; the command line.

The floor is a silent ``execute_request`` with a constant ``user_expressions`` over ZMQ;
its client (``TableKernel.floor_client``) also times the peers' expressions in the same
kernel.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gateway_cases import Websocket, _generation, _start, _wait_generation
from results import log_line, print_tables
from scale_cases import Floor, Row, _timed_get
from server import Server

HEADER = ("rows", "case", "n", "median ms", "p90 ms", "× floor", "reply KB")


@dataclass
class TableKernel:
    """A kernel holding the table: its variable's REST path (``base``), the floor's
    client and row."""

    kernel_id: str
    base: str
    floor_client: Floor
    floor: Row

    def against_floor(self, *cases: Row) -> list[Row]:
        """The floor's row then ``cases``, each with the floor's median."""
        for row in cases:
            row.floor_ms = self.floor.median_ms
        return [self.floor, *cases]


@contextmanager
def table_kernel(server: Server, rows: int, reps: int, log: Callable[[str], None],
                 announce: str, setup: str, path: str, warm: str) -> Iterator[TableKernel]:
    """A new kernel of ``server`` that ran ``setup`` (sent as a notebook sends a cell),
    its probe installed and warm (a first ``GET {path}?{warm}``, ``path`` the variable's
    route under ``variables/``), the floor measured (3 × ``reps`` round trips) and the
    kernel idle again; shut down on exit."""
    kernel_id = server.start_kernel()
    base = f"/api/kernel-state/kernels/{kernel_id}/variables/{path}"
    user = Websocket(f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels",
                     {"Authorization": f"token {server.token}"})
    floor_client = Floor(server, kernel_id)
    try:
        log(announce)
        before = _generation(server, kernel_id)
        user.cell(setup)
        _wait_generation(server, kernel_id, before + 1)
        _timed_get(server, f"{base}?{warm}")  # the probe is installed and warm

        floor = Row(rows, "floor: silent execute round trip")
        for _ in range(reps * 3):
            floor.seconds.append(floor_client.silent_round_trip())
        # The floor's requests are another client's executions: let the server see the
        # kernel idle again (a busy kernel gets 503 for a query never asked before).
        _wait_generation(server, kernel_id, _generation(server, kernel_id))
        yield TableKernel(kernel_id, base, floor_client, floor)
    finally:
        user.close()
        floor_client.close()
        server.request("DELETE", f"/api/kernels/{kernel_id}")


Measure = Callable[[Server, int, int, Callable[[str], None]], list[Row]]


def run_on_server(measure: Measure, rows: int, reps: int, log: Callable[[str], None],
                  extra_args: list[str] | None = None) -> list[Row]:
    """``measure(server, rows, reps, log)`` on a server of its own (``extra_args``: its
    command line's settings)."""
    server = Server(debug_log=False, extra_args=extra_args)
    try:
        _start(server)
        return measure(server, rows, reps, log)
    finally:
        server.stop()


def command_line(doc: str, what: str, default_rows: int,
                 run: Callable[[int, Callable[[str], None], int], list[Row]],
                 checks: Callable[[list[Row]], list[tuple[str, str, bool]]]) -> int:
    """``--reps N --rows N``: the run, its time, its table and verdicts; 0 when all pass."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9, help="repetitions of each case")
    parser.add_argument("--rows", type=int, default=default_rows)
    args = parser.parse_args()
    started = time.perf_counter()
    result = run(args.reps, log_line, args.rows)
    log_line(f"{what} cases took {time.perf_counter() - started:.0f} s")
    return print_tables(HEADER, [r.cells() for r in result], checks(result))
