"""Helpers that drive real kernels the way a notebook frontend would."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from importlib import resources
from queue import Empty
from typing import Any

import jsonschema
from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session
from jupyter_server.services.kernels.connection.base import deserialize_binary_message
from tornado.httpclient import HTTPClientError

from jupyter_kernel_state.probe.protocol import with_defaults

_SCHEMA = json.loads(
    resources.files("jupyter_kernel_state").joinpath("schema/rest-v1.json").read_text()
)


def validate(payload: Any, definition: str) -> None:
    """Validate a 2xx body against the package's JSON Schema."""
    schema = {"$ref": f"#/$defs/{definition}", "$defs": _SCHEMA["$defs"]}
    jsonschema.validate(payload, schema)


async def start_kernel(jp_fetch: Any, name: str = "python3") -> str:
    response = await jp_fetch("api", "kernels", method="POST", body=json.dumps({"name": name}))
    return str(json.loads(response.body)["id"])


async def get_json(jp_fetch: Any, *parts: str, **kwargs: Any) -> Any:
    """A route's JSON; a snapshot's lean list (fields at their defaults left out) made
    whole, as every reader does (``protocol.with_defaults``), after checking it against
    the schema as it travelled."""
    response = await jp_fetch("api", "kernel-state", *parts, **kwargs)
    payload = json.loads(response.body)
    if parts and parts[-1] == "variables" and isinstance(payload, dict) \
            and payload.get("detail", "full") == "full" and "variables" in payload:
        validate(payload, "Snapshot")
        for variable in payload["variables"]:
            with_defaults(variable)
    return payload


async def status_of(jp_fetch: Any, *parts: str, **params: str) -> tuple[int, str]:
    """A route's status and, for an error, its message (200 and "" for an answer)."""
    try:
        await get_json(jp_fetch, *parts, params=params)
    except HTTPClientError as e:
        return e.code, json.loads(e.response.body)["message"]
    return 200, ""


