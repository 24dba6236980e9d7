"""Bounded text for values.  Every function returns ``(text, truncated)``.

Containers show their first items only, each element bounded recursively (depth limit,
cycle guard); strings and bytes are sliced before ``repr``.  The element formatter is
passed in (``elem``) so this module knows nothing about the inspector dispatch.
"""

import itertools
import sys

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
    """Per-preview state: ids on the current path (cycle guard) and the item budget."""

    __slots__ = ("max_items", "seen")

    def __init__(self, max_items=MAX_ITEMS):
        self.seen = set()
        self.max_items = max_items


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
    shown = 0
    for value in itertools.islice(values, ctx.max_items):
        room = limit - used - 2
        if room <= 2:
            truncated = True
            break
        text, t = elem(value, room, depth + 1, ctx)
        truncated = truncated or t
        parts.append(text)
        used += len(text) + 2
        shown += 1
    return _finish(opener, closer, parts, shown, total, limit, truncated, ctx.max_items)


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
    text, t = cut(opener + body + closer, limit)
    return text, truncated or t


def pairs_repr(opener, closer, pairs, total, limit, depth, ctx, elem, sep=": ", key_elem=None):
    """``{k: v, … N more}`` from an iterator of (key, value) pairs."""
    key_elem = key_elem or elem

    def pair(kv, room, depth, ctx):
        key, value = kv
        ktext, kt = key_elem(key, max(8, room // 3), depth, ctx)
        vtext, vt = elem(value, max(4, room - len(ktext) - len(sep)), depth, ctx)
        return ktext + sep + vtext, kt or vt

    return items_repr(opener, closer, pairs, total, limit, depth, ctx, pair)


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
