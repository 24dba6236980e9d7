"""Snapshots, digests and details for ``KernelState``: caching, single flight, busy and
stale answers, deltas, and the probe requests behind them.

- Answers are cached by (epoch, generation, options): a GET for an unchanged kernel costs
  a dict lookup and sends nothing to the kernel.
- At most one probe request is in flight; identical concurrent requests share it.
- A busy kernel gets no request: the last answer comes back marked stale.
"""

from __future__ import annotations

import asyncio
import collections
import datetime
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ..errors import KernelUnavailable, KernelUnreachable
from .connection import KernelConnection, RequestTimeout
from .presenter import fragments_of
from .probe_calls import ProbeCalls
from .queries import DetailOptions, SnapshotOptions

# A busy kernel silent for this long gets one kernel_info_request (see _check_still_busy).
SILENT_BUSY_CHECK_S = 2.0
# Longest wait for the first status after connecting (see _settle).
SETTLE_WAIT_S = 2.0


def _now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


class _NoAnswer(Exception):
    """The kernel could not answer a snapshot request now (the message says why): the
    last snapshot is served, marked stale."""


class LRU(collections.OrderedDict[Any, dict[str, Any]]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: dict[str, Any]) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class Inspections(ProbeCalls):
    """Mixed into KernelState: the attributes below are KernelState's."""

    epoch: int
    epoch_started_at: int
    variables_total: int | None
    _connection: KernelConnection | None
    _snapshots: LRU
    _last_snapshot: dict[tuple[object, ...], dict[str, Any]]
    _details: LRU
    _inflight: dict[tuple[object, ...], asyncio.Future[dict[str, Any]]]
    _probe_lock: asyncio.Lock
    _last_busy_check: float
    _log: logging.Logger

    def sync(self) -> None:
        raise NotImplementedError

    def _check_link(self) -> None:
        raise NotImplementedError

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
        if options.delta and not self._can_tell_changes_since(options.since):
            options = options.as_page()
        if self.tracker.busy:  # a cell may be changing the namespace right now
            self._check_still_busy()
            return self._stale(options.as_page(), "Kernel is busy and no snapshot was taken yet")

        key = (self.epoch, self.tracker.generation, options.key)
        cached = self._snapshots.get(key)
        if cached is not None:
            return cached
        return await self._shared(key, lambda: self._take_snapshot(key, options))

    async def digest(self, *, since: int | None, limit: int, preview_chars: int,
                     pinned: tuple[str, ...] = ()) -> dict[str, Any]:
        """The probe's ``digest`` (see probe/digest.py): exact counts, up to ``limit``
        changed, ``pinned`` and notable variables (decoded) and runs, cached like
        snapshots."""
        await self.support()
        self.sync()
        self._check_link()
        await self._settle()
        options = ("digest", since, limit, preview_chars, pinned)
        if self.tracker.busy:
            self._check_still_busy()
            last = self._last_snapshot.get(options)
            if last is None:
                raise KernelUnavailable("Kernel is busy and no snapshot was taken yet",
                                        retry_after=1)
            return {**last, "stale": True, "kernel_busy": True}
        key = (self.epoch, self.tracker.generation, options)
        cached = self._snapshots.get(key)
        if cached is not None:
            return cached

        async def take() -> dict[str, Any]:
            async with self._probe_lock:
                again = self._snapshots.get(key)
                if again is not None:
                    return again
                reply = await self._call_or_unavailable({
                    "op": "digest", "since_ec": self._since_ec(since), "limit": limit,
                    "preview_chars": preview_chars, "pinned": list(pinned),
                    "time_guard_ms": self._limits.time_guard_ms,
                    "budget_ms": self._limits.probe_budget_ms,
                })
                await self._raise_for_reply(reply, "")
                ec = reply.get("execution_count")
                digest = {**reply, "epoch": self.epoch, "stale": False, "kernel_busy": False,
                          "execution_count": ec - 1 if isinstance(ec, int) and ec > 0 else None}
                self.variables_total = digest.get("total")
                self._snapshots.put((self.epoch, key[1], options), digest)
                self._last_snapshot[options] = digest
                return digest

        return await self._shared(key, take)

    def _can_tell_changes_since(self, since: int | None) -> bool:
        """A delta from generation ``since`` is possible: in this epoch (no restart since),
        not in the future, and its execution count still known."""
        return (since is not None and since >= self.epoch_started_at
                and self.tracker.knows(since))

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
        """The last snapshot taken with these options, marked stale. A delta request gets
        the last page with its options (``since`` aside: a sidebar's pages have none)."""
        last = self._last_snapshot.get(options.key)
        if last is None and options.since is not None:
            last = self._last_snapshot.get(replace(options, since=None).key)
        if last is None:
            raise KernelUnavailable(message, retry_after=1)
        return {**last, "stale": True, "kernel_busy": self.tracker.busy, "delta": False}

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
            started = time.perf_counter()
            try:
                reply = await self._probe_snapshot(options)
                if self.epoch != key[0]:  # the kernel turned out to be a new process
                    generation = self.tracker.generation
                    if reply.get("delta"):  # its changes are relative to the old process
                        options = options.as_page()
                        reply = await self._probe_snapshot(options)
            except _NoAnswer as e:
                return self._stale(options.as_page(), str(e))
            fragments = reply.get("fragments")
            if fragments is None:  # a probe that sends decoded variables
                fragments = fragments_of(reply.get("variables") or [])
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
                "total": reply.get("total", len(fragments)),
                "offset": options.offset,
                "limit": options.limit,
                "fragments": fragments,  # each variable's JSON, passed through
                "removed": reply.get("removed") or [],
                "delta": reply.get("delta") is True,
                "schema": reply.get("schema") or {},  # table columns for detail=schema
            }
            if options.filter is None and not options.include:  # the namespace's own count
                self.variables_total = snapshot["total"]
            store_key = (self.epoch, generation, options.key)
            self._snapshots.put(store_key, snapshot)
            self._last_snapshot[options.key] = snapshot
            return snapshot

    async def _probe_snapshot(self, options: SnapshotOptions) -> dict[str, Any]:
        """The probe's snapshot reply; ``_NoAnswer`` (why) when the kernel could not
        answer in time."""
        request = {
            "op": "snapshot",
            "include": sorted(options.include),
            "offset": options.offset,
            "limit": options.limit,
            "sort": options.sort,
            "since_ec": self._since_ec(options.since),
            "filter": options.filter,
            "delta": options.delta,
            "schema": options.detail == "schema",
            "framing": "lines",  # variables as JSON lines after the reply (not decoded here)
            "preview_chars": options.preview_chars,
            "time_guard_ms": self._limits.time_guard_ms,
            "budget_ms": self._limits.probe_budget_ms,
        }
        try:
            reply = await self.call_probe(request)
        except KernelUnreachable:
            raise
        except KernelUnavailable as e:
            raise _NoAnswer(e.message) from None
        except RequestTimeout:
            raise _NoAnswer(
                f"Kernel did not answer within {self._limits.probe_timeout:g} s") from None
        await self._raise_for_reply(reply, "")
        return reply

    # -- detail ------------------------------------------------------------------------

    async def detail(self, options: DetailOptions) -> dict[str, Any]:
        (await self.support()).check_name(options.name)
        key, cached = await self._cached_detail(options.key)
        if cached is not None:
            return cached
        return await self._shared(("detail", *key), lambda: self._take_detail(key, options))

    async def _cached_detail(
        self, query: tuple[object, ...]
    ) -> tuple[tuple[object, ...], dict[str, Any] | None]:
        """The detail cache's key for ``query`` now, and its answer if there is one; a
        busy kernel without one gets 503 (nothing is queued behind a running cell)."""
        self.sync()
        self._check_link()
        await self._settle()
        key = (self.epoch, self.tracker.generation, query)
        cached = self._details.get(key)
        if cached is None and self.tracker.busy:
            self._check_still_busy()
            raise KernelUnavailable("Kernel is busy; try again when the cell has finished")
        return key, cached

    async def _call_or_unavailable(self, request: dict[str, Any]) -> dict[str, Any]:
        """One probe call; no answer within the deadline is a 503."""
        try:
            return await self.call_probe(request)
        except RequestTimeout:
            raise KernelUnavailable(
                f"Kernel did not answer within {self._limits.probe_timeout:g} s",
                retry_after=2) from None

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
            reply = await self._call_or_unavailable(request)
            await self._raise_for_reply(reply, options.name)
            variable: dict[str, Any] = reply["variable"]
            self._details.put((self.epoch, key[1], options.key), variable)
            return variable

    # -- summary for the kernels list --------------------------------------------------

