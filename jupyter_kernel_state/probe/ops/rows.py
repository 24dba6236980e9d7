"""The ``rows`` op: a window of a table or an array, for the data explorer.

Fields (``protocol.OPERATIONS["rows"]``): ``name``, ``offset``, ``limit`` (≤
``max_rows``), ``columns`` (column positions, or ``column_start``/``column_stop``; at
most ``max_columns``), ``view`` (the sort and the filter: ``protocol.View``), ``cell_chars``,
``time_guard_ms`` (each read of the value), ``sort_ms`` (the sort and the filter),
``cell_guard_ms`` (each cell's own repr), ``count_ms`` (an engine's count of the rows),
``budget_ms`` (the whole call).

Only the window is read: by the value's own library for a table in memory, the view's
filter and sort under their own time guard and the order kept so that scrolling a sorted
table costs a window, not a sort; by one query for an engine's table, which also counts
its rows under ``count_ms`` unless the engine knows them (``total_rows: null`` when the
count is cancelled; the reply's ``engine`` says what the engine did).  Refusals:
``not_found``, ``bad_request`` (also for values that are not tables, a column the view
names that the value lacks, a filter value that does not fit its column's dtype),
``lazy`` (reading would compute or consume the value), ``unprocessable`` (the value's
own code raised or ran out of time, an engine's query failed or was cancelled).  The
reply echoes the view it applied (``view``; ``sort`` as text, ``price:desc,region:asc``,
and ``filter`` as the tree applied).
"""

from ..inspect.base import type_name
from ..windows.cells import Cells
from .table import TableWords, asked_columns, read_table

_WORDS = TableWords("Reading rows of", "Rows of", "reading rows")


def take(state, fields, ns, hidden, tracker):
    """The ``rows`` op: ``{"rows": window}`` or a refusal."""
    reply = read_table(fields, ns, hidden, "rows",
                       lambda session, value, table: _window(state, session, value, table,
                                                             fields), _WORDS)
    if tracker is not None and "rows" in reply:
        reply["rows"]["changed_at"] = tracker.changed_at(fields["name"])
    return reply


def _window(state, session, value, table, fields):
    offset, limit, view = fields["offset"], fields["limit"], fields["view"]
    columns_total = table.columns_total()
    positions = asked_columns(fields, columns_total)
    cells = Cells(fields["cell_chars"], session, fields["cell_guard_ms"])
    page = table.read_page(state, fields, positions, cells)
    labels = table.column_labels(positions)
    reply = {
        "name": fields["name"],
        "kind": table.kind,
        "type": type_name(type(value)),
        "shape": page.shape,
        "total_rows": page.total,
        "offset": offset,
        "limit": limit,
        "columns": [{"name": n, "dtype": d, "position": p}
                    for (n, d), p in zip(labels, positions)],
        "columns_total": columns_total,
        "index_name": table.index_name,
        "index": page.index,
        "rows": page.rows,
        "view": view.to_json(),
        "sort": view.sort_text(),
        "filter": None if view.filter is None else view.filter.to_json(),
        "filtered_rows": page.filtered,
        "cells_truncated": cells.truncated,
        "cells_unread": cells.unread,
        "changed_at": None,
    }
    engine = table.info(page.total if view.filter is None else page.filtered, page.cost_ms)
    if engine is not None:
        reply["engine"] = engine
    return reply
