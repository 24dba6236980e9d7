"""The table ops on an engine's table (``backends``): a window, a profile and code computed
in the engine, and the ``count`` op.

A window is one query (filter, sort, limit and offset, projection) plus, when the engine
does not know its row count, a count under ``count_ms`` — kept per value, view and
execution, so scrolling counts once; a count cancelled in the engine answers
``total_rows: null`` (not counted) rather than hold the window.  A profile column is one
aggregate query under ``column_ms``; past it, cancelled in the engine, it is computed
again on the view's first ``sample_rows`` rows and flagged (``sampled``,
``approximate``).  Engine errors are the engine's own first line (a 422); work past its
time guard is cancelled in the engine and says so (a 422).
"""

import time

from .. import guard
from ..backends import base
from ..backends.base import Cancelled, EngineError
from ..inspect.base import type_name
from ..protocol import EMPTY_VIEW
from ..windows.cells import Cells, compact_dates
from ..windows.code import NoCode, positions_of
from ..windows.columns import ViewColumns
from ..windows.statistics import Texts
from .table import asked_columns

#: Families whose cells read as dates (compact when all at midnight).
_DATES = ("date", "datetime")


def window(state, session, table, value, fields):
    """The ``rows`` reply of an engine's table (``ops.rows``)."""
    name, offset, limit, view = fields["name"], fields["offset"], fields["limit"], fields["view"]
    columns_total = table.columns_total()
    positions = asked_columns(fields, columns_total)
    columns = ViewColumns(table, view, columns_total)
    started = time.perf_counter()
    data = table.window(view, offset, limit, positions, fields["sort_ms"], columns)
    cost = _ms_since(started)
    total, filtered = _counts(state, session, table, value, view, columns, fields["count_ms"])
    cells = Cells(fields["cell_chars"], session, fields["cell_guard_ms"])
    labels = table.column_labels(positions)
    texts = [_cells(cells, [row[j] for row in data], table.family(p).family)
             for j, p in enumerate(positions)]
    rows = [[col[i] for col in texts] for i in range(len(data))]
    return {
        "name": name,
        "kind": "dataframe",
        "type": type_name(type(value)),
        "shape": [total, columns_total],
        "total_rows": total,
        "offset": offset,
        "limit": limit,
        "columns": [{"name": n, "dtype": d, "position": p}
                    for (n, d), p in zip(labels, positions)],
        "columns_total": columns_total,
        "index_name": None,
        "index": [str(offset + i) for i in range(len(data))],
        "rows": rows,
        "view": view.to_json(),
        "sort": view.sort_text(),
        "filter": None if view.filter is None else view.filter.to_json(),
        "filtered_rows": filtered,
        "cells_truncated": cells.truncated,
        "cells_unread": cells.unread,
        "changed_at": None,
        "engine": table.info(total if view.filter is None else filtered, cost),
    }


def _cells(cells, values, family):
    values = [_plain(x) for x in values]
    if family in _DATES:
        return compact_dates([None if x is None else str(x) for x in values])
    return cells.column(values)


def _plain(x):
    """An engine's value as the cells read it: a Decimal as its text."""
    if type(x).__name__ == "Decimal":
        return str(x)
    return x


def _counts(state, session, table, value, view, columns, ms):
    """(every row, the rows the filter keeps): known, kept, or counted now within ``ms``
    (and the call's budget); None for a count cancelled in the engine."""
    execution = state.execution_count()
    whole = _count(session, table, value, EMPTY_VIEW, columns, ms, execution)
    if view.filter is None:
        return whole, None
    return whole, _count(session, table, value, view, columns, ms, execution)


def _count(session, table, value, view, columns, ms, execution):
    if view.filter is None:
        known = table.known_rows()
        if known is not None:
            return int(known)
    key = base.count_key(value, view, execution)
    kept = base.COUNTS.get(key, value)
    if kept is not None:
        return kept
    if session.exhausted:
        return None
    try:
        n = table.count(view, ms, columns)
    except Cancelled:
        return None
    base.COUNTS.put(key, value, n)
    return n


