"""A view's filter as one expression of the column's own library, or as plain Python.

The filter (``protocol.Condition`` or ``protocol.Tree``) becomes one expression
(``expressions``) — pandas ``sales["price"].notna() & (sales["price"] > 10.0)``, polars
``pl.col("price").is_not_null() & (pl.col("price") > 10.0)`` — evaluated for the
explorer's rows and rendered for the ``code`` op: one tree for both.  The tree and the
tests every library shares are here (:func:`expression`, :func:`condition_test`); each
library's backend gives its condition (how it tests a missing value) and its dialect
(its methods for a range and a list, a column as text, a text search).  Values are read
as their column's type (``families.typed``).  Missing values match only ``isnull``:
every other condition, negated ones included, is written ``<column is present> &
<test>``, so a null, NaN, NaT or None row is never kept by it (SQL's rule, explicit in
the code).  Values held by no library (a list of records, numpy without pandas) are
filtered value by value with the same rules (:func:`plain_mask`).
"""

import re

from ..protocol import CASE_OPS, LIST_OPS, RANGE_OPS, Condition
from .expressions import Binary, Invert, compare, method
from .families import BadFilter, typed

SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
ORDERING = ("lt", "le", "gt", "ge", "between", "not_between")


def expression(node, resolve, condition):
    """The filter ``node`` as one expression: ``resolve(column)`` gives the column's
    node (``sales["price"]``, ``pl.col("price")``) and its ``families.Column``;
    ``condition(c, ref, column)`` is one condition in the library's expressions
    (``backends.pandas.pandas_condition``)."""
    if type(node) is not Condition:
        joined = [expression(n, resolve, condition) for n in node.nodes]
        return Binary("&" if node.join == "and" else "|", joined) if len(joined) > 1 else joined[0]
    ref, column = resolve(node.column)
    return condition(node, ref, column)


def check_python_regex(c):
    """A pattern Python's ``re`` compiles, without a repetition of repetitions: ``re``
    cannot be interrupted while it matches, so a pattern like ``(a+)+$``, which can take
    exponential time, would hold the kernel beyond any time guard."""
    try:
        re.compile(c.value)
    except (re.error, OverflowError, RecursionError) as exc:
        raise BadFilter("filter regex {!r} is not a valid Python regular expression: {}".format(
            c.value[:60], exc)) from None
    if _nested_repeat(_parsed(c.value), False):
        raise BadFilter(
            "filter regex {!r} repeats a repetition (like (a+)+), which Python's re can take "
            "exponential time on and no time guard can stop: write it without the nested "
            "repetition".format(c.value[:60]))


def _parsed(pattern):
    parser = getattr(re, "_parser", None)  # Python 3.11+; sre_parse before
    if parser is None:
        import sre_parse as parser
    return parser.parse(pattern)


#: A repetition that runs more often than this is a loop an inner repetition makes costly.
LOOP_REPEATS = 10


def _nested_repeat(items, looping):
    """Whether a parsed pattern repeats a repetition inside a long loop."""
    for op, av in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            _low, high, inner = av
            if (looping and high > 1) or _nested_repeat(inner, looping or high > LOOP_REPEATS):
                return True
            continue
        if name == "SUBPATTERN":
            parts = [av[-1]]
        elif name == "ATOMIC_GROUP":
            parts = [av]
        elif name in ("ASSERT", "ASSERT_NOT"):
            parts = [av[1]]
        elif name == "BRANCH":
            parts = list(av[1])
        elif name == "GROUPREF_EXISTS":
            parts = [part for part in av[1:] if part]
        else:
            continue
        if any(_nested_repeat(part, looping) for part in parts):
            return True
    return False


# --- the tests every library shares ------------------------------------------------------


