"""The independent evaluation the backends' property tests compare with: a view's filter
tree and sort keys applied in plain Python to the same rows (dicts), by the explorer's
rules — missing values (None, NaN) match only ``isnull``, negated tests included, and
sort last either way; sorts are Python's stable sorts, last key first."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

#: ``typed(column, value)``: a filter value (as the request gives it) as the column's type.
Typed = Callable[[str, Any], Any]
TEXT_OPS = ("contains", "not_contains", "starts_with", "ends_with", "regex")


def present(x: Any) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def keeps(node: dict[str, Any], row: dict[str, Any], typed: Typed) -> bool:
    """Whether the filter tree ``node`` keeps ``row``."""
    if "and" in node:
        return all(keeps(n, row, typed) for n in node["and"])
    if "or" in node:
        return any(keeps(n, row, typed) for n in node["or"])
    column, op, x = node["column"], node["op"], row[node["column"]]
    if op == "isnull":
        return not present(x)
    if not present(x):
        return False  # missing values match only isnull, negated tests too
    if op == "notnull":
        return True
    value = node.get("value")
    if op in ("eq", "ne", "lt", "le", "gt", "ge"):
        v = typed(column, value)
        return {"eq": x == v, "ne": x != v, "lt": x < v, "le": x <= v, "gt": x > v,
                "ge": x >= v}[op]
    if op in ("between", "not_between"):
        inside = typed(column, value[0]) <= x <= typed(column, value[1])
        return inside if op == "between" else not inside
    if op in ("in", "not_in"):
        found = any(x == typed(column, v) for v in value)
        return found if op == "in" else not found
    text = x if isinstance(x, str) else str(x)
    case = node.get("case", True)
    if op == "regex":
        return re.search(value, text, 0 if case else re.IGNORECASE) is not None
    if op in TEXT_OPS:
        hay, needle = (text, value) if case else (text.lower(), value.lower())
        found = {"contains": needle in hay, "not_contains": needle in hay,
                 "starts_with": hay.startswith(needle), "ends_with": hay.endswith(needle)}[op]
        return not found if op == "not_contains" else found
    if op in ("empty", "not_empty"):
        return (x == "") == (op == "empty")
    return x is (op == "is_true")


def ordered(rows: list[dict[str, Any]], tree: dict[str, Any] | None,
            sort: list[dict[str, Any]], typed: Typed) -> list[dict[str, Any]]:
    """The rows the view keeps, in its order."""
    kept = [r for r in rows if tree is None or keeps(tree, r, typed)]
    for key in reversed(sort):
        column = key["column"]
        there = [r for r in kept if present(r[column])]
        absent = [r for r in kept if not present(r[column])]
        there.sort(key=lambda r: r[column], reverse=key.get("desc", False))
        kept = there + absent
    return kept


#: The guards of a property test's requests: these test which rows come back, not the
#: guards (their own tests do), and a loaded machine must not turn a right answer into a
#: cancelled one.
ROOMY = {"time_guard_ms": 30_000, "sort_ms": 30_000, "count_ms": 30_000, "budget_ms": 120_000}
