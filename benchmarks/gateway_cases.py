"""The same user-facing cases for a local kernel and for a kernel behind a real Kernel
Gateway, each against its own floor, in one run.

    python benchmarks/gateway_cases.py [--reps N]

What a user waits for: the REST call to the server (client-side wall time), with the user's
cells sent over the server's kernel websocket as a notebook sends them. The floor is a
silent ``execute_request`` with a constant ``user_expressions`` over the wire the server
itself uses for that kernel: ZMQ from the connection file for the local kernel, a websocket
to the gateway's ``api/kernels/{id}/channels`` (websocket-client, as jupyter_server's
``GatewayKernelClient``) for the remote one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websocket
from jupyter_client import BlockingKernelClient
from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from results import fmt_ms, fmt_ratio, log_line, percentile, print_tables
from server import Server

from tests.gateway_utils import KernelGatewayProcess

VARIABLES = 10_000
WAIT_S = 60.0
HEADER = ("backend", "case", "n", "median ms", "p90 ms", "× own floor")
MAKE_STATE = (
    "import pandas as pd, numpy as np\n"
    f"for _i in range({VARIABLES}):\n"
    "    globals()['v%05d' % _i] = _i\n"
    "del _i\n"
    "sales = pd.DataFrame({'units': np.arange(100_000), 'price': np.ones(100_000)})\n"
)


def _execute_msg(session: Session, code: str, silent: bool,
                 expressions: dict[str, str] | None = None) -> dict[str, Any]:
    return session.msg("execute_request", {
        "code": code, "silent": silent, "store_history": not silent,
        "user_expressions": expressions or {}, "allow_stdin": False, "stop_on_error": True,
    })


class Websocket:
    """A synchronous kernel websocket: a notebook (to the server) or the floor (to the
    gateway). Messages are JSON, as jupyter_server's legacy protocol sends them."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.ws = websocket.create_connection(
            f"{url}?session_id={uuid.uuid4().hex}", header=headers or {}, timeout=WAIT_S)
        self.session = Session(username="bench-user")

    def send(self, msg: dict[str, Any]) -> str:
        msg["channel"] = "shell"
        self.ws.send(json.dumps(msg, default=json_default))
        return str(msg["header"]["msg_id"])

    def wait(self, msg_id: str, *, idle: bool) -> dict[str, Any]:
        """Until the shell reply of ``msg_id`` (and, with ``idle``, its idle status)."""
        reply: dict[str, Any] | None = None
        seen_idle = not idle
        while reply is None or not seen_idle:
            msg = json.loads(self.ws.recv())
            if (msg.get("parent_header") or {}).get("msg_id") != msg_id:
                continue
            if msg.get("channel") == "shell":
                reply = msg
            elif msg.get("msg_type") == "status" and msg["content"]["execution_state"] == "idle":
                seen_idle = True
        return reply

    def cell(self, code: str) -> dict[str, Any]:
        msg_id = self.send(_execute_msg(self.session, code, silent=False))
        content: dict[str, Any] = self.wait(msg_id, idle=True)["content"]
        if content.get("status") != "ok":
            raise RuntimeError(f"cell failed: {content.get('ename')}: {content.get('evalue')}")
        return content

    def silent_round_trip(self) -> float:
        t0 = time.perf_counter()
        msg_id = self.send(_execute_msg(self.session, "", silent=True, expressions={"x": "1"}))
        self.wait(msg_id, idle=False)
        return time.perf_counter() - t0

    def close(self) -> None:
        self.ws.close()


class ZmqFloor:
    """The local floor: a client of the kernel's own sockets, as the server has."""

    def __init__(self, server: Server, kernel_id: str) -> None:
        self.client = BlockingKernelClient()
        self.client.load_connection_file(str(server.runtime_dir / f"kernel-{kernel_id}.json"))
        self.client.start_channels(iopub=False, stdin=False, hb=False, control=False)

    def silent_round_trip(self) -> float:
        t0 = time.perf_counter()
        msg_id = self.client.execute("", silent=True, store_history=False,
                                     user_expressions={"x": "1"})
        while self.client.get_shell_msg(timeout=WAIT_S)["parent_header"].get("msg_id") != msg_id:
            pass
        return time.perf_counter() - t0

    def close(self) -> None:
        self.client.stop_channels()


@dataclass
class Row:
    backend: str
    case: str
    seconds: list[float] = field(default_factory=list)
    floor_ms: float = 0.0

    @property
    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1e3

    @property
    def ratio(self) -> float:
        return self.median_ms / self.floor_ms

    def cells(self) -> tuple[str, ...]:
        ms = [s * 1e3 for s in self.seconds]
        return (self.backend, self.case, str(len(ms)), fmt_ms(self.median_ms),
                fmt_ms(percentile(ms, 90)), fmt_ratio(self.ratio))


