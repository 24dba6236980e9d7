"""Outputs published for our own requests, for kernels whose probe answers through them.

IRkernel evaluates no ``user_expressions``: the R probe publishes its reply as output of
our silent request (see ``languages/r.py``). Those IOPub messages have our request as
parent, so every listener already treats them as ours and ignores them; here they are
also kept, per request, until the request's ``status: idle`` — its last IOPub message
(IOPub and shell are separate sockets: the shell reply may come first).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

# Output messages kept for one request, and their types.
MAX_OUTPUTS = 64
OUTPUT_TYPES = frozenset({"display_data", "stream", "execute_result", "error"})
# How often a wait for the idle status also takes in IOPub already received.
POLL_S = 0.05


class OwnOutputs:
    def __init__(self) -> None:
        self._outputs: dict[str, list[dict[str, Any]]] = {}
        self._idle: dict[str, asyncio.Future[None]] = {}

    def __contains__(self, msg_id: object) -> bool:
        return msg_id in self._outputs

    def watch(self, msg_id: str) -> None:
        """Keep the outputs of our request ``msg_id`` (called before it is sent)."""
        self._outputs[msg_id] = []
        self._idle[msg_id] = asyncio.get_running_loop().create_future()

    def forget(self, msg_id: str) -> None:
        self._outputs.pop(msg_id, None)
        idle = self._idle.pop(msg_id, None)
        if idle is not None and not idle.done():
            idle.cancel()

    def handle(self, parent_id: str, msg: dict[str, Any]) -> None:
        """An IOPub message whose parent is a watched request."""
        msg_type = msg.get("header", {}).get("msg_type")
        if msg_type == "status":
            idle = self._idle.get(parent_id)
            if ((msg.get("content") or {}).get("execution_state") == "idle"
                    and idle is not None and not idle.done()):
                idle.set_result(None)
        elif msg_type in OUTPUT_TYPES:
            outputs = self._outputs[parent_id]
            if len(outputs) < MAX_OUTPUTS:
                outputs.append(msg)

    async def until_idle(self, msg_id: str, deadline: float,
                         flush: Callable[[], None]) -> list[dict[str, Any]]:
        """The request's outputs once its idle status came; asyncio.TimeoutError at
        ``deadline`` (monotonic)."""
        idle = self._idle[msg_id]
        while not idle.done():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise asyncio.TimeoutError()
            try:
                await asyncio.wait_for(asyncio.shield(idle), min(remaining, POLL_S))
            except asyncio.TimeoutError:
                flush()
        return self._outputs[msg_id]
