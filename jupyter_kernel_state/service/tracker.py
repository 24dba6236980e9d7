"""What IOPub says about a kernel's executions: busy or idle, generation, execution count.

The generation counts completed user executions (from any client) seen on IOPub; it is the
key of every cache. Our own probe requests never change it.
"""

from __future__ import annotations

import collections
import time
from typing import Any

# Generations whose execution count we remember, to turn a ``since`` generation into the
# execution count the probe understands.
MAX_GENERATIONS_REMEMBERED = 10_000


class ExecutionTracker:
    def __init__(self, initial_state: str | None = None) -> None:
        self.generation = 0
        self.execution_count: int | None = None
        self.last_execution_at: float | None = None  # time.time() when the last user cell ended
        # Parent ids of user requests the kernel reported busy for and not yet idle.
        self._busy_parents: set[str] = set()
        self._starting_busy = initial_state == "busy"
        self._ec_by_generation: collections.OrderedDict[int, int | None] = (
            collections.OrderedDict({0: None})
        )

    @property
    def busy(self) -> bool:
        return bool(self._busy_parents) or self._starting_busy

    def handle(self, msg: dict[str, Any], own: bool) -> bool:
        """Update from one IOPub message; return True when the generation moved."""
        if own:
            return False
        msg_type = msg.get("header", {}).get("msg_type")
        parent = msg.get("parent_header") or {}
        content = msg.get("content") or {}
        if msg_type == "execute_input":
            count = content.get("execution_count")
            if isinstance(count, int):
                self.execution_count = count
            return False
        if msg_type != "status":
            return False
        state = content.get("execution_state")
        parent_id = parent.get("msg_id")
        if state == "busy" and parent_id:
            if parent.get("msg_type") == "execute_request":
                self._busy_parents.add(parent_id)
            return False
        if state == "idle":
            self._starting_busy = False
            if parent_id in self._busy_parents:
                self._busy_parents.discard(parent_id)
                self._bump()
                return True
        elif state == "starting":
            self._busy_parents.clear()
        return False

    def _bump(self) -> None:
        self.generation += 1
        self.last_execution_at = time.time()
        self._ec_by_generation[self.generation] = self.execution_count
        while len(self._ec_by_generation) > MAX_GENERATIONS_REMEMBERED:
            self._ec_by_generation.popitem(last=False)

    def execution_count_at(self, generation: int) -> int | None:
        """The last execution count seen when ``generation`` was reached (None: unknown)."""
        if generation >= self.generation:
            return self.execution_count
        if generation in self._ec_by_generation:
            return self._ec_by_generation[generation]
        return None

    def reset(self) -> None:
        """After a restart: nothing is running, counts start again.

        The generation moves on: a restart changes the state as much as a cell does.
        """
        self._busy_parents.clear()
        self._starting_busy = False
        self.execution_count = None
        self._bump()
