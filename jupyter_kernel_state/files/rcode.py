"""The dplyr code of a view of a file (``code?syntax=dplyr``), written in the worker from
the file's DuckDB schema: ``filter()`` with the filter tree, ``arrange()`` with the sort
keys (``desc()`` for descending ones), ``select()`` for the columns shown — the R probe's
shape (``probe_r/code.R``). Missing values match only ``isnull``, as in the explorer;
text operators are case-insensitive unless ``case``. Values are R literals of their
column's type (a value that does not fit is a 400, as for the other syntaxes).
"""

from __future__ import annotations

import math
from typing import Any

from ..probe import protocol
from ..probe.backends.duckdb import _family
from ..probe.windows.code import positions_of
from .formats import r_string

_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


class NoCode(Exception):
    pass


def view_code(rel: Any, name: str, request: dict[str, Any]) -> dict[str, Any]:
    """The ``code`` reply (``{"code": ViewCode}``) or a refusal."""
    names = list(rel.columns)
    families = [_family(str(t))[0] for t in rel.types]  # type: ignore[no-untyped-call]
    try:
        view = protocol.View.from_json(request.get("view"))
        fields = {"columns": request.get("columns"),
                  "column_start": request.get("column_start", 0),
                  "column_stop": request.get("column_stop")}
        selected = positions_of(fields, len(names))  # type: ignore[no-untyped-call]
        writer = _Writer(names, families)
        steps = []
        if view.filter is not None:
            steps.append(f"filter({writer.node(view.filter)})")
        if view.sort:
            keys = [writer.ref(k.column) for k in view.sort]
            steps.append("arrange({})".format(", ".join(
                f"desc({ref})" if k.desc else ref for k, ref in zip(view.sort, keys, strict=True))))
        if selected is not None:
            steps.append("select({})".format(", ".join(_ref(names[p]) for p in selected)))
    except (NoCode, protocol.BadRequest, ValueError) as exc:
        return protocol.refusal("bad_request", str(exc))
    body = f"{name}_view <- {name}"
    if steps:
        body += " %>%\n" + " %>%\n".join("  " + s for s in steps)
    code = "library(dplyr)\n" + body + "\n"
    echoed = dict(view.to_json(), columns=selected)
    return {"code": {"syntax": "dplyr", "code": code, "name": name, "view": echoed}}


def _ref(name: str) -> str:
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


class _Writer:
    def __init__(self, names: list[str], families: list[str]) -> None:
        self.names, self.families = names, families

    def position(self, column: str | int) -> int:
        if isinstance(column, int):
            if 0 <= column < len(self.names):
                return column
        elif column in self.names:
            return self.names.index(column)
        raise NoCode("No column {!r}: the file's columns are {}".format(
            column, ", ".join(self.names[:20])))

    def ref(self, column: str | int) -> str:
        return _ref(self.names[self.position(column)])

    def node(self, node: Any, inside: bool = False) -> str:
        if isinstance(node, protocol.Tree):
            joiner = " & " if node.join == "and" else " | "
            text = joiner.join(self.node(n, True) for n in node.nodes)
            return "(" + text + ")" if inside else text
        text = self.condition(node)
        return "(" + text + ")" if inside else text

    def condition(self, c: protocol.Condition) -> str:
        at = self.position(c.column)
        col, family = _ref(self.names[at]), self.families[at]
        present = f"!is.na({col})"
        op = c.op
        if op == "isnull":
            return f"is.na({col})"
        if op == "notnull":
            return present
        if op in ("empty", "not_empty"):
            return "{} & {} {} \"\"".format(present, col, "==" if op == "empty" else "!=")
        if op in ("is_true", "is_false"):
            return "{} & {}{}".format(present, "" if op == "is_true" else "!", col)
        if op in _COMPARE:
            return f"{present} & {col} {_COMPARE[op]} {self.value(c.value, family, c.column)}"
        if op in protocol.RANGE_OPS:
            low, high = (self.value(v, family, c.column) for v in c.value)
            if op == "between":
                return f"{present} & {col} >= {low} & {col} <= {high}"
            return f"{present} & ({col} < {low} | {col} > {high})"
        if op in protocol.LIST_OPS:
            items = "c({})".format(", ".join(self.value(v, family, c.column) for v in c.value))
            neg = "" if op == "in" else "!"
            return f"{present} & {neg}({col} %in% {items})"
        return self.text(c, col, present)

    def text(self, c: protocol.Condition, col: str, present: str) -> str:
        value = str(c.value)
        target = col if c.case else f"tolower({col})"
        needle = r_string(value if c.case else value.lower())
        if c.op == "regex":
            call = "grepl({}, {}, perl = TRUE{})".format(
                r_string(value), col, "" if c.case else ", ignore.case = TRUE")
        elif c.op in ("contains", "not_contains"):
            call = f"grepl({needle}, {target}, fixed = TRUE)"
        elif c.op == "starts_with":
            call = f"startsWith({target}, {needle})"
        else:
            call = f"endsWith({target}, {needle})"
        return "{} & {}{}".format(present, "!" if c.op == "not_contains" else "", call)

    def value(self, value: Any, family: str, column: str | int) -> str:
        if family in ("integer", "float"):
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise NoCode(f"{value!r} is not a number ({column})")
            try:
                number = float(value)
            except ValueError:
                raise NoCode(f"{value!r} is not a number ({column})") from None
            if math.isnan(number) or math.isinf(number):
                raise NoCode(f"{value!r} is not a finite number ({column})")
            return repr(int(number)) if number.is_integer() and abs(number) < 2**53 else repr(
                number)
        if family == "boolean":
            return "TRUE" if value in (True, "true", "True", 1) else "FALSE"
        if family == "date":
            return f"as.Date({r_string(str(value))})"
        if family == "datetime":
            return f"as.POSIXct({r_string(str(value))}, tz = \"UTC\")"
        return r_string(str(value))
