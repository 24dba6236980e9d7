"""The wire to one kernel, opened through the kernel manager's own client.

``kernel_manager.client()`` gives ZMQ sockets for a local kernel and, when the server runs
with ``--gateway-url``, a ``GatewayKernelClient`` speaking over the gateway's websocket. No
connection file is read here. Both are wrapped in one small interface: ``send`` a message,
``drain`` what has already arrived (synchronously, in arrival order), ``wait`` until more may
have arrived, ``alive`` while the wire holds.

Errors while opening say what a caller needs to know: ``GatewayUnreachable`` (try again
later) or ``KernelGone`` (the gateway does not know the kernel: culled, shut down, or the
gateway restarted without it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from typing import Any

import zmq
import zmq.asyncio
from jupyter_client.session import Session

# Gateway websocket connects block a thread (websocket-client is synchronous): they get
# threads of their own, never the server's default executor.
_CONNECT_POOL = concurrent.futures.ThreadPoolExecutor(
    max_workers=4, thread_name_prefix="kernel-state-connect"
)


class GatewayUnreachable(Exception):
    """The kernel's gateway did not accept a connection (down, restarting, too slow)."""


class KernelGone(Exception):
    """The gateway answered that the kernel does not exist."""


class KernelChannels:
    """Shell and IOPub of one kernel; every message is a decoded message dict."""

    alive = True
    bad_messages = 0
    lost_message = "The connection to the kernel was lost"

    def send(self, msg: dict[str, Any]) -> None:
        raise NotImplementedError

    def drain_iopub(self, limit: int | None = None) -> list[dict[str, Any]]:
        raise NotImplementedError

    def drain_shell(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    async def wait(self) -> None:
        """Return when a drain may give something, or the wire went down."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class ZmqChannels(KernelChannels):
    """A local kernel: the client's asyncio sockets, read without waiting by sync shadows."""

    def __init__(self, client: Any, log: logging.Logger) -> None:
        self._client = client
        self._log = log
        self.session: Session = client.session
        client.start_channels(shell=True, iopub=True, stdin=False, hb=False, control=False)
        self._iopub: zmq.asyncio.Socket = client.iopub_channel.socket
        self._shell: zmq.asyncio.Socket = client.shell_channel.socket
        # Shadows of the same sockets: a non-blocking read never leaves a pending future
        # behind, so messages are handled in the order the socket delivered them.
        self._iopub_now: zmq.Socket[Any] = zmq.Socket.shadow(self._iopub.underlying)
        self._shell_now: zmq.Socket[Any] = zmq.Socket.shadow(self._shell.underlying)
        self._poller = zmq.asyncio.Poller()
        self._poller.register(self._iopub, zmq.POLLIN)
        self._poller.register(self._shell, zmq.POLLIN)

    def send(self, msg: dict[str, Any]) -> None:
        self.session.send(self._shell_now, msg)

    def _drain(self, socket: zmq.Socket[Any], limit: int | None) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        while self.alive and (limit is None or len(messages) < limit):
            try:
                frames = socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            except zmq.ZMQError:  # closed under us
                self.alive = False
                break
            try:
                _, parts = self.session.feed_identities(frames)
                messages.append(self.session.deserialize(parts, content=True))
            except Exception:  # a malformed or unsigned message never kills the listener
                self.bad_messages += 1
                self._log.debug("jupyter_kernel_state: dropped an undecodable message")
        return messages

    def drain_iopub(self, limit: int | None = None) -> list[dict[str, Any]]:
        return self._drain(self._iopub_now, limit)

    def drain_shell(self) -> list[dict[str, Any]]:
        return self._drain(self._shell_now, None)

    async def wait(self) -> None:
        await self._poller.poll()

    async def close(self) -> None:
        self.alive = False
        try:
            self._client.stop_channels()
        except Exception:
            self._log.debug("jupyter_kernel_state: closing channels failed", exc_info=True)


class GatewayChannels(KernelChannels):
    """A gateway kernel: ``GatewayKernelClient``'s websocket and its per-channel queues.

    The client's reader thread fills the queues; we are woken by a thread-safe callback
    on each put, never by spinning (the queues' own ``get_msg`` spins the event loop).
    """

    lost_message = "The websocket to the kernel's gateway was lost"

    def __init__(self, client: Any, log: logging.Logger) -> None:
        self._client = client
        self._log = log
        self.session: Session = client.session
        self._loop = asyncio.get_running_loop()
        self._ready = asyncio.Event()
        self._wake_pending = False
        self._iopub = client.iopub_channel
        self._shell = client.shell_channel
        # Every channel the websocket may deliver on has a queue (the client's reader stops
        # at a message for a channel without one); only shell and IOPub are read.
        self._others = [client.control_channel, client.stdin_channel, client.hb_channel]
        for queue in (self._iopub, self._shell, *self._others):
            self._notify_on_put(queue)
        router = client.response_router
        if router is not None:
            threading.Thread(target=self._watch_router, args=(router,), daemon=True,
                             name="kernel-state-gateway-watch").start()
        self._wake()  # messages that arrived before the hooks were in place

    @classmethod
    async def open(cls, client: Any, log: logging.Logger, timeout: float) -> GatewayChannels:
        loop = asyncio.get_running_loop()
        # start_channels connects synchronously (up to the gateway's launch timeout):
        # run it on a thread of ours, with a loop of its own, and stop waiting at ``timeout``.
        future = loop.run_in_executor(_CONNECT_POOL, _start_gateway_client, client)
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError:
            future.add_done_callback(lambda f: _stop_abandoned(client, f, log))
            raise GatewayUnreachable(
                f"The kernel's gateway did not accept a connection within {timeout:g} s"
            ) from None
        except Exception as e:
            raise _connect_error(e) from None
        return cls(client, log)

    def _notify_on_put(self, queue: Any) -> None:
        put = queue.put_nowait

        def put_and_wake(item: Any) -> None:
            put(item)
            if not self._wake_pending:
                self._wake_pending = True
                self._loop.call_soon_threadsafe(self._wake)

        queue.put_nowait = put_and_wake

    def _wake(self) -> None:
        self._wake_pending = False
        self._ready.set()

    def _watch_router(self, router: threading.Thread) -> None:
        router.join()
        self.alive = False
        with contextlib.suppress(RuntimeError):  # a closed loop has nobody waiting
            self._loop.call_soon_threadsafe(self._wake)

    def send(self, msg: dict[str, Any]) -> None:
        self._shell.send(msg)

    @staticmethod
    def _take(queue: Any, limit: int | None) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        while limit is None or len(messages) < limit:
            try:
                messages.append(queue.get_nowait())
            except Exception:  # queue.Empty
                break
        return messages

    def drain_iopub(self, limit: int | None = None) -> list[dict[str, Any]]:
        for queue in self._others:  # control/stdin/hb replies are not ours: keep them bounded
            self._take(queue, None)
        return self._take(self._iopub, limit)

    def drain_shell(self) -> list[dict[str, Any]]:
        return self._take(self._shell, None)

    async def wait(self) -> None:
        if not self.alive:
            return
        await self._ready.wait()
        self._ready.clear()
        if not self._iopub.empty() or not self._shell.empty():
            self._ready.set()  # more arrived between the wake-up and the clear

    async def close(self) -> None:
        self.alive = False
        await asyncio.get_running_loop().run_in_executor(
            _CONNECT_POOL, _stop_gateway_client, self._client, self._log)


def _start_gateway_client(client: Any) -> None:
    asyncio.run(client.start_channels(shell=True, iopub=True, stdin=True, hb=True, control=True))


def _stop_gateway_client(client: Any, log: logging.Logger) -> None:
    try:
        client.stop_channels()
    except Exception:
        log.debug("jupyter_kernel_state: closing the gateway websocket failed", exc_info=True)


def _stop_abandoned(client: Any, future: asyncio.Future[Any], log: logging.Logger) -> None:
    """A connect we stopped waiting for finished after all: close it."""
    if not future.cancelled() and future.exception() is None:
        _CONNECT_POOL.submit(_stop_gateway_client, client, log)


def _connect_error(error: Exception) -> Exception:
    status = getattr(error, "status_code", None)
    if status == 404:
        return KernelGone("The gateway has no such kernel (culled or shut down)")
    reason = type(error).__name__ if status is None else f"HTTP {status}"
    return GatewayUnreachable(f"The kernel's gateway is unreachable ({reason})")


def is_remote(kernel_manager: Any) -> bool:
    """A kernel behind a gateway (its kernelspec and process live there)."""
    try:
        from jupyter_server.gateway.managers import GatewayKernelManager
    except ImportError:  # pragma: no cover - jupyter_server always ships it
        return False
    return isinstance(kernel_manager, GatewayKernelManager)


def is_gateway_client(client: Any) -> bool:
    try:
        from jupyter_server.gateway.managers import GatewayKernelClient
    except ImportError:  # pragma: no cover - jupyter_server always ships it
        return False
    return isinstance(client, GatewayKernelClient)


async def open_channels(
    kernel_manager: Any, session: Session, log: logging.Logger, timeout: float
) -> KernelChannels:
    """Open shell + IOPub through ``kernel_manager.client()``, with our own session."""
    client = kernel_manager.client(session=session)
    if is_gateway_client(client):
        return await GatewayChannels.open(client, log, timeout)
    return ZmqChannels(client, log)
