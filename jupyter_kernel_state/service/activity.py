"""Our requests are not the kernel's activity: idle kernels are culled as without us.

jupyter_server watches every local kernel's IOPub and stamps ``last_activity`` (the idle
clock of ``MappingKernelManager.cull_idle_timeout``, and, through
``last_kernel_activity``, of the server's own ``shutdown_no_activity_timeout``) on each
message of an execute request -- ours included, since a probe call is a silent execute. So
a sidebar left open, or an agent asking every minute, would keep a closed notebook's kernel
alive forever.

``QuietActivity`` notes the stamps before our requests and puts them back once they are
answered, provided no message of anyone else's reached IOPub in between (then the kernel
really was active, and the stamp stays). The server's watcher reads the same IOPub on its
own socket, in the same event loop, so it may stamp our last status a moment after we saw
our reply: the stamps are put back three times after each reply (``RESTORE_AFTER_S``),
when none of our requests is in flight. Only for local kernels: a gateway's culler runs on
the gateway, whose clock we do not touch (our wire to a gateway is released instead when we
are its only client: service.py).
"""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

# When the stamps are put back after our last reply: at once (the watcher has usually
# stamped our last status by then), and twice more in case it had not.
RESTORE_AFTER_S = (0.05, 0.5, 2.0)


class QuietActivity:
    """The activity stamps of one local kernel, put back after our own requests."""

    def __init__(self, kernel_manager: Any) -> None:
        self._km = kernel_manager
        self._multi = getattr(kernel_manager, "parent", None)
        self._depth = 0  # our requests in flight
        # The stamps (kernel's, server's) of the kernel's last activity that was not ours;
        # None until our next request, and again after someone else's IOPub message.
        self._saved: tuple[Any, Any] | None = None
        self._timers: set[asyncio.TimerHandle] = set()
        self.restored = 0  # times a stamp was put back (tests, benchmarks)

    def begin(self) -> None:
        """One of our requests is about to be sent."""
        if self._saved is None:
            self._saved = (getattr(self._km, "last_activity", None),
                           getattr(self._multi, "last_kernel_activity", None))
        self._depth += 1

    def saw(self, own: bool) -> None:
        """An IOPub message arrived (``own``: its parent is one of our requests)."""
        if not own:
            self._saved = None  # real activity: its stamp stays

    def end(self) -> None:
        """One of our requests was answered (or failed)."""
        self._depth = max(0, self._depth - 1)
        if self._depth == 0 and self._saved is not None:
            loop = asyncio.get_running_loop()
            now = loop.time()
            self._timers = {t for t in self._timers if t.when() > now}  # those still to run
            self._timers.update(loop.call_later(delay, self._restore)
                                for delay in RESTORE_AFTER_S)

    def _restore(self) -> None:
        saved = self._saved
        if saved is None or self._depth:
            return  # someone else was active, or another of ours runs (its end retries)
        kernel_stamp, server_stamp = saved
        if _later(getattr(self._km, "last_activity", None), kernel_stamp):
            self._km.last_activity = kernel_stamp
            self.restored += 1
        if self._multi is not None and _later(
                getattr(self._multi, "last_kernel_activity", None), server_stamp):
            # The server's stamp is the latest of all kernels': ours put back, the others'
            # kept (another kernel may have been active meanwhile).
            stamps = [server_stamp, *(_stamp(self._multi, k) for k in _kernel_ids(self._multi))]
            self._multi.last_kernel_activity = max(s for s in stamps if s is not None)

    def close(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        self._saved = None


def _later(now: Any, before: Any) -> bool:
    return (isinstance(now, datetime.datetime) and isinstance(before, datetime.datetime)
            and now > before)


def _kernel_ids(multi: Any) -> list[str]:
    try:
        return list(multi.list_kernel_ids())
    except Exception:
        return []


def _stamp(multi: Any, kernel_id: str) -> Any:
    try:
        return getattr(multi.get_kernel(kernel_id), "last_activity", None)
    except Exception:
        return None
