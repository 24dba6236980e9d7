"""The ``rows`` op: a window of a table or an array, for the data explorer.

Fields (``protocol.OPERATIONS["rows"]``): ``name``, ``offset``, ``limit`` (≤
``max_rows``), ``columns`` (column positions, or ``column_start``/``column_stop``; at
most ``max_columns``), ``view`` (the sort and the filter, see filters.py), ``cell_chars``,
``time_guard_ms`` (each read of the value), ``sort_ms`` (the sort and the filter),
``cell_guard_ms`` (each cell's own repr), ``budget_ms`` (the whole call).

Only the window is read.  A sort ranks the one column asked for, under its own time
guard, and is kept (two at most, for the cell that was current) so that scrolling a
sorted table costs a window, not a sort.  Refusals: ``not_found``, ``bad_request`` (also
for values that are not tables), ``lazy`` (reading would compute or consume the value),
``unprocessable`` (the value's own code raised or ran out of time).  The reply echoes the
view it applied (``view``; ``sort`` and ``filter`` as the REST reply says them).
"""

import sys

from . import filters, guard
from .cells import Cells, Lazy, NotTabular
from .detail import lookup
from .inspectors import MISSING, type_name
from .namespace import is_hidden
from .protocol import refusal
from .tabular import adapter_for

#: Column names compared when looking for a column by its name.
MAX_NAME_SCAN = 100_000
#: Sorted orders kept.
SORTS_KEPT = 2


class NoSuchColumn(Exception):
    """The view names a column the value does not have (the message says which)."""


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


def take(state, fields, ns, hidden, tracker):
    """The ``rows`` op: ``{"rows": window}`` or a refusal."""
    name = fields["name"]
    value = lookup(ns, name)
    if value is MISSING or is_hidden(name, value, hidden):
        return refusal("not_found", "Variable not found: " + name)
    what = "{} ({})".format(name, type_name(type(value)))
    with guard.session(fields["time_guard_ms"], fields["budget_ms"]) as session:
        try:
            window = _window(state, session, value, fields)
        except (NoSuchColumn, filters.BadFilter) as exc:
            return refusal("bad_request", str(exc))
        except NotTabular as exc:
            return refusal("bad_request", "{} is {}".format(name, exc))
        except Lazy as exc:
            return refusal("lazy", "{} is {}".format(name, exc))
        except guard.ProbeTimeout:
            return refusal("unprocessable", "Reading rows of {} timed out".format(what))
        except guard.BudgetExhausted:
            return refusal("unprocessable", "Reading rows of {} ran out of time".format(what))
        except guard.GuardUnavailable as exc:
            return refusal("unprocessable", "Rows of {} {}".format(what, exc))
        except BaseException as exc:
            message = guard.user_error("reading rows", exc)
            return refusal("unprocessable", "{}: {}".format(what, message))
    if tracker is not None:
        window["changed_at"] = tracker.changed_at(name)
    return {"rows": window}


def _positions(fields, total):
    """The column positions asked for: listed (each must exist), or a range (cut to what
    there is)."""
    listed = fields["columns"]
    if listed is not None:
        beyond = [p for p in listed if p >= total]
        if beyond:
            raise NoSuchColumn("column {} is out of range: the value has {:,} column{}".format(
                beyond[0], total, "" if total == 1 else "s"))
        return list(listed)
    start, stop, width = fields["column_start"], fields["column_stop"], fields["max_columns"]
    stop = min(start + width if stop is None else stop, start + width, total)
    return list(range(start, max(start, stop)))


def _window(state, session, value, fields):
    name, offset, limit, view = fields["name"], fields["offset"], fields["limit"], fields["view"]
    adapter = adapter_for(value, session)
    total = adapter.total_rows()
    columns_total = adapter.columns_total()
    shape = adapter.shape()
    positions = _positions(fields, columns_total)
    rows = slice(min(offset, total), min(total, offset + limit))
    filtered = None
    if view.sort or view.filter is not None:
        key = view.sort[0] if view.sort else None  # one sort key (protocol.MAX_SORT_KEYS)
        by = None if key is None else _find_column(adapter, key.column, columns_total)
        descending = key is not None and key.desc
        where = None
        condition = view.filter
        if condition is not None:
            where = (_find_column(adapter, condition.column, columns_total), condition.op,
                     condition.value)
        cache_key = (name, id(value), type(value), by, descending, where,
                     state.execution_count(), total)
        order = state.sorts.order(cache_key, lambda: session.run_within(
            fields["sort_ms"], _ordered, adapter, total, by, descending, where))
        filtered = len(order) if where is not None else None
        rows = order[min(offset, len(order)):offset + limit]
    cells = Cells(fields["cell_chars"], session, fields["cell_guard_ms"])
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
        "view": view.to_json(),
        "sort": view.sort_text(),
        "filter": None if view.filter is None else view.filter.to_json(),
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
    """The position of column ``wanted``: a position, or a name as the columns list it."""
    if type(wanted) is int:
        if wanted < columns_total:
            return wanted
        raise NoSuchColumn("column {} is out of range: the value has {:,} column{}".format(
            wanted, columns_total, "" if columns_total == 1 else "s"))
    for position, text in enumerate(adapter.column_names(min(columns_total, MAX_NAME_SCAN))):
        if text == wanted:
            return position
    raise NoSuchColumn("No column named {!r}".format(wanted[:100]))
