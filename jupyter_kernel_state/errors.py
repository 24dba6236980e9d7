"""Domain errors of jupyter_kernel_state, and their HTTP status in one place.

The service layer raises these; ``routes.py`` answers with each one's ``status``. None of
them carries a traceback or anything from the kernel's connection info.
"""

from __future__ import annotations


class KernelStateError(Exception):
    """Base class: ``message`` is safe to show to the caller."""

    status = 500

    def __init__(self, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class InvalidRequest(KernelStateError):
    status = 400


class KernelNotFound(KernelStateError):
    status = 404

    def __init__(self, kernel_id: str) -> None:
        super().__init__(f"Kernel does not exist: {kernel_id}")


class NotFound(KernelStateError):
    """A variable, child, image or annotation that does not exist (or is hidden)."""

    status = 404


class Conflict(KernelStateError):
    """The value cannot be shown that way as it is: a lazy object that reading would compute
    or consume."""

    status = 409


class Unprocessable(KernelStateError):
    """The value's own code failed (raised or ran out of time) while it was read."""

    status = 422


class Forbidden(KernelStateError):
    """A file outside the server's root (or a symlink that leads out of it)."""

    status = 403


class TooLarge(KernelStateError):
    """A file larger than the server reads."""

    status = 413


class NotSupported(KernelStateError):
    """The kernel's language has no probe (only Python and R kernels are inspected)."""

    status = 501


class ProbeFailed(KernelStateError):
    """The probe answered, but with an internal error (or not in its own format): a bug of
    ours, not of the caller. Raised where the reply is read, whatever the language."""

    status = 502

    def __init__(self, reason: str) -> None:
        super().__init__(reason if reason.startswith("Probe") else f"Probe error: {reason}")


class ProbeMissing(Exception):
    """The kernel has no probe (a new or restarted kernel): install it and call again.
    A signal between the reply's reader and the probe client, never an answer."""


class KernelUnavailable(KernelStateError):
    """No answer now (kernel starting, dead, restarting, busy with no snapshot yet)."""

    status = 503

    def __init__(self, message: str, *, retry_after: int = 1) -> None:
        super().__init__(message, retry_after=retry_after)



class KernelUnreachable(KernelUnavailable):
    """The wire to the kernel is down (its gateway unreachable, a websocket dropped): an
    error, never an old snapshot presented as current."""


class InspectionInterrupted(KernelUnavailable):
    """The kernel was interrupted while the probe was running (the stop button, or a
    shutdown on its way)."""

    def __init__(self) -> None:
        super().__init__("Inspection interrupted: the kernel was interrupted during the "
                         "request; try again", retry_after=1)