def count(state, session, table, value, fields):
    """The ``count`` reply: the rows the view's filter keeps, counted in the engine."""
    view = fields["view"]
    columns = ViewColumns(table, view, table.columns_total())
    started = time.perf_counter()
    execution = state.execution_count()
    n = None
    if view.filter is None:
        n = table.known_rows()
    key = base.count_key(value, view, execution)
    if n is None:
        n = base.COUNTS.get(key, value)
    if n is None:  # past its guard: Cancelled, a refusal that says so
        n = table.count(view, fields["count_ms"], columns)
        base.COUNTS.put(key, value, n)
    return {"name": fields["name"], "rows": n, "filtered": view.filter is not None,
            "cost_ms": _ms_since(started), "engine": table.info(n, _ms_since(started)),
            "type": type_name(type(value))}


def profile(state, session, table, value, fields):
    """The ``profile`` reply of an engine's table (``ops.profile``)."""
    view = fields["view"]
    columns_total = table.columns_total()
    positions = asked_columns(fields, columns_total)
    columns = ViewColumns(table, view, columns_total)
    labels = table.column_labels(positions)
    texts = Texts(fields["value_chars"])
    started = time.perf_counter()
    out, cut, sampled = [], 0, False
    for i, (position, (label, dtype)) in enumerate(zip(positions, labels)):
        if session.exhausted:
            cut = len(positions) - i
            break
        entry = {"name": label, "position": position, "dtype": dtype, "family": "other",
                 "count": None, "null_count": None, "approximate": False, "error": None}
        try:
            entry.update(_column(table, view, position, fields, texts, columns))
            sampled = entry.pop("sampled", False) or sampled
        except guard.BudgetExhausted:
            cut = len(positions) - i
            break
        except (Cancelled, EngineError) as exc:
            entry["error"] = str(exc)
        out.append(entry)
    execution = state.execution_count()
    total = table.known_rows()
    if total is None:
        total = base.COUNTS.get(base.count_key(value, EMPTY_VIEW, execution), value)
    filtered = None
    if view.filter is not None:
        filtered = base.COUNTS.get(base.count_key(value, view, execution), value)
    return {
        "name": fields["name"],
        "type": type_name(type(value)),
        "kind": "dataframe",
        "total_rows": total,
        "filtered_rows": filtered,
        "columns_total": columns_total,
        "columns": out,
        "columns_cut": cut,
        "sampled": sampled,
        "sample_rows": fields["sample_rows"] if sampled else None,
        "values_truncated": texts.truncated,
        "view": dict(view.to_json(), columns=positions),
        "engine": table.info(total if view.filter is None else filtered, _ms_since(started)),
    }


def _column(table, view, position, fields, texts, columns):
    """A column's statistics over the view, else (cancelled) over its first
    ``sample_rows`` rows, flagged."""
    ms = fields["column_ms"]
    try:
        return table.profile_column(view, position, fields["top"], None, ms, texts, columns)
    except Cancelled as whole:
        try:
            entry = table.profile_column(view, position, fields["top"],
                                         fields["sample_rows"], ms, texts, columns)
        except Cancelled:
            raise whole from None
        entry["approximate"] = True
        entry["sampled"] = True
        entry["error"] = None
        return entry


def code(session, table, value, fields):
    """The ``code`` reply of an engine's table (``ops.code``): in the engine's syntax."""
    name, view = fields["name"], fields["view"]
    syntax = fields["syntax"]
    columns_total = table.columns_total()
    if syntax is None:
        syntax = table.syntaxes[0]
    if syntax not in table.syntaxes:
        raise NoCode("{} code is not written for {} (a {} table): ask for {}".format(
            syntax, name, table.title, " or ".join(table.syntaxes)))
    selected = positions_of(fields, columns_total)
    columns = ViewColumns(table, view, columns_total)
    text = table.code(view, selected, syntax, name, columns)
    return {"syntax": syntax, "code": text, "name": name,
            "view": dict(view.to_json(), columns=selected)}


def _ms_since(started):
    return int((time.perf_counter() - started) * 1000)
