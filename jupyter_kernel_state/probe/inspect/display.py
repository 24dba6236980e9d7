"""Bounded text for values.  Every function returns ``(text, truncated)``.

Containers show their first items only, each element bounded recursively (depth limit,
cycle guard); strings and bytes are sliced before ``repr``.  The element formatter is
passed in (``elem``) so this module knows nothing about the inspector dispatch.

A container cut by its character limit is cut between elements: its whole elements, then
one ellipsis (``[1.5, -0.25, …``), never inside a number or a name (an element that does
not fit whole is left out; a nested container cut the same way may end it).  One cut by
its item count says how many are left (``[0, 1, … 98 more]``).  A value under a key, an
attribute or a field whose name looks like a credential reads ``[masked]`` unless the
context reveals it (``Ctx.reveal``); ``Ctx.secrets`` counts them either way.
"""

import itertools
import sys

from .secrets import MASK, SECRET_NAME, secret_key

#: Items shown in a container preview before "… N more".
MAX_ITEMS = 20
#: Nesting shown before a container collapses to "[…]".
MAX_DEPTH = 3
#: Ints above this many bits are not converted to decimal (quadratic, and limited).
MAX_INT_BITS = 12_000
ELLIPSIS = "…"


def cut(text, limit):
    """Cut an exact ``str`` to ``limit`` characters, marking the cut with an ellipsis."""
    if len(text) <= limit:
        return text, False
    if limit <= 1:
        return ELLIPSIS[:limit], True
    return text[: limit - 1] + ELLIPSIS, True


def as_str(value):
    """An exact ``str`` copy of a str subclass (no user ``__getitem__``/``__len__``)."""
    if type(value) is str:
        return value
    return str.__getitem__(value, slice(None))


def text_repr(s, limit):
    """repr of a str, slicing first so a 100 MB string costs nothing."""
    s = as_str(s)
    head = s[: limit + 1]
    return _quoted(repr(head), len(head) < len(s), limit)


def bytes_repr(b, limit, prefix="", suffix=""):
    """repr of bytes-like ``b`` (sliced first), optionally wrapped: ``bytearray(b'…')``."""
    head = bytes(b[: limit + 1])
    return _quoted(repr(head), len(head) < len(b), limit, prefix, suffix)


def _quoted(r, sliced, limit, prefix="", suffix=""):
    room = limit - len(prefix) - len(suffix)
    if sliced or len(r) > room:
        body = r[:-1][: max(0, room - 2)]
        return cut(prefix + body + ELLIPSIS + r[-1] + suffix, limit)[0], True
    return cut(prefix + r + suffix, limit)


def int_repr(value, limit):
    value = int.__index__(value)
    bits = value.bit_length()
    if bits > MAX_INT_BITS:
        digits = int(bits * 0.30103) + 1
        return cut("<int with about {:,} digits>".format(digits), limit)[0], True
    return cut(int.__repr__(value), limit)


def count(n):
    return "{:,}".format(n)


class Ctx:
    """Per-preview state: ids on the current path (cycle guard), the item budget, whether
    values under credential-like keys are shown (``reveal``) and how many were found."""

    __slots__ = ("max_items", "reveal", "secrets", "seen")

    def __init__(self, max_items=MAX_ITEMS, reveal=False):
        self.seen = set()
        self.max_items = max_items
        self.reveal = reveal
        self.secrets = 0  # values under a credential-like key met (masked unless reveal)


def items_repr(opener, closer, values, total, limit, depth, ctx, elem, empty=None):
    """``[a, b, … N more]`` from an iterator of values (only the first few are read).

    ``total`` is the container length when known (else None); ``elem(v, limit, depth,
    ctx)`` formats one element.
    """
    if total == 0 and empty is not None:
        return cut(empty, limit)
    parts = []
    used = len(opener) + len(closer)
    truncated = False
    for value in itertools.islice(values, ctx.max_items):
        room = limit - used - 2
        if room <= 2:
            return cut_between(opener, parts, limit), True
        text, t = elem(value, room, depth + 1, ctx)
        if t and text.endswith(_CUT_ENDS):
            if text.endswith(_CUT_TAIL) and len(text) > len(_CUT_TAIL):
                parts.append(text)  # a nested container cut between its elements: the end
                return opener + ", ".join(parts), True
            if parts or text.endswith(ELLIPSIS):
                # cut inside a token (a number, a name), or text cut short after whole
                # elements: left out, the container ends after the last whole one
                return cut_between(opener, parts, limit), True
        truncated = truncated or t
        parts.append(text)
        used += len(text) + 2
    return _finish(opener, closer, parts, len(parts), total, limit, truncated, ctx.max_items)


#: Element types whose ``repr`` is builtin C code of bounded size (checked with ``type()``).
PLAIN_TYPES = frozenset((int, float, str, bool, type(None)))
_PLAIN_INT = 1 << 64


