"""The ``profile`` op: the statistics of a table's columns, for the data explorer and for
assistants (``describe_table``).

Fields (``protocol.OPERATIONS["profile"]``): ``name``, ``columns`` (column positions, or
``column_start``/``column_stop``; at most ``max_columns``), ``view`` (its filter: the rows
profiled; a sort changes no statistic), ``top`` (most frequent values listed per column),
``value_chars`` (characters of a listed value), ``sample_rows`` (past this many rows, the
statistics come from a fixed-seed sample of that many), ``time_guard_ms`` (each read of
the value), ``filter_ms`` (the filter), ``column_ms`` (each column's statistics),
``budget_ms`` (the whole call).

A table in memory is profiled column by column with its own library, each column under
``column_ms`` (past it, listed with its ``error``); an engine's table by one aggregate
query per column, which past ``column_ms`` is cancelled and computed again on the
view's first ``sample_rows`` rows (flagged ``sampled``, ``approximate``).

Refusals as for ``rows``: ``not_found``, ``bad_request`` (not a table, no such column, a
filter value of the wrong type), ``lazy`` (profiling would compute or consume the value),
``unprocessable`` (reading the value raised or ran out of time, or no time guard).
"""

import time

from ..inspect.base import type_name
from ..windows.statistics import Texts
from .table import TableWords, asked_columns, ms_since, read_table

_WORDS = TableWords("Reading", "Profile of", "profiling",
                    not_tabular=("rows show", "profiles show"),
                    lazy=("showing rows", "profiling it"))


def take(state, fields, ns, hidden, tracker):
    """The ``profile`` op: ``{"profile": TableProfile}`` or a refusal."""
    return read_table(fields, ns, hidden, "profile",
                      lambda session, value, table: _profile(state, value, table, fields),
                      _WORDS)


def _profile(state, value, table, fields):
    view = fields["view"]
    columns_total = table.columns_total()
    positions = asked_columns(fields, columns_total)
    labels = table.column_labels(positions)
    texts = Texts(fields["value_chars"])
    started = time.perf_counter()
    profiled = table.read_profile(state, fields, positions, labels, texts)
    reply = {
        "name": fields["name"],
        "type": type_name(type(value)),
        "kind": table.kind,
        "total_rows": profiled.total,
        "filtered_rows": profiled.filtered,
        "columns_total": columns_total,
        "columns": profiled.columns,
        "columns_cut": profiled.cut,
        "sampled": profiled.sampled,
        "sample_rows": fields["sample_rows"] if profiled.sampled else None,
        "values_truncated": texts.truncated,
        "view": dict(view.to_json(), columns=positions),
    }
    counted = profiled.total if view.filter is None else profiled.filtered
    engine = table.info(counted, ms_since(started))
    if engine is not None:
        reply["engine"] = engine
    return reply
