"""One huge image on IOPub: what it costs the server's memory.

Starts a real ``jupyter server`` with the extension (``benchmarks/server.py``), starts a
kernel, opens the extension's own connection to it (a GET of its variables), then, from a
user client of our own on the kernel's connection file (no notebook websocket, so that
jupyter_server's own websocket bridge is not part of the figure), has the kernel publish ONE
``display_data`` whose ``image/png`` is a ~200 MB base64 string. The server process's
resident memory is sampled from ``/proc/<pid>/status``: ``VmHWM`` (its peak, reset just before
the publish through ``/proc/<pid>/clear_refs``) and ``VmRSS`` (sampled every 10 ms as a
cross-check). Then ``GET api/kernel-state/kernels/<id>/images`` must count the image as
``rejected``, and the server must still answer.

    python benchmarks/iopub_memory.py            # 200 MB of base64
    python benchmarks/iopub_memory.py --mb 50 --json
    python benchmarks/iopub_memory.py --without-extension   # jupyter_server's own share
    python benchmarks/iopub_memory.py --extension-only      # the extension's own share

jupyter_server follows every kernel's IOPub itself (its activity watcher receives each
message with a copy out of libzmq, then decodes its header): ``--without-extension`` measures
that alone; ``--extension-only`` replaces it by a no-op (``NoActivityWatcher`` below, used as
the server's kernel manager class) so that what remains is the extension's own cost.

Linux only (``/proc``). The payload is built in the kernel by a first cell, so only the
publish itself is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import MappingKernelManager
from server import Server, Watcher

MIB = 1024 * 1024
HERE = Path(__file__).resolve().parent


class NoActivityWatcher(MappingKernelManager):
    """jupyter_server's kernel manager without its own IOPub subscription (for
    ``--extension-only``: the extension's share of the server's memory, alone)."""

    def start_watching_activity(self, kernel_id: str) -> None:
        kernel = self._kernels[kernel_id]
        kernel.reason = ""
        kernel.last_activity = utcnow()
        kernel.execution_state = "idle"


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/{pid}/status")


def reset_peak(pid: int) -> bool:
    """Reset VmHWM to the current RSS (Linux ≥ 4.0, same user or root)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


class Sampler:
    """VmRSS every ``interval`` seconds in a thread: the highest value seen."""

    def __init__(self, pid: int, interval: float = 0.01) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak_kib = max(self.peak_kib, status_kib(self.pid, "VmRSS"))
            except (OSError, RuntimeError):
                return
            time.sleep(self.interval)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


BUILD = """\
import base64 as _b64
_raw = b'\\x89PNG\\r\\n\\x1a\\n' + bytes({raw_bytes})
_big_png_b64 = _b64.b64encode(_raw).decode('ascii')
del _raw, _b64
len(_big_png_b64)
"""

PUBLISH = """\
from IPython.display import publish_display_data as _pdd
_pdd({'image/png': _big_png_b64, 'text/plain': '<a big picture>'})
del _pdd
"""


async def wait_plain_server(server: Server) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if server.request("GET", "/api/status")[0] == 200:
                return
        except OSError:
            server.conn.close()
        await asyncio.sleep(0.2)
    raise RuntimeError("server did not start in time")


