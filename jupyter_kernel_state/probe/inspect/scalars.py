"""Inspectors for builtin atomic values: None, numbers, text, bytes and byte buffers.

Their reprs are builtin code (``safe``), except Decimal's and Fraction's: stdlib code
whose repr can be long, kept under the time guard.  Text and bytes are read with unbound
base methods (``str.__len__(v)``) so overrides in subclasses are never called.  This
module registers these types' inspectors in ``BY_TYPE``.
"""

import datetime
import decimal
import fractions

from . import display
from .base import BY_TYPE, Inspector
from .display import cut

# --- scalars --------------------------------------------------------------------------


class NoneInspector(Inspector):
    kind = "none"
    safe = True
    mutable = False

    def preview(self, v, limit, depth=0, ctx=None):
        return cut("None", limit)

    def fingerprint(self, v):
        return None

    def children(self, v):
        return None


class ScalarInspector(NoneInspector):
    kind = "number"

    def preview(self, v, limit, depth=0, ctx=None):
        return cut(repr(v), limit)

    def fingerprint(self, v):
        # The value itself: ids of freed floats are reused at once.  NaN != NaN.
        return v if v == v else "nan"


class BoolInspector(ScalarInspector):
    kind = "boolean"


class IntInspector(ScalarInspector):
    def preview(self, v, limit, depth=0, ctx=None):
        return display.int_repr(v, limit)

    def fingerprint(self, v):
        v = int.__index__(v)
        if -_BIG <= v < _BIG:
            return v
        return (v.bit_length(), v & (_BIG - 1))


_BIG = 1 << 63


class BigNumberInspector(ScalarInspector):
    """Decimal / Fraction: repr is stdlib code but can be long; keep it guarded."""

    safe = False

    def fingerprint(self, v):
        if type(v) is fractions.Fraction:
            return (v.numerator, v.denominator)
        return v.as_tuple() if type(v) is decimal.Decimal else None


# --- text and bytes -------------------------------------------------------------------


class StrInspector(NoneInspector):
    kind = "string"

    def size(self, v):
        return str.__len__(v)

    cheap_size = size

    def preview(self, v, limit, depth=0, ctx=None):
        return display.text_repr(v, limit)

    def fingerprint(self, v):
        return (str.__len__(v), str.__getitem__(v, _HEAD), str.__getitem__(v, _TAIL))


_HEAD = slice(0, 8)
_TAIL = slice(-8, None)


class BytesInspector(NoneInspector):
    kind = "bytes"
    size_safe = True

    def __init__(self, base=bytes):
        self.base = base

    def size(self, v):
        return self.base.__len__(v)

    cheap_size = size
    nbytes = size

    def fingerprint(self, v):
        base = self.base
        return (base.__len__(v), base.__getitem__(v, _HEAD), base.__getitem__(v, _TAIL))

    def preview(self, v, limit, depth=0, ctx=None):
        if self.base is bytes:
            return display.bytes_repr(v, limit)
        return display.bytes_repr(v, limit, "bytearray(", ")")


class MutableBytesInspector(BytesInspector):
    mutable = True

    def fingerprint(self, v):
        return ("len", self.base.__len__(v), None)


class MemoryviewInspector(MutableBytesInspector):
    def __init__(self):
        self.base = memoryview

    def size(self, v):
        return len(v)

    cheap_size = size

    def shape(self, v):
        return list(v.shape)

    def dtype(self, v):
        return v.format

    def nbytes(self, v):
        return v.nbytes

    def preview(self, v, limit, depth=0, ctx=None):
        return cut("<memoryview format={!r} shape={}>".format(v.format, tuple(v.shape)), limit)


class DateInspector(Inspector):
    """Dates and times as their ISO text, compact: ``2024-10-02`` for midnight,
    ``2024-10-02 13:45:00`` otherwise (not ``Timestamp('2024-10-02 00:00:00')``).
    ``isoformat`` may be a subclass's (pandas): kept under the time guard."""

    mutable = False

    def preview(self, v, limit, depth=0, ctx=None):
        return cut(date_text(v), limit)

    def fingerprint(self, v):
        return None


def date_text(v):
    if isinstance(v, datetime.datetime):
        text = v.isoformat(" ")
        return text[:-9] if text.endswith(" 00:00:00") else text
    return v.isoformat()


DATE = DateInspector()

BY_TYPE.update(
    {
        datetime.datetime: DATE,
        datetime.date: DATE,
        type(None): NoneInspector(),
        bool: BoolInspector(),
        int: IntInspector(),
        float: ScalarInspector(),
        complex: ScalarInspector(),
        decimal.Decimal: BigNumberInspector(),
        fractions.Fraction: BigNumberInspector(),
        str: StrInspector(),
        bytes: BytesInspector(),
        bytearray: MutableBytesInspector(bytearray),
        memoryview: MemoryviewInspector(),
    }
)