def checks(rows: list[Row]) -> list[tuple[str, str, bool]]:
    """DESIGN §5: a gateway kernel keeps each case's ratio to its own floor (compared
    with the same case on a local kernel, 25% allowed for noise)."""
    local = {r.case: r for r in rows if r.backend == "local"}
    out = []
    for row in rows:
        peer = local.get(row.case)
        if row.backend != "gateway" or peer is None or row.case.startswith("floor"):
            continue
        out.append((f"gateway: {row.case}",
                    f"{fmt_ratio(row.ratio)} of the gateway floor ({fmt_ms(row.floor_ms)} ms); "
                    f"local {fmt_ratio(peer.ratio)} of {fmt_ms(peer.floor_ms)} ms",
                    row.ratio <= peer.ratio * 1.25))
    return out


def _get(server: Server, path: str) -> float:
    t0 = time.perf_counter()
    status, _, body = server.request("GET", path)
    took = time.perf_counter() - t0
    if status != 200:
        raise RuntimeError(f"GET {path}: {status} {body[:200]!r}")
    return took


def _wait_generation(server: Server, kernel_id: str, generation: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        kernels = server.get_json("/api/kernel-state/kernels")["kernels"]
        info = next((k for k in kernels if k["kernel_id"] == kernel_id), None)
        if info and info["generation"] >= generation and info["execution_state"] == "idle":
            return
        time.sleep(0.01)
    raise TimeoutError(f"server never saw generation {generation}")


def _generation(server: Server, kernel_id: str) -> int:
    kernels = server.get_json("/api/kernel-state/kernels")["kernels"]
    return int(next(k for k in kernels if k["kernel_id"] == kernel_id)["generation"])


def measure_backend(backend: str, server: Server, floor_of: Callable[[str], Any], reps: int,
                    log: Callable[[str], None]) -> list[Row]:
    kernel_id = server.start_kernel()
    base = f"/api/kernel-state/kernels/{kernel_id}"
    user = Websocket(f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels",
                     {"Authorization": f"token {server.token}"})
    floor_client = floor_of(kernel_id)
    try:
        def cell(code: str) -> None:
            before = _generation(server, kernel_id)
            user.cell(code)
            _wait_generation(server, kernel_id, before + 1)

        log(f"{backend}: {VARIABLES:,} variables and a 1e5-row DataFrame")
        cell(MAKE_STATE)
        _get(server, f"{base}/variables")  # the probe is installed and warm
        floor = Row(backend, "floor: silent execute round trip")
        for _ in range(reps * 3):
            floor.seconds.append(floor_client.silent_round_trip())
        first = Row(backend, f"snapshot after a cell rebinding all {VARIABLES:,} (page 500)")
        one = Row(backend, f"snapshot after one of {VARIABLES:,} changed (page 500)")
        prompt = Row(backend, f"prompt after one change ({VARIABLES:,} names, budget 6,000)")
        detail = Row(backend, "detail of a 1e5-row DataFrame after one change")
        cached = Row(backend, "repeated GET, unchanged kernel (no kernel message)")
        for rep in range(reps):
            cell(f"for _i in range({VARIABLES}):\n    globals()['v%05d' % _i] = _i + {rep + 1}\n"
                 "del _i")
            first.seconds.append(_get(server, f"{base}/variables"))
            cell(f"v00001 = -{rep}")
            one.seconds.append(_get(server, f"{base}/variables"))
            cached.seconds.append(_get(server, f"{base}/variables"))
            cell(f"v00002 = -{rep}")
            prompt.seconds.append(_get(server, f"{base}/prompt?budget=6000"))
            cell(f"v00003 = -{rep}")
            detail.seconds.append(_get(server, f"{base}/variables/sales"))
        rows = [floor, first, one, prompt, detail, cached]
        for row in rows:
            row.floor_ms = floor.median_ms
        return rows
    finally:
        user.close()
        floor_client.close()


def run(reps: int, log: Callable[[str], None]) -> list[Row]:
    """Each backend's cases, measured against its own floor."""
    rows: list[Row] = []
    local = Server(debug_log=False)
    try:
        _start(local)
        rows += measure_backend("local", local, lambda kid: ZmqFloor(local, kid), reps, log)
    finally:
        local.stop()
    gateway_dir = tempfile.TemporaryDirectory(prefix="jks-bench-gateway-")
    gateway = KernelGatewayProcess(Path(gateway_dir.name)).start()
    # A token-protected gateway, as deployed ones are.
    remote = Server(debug_log=False, extra_args=[f"--gateway-url={gateway.url}",
                                                 f"--GatewayClient.auth_token={gateway.token}"])
    try:
        _start(remote)
        rows += measure_backend(
            "gateway", remote,
            lambda kid: Websocket(f"ws://127.0.0.1:{gateway.port}/api/kernels/{kid}/channels",
                                  {"Authorization": f"token {gateway.token}"}),
            reps, log)
    finally:
        remote.stop()
        gateway.stop()
        gateway_dir.cleanup()
    return rows


def _start(server: Server) -> None:
    import asyncio

    asyncio.run(server.wait_ready())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15, help="repetitions of each case")
    args = parser.parse_args()

    rows = run(args.reps, log_line)
    return print_tables(HEADER, [r.cells() for r in rows], checks(rows))


if __name__ == "__main__":
    sys.exit(main())
