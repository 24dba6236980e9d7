"""Helpers that drive real kernels the way a notebook frontend would."""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from queue import Empty
from typing import Any

import jsonschema
from jupyter_client.asynchronous import AsyncKernelClient

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
    response = await jp_fetch("api", "kernel-state", *parts, **kwargs)
    return json.loads(response.body)


class UserClient:
    """A second client of the kernel, as a notebook would be: its cells are user cells."""

    def __init__(self, serverapp: Any, kernel_id: str) -> None:
        self.serverapp = serverapp
        self.kernel_id = kernel_id
        km = serverapp.kernel_manager.get_kernel(kernel_id)
        self.client = AsyncKernelClient()
        self.client.load_connection_info(km.get_connection_info())
        # No heartbeat: on a loaded machine a late beat would read as a dead kernel.
        self.client.start_channels(hb=False)
        self.outputs: list[dict[str, Any]] = []

    @property
    def state(self) -> Any:
        service = self.serverapp.web_app.settings["jupyter_kernel_state"]
        return service.state(self.kernel_id)

    async def ready(self) -> None:
        await self.client.wait_for_ready(timeout=60)
        # The server attaches on the kernel's start event; wait for its early probe install
        # so that tests start from a settled kernel.
        await self.wait_idle()

    async def wait_idle(self, timeout: float = 10) -> None:
        for _ in range(int(timeout / 0.02)):
            self.state.sync()
            if not self.state.tracker.busy:
                return
            await asyncio.sleep(0.02)

    async def wait_busy(self, timeout: float = 5) -> None:
        """Until the server has seen a user cell start (after ``submit``)."""
        for _ in range(int(timeout / 0.01)):
            self.state.sync()
            if self.state.tracker.busy:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("server never saw the kernel busy")

    async def run(self, code: str, timeout: float = 60) -> dict[str, Any]:
        """Execute a user cell; return its reply once the server has seen it finish."""
        before = self.state.tracker.generation
        self.outputs = []
        reply = await self.client.execute_interactive(
            code, timeout=timeout, output_hook=self.outputs.append
        )
        await self.wait_generation(before + 1)
        return reply["content"]  # type: ignore[no-any-return]

    def submit(self, code: str) -> str:
        """Send a user cell without waiting for it."""
        return self.client.execute(code)  # type: ignore[no-any-return]

    async def wait_generation(self, generation: int, timeout: float = 10) -> None:
        for _ in range(int(timeout / 0.01)):
            self.state.sync()
            if self.state.tracker.generation >= generation:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"server never saw generation {generation}")

    async def drain_iopub(self, quiet: float = 0.3) -> list[dict[str, Any]]:
        """Every IOPub message this client has received and not yet read."""
        messages = []
        while True:
            try:
                messages.append(await self.client.get_iopub_msg(timeout=quiet))
            except Empty:
                return messages

    async def inspect_kernel(self) -> dict[str, Any]:
        """What must never change under a probe: counts, history, `_`, the namespace."""
        expression = (
            "(get_ipython().execution_count, len(In), len(Out), repr(_)[:50], "
            "sorted(k for k in get_ipython().user_ns))"
        )
        msg_id = self.client.execute("", silent=True, store_history=False,
                                     user_expressions={"s": expression})
        while True:
            reply = await self.client.get_shell_msg(timeout=10)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        await self.wait_idle()
        return reply["content"]["user_expressions"]["s"]["data"]  # type: ignore[no-any-return]

    def stop(self) -> None:
        self.client.stop_channels()
