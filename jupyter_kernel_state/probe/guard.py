"""Per-value time guard for code that may run user ``__repr__``/``__len__``.

A :class:`GuardSession` installs a SIGALRM handler once per probe call; each guarded
call then costs two ``setitimer`` syscalls.  The guard is only used on the main thread
and only when no user timer or alarm is pending (``signal.getitimer``); otherwise
``run`` refuses (:class:`GuardUnavailable`) and the caller falls back to summaries that
call no user code.  The previous handler is restored on exit.

Interrupts.  The outermost session on the main thread also installs a SIGINT handler
(unless SIGINT is ignored or left to the OS): a real interrupt (the stop button) sets
``interrupted`` and raises :class:`ProbeInterrupted`, a ``KeyboardInterrupt`` subclass
that ends the probe request.  A ``KeyboardInterrupt`` (or ``SystemExit``,
``GeneratorExit``, any other ``BaseException``) raised by *user code* is then only the
user's error: :func:`check` lets it be marked on the field.  User code that swallows the
real interrupt cannot hide it: the flag is checked after every guarded call.  Without
our handler (another thread, SIGINT ignored), a plain ``KeyboardInterrupt`` is taken as
real and propagates.
"""

import signal
import sys
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


class GuardUnavailable(Exception):
    """No time guard (a user timer is pending, or not the main thread): user code is
    not called."""


class ProbeInterrupted(KeyboardInterrupt):
    """A real SIGINT arrived while the probe ran (see the module docstring)."""


#: The probe's own exceptions: never marked as a field's error, always propagated.
OURS = (ProbeTimeout, ProbeInterrupted, BudgetExhausted, GuardUnavailable)
UNAVAILABLE = "not inspected: time guard unavailable (a timer of the user's is pending)"
UNAVAILABLE_THREAD = "not inspected: time guard unavailable (not the main thread)"
UNAVAILABLE_PLATFORM = "not inspected: time guard unavailable (no SIGALRM timer here)"


_current = None  # the active GuardSession, so nested helpers reuse it


def current():
    return _current


def check(exc):
    """Called in ``except BaseException`` around user code: re-raises what must
    propagate (the probe's own exceptions, a real interrupt), returns otherwise."""
    if isinstance(exc, OURS):
        raise exc
    session = _current
    if session is not None and session.interrupted:
        raise ProbeInterrupted() from None
    if type(exc) is KeyboardInterrupt and (session is None or not session.sigint):
        raise exc  # no handler of ours: cannot tell, so it is the real one


def user_error(label, exc):
    """``"<label> raised <Name>"`` for a user exception (after :func:`check`)."""
    check(exc)
    return label + " raised " + _type_name(type(exc))


def _type_name(t):
    try:
        return type.__dict__["__name__"].__get__(t)
    except Exception:
        return "?"