async def measure(mb: float, settle_s: float, extension: bool = True,
                  server_watcher: bool = True) -> dict[str, Any]:
    extra = [] if extension else [
        "--ServerApp.jpserver_extensions={'jupyter_kernel_state': False}"]
    if not server_watcher:
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])])
        extra.append("--ServerApp.kernel_manager_class=iopub_memory.NoActivityWatcher")
    server = Server(debug_log=False, extra_args=extra)
    watcher: Watcher | None = None
    try:
        if extension:
            await server.wait_ready()
        else:
            await wait_plain_server(server)
        pid = server.pid
        kernel_id = server.start_kernel()
        base = f"/api/kernel-state/kernels/{kernel_id}"
        # Open the extension's own connection (it follows IOPub from then on).
        deadline = time.monotonic() + 60
        while extension:
            status, _, _ = server.request("GET", f"{base}/variables")
            if status == 200:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"variables never answered: {status}")
            await asyncio.sleep(0.3)
        watcher = Watcher(server, kernel_id)
        await watcher.start()
        b64_chars = int(mb * MIB)
        raw_bytes = b64_chars * 3 // 4 - 8
        reply = await watcher.cell(BUILD.format(raw_bytes=raw_bytes))
        assert reply["status"] == "ok", reply
        await watcher.settle(1.0)
        before = server.get_json(f"{base}/images")["rejected"] if extension else 0

        start_rss = status_kib(pid, "VmRSS")
        peak_was_reset = reset_peak(pid)
        started = time.monotonic()
        with Sampler(pid) as sampler:
            reply = await watcher.cell(PUBLISH)
            assert reply["status"] == "ok", reply
            # The server reads IOPub on its own schedule: wait until it counted the image.
            images: dict[str, Any] = {}
            deadline = time.monotonic() + 120
            while extension and time.monotonic() < deadline:
                images = server.get_json(f"{base}/images")
                if images["rejected"] > before:
                    break
                await asyncio.sleep(0.1)
            handled_s = time.monotonic() - started
            await asyncio.sleep(settle_s)
        hwm = status_kib(pid, "VmHWM")
        end_rss = status_kib(pid, "VmRSS")
        if not extension:
            return {
                "payload_base64_mb": round(b64_chars / MIB, 1),
                "extension": False,
                "server_activity_watcher": server_watcher,
                "start_rss_mb": round(start_rss / 1024, 1),
                "peak_above_start_mb": round((hwm - start_rss) / 1024, 1) if peak_was_reset
                else None,
                "sampled_peak_above_start_mb": round((sampler.peak_kib - start_rss) / 1024, 1),
            }
        t0 = time.monotonic()
        kernels = server.get_json("/api/kernel-state/kernels")
        answer_ms = (time.monotonic() - t0) * 1000
        history = server.get_json(f"{base}/history?limit=1")
        return {
            "payload_base64_mb": round(b64_chars / MIB, 1),
            "server_activity_watcher": server_watcher,
            "server_pid": pid,
            "start_rss_mb": round(start_rss / 1024, 1),
            "peak_rss_mb": round(hwm / 1024, 1) if peak_was_reset else None,
            "peak_above_start_mb": round((hwm - start_rss) / 1024, 1) if peak_was_reset
            else None,
            "sampled_peak_above_start_mb": round((sampler.peak_kib - start_rss) / 1024, 1),
            "end_rss_above_start_mb": round((end_rss - start_rss) / 1024, 1),
            "rejected": images.get("rejected", 0) - before,
            "images_kept": images.get("total"),
            "handled_within_s": round(handled_s, 2),
            "kernels_route_ms": round(answer_ms, 1),
            "kernels_route_ok": any(k["kernel_id"] == kernel_id for k in kernels["kernels"]),
            "history_output": (history["entries"][-1]["output"] if history["entries"]
                               else None),
        }
    finally:
        if watcher is not None:
            await watcher.stop()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=200.0,
                        help="size of the base64 image/png string, in MiB (default 200)")
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds to keep sampling after the server counted it")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--without-extension", action="store_true",
                        help="the same server and publish with the extension disabled: "
                        "jupyter_server's own share (its IOPub activity watcher)")
    parser.add_argument("--extension-only", action="store_true",
                        help="jupyter_server's own IOPub activity watcher replaced by a no-op: "
                        "the extension's share alone")
    args = parser.parse_args()
    result = asyncio.run(measure(args.mb, args.settle, not args.without_extension,
                                 not args.extension_only))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        print(f"{key:30} {value}")


if __name__ == "__main__":
    main()
