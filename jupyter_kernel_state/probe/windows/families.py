"""What a column holds, and a filter's values read as that type.

A column's *family* says how its values compare: ``integer``, ``float``, ``boolean``,
``string``, ``category``, ``datetime`` (pandas and polars times, maybe with a time
zone), ``timedelta``, ``date`` and ``pydatetime`` (Python objects in an object column),
or ``other`` (values compared as given).  A condition's value — text, a number or
true/false — is read as its column's family (:func:`typed`); a value that does not fit
is a :class:`BadFilter` naming the column and its dtype (the user's 400).  Each
library's backend says which family its columns are (``backends.pandas.pandas_column``,
``backends.polars.polars_column``, the engines' own) and reads the values of its own
types (pandas' Timestamps and Timedeltas); values no library holds are read here
(:func:`plain_column`).
"""

import datetime
import re

_INT = re.compile(r"^[+-]?[0-9]+$")


class BadFilter(Exception):
    """A filter that does not fit its column (the message says which, and why)."""


class Column:
    """One column as a filter sees it: its name (for messages), dtype text, family, and
    what reading a value needs (``tz``: the column's time zone; ``inner``: a category
    column's categories as a Column; ``ordered``; ``categories``; ``readers``: a value's
    reader by family, :data:`READERS` unless its library reads some of them its own way,
    as pandas reads times as its Timestamps)."""

    def __init__(self, name, dtype, family, tz=None, inner=None, ordered=False,
                 categories=None, readers=None):
        self.name, self.dtype, self.family = name, dtype, family
        self.tz, self.inner, self.ordered, self.categories = tz, inner, ordered, categories
        self.readers = READERS if readers is None else readers

    def describe(self):
        return "{} ({})".format(self.name, self.dtype)

    def misfit(self, value, expected):
        shown = repr(value) if type(value) is not str else repr(value[:40])
        return BadFilter("filter value {} does not fit column {}: {} expected".format(
            shown, self.describe(), expected))

    def refuse(self, op, why):
        return BadFilter("filter {} does not apply to column {}: {}".format(
            op, self.describe(), why))


# --- values ------------------------------------------------------------------------------


def typed(column, value):
    """``value`` (text, a number or a bool, as the protocol checked it) as a value of
    ``column``'s family; :class:`BadFilter` when it does not fit."""
    family = column.family
    if family == "category":
        return typed(column.inner, value)
    reader = column.readers.get(family)
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


EXPECTED_TIME = "a date or time like 2024-10-02 or 2024-10-02T13:45:00"


def _datetime(column, value):
    """A Python datetime (polars and engines' times, object columns), in the column's
    time zone."""
    if type(value) is not str:
        raise column.misfit(value, EXPECTED_TIME)
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise column.misfit(value, EXPECTED_TIME) from None
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


#: How a value is read for each family (a library may read some its own way).
READERS = {
    "integer": _integer, "float": _number, "boolean": _boolean, "string": _string,
    "datetime": _datetime, "pydatetime": _datetime, "date": _date,
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
    return Column(name, "object", family)
