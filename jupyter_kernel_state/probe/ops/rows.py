"""The ``rows`` op: a window of a table or an array, for the data explorer.

Fields (``protocol.OPERATIONS["rows"]``): ``name``, ``offset``, ``limit`` (≤
``max_rows``), ``columns`` (column positions, or ``column_start``/``column_stop``; at
most ``max_columns``), ``view`` (the sort and the filter: ``protocol.View``), ``cell_chars``,
``time_guard_ms`` (each read of the value), ``sort_ms`` (the sort and the filter),
``cell_guard_ms`` (each cell's own repr), ``budget_ms`` (the whole call).

Only the window is read.  The view's filter and sort are computed by the value's own
library (``windows.sources``: the same expressions the ``code`` op writes) under their
own time guard, and the order is kept (two at most, for the cell that was current) so
that scrolling a sorted table costs a window, not a sort.  Refusals: ``not_found``,
``bad_request`` (also for values that are not tables, a column the view names that the
value lacks, a filter value that does not fit its column's dtype), ``lazy`` (reading
would compute or consume the value), ``unprocessable`` (the value's own code raised or
ran out of time).  The reply echoes the view it applied (``view``; ``sort`` as text,
``price:desc,region:asc``, and ``filter`` as the tree applied).
"""

from ..inspect.base import type_name
from ..windows.adapt import adapter_for
from ..windows.cells import Cells
from ..windows.columns import ViewColumns
from ..windows.order import view_rows
from . import engines
from .table import TableWords, asked_columns, read_table

_WORDS = TableWords("Reading rows of", "Rows of", "reading rows")


def take(state, fields, ns, hidden, tracker):
    """The ``rows`` op: ``{"rows": window}`` or a refusal."""
    reply = read_table(fields, ns, hidden, "rows",
                       lambda session, value: _window(state, session, value, fields), _WORDS,
                       lambda session, table, value: engines.window(
                           state, session, table, value, fields))
    if tracker is not None and "rows" in reply:
        reply["rows"]["changed_at"] = tracker.changed_at(fields["name"])
    return reply


def _window(state, session, value, fields):
    name, offset, limit, view = fields["name"], fields["offset"], fields["limit"], fields["view"]
    adapter = adapter_for(value, session)
    total = adapter.total_rows()
    columns_total = adapter.columns_total()
    shape = adapter.shape()
    positions = asked_columns(fields, columns_total)
    rows = slice(min(offset, total), min(total, offset + limit))
    filtered = None
    if view.sort or view.filter is not None:
        columns = ViewColumns(adapter, view, columns_total)
        cache_key = (name, id(value), type(value), view.key, state.execution_count(), total)
        order, filtered = state.row_orders.order(cache_key, lambda: session.run_within(
            fields["sort_ms"], view_rows, adapter, columns, view))
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


