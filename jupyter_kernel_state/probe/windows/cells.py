"""Cells as text, for the ``rows`` op's windows.

Cells become text by dtype: floats in their shortest round-trip form, dates compact
(``2024-10-02`` when a column's times in the window are all midnight), missing values
(None, NaN, NaT, pd.NA) as ``None`` so the grid can mark them; each cell is bounded and
every cut is counted.
"""

import datetime
import sys

from .. import guard
from ..inspect.base import preview_of, type_name
from ..inspect.display import cut, int_repr


class Cells:
    """Cell text with a bound, counting what was cut.  A value's own ``__repr__`` runs
    under the time guard, one cell at a time (``session``)."""

    def __init__(self, limit, session, guard_ms):
        self.limit = limit
        self.session = session
        self.guard_ms = guard_ms
        self.truncated = 0
        self.unread = 0

    def text(self, x):
        if x is None:
            return None
        t = type(x)
        if t is str:
            text, cut_ = cut(x, self.limit)
        elif t is float:
            if x != x:
                return None
            text, cut_ = cut(repr(x), self.limit)
        elif t is bool:
            text, cut_ = repr(x), False
        elif t is int:
            text, cut_ = int_repr(x, self.limit)
        elif _is_missing(x):
            return None
        elif _is_numpy_scalar(x):
            text, cut_ = cut(_numpy_text(x), self.limit)
        else:
            text, cut_ = self._guarded(x)
        if cut_:
            self.truncated += 1
        return text

    def _guarded(self, x):
        try:
            return self.session.run_within(self.guard_ms, preview_of, x, self.limit)
        except guard.ProbeTimeout:
            reason = "repr timed out"
        except guard.BudgetExhausted:
            reason = "not read: time budget exhausted"
        except guard.GuardUnavailable as exc:
            reason = str(exc)
        self.unread += 1
        return cut("<{} object: {}>".format(type_name(type(x)), reason), self.limit)

    def numbers(self, values):
        """Cells of a numpy bool, int or float64 column (``tolist()``: Python values)."""
        if self.limit < 32 or not values or type(values[0]) not in (float, int, bool):
            return [self.text(x) for x in values]
        return [None if x != x else repr(x) for x in values]  # NaN != NaN

    def column(self, values, dates=False):
        """Cells of one column; ``dates``: a date column, its text compact as a whole."""
        if not dates:
            return [self.text(x) for x in values]
        return compact_dates([self._date(x) for x in values])

    def _date(self, x):
        if x is None or _is_missing(x):
            return None
        if _is_numpy_scalar(x):
            return _numpy_text(x)
        if type(x) in (datetime.datetime, datetime.date) or _is_timestamp(x):
            return str(x)  # C code, or pandas' own
        return self.text(x)


def _is_timestamp(x):
    pd = sys.modules.get("pandas")
    return pd is not None and type(x) is getattr(pd, "Timestamp", None)


def _is_missing(x):
    pd = sys.modules.get("pandas")
    if pd is not None and (x is getattr(pd, "NaT", None) or x is getattr(pd, "NA", None)):
        return True
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.generic):
        kind = x.dtype.kind
        if kind == "f" or kind == "c":
            return bool(x != x)
        if kind in "mM":
            return bool(np.isnat(x))
    return False


def _numpy_text(x):
    if x.dtype.kind == "M":
        np = sys.modules["numpy"]
        whole = x.astype("datetime64[s]")
        text = str(np.datetime_as_string(whole if whole == x else x))
        return text.replace("T", " ")
    return str(x)


def _is_numpy_scalar(x):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.generic)


def compact_dates(texts):
    """Dates without their time when every date of the window is at midnight."""
    present = [t for t in texts if t is not None]
    if present and all(t.endswith(" 00:00:00") for t in present):
        return [None if t is None else t[:-9] for t in texts]
    return texts


def dtype_is_date(dtype):
    if getattr(dtype, "kind", "") == "M":
        return True
    return str(dtype).startswith(("datetime", "Datetime", "Date"))
