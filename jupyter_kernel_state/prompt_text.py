"""Text primitives of the assistant's prompt: escaping, counts, name order, and cuts that
never land inside a number, a name or a quoted string (pure; no I/O).

Two kinds of text are cut here. *Values* (a preview, the repr of a container or object)
are cut at an element boundary — before a ``,`` or after a closing bracket — and end with
one ellipsis: ``[[0.12573, -0.132105, …``. *Prose* (a change line, a timeline, a step's
output) is cut after a whole item (``; ``, ``, ``) or word. A preview the probe already
cut inside a token (``… 23…, …``, ``2024-07…: 212837``) is brought back to its last whole
element the same way (:func:`repair_value`).

Nothing here imports the rest of the prompt: ``prompt_lines`` and ``prompt_sections``
build on it, ``prompt`` assembles them.
"""

from __future__ import annotations

import re

ELLIPSIS = "…"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")
_DIGITS = re.compile(r"(\d+)")
_OPENERS = {"[": "]", "(": ")", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())
#: Characters after which a quote opens a string (else it is an apostrophe: "don't").
_QUOTE_AFTER = frozenset(" \t([{,:=")
_STRING_PREFIX = frozenset("bBrRuUfF")


def escape(text: str) -> str:
    """One line of untrusted text: newlines and control characters escaped."""
    text = text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


def clean(text: str, limit: int) -> str:
    """One line of untrusted prose: escaped, then cut after a whole word (:func:`cut_prose`)."""
    return cut_prose(escape(text), limit)


def fmt_count(value: int) -> str:
    return f"{value:,}"


def natural(name: str) -> tuple[object, ...]:
    """'v2' before 'v10'."""
    return tuple(int(part) if part.isdigit() else part.lower() for part in _DIGITS.split(name))


def listing(names: list[str], count: int, limit: int) -> str:
    """``a, b, c and 12 more``: as many of ``names`` as fit in ``limit`` characters, each
    whole (never a cut name), the rest of ``count`` counted; "" when not one fits."""
    text = ""
    for k in range(1, len(names) + 1):
        more = count - k
        trial = ", ".join(names[:k]) + (f" and {fmt_count(more)} more" if more > 0 else "")
        if len(trial) > limit:
            break
        text = trial
    return text


# -- prose ----------------------------------------------------------------------------


