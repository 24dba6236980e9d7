"""The ``rows`` op: a window of a table or an array, for the data explorer.

Request: ``name``, ``offset``, ``limit`` (≤ ``max_rows``), ``columns`` (a list of column
positions, or ``column_start``/``column_stop``; at most ``max_columns``), ``sort_column``
(a column's name as listed) with ``sort_desc``, ``filter`` (see filters.py),
``cell_chars``, ``time_guard_ms`` (each read of the value), ``sort_ms`` (the sort and the
filter), ``cell_guard_ms`` (each cell's own repr), ``budget_ms`` (the whole call).

Only the window is read.  A sort ranks the one column asked for, under its own time
guard, and is kept (two at most, for the cell that was current) so that scrolling a
sorted table costs a window, not a sort.  Refusals: ``not_found``, ``bad_request`` (also
for values that are not tables), ``lazy`` (reading would compute or consume the value),
``unprocessable`` (the value's own code raised or ran out of time).
"""

import sys

from . import filters, guard
from .cells import Cells, Lazy, NotTabular
from .detail import valid_name
from .inspectors import MISSING, type_name
from .namespace import is_hidden
from .tabular import adapter_for
from .variable_ops import lookup, refuse

DEFAULT_ROWS = 100
MAX_ROWS = 1_000
MAX_COLUMNS = 100
DEFAULT_CELL = 200
MAX_CELL = 10_000
DEFAULT_READ_MS = 1_000
DEFAULT_SORT_MS = 2_000
DEFAULT_CELL_MS = 100
MAX_MS = 60_000
#: Column names compared when looking for the sort column.
MAX_NAME_SCAN = 100_000
#: Sorted orders kept.
SORTS_KEPT = 2


class BadRequest(Exception):
    pass


def _int(request, key, default, low, high):
    value = request.get(key, default)
    if value is None:
        value = default
    if type(value) is not int or not low <= value <= high:
        raise BadRequest("{} must be an integer from {} to {:,}".format(key, low, high))
    return value


def _positions(request, total, max_columns):
    listed = request.get("columns")
    if listed is not None:
        if type(listed) is not list or not 0 < len(listed) <= max_columns or not all(
                type(p) is int and p >= 0 for p in listed):
            raise BadRequest("columns must list 1 to {} column positions".format(max_columns))
        beyond = [p for p in listed if p >= total]
        if beyond:
            raise BadRequest("column {} is out of range: the value has {:,} column{}".format(
                beyond[0], total, "" if total == 1 else "s"))
        return listed
    start = _int(request, "column_start", 0, 0, 10 ** 12)
    stop = _int(request, "column_stop", start + max_columns, start, 10 ** 12)
    stop = min(stop, start + max_columns, total)
    return list(range(start, max(start, stop)))


class Sorts:
    """Sorted row orders, keyed by what makes them valid."""

    def __init__(self):
        self.orders = {}

    def order(self, key, compute):
        found = self.orders.get(key)
        if found is not None:
            return found
        order = compute()
        while len(self.orders) >= SORTS_KEPT:
            self.orders.pop(next(iter(self.orders)))
        self.orders[key] = order
        return order


