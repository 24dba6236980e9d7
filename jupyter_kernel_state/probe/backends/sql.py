"""A view as SQL text: the filter tree as one ``WHERE`` condition, the sort keys as one
``ORDER BY`` list — the very text the engine runs and the ``code`` op writes, so the
code keeps exactly the rows shown.

The rules are the explorer's: missing values (NULL, and NaN in a floating column) match
only ``isnull``; every other condition, negated ones included, is written
``(<present> AND <test>)``; a sort puts missing values last (NaN as missing).  Values are
read as their column's type (``families.typed``) and written as SQL literals (strings
with doubled quotes, dates as ``DATE '…'``); names are double-quoted identifiers.  The
text functions are DuckDB's (``contains``, ``starts_with``, ``ends_with``,
``regexp_matches``: RE2, linear time, so no pattern can hold the engine).
"""

import datetime

from ..protocol import CASE_OPS, LIST_OPS, RANGE_OPS, Condition
from ..windows.families import typed

SYMBOLS = {"eq": "=", "ne": "<>", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def identifier(name):
    """A double-quoted SQL identifier (inner quotes doubled)."""
    return '"' + str(name).replace('"', '""') + '"'


def string(text):
    return "'" + text.replace("'", "''") + "'"


def literal(value):
    """``value`` (as ``families.typed`` read it) as a SQL literal."""
    t = type(value)
    if value is None:
        return "NULL"
    if t is bool:
        return "TRUE" if value else "FALSE"
    if t is int:
        return str(value)
    if t is float:
        if value != value:
            return "'NaN'::DOUBLE"
        if value in (float("inf"), float("-inf")):
            return "'{}'::DOUBLE".format("inf" if value > 0 else "-inf")
        return repr(value)
    if t is str:
        return string(value)
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            return "TIMESTAMPTZ " + string(value.isoformat(sep=" "))
        return "TIMESTAMP " + string(value.isoformat(sep=" "))
    if isinstance(value, datetime.date):
        return "DATE " + string(value.isoformat())
    if isinstance(value, datetime.timedelta):
        return "INTERVAL {} MICROSECONDS".format(
            value // datetime.timedelta(microseconds=1))
    return string(str(value))


class SqlColumn:
    """A column as the SQL text sees it: its quoted name, its ``families.Column`` (how
    values read), and whether NaN can be in it (a floating column)."""

    def __init__(self, sql, column, nan=False):
        self.sql, self.column, self.nan = sql, column, nan

    def present(self):
        text = self.sql + " IS NOT NULL"
        return "({} AND NOT isnan({}))".format(text, self.sql) if self.nan else text

    def missing(self):
        text = self.sql + " IS NULL"
        return "({} OR isnan({}))".format(text, self.sql) if self.nan else text

    def text(self):
        if self.column.family == "string":
            return self.sql
        return "CAST({} AS VARCHAR)".format(self.sql)

    def sort_value(self):
        """The value a sort orders by: NaN as NULL, so that it sorts last."""
        if self.nan:
            return "(CASE WHEN isnan({0}) THEN NULL ELSE {0} END)".format(self.sql)
        return self.sql


def where(node, resolve):
    """The filter ``node`` as one SQL condition; ``resolve(column)`` gives its
    :class:`SqlColumn`.

    A missing value matches only ``isnull``, negated tests included.  SQL gives a test of
    NULL the value NULL, which a ``WHERE`` (or ``FILTER``) drops as it drops FALSE, and
    the tree joins its tests only with AND and OR (no NOT above a test): so a test needs
    no ``IS NOT NULL`` of its own — which would cost DuckDB a second pass over the column
    (2× on a two-condition filter of 10 M rows).  NaN is a value to DuckDB (``NaN >= 0``
    holds): a floating column's tests keep ``NOT isnan`` (NULL for NULL, so dropped too)."""
    if type(node) is not Condition:
        parts = [where(n, resolve) for n in node.nodes]
        if len(parts) == 1:
            return parts[0]
        joiner = " AND " if node.join == "and" else " OR "
        return "(" + joiner.join(parts) + ")"
    col = resolve(node.column)
    if node.op == "isnull":
        return col.missing()
    if node.op == "notnull":
        return col.present()
    if col.nan:
        return "(NOT isnan({}) AND {})".format(col.sql, _test(node, col))
    return "({})".format(_test(node, col))


def _test(c, col):
    op, column = c.op, col.column
    if op in SYMBOLS:
        return "{} {} {}".format(col.sql, SYMBOLS[op], literal(_value(column, c.value)))
    if op in RANGE_OPS:
        low, high = (literal(_value(column, v)) for v in c.value)
        test = "{} BETWEEN {} AND {}".format(col.sql, low, high)
        return "NOT ({})".format(test) if op == "not_between" else test
    if op in LIST_OPS:
        items = ", ".join(literal(_value(column, v)) for v in c.value)
        test = "{} IN ({})".format(col.sql, items)
        return "NOT ({})".format(test) if op == "not_in" else test
    if op in CASE_OPS:
        text = col.text()
        value = c.value
        if op == "regex":
            if c.case:
                return "regexp_matches({}, {})".format(text, string(value))
            return "regexp_matches({}, {}, 'i')".format(text, string(value))
        if not c.case:
            text, value = "lower({})".format(text), value.lower()
        function = {"contains": "contains", "not_contains": "contains",
                    "starts_with": "starts_with", "ends_with": "ends_with"}[op]
        test = "{}({}, {})".format(function, text, string(value))
        return "NOT " + test if op == "not_contains" else test
    if op in ("empty", "not_empty"):
        if column.family != "string":
            raise column.refuse(op, "it applies to text columns")
        return "{} {} ''".format(col.sql, "=" if op == "empty" else "<>")
    if column.family != "boolean":
        raise column.refuse(op, "it applies to boolean columns")
    return "{} = {}".format(col.sql, "TRUE" if op == "is_true" else "FALSE")


def _value(column, value):
    return typed(column, value)


def order_by(keys, resolve_position):
    """``ORDER BY`` items for ``keys`` ([(position, descending)]), missing values last;
    ``resolve_position(position)`` gives the :class:`SqlColumn`."""
    items = []
    for position, desc in keys:
        col = resolve_position(position)
        items.append("{} {} NULLS LAST".format(col.sort_value(), "DESC" if desc else "ASC"))
    return ", ".join(items)
