"""The wire to one kernel, opened through the kernel manager's own client.

``kernel_manager.client()`` gives ZMQ sockets for a local kernel and, when the server runs
with ``--gateway-url``, a ``GatewayKernelClient`` speaking over the gateway's websocket. No
connection file is read here. Both are wrapped in one small interface: ``send`` a message,
``drain`` what has already arrived (synchronously, in arrival order), ``wait`` until more may
have arrived, ``alive`` while the wire holds.

IOPub messages are size-checked before they are decoded. One whose content (plus buffers)
is larger than anything a consumer can keep (``Limits.iopub_message_bytes``) is not
decoded: on ZMQ only its small frames (header, parent header, metadata) are, its signature is
checked over every frame as ``Session.deserialize`` does, and it is handed on with an empty
``content`` and ``UNDECODED_KEY`` set to the bytes dropped; the big frame costs only what
pyzmq received (read without a copy). Over a gateway the client's reader thread has decoded
it already; the same message shape is handed on, so consumers behave the same. ``status``
and ``execute_input`` are always decoded whole (the tracker needs them).

Errors while opening say what a caller needs to know: ``GatewayUnreachable`` (try again
later) or ``KernelGone`` (the gateway does not know the kernel: culled, shut down, or the
gateway restarted without it).
"""

from __future__ import annotations

import abc
import asyncio
import concurrent.futures
import contextlib
import inspect
import logging
import ssl
import threading
from typing import Any

import zmq
import zmq.asyncio
from jupyter_client.session import DELIM, Session

from .images import UNDECODED_KEY

# Gateway websocket connects block a thread (websocket-client is synchronous): they get
# threads of their own, never the server's default executor.
_CONNECT_POOL = concurrent.futures.ThreadPoolExecutor(
    max_workers=4, thread_name_prefix="kernel-state-connect"
)


# IOPub messages that are decoded whole whatever their size: the tracker needs their content.
ALWAYS_DECODED = frozenset({"status", "execute_input"})


class GatewayUnreachable(Exception):
    """The kernel's gateway did not accept a connection (down, restarting, too slow)."""


class KernelGone(Exception):
    """The gateway answered that the kernel does not exist."""


