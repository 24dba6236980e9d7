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
        self._edited_at = 0  # the generation of the last edit outside an execution
        self.execution_count: int | None = None
        self.last_execution_at: float | None = None  # time.time() when the last user cell ended
        # Parent ids of user requests the kernel reported busy for and not yet idle, in order.
        self._busy_parents: dict[str, None] = {}
        self.lost_idles = 0  # idles we never saw, inferred from later statuses
        self.last_message_at = time.monotonic()  # of the last IOPub message of any kind
        self.last_state: str | None = None  # the last execution_state the kernel reported
        self._starting_busy = initial_state == "busy"
        # A gap in IOPub (a wire reopened): cells may run unseen until a status proves
        # the new subscription live; the generation moves on again then.
        self._unseen_until_live = False
        self._ec_by_generation: collections.OrderedDict[int, int | None] = (
            collections.OrderedDict({0: None})
        )

    @property
    def busy(self) -> bool:
        return bool(self._busy_parents) or self._starting_busy

    def handle(self, msg: dict[str, Any], own: bool) -> bool:
        """Update from one IOPub message; return True when the generation moved.

        The shell runs execute requests one at a time, in order. So a status for one
        request also proves every request that went busy before it has finished: a lost
        `idle` (ZMQ drops messages under a flood) can never leave the kernel busy forever.
        Our own requests take part in that reasoning but never count as executions.
        """
        msg_type = msg.get("header", {}).get("msg_type")
        parent = msg.get("parent_header") or {}
        content = msg.get("content") or {}
        self.last_message_at = time.monotonic()
        if msg_type == "execute_input":
            count = content.get("execution_count")
            if not own and isinstance(count, int):
                self.execution_count = count
            return False
        if msg_type != "status":
            return False
        if not own and parent.get("msg_type") not in (None, "execute_request"):
            return False  # control-channel requests (debug, interrupt) run beside a cell
        # Our own requests all go through the shell channel, so every one of them orders.
        state = content.get("execution_state")
        if isinstance(state, str):
            self.last_state = state
        parent_id = parent.get("msg_id")
        if state == "busy" and parent_id:
            moved = self._finish_before(parent_id)
            if not own and parent_id not in self._busy_parents:
                self._busy_parents[parent_id] = None
            return moved
        if state == "idle":
            self._starting_busy = False
            moved = self._finish_before(parent_id)
            if parent_id in self._busy_parents:
                del self._busy_parents[parent_id]
                self._bump()
                return True
            if self._unseen_until_live:  # the first status since the gap: IOPub is live
                self._unseen_until_live = False
                self._bump()
                return True
            return moved
        if state == "starting":
            self._busy_parents.clear()
        return False

    def _finish_before(self, parent_id: str | None) -> bool:
        """End the user requests that went busy before ``parent_id`` (their idle was lost)."""
        moved = False
        for earlier in list(self._busy_parents):
            if earlier == parent_id:
                break
            del self._busy_parents[earlier]
            self.lost_idles += 1
            self._bump()
            moved = True
        return moved

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

    def knows(self, generation: int) -> bool:
        """Whether ``generation``'s execution count is known exactly (reached, and
        recent enough to be remembered), and what changed since can be told from
        execution counts (no edit outside an execution since)."""
        if generation < self._edited_at:
            return False
        return generation == self.generation or (
            generation < self.generation and generation in self._ec_by_generation
        )

    def edited(self) -> None:
        """The namespace changed outside an execution (a variable deleted through the
        API): the generation moves on, and changes since an earlier generation can no
        longer be told from execution counts alone."""
        self._bump()
        self._edited_at = self.generation

    @property
    def awaiting_status(self) -> bool:
        """Busy only because no status has been seen since (re)connecting."""
        return self._starting_busy and not self._busy_parents

    def await_status(self) -> None:
        """Until a status says otherwise (the caller asks for one), the kernel counts as
        busy: a cell may be running that we did not see start."""
        self._starting_busy = True

    def resume_unseen(self) -> None:
        """After a gap in IOPub (a wire reopened): cells may have run unseen, and one may
        be running now. Move the generation on and await a status; the first idle after
        it moves the generation on again (a cell may have run before the new subscription
        was live, its messages lost)."""
        self._busy_parents.clear()
        self._bump()
        self.await_status()
        self._unseen_until_live = True

    def reset(self) -> None:
        """After a restart: nothing is running, counts start again.

        The generation moves on: a restart changes the state as much as a cell does.
        """
        self._busy_parents.clear()
        self._starting_busy = False
        self.execution_count = None
        self._bump()
