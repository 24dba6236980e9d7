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
from dataclasses import replace
from typing import Any

from jupyter_core.utils import ensure_async

from ..errors import (
    InspectionInterrupted,
    InvalidRequest,
    KernelNotFound,
    KernelStateError,
    KernelUnavailable,
    KernelUnreachable,
    NotFound,
    NotSupported,
    ProbeFailed,
)
from . import probe_loader
from .channels import is_remote
from .connection import KernelConnection, KernelDied, KernelGone, LinkDown, RequestTimeout
from .history import HistoryLog
from .images import ImageStore
from .limits import Limits
from .presenter import fragments_of
from .queries import DetailOptions, SnapshotOptions
from .tracker import ExecutionTracker


def _now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


# A busy kernel silent for this long gets one kernel_info_request (see _check_still_busy).
SILENT_BUSY_CHECK_S = 2.0
# Longest wait for the first status after connecting (see _settle).
SETTLE_WAIT_S = 2.0
# How long an interrupted probe request waits to learn whether a shutdown follows.
INTERRUPT_GRACE_S = 1.0


def _raise_refusal(reply: dict[str, Any], name: str) -> None:
    """Turn a probe's refusal into the matching domain error."""
    if reply.get("ok", True):
        return
    message = str(reply.get("error") or "")
    if reply.get("not_found"):
        raise NotFound(message or f"Variable not found: {name}")
    if reply.get("bad_request"):
        raise InvalidRequest(message or "Invalid request")
    if reply.get("interrupted"):
        raise InspectionInterrupted()
    raise ProbeFailed(f"Probe error: {message or 'unknown'}")


