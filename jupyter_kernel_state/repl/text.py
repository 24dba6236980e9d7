"""Bounds and text helpers shared by the REPL types (cuts, fences, notes, masking)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from ..probe import entry as _entry
from ..probe import guard as _guard
from ..probe.inspect import base as _inspectors
from ..probe.namespace import visibility as _namespace
from ..secrets import mask_values

# The probe is untyped (it runs inside kernels, stdlib only): its entry points, typed.
_summarize: Callable[..., dict[str, Any]] = _entry.summarize
_guard_session: Callable[[int, int], Any] = _guard.session
_visible: Callable[..., list[tuple[str, Any]]] = _namespace.visible
_inspector_for: Callable[[type], Any] = _inspectors.inspector_for

#: Preview characters of a card (the seed's default; the probe caps at 10,000).
PREVIEW_CHARS = 500
MAX_PREVIEW_CHARS = 10_000
#: Time allowed to one value's ``__repr__``/``__len__``, and to all the cards of one call.
TIME_GUARD_MS = 100
BUDGET_MS = 2_000
#: A shallow size (``memory``) from which a card mentions it (``nbytes`` always is).
BIG_MEMORY = 1_000_000
#: Cards made by one ``cards()`` call at most.
MAX_CARDS = 100
#: Step outputs longer than this are cut in ``format`` (with ``TRUNCATED``).
MAX_OUTPUT_CHARS = 2_000
#: Code longer than this is cut in ``format``.
MAX_CODE_CHARS = 10_000
#: Steps shown by ``History.format``.
MAX_STEPS = 10
#: Description and constraints are cut to this many characters.
MAX_NOTE_CHARS = 2_000
#: Output captured by ``run`` at most (per stream); the rest is counted, not kept.
MAX_CAPTURE_CHARS = 1_000_000
#: The marker that ends a cut output: ``... (truncated: 1,234 more characters)``.
TRUNCATED = "\n... (truncated: {omitted:,} more characters)"
NO_STEPS = "(No prior steps)"
#: Groups of names ``cards`` skips unless included, as the probe does.
INCLUDE_GROUPS = ("private", "modules", "callables", "classes")
_UNITS = {"string": "characters", "bytes": "bytes", "mapping": "keys"}


def cut(text: str, max_chars: int) -> str:
    """``text``, or its first ``max_chars`` characters and the ``TRUNCATED`` marker."""
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + TRUNCATED.format(omitted=len(text) - max_chars)


def masked_cut(text: str, max_chars: int) -> str:
    """``cut`` after masking credential-looking substrings (scanning a bounded window:
    a secret straddling the cut is still recognised)."""
    omitted = len(text) - max_chars
    if omitted <= 0:
        return mask_values(text)
    return mask_values(text[: max_chars + 256])[:max_chars] + TRUNCATED.format(omitted=omitted)


def _fence(text: str) -> str:
    """A Markdown fence longer than any run of backticks in ``text``."""
    n = 3
    while "`" * n in text:
        n += 1
    return "`" * n


def _block(text: str, lang: str = "") -> list[str]:
    fence = _fence(text)
    return [fence + lang, text, fence]


def _note(text: str | None) -> str:
    return "" if text is None else str(text)[:MAX_NOTE_CHARS]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (unknown objects become ``"<TypeName>"``)."""
    return json.loads(json.dumps(value, default=lambda o: f"<{type(o).__name__}>"))


