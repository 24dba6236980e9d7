"""Our own connection to one kernel: a shell socket for probe requests, and IOPub.

Built from the server's kernel manager (``connect_shell`` / ``connect_iopub`` return
ZMQStreams on jupyter_server's kernel managers). Our requests use a session of our own, so
their replies come back to us only, and IOPub messages whose parent is one of our requests
can be told apart from the user's.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable
from typing import Any

import zmq
from jupyter_client.session import Session

IOPubHandler = Callable[[dict[str, Any], bool], None]

# How many of our own request ids we remember to recognise their IOPub messages.
MAX_OWN_MSG_IDS = 256
# IOPub messages handled per wake-up: ZMQStream delivers one message per event-loop turn,
# too slow for a flood of displays; we drain what is already queued, up to this many.
IOPUB_BATCH = 256
# How often a pending request checks that the kernel is still alive.
LIVENESS_INTERVAL_S = 0.5


class RequestTimeout(Exception):
    """No reply before the deadline; the request may still be queued in the kernel."""


class KernelDied(Exception):
    """The kernel stopped (or restarted) while we were waiting."""


class KernelConnection:
    """Shell + IOPub streams of one kernel, with futures for our own requests."""

    def __init__(
        self, kernel_manager: Any, on_iopub: IOPubHandler, log: logging.Logger
    ) -> None:
        self._km = kernel_manager
        self._log = log
        self._on_iopub = on_iopub
        source = kernel_manager.session
        self.session = Session(
            key=source.key,
            signature_scheme=source.signature_scheme,
            username="jupyter_kernel_state",
        )
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._own_ids: collections.deque[str] = collections.deque(maxlen=MAX_OWN_MSG_IDS)
        self._own_set: set[str] = set()
        self._iopub = kernel_manager.connect_iopub()
        self._iopub.on_recv(self._recv_iopub)
        self._shell = kernel_manager.connect_shell(identity=self.session.bsession)
        self._shell.on_recv(self._recv_shell)
        self.closed = False
        self.bad_messages = 0

    # -- IOPub -------------------------------------------------------------------------

    def flush_iopub(self) -> None:
        """Handle every IOPub message already received, synchronously.

        Called before answering from a cache so that an execution the browser already saw
        finish is never answered with the state from before it.
        """
        if not self.closed:
            self._iopub.flush()

    def is_own(self, msg_id: str | None) -> bool:
        return msg_id is not None and msg_id in self._own_set

    def _deserialize(self, frames: list[Any]) -> dict[str, Any] | None:
        try:
            _, parts = self.session.feed_identities(frames)
            return self.session.deserialize(parts, content=True)
        except Exception:  # a malformed or unsigned message never kills the listener
            self.bad_messages += 1
            self._log.debug("jupyter_kernel_state: dropped an undecodable message")
            return None

    def _recv_iopub(self, frames: list[Any]) -> None:
        self._handle_iopub(frames)
        socket = self._iopub.socket
        for _ in range(IOPUB_BATCH):
            if self.closed:
                return
            try:
                frames = socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            self._handle_iopub(frames)

    def _handle_iopub(self, frames: list[Any]) -> None:
        msg = self._deserialize(frames)
        if msg is None:
            return
        parent_id = (msg.get("parent_header") or {}).get("msg_id")
        try:
            self._on_iopub(msg, self.is_own(parent_id))
        except Exception:  # a listener bug must not stop the stream
            self._log.exception("jupyter_kernel_state: IOPub handler failed")

    # -- shell -------------------------------------------------------------------------

    def _recv_shell(self, frames: list[Any]) -> None:
        msg = self._deserialize(frames)
        if msg is None:
            return
        parent_id = str((msg.get("parent_header") or {}).get("msg_id"))
        future = self._pending.pop(parent_id, None)
        if future is not None and not future.done():
            future.set_result(msg)

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
    ) -> dict[str, Any]:
        """Send a silent execute_request and wait for its reply content.

        Raises RequestTimeout after ``timeout`` seconds and KernelDied when the kernel stops
        answering liveness checks. The request is never retried or interrupted.
        """
        if self.closed:
            raise KernelDied("connection closed")
        content = {
            "code": code,
            "silent": True,
            "store_history": False,
            "user_expressions": user_expressions or {},
            "allow_stdin": False,
            "stop_on_error": False,
        }
        msg = self.session.msg("execute_request", content)
        msg_id = msg["header"]["msg_id"]
        self._remember(msg_id)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        self.session.send(self._shell, msg)
        deadline = time.monotonic() + timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RequestTimeout(f"no reply within {timeout:g} s")
                try:
                    reply = await asyncio.wait_for(
                        asyncio.shield(future), min(remaining, LIVENESS_INTERVAL_S)
                    )
                    answer: dict[str, Any] = reply["content"]
                    return answer
                except asyncio.TimeoutError:
                    if self.closed or not await self._km.is_alive():
                        raise KernelDied("kernel is not running") from None
        finally:
            self._pending.pop(msg_id, None)

    def send_kernel_info(self) -> str:
        """A kernel_info_request on our shell: it queues behind any running cell, so its
        status messages prove that everything before it has finished. No reply is awaited."""
        msg = self.session.msg("kernel_info_request", {})
        self._remember(msg["header"]["msg_id"])
        self.session.send(self._shell, msg)
        return str(msg["header"]["msg_id"])

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(KernelDied("connection closed"))
        self._pending.clear()
        for stream in (self._iopub, self._shell):
            try:
                stream.close(linger=0)
            except Exception:
                self._log.debug("jupyter_kernel_state: closing a stream failed", exc_info=True)