def cut_prose(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters after a whole item (``; ``, ``, ``) or word,
    ending with one ellipsis (never ``…,`` nor a cut number); ``…`` when not even one word
    fits."""
    if len(text) <= limit:
        return text
    if limit < 1:
        return ""
    head = text[: limit - 1]  # a kept part of at most limit - 2, then " …"
    found = [head.rfind(pattern) for pattern in ("; ", ", ", " ")]
    # An item boundary in the second half, else the last word boundary.
    at = next((a for a in found if a >= limit // 2), max(found))
    kept = head[:at].rstrip(" ,;:—→-") if at > 0 else ""
    if not kept:
        return ELLIPSIS
    return kept if kept.endswith(ELLIPSIS) else kept + " " + ELLIPSIS


def cut_lines(text: str, limit: int) -> tuple[str, int]:
    """``text`` (several lines) cut to at most ``limit`` characters after a whole line,
    else after a word, with no ellipsis: ``(text, characters left out)`` — the caller says
    what was left out."""
    if len(text) <= limit:
        return text, 0
    head = text[: limit + 1]
    at = head.rfind("\n")
    if at <= limit // 2:
        at = max(head.rfind(" "), head.rfind("\t"))
    kept = text[:at].rstrip() if at > 0 else ""
    return kept, len(text) - len(kept)


# -- values ---------------------------------------------------------------------------

_MORE_MARKER = re.compile(r" [0-9,]+ more")


class _Scan:
    """One pass over a repr-like text: where its elements end (``cuts``: a position and
    the ellipsis to add there, in order) and, with ``find_damage``, where the text was
    already cut inside a token (``damage``; the scan stops there)."""

    def __init__(self, text: str, find_damage: bool) -> None:
        self.text = text
        self.find_damage = find_damage
        self.cuts: list[tuple[int, str]] = []
        self.damage: int | None = None
        #: Where a quoted string opens that the text never closes.
        self.open_string: int | None = None
        self._scan()

    def _string_end(self, i: int) -> int | None:
        """The index after the closing quote of the string opened at ``i``, or None."""
        text, quote, j = self.text, self.text[i], i + 1
        while j < len(text):
            if text[j] == "\\":
                j += 2
                continue
            if text[j] == quote:
                return j + 1
            j += 1
        return None

    def _opens_string(self, i: int) -> bool:
        j = i
        while j > 0 and i - j < 2 and self.text[j - 1] in _STRING_PREFIX:
            j -= 1
        return j == 0 or self.text[j - 1] in _QUOTE_AFTER

    def _scan(self) -> None:
        text = self.text
        depth = 0
        i = 0
        while i < len(text):
            ch = text[i]
            if ch in "'\"" and self._opens_string(i):
                end = self._string_end(i)
                if end is None:
                    self.open_string = self.damage = i
                    return
                i = end
                continue
            if ch in _OPENERS:
                depth += 1
                self.cuts.append((i + 1, ELLIPSIS))
            elif ch in _CLOSERS:
                depth = max(0, depth - 1)
                self.cuts.append((i + 1, " " + ELLIPSIS))
            elif ch == ",":
                self.cuts.append((i, ", " + ELLIPSIS))
            elif ch == " " and depth == 0 and i > 0 and text[i - 1] not in " ,":
                self.cuts.append((i, " " + ELLIPSIS))  # a word of top-level text
            elif ch == ELLIPSIS and self.find_damage and self._cut_inside(i):
                self.damage = i
                return
            i += 1

    def _cut_inside(self, i: int) -> bool:
        """An ellipsis glued to the token before it (``23…``), or a "… N more" marker
        followed by more elements (the bracket that closed it was cut away)."""
        text = self.text
        if i > 0 and text[i - 1] not in " ([{":
            return True
        marker = _MORE_MARKER.match(text, i + 1)
        return text.startswith(",", marker.end() if marker else i + 1)


def _ending(text: str, cut: tuple[int, str]) -> str:
    at, tail = cut
    if tail == ELLIPSIS:  # right after an opening bracket
        return text[:at] + ELLIPSIS
    kept = text[:at].rstrip(" ,")
    return kept if kept.endswith(ELLIPSIS) else kept + tail  # never a second ellipsis


def _word_cut(head: str) -> str:
    at = head.rstrip().rfind(" ")
    kept = head[:at].rstrip(" ,") if at > 0 else ""
    return kept + " " + ELLIPSIS if kept else ELLIPSIS


def repair_value(text: str) -> str:
    """A preview cut inside a token brought back to its last whole element, with one
    ellipsis: ``[[1.5, -0.25, … 23…, …`` → ``[[1.5, -0.25, …``; a sound one as it is. A
    lone string left open is closed: ``'hello wor…`` → ``'hello wor…'``."""
    scan = _Scan(text, find_damage=True)
    if scan.damage is None:
        return text
    start = scan.open_string
    if start is not None and all(c in _STRING_PREFIX for c in text[:start]):
        return text + ("" if text.endswith(ELLIPSIS) else ELLIPSIS) + text[start]
    cuts = [c for c in scan.cuts if c[0] <= scan.damage]
    return _ending(text, cuts[-1]) if cuts else _word_cut(text[: scan.damage])


def fit_value(text: str, limit: int) -> str:
    """A sound preview within ``limit`` characters: cut at its last element boundary that
    leaves room for the ellipsis; a lone quoted string is cut inside, after a word, and
    closed (``'hello world…'``); ``…`` when nothing whole fits."""
    if len(text) <= limit:
        return text
    if limit < 1:
        return ""
    best = ""
    for cut in _Scan(text, find_damage=False).cuts:
        if cut[0] > limit:
            break
        candidate = _ending(text, cut)
        if len(candidate) <= limit:
            best = candidate
    if best:
        return best
    quote = text[:1]
    if quote in ("'", '"') and limit >= 4:  # one long string: cut inside it, closed
        body = cut_prose(text[1:], limit - 2)
        return quote + (body if body.endswith(ELLIPSIS) else body + ELLIPSIS)[: limit - 2] + quote
    return cut_prose(text, limit)