def take(state, request, ns, hidden, tracker, execution_count):
    name = request.get("name")
    if not valid_name(name):
        return refuse("bad_request", "Invalid variable name")
    try:
        max_rows = _int(request, "max_rows", MAX_ROWS, 1, 100_000)
        max_columns = _int(request, "max_columns", MAX_COLUMNS, 1, 10_000)
        offset = _int(request, "offset", 0, 0, 10 ** 15)
        limit = _int(request, "limit", DEFAULT_ROWS, 1, max_rows)
        cell_chars = _int(request, "cell_chars", DEFAULT_CELL, 10, MAX_CELL)
        read_ms = _int(request, "time_guard_ms", DEFAULT_READ_MS, 1, MAX_MS)
        sort_ms = _int(request, "sort_ms", DEFAULT_SORT_MS, 1, MAX_MS)
        cell_ms = _int(request, "cell_guard_ms", DEFAULT_CELL_MS, 1, MAX_MS)
        budget_ms = _int(request, "budget_ms", sort_ms + 4 * read_ms, 1, 4 * MAX_MS)
        sort_column = request.get("sort_column")
        if sort_column is not None and (type(sort_column) is not str or len(sort_column) > 1000):
            raise BadRequest("sort_column must be a column name")
    except BadRequest as exc:
        return refuse("bad_request", "Invalid rows request: {}".format(exc))
    value = ns.get(name, MISSING) if type(ns) is dict else lookup(ns, name)
    if value is MISSING or is_hidden(name, value, hidden):
        return refuse("not_found", "Variable not found: " + name)
    what = "{} ({})".format(name, type_name(type(value)))
    with guard.session(read_ms, budget_ms) as session:
        try:
            window = _window(state, session, name, value, request, execution_count,
                             offset, limit, max_columns, cell_chars, sort_column, sort_ms,
                             cell_ms)
        except (BadRequest, filters.BadFilter) as exc:
            return refuse("bad_request", str(exc))
        except NotTabular as exc:
            return refuse("bad_request", "{} is {}".format(name, exc))
        except Lazy as exc:
            return refuse("lazy", "{} is {}".format(name, exc))
        except guard.ProbeTimeout:
            return refuse("unprocessable", "Reading rows of {} timed out".format(what))
        except guard.BudgetExhausted:
            return refuse("unprocessable", "Reading rows of {} ran out of time".format(what))
        except guard.GuardUnavailable as exc:
            return refuse("unprocessable", "Rows of {} {}".format(what, exc))
        except BaseException as exc:
            message = guard.user_error("reading rows", exc)
            return refuse("unprocessable", "{}: {}".format(what, message))
    if tracker is not None:
        window["changed_at"] = tracker.changed_at(name)
    return {"rows": window}


def _window(state, session, name, value, request, ec, offset, limit, max_columns,
            cell_chars, sort_column, sort_ms, cell_ms):
    adapter = adapter_for(value, session)
    total = adapter.total_rows()
    columns_total = adapter.columns_total()
    shape = adapter.shape()
    positions = _positions(request, columns_total, max_columns)
    rows = slice(min(offset, total), min(total, offset + limit))
    sort = where = None
    filtered = None
    spec = request.get("filter")
    if sort_column is not None or spec is not None:
        descending = request.get("sort_desc") is True
        by = None if sort_column is None else _find_column(adapter, sort_column, columns_total)
        if spec is not None:
            column, op, operand = filters.check(spec)
            where = (_find_column(adapter, column, columns_total), op, operand)
        key = (name, id(value), type(value), by, descending, where, ec, total)
        order = state.sorts.order(key, lambda: session.run_within(
            sort_ms, _ordered, adapter, total, by, descending, where))
        filtered = len(order) if where is not None else None
        rows = order[min(offset, len(order)):offset + limit]
        if sort_column is not None:
            sort = "{}:{}".format(sort_column, "desc" if descending else "asc")
    cells = Cells(cell_chars, session, cell_ms)
    labels = adapter.column_labels(positions)
    index, data = adapter.window(rows, positions, cells)
    return {
        "name": name,
        "kind": adapter.kind,
        "type": type_name(type(value)),
        "shape": shape,
        "total_rows": total,
        "offset": offset,
        "limit": limit,
        "columns": [{"name": n, "dtype": d, "position": p}
                    for (n, d), p in zip(labels, positions)],
        "columns_total": columns_total,
        "index_name": adapter.index_name,
        "index": index,
        "rows": data,
        "sort": sort,
        "filter": None if where is None else dict(request.get("filter")),
        "filtered_rows": filtered,
        "cells_truncated": cells.truncated,
        "cells_unread": cells.unread,
        "changed_at": None,
    }


def _ordered(adapter, total, by, descending, where):
    """Row positions sorted by column ``by`` (None: in order) and kept where the filter
    holds (``where``: position, op, operand; None: every row)."""
    np = sys.modules.get("numpy")
    order = adapter.sort_order(by, descending) if by is not None else None
    if where is None:
        return order
    position, op, operand = where
    keep = filters.mask(adapter.column_values(position), op, operand)
    if np is not None:
        keep = np.asarray(keep, dtype=bool)
        if order is None:
            return np.flatnonzero(keep)
        order = np.asarray(order)
        return order[keep[order]]
    if order is None:
        return [i for i in range(total) if keep[i]]
    return [i for i in order if keep[i]]


def _find_column(adapter, wanted, columns_total):
    for position, text in enumerate(adapter.column_names(min(columns_total, MAX_NAME_SCAN))):
        if text == wanted:
            return position
    raise BadRequest("No column named {!r}".format(wanted[:100]))