class KernelChannels(abc.ABC):
    """Shell and IOPub of one kernel; every message is a decoded message dict."""

    alive = True
    bad_messages = 0
    lost_message = "The connection to the kernel was lost"
    #: IOPub content (plus buffers) past which a message is handed on undecoded (None: no limit).
    max_message_bytes: int | None = None
    _oversized = 0

    def __init__(self, client: Any, log: logging.Logger,
                 max_message_bytes: int | None = None) -> None:
        self._client = client
        self._log = log
        self.max_message_bytes = max_message_bytes
        self.session: Session = client.session

    @property
    def oversized_messages(self) -> int:
        """IOPub messages whose content was over ``max_message_bytes`` and dropped (on ZMQ:
        never decoded; over a gateway: decoded by the gateway client, then let go)."""
        return self._oversized

    @abc.abstractmethod
    def send(self, msg: dict[str, Any]) -> None:
        """Send one message on the shell channel."""

    @abc.abstractmethod
    def drain_iopub(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The IOPub messages received so far (at most ``limit``), without waiting."""

    @abc.abstractmethod
    def drain_shell(self) -> list[dict[str, Any]]:
        """The shell replies received so far, without waiting."""

    @abc.abstractmethod
    async def wait(self) -> None:
        """Return when a drain may give something, or the wire went down."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Close the wire."""


class ZmqChannels(KernelChannels):
    """A local kernel: the client's asyncio sockets, read without waiting by sync shadows."""

    def __init__(self, client: Any, log: logging.Logger,
                 max_message_bytes: int | None = None) -> None:
        super().__init__(client, log, max_message_bytes)
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

    def _drain(self, socket: zmq.Socket[Any], limit: int | None,
               max_bytes: int | None) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        while self.alive and (limit is None or len(messages) < limit):
            try:
                # Without a copy: a frame's size is known before its bytes are copied out.
                frames = socket.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                break
            except zmq.ZMQError:  # closed under us
                self.alive = False
                break
            try:
                messages.append(self._decode(frames, max_bytes))
            except Exception:  # a malformed or unsigned message never kills the listener
                self.bad_messages += 1
                self._log.debug("jupyter_kernel_state: dropped an undecodable message")
        return messages

    def _decode(self, frames: list[zmq.Frame], max_bytes: int | None) -> dict[str, Any]:
        start = _after_delimiter(frames)
        size = sum(len(frame) for frame in frames[start + 4:])  # content + buffers
        if max_bytes is None or size <= max_bytes:  # the usual path: the whole message
            return self.session.deserialize([frame.bytes for frame in frames[start:]],
                                            content=True)
        return self._decode_small_frames(frames[start:], size, max_bytes)

    def _decode_small_frames(self, parts: list[zmq.Frame], size: int,
                             max_bytes: int) -> dict[str, Any]:
        """A message too large to keep: decode header, parent header and metadata only."""
        if len(parts) < 5:
            raise ValueError("malformed message")
        small = [frame.bytes for frame in parts[:4]]  # signature, header, parent, metadata
        if sum(len(part) for part in small) > max_bytes:
            raise ValueError("oversized message header")
        header = self.session.unpack(small[1])
        if isinstance(header, dict) and header.get("msg_type") in ALWAYS_DECODED:
            return self.session.deserialize([*small, *(frame.bytes for frame in parts[4:])],
                                            content=True)
        # The HMAC is computed over the content frame where pyzmq left it (a view, no copy);
        # the content stays packed and the buffers are not passed on.
        packed: list[Any] = [*small, parts[4].buffer]
        msg = self.session.deserialize(packed, content=False)
        if self.session.auth is not None:
            self.session._add_digest(small[0])  # as a full decode would: no replays
        msg["content"] = {}
        msg["buffers"] = []
        msg[UNDECODED_KEY] = size
        self._oversized += 1
        return msg

    def drain_iopub(self, limit: int | None = None) -> list[dict[str, Any]]:
        return self._drain(self._iopub_now, limit, self.max_message_bytes)

    def drain_shell(self) -> list[dict[str, Any]]:
        return self._drain(self._shell_now, None, None)

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

    def __init__(self, client: Any, log: logging.Logger,
                 max_message_bytes: int | None = None) -> None:
        super().__init__(client, log, max_message_bytes)
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
    async def open(cls, client: Any, log: logging.Logger, timeout: float,
                   max_message_bytes: int | None = None) -> GatewayChannels:
        loop = asyncio.get_running_loop()
        # start_channels connects synchronously (up to the gateway's launch timeout):
        # run it on a thread of ours, with a loop of its own, and stop waiting at ``timeout``.
        future = loop.run_in_executor(_CONNECT_POOL, _start_gateway_client, client)
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.CancelledError:  # closed while connecting: close what it opens
            future.add_done_callback(lambda f: _stop_abandoned(client, f, log))
            raise
        except asyncio.TimeoutError:
            future.add_done_callback(lambda f: _stop_abandoned(client, f, log))
            raise GatewayUnreachable(
                f"The kernel's gateway did not accept a connection within {timeout:g} s"
            ) from None
        except Exception as e:
            raise _connect_error(e) from None
        return cls(client, log, max_message_bytes)

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
        messages = self._take(self._iopub, limit)
        if self.max_message_bytes is not None:
            messages = [self._bounded(msg, self.max_message_bytes) for msg in messages]
        return messages

    def _bounded(self, msg: dict[str, Any], max_bytes: int) -> dict[str, Any]:
        """The message as the ZMQ path hands it on when its content is over the limit."""
        msg_type = (msg.get("header") or {}).get("msg_type")
        if msg_type in ALWAYS_DECODED:
            return msg
        size = _decoded_size(msg.get("content"), max_bytes) + sum(
            _buffer_size(b) for b in msg.get("buffers") or ())
        if size <= max_bytes:
            return msg
        self._oversized += 1
        return {**msg, "content": {}, "buffers": [], UNDECODED_KEY: size}

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


def _after_delimiter(frames: list[zmq.Frame]) -> int:
    """Index of the first frame after ``<IDS|MSG>``; only frames of its length are read."""
    for index, frame in enumerate(frames):
        if len(frame) == len(DELIM) and frame.bytes == DELIM:
            return index + 1
    raise ValueError("DELIM not in msg_list")


def _decoded_size(value: Any, stop_past: int) -> int:
    """About the size of ``value`` as JSON (its strings' lengths), counted until past
    ``stop_past``: a cheap walk, never an encoding."""
    total = 0
    stack = [value]
    while stack and total <= stop_past:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += 2 * len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += len(item)
            stack.extend(item)
        else:
            total += 1
    return total


def _buffer_size(buffer: Any) -> int:
    try:
        return memoryview(buffer).nbytes
    except TypeError:
        return 0


def _start_gateway_client(client: Any) -> None:
    """``GatewayKernelClient.start_channels``, sending what ``GatewayClient`` sends on every
    other call to the gateway: jupyter_server 2.x opens this websocket with only the TLS
    files, so a gateway protected by a token (or behind an auth proxy that wants
    ``GatewayClient.headers``) refuses it. Here the headers (auth token and scheme, renewed
    by the configured token renewer; ``GatewayClient.headers``; cookies when accepted) and
    the TLS options (``ca_certs``, client cert and key, ``validate_cert``) come from
    ``GatewayClient.load_connection_args``, as for the notebook's own websocket."""
    import websocket
    from jupyter_client.asynchronous.client import AsyncKernelClient
    from jupyter_server.gateway.gateway_client import GatewayClient
    from jupyter_server.utils import url_escape, url_path_join

    gateway = GatewayClient.instance()
    args: dict[str, Any] = gateway.load_connection_args()  # type: ignore[no-untyped-call]
    sslopt: dict[str, Any] = {}
    for option, key in (("ca_certs", "ca_certs"), ("client_cert", "certfile"),
                        ("client_key", "keyfile")):
        if args.get(option):
            sslopt[key] = args[option]
    if args.get("validate_cert") is False:
        sslopt.update(cert_reqs=ssl.CERT_NONE, check_hostname=False)
    url = url_path_join(gateway.ws_url or "", gateway.kernels_endpoint,
                        url_escape(client.kernel_id), "channels")
    client.channel_socket = websocket.create_connection(
        url, timeout=gateway.KERNEL_LAUNCH_TIMEOUT, enable_multithread=True, sslopt=sslopt,
        header=[f"{name}: {value}" for name, value in (args.get("headers") or {}).items()],
    )
    # The rest of GatewayKernelClient.start_channels: the channel queues, then the reader.
    started: Any = AsyncKernelClient.start_channels(  # type: ignore[func-returns-value]
        client, shell=True, iopub=True, stdin=True, hb=True, control=True)
    if inspect.isawaitable(started):  # async in some jupyter_client versions
        asyncio.run(_awaited(started))
    client.response_router = threading.Thread(target=client._route_responses, daemon=True)
    client.response_router.start()


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


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
    if status in (401, 403):
        return GatewayUnreachable(f"The kernel's gateway refused the credential (HTTP {status}): "
                                  "check GatewayClient.auth_token, auth_scheme and headers")
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
    kernel_manager: Any, session: Session, log: logging.Logger, timeout: float,
    max_message_bytes: int | None = None,
) -> KernelChannels:
    """Open shell + IOPub through ``kernel_manager.client()``, with our own session.

    IOPub messages whose content (plus buffers) is over ``max_message_bytes`` are handed on
    undecoded (see the module's docstring)."""
    client = kernel_manager.client(session=session)
    if is_gateway_client(client):
        return await GatewayChannels.open(client, log, timeout, max_message_bytes)
    return ZmqChannels(client, log, max_message_bytes)