class GuardSession:
    """Arms SIGALRM around each guarded value; usable as a context manager."""

    def __init__(self, per_value_ms=100, budget_ms=2000):
        self.per_value = max(0.001, float(per_value_ms) / 1000.0)
        self.deadline = time.perf_counter() + max(0.001, float(budget_ms) / 1000.0)
        self.active = False
        self.timeouts = 0
        self.interrupted = False
        self.sigint = False  # our SIGINT handler is installed
        self.unavailable = UNAVAILABLE
        self._running = False
        self._prev_handler = None
        self._prev_sigint = None
        self._prev_unraisable = None
        self._outer = None

    def __enter__(self):
        global _current
        self._outer = _current
        if self._outer is not None:
            # Nested: share the outer session's handler and deadline.
            self.active = self._outer.active
            self.unavailable = self._outer.unavailable
            self.sigint = self._outer.sigint
            self.deadline = min(self.deadline, self._outer.deadline)
            self._prev_handler = None
            _current = self
            return self
        main = threading.current_thread() is threading.main_thread()
        if not hasattr(signal, "setitimer") or not hasattr(signal, "SIGALRM"):
            self.unavailable = UNAVAILABLE_PLATFORM
        if not main:
            self.unavailable = UNAVAILABLE_THREAD
        else:
            self._install_sigint()
        if main and _can_use_alarm():
            try:
                self._prev_handler = signal.signal(signal.SIGALRM, self._on_alarm)
                self.active = True
            except (ValueError, OSError, TypeError):
                self.active = False
        if self.active or self.sigint:
            self._prev_unraisable = sys.unraisablehook
            sys.unraisablehook = self._on_unraisable
        _current = self
        return self

    def __exit__(self, *exc):
        global _current
        outer = self._outer
        _current = outer
        self._running = False
        if outer is None:
            if self._prev_unraisable is not None:
                if sys.unraisablehook == self._on_unraisable:
                    sys.unraisablehook = self._prev_unraisable
                self._prev_unraisable = None
            if self.active:
                _disarm()
                try:
                    signal.signal(signal.SIGALRM, self._prev_handler or signal.SIG_DFL)
                except (ValueError, OSError, TypeError):
                    pass
            if self.sigint:
                try:
                    signal.signal(signal.SIGINT, self._prev_sigint)
                except (ValueError, OSError, TypeError):
                    pass
            if self.interrupted and exc[0] is None:
                raise ProbeInterrupted()  # swallowed by user code: still ends the request
        elif self.interrupted:
            outer.interrupted = True
        return False

    def _install_sigint(self):
        try:
            prev = signal.getsignal(signal.SIGINT)
            if prev in (signal.SIG_IGN, signal.SIG_DFL, None):
                return
            self._prev_sigint = signal.signal(signal.SIGINT, self._on_sigint)
            self.sigint = True
        except (ValueError, OSError, TypeError, AttributeError):
            self.sigint = False

    def _on_sigint(self, signum, frame):
        session = _current or self
        session.interrupted = self.interrupted = True
        raise ProbeInterrupted()

    def _on_unraisable(self, unraisable):
        """Our alarm or interrupt raised inside code that cannot raise (a weakref or
        ``__del__`` callback run by the garbage collector) is ours, not the user's: the
        guard re-fires and the interrupt flag is kept, so it is not reported."""
        if isinstance(unraisable.exc_value, (ProbeTimeout, ProbeInterrupted)):
            return
        (self._prev_unraisable or sys.__unraisablehook__)(unraisable)

    def _on_alarm(self, signum, frame):
        session = _current
        if session is not None and session._running:
            session.timeouts += 1
            raise ProbeTimeout()

    @property
    def exhausted(self):
        return time.perf_counter() >= self.deadline

    def run(self, fn, *args):
        """Return ``fn(*args)``; may raise ProbeTimeout, BudgetExhausted,
        GuardUnavailable (``fn`` is then not called) or ProbeInterrupted."""
        if not self.active:
            raise GuardUnavailable(self.unavailable)
        remaining = self.deadline - time.perf_counter()
        if remaining <= 0:
            raise BudgetExhausted()
        fired = self.timeouts
        self._running = True
        signal.setitimer(signal.ITIMER_REAL, min(self.per_value, remaining), REFIRE_S)
        try:
            result = fn(*args)
        except BaseException:
            self._running = False
            if self.interrupted:
                raise ProbeInterrupted() from None
            if self.timeouts != fired:
                raise ProbeTimeout() from None  # swallowed, then something else raised
            raise
        finally:
            self._running = False
            _disarm()
        if self.interrupted:
            raise ProbeInterrupted()
        if self.timeouts != fired:
            raise ProbeTimeout()  # user code swallowed the timeout: discard its result
        return result


    def run_within(self, per_value_ms, fn, *args):
        """``run`` with its own time guard (a sort may take longer than a repr)."""
        saved = self.per_value
        self.per_value = max(0.001, float(per_value_ms) / 1000.0)
        try:
            return self.run(fn, *args)
        finally:
            self.per_value = saved


def _disarm():
    try:
        signal.setitimer(signal.ITIMER_REAL, 0)
    except (ValueError, OSError):
        pass


def _can_use_alarm():
    if not hasattr(signal, "setitimer") or not hasattr(signal, "SIGALRM"):
        return False
    try:
        return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    except (ValueError, OSError):
        return False


def session(per_value_ms=100, budget_ms=2000):
    return GuardSession(per_value_ms, budget_ms)
