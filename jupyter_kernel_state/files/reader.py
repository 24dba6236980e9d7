"""The worker process seen from the server: started on first use, one request at a time,
its answer awaited within a deadline; killed past it (DuckDB work must never block the
server's event loop, nor a hung read the next request) and started again when it died.

A request is one JSON line to the worker's stdin, the answer one line from its stdout,
at most ``max_reply_bytes``. The process is ``sys.executable -m
jupyter_kernel_state.files.worker`` (``worker.py``), its stderr passed to the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from typing import Any

from ..errors import KernelUnavailable, ProbeFailed
from .limits import FileLimits


class WorkerStopped(KernelUnavailable):
    """The worker died or ran past its deadline (it was killed): try again."""


class FileReader:
    """One long-lived worker process and its lock."""

    def __init__(self, limits: FileLimits, log: logging.Logger) -> None:
        self._limits = limits
        self._log = log
        self._process: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()
        self.started = 0  # processes started, for tests and logs

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.returncode is None else None

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """The worker's answer to ``message``, within ``limits.timeout`` (503 past it,
        the worker killed; 503 when the worker died on the way). A request waits for the
        one before it at most ``limits.timeout`` too (503: busy)."""
        try:
            await asyncio.wait_for(self._lock.acquire(), self._limits.timeout)
        except asyncio.TimeoutError:
            raise WorkerStopped("The file reader is busy with other requests; try again",
                                retry_after=2) from None
        try:
            return await self._ask(message)
        except asyncio.CancelledError:
            # Its answer may still come: the next request must not read it as its own.
            self._abandon()
            raise
        finally:
            self._lock.release()

    def _abandon(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            self._log.warning("jupyter_kernel_state: file reader (pid %s) stopped: its "
                              "request was cancelled", process.pid)
            with contextlib.suppress(ProcessLookupError):
                process.kill()

    async def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        process = await self._running()
        assert process.stdin is not None and process.stdout is not None
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            process.stdin.write(line.encode("utf-8"))
            await asyncio.wait_for(process.stdin.drain(), self._limits.timeout)
            answer = await asyncio.wait_for(process.stdout.readline(),
                                            self._limits.timeout)
        except asyncio.TimeoutError:
            await self._kill(f"no answer within {self._limits.timeout:g} s")
            raise WorkerStopped(
                f"The file reader did not answer within {self._limits.timeout:g} s (the "
                "server's files_timeout); it was stopped: try again, or a smaller view",
                retry_after=1) from None
        except (ValueError, asyncio.LimitOverrunError):
            await self._kill("an answer past max_reply_bytes")
            raise ProbeFailed("File reader error: an answer larger than "
                              f"{self._limits.max_reply_bytes:,} bytes") from None
        except (BrokenPipeError, ConnectionResetError):
            answer = b""
        if not answer:
            await self._kill("it stopped")
            raise WorkerStopped("The file reader stopped while reading; try again",
                                retry_after=1)
        try:
            reply = json.loads(answer)
        except ValueError:
            raise ProbeFailed("File reader error: an answer that is not JSON") from None
        if not isinstance(reply, dict):
            raise ProbeFailed("File reader error: an answer that is not an object")
        return reply

    async def _running(self) -> asyncio.subprocess.Process:
        process = self._process
        if process is not None and process.returncode is None:
            return process
        settings = {"memory_mb": self._limits.memory_mb, "threads": self._limits.threads,
                    "excel_max_rows": self._limits.excel_max_rows,
                    "open_files": self._limits.open_files}
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "jupyter_kernel_state.files.worker", json.dumps(settings),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=self._limits.max_reply_bytes)
        self.started += 1
        return self._process

    async def _kill(self, why: str) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        self._log.warning("jupyter_kernel_state: file reader (pid %s) stopped: %s",
                          process.pid, why)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), 5)

    async def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(Exception):
            if process.stdin is not None:
                process.stdin.close()
            await asyncio.wait_for(process.wait(), 2)
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(Exception):
                await process.wait()
