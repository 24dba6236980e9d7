"""Driver side: a real jupyter_server (subprocess, 127.0.0.1 only) with the extension,
HTTP helpers, and an IOPub watcher of our own on a server-started kernel."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client.asynchronous import AsyncKernelClient

HOST = "127.0.0.1"
START_TIMEOUT_S = 60.0
#: Username of the product's own kernel session (jupyter_kernel_state/service/connection.py).
PROBE_USERNAME = "jupyter_kernel_state"
_LOG_LINE = re.compile(r"\b(\d{3}) GET (\S+) \(.*?\) ([\d.]+)ms")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Server:
    """``jupyter server`` as a subprocess; its log goes to a file we parse for request times."""

    def __init__(self, debug_log: bool, profile_to: Path | None = None,
                 extra_args: list[str] | None = None) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="jks-bench-")
        root = Path(self.tmp.name)
        self.runtime_dir = root / "runtime"
        self.token = secrets.token_hex(16)
        self.port = free_port()
        self.log_path = root / "server.log"
        (root / "work").mkdir()
        env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(self.runtime_dir),
                   JUPYTER_CONFIG_DIR=str(root / "config"), PYTHONUNBUFFERED="1")
        profiler = ["-m", "cProfile", "-o", str(profile_to)] if profile_to else []
        cmd = [
            sys.executable, *profiler, "-m", "jupyter_server",
            f"--ServerApp.token={self.token}", f"--ServerApp.port={self.port}",
            f"--ServerApp.ip={HOST}", "--ServerApp.port_retries=0",
            "--ServerApp.allow_root=True", "--ServerApp.open_browser=False",
            f"--ServerApp.root_dir={root / 'work'}",
            f"--ServerApp.log_level={'DEBUG' if debug_log else 'WARN'}",
            *(extra_args or []),
        ]
        self._log_file = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(cmd, env=env, stdout=self._log_file,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)

    @property
    def pid(self) -> int:
        return self.process.pid

    async def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: see {self.log_path}")
            try:
                status, _, _body = self.request("GET", "/api/kernel-state/kernels")
                if status == 200:
                    return
                if status == 404:
                    raise RuntimeError("the jupyter_kernel_state extension is not enabled")
            except (ConnectionError, OSError, http.client.HTTPException):
                self.conn.close()
            await asyncio.sleep(0.2)
        raise RuntimeError("server did not start in time")

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
        """One request on a kept-alive connection: (status, headers (case-insensitive), body)."""
        all_headers = {"Authorization": f"token {self.token}", **(headers or {})}
        data = json.dumps(body).encode() if body is not None else None
        try:
            self.conn.request(method, path, body=data, headers=all_headers)
            response = self.conn.getresponse()
        except (ConnectionError, http.client.HTTPException):
            self.conn.close()
            raise
        return response.status, response.headers, response.read()

    def get_json(self, path: str) -> Any:
        status, _, body = self.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body[:200]!r}")
        return json.loads(body)

    def start_kernel(self) -> str:
        status, _, body = self.request("POST", "/api/kernels", {"name": "python3"})
        if status != 201:
            raise RuntimeError(f"kernel start failed: {status}")
        return str(json.loads(body)["id"])

    def log_offset(self) -> int:
        return self.log_path.stat().st_size

    def request_times_ms(self, offset: int, path_part: str) -> list[tuple[int, float]]:
        """(status, ms) of logged GETs after ``offset`` whose URI contains ``path_part``."""
        text = self.log_path.read_bytes()[offset:].decode("utf-8", "replace")
        return [(int(m[1]), float(m[3])) for m in _LOG_LINE.finditer(text) if path_part in m[2]]

    def stop(self) -> None:
        self.conn.close()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self._log_file.close()
        self.tmp.cleanup()


class Watcher:
    """Our own client of a server-started kernel: runs user cells and counts, on IOPub,
    the execute requests the product sends (busy statuses whose parent is its session)."""

    def __init__(self, server: Server, kernel_id: str) -> None:
        self.client = AsyncKernelClient()
        self.client.load_connection_file(str(server.runtime_dir / f"kernel-{kernel_id}.json"))
        self.client.start_channels()
        self.probe_requests = 0
        self.display_data = 0
        self.iopub_messages = 0
        self._idle: dict[str, asyncio.Event] = {}
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.client.wait_for_ready(timeout=60)
        self._task = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        while True:
            try:
                msg = await self.client.get_iopub_msg(timeout=0.5)
            except Empty:
                continue
            self.iopub_messages += 1
            parent = msg.get("parent_header") or {}
            kind = msg["msg_type"]
            if kind == "display_data":
                self.display_data += 1
            elif kind == "status":
                state = msg["content"].get("execution_state")
                if state == "busy" and parent.get("username") == PROBE_USERNAME \
                        and parent.get("msg_type") == "execute_request":
                    self.probe_requests += 1
                elif state == "idle" and parent.get("msg_id") in self._idle:
                    self._idle[parent["msg_id"]].set()

    async def cell(self, code: str, timeout: float = 300.0,
                   expressions: dict[str, str] | None = None) -> dict[str, Any]:
        """A user cell; returns its reply content once its idle status was seen."""
        msg_id = self.client.execute(code, silent=False, store_history=True,
                                     user_expressions=expressions or {})
        event = self._idle[msg_id] = asyncio.Event()
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("cell did not finish")
            reply = await self.client.get_shell_msg(timeout=remaining)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        await asyncio.wait_for(event.wait(), max(1.0, deadline - time.monotonic()))
        del self._idle[msg_id]
        return reply["content"]  # type: ignore[no-any-return]

    async def settle(self, seconds: float = 0.3) -> None:
        """Give IOPub time to arrive (our counters are only as current as our socket)."""
        await asyncio.sleep(seconds)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self.client.stop_channels()
