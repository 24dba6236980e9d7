"""One variable's window, deletion and timeline for ``KernelState``: the data explorer's
rows, ``DELETE variables/{name}`` and the change timeline.

- Windows are cached like details, by (epoch, generation, query); a busy kernel gets the
  last window of the same query, marked stale, or 503.
- A delete is never sent to a busy kernel (409: the running cell may use the variable);
  after it the tracker's ``edited()`` moves the generation on, so every cached answer is
  stale and deltas from before it become full pages.
- What a language's probe can do beyond snapshots and details is
  ``LanguageSupport.operations`` (501 otherwise).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..errors import Conflict, KernelUnavailable, NotSupported
from .inspections import LRU, Inspections
from .variable_queries import RowsOptions, TimelineOptions

#: How long a delete waits for a busy kernel to finish its cell before answering 409.
DELETE_GRACE_S = 1.0


class VariableCalls(Inspections):
    """Mixed into KernelState (after ``Inspections``): the attributes below are its."""

    _rows: LRU
    _last_rows: LRU

    async def require(self, operation: str, what: str, name: str) -> None:
        """501 when the kernel's probe has no ``operation``; 400 for a name its language
        cannot have."""
        support = await self.support()
        support.check_name(name)
        if operation not in support.operations:
            raise NotSupported(f"{what} are not available for {self.language} kernels yet")

    # -- rows --------------------------------------------------------------------------

    async def rows(self, options: RowsOptions) -> dict[str, Any]:
        """A window of a table or array (the probe's ``rows``), cached like details; a busy
        kernel gets the last window of the same query, marked stale."""
        await self.require("rows", "Rows", options.name)
        self.sync()
        self._check_link()
        await self._settle()
        if self.tracker.busy:
            self._check_still_busy()
            last = self._last_rows.get(options.key)
            if last is None:
                raise KernelUnavailable("Kernel is busy; try again when the cell has finished")
            return {**last, "stale": True, "kernel_busy": True}
        key = (self.epoch, self.tracker.generation, options.key)
        cached = self._rows.get(key)
        if cached is not None:
            return cached
        return await self._shared(key, lambda: self._take_rows(key, options))

    async def _take_rows(self, key: tuple[object, ...], options: RowsOptions) -> dict[str, Any]:
        async with self._probe_lock:
            limits = self._limits
            request: dict[str, Any] = {
                "op": "rows", "name": options.name, "offset": options.offset,
                "limit": options.limit, "sort_column": options.sort_column,
                "sort_desc": options.sort_desc, "max_rows": limits.rows_max_rows,
                "max_columns": limits.rows_max_columns, "cell_chars": limits.rows_cell_chars,
                "time_guard_ms": limits.rows_read_ms, "sort_ms": limits.rows_sort_ms,
                "cell_guard_ms": limits.time_guard_ms,
                # within the reply deadline, leaving it room to travel back
                "budget_ms": max(1, int(limits.probe_timeout * 1000 * 0.8)),
            }
            if options.filter is not None:
                column, op, value = options.filter
                request["filter"] = {"column": column, "op": op, "value": value}
            if options.columns is not None:
                request["columns"] = list(options.columns)
            else:
                request["column_start"] = options.column_start
                request["column_stop"] = options.column_stop
            reply = await self._call_or_unavailable(request)
            await self._raise_for_reply(reply, options.name)
            window: dict[str, Any] = {
                **reply["rows"], "generation": key[1], "epoch": self.epoch,
                "stale": False, "kernel_busy": False,
            }
            self._rows.put((self.epoch, key[1], options.key), window)
            self._last_rows.put(options.key, window)
            return window

    # -- one variable: delete, timeline ------------------------------------------------

    async def delete_variable(self, name: str) -> None:
        """Remove ``name`` (the exact key) from the user namespace. A busy kernel is not
        asked (409): the cell running may be using the variable."""
        await self.require("delete", "Deleting variables", name)
        self.sync()
        self._check_link()
        await self._settle()
        # A cell finishing as the user confirms: its idle may be a moment behind.
        deadline = time.monotonic() + DELETE_GRACE_S
        while self.tracker.busy and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
            self.sync()
        if self.tracker.busy:
            self._check_still_busy()
            raise Conflict(f"Kernel is busy: {name} was not deleted; try again when the "
                           "cell has finished")
        async with self._probe_lock:
            reply = await self._call_or_unavailable({"op": "delete", "name": name})
            await self._raise_for_reply(reply, name)
            # Snapshots, details and windows of the old namespace are stale now.
            self.tracker.edited()

    async def timeline(self, options: TimelineOptions) -> dict[str, Any]:
        """When ``options.name`` was new, modified or removed, and how (probe/timeline.py)."""
        await self.require("timeline", "Timelines", options.name)
        key, cached = await self._cached_detail(options.key)
        if cached is not None:
            return cached

        async def take() -> dict[str, Any]:
            async with self._probe_lock:
                reply = await self._call_or_unavailable(
                    {"op": "timeline", "name": options.name, "limit": options.limit})
                await self._raise_for_reply(reply, options.name)
                timeline: dict[str, Any] = reply["timeline"]
                self._details.put(key, timeline)
                return timeline

        return await self._shared(("timeline", *key), take)
