"""Cells as text, and what every table adapter shares (the ``rows`` op's building blocks).

Cells become text by dtype: floats in their shortest round-trip form, dates compact
(``2024-10-02`` when a column's times in the window are all midnight), missing values
(None, NaN, NaT, pd.NA) as ``None`` so the grid can mark them; each cell is bounded and
every cut is counted.
"""

import datetime
import sys

from . import guard
from .display import cut, int_repr
from .inspectors import preview_of, type_name

#: Characters of a column or index label.
LABEL_CHARS = 200


class Lazy(Exception):
    """The value is lazy: a window would compute or consume it (the message says)."""


class NotTabular(Exception):
    """The value is not a table or an array (the message says what it is)."""


# --- cells ------------------------------------------------------------------------------


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


# --- adapters ---------------------------------------------------------------------------


class Adapter:
    """A value seen as rows × columns.  Subclasses read through ``session.run``."""

    kind = "dataframe"
    index_name = None

    def __init__(self, value, session):
        self.value = value
        self.session = session

    def run(self, fn, *args):
        return self.session.run(fn, *args)

    # shape and columns
    def total_rows(self):
        raise NotImplementedError

    def shape(self):
        return [self.total_rows()]

    def columns_total(self):
        return 1

    def column_labels(self, positions):
        """[(name text, dtype text)] of the columns at ``positions``."""
        return [("value", self.dtype_text())]

    def dtype_text(self):
        return None

    def column_names(self, n):
        """The first ``n`` column names as text, for finding a sort column."""
        return [name for name, _ in self.column_labels(range(n))]

    def column_values(self, position):
        """The whole column at ``position`` (a Series, an array or a list), for a filter."""
        raise NotImplementedError

    # windows
    def sort_order(self, position, descending):
        """Row positions in sorted order (a sequence of ints); missing values last."""
        raise NotImplementedError

    def window(self, rows, positions, cells):
        """(index labels, rows of cell text) for ``rows`` (a slice or row positions)."""
        raise NotImplementedError


def take_rows(seq, rows):
    return seq[rows] if type(rows) is slice else [seq[i] for i in rows]


def transpose(columns, n):
    return [[col[i] for col in columns] for i in range(n)]




class OneColumn:
    """Mixed into the adapters of one-column values (Series): their shape and names."""

    def columns_total(self):
        return 1

    def shape(self):
        return [self.total_rows()]

    def column_names(self, n):
        return [name for name, _ in self.column_labels(range(n))]
