"""numpy arrays and scalars: nested previews for 2-D and more (``np.matrix`` too), 0-d
arrays as ``array(5)``, readable dates and durations (``2024-01-01T12:00``, ``NaT``,
``1:00:00``), masked elements as ``--``.

Only the first items along each axis are read (``a[i]`` views, ``a[:k]``); never a
full repr.  numpy comes from ``sys.modules``: nothing is imported here.
"""

import sys

from . import display
from .base import Inspector, preview_of
from .display import cut

#: dtype kinds whose ``tolist()`` items are plain Python numbers (bool, int, float, complex).
PLAIN_DTYPE_KINDS = frozenset("biufc")
#: dtype kinds an exact ndarray is summarised from without a time guard (numpy's own
#: code only): numbers, dates and durations.
SAFE_DTYPE_KINDS = frozenset("biufcmM")
MASKED = "--"
_NS_PER_DAY = 86_400 * 10**9
#: Nanoseconds per numpy time unit (finer ones as fractions, then cut by ``_ns_text``).
_NS_PER_UNIT = {
    "W": 7 * _NS_PER_DAY,
    "D": _NS_PER_DAY,
    "h": 3600 * 10**9,
    "m": 60 * 10**9,
    "s": 10**9,
    "ms": 10**6,
    "us": 10**3,
    "ns": 1,
    "ps": 1e-3,
    "fs": 1e-6,
    "as": 1e-9,
}


def short_floats(values):
    """Floats at 6 significant digits: a float32 preview shows 1.564, not 1.5639986991882324."""
    return [float("%.6g" % x) if type(x) is float else x for x in values]


class Raw:
    """Text shown as is in a preview (a date, a duration, a masked marker)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def elem_text(x, limit, depth=0, ctx=None):
    if type(x) is Raw:
        return cut(x.text, limit)
    return preview_of(x, limit, depth, ctx)


def values_repr(values, total, limit, ctx=None, opener="[", closer="]"):
    ctx = ctx or display.Ctx()
    return display.items_repr(opener, closer, iter(values), total, limit, 0, ctx, elem_text, "[]")


def _ns_text(ns):
    """A duration in nanoseconds as ``str(datetime.timedelta)`` does, to the nanosecond."""
    sign = "-" if ns < 0 else ""
    days, rest = divmod(abs(ns), _NS_PER_DAY)
    secs, frac = divmod(rest, 10**9)
    h, secs = divmod(secs, 3600)
    m, s = divmod(secs, 60)
    text = "%d:%02d:%02d" % (h, m, s)
    if frac:
        text += ("." + "%09d" % frac).rstrip("0")
    if days:
        text = "%d day%s, %s" % (days, "" if days == 1 else "s", text)
    return sign + text


def leaf_values(np, a, k):
    """The first ``k`` items of a 1-D array as previewable values."""
    head = a[:k]
    kind = a.dtype.kind
    if kind == "M":
        return [Raw(t) for t in np.datetime_as_string(head, unit="auto").tolist()]
    if kind == "m":
        unit, count = np.datetime_data(a.dtype)
        if unit in ("Y", "M", "generic"):
            return [Raw(str(x)) for x in head]  # calendar spans: 3 months
        scale = _NS_PER_UNIT[unit] * count
        ints = head.view("int64").tolist()
        nat = np.isnat(head).tolist()
        return [Raw("NaT" if n else _ns_text(int(i * scale))) for i, n in zip(ints, nat)]
    values = head.tolist()
    if kind in PLAIN_DTYPE_KINDS:
        values = short_floats(values)
    mask = getattr(np, "ma", None)
    if mask is not None and isinstance(a, mask.MaskedArray):
        flags = mask.getmaskarray(head).tolist()
        values = [Raw(MASKED) if f else x for x, f in zip(values, flags)]
    return values


def nested_repr(np, a, limit, depth, ctx):
    """``[[1, 2], [3, 4]]``: rows of the first axis, each bounded, recursively."""
    n = int(a.shape[0])
    if a.ndim == 1:
        return values_repr(leaf_values(np, a, min(ctx.max_items, n)), n, limit, ctx)

    def rows():
        for i in range(n):
            yield a[i]

    def row(sub, room, depth, ctx):
        return nested_repr(np, sub, room, depth, ctx)

    return display.items_repr("[", "]", rows(), n, limit, depth, ctx, row, "[]")


class ShapedInspector(Inspector):
    """Objects with ``size`` (elements) and ``shape`` attributes: arrays and tables."""

    def size(self, v):
        return int(v.size)

    cheap_size = size

    def shape(self, v):
        return list(v.shape)


class NdarrayInspector(ShapedInspector):
    kind = "array"

    def safe_for(self, v):
        # An exact ndarray of numbers or dates: numpy's own code, O(first items).
        np = sys.modules.get("numpy")
        return np is not None and type(v) is np.ndarray and v.dtype.kind in SAFE_DTYPE_KINDS

    def dtype(self, v):
        return str(v.dtype)

    def nbytes(self, v):
        return int(v.nbytes)

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        np = sys.modules["numpy"]
        if type(v) is not np.ndarray and isinstance(v, np.matrix):
            v = v.view(np.ndarray)  # rows of a matrix are matrices: use plain views
        if v.ndim == 0:
            text, truncated = values_repr(leaf_values(np, v.reshape(1), 1), 1, limit, ctx)
            return cut("array(" + text[1:-1] + ")", limit)[0], truncated
        return nested_repr(np, v, limit, depth, ctx)

    def fingerprint(self, v):
        return ("array", tuple(v.shape), str(v.dtype), v.__array_interface__["data"][0])

    def children(self, v):
        if v.ndim == 0:
            return None
        n = int(v.shape[0])
        return ((("i:%d" % i, "[%d]" % i, v[i]) for i in range(n)), n)

    def child(self, v, key):
        if key.startswith("i:") and key[2:].isdigit() and v.ndim > 0:
            i = int(key[2:])
            if i < v.shape[0]:
                return v[i]
        raise LookupError(key)


class NumpyScalarInspector(Inspector):
    mutable = False

    def __init__(self, kind):
        self.kind = kind

    def safe_for(self, v):
        # numpy's own scalar types only: a subclass may override __str__.
        t = type(v)
        return type.__dict__["__module__"].__get__(t) == "numpy"

    def dtype(self, v):
        return str(v.dtype)

    def nbytes(self, v):
        return int(v.nbytes)

    def preview(self, v, limit, depth=0, ctx=None):
        if self.kind == "string":
            return display.text_repr(str(v), limit)
        if v.dtype.kind in "mM":  # as in an array: 2024-01-01T12:00, 0:00:05, NaT
            np = sys.modules["numpy"]
            return elem_text(leaf_values(np, np.array([v]), 1)[0], limit)
        return cut(str(v), limit)

    def fingerprint(self, v):
        if self.kind in ("number", "boolean"):
            x = v.item()
            return (str(v.dtype), x if x == x else "nan")
        return (str(v.dtype), id(v))


def numpy_scalar_kind(m, np):
    if np.bool_ in m:
        return "boolean"
    if np.str_ in m:
        return "string"
    if np.bytes_ in m:
        return "bytes"
    if np.timedelta64 in m or np.datetime64 in m:
        return "object"  # a point or span in time, like datetime.datetime/timedelta
    if np.number in m:
        return "number"
    return "object"


NDARRAY = NdarrayInspector()
