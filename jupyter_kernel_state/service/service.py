"""The server-wide service: one KernelState per running kernel, built on demand.

Kernels are attached when they start (through jupyter_server's kernel action events) so
that IOPub is followed from the first execution; any kernel asked about later is attached
then. Handlers, MCP tools and the CLI all go through this class.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from ..errors import KernelNotFound, NotFound
from .kernel_state import Decorator, IOPubListener, KernelState
from .limits import Limits
from .images import StoredImage
from .options import DetailOptions, SnapshotOptions, parse_int

KERNEL_ACTIONS_SCHEMA = "https://events.jupyter.org/jupyter_server/kernel_actions/v1"
# The same pattern jupyter_server uses for kernel ids in its URLs (a UUID).
KERNEL_ID_PATTERN = r"[\w-]+"
# How long to wait for a started kernel to be listed (steps × step).
START_WAIT_STEPS = 600
START_WAIT_STEP_S = 0.05
_IMAGE_ID_RE = re.compile(r"^[0-9a-f]{16}$")
_KERNEL_ID_RE = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                           r"[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")


class KernelStateService:
    def __init__(
        self,
        kernel_manager: Any,
        limits: Limits,
        log: logging.Logger | None = None,
    ) -> None:
        self._multi = kernel_manager
        self.limits = limits
        self.log = log or logging.getLogger("jupyter_kernel_state")
        self._states: dict[str, KernelState] = {}
        self.listeners: list[IOPubListener] = []
        self.decorators: list[Decorator] = []
        self._tasks: set[asyncio.Task[None]] = set()

    # -- kernels -----------------------------------------------------------------------

    def _check_id(self, kernel_id: str) -> None:
        if not _KERNEL_ID_RE.match(kernel_id) or kernel_id not in self._multi:
            raise KernelNotFound(kernel_id[:100])

    def state(self, kernel_id: str) -> KernelState:
        """The KernelState of a running kernel; KernelNotFound for anything else."""
        self._check_id(kernel_id)
        state = self._states.get(kernel_id)
        if state is None:
            state = self._attach(kernel_id)
        return state

    def _decorate(self, state: KernelState, variables: list[dict[str, Any]]) -> None:
        for decorate in self.decorators:
            decorate(state, variables)

    def _attach(self, kernel_id: str) -> KernelState:
        km = self._multi.get_kernel(kernel_id)
        state = KernelState(kernel_id, km, self.limits, self.log, self.listeners,
                            self._decorate)
        self._states[kernel_id] = state
        state.connection()  # follow IOPub from now on
        return state

    def kernel_ids(self) -> list[str]:
        return list(self._multi.list_kernel_ids())

    def list_kernels(self) -> list[dict[str, Any]]:
        return [self.state(kernel_id).summary() for kernel_id in self.kernel_ids()]

    async def snapshot(self, kernel_id: str, options: SnapshotOptions) -> dict[str, Any]:
        return await self.state(kernel_id).snapshot(options)

    async def detail(self, kernel_id: str, options: DetailOptions) -> dict[str, Any]:
        return await self.state(kernel_id).detail(options)

    def images(self, kernel_id: str, get: Any) -> dict[str, Any]:
        state = self.state(kernel_id)
        cap = self.limits.images.max_images
        since = parse_int(get("since"), "since", default=0, minimum=0)
        limit = parse_int(get("limit"), "limit", default=cap, minimum=1, maximum=cap)
        state.sync()
        return state.images.listing(since=since, limit=limit)

    def image(self, kernel_id: str, image_id: str) -> StoredImage:
        state = self.state(kernel_id)
        state.sync()
        image = state.images.get(image_id) if _IMAGE_ID_RE.match(image_id) else None
        if image is None:
            raise NotFound(f"Image not found: {image_id[:40]}")
        return image

    def history(self, kernel_id: str, get: Any) -> dict[str, Any]:
        state = self.state(kernel_id)
        cap = self.limits.history.max_entries
        limit = parse_int(get("limit"), "limit", default=10, minimum=0, maximum=cap)
        state.sync()
        return state.history.listing(limit)

    def snapshot_options(self, get: Any) -> SnapshotOptions:
        return SnapshotOptions.parse(
            get,
            default_limit=self.limits.page_size,
            max_limit=self.limits.max_page_size,
            preview_chars=self.limits.preview_chars,
        )

    def detail_options(self, name: str, get: Any) -> DetailOptions:
        return DetailOptions.parse(
            name, get, default_chars=self.limits.detail_chars,
            max_chars=self.limits.max_detail_chars,
        )

    # -- lifecycle ---------------------------------------------------------------------

    async def on_kernel_action(self, logger: Any, schema_id: str, data: dict[str, Any]) -> None:
        """Listener for jupyter_server's kernel action events."""
        if data.get("status") != "success":
            return
        kernel_id = data.get("kernel_id")
        action = data.get("action")
        if not isinstance(kernel_id, str):
            return
        if action == "shutdown":
            self.forget(kernel_id)
        elif action == "start":
            self._spawn(self._attach_when_ready(kernel_id))
        elif action == "restart" and kernel_id in self._states:
            state = self._states[kernel_id]
            state.restarted(reconnect=True)
            state.connection()
            self._spawn(state.prepare())

    async def _attach_when_ready(self, kernel_id: str) -> None:
        # The event fires before the multi-kernel manager lists the kernel.
        for _ in range(START_WAIT_STEPS):
            if kernel_id in self._multi:
                break
            await asyncio.sleep(START_WAIT_STEP_S)
        else:
            return
        state = self._states.get(kernel_id) or self._attach(kernel_id)
        await state.prepare()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def forget(self, kernel_id: str) -> None:
        state = self._states.pop(kernel_id, None)
        if state is not None:
            state.close()

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for kernel_id in list(self._states):
            self.forget(kernel_id)
