"""The ``rows`` op: a window of a table or an array, for the data explorer.

Fields (``protocol.OPERATIONS["rows"]``): ``name``, ``offset``, ``limit`` (≤
``max_rows``), ``columns`` (column positions, or ``column_start``/``column_stop``; at
most ``max_columns``), ``view`` (the sort and the filter: ``protocol.View``), ``cell_chars``,
``time_guard_ms`` (each read of the value), ``sort_ms`` (the sort and the filter),
``cell_guard_ms`` (each cell's own repr), ``budget_ms`` (the whole call).

Only the window is read.  A sort ranks the one column asked for, under its own time
guard, and is kept (two at most, for the cell that was current) so that scrolling a
sorted table costs a window, not a sort.  Refusals: ``not_found``, ``bad_request`` (also
for values that are not tables), ``lazy`` (reading would compute or consume the value),
``unprocessable`` (the value's own code raised or ran out of time).  The reply echoes the
view it applied (``view``; ``sort`` and ``filter`` as the REST reply says them).
"""

from .. import guard
from ..inspect.base import MISSING, type_name
from ..namespace.visibility import is_hidden, lookup
from ..protocol import refusal
from ..windows.adapt import adapter_for
from ..windows.adapters import Lazy, NotTabular
from ..windows.cells import Cells
from ..windows.filters import BadFilter
from ..windows.order import NoSuchColumn, find_column, ordered


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
        except (NoSuchColumn, BadFilter) as exc:
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
        by = None if key is None else find_column(adapter, key.column, columns_total)
        descending = key is not None and key.desc
        where = None
        condition = view.filter
        if condition is not None:
            where = (find_column(adapter, condition.column, columns_total), condition.op,
                     condition.value)
        cache_key = (name, id(value), type(value), by, descending, where,
                     state.execution_count(), total)
        order = state.row_orders.order(cache_key, lambda: session.run_within(
            fields["sort_ms"], ordered, adapter, total, by, descending, where))
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


