"""Running a step's code on a namespace dict, with bounded output capture."""

from __future__ import annotations

import contextlib
import io
import time
import traceback
from collections.abc import Iterable
from typing import Any

from .cards import cards, visible_names
from .steps import StepResult
from .text import (
    MAX_CAPTURE_CHARS,
    PREVIEW_CHARS,
    _inspector_for,
)

# --- running code ---------------------------------------------------------------------


class _Capture(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0
        self.limit = limit

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts)


def _fingerprints(ns: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """name → (id, type, the probe's cheap fingerprint): what tells a change."""
    out = {}
    for name in names:
        value = ns.get(name)
        try:
            fp = _inspector_for(type(value)).fingerprint(value)
        except Exception:
            fp = None
        out[name] = (id(value), type(value), fp)
    return out


def run(
    code: str,
    namespace: dict[str, Any],
    *,
    filename: str = "<step>",
    max_capture_chars: int = MAX_CAPTURE_CHARS,
    preview_chars: int = PREVIEW_CHARS,
    reveal: bool = False,
) -> StepResult:
    """Execute ``code`` in ``namespace`` (a plain dict) with stdout and stderr captured.

    An exception ends the code and is reported (``type="error"``, its traceback in
    ``stderr``), never raised — except ``KeyboardInterrupt`` and ``SystemExit``.
    This is not a sandbox: the code runs in this process, with its rights.
    """
    if type(namespace) is not dict:
        raise TypeError("namespace must be a dict")
    before = _fingerprints(namespace, visible_names(namespace))
    out, err = _Capture(max_capture_chars), _Capture(max_capture_chars)
    error = None
    started = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            exec(compile(code, filename, "exec"), namespace)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:
            error = traceback.format_exception_only(type(exc), exc)[-1].strip()
            frames = exc.__traceback__.tb_next if exc.__traceback__ else None  # not ours
            err.write("".join(traceback.format_exception(type(exc), exc, frames, limit=-5)))
    elapsed = time.perf_counter() - started
    now = visible_names(namespace)
    after = _fingerprints(namespace, now)
    changed = tuple(n for n in now if before.get(n) != after[n])
    removed = tuple(n for n in before if n not in after)
    return StepResult(
        stdout=out.getvalue(), stderr=err.getvalue(),
        type="error" if error is not None else "ok", error=error,
        execution_time=round(elapsed, 6), changed=changed, removed=removed,
        variables=tuple(cards(namespace, names=changed, preview_chars=preview_chars,
                              reveal=reveal)),
        dropped_chars=out.dropped + err.dropped,
    )


