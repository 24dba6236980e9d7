"""What a column holds, and a filter's values read as that type.

A column's *family* says how its values compare: ``integer``, ``float``, ``boolean``,
``string``, ``category``, ``datetime`` (pandas and polars times, maybe with a time
zone), ``timedelta``, ``date`` and ``pydatetime`` (Python objects in an object column),
or ``other`` (values compared as given).  A condition's value — text, a number or
true/false — is read as its column's family (:func:`typed`); a value that does not fit
is a :class:`BadFilter` naming the column and its dtype (the user's 400).
"""

import datetime
import re
import sys

_INT = re.compile(r"^[+-]?[0-9]+$")


class BadFilter(Exception):
    """A filter that does not fit its column (the message says which, and why)."""


class Column:
    """One column as a filter sees it: its name (for messages), dtype text, family, the
    library that holds it (pandas, polars, or none: "plain"), and what reading a value
    needs (``tz``: the column's time zone; ``inner``: a category column's categories as a
    Column; ``ordered``; ``categories``)."""

    def __init__(self, name, dtype, family, library="pandas", tz=None, inner=None,
                 ordered=False, categories=None):
        self.name, self.dtype, self.family, self.library = name, dtype, family, library
        self.tz, self.inner, self.ordered, self.categories = tz, inner, ordered, categories

    def describe(self):
        return "{} ({})".format(self.name, self.dtype)

    def misfit(self, value, expected):
        shown = repr(value) if type(value) is not str else repr(value[:40])
        return BadFilter("filter value {} does not fit column {}: {} expected".format(
            shown, self.describe(), expected))

    def refuse(self, op, why):
        return BadFilter("filter {} does not apply to column {}: {}".format(
            op, self.describe(), why))


# --- families ----------------------------------------------------------------------------


def pandas_column(name, s):
    """The :class:`Column` of pandas Series ``s`` (an object column's values inferred)."""
    dtype = s.dtype
    text = str(dtype)
    if type(dtype).__name__ == "CategoricalDtype":
        pd = sys.modules["pandas"]
        inner = pandas_column(name, pd.Series(dtype.categories))
        return Column(name, text, "category", inner=inner, ordered=bool(dtype.ordered),
                      categories=dtype.categories)
    kind = getattr(dtype, "kind", "O")
    if type(dtype).__name__ == "StringDtype":
        return Column(name, text, "string")
    family = {"b": "boolean", "i": "integer", "u": "integer", "f": "float",
              "M": "datetime", "m": "timedelta", "U": "string", "S": "other"}.get(kind)
    if family is not None:
        return Column(name, text, family, tz=getattr(dtype, "tz", None))
    if kind != "O":
        return Column(name, text, "other")
    infer = sys.modules["pandas"].api.types.infer_dtype
    inferred = infer(s, skipna=True)
    family = {"string": "string", "empty": "string", "integer": "integer",
              "floating": "float", "mixed-integer-float": "float", "boolean": "boolean",
              "datetime": "pydatetime", "date": "date"}.get(inferred, "other")
    return Column(name, text, family)


_POLARS = {"Boolean": "boolean", "String": "string", "Utf8": "string",
           "Categorical": "category", "Enum": "category", "Date": "date",
           "Datetime": "datetime"}


def polars_column(name, dtype):
    """The :class:`Column` of a polars column of ``dtype``."""
    base = type(dtype).__name__
    if base in ("DataTypeClass", "type"):  # a dtype class rather than an instance
        base = getattr(dtype, "__name__", base)
    if base.startswith(("Int", "UInt")):
        family = "integer"
    elif base.startswith("Float"):
        family = "float"
    else:
        family = _POLARS.get(base, "other")
    inner = Column(name, "String", "string", "polars") if family == "category" else None
    return Column(name, str(dtype), family, "polars", tz=getattr(dtype, "time_zone", None),
                  inner=inner)


# --- values ------------------------------------------------------------------------------


def typed(column, value):
    """``value`` (text, a number or a bool, as the protocol checked it) as a value of
    ``column``'s family; :class:`BadFilter` when it does not fit."""
    family = column.family
    if family == "category":
        return typed(column.inner, value)
    reader = _READERS.get(family)
    return value if reader is None else reader(column, value)


