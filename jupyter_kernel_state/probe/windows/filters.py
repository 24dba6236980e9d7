"""Row filters for the ``rows`` op, computed in the kernel on one column.

A filter (``protocol.Condition``) is ``{"column": name, "op": op, "value": text}``; ``op``
is one of ``contains`` (case-insensitive text), ``eq``, ``ne``, ``lt``, ``le``, ``gt``,
``ge`` (the value read as the column's type: a number, a date, true/false, or text) or
``isnull``/``notnull`` (no value).  The mask is built with the column's own library
(pandas, polars, numpy) when the user imported it, else value by value; the caller runs
it under the sort's time guard.
"""

import sys


class BadFilter(Exception):
    """The filter's value cannot be read as its column's type (the message says so)."""


def mask(values, op, value):
    """A sequence of booleans, one per row of ``values`` (a pandas or polars Series, a
    numpy array, or a list)."""
    module = (getattr(type(values), "__module__", "") or "").split(".")[0]
    if module == "pandas":
        return _pandas(values, op, value)
    if module == "polars":
        return _polars(values, op, value)
    if module == "numpy":
        pd = sys.modules.get("pandas")
        if pd is not None:
            return _pandas(pd.Series(values, copy=False), op, value)
        return _plain(values.tolist(), op, value)
    return _plain(values, op, value)


def _pandas(s, op, value):
    if op == "isnull":
        return s.isna().to_numpy()
    if op == "notnull":
        return s.notna().to_numpy()
    if op == "contains":
        text = s.astype(str).str.contains(value, case=False, regex=False, na=False)
        return (text & s.notna()).to_numpy()
    target = _typed(value, str(s.dtype), s)
    compare = {"eq": s.__eq__, "ne": s.__ne__, "lt": s.__lt__, "le": s.__le__,
               "gt": s.__gt__, "ge": s.__ge__}[op]
    out = compare(target)
    return out.fillna(False).to_numpy(dtype=bool)


def _typed(value, dtype, s=None):
    """The filter's text as the column's type (:class:`BadFilter`: not that type)."""
    try:
        return _convert(value, dtype, s)
    except (ValueError, TypeError, OverflowError):
        raise BadFilter("filter value {!r} is not a {} value".format(value[:40], dtype)) from None


def _convert(value, dtype, s):
    kind = dtype.lower()
    if kind.startswith(("int", "uint", "float")):
        return float(value)
    if kind.startswith("bool"):
        if value.lower() not in ("true", "false"):
            raise ValueError("not a boolean: " + value[:40])
        return value.lower() == "true"
    if kind.startswith(("datetime", "date")):
        pd = sys.modules.get("pandas")
        if pd is not None:
            stamp = pd.Timestamp(value)
            tz = getattr(getattr(s, "dt", None), "tz", None) if s is not None else None
            return stamp.tz_localize(tz) if tz is not None and stamp.tzinfo is None else stamp
    return value


def _polars(s, op, value):
    pl = sys.modules["polars"]
    if op == "isnull":
        out = s.is_null()
    elif op == "notnull":
        out = s.is_not_null()
    elif op == "contains":
        out = s.cast(pl.Utf8).str.to_lowercase().str.contains(value.lower(), literal=True)
    else:
        dtype = str(s.dtype)
        target = _typed(value, dtype)
        if dtype.lower().startswith(("datetime", "date")):
            target = target.to_pydatetime() if hasattr(target, "to_pydatetime") else target
        out = {"eq": s.__eq__, "ne": s.__ne__, "lt": s.__lt__, "le": s.__le__,
               "gt": s.__gt__, "ge": s.__ge__}[op](target)
    return out.fill_null(False).to_list()


def _plain(values, op, value):
    if op == "isnull":
        return [_missing(x) for x in values]
    if op == "notnull":
        return [not _missing(x) for x in values]
    if op == "contains":
        needle = value.lower()
        return [not _missing(x) and needle in str(x).lower() for x in values]
    out = []
    for x in values:
        if _missing(x):
            out.append(False)
            continue
        target = value
        if isinstance(x, bool):
            target = _typed(value, "bool")
        elif isinstance(x, (int, float)):
            target = _typed(value, "float")
        try:
            out.append(_COMPARE[op](x, target))
        except TypeError:
            out.append(False)
    return out


def _missing(x):
    return x is None or (type(x) is float and x != x)


_COMPARE = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
}