def plain_reprs(items, limit):
    """``repr`` of each item when every one is a plain scalar (exact int/float/str/bool/
    None) short enough never to need slicing; else None.  Runs no user code."""
    if not PLAIN_TYPES.issuperset(map(type, items)):
        return None
    for x in items:
        t = type(x)
        if (t is str and len(x) > limit) or (t is int and not -_PLAIN_INT < x < _PLAIN_INT):
            return None
    return list(map(repr, items))


def plain_items_repr(opener, closer, reprs, total, limit, max_items, empty=None, pair_reprs=None):
    """What :func:`items_repr` (or :func:`pairs_repr` when ``pair_reprs`` holds the value
    reprs) returns for plain elements whose ``repr`` is given, or None when some element
    would be cut (the general path then does it).  Same room arithmetic, same text."""
    if total == 0 and empty is not None:
        return cut(empty, limit)
    parts = []
    used = len(opener) + len(closer)
    for i, text in enumerate(reprs):
        room = limit - used - 2
        if room <= 2:
            return None
        if pair_reprs is not None:
            if len(text) > max(8, room // 3):
                return None
            value = pair_reprs[i]
            if len(value) > max(4, room - len(text) - 2):
                return None
            text = text + ": " + value
        elif len(text) > room:
            return None
        parts.append(text)
        used += len(text) + 2
    return _finish(opener, closer, parts, len(parts), total, limit, False, max_items)


def _finish(opener, closer, parts, shown, total, limit, truncated, max_items):
    """The items shown, closed, with ``… N more`` when some are not; cut between
    elements (:func:`cut_between`) when that does not fit ``limit``."""
    more = None
    if total is not None and total > shown:
        more = total - shown
    elif total is None and shown == max_items:
        more = -1
    body = ", ".join(parts)
    if more is not None:
        tail = ELLIPSIS + (" {} more".format(count(more)) if more > 0 else "")
        body = body + ", " + tail if body else tail
        truncated = True
    elif len(parts) == 1 and opener == "(":
        body += ","
    text = opener + body + closer
    if len(text) <= limit:
        return text, truncated
    return cut_between(opener, parts, limit), True


#: How a container cut between its elements ends.
_CUT_TAIL = ", " + ELLIPSIS
#: How an element cut by the room it was given ends: inside a token, or a quoted text
#: cut short (``'hello wor…'``, kept only as a container's first element).
_CUT_ENDS = (ELLIPSIS, ELLIPSIS + "'", ELLIPSIS + '"')


def cut_between(opener, parts, limit):
    """``opener`` and the first of ``parts`` (whole elements' texts) that fit ``limit``
    with one ellipsis after them: ``[1.5, -0.25, …``; ``[…`` when none fits."""
    used = len(opener) + len(_CUT_TAIL) - 2  # with k parts: + sum of their lengths + 2k
    keep = 0
    for text in parts:
        if used + len(text) + 2 > limit:
            break
        used += len(text) + 2
        keep += 1
    if keep:
        return opener + ", ".join(parts[:keep]) + _CUT_TAIL
    return cut(opener + ELLIPSIS, limit)[0]


def pairs_repr(opener, closer, pairs, total, limit, depth, ctx, elem, sep=": ", key_elem=None):
    """``{k: v, … N more}`` from an iterator of (key, value) pairs; a value whose key
    looks like a credential's is ``[masked]`` (unless ``ctx.reveal``), a key cut inside
    leaves its pair out."""
    key_elem = key_elem or elem

    def pair(kv, room, depth, ctx):
        key, value = kv
        ktext, kt = key_elem(key, max(8, room // 3), depth, ctx)
        if kt and ktext.endswith(ELLIPSIS):
            return ELLIPSIS, True  # a key cut inside a token: not shown
        if secret_key(key):
            ctx.secrets += 1
            if not ctx.reveal:
                return ktext + sep + MASK, False
        vtext, vt = elem(value, max(4, room - len(ktext) - len(sep)), depth, ctx)
        return ktext + sep + vtext, kt or vt

    return items_repr(opener, closer, pairs, total, limit, depth, ctx, pair)


def mask_pairs(keys, key_reprs, value_reprs, ctx):
    """The plain-pairs path's masking: ``value_reprs`` with the values under
    credential-like keys masked (counted in ``ctx``); one regex pass over the keys' reprs
    proves there are none (the usual case)."""
    if SECRET_NAME.search("\n".join(key_reprs)) is None:
        return value_reprs
    out = list(value_reprs)
    for i, key in enumerate(keys):
        if secret_key(key):
            ctx.secrets += 1
            if not ctx.reveal:
                out[i] = MASK
    return out


def enter(value, depth, ctx):
    """Cycle and depth guard: the placeholder to show instead, or None to go on."""
    if depth > MAX_DEPTH:
        return ELLIPSIS
    if id(value) in ctx.seen:
        return "..."
    return None


def getsizeof(value):
    try:
        return sys.getsizeof(value)
    except Exception:
        return None