def _integer(column, value):
    if type(value) in (int, float):
        return value
    if type(value) is str:
        text = value.strip()
        if _INT.match(text):
            return int(text)
        number = _float(text)
        if number is not None:
            return number
    raise column.misfit(value, "a number")


def _number(column, value):
    if type(value) in (int, float):
        return float(value)
    number = _float(value.strip()) if type(value) is str else None
    if number is None:
        raise column.misfit(value, "a number")
    return number


def _float(text):
    try:
        number = float(text)
    except ValueError:
        return None
    return None if number != number else number  # NaN is a missing value, not a bound


def _boolean(column, value):
    if type(value) is bool:
        return value
    if type(value) is str and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise column.misfit(value, "true or false")


def _string(column, value):
    return value if type(value) is str else str(value)


def _timestamp(column, value):
    """A pandas Timestamp, in the column's time zone when it has one."""
    pd = sys.modules["pandas"]
    expected = "a date or time like 2024-10-02 or 2024-10-02T13:45:00"
    if type(value) is not str:
        raise column.misfit(value, expected)
    try:
        stamp = pd.Timestamp(value.strip())
    except (ValueError, TypeError, OverflowError):
        raise column.misfit(value, expected) from None
    if stamp is pd.NaT:
        raise column.misfit(value, expected)
    tz = column.tz
    if tz is None:
        if stamp.tzinfo is not None:
            raise column.misfit(value, "a time without a time zone")
        return stamp
    try:
        return stamp.tz_localize(tz) if stamp.tzinfo is None else stamp.tz_convert(tz)
    except (ValueError, TypeError, OverflowError):  # a time that does not exist there
        raise column.misfit(value, "a time that exists in " + str(tz)) from None


def _timedelta(column, value):
    pd = sys.modules["pandas"]
    try:
        delta = pd.Timedelta(value.strip()) if type(value) is str else None
    except (ValueError, TypeError, OverflowError):
        delta = None
    if delta is None or delta is pd.NaT:
        raise column.misfit(value, "a duration like '1 days 02:00:00'")
    return delta


def _datetime(column, value):
    """A Python datetime (polars times, object columns), in the column's time zone."""
    expected = "a date or time like 2024-10-02 or 2024-10-02T13:45:00"
    if type(value) is not str:
        raise column.misfit(value, expected)
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise column.misfit(value, expected) from None
    if column.tz is None:
        if moment.tzinfo is not None and column.family == "datetime":
            raise column.misfit(value, "a time without a time zone")
        return moment
    zone = _zone(column)
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment.astimezone(zone)


def _zone(column):
    try:
        import zoneinfo  # the standard library's (Python 3.9+), as polars reads time zones

        return zoneinfo.ZoneInfo(str(column.tz))
    except Exception:
        raise BadFilter("column {}: time zone {} cannot be read here".format(
            column.describe(), column.tz)) from None


def _date(column, value):
    if type(value) is str:
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise column.misfit(value, "a date like 2024-10-02")


def _times(column, value):
    """A value of a ``datetime`` column: a pandas Timestamp for pandas, a Python
    datetime for polars."""
    return _timestamp(column, value) if column.library == "pandas" else _datetime(column, value)


_READERS = {
    "integer": _integer, "float": _number, "boolean": _boolean, "string": _string,
    "datetime": _times, "timedelta": _timedelta, "pydatetime": _datetime, "date": _date,
}


def plain_column(name, values):
    """The :class:`Column` of values no library holds (a list), by the types of its
    present values: one type for all (bools, numbers, text, datetimes, dates), else
    ``other`` (values compared as given)."""
    kinds = set()
    for x in values:
        if x is None or (type(x) is float and x != x):
            continue
        t = type(x)
        kinds.add("number" if t in (int, float) else t)
        if len(kinds) > 1:
            break
    kind = kinds.pop() if len(kinds) == 1 else None
    family = {bool: "boolean", "number": "integer", str: "string",
              datetime.datetime: "pydatetime", datetime.date: "date"}.get(kind, "other")
    return Column(name, "object", family, "plain")
