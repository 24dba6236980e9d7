"""Driver side: a real ipykernel kernel we own, timed requests, kernel memory.

Every wait is bounded; a request that does not answer in time raises ``Timeout`` and the
caller restarts the kernel.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client.manager import start_new_async_kernel

BENCH_MODULE = "_jks_bench"
KERNEL_SIDE = ("states", "peers", "profile_probe", "images")
START_TIMEOUT_S = 60.0
SHUTDOWN_TIMEOUT_S = 10.0
IDLE_TIMEOUT_S = 10.0

_BOOTSTRAP = """
def _install(sources, order, name):
    import sys, types
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]
    package = types.ModuleType(name)
    package.__path__ = []
    package.__package__ = name
    sys.modules[name] = package
    for mod in order:
        module = types.ModuleType(name + "." + mod)
        module.__package__ = name
        sys.modules[module.__name__] = module
        exec(compile(sources[mod], "<bench " + mod + ".py>", "exec"), module.__dict__)
        setattr(package, mod, module)
_install(SOURCES, ORDER, NAME)
"""


class Timeout(Exception):
    """The kernel did not answer within the deadline (it may be hung)."""


def kernel_side_code() -> str:
    folder = Path(__file__).with_name("kernel_side")
    sources = {m: (folder / f"{m}.py").read_text(encoding="utf-8") for m in KERNEL_SIDE}
    namespace = {"SOURCES": sources, "ORDER": KERNEL_SIDE, "NAME": BENCH_MODULE}
    return f"exec({_BOOTSTRAP!r}, {namespace!r})\n"


def bench_call(function: str, *args: Any) -> str:
    """A user expression calling ``_jks_bench.<function>(*args)`` (args: Python literals)."""
    literal = ", ".join(repr(a) for a in args)
    return f"__import__('sys').modules['{BENCH_MODULE}'].{function}({literal})"


def bench_cell(function: str, *args: Any) -> str:
    """A user cell calling a kernel-side helper with the user namespace first."""
    literal = "".join(", " + repr(a) for a in args)
    return (f"__import__('sys').modules['{BENCH_MODULE}'].{function}"
            f"(get_ipython().user_ns{literal});")


class BenchKernel:
    """One ipykernel process and our client of it."""

    def __init__(self, km: Any, kc: Any) -> None:
        self.km = km
        self.kc = kc
        self.pid: int | None = None

    @classmethod
    async def start(cls) -> BenchKernel:
        km, kc = await asyncio.wait_for(
            start_new_async_kernel(
                kernel_name="python3", startup_timeout=START_TIMEOUT_S,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ),
            START_TIMEOUT_S + 5,
        )
        kernel = cls(km, kc)
        reply, _ = await kernel.silent(kernel_side_code(), {"pid": "__import__('os').getpid()"})
        kernel.pid = int(reply["user_expressions"]["pid"]["data"]["text/plain"])
        return kernel

    async def shutdown(self) -> None:
        try:
            self.kc.stop_channels()
            await asyncio.wait_for(self.km.shutdown_kernel(now=True), SHUTDOWN_TIMEOUT_S)
        except Exception:  # a hung kernel is killed by shutdown(now=True); nothing else to do
            pass

    # -- requests ----------------------------------------------------------------------

    async def _reply(self, msg_id: str, deadline: float) -> dict[str, Any]:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(f"no reply to {msg_id}")
            try:
                msg = await self.kc.get_shell_msg(timeout=remaining)
            except Empty:
                raise Timeout(f"no reply to {msg_id}") from None
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg  # type: ignore[no-any-return]

    async def _until_idle(self, msg_id: str, timeout: float) -> list[dict[str, Any]]:
        """IOPub messages of one request up to its idle status (bounded)."""
        deadline = time.monotonic() + timeout
        messages = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(f"no idle for {msg_id}")
            try:
                msg = await self.kc.get_iopub_msg(timeout=remaining)
            except Empty:
                raise Timeout(f"no idle for {msg_id}") from None
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            messages.append(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return messages

    async def silent(
        self, code: str, expressions: dict[str, str] | None = None, timeout: float = 60.0
    ) -> tuple[dict[str, Any], float]:
        """A silent execute_request; (reply content, seconds to the reply)."""
        t0 = time.perf_counter()
        msg_id = self.kc.execute(code, silent=True, store_history=False,
                                 user_expressions=expressions or {}, allow_stdin=False)
        msg = await self._reply(msg_id, time.monotonic() + timeout)
        elapsed = time.perf_counter() - t0
        await self._until_idle(msg_id, IDLE_TIMEOUT_S)
        return msg["content"], elapsed

    async def expression(self, expression: str, timeout: float = 60.0) -> tuple[Any, float]:
        """Evaluate one silent user expression returning JSON text; (value, seconds incl. parse)."""
        t0 = time.perf_counter()
        content, _ = await self.silent("", {"r": expression}, timeout)
        entry = content["user_expressions"]["r"]
        if entry.get("status") != "ok":
            raise RuntimeError(f"{entry.get('ename')}: {entry.get('evalue')}")
        value = json.loads(entry["data"]["text/plain"])
        return value, time.perf_counter() - t0

    async def cell(self, code: str, timeout: float = 300.0) -> list[dict[str, Any]]:
        """A user cell (non-silent, stored in history); its IOPub messages."""
        msg_id = self.kc.execute(code, silent=False, store_history=True, allow_stdin=False)
        msg = await self._reply(msg_id, time.monotonic() + timeout)
        messages = await self._until_idle(msg_id, IDLE_TIMEOUT_S)
        if msg["content"]["status"] != "ok":
            raise RuntimeError(f"cell failed: {msg['content'].get('ename')}: "
                               f"{msg['content'].get('evalue')}")
        return messages

    # -- memory ------------------------------------------------------------------------

    def _status_kb(self, field: str) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise RuntimeError(f"{field} missing")

    def reset_peak(self) -> int:
        """Reset the kernel's peak RSS to its current RSS; return that RSS (kB)."""
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")
        return self._status_kb("VmRSS")

    def peak_growth_mb(self, rss_before_kb: int) -> float:
        return max(0, self._status_kb("VmHWM") - rss_before_kb) / 1024.0

    def rss_mb(self) -> float:
        return self._status_kb("VmRSS") / 1024.0