class UserClient:
    """A second client of the kernel, as a notebook is: the server's kernel websocket.

    For a gateway kernel the server relays it to the gateway, as it does for JupyterLab.
    Its cells are user cells.
    """

    def __init__(self, serverapp: Any, kernel_id: str, ws_fetch: Any) -> None:
        self.serverapp = serverapp
        self.kernel_id = kernel_id
        self._ws_fetch = ws_fetch
        self.session = Session(username="notebook-user")
        self.outputs: list[dict[str, Any]] = []
        self._queues: dict[str, asyncio.Queue[dict[str, Any]]] = {
            name: asyncio.Queue() for name in ("shell", "iopub", "control", "stdin")
        }
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None

    @property
    def state(self) -> Any:
        service = self.serverapp.web_app.settings["jupyter_kernel_state"]
        return service.state(self.kernel_id)

    async def connect(self) -> UserClient:
        # The server's websocket takes this id for messages of its own (its "nudge"), so it
        # must differ from our session's, or message ids could collide with ours.
        self._ws = await self._ws_fetch("api", "kernels", self.kernel_id, "channels",
                                        params={"session_id": uuid.uuid4().hex})
        self._reader = asyncio.ensure_future(self._read())
        return self

    async def restart(self, jp_fetch: Any, timeout: float = 60) -> None:
        """Restart the kernel as JupyterLab does: the REST call, then a new websocket
        (the kernel's ports may have moved), then wait until it answers."""
        await jp_fetch("api", "kernels", self.kernel_id, "restart", method="POST", body="{}")
        self.stop()
        for queue in self._queues.values():
            while not queue.empty():
                queue.get_nowait()
        await self.connect()
        await self.wait_for_ready(timeout=timeout)

    async def _read(self) -> None:
        while True:
            raw = await self._ws.read_message()
            if raw is None:
                return
            msg = deserialize_binary_message(raw) if isinstance(raw, bytes) else json.loads(raw)
            queue = self._queues.get(msg.get("channel") or "")
            if queue is not None:
                queue.put_nowait(msg)

    def _send(self, msg_type: str, content: dict[str, Any], channel: str = "shell",
              metadata: dict[str, Any] | None = None) -> str:
        msg = self.session.msg(msg_type, content, metadata=metadata)
        msg["channel"] = channel
        self._ws.write_message(json.dumps(msg, default=json_default))
        return str(msg["header"]["msg_id"])

    async def _get(self, channel: str, timeout: float) -> dict[str, Any]:
        try:
            return await asyncio.wait_for(self._queues[channel].get(), timeout)
        except asyncio.TimeoutError:
            raise Empty from None

    async def get_iopub_msg(self, timeout: float = 1) -> dict[str, Any]:
        return await self._get("iopub", timeout)

    async def get_shell_msg(self, timeout: float = 1) -> dict[str, Any]:
        return await self._get("shell", timeout)

    async def wait_for_ready(self, timeout: float = 60) -> None:
        """Until the kernel answers a kernel_info_request (after a start or restart)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg_id = self._send("kernel_info_request", {})
            try:
                while True:
                    reply = await self.get_shell_msg(timeout=1)
                    if (reply["parent_header"] or {}).get("msg_id") == msg_id:
                        return
            except Empty:
                continue
        raise AssertionError("the kernel never answered kernel_info")

    def execute(self, code: str, *, silent: bool = False, store_history: bool = True,
                user_expressions: dict[str, str] | None = None) -> str:
        return self._send("execute_request", {
            "code": code, "silent": silent, "store_history": store_history,
            "user_expressions": user_expressions or {}, "allow_stdin": False,
            "stop_on_error": True,
        })

    async def ready(self) -> None:
        await self.wait_for_ready(timeout=60)
        # The server attaches on the kernel's start event; wait for its early probe install
        # so that tests start from a settled kernel.
        await asyncio.wait_for(self.state.prepared.wait(), 60)
        await self.wait_idle()

    async def wait_idle(self, timeout: float = 10) -> None:
        for _ in range(int(timeout / 0.02)):
            self.state.summary()  # takes in IOPub; a silent busy kernel gets asked
            if not self.state.tracker.busy:
                return
            await asyncio.sleep(0.02)
        raise AssertionError("the server still believes the kernel busy")

    async def wait_busy(self, timeout: float = 5) -> None:
        """Until the server has seen a user cell start (after ``submit``)."""
        for _ in range(int(timeout / 0.01)):
            self.state.sync()
            if self.state.tracker.busy:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("server never saw the kernel busy")

    async def run(self, code: str, timeout: float = 60,
                  cell_id: str | None = None) -> dict[str, Any]:
        """Execute a user cell (sent with a notebook cell id as JupyterLab sends it, in
        the request's metadata, when ``cell_id`` is given); return its reply once the
        server has seen it finish."""
        before = self.state.tracker.generation
        self.outputs = []
        msg_id = self.execute(code) if cell_id is None else self.execute_in_cell(code, cell_id)
        deadline = time.monotonic() + timeout
        while True:  # its outputs, until its idle
            msg = await self.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
            if (msg["parent_header"] or {}).get("msg_id") != msg_id:
                continue
            if (msg["msg_type"] == "status"
                    and msg["content"]["execution_state"] == "idle"):
                break
            self.outputs.append(msg)
        while True:
            reply = await self.get_shell_msg(timeout=max(0.01, deadline - time.monotonic()))
            if (reply["parent_header"] or {}).get("msg_id") == msg_id:
                break
        await self.wait_generation(before + 1)
        return reply["content"]  # type: ignore[no-any-return]

    def execute_in_cell(self, code: str, cell_id: str) -> str:
        """``execute`` with the execute_request metadata JupyterLab adds (``cellId``)."""
        return self._send("execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": True,
        }, metadata={"cellId": cell_id})

    def submit(self, code: str) -> str:
        """Send a user cell without waiting for it."""
        return self.execute(code)

    async def wait_generation(self, generation: int, timeout: float = 60) -> None:
        """Until the server has seen ``generation`` (a hang guard: a loaded machine's
        gateway may take seconds to pass a cell's status on)."""
        ends = time.monotonic() + timeout
        while True:
            self.state.sync()
            if self.state.tracker.generation >= generation:
                return
            if time.monotonic() > ends:
                raise AssertionError(f"server never saw generation {generation}")
            await asyncio.sleep(0.01)

    async def drain_iopub(self, quiet: float = 0.3) -> list[dict[str, Any]]:
        """Every IOPub message this client has received and not yet read."""
        messages = []
        while True:
            try:
                messages.append(await self.get_iopub_msg(timeout=quiet))
            except Empty:
                return messages

    async def inspect_kernel(self) -> dict[str, Any]:
        """What must never change under a probe: counts, history, `_`, the namespace."""
        expression = (
            "(get_ipython().execution_count, len(In), len(Out), repr(_)[:50], "
            "sorted(k for k in get_ipython().user_ns))"
        )
        msg_id = self.execute("", silent=True, store_history=False,
                              user_expressions={"s": expression})
        while True:
            reply = await self.get_shell_msg(timeout=10)
            if (reply["parent_header"] or {}).get("msg_id") == msg_id:
                break
        await self.wait_idle()
        return reply["content"]["user_expressions"]["s"]["data"]  # type: ignore[no-any-return]

    def stop(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._ws is not None:
            self._ws.close()
