"""The ``count`` op: the rows of a table, or those its view's filter keeps — counted by the
engine for an engine's table (``backends``: on demand, where a window said "not counted"),
by the value's own library for a table in memory.

Fields (``protocol.OPERATIONS["count"]``): ``name``, ``view`` (its filter; a sort changes
no count), ``time_guard_ms`` (each read of the value), ``count_ms`` (the count: the
engine's query, or the filter of a table in memory), ``budget_ms`` (the whole call).
Refusals as for ``rows``; a count past ``count_ms`` is cancelled in the engine and
refused as ``unprocessable`` (it says how long it was given).
"""

import time

from ..inspect.base import type_name
from .table import TableWords, ms_since, read_table

_WORDS = TableWords("Counting", "Count of", "counting rows",
                    not_tabular=("rows show", "counts are of"))


def take(state, fields, ns, hidden, tracker):
    """The ``count`` op: ``{"count": {"name", "rows", "filtered", "cost_ms", "engine"}}``."""
    return read_table(fields, ns, hidden, "count",
                      lambda session, value, table: _count(state, value, table, fields),
                      _WORDS)


def _count(state, value, table, fields):
    started = time.perf_counter()
    n = table.read_count(state, fields)
    cost = ms_since(started)
    return {"name": fields["name"], "rows": n, "filtered": fields["view"].filter is not None,
            "cost_ms": cost, "engine": table.info(n, cost), "type": type_name(type(value))}