def condition_test(c, ref, column, dialect):
    """The condition on the rows where the column is present, in a library's expressions:
    ``dialect`` names its methods for a range (``between``) and a list (``in``), and gives
    a column as text (``text(ref, column, c)``), a text search (``search(c, text)``) and
    optionally a range's bound as it wants it (``bound(value)``)."""
    op = c.op
    if op in SYMBOLS:
        return compare(SYMBOLS[op], ref, _value(c, column, c.value))
    if op in RANGE_OPS:
        bound = dialect.get("bound", _as_is)
        low, high = (bound(_value(c, column, v)) for v in c.value)
        test = method(ref, dialect["between"], low, high)
        return Invert(test) if op == "not_between" else test
    if op in LIST_OPS:
        items = [_value(c, column, v) for v in c.value]
        test = method(ref, dialect["in"], items)
        return Invert(test) if op == "not_in" else test
    if op in CASE_OPS:
        test = dialect["search"](c, dialect["text"](ref, column, c))
        return Invert(test) if op == "not_contains" else test
    if op in ("empty", "not_empty"):
        if not is_text(column):
            raise column.refuse(op, "it applies to text columns")
        return compare("==" if op == "empty" else "!=", ref, "")
    if column.family != "boolean":
        raise column.refuse(op, "it applies to boolean columns")
    return compare("==", ref, op == "is_true")


def _as_is(value):
    return value


def is_text(column):
    """Whether the column holds text (a category column: of text categories)."""
    return column.family == "string" or (
        column.family == "category" and column.inner.family == "string")


def _value(c, column, value):
    """One value of condition ``c`` as ``column``'s type."""
    if column.family == "category" and c.op in ORDERING:
        if not column.ordered:
            raise column.refuse(c.op, "its categories have no order (use eq, in or a text "
                                      "operator)")
        got = typed(column, value)
        if got not in list(column.categories):
            raise column.misfit(value, "one of its categories")
        return got
    return typed(column, value)


# --- plain Python ------------------------------------------------------------------------


def plain_mask(node, resolve):
    """The filter on values no library holds: a list of booleans, one per row;
    ``resolve(column)`` gives the column's values (a list) and its Column."""
    if type(node) is not Condition:
        masks = [plain_mask(n, resolve) for n in node.nodes]
        combine = all if node.join == "and" else any
        return [combine(row) for row in zip(*masks)]
    values, column = resolve(node.column)
    if node.op == "isnull":
        return [missing(x) for x in values]
    if node.op == "notnull":
        return [not missing(x) for x in values]
    test = _plain_test(node, column)
    return [not missing(x) and test(x) for x in values]


def _plain_test(c, column):
    op = c.op
    if op in SYMBOLS:
        return _safe(_COMPARE[op], _value(c, column, c.value))
    if op in RANGE_OPS:
        low, high = (_value(c, column, v) for v in c.value)
        inside = _safe(lambda x, bounds: bounds[0] <= x <= bounds[1], (low, high))
        return inside if op == "between" else (lambda x: not inside(x))
    if op in LIST_OPS:
        items = [_value(c, column, v) for v in c.value]
        found = _safe(lambda x, listed: any(x == item for item in listed), items)
        return found if op == "in" else (lambda x: not found(x))
    if op in CASE_OPS:
        found = _plain_search(c)
        return found if op != "not_contains" else (lambda x: not found(x))
    if op in ("empty", "not_empty"):
        if not is_text(column):
            raise column.refuse(op, "it applies to text columns")
        return (lambda x: x == "") if op == "empty" else (lambda x: x != "")
    if column.family != "boolean":
        raise column.refuse(op, "it applies to boolean columns")
    wanted = op == "is_true"
    return lambda x: x is wanted


def _plain_search(c):
    value, case = c.value, c.case
    if c.op == "regex":
        check_python_regex(c)
        pattern = re.compile(value, 0 if case else re.IGNORECASE)
        return lambda x: pattern.search(_text(x)) is not None
    if not case:
        value = value.lower()
    fold = _text if case else (lambda x: _text(x).lower())
    if c.op in ("contains", "not_contains"):
        return lambda x: value in fold(x)
    if c.op == "starts_with":
        return lambda x: fold(x).startswith(value)
    return lambda x: fold(x).endswith(value)


def _text(x):
    return x if type(x) is str else str(x)


def _safe(test, operand):
    """``test(x, operand)``, false for values that do not compare (a mixed column)."""

    def safe(x):
        try:
            return bool(test(x, operand))
        except TypeError:
            return False

    return safe


def missing(x):
    """A missing value of a plain column: None, NaN (a float that is not itself)."""
    return x is None or (type(x) is float and x != x)


_COMPARE = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
}