class _LRU(collections.OrderedDict[Any, dict[str, Any]]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: dict[str, Any]) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class KernelState:
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
        self._why_stale = ""  # why the last snapshot request got no answer
        self._after_gap = False  # the wire opening replaces a closed one
        self._last_busy_check = 0.0
        self.probe_requests = 0  # counted for tests and benchmarks
        self.prepared = asyncio.Event()  # set once the early probe install has finished
        self.removed = False  # the kernel was shut down (see remove)

    # -- kernel facts ------------------------------------------------------------------

    def _language(self) -> str:
        """The kernelspec's language for a local kernel; "" (ask the kernel) otherwise."""
        if is_remote(self._km):  # its spec lives on the gateway, not here
            return ""
        try:
            spec = self._km.kernel_spec
            return str(spec.language or "").lower() if spec is not None else ""
        except Exception:
            return ""

    def _check_link(self) -> None:
        """Nothing cached is current while the wire is down: cells may be running unseen."""
        connection = self._connection
        if connection is None or connection.is_open:
            return
        if connection.gone is not None:
            raise KernelNotFound(self.kernel_id)
        if connection.link_error is not None:
            raise KernelUnreachable(f"{connection.link_error}; try again", retry_after=2)

    def _on_reply(self, msg: dict[str, Any]) -> None:
        """Our own kernel_info replies tell the kernel's language when its spec did not."""
        if not self.language and msg.get("header", {}).get("msg_type") == "kernel_info_reply":
            name = ((msg.get("content") or {}).get("language_info") or {}).get("name")
            if isinstance(name, str) and name:
                self.language = name.lower()

    @property
    def is_python(self) -> bool:
        return self.language == "python"

    async def _remote_spec_language(self) -> str:
        """A gateway kernel's language, from the gateway's kernelspec of its name."""
        name = (getattr(self._km, "kernel", None) or {}).get("name")
        if self._kernel_specs is None or not name:
            return ""
        try:
            spec = await asyncio.wait_for(
                ensure_async(self._kernel_specs.get_kernel_spec(name)), self._limits.probe_timeout)
        except Exception:  # the kernel itself will say (kernel_info)
            return ""
        spec = spec.get("spec", spec) if isinstance(spec, dict) else spec
        language = spec.get("language") if isinstance(spec, dict) else getattr(spec, "language", "")
        return str(language or "").lower()

    async def know_language(self) -> str:
        """The kernel's language: its kernelspec's, else what the kernel says it runs."""
        if not self.language and is_remote(self._km):
            self.language = await self._remote_spec_language()
        if not self.language:
            try:
                content = await self.connection().request(
                    "kernel_info_request", {}, timeout=self._limits.probe_timeout)
            except RequestTimeout:
                raise KernelUnavailable("Kernel did not say its language in time",
                                        retry_after=2) from None
            except (KernelDied, LinkDown, KernelGone) as e:
                raise self._unavailable(e) from None
            self._on_reply({"header": {"msg_type": "kernel_info_reply"}, "content": content})
        return self.language

    async def _require_python(self) -> None:
        await self.know_language()
        if not self.is_python:
            raise NotSupported(
                f"Kernel language {self.language or 'unknown'!r} is not supported: "
                "only Python kernels can be inspected"
            )

    def connection(self) -> KernelConnection:
        """Our connection to the kernel, opening in the background if it is not open."""
        if self._connection is None or self._connection.closed:
            if self._connection is not None:  # a wire that replaces another
                self._after_gap = True
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

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
            self._after_gap = True  # cells may run before the next wire opens

    def remove(self) -> None:
        """The kernel was shut down: requests still waiting on it end with a 404."""
        self.removed = True
        self.close()

    # -- probe round trips -------------------------------------------------------------

    async def _execute(self, code: str, expressions: dict[str, str] | None) -> dict[str, Any]:
        connection = self.connection()
        overdue = self._overdue_message()
        if overdue is not None:  # never queue a second request behind our own
            raise KernelUnavailable(overdue, retry_after=2)
        try:
            content = await connection.execute_silently(
                code, expressions, timeout=self._limits.probe_timeout
            )
        except KernelDied as e:
            # A process found dead may be a shutdown still finishing (its event not yet
            # seen): then the kernel is gone, not unavailable.
            if await self._ended_by_shutdown(grace_s=0.0):
                raise KernelNotFound(self.kernel_id) from None
            raise self._unavailable(e) from None
        except (LinkDown, KernelGone) as e:
            raise self._unavailable(e) from None
        self.probe_requests += 1
        status = content.get("status")
        if status == "aborted":
            raise KernelUnavailable("Kernel aborted the request; try again", retry_after=1)
        if status != "ok":
            raise ProbeFailed(f"Probe request failed: {content.get('ename', 'error')}")
        return content

    async def _raise_for_reply(self, reply: dict[str, Any], name: str) -> None:
        """A probe's refusal as a domain error. An interruption may be a shutdown on its way
        (jupyter_server and gateways interrupt a kernel before shutting it down): give it a
        moment, and answer that the kernel is gone (404) if it was."""
        try:
            _raise_refusal(reply, name)
        except InspectionInterrupted:
            if await self._ended_by_shutdown(grace_s=INTERRUPT_GRACE_S):
                raise KernelNotFound(self.kernel_id) from None
            raise

    async def _ended_by_shutdown(self, *, grace_s: float) -> bool:
        """Whether the kernel turns out to be gone: waits ``grace_s``, and for as long as a
        shutdown is in progress (within the probe deadline), for it to be removed."""
        grace = time.monotonic() + grace_s
        deadline = time.monotonic() + self._limits.probe_timeout
        while not self.gone and time.monotonic() < deadline and (
                time.monotonic() < grace or getattr(self._km, "shutting_down", False)):
            await asyncio.sleep(0.02)
        return self.gone

    def _unavailable(self, error: Exception) -> KernelStateError:
        """The domain error for a kernel we cannot reach."""
        if isinstance(error, KernelGone) or self.removed:
            return KernelNotFound(self.kernel_id)
        if isinstance(error, LinkDown):
            return KernelUnreachable(f"{error}; try again", retry_after=2)
        return KernelUnavailable("Kernel is not running (it died or restarted)", retry_after=2)

    async def install_probe(self) -> None:
        content = await self._execute(probe_loader.install_code(), None)
        if content.get("status") != "ok":  # pragma: no cover - _execute raised already
            raise ProbeFailed("Probe could not be installed")

    async def call_probe(self, request: dict[str, Any]) -> dict[str, Any]:
        """One probe call; installs the probe first when the kernel has none."""
        await self._require_python()
        expression = probe_loader.call_expression(request)
        for _attempt in range(2):
            content = await self._execute("", {"r": expression})
            entry = (content.get("user_expressions") or {}).get("r")
            try:
                reply = probe_loader.parse_reply(entry or {})
            except probe_loader.ProbeMissing:
                await self.install_probe()
                continue
            except probe_loader.ProbeFailed as e:
                raise ProbeFailed(f"Probe error: {e}") from None
            self._check_probe_id(reply.get("probe_id"))
            return reply
        raise ProbeFailed("Probe could not be installed in the kernel")

    def _check_probe_id(self, probe_id: Any) -> None:
        if self.probe_id is not None and probe_id != self.probe_id:
            # A new probe instance means a new kernel process that we did not see restart.
            self.restarted()
        self.probe_id = probe_id
        self._fresh_epoch = False

    async def prepare(self) -> None:
        """Install the probe ahead of time so change tracking covers every execution."""
        try:
            if await self.know_language() == "python":
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
        await self._require_python()
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
        await self._require_python()
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
                try:
                    reply = await self.call_probe({
                        "op": "digest", "since_ec": self._since_ec(since), "limit": limit,
                        "preview_chars": preview_chars, "pinned": list(pinned),
                        "time_guard_ms": self._limits.time_guard_ms,
                        "budget_ms": self._limits.probe_budget_ms,
                    })
                except RequestTimeout:
                    raise KernelUnavailable(
                        f"Kernel did not answer within {self._limits.probe_timeout:g} s",
                        retry_after=2) from None
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
            reply = await self._probe_snapshot(options)
            if reply is None:
                return self._stale(options.as_page(), self._why_stale)
            if self.epoch != key[0]:  # the kernel turned out to be a new process
                generation = self.tracker.generation
                if reply.get("delta"):  # its changes are relative to the old process
                    options = options.as_page()
                    reply = await self._probe_snapshot(options)
                    if reply is None:
                        return self._stale(options, self._why_stale)
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
            }
            self.variables_total = snapshot["total"]
            store_key = (self.epoch, generation, options.key)
            self._snapshots.put(store_key, snapshot)
            self._last_snapshot[options.key] = snapshot
            return snapshot

    async def _probe_snapshot(self, options: SnapshotOptions) -> dict[str, Any] | None:
        """The probe's snapshot reply, or None when the kernel could not answer in time
        (``_why_stale`` says why)."""
        request = {
            "op": "snapshot",
            "include": sorted(options.include),
            "offset": options.offset,
            "limit": options.limit,
            "sort": options.sort,
            "since_ec": self._since_ec(options.since),
            "filter": options.filter,
            "delta": options.delta,
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
            self._why_stale = e.message
            return None
        except RequestTimeout:
            self._why_stale = f"Kernel did not answer within {self._limits.probe_timeout:g} s"
            return None
        await self._raise_for_reply(reply, "")
        return reply

    # -- detail ------------------------------------------------------------------------

    async def detail(self, options: DetailOptions) -> dict[str, Any]:
        await self._require_python()
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
