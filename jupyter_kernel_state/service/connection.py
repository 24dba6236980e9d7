"""Our own connection to one kernel: silent requests on shell, and every IOPub message.

Opened through the kernel manager's client (``channels.py``): ZMQ for local kernels, the
gateway's websocket for remote ones. Our requests use a session of our own, so their
replies come back to us only, and IOPub messages whose parent is one of our requests can
be told apart from the user's.

A wire that drops (a gateway restarted, a websocket cut) is reopened in the background
with backoff, so IOPub capture resumes by itself; requests in flight fail at once with
``LinkDown``. A gateway that no longer knows the kernel ends the connection: ``KernelGone``.

A request whose deadline passed is remembered as overdue: nothing more is sent while it is
still in the kernel. A request the kernel will never answer (dropped on its way, or its
reply lost) is told apart by order: a kernel answers one socket's shell requests in the
order they were sent, so the reply to a later request of ours proves every earlier one
without a reply lost, and they are forgotten (``settle_overdue`` sends such a later
request when nothing of ours is running).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable
from typing import Any

from jupyter_client.session import Session

from .activity import QuietActivity
from .channels import GatewayUnreachable, KernelChannels, KernelGone, is_remote, open_channels
from .own_outputs import OwnOutputs

IOPubHandler = Callable[[dict[str, Any], bool], None]

# How many of our own request ids we remember to recognise their IOPub messages.
MAX_OWN_MSG_IDS = 256
# IOPub messages handled per wake-up, so a flood of displays cannot starve the server.
IOPUB_BATCH = 256
# How often a pending request checks that the kernel is still alive.
LIVENESS_INTERVAL_S = 0.5
# Longest wait for a kernel manager's liveness answer (a gateway's is an HTTP call).
LIVENESS_TIMEOUT_S = 2.0
# Reopening a dropped wire: first delay, and the longest.
RECONNECT_FIRST_S = 0.5
RECONNECT_MAX_S = 30.0
# At most one request every this many seconds asks whether overdue requests were lost,
# and only about requests overdue for this long (the kernel's word that it started one may
# still be on its way).
OVERDUE_CHECK_S = 10.0
OVERDUE_GRACE_S = 2.0


class RequestTimeout(Exception):
    """No reply before the deadline; the request may still be queued in the kernel."""


class KernelDied(Exception):
    """The kernel stopped (or restarted) while we were waiting."""


class LinkDown(Exception):
    """The wire to the kernel is down (a gateway unreachable, a websocket dropped)."""


__all__ = [
    "GatewayUnreachable",
    "KernelConnection",
    "KernelDied",
    "KernelGone",
    "LinkDown",
    "RequestTimeout",
]


class KernelConnection:
    """Shell + IOPub of one kernel, with futures for our own requests."""

    def __init__(
        self,
        kernel_manager: Any,
        on_iopub: IOPubHandler,
        log: logging.Logger,
        *,
        connect_timeout: float,
        on_open: Callable[[bool], None] | None = None,
        on_reply: Callable[[dict[str, Any]], None] | None = None,
        max_iopub_bytes: int | None = None,
    ) -> None:
        self._km = kernel_manager
        self._max_iopub_bytes = max_iopub_bytes
        self._log = log
        self._on_iopub = on_iopub
        self._on_open = on_open
        self._on_reply = on_reply
        self._connect_timeout = connect_timeout
        source = kernel_manager.session
        self.session = Session(
            key=source.key,
            signature_scheme=source.signature_scheme,
            username="jupyter_kernel_state",
        )
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._own_outputs = OwnOutputs()  # see execute_collecting
        self._own_ids: collections.deque[str] = collections.deque(maxlen=MAX_OWN_MSG_IDS)
        self._own_set: set[str] = set()
        # Our requests whose deadline passed before their reply came: still queued or
        # running in the kernel. Nothing more is sent until they answer (see `waiting_on`).
        # Each is kept with its place in the order we sent (see the module's docstring)
        # and when its deadline passed.
        self._overdue: dict[str, tuple[int, float]] = {}
        self._sent_order: dict[str, int] = {}  # our requests awaiting a reply (and overdue)
        self._running: set[str] = set()  # of those, the ones the kernel said it started
        self._last_overdue_check = -OVERDUE_CHECK_S
        self.lost_requests = 0  # requests of ours the kernel never answered (for tests)
        self._channels: KernelChannels | None = None
        self._opening: asyncio.Future[KernelChannels] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._reconnect: asyncio.Task[None] | None = None
        self.closed = False  # closed by us, for good
        self.gone: str | None = None  # why the kernel is known to be gone
        self.link_error: str | None = None  # why the wire is down now, if it is
        self.reopened = 0  # times the wire was reopened after a drop
        self.sent = 0  # requests sent (for tests and benchmarks)
        self._was_open = False
        self._bad_messages = 0
        # Our requests leave a local kernel's activity stamps as they were (activity.py).
        self.quiet = None if is_remote(kernel_manager) else QuietActivity(kernel_manager)

    @property
    def bad_messages(self) -> int:
        return self._bad_messages + (self._channels.bad_messages if self._channels else 0)

    @property
    def oversized_messages(self) -> int:
        """IOPub messages of the current wire dropped for size (see channels.py)."""
        return self._channels.oversized_messages if self._channels else 0

    @property
    def is_open(self) -> bool:
        return self._channels is not None and self._channels.alive

    # -- opening -----------------------------------------------------------------------

    def start(self) -> None:
        """Begin opening in the background (IOPub is followed from then on)."""
        if not self.closed and self.gone is None and self._channels is None:
            self._open_once()

    def _open_once(self) -> asyncio.Future[KernelChannels]:
        if self._opening is None or self._opening.done():
            self._opening = asyncio.ensure_future(self._open())
            self._opening.add_done_callback(_consume_exception)
        return self._opening

    async def _open(self) -> KernelChannels:
        try:
            channels = await open_channels(self._km, self.session, self._log,
                                           self._connect_timeout, self._max_iopub_bytes)
        except KernelGone as e:
            self.gone = str(e)
            raise
        except GatewayUnreachable as e:
            self.link_error = str(e)
            raise
        if self.closed:
            await channels.close()
            raise KernelDied("connection closed")
        self._channels = channels
        self.link_error = None
        self._reader = asyncio.ensure_future(self._read(channels))
        if self._on_open is not None:
            self._on_open(self._was_open)
        self._was_open = True
        return channels

    async def ensure_open(self, timeout: float) -> KernelChannels:
        """The open wire; opens it first when needed (one attempt shared by all callers)."""
        if self.closed:
            raise KernelDied("connection closed")
        if self.gone is not None:
            raise KernelGone(self.gone)
        channels = self._channels
        if channels is not None and channels.alive:
            return channels
        try:
            return await asyncio.wait_for(asyncio.shield(self._open_once()), timeout)
        except asyncio.TimeoutError:
            raise LinkDown(f"No connection to the kernel within {timeout:g} s") from None
        except GatewayUnreachable as e:
            raise LinkDown(str(e)) from None
        except asyncio.CancelledError:
            if self.closed:  # the opening was cancelled by close(), not our caller
                raise KernelDied("connection closed") from None
            raise

    # -- reading -----------------------------------------------------------------------

    async def _read(self, channels: KernelChannels) -> None:
        try:
            while channels.alive and not self.closed:
                await channels.wait()
                self._pump(channels)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug here must not leave the kernel unwatched silently
            self._log.exception("jupyter_kernel_state: reading from the kernel failed")
            channels.alive = False
        if not self.closed:
            self._lost(channels)

    def _pump(self, channels: KernelChannels, limit: int | None = IOPUB_BATCH) -> None:
        for msg in channels.drain_shell():
            self._handle_shell(msg)
        for msg in channels.drain_iopub(limit):
            self._handle_iopub(msg)

    def flush_iopub(self) -> None:
        """Handle every message already received, synchronously.

        Called before answering from a cache so that an execution the browser already saw
        finish is never answered with the state from before it.
        """
        channels = self._channels
        if channels is not None and channels.alive and not self.closed:
            self._pump(channels, None)

    def is_own(self, msg_id: str | None) -> bool:
        return msg_id is not None and msg_id in self._own_set

    def _handle_iopub(self, msg: dict[str, Any]) -> None:
        parent_id = (msg.get("parent_header") or {}).get("msg_id")
        if parent_id in self._sent_order and (msg.get("header") or {}).get("msg_type") == "status":
            state = (msg.get("content") or {}).get("execution_state")
            if state == "busy":
                self._running.add(parent_id)
            elif state == "idle":
                self._running.discard(parent_id)
        if isinstance(parent_id, str) and parent_id in self._own_outputs:
            self._own_outputs.handle(parent_id, msg)
        own = self.is_own(parent_id)
        if self.quiet is not None:
            self.quiet.saw(own)
        try:
            self._on_iopub(msg, own)
        except Exception:  # a listener bug must not stop the stream
            self._log.exception("jupyter_kernel_state: IOPub handler failed")

    @property
    def waiting_on(self) -> int:
        """How many of our requests the kernel has not answered though their deadline
        passed (they are still in the kernel: a new one would queue behind them)."""
        return len(self._overdue)

    @property
    def overdue_running(self) -> bool:
        """Whether the kernel said it started one of our overdue requests and has not
        finished it: it is running, not lost."""
        return any(msg_id in self._running for msg_id in self._overdue)

    async def settle_overdue(self, timeout: float) -> None:
        """Overdue requests the kernel will never answer forgotten: when none of them is
        running, one kernel_info_request (at most one every ``OVERDUE_CHECK_S``) whose
        reply, coming after theirs would have, proves them lost. The caller has made sure
        that no cell is running (the check would only queue behind it)."""
        now = time.monotonic()
        if (not self._overdue or self.overdue_running
                or now - max(since for _, since in self._overdue.values()) < OVERDUE_GRACE_S
                or now - self._last_overdue_check < OVERDUE_CHECK_S):
            return
        self._last_overdue_check = now
        try:
            await self.request("kernel_info_request", {}, timeout=timeout)
        except RequestTimeout:  # the check is overdue too: still nothing more is sent
            return

    def _handle_shell(self, msg: dict[str, Any]) -> None:
        parent_id = str((msg.get("parent_header") or {}).get("msg_id"))
        self._overdue.pop(parent_id, None)
        self._running.discard(parent_id)
        order = self._sent_order.pop(parent_id, None)
        if order is not None and self._overdue:
            self._forget_lost(order)
        future = self._pending.pop(parent_id, None)
        if future is not None and not future.done():
            future.set_result(msg)
        if self._on_reply is not None:
            try:
                self._on_reply(msg)
            except Exception:
                self._log.exception("jupyter_kernel_state: reply handler failed")

    def _forget_lost(self, answered: int) -> None:
        """Our overdue requests sent before the one just answered: the kernel answers in
        order, so theirs will never come."""
        lost = [msg_id for msg_id, (order, _) in self._overdue.items() if order < answered]
        for msg_id in lost:
            del self._overdue[msg_id]
            self._sent_order.pop(msg_id, None)
            self._running.discard(msg_id)
        if lost:
            self.lost_requests += len(lost)
            self._log.warning(
                "jupyter_kernel_state: the kernel never answered %d earlier request(s) of ours "
                "(lost on the way, or their replies were); forgotten", len(lost))

    # -- a dropped wire ----------------------------------------------------------------

    def _lost(self, channels: KernelChannels) -> None:
        if self._channels is not channels:
            return
        self._channels = None
        self._overdue.clear()  # their replies went with the wire
        self._sent_order.clear()
        self._running.clear()
        self.link_error = channels.lost_message
        self._fail_pending(LinkDown(self.link_error))
        asyncio.ensure_future(channels.close()).add_done_callback(_consume_exception)
        if self._reconnect is None or self._reconnect.done():
            self._reconnect = asyncio.ensure_future(self._reopen())

    async def _reopen(self) -> None:
        delay = RECONNECT_FIRST_S
        while not self.closed and self.gone is None and self._channels is None:
            try:
                await self._open_once()
            except KernelGone:
                self._log.info("jupyter_kernel_state: kernel is gone: %s", self.gone)
                return
            except Exception as e:
                self._log.debug("jupyter_kernel_state: reconnect failed: %s", e)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RECONNECT_MAX_S)
                continue
            self.reopened += 1
            return

    # -- requests ----------------------------------------------------------------------

    def _remember(self, msg_id: str) -> None:
        if len(self._own_ids) == self._own_ids.maxlen:
            self._own_set.discard(self._own_ids[0])
        self._own_ids.append(msg_id)
        self._own_set.add(msg_id)

    async def execute_silently(
        self,
        code: str,
        user_expressions: dict[str, str] | None = None,
        *,
        timeout: float,
        before_send: Callable[[str], None] | None = None,
    ) -> dict[str, Any]:
        """Send a silent execute_request and wait for its reply content."""
        return await self.request("execute_request", {
            "code": code,
            "silent": True,
            "store_history": False,
            "user_expressions": user_expressions or {},
            "allow_stdin": False,
            "stop_on_error": False,
        }, timeout=timeout, before_send=before_send)

    async def execute_collecting(
        self, code: str, *, timeout: float
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A silent execute_request whose outputs are its answer (IRkernel: no
        ``user_expressions``): its reply content and the display/stream messages published
        for it, up to its `status: idle` (see own_outputs.py)."""
        deadline = time.monotonic() + timeout
        watched: list[str] = []

        def watch(msg_id: str) -> None:
            watched.append(msg_id)
            self._own_outputs.watch(msg_id)

        try:
            content = await self.execute_silently(code, timeout=timeout, before_send=watch)
            try:
                outputs = await self._own_outputs.until_idle(watched[0], deadline,
                                                              self.flush_iopub)
            except asyncio.TimeoutError:
                raise RequestTimeout(f"no idle status within {timeout:g} s") from None
            return content, outputs
        finally:
            for msg_id in watched:
                self._own_outputs.forget(msg_id)

    async def request(
        self, msg_type: str, content: dict[str, Any], *, timeout: float,
        before_send: Callable[[str], None] | None = None,
    ) -> dict[str, Any]:
        """Send one shell request from our session and wait for its reply content.

        Raises RequestTimeout after ``timeout`` seconds, KernelDied when the kernel stops
        answering liveness checks, LinkDown when the wire drops, KernelGone when the
        gateway no longer has the kernel. The request is never retried or interrupted.
        """
        deadline = time.monotonic() + timeout
        channels = await self.ensure_open(timeout)
        msg = self.session.msg(msg_type, content)
        msg_id = msg["header"]["msg_id"]
        self._remember(msg_id)
        if before_send is not None:
            before_send(msg_id)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        order = self.sent
        if self.quiet is not None:
            self.quiet.begin()
        try:
            try:
                channels.send(msg)
                self.sent += 1
                self._sent_order[msg_id] = order
            except Exception as e:  # a websocket closing under us
                raise LinkDown(f"The connection to the kernel was lost ({type(e).__name__})"
                               ) from None
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._overdue[msg_id] = (order, time.monotonic())
                    raise RequestTimeout(f"no reply within {timeout:g} s")
                try:
                    reply = await asyncio.wait_for(
                        asyncio.shield(future), min(remaining, LIVENESS_INTERVAL_S)
                    )
                    answer: dict[str, Any] = reply["content"]
                    return answer
                except asyncio.TimeoutError:
                    await self._check_alive(channels)
        finally:
            self._pending.pop(msg_id, None)
            if msg_id not in self._overdue:  # answered, failed or cancelled: not awaited
                self._sent_order.pop(msg_id, None)
                self._running.discard(msg_id)
            if self.quiet is not None:
                self.quiet.end()

    async def _check_alive(self, channels: KernelChannels) -> None:
        if self.closed:
            raise KernelDied("connection closed")
        if not channels.alive:
            raise LinkDown(self.link_error or "The connection to the kernel was lost")
        try:
            alive = await asyncio.wait_for(self._km.is_alive(), LIVENESS_TIMEOUT_S)
        except Exception:  # a slow or failing answer is not a death certificate
            return
        if not alive:
            if is_remote(self._km):  # the gateway no longer has it: culled or shut down
                self.gone = "The gateway has no such kernel (culled or shut down)"
                raise KernelGone(self.gone)
            raise KernelDied("kernel is not running")

    def send_kernel_info(self) -> str | None:
        """A kernel_info_request on our shell: it queues behind any running cell, so its
        status messages prove that everything before it has finished. No reply is awaited.
        Nothing is sent (None) while the wire is down."""
        channels = self._channels
        if channels is None or not channels.alive:
            return None
        msg = self.session.msg("kernel_info_request", {})
        self._remember(msg["header"]["msg_id"])
        channels.send(msg)
        return str(msg["header"]["msg_id"])

    def _fail_pending(self, error: Exception) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
                future.exception()  # the waiter may be gone: mark it retrieved
        self._pending.clear()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.quiet is not None:
            self.quiet.close()
        self._fail_pending(KernelDied("connection closed"))
        for task in (self._reader, self._reconnect, self._opening):
            if task is not None and not task.done():
                task.cancel()
        channels, self._channels = self._channels, None
        if channels is not None:
            asyncio.ensure_future(channels.close()).add_done_callback(_consume_exception)


def _consume_exception(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
