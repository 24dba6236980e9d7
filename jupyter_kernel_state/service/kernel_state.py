"""Everything the server knows about one kernel, and the only path to its probe.

- ``epoch`` counts restarts; ``generation`` (from the tracker) counts user executions.
- Snapshots are cached by (epoch, generation, options); a GET for an unchanged kernel
  costs a dict lookup and sends nothing to the kernel.
- At most one probe request is in flight; identical concurrent requests share it.
- A busy kernel gets no request: the last snapshot comes back marked stale.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
from typing import Any

from ..errors import (
    KernelNotFound,
    KernelUnreachable,
)
from .channels import is_remote
from .connection import KernelConnection
from .history import HistoryLog
from .images import ImageStore
from .inspections import LRU
from .languages import for_language
from .limits import Limits
from .tracker import ExecutionTracker
from .variable_calls import VariableCalls


class KernelState(VariableCalls):
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
        self._snapshots = LRU(limits.snapshot_cache_size)
        self._last_snapshot: dict[tuple[object, ...], dict[str, Any]] = {}
        self._details = LRU(limits.detail_cache_size)
        self._rows = LRU(limits.rows_cache_size)  # windows by (epoch, generation, query)
        self._last_rows = LRU(limits.rows_cache_size)  # the last window of each query
        self._inflight: dict[tuple[object, ...], asyncio.Future[dict[str, Any]]] = {}
        self._probe_lock = asyncio.Lock()
        self._after_gap = False  # the wire opening replaces a closed one
        self._last_busy_check = 0.0
        self.probe_requests = 0  # counted for tests and benchmarks
        self.prepared = asyncio.Event()  # set once the early probe install has finished
        self._removed = False  # the kernel was shut down (see remove)
        # Our wire to a gateway kernel was let go while no one else was connected
        # (release_if_alone); the next request, or another client's arrival, reopens it.
        self.released = False

    # -- kernel facts ------------------------------------------------------------------

    def _check_link(self) -> None:
        """Nothing cached is current while the wire is down: cells may be running unseen."""
        connection = self._connection
        if connection is None and self.released:
            self.connection()  # a request reopens a released wire (see connection)
            return
        if connection is None or connection.is_open:
            return
        if connection.gone is not None:
            raise KernelNotFound(self.kernel_id)
        if connection.link_error is not None:
            raise KernelUnreachable(f"{connection.link_error}; try again", retry_after=2)

    def connection(self) -> KernelConnection:
        """Our connection to the kernel, opening in the background if it is not open."""
        if self._connection is None or self._connection.closed:
            if self._connection is not None:  # a wire that replaces another
                self._after_gap = True
            if self.released:  # cells may have run while no wire was open: caches are old
                self.released = False
                self._after_gap = False
                self.tracker.resume_unseen()
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
        kernel_info_request settles it. After a drop, or when this wire replaced another
        (a restart), cells may also have run unseen."""
        if reopened or self._after_gap:
            self._after_gap = False
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
        self._rows.clear()
        self._last_rows.clear()

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
            self._after_gap = True  # cells may run before the next wire opens

    async def release_if_alone(self, timeout: float) -> bool:
        """A gateway kernel whose only client is our wire: let the wire go, so that the
        gateway's culler (which skips connected kernels) culls it as it would without us.
        Asks the gateway for the kernel's connection count; nothing is sent to the kernel.
        Images and history stay; the next request, or another client, reopens the wire."""
        connection = self._connection
        if (connection is None or not connection.is_open or not is_remote(self._km)
                or self._probe_lock.locked() or self._inflight):
            return False
        model = await asyncio.wait_for(self._km.refresh_model(), timeout)
        if not model or int(model.get("connections") or 0) > 1:
            return False
        if self._connection is not connection or self._probe_lock.locked() or self._inflight:
            return False  # a request started meanwhile
        self.close()
        self.released = True
        self._log.info("jupyter_kernel_state: no client but ours on gateway kernel %s: "
                       "our websocket is closed until one comes back", self.kernel_id)
        return True

    async def reopen_if_joined(self, timeout: float) -> bool:
        """A released wire comes back when another client connects to the kernel, so that
        its executions (plots, history) are followed again."""
        if not self.released or self._removed:
            return False
        model = await asyncio.wait_for(self._km.refresh_model(), timeout)
        if not model:  # the gateway no longer has it (culled): 404 from now on
            self._log.info("jupyter_kernel_state: gateway kernel %s is gone (culled or shut "
                           "down)", self.kernel_id)
            self.remove()
            return False
        if int(model.get("connections") or 0) < 1:
            return False
        if self.released:
            self.connection()
        return True

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
                # Until a status arrives the IOPub subscription may not be live, and a
                # probe whose reply comes on IOPub (R) would wait for messages it missed.
                self.connection()
                await self._settle()
                async with self._probe_lock:
                    await self.call_probe({"op": "ping"})
        except Exception as e:  # best effort: the first real request installs it too
            self._log.debug("jupyter_kernel_state: early probe install failed: %s", e)
        finally:
            self.prepared.set()

    # -- snapshots ---------------------------------------------------------------------

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
