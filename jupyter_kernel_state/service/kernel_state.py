"""Everything the server knows about one kernel, and the operations on its variables.

- ``epoch`` counts restarts; ``generation`` (from the tracker) counts user executions.
- ``probe`` (``ProbeClient``) is the only path to the kernel's probe: its language, its
  installation, its calls under one lock, every failure as its domain error.
- ``Answers`` (one per kind of answer) cache by (epoch, generation, query), keep the last
  answer for a busy kernel, and share one probe request between identical queries; each
  runs ``now`` (the preamble: take in IOPub, check the wire, let its first status
  arrive) once per request.
- Each operation below builds one probe request (``probe/protocol.py``) and shapes its
  reply.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from typing import Any, cast

from ..errors import (
    Conflict,
    InvalidRequest,
    KernelNotFound,
    KernelUnavailable,
    KernelUnreachable,
    NotSupported,
)
from ..probe.protocol import DEFAULT_COMPARE_CELLS
from .answers import Answer, Answers, Moment, busy_error, stale_or
from .channels import is_remote
from .connection import KernelConnection
from .history import HistoryLog
from .images import ImageStore
from .languages import for_language
from .limits import Limits
from .presenter import fragments_of
from .probe_client import ProbeClient
from .queries import DetailOptions, SnapshotOptions
from .replies import (
    CodeReply,
    CountReply,
    DetailReply,
    DigestReply,
    ProfileReply,
    RowsReply,
    SnapshotReply,
    TimelineReply,
)
from .tracker import ExecutionTracker
from .variable_queries import (
    CodeOptions,
    CompareOptions,
    CountOptions,
    FindingsOptions,
    KeptOptions,
    ProfileOptions,
    RowsOptions,
    TableQuery,
    TimelineOptions,
)

# A busy kernel silent for this long gets one kernel_info_request (see _check_still_busy).
SILENT_BUSY_CHECK_S = 2.0
# Longest wait for the first status after connecting (see _settle).
SETTLE_WAIT_S = 2.0
#: How long a delete waits for a busy kernel to finish its cell before answering 409.
DELETE_GRACE_S = 1.0
BUSY = "Kernel is busy; try again when the cell has finished"
BUSY_NO_SNAPSHOT = "Kernel is busy and no snapshot was taken yet"


def _with_engine(answer: Answer) -> Answer:
    """A table answer with ``engine`` always there: what the probe said of an engine's
    table, null for a table in memory (whose probe says nothing of it)."""
    return {**answer, "engine": answer.get("engine")}


#: The guards a request's own ``budget_ms`` sets (each cell's repr keeps its own guard).
_RAISED_GUARDS = frozenset(("time_guard_ms", "sort_ms", "count_ms", "filter_ms", "column_ms",
                            "budget_ms"))


def _now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


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
        self._km = kernel_manager
        self._limits = limits
        self._log = log
        self.epoch = 0
        self.epoch_started_at = 0  # the generation at which the current epoch began
        self._fresh_epoch = True  # no execution and no probe reply in this epoch yet
        self.tracker = ExecutionTracker(getattr(kernel_manager, "execution_state", None))
        self.probe_id: str | None = None
        self.probe = ProbeClient(self, kernel_manager, kernel_specs, limits)
        # Images and history outlive restarts: each image says the epoch it came from.
        self.images = ImageStore(limits.images)
        self.history = HistoryLog(limits.history)
        self.variables_total: int | None = None
        self._connection: KernelConnection | None = None
        lock = self.probe.lock
        self._snapshots = Answers(limits.snapshot_cache_size, self.now, lock)
        self._digests = Answers(limits.snapshot_cache_size, self.now, lock)
        self._details = Answers(limits.detail_cache_size, self.now, lock)  # and timelines
        self._rows = Answers(limits.rows_cache_size, self.now, lock)
        self._profiles = Answers(limits.profile_cache_size, self.now, lock)
        # Versions kept or dropped through us (their listings and comparisons move on).
        self._kept_changes = 0
        self._after_gap = False  # the wire opening replaces a closed one
        self._last_busy_check = 0.0
        self.prepared = asyncio.Event()  # set once the early probe install has finished
        self._removed = False  # the kernel was shut down (see remove)
        # Our wire to a gateway kernel was let go while no one else was connected
        # (release_if_alone); the next request, or another client's arrival, reopens it.
        self.released = False

    # -- kernel facts ------------------------------------------------------------------

    @property
    def language(self) -> str:
        return self.probe.language

    @property
    def probe_requests(self) -> int:
        """Probe requests sent to this kernel (counted for tests and benchmarks)."""
        return self.probe.requests

    @property
    def execution_count(self) -> int | None:
        return self.tracker.execution_count

    async def know_language(self) -> str:
        return await self.probe.know_language()

    def new_probe(self, probe_id: object) -> None:
        """A reply from probe ``probe_id``: a new probe instance means a new kernel process
        that we did not see restart."""
        if self.probe_id is not None and probe_id != self.probe_id:
            self.restarted()
        self.probe_id = probe_id if isinstance(probe_id, str) else None
        self._fresh_epoch = False

    # -- the wire ----------------------------------------------------------------------

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
                on_reply=self.probe.on_reply,
                max_iopub_bytes=self._limits.iopub_message_bytes(),
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

    async def _settle(self) -> None:
        """Just after (re)connecting, our kernel_info's status is on its way: wait for it
        briefly rather than answer "busy" for a kernel that is most likely idle."""
        deadline = time.monotonic() + min(SETTLE_WAIT_S, self._limits.probe_timeout)
        while self.tracker.awaiting_status and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
            self.sync()

    async def now(self) -> Moment:
        """The preamble of every request about variables: IOPub taken in, the wire checked,
        a new wire's first status awaited; a busy kernel silent for a while is asked once
        whether it still is."""
        self.sync()
        self._check_link()
        await self._settle()
        if self.tracker.busy:
            self._check_still_busy()
        return Moment(self.epoch, self.tracker.generation, self.tracker.busy)

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
        for answers in self._all_answers:
            answers.clear()

    @property
    def _all_answers(self) -> tuple[Answers, ...]:
        return (self._snapshots, self._digests, self._details, self._rows, self._profiles)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
            self._after_gap = True  # cells may run before the next wire opens

    def _in_use(self) -> bool:
        return self.probe.lock.locked() or any(a.pending for a in self._all_answers)

    async def release_if_alone(self, timeout: float) -> bool:
        """A gateway kernel whose only client is our wire: let the wire go, so that the
        gateway's culler (which skips connected kernels) culls it as it would without us.
        Asks the gateway for the kernel's connection count; nothing is sent to the kernel.
        Images and history stay; the next request, or another client, reopens the wire."""
        connection = self._connection
        if (connection is None or not connection.is_open or not is_remote(self._km)
                or self._in_use()):
            return False
        model = await asyncio.wait_for(self._km.refresh_model(), timeout)
        if not model or int(model.get("connections") or 0) > 1:
            return False
        if self._connection is not connection or self._in_use():
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

    async def prepare(self) -> None:
        """Install the probe ahead of time so change tracking covers every execution."""
        try:
            if for_language(await self.know_language()) is not None:
                # Until a status arrives the IOPub subscription may not be live, and a
                # probe whose reply comes on IOPub (R) would wait for messages it missed.
                self.connection()
                await self._settle()
                async with self.probe.lock:
                    await self.probe.call("ping")
        except Exception as e:  # best effort: the first real request installs it too
            self._log.debug("jupyter_kernel_state: early probe install failed: %s", e)
        finally:
            self.prepared.set()

    # -- operations --------------------------------------------------------------------

    def _since_ec(self, since: int | None) -> int | None:
        """The execution count at generation ``since`` (what the probe dates changes by)."""
        if since is None:
            return None
        count = self.tracker.execution_count_at(since)
        return 0 if count is None else count

    def _can_tell_changes_since(self, since: int | None) -> bool:
        """A delta from generation ``since`` is possible: in this epoch (no restart since),
        not in the future, and its execution count still known."""
        return (since is not None and since >= self.epoch_started_at
                and self.tracker.knows(since))

    def _moved_on(self) -> tuple[int, int]:
        return self.epoch, self.tracker.generation

    def _reply_count(self, reply: SnapshotReply | DigestReply) -> int | None:
        """The last user execution count (the probe's is the next one)."""
        ec = reply.get("execution_count")
        return ec - 1 if isinstance(ec, int) and ec > 0 else None

    async def snapshot(self, options: SnapshotOptions) -> Answer:
        """A page (or the changes since a generation) of the namespace's variables, each as
        the probe encoded it (``fragments``: passed through, never decoded here)."""
        await self.probe.support()
        if options.changed_in is not None and (
                await self.probe.capabilities()).applies("snapshot", "changed_in") is False:
            raise NotSupported(f"changed_in is not available for {self.language} kernels yet "
                               "(the kernel's probe does not apply it)")
        if options.used_by_cell is not None and (
                await self.probe.capabilities()).applies("snapshot", "used_by_cell") is not True:
            raise NotSupported(f"used_by_cell is not available for {self.language} kernels "
                               "(the kernel's probe keeps no lineage)")
        moment = await self.now()
        if options.delta and not self._can_tell_changes_since(options.since):
            options = options.as_page()

        def stale(_last: Answer | None) -> Answer:
            return self._stale(options.as_page(), BUSY_NO_SNAPSHOT)

        async def take(moment: Moment) -> Answer:
            return await self._take_snapshot(moment, options)

        return await self._snapshots.give(options.key, take, when_busy=stale,
                                          current=self._moved_on, moment=moment)

    async def _take_snapshot(self, moment: Moment, options: SnapshotOptions) -> Answer:
        started = time.perf_counter()
        try:
            reply = await self._probe_snapshot(options)
            if self.epoch != moment.epoch and reply.get("delta"):
                # The kernel turned out to be a new process: its changes are relative to
                # the old one.
                options = options.as_page()
                reply = await self._probe_snapshot(options)
        except KernelUnreachable:
            raise
        except KernelUnavailable as e:  # no answer now: the last one, marked stale
            return self._stale(options.as_page(), e.message)
        fragments = reply.get("fragments")
        if fragments is None:  # a probe that sends decoded variables (R)
            fragments = fragments_of(reply.get("variables") or [])
        total = reply.get("total", len(fragments))
        # ``total``: the names listed (with ``include``); ``matched``: those the filter and
        # ``changed_in`` keep (a probe that sends no ``matched`` counted only those).
        matched = reply.get("matched", total)
        if options.changed_in is not None and self._applied_unknown("changed_in") and (
                reply.get("changed_in") != options.changed_in):
            # A probe that declares nothing (an older one) and does not say it applied it
            # listed every name: not an answer.
            raise NotSupported(f"changed_in is not available for {self.language} kernels yet")
        snapshot: Answer = {
            "kernel_id": self.kernel_id,
            "language": self.language,
            "epoch": self.epoch,
            "generation": self._moved_on()[1] if self.epoch != moment.epoch
            else moment.generation,
            "execution_count": self._reply_count(reply),
            "stale": False,
            "kernel_busy": False,
            "taken_at": _now_iso(),
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            "total": total,
            "matched": matched,
            "offset": options.offset,
            "limit": options.limit,
            "fragments": fragments,  # each variable's JSON, passed through
            "removed": reply.get("removed") or [],
            "delta": reply.get("delta") is True,
            "schema": reply.get("schema") or {},  # table columns for detail=schema
        }
        if not options.include and ("matched" in reply or (
                options.filter is None and options.changed_in is None
                and options.used_by_cell is None)):
            self.variables_total = total  # the namespace's own count, whatever the filter
        return snapshot

    def _applied_unknown(self, field: str) -> bool:
        """Whether the probe that answered has not declared if it applies the snapshot's
        ``field`` (an older probe, or a new process not asked yet): its reply must say."""
        declared = self.probe.declared()
        return declared is None or declared.applies("snapshot", field) is None

    async def _probe_snapshot(self, options: SnapshotOptions) -> SnapshotReply:
        return cast(SnapshotReply, await self.probe.call(
            "snapshot",
            include=sorted(options.include), offset=options.offset, limit=options.limit,
            sort=options.sort, since_ec=self._since_ec(options.since), filter=options.filter,
            changed_in=options.changed_in, used_by_cell=options.used_by_cell,
            delta=options.delta, schema=options.detail == "schema",
            framing="lines",  # variables as JSON lines after the reply (not decoded here)
            preview_chars=options.preview_chars, time_guard_ms=self._limits.time_guard_ms,
            budget_ms=self._limits.probe_budget_ms,
        ))

    def _stale(self, options: SnapshotOptions, message: str) -> Answer:
        """The last snapshot taken with these options, marked stale. A delta request gets
        the last page with its options (``since`` aside: a sidebar's pages have none)."""
        last = self._snapshots.last(options.key)
        if last is None and options.since is not None:
            last = self._snapshots.last(SnapshotOptions(**{
                **options.__dict__, "since": None}).key)
        if last is None:
            raise KernelUnavailable(message, retry_after=1)
        return {**last, "stale": True, "kernel_busy": self.tracker.busy, "delta": False}

    async def digest(self, *, since: int | None, limit: int, preview_chars: int,
                     pinned: tuple[str, ...] = ()) -> Answer:
        """The probe's ``digest`` (what a prompt needs): exact counts, up to ``limit``
        changed, ``pinned`` and notable variables (decoded) and runs."""
        await self.probe.require("digest", "Digests")

        async def take(moment: Moment) -> Answer:
            reply = cast(DigestReply, await self.probe.call(
                "digest", since_ec=self._since_ec(since), limit=limit,
                preview_chars=preview_chars, pinned=list(pinned),
                time_guard_ms=self._limits.time_guard_ms,
                budget_ms=self._limits.probe_budget_ms))
            digest: Answer = {**reply, "epoch": self.epoch, "stale": False, "kernel_busy": False,
                      "execution_count": self._reply_count(reply)}
            self.variables_total = digest.get("total")
            return digest

        return await self._digests.give(
            (since, limit, preview_chars, pinned), take,
            when_busy=stale_or(BUSY_NO_SNAPSHOT))

    async def detail(self, options: DetailOptions) -> Answer:
        """One variable, or a child reached by access keys."""
        (await self.probe.support()).check_name(options.name)

        async def take(moment: Moment) -> Answer:
            reply = cast(DetailReply, await self.probe.call(
                "detail", options.name, name=options.name, path=list(options.path),
                max_chars=options.max_chars, reveal=options.reveal,
                time_guard_ms=self._limits.time_guard_ms,
                budget_ms=self._limits.probe_budget_ms))
            return reply["variable"]

        return await self._details.give(("detail", *options.key), take,
                                        when_busy=busy_error(BUSY), cached_when_busy=True)

    async def timeline(self, options: TimelineOptions) -> Answer:
        """When ``options.name`` was new, modified or removed, and how."""
        await self.probe.require("timeline", "Timelines", options.name)

        async def take(moment: Moment) -> Answer:
            reply = cast(TimelineReply, await self.probe.call(
                "timeline", options.name, name=options.name, limit=options.limit,
                lineage_limit=options.lineage_limit))
            return reply["timeline"]

        return await self._details.give(options.key, take, when_busy=busy_error(BUSY),
                                        cached_when_busy=True)

    async def rows(self, options: RowsOptions) -> Answer:
        """A window of a table or array, maybe sorted and filtered in the kernel; a busy
        kernel gets the last window of the same query, marked stale."""
        await self.probe.require("rows", "Rows", options.name)
        limits = self._limits

        async def take(moment: Moment) -> Answer:
            reply = cast(RowsReply, await self._call_on_table(
                "rows", options, offset=options.offset, limit=options.limit,
                max_rows=limits.rows_max_rows, max_columns=limits.rows_max_columns,
                cell_chars=limits.rows_cell_chars, cell_guard_ms=limits.time_guard_ms,
                count_ms=limits.rows_count_ms))
            return self._current(_with_engine(reply["rows"]), moment)

        return await self._rows.give(options.key, take, when_busy=stale_or(BUSY))

    async def count(self, options: CountOptions) -> Answer:
        """The rows of a table (those the view's filter keeps), counted in the kernel — in
        its engine for an engine's table, under ``engine_count_ms`` and cancelled there past
        it; a busy kernel gets the last count of the same query, marked stale."""
        await self.probe.require("count", "Counts", options.name)

        async def take(moment: Moment) -> Answer:
            reply = cast(CountReply, await self._call_on_table(
                "count", options, sort_ms=None, count_ms=self._limits.engine_count_ms))
            return self._current(_with_engine(cast(Answer, reply["count"])), moment)

        return await self._rows.give(options.key, take, when_busy=stale_or(BUSY))

    async def profile(self, options: ProfileOptions) -> Answer:
        """The statistics of a table's columns, computed in the kernel a column at a time
        (of the rows the view's filter keeps); a busy kernel gets the last profile of the
        same query, marked stale."""
        await self.probe.require("profile", "Profiles", options.name)
        limits = self._limits

        async def take(moment: Moment) -> Answer:
            reply = cast(ProfileReply, await self._call_on_table(
                "profile", options, sort_ms=None, filter_ms=limits.rows_sort_ms,
                max_columns=limits.profile_max_columns, value_chars=limits.rows_cell_chars,
                sample_rows=limits.profile_sample_rows, column_ms=limits.profile_column_ms))
            return self._current(_with_engine(reply["profile"]), moment)

        return await self._profiles.give(options.key, take, when_busy=stale_or(BUSY))

    async def findings(self, options: FindingsOptions) -> Answer:
        """The data-quality findings of a table's columns (of the rows the view's filter
        keeps), each with the rows it concerns as a filter and fix code, computed in the
        kernel under the profile's guards; a busy kernel gets the last findings of the
        same query, marked stale."""
        await self.probe.require("findings", "Findings", options.name)
        limits = self._limits

        async def take(moment: Moment) -> Answer:
            reply = await self._call_on_table(
                "findings", options, sort_ms=None, filter_ms=limits.rows_sort_ms,
                max_columns=limits.profile_max_columns, sample_rows=limits.profile_sample_rows,
                column_ms=limits.profile_column_ms, max_findings=options.max_findings,
                syntax=options.syntax)
            return self._current(_with_engine(cast(Answer, reply["findings"])), moment)

        return await self._profiles.give(options.key, take, when_busy=stale_or(BUSY))

    async def code(self, options: CodeOptions) -> Answer:
        """Code that binds ``{name}_view`` to the rows, order and columns of a view,
        written in the kernel from the value's dtypes."""
        await self.probe.require("code", "Code of a view", options.name)

        async def take(moment: Moment) -> Answer:
            reply = cast(CodeReply, await self._call_on_table(
                "code", options, syntax=options.syntax))
            return reply["code"]

        return await self._rows.give(options.key, take, when_busy=busy_error(BUSY),
                                     cached_when_busy=True)

    async def compare(self, options: CompareOptions) -> Answer:
        """The table ``options.name`` compared with ``options.other`` row by row in the
        kernel (by the tables' own library, under the table budget; the comparison kept
        there for paging) and a window of the rows that differ; a busy kernel gets the
        last window of the same query, marked stale. Past ``DEFAULT_COMPARE_CELLS`` rows ×
        columns the probe refuses (422); a request's own ``budget_ms`` raises that bound
        in proportion."""
        await self.probe.require("compare", "Comparisons", options.name)
        support = await self.probe.support()
        if options.other is None:
            raise InvalidRequest("with is required: the name of the table to compare "
                                 f"{options.name} with (row by row, column by column)")
        try:
            support.check_name(options.other)
        except InvalidRequest as e:
            raise InvalidRequest(f"with: {e.message}") from None
        limits = self._limits
        budget = options.budget_ms or limits.table_budget_ms
        cells = DEFAULT_COMPARE_CELLS * max(1, budget // limits.table_budget_ms)

        async def take(moment: Moment) -> Answer:
            reply = await self._call_on_table(
                "compare", options, key=list(options.key_columns or ()) or None,
                statuses=list(options.statuses), offset=options.offset, limit=options.limit,
                max_rows=limits.rows_max_rows, max_columns=limits.rows_max_columns,
                cell_chars=limits.rows_cell_chars, cell_guard_ms=limits.time_guard_ms,
                compare_ms=budget, max_cells=cells, syntax=options.syntax,
                with_execution=options.with_execution, **{"with": options.other})
            return self._current(cast(Answer, reply["comparison"]), moment)

        # A kept version kept or dropped since: not the same question.
        key = options.key if options.with_execution is None else (*options.key,
                                                                   self._kept_changes)
        return await self._rows.give(key, take, when_busy=stale_or(BUSY))

    async def keep(self, options: KeptOptions) -> Answer:
        """Keep a version of the table ``options.name`` as of the last execution, in the
        probe, within ``max_kept`` and ``max_kept_bytes`` (a copy past a cap is refused
        before it is made, or, with ``evict``, the oldest versions are dropped and
        named). A busy kernel is not asked (409): the cell running may be changing it."""
        await self.probe.require("keep", "Kept versions", options.name)
        moment = await self.now()
        if moment.busy:
            self._check_still_busy()
            raise Conflict(f"Kernel is busy: no version of {options.name} was kept; try "
                           "again when the cell has finished")
        budget = self._limits.table_budget_ms
        async with self.probe.lock:
            reply = await self.probe.call(
                "keep", options.name, name=options.name, evict=options.evict,
                time_guard_ms=budget, budget_ms=budget, **self._kept_caps())
        self._kept_changes += 1
        return self._current(cast(Answer, reply["kept"]), moment)

    async def kept(self, options: KeptOptions) -> Answer:
        """The versions of ``options.name`` kept, oldest first, and the caps' use."""
        await self.probe.require("kept", "Kept versions", options.name)

        async def take(moment: Moment) -> Answer:
            reply = await self.probe.call("kept", options.name, name=options.name,
                                          **self._kept_caps())
            return self._current(cast(Answer, reply["kept"]), moment)

        return await self._details.give(("kept", options.name, self._kept_changes), take,
                                        when_busy=busy_error(BUSY), cached_when_busy=True)

    async def drop_kept(self, options: KeptOptions) -> Answer:
        """Drop the version of ``options.name`` kept as of ``options.execution`` (None:
        every one of the name); 404 listing those kept when there is none of it."""
        await self.probe.require("drop_kept", "Kept versions", options.name)
        moment = await self.now()
        if moment.busy:
            self._check_still_busy()
            raise Conflict(f"Kernel is busy: no version of {options.name} was dropped; try "
                           "again when the cell has finished")
        async with self.probe.lock:
            reply = await self.probe.call("drop_kept", options.name, name=options.name,
                                          execution=options.execution, **self._kept_caps())
        self._kept_changes += 1
        return self._current(cast(Answer, reply["kept"]), moment)

    def _kept_caps(self) -> dict[str, int]:
        return {"max_kept": self._limits.max_kept,
                "max_kept_bytes": self._limits.max_kept_bytes}

    async def _call_on_table(self, op: str, query: TableQuery, **fields: Any) -> Answer:
        """One probe operation on a table's columns and view, within the rows' time guards
        (``sort_ms=None`` leaves the sort's guard out, for an operation without one) and a
        budget inside the reply deadline that leaves the answer room to travel back. An
        engine count's guard (``count_ms``) is cut to that budget, so that a count
        cancelled says the guard it really had. A query that brings its own ``budget_ms``
        (the caller gives it more time, or less) has every guard of the operation set to
        it — the reads, the sort, the count, each profile column — and its reply awaited
        that long (``Limits.deadline_for``) when that is longer than ``probe_timeout``."""
        limits = self._limits
        budget = limits.table_budget_ms
        guards: dict[str, Any] = {"time_guard_ms": limits.rows_read_ms,
                                  "sort_ms": limits.rows_sort_ms, "budget_ms": budget}
        guards.update(fields)
        deadline = None
        if query.budget_ms is not None:
            budget = query.budget_ms
            guards.update({key: budget for key, value in guards.items()
                           if key in _RAISED_GUARDS and value is not None})
            # Never shorter than the server's own: less time asked is less time spent.
            deadline = max(limits.probe_timeout, limits.deadline_for(budget))
        if guards.get("count_ms") is not None:
            guards["count_ms"] = min(guards["count_ms"], budget)
        request = {key: value for key, value in guards.items() if value is not None}
        return await self.probe.call(op, query.name, name=query.name, view=query.view,
                                     deadline=deadline, **query.column_fields(), **request)

    def _current(self, answer: Answer, moment: Moment) -> Answer:
        """A window or a profile of the kernel at ``moment``, as served."""
        return {**answer, "generation": moment.generation, "epoch": self.epoch,
                "stale": False, "kernel_busy": False}

    async def delete_variable(self, name: str) -> None:
        """Remove ``name`` (the exact key) from the user namespace. A busy kernel is not
        asked (409): the cell running may be using the variable."""
        await self.probe.require("delete", "Deleting variables", name)
        moment = await self.now()
        # A cell finishing as the user confirms: its idle may be a moment behind.
        deadline = time.monotonic() + DELETE_GRACE_S
        while moment.busy and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
            self.sync()
            moment = Moment(self.epoch, self.tracker.generation, self.tracker.busy)
        if moment.busy:
            self._check_still_busy()
            raise Conflict(f"Kernel is busy: {name} was not deleted; try again when the "
                           "cell has finished")
        async with self.probe.lock:
            await self.probe.call("delete", name, name=name)
            # Snapshots, details and windows of the old namespace are stale now.
            self.tracker.edited()

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

