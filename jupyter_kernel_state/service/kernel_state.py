"""Everything the server knows about one kernel, and the only path to its probe.

- ``epoch`` counts restarts; ``generation`` (from the tracker) counts user executions.
- Snapshots are cached by (epoch, generation, options); a GET for an unchanged kernel
  costs a dict lookup and sends nothing to the kernel.
- At most one probe request is in flight; identical concurrent requests share it.
- A busy kernel gets no request: the last snapshot comes back marked stale.
"""

from __future__ import annotations

import asyncio
import collections
import datetime
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import (
    KernelNotFound,
    KernelUnavailable,
    KernelUnreachable,
)
from .connection import KernelConnection, RequestTimeout
from .history import HistoryLog
from .images import ImageStore
from .languages import for_language
from .limits import Limits
from .probe_calls import ProbeCalls
from .queries import DetailOptions, SnapshotOptions
from .tracker import ExecutionTracker


def _now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


# A busy kernel silent for this long gets one kernel_info_request (see _check_still_busy).
SILENT_BUSY_CHECK_S = 2.0
# Longest wait for the first status after connecting (see _settle).
SETTLE_WAIT_S = 2.0


class _LRU(collections.OrderedDict[Any, dict[str, Any]]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: dict[str, Any]) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class KernelState(ProbeCalls):
    def __init__(
        self,
        kernel_id: str,
        kernel_manager: Any,
        limits: Limits,
        log: logging.Logger,
        kernel_specs: Any = None,
    ) -> None:
        self.kernel_id = kernel_id
        self._kernel_specs = kernel_specs  # the server's kernelspec manager
        self._km = kernel_manager
        self._limits = limits
        self._log = log
        self.language = self._language()
        self.epoch = 0
        self.epoch_started_at = 0  # the generation at which the current epoch began
        self._fresh_epoch = True  # no execution and no probe reply in this epoch yet
        self.tracker = ExecutionTracker(getattr(kernel_manager, "execution_state", None))
        self.probe_id: str | None = None
        # Images and history outlive restarts: each image says the epoch it came from.
        self.images = ImageStore(limits.images)
        self.history = HistoryLog(limits.history)
        self.variables_total: int | None = None
        self._connection: KernelConnection | None = None
        self._snapshots = _LRU(limits.snapshot_cache_size)
        self._last_snapshot: dict[tuple[object, ...], dict[str, Any]] = {}
        self._details = _LRU(limits.detail_cache_size)
        self._inflight: dict[tuple[object, ...], asyncio.Future[dict[str, Any]]] = {}
        self._probe_lock = asyncio.Lock()
        self._last_busy_check = 0.0
        self.probe_requests = 0  # counted for tests and benchmarks
        self.prepared = asyncio.Event()  # set once the early probe install has finished
        self._removed = False  # the kernel was shut down (see remove)

    # -- kernel facts ------------------------------------------------------------------

    def _check_link(self) -> None:
        """Nothing cached is current while the wire is down: cells may be running unseen."""
        connection = self._connection
        if connection is None or connection.is_open:
            return
        if connection.gone is not None:
            raise KernelNotFound(self.kernel_id)
        if connection.link_error is not None:
            raise KernelUnreachable(f"{connection.link_error}; try again", retry_after=2)

    def connection(self) -> KernelConnection:
        """Our connection to the kernel, opening in the background if it is not open."""
        if self._connection is None or self._connection.closed:
            self._connection = KernelConnection(
                self._km, self._on_iopub, self._log,
                connect_timeout=self._limits.probe_timeout, on_open=self._opened,
                on_reply=self._on_reply, max_iopub_bytes=self._limits.iopub_message_bytes(),
            )
        self._connection.start()
        return self._connection

    @property
    def gone(self) -> bool:
        """The kernel was shut down, or its gateway said it no longer has it."""
        return self.removed or (self._connection is not None
                                and self._connection.gone is not None)

    def _opened(self, reopened: bool) -> None:
        """The wire is open: nothing on IOPub proves yet that our subscription is live, or
        that no cell is running. Hold the kernel busy until a status for our own
        kernel_info_request settles it. After a drop, cells may also have run unseen."""
        if reopened:
            self.tracker.resume_unseen()
        else:
            self.tracker.await_status()
        self._check_still_busy(force=True)

    def _on_iopub(self, msg: dict[str, Any], own: bool) -> None:
        msg_type = msg.get("header", {}).get("msg_type")
        if (
            not own
            and msg_type == "status"
            # `restarting` is what a server's or gateway's websocket says for a restart it
            # performed; `starting` is the new kernel's own first word.
            and (msg.get("content") or {}).get("execution_state") in ("starting", "restarting")
        ):
            self.restarted()
        if self.tracker.handle(msg, own):
            self._fresh_epoch = False
        image_ids = self.images.handle(msg, own, self.epoch, self.tracker.generation)
        self.history.handle(msg, own, image_ids)

    def sync(self) -> None:
        """Take in every IOPub message already received (see KernelConnection.flush_iopub)."""
        if self._connection is not None:
            self._connection.flush_iopub()

    def restarted(self, *, reconnect: bool = False) -> None:
        """The kernel process was replaced: nothing from before is current any more.

        ``reconnect`` drops our sockets too (a restart may have moved the kernel's ports);
        it is never asked from inside a stream callback. Several signals report the same
        restart (jupyter_server's event, the new kernel's `starting` status, a new probe
        id); an epoch in which nothing happened yet is not replaced by another.
        """
        if reconnect:
            self.close()
        if self._fresh_epoch:
            return
        self._fresh_epoch = True
        self.epoch += 1
        self.probe_id = None
        self.tracker.reset()
        self.epoch_started_at = self.tracker.generation
        self._snapshots.clear()
        self._last_snapshot.clear()
        self._details.clear()

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    @property
    def removed(self) -> bool:
        """The kernel was shut down (see remove)."""
        return self._removed

    def remove(self) -> None:
        """The kernel was shut down: requests still waiting on it end with a 404."""
        self._removed = True
        self.close()

    # -- probe round trips -------------------------------------------------------------

    async def prepare(self) -> None:
        """Install the probe ahead of time so change tracking covers every execution."""
        try:
            if for_language(await self.know_language()) is not None:
                async with self._probe_lock:
                    await self.call_probe({"op": "ping"})
        except Exception as e:  # best effort: the first real request installs it too
            self._log.debug("jupyter_kernel_state: early probe install failed: %s", e)
        finally:
            self.prepared.set()

    # -- snapshots ---------------------------------------------------------------------

    def _since_ec(self, since: int | None) -> int | None:
        if since is None:
            return None
        count = self.tracker.execution_count_at(since)
        return 0 if count is None else count

    async def _settle(self) -> None:
        """Just after (re)connecting, our kernel_info's status is on its way: wait for it
        briefly rather than answer "busy" for a kernel that is most likely idle."""
        deadline = time.monotonic() + min(SETTLE_WAIT_S, self._limits.probe_timeout)
        while self.tracker.awaiting_status and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
            self.sync()

    def _overdue_message(self) -> str | None:
        """Why no probe request may be sent now: one of ours is still in the kernel."""
        connection = self._connection
        if connection is None or not connection.waiting_on:
            return None
        return ("An earlier inspection is still running in the kernel "
                f"(no answer within {self._limits.probe_timeout:g} s); try again later")

    async def snapshot(self, options: SnapshotOptions) -> dict[str, Any]:
        await self.support()
        self.sync()
        self._check_link()
        await self._settle()
        if self.tracker.busy:  # a cell may be changing the namespace right now
            self._check_still_busy()
            return self._stale(options, "Kernel is busy and no snapshot was taken yet")

        key = (self.epoch, self.tracker.generation, options.key)
        cached = self._snapshots.get(key)
        if cached is not None:
            return cached
        return await self._shared(key, lambda: self._take_snapshot(key, options))

    def _check_still_busy(self, *, force: bool = False) -> None:
        """A kernel silent for a while may have finished with its `idle` lost (ZMQ drops
        messages under a flood). Ask once, on a client's request, never by polling: a
        kernel_info_request queues behind a running cell and its statuses settle it."""
        now = time.monotonic()
        if not force and (now - self.tracker.last_message_at < SILENT_BUSY_CHECK_S
                          or now - self._last_busy_check < SILENT_BUSY_CHECK_S):
            return
        self._last_busy_check = now
        try:
            self.connection().send_kernel_info()
        except Exception:  # a closed or broken connection: the next request reconnects
            self._log.debug("jupyter_kernel_state: busy check failed", exc_info=True)

    def _stale(self, options: SnapshotOptions, message: str) -> dict[str, Any]:
        last = self._last_snapshot.get(options.key)
        if last is None:
            raise KernelUnavailable(message, retry_after=1)
        return {**last, "stale": True, "kernel_busy": self.tracker.busy}

    async def _shared(
        self, key: tuple[object, ...], make: Callable[[], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """Run ``make`` once for every concurrent caller asking for ``key``."""
        pending = self._inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            result = await make()
        except BaseException as e:
            future.set_exception(e)
            future.exception()  # mark retrieved: lone callers re-raise below
            raise
        else:
            future.set_result(result)
            return result
        finally:
            self._inflight.pop(key, None)

    async def _take_snapshot(
        self, key: tuple[object, ...], options: SnapshotOptions
    ) -> dict[str, Any]:
        async with self._probe_lock:
            cached = self._snapshots.get(key)
            if cached is not None:
                return cached
            generation = key[1]
            request = {
                "op": "snapshot",
                "include": sorted(options.include),
                "offset": options.offset,
                "limit": options.limit,
                "sort": options.sort,
                "since_ec": self._since_ec(options.since),
                "filter": options.filter,
                "preview_chars": options.preview_chars,
                "time_guard_ms": self._limits.time_guard_ms,
                "budget_ms": self._limits.probe_budget_ms,
            }
            started = time.perf_counter()
            try:
                reply = await self.call_probe(request)
            except KernelUnreachable:
                raise
            except KernelUnavailable as e:
                return self._stale(options, e.message)
            except RequestTimeout:
                return self._stale(
                    options, f"Kernel did not answer within {self._limits.probe_timeout:g} s"
                )
            await self._raise_for_reply(reply, "")
            if self.epoch != key[0]:  # the kernel turned out to be a new process
                generation = self.tracker.generation
            variables = reply.get("variables") or []
            ec = reply.get("execution_count")
            snapshot = {
                "kernel_id": self.kernel_id,
                "language": self.language,
                "epoch": self.epoch,
                "generation": generation,
                "execution_count": ec - 1 if isinstance(ec, int) and ec > 0 else None,
                "stale": False,
                "kernel_busy": False,
                "taken_at": _now_iso(),
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                "total": reply.get("total", len(variables)),
                "offset": options.offset,
                "limit": options.limit,
                "variables": variables,
                "removed": reply.get("removed") or [],
            }
            self.variables_total = snapshot["total"]
            store_key = (self.epoch, generation, options.key)
            self._snapshots.put(store_key, snapshot)
            self._last_snapshot[options.key] = snapshot
            return snapshot

    # -- detail ------------------------------------------------------------------------

    async def detail(self, options: DetailOptions) -> dict[str, Any]:
        (await self.support()).check_name(options.name)
        self.sync()
        self._check_link()
        await self._settle()
        key = (self.epoch, self.tracker.generation, options.key)
        cached = self._details.get(key)
        if cached is not None:
            return cached
        if self.tracker.busy:
            self._check_still_busy()
            raise KernelUnavailable("Kernel is busy; try again when the cell has finished")

        return await self._shared(("detail", *key), lambda: self._take_detail(key, options))

    async def _take_detail(
        self, key: tuple[object, ...], options: DetailOptions
    ) -> dict[str, Any]:
        async with self._probe_lock:
            request = {
                "op": "detail",
                "name": options.name,
                "path": list(options.path),
                "max_chars": options.max_chars,
                "time_guard_ms": self._limits.time_guard_ms,
                "budget_ms": self._limits.probe_budget_ms,
            }
            try:
                reply = await self.call_probe(request)
            except RequestTimeout:
                raise KernelUnavailable(
                    f"Kernel did not answer within {self._limits.probe_timeout:g} s",
                    retry_after=2,
                ) from None
            await self._raise_for_reply(reply, options.name)
            variable: dict[str, Any] = reply["variable"]
            self._details.put((self.epoch, key[1], options.key), variable)
            return variable

    # -- summary for the kernels list --------------------------------------------------

    def summary(self) -> dict[str, Any]:
        self.sync()
        if self.tracker.busy:
            self._check_still_busy()
        return {
            "kernel_id": self.kernel_id,
            "language": self.language,
            "execution_state": "busy" if self.tracker.busy else (
                self.tracker.last_state or getattr(self._km, "execution_state", "unknown")
            ),
            "epoch": self.epoch,
            "generation": self.tracker.generation,
            "execution_count": self.tracker.execution_count,
            "variables_total": self.variables_total,
            "images_total": len(self.images),
            "last_execution_at": (
                datetime.datetime.fromtimestamp(self.tracker.last_execution_at,
                                                datetime.timezone.utc).isoformat()
                if self.tracker.last_execution_at else None
            ),
        }
