"""Per-value time guard for code that may run user ``__repr__``/``__len__``.

A :class:`GuardSession` installs a SIGALRM handler once per probe call; each guarded
value then costs two ``setitimer`` syscalls.  The guard is only used on the main thread
and only when no user timer or alarm is pending (``signal.getitimer``); otherwise values
run unguarded and are bounded by slicing alone.  The previous handler is restored on exit.
"""

import signal
import threading
import time

#: Re-fire interval after the first alarm, in case user code swallows the first timeout.
REFIRE_S = 0.005


class ProbeTimeout(BaseException):
    """Raised inside guarded user code when its time is up.

    A ``BaseException`` so that ``except Exception`` in user code does not swallow it.
    """


class BudgetExhausted(Exception):
    """The whole call ran out of time: the value was not inspected."""


_current = None  # the active GuardSession, so nested helpers reuse it


def current():
    return _current


class GuardSession:
    """Arms SIGALRM around each guarded value; usable as a context manager."""

    def __init__(self, per_value_ms=100, budget_ms=2000):
        self.per_value = max(0.001, float(per_value_ms) / 1000.0)
        self.deadline = time.perf_counter() + max(0.001, float(budget_ms) / 1000.0)
        self.active = False
        self.timeouts = 0
        self._running = False
        self._prev_handler = None
        self._outer = None

    def __enter__(self):
        global _current
        self._outer = _current
        if self._outer is not None:
            # Nested: share the outer session's handler and deadline.
            self.active = self._outer.active
            self.deadline = min(self.deadline, self._outer.deadline)
            self._prev_handler = None
            _current = self
            return self
        if _can_use_alarm():
            try:
                self._prev_handler = signal.signal(signal.SIGALRM, self._on_alarm)
                self.active = True
            except (ValueError, OSError, TypeError):
                self.active = False
        _current = self
        return self

    def __exit__(self, *exc):
        global _current
        _current = self._outer
        self._running = False
        if self.active and self._outer is None:
            _disarm()
            try:
                signal.signal(signal.SIGALRM, self._prev_handler or signal.SIG_DFL)
            except (ValueError, OSError, TypeError):
                pass
        return False

    def _on_alarm(self, signum, frame):
        session = _current
        if session is not None and session._running:
            session.timeouts += 1
            raise ProbeTimeout()

    @property
    def exhausted(self):
        return time.perf_counter() >= self.deadline

    def run(self, fn, *args):
        """Return ``fn(*args)``; may raise ProbeTimeout or BudgetExhausted."""
        remaining = self.deadline - time.perf_counter()
        if remaining <= 0:
            raise BudgetExhausted()
        if not self.active:
            return fn(*args)
        fired = self.timeouts
        self._running = True
        signal.setitimer(signal.ITIMER_REAL, min(self.per_value, remaining), REFIRE_S)
        try:
            result = fn(*args)
            self._running = False
            if self.timeouts != fired:
                raise ProbeTimeout()  # user code swallowed the timeout: discard its result
            return result
        finally:
            self._running = False
            _disarm()


def _disarm():
    try:
        signal.setitimer(signal.ITIMER_REAL, 0)
    except (ValueError, OSError):
        pass


def _can_use_alarm():
    if not hasattr(signal, "setitimer") or not hasattr(signal, "SIGALRM"):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    try:
        return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    except (ValueError, OSError):
        return False


def session(per_value_ms=100, budget_ms=2000):
    return GuardSession(per_value_ms, budget_ms)
