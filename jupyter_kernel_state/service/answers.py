"""How every answer about a kernel's variables is given: once per state of the kernel.

- Answers are cached by (epoch, generation, query): a GET for an unchanged kernel costs a
  dict lookup and sends nothing to the kernel.
- Identical concurrent queries share one probe request (single flight); the probe client's
  lock keeps every other request behind it.
- A busy kernel gets no request: the last answer to the same query comes back marked stale,
  or, for queries that have no stale form, 503.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..errors import KernelUnavailable

Answer = dict[str, Any]
Query = tuple[object, ...]


@dataclass(frozen=True)
class Moment:
    """The kernel as a request finds it, once IOPub has been taken in."""

    epoch: int
    generation: int
    busy: bool


class LRU(collections.OrderedDict[Any, Answer]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Answer) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class Answers:
    """The cached answers of one kind (snapshots, details, windows) for one kernel.

    ``now`` is the request's preamble (take in IOPub, check the wire, let a new wire's
    first status arrive; see ``KernelState.now``); ``lock`` is the probe client's."""

    def __init__(self, size: int, now: Callable[[], Awaitable[Moment]],
                 lock: asyncio.Lock) -> None:
        self._fresh = LRU(size)  # by (epoch, generation, query)
        self._last = LRU(size)  # by query: the last answer, for a busy kernel
        self._inflight: dict[Query, asyncio.Future[Answer]] = {}
        self._now = now
        self._lock = lock

    @property
    def pending(self) -> bool:
        """A probe request for one of these answers is on its way."""
        return bool(self._inflight)

    def clear(self) -> None:
        """The kernel was replaced: nothing from before is current."""
        self._fresh.clear()
        self._last.clear()

    def last(self, query: Query) -> Answer | None:
        return self._last.get(query)

    def keep(self, epoch: int, generation: int, query: Query, answer: Answer) -> None:
        self._fresh.put((epoch, generation, query), answer)
        self._last.put(query, answer)

    async def give(
        self,
        query: Query,
        take: Callable[[Moment], Awaitable[Answer]],
        *,
        when_busy: Callable[[Answer | None], Answer],
        cached_when_busy: bool = False,
        current: Callable[[], tuple[int, int]] | None = None,
        moment: Moment | None = None,
    ) -> Answer:
        """The answer to ``query``: cached for this moment, else ``take``n once, under the
        lock, by one of the callers asking.

        A busy kernel gets ``when_busy(last answer or None)`` (which may raise), or the
        answer cached for this moment when ``cached_when_busy``. ``current`` says the
        (epoch, generation) an answer taken belongs to, when a take can learn that the
        kernel moved on (a restart found by the probe). ``moment``: the preamble already
        run by the caller (who needed it to shape the query)."""
        if moment is None:
            moment = await self._now()
        key = (moment.epoch, moment.generation, query)
        cached = self._fresh.get(key)
        if moment.busy and not (cached_when_busy and cached is not None):
            return when_busy(self._last.get(query))
        if cached is not None:
            return cached

        async def locked() -> Answer:
            async with self._lock:
                again = self._fresh.get(key)
                if again is not None:
                    return again
                answer = await take(moment)
                epoch, generation = current() if current else (moment.epoch, moment.generation)
                self.keep(epoch, generation, query, answer)
                return answer

        return await self.once(key, locked)

    async def once(self, key: Query, make: Callable[[], Awaitable[Answer]]) -> Answer:
        """Run ``make`` once for every concurrent caller asking for ``key``."""
        pending = self._inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            result = await make()
        except BaseException as e:
            future.set_exception(e)
            future.exception()  # mark retrieved: lone callers re-raise below
            raise
        else:
            future.set_result(result)
            return result
        finally:
            self._inflight.pop(key, None)


def busy_error(message: str) -> Callable[[Answer | None], Answer]:
    """``when_busy`` for answers without a stale form: 503 with ``message``."""

    def refuse(_last: Answer | None) -> Answer:
        raise KernelUnavailable(message)

    return refuse


def stale_or(message: str, *, retry_after: int = 1) -> Callable[[Answer | None], Answer]:
    """``when_busy``: the last answer marked stale, else 503 with ``message``."""

    def stale(last: Answer | None) -> Answer:
        if last is None:
            raise KernelUnavailable(message, retry_after=retry_after)
        return {**last, "stale": True, "kernel_busy": True}

    return stale
