"""Fingerprints of values and the words that describe how one changed.

A fingerprint is a cheap, comparable summary of a value, taken by its inspector's
``fingerprint`` (base methods and known attributes only: no user code).  Two equal
fingerprints mean "no change the tracker can see"; two different ones of the same type
are described by :func:`describe_changes`, which understands these shapes:

* ``("len", n, ids)`` — builtin containers and dict views (``ids``: the ids of the first
  items, or None): described as ``len a → b``;
* ``("array", shape, dtype, data)`` — numpy, torch and xarray arrays: ``shape (a,) → (b,)``
  and ``dtype a → b``;
* ``("series", n, dtype)`` — pandas and polars series: ``len a → b``, ``dtype a → b``;
* ``("table", (rows, columns), labels, dtypes)`` — pandas and polars frames (the first
  ``inspect.tables.FINGERPRINT_COLUMNS`` labels and dtypes): ``rows a → b``, ``column x added``,
  ``column x removed``, ``column x dtype a → b``, or ``columns a → b`` when only columns
  beyond the first few changed.

Any other fingerprint (``("attrs", …)`` of objects, ``("dataset", …)``, ``(n, head, tail)``
of long text, ``("error",)``, None) changes without a description.  At most
``MAX_CHANGES`` descriptions are given per value.
"""

from .. import guard
from ..inspect.base import inspector_for, type_name

MAX_CHANGES = 5
#: The longest column label quoted in a description.
MAX_LABEL = 40


def fingerprint(value, t):
    """The fingerprint of ``value`` (of type ``t``); ``("error",)`` when taking it failed,
    None for values with nothing worth comparing (callables, modules, classes)."""
    try:
        return inspector_for(t).fingerprint(value)
    except BaseException as exc:
        guard.check(exc)
        return ("error",)


def describe_len(before, after):
    return "len {:,} → {:,}".format(before, after)


def describe_type(old_t, new_t):
    return "type {} → {}".format(type_name(old_t), type_name(new_t))


def describe_changes(old_t, old_fp, new_t, new_fp):
    """Short structural differences, e.g. ``("rows 1,000 → 980",)``; at most MAX_CHANGES.

    An empty tuple when the fingerprints are not of a shape described above (or are of
    different shapes)."""
    if old_t is not new_t:
        return (describe_type(old_t, new_t),)
    if (
        type(old_fp) is not tuple
        or type(new_fp) is not tuple
        or not old_fp
        or old_fp[0] != new_fp[0]
    ):
        return ()
    tag = old_fp[0]
    out = []
    if tag == "len" and old_fp[1] != new_fp[1]:
        out.append(describe_len(old_fp[1], new_fp[1]))
    elif tag == "array":
        if old_fp[1] != new_fp[1]:
            out.append("shape {} → {}".format(_shape(old_fp[1]), _shape(new_fp[1])))
        if old_fp[2] != new_fp[2]:
            out.append("dtype {} → {}".format(old_fp[2], new_fp[2]))
    elif tag == "series":
        if old_fp[1] != new_fp[1]:
            out.append(describe_len(old_fp[1], new_fp[1]))
        if old_fp[2] != new_fp[2]:
            out.append("dtype {} → {}".format(old_fp[2], new_fp[2]))
    elif tag == "table":
        out.extend(_table_changes(old_fp, new_fp))
    return tuple(out[:MAX_CHANGES])


def _shape(shape):
    """``(3,)``, ``(2, 5)``: a shape written as Python writes the tuple."""
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _table_changes(old_fp, new_fp):
    """Rows, added and removed columns, and column dtypes of two ``("table", …)``
    fingerprints, in that order."""
    (old_rows, old_cols), old_labels, old_dtypes = old_fp[1], old_fp[2], old_fp[3]
    (new_rows, new_cols), new_labels, new_dtypes = new_fp[1], new_fp[2], new_fp[3]
    out = []
    if old_rows != new_rows:
        out.append("rows {:,} → {:,}".format(old_rows, new_rows))
    old_set, new_set = set(old_labels), set(new_labels)
    for label in new_labels:
        if label not in old_set:
            out.append("column {} added".format(column_text(label)))
    for label in old_labels:
        if label not in new_set:
            out.append("column {} removed".format(column_text(label)))
    old_dtype_of = dict(zip(old_labels, old_dtypes))
    for label, dtype in zip(new_labels, new_dtypes):
        before = old_dtype_of.get(label)
        if before is not None and before != dtype:
            out.append("column {} dtype {} → {}".format(column_text(label), before, dtype))
    if not out and old_cols != new_cols:
        out.append("columns {:,} → {:,}".format(old_cols, new_cols))
    return out


def column_text(label):
    """A column label as quoted in a description: str as is, others by repr, cut."""
    text = label if type(label) is str else repr(label)
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"
