"""A real Jupyter Kernel Gateway on loopback, and a TCP relay to put faults between it and
the server (slow links, dropped websockets, a gateway that disappears)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

GATEWAY_START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Every test gateway is protected by a token, as deployed gateways are: the server gets it
# through ``GatewayClient.auth_token`` (conftest.server_config).
GATEWAY_TOKEN = secrets.token_hex(16)


class KernelGatewayProcess:
    """``jupyter kernelgateway`` as a subprocess with its own runtime and config dirs,
    requiring ``GATEWAY_TOKEN``."""

    def __init__(self, root: Path, port: int | None = None, *extra: str) -> None:
        self.token = GATEWAY_TOKEN
        self.root = root
        self.port = port or free_port()
        self.extra = extra
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = root / f"gateway-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def start(self) -> KernelGatewayProcess:
        self.root.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "JUPYTER_RUNTIME_DIR": str(self.root / "runtime"),
            "JUPYTER_CONFIG_DIR": str(self.root / "config"),
            "JUPYTER_DATA_DIR": str(self.data_dir),
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        }
        argv = [
            sys.executable, "-m", "kernel_gateway",
            "--KernelGatewayApp.ip=127.0.0.1", f"--KernelGatewayApp.port={self.port}",
            "--KernelGatewayApp.port_retries=0", f"--KernelGatewayApp.auth_token={self.token}",
            *self.extra,
        ]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + GATEWAY_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gateway exited: {self.log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self._request("/api"), timeout=2):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"gateway did not start: {self.log_path.read_text()[-2000:]}")

    def stop(self) -> None:
        """Ends the gateway and every kernel it started (its process group)."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def delete_kernel(self, kernel_id: str) -> None:
        """What a gateway's culler does: the kernel ends behind the server's back."""
        with urllib.request.urlopen(self._request(f"/api/kernels/{kernel_id}", "DELETE"),
                                    timeout=30):
            pass

    def _request(self, path: str, method: str = "GET") -> urllib.request.Request:
        return urllib.request.Request(f"{self.url}{path}", method=method,
                                      headers={"Authorization": f"token {self.token}"})


class Relay:
    """A TCP relay on loopback that can slow every chunk, or cut every connection."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.delay_s = 0.0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> Relay:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer),
                             return_exceptions=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while chunk := await reader.read(65536):
                if self.delay_s:
                    await asyncio.sleep(self.delay_s)
                writer.write(chunk)
                await writer.drain()
        finally:
            self._writers.discard(writer)
            writer.close()

    def cut(self) -> None:
        """Drop every open connection (a websocket dropped mid-request)."""
        for writer in list(self._writers):
            transport: Any = writer.transport
            transport.abort()
        self._writers.clear()

    async def close(self) -> None:
        self.cut()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None
