"""The ``profile`` op: the statistics of a table's columns, for the data explorer and for
assistants (``describe_table``).

Fields (``protocol.OPERATIONS["profile"]``): ``name``, ``columns`` (column positions, or
``column_start``/``column_stop``; at most ``max_columns``), ``view`` (its filter: the rows
profiled; a sort changes no statistic), ``top`` (most frequent values listed per column),
``value_chars`` (characters of a listed value), ``sample_rows`` (past this many rows, the
statistics come from a fixed-seed sample of that many), ``time_guard_ms`` (each read of
the value), ``filter_ms`` (the filter), ``column_ms`` (each column's statistics),
``budget_ms`` (the whole call).

Refusals as for ``rows``: ``not_found``, ``bad_request`` (not a table, no such column, a
filter value of the wrong type), ``lazy`` (profiling would compute or consume the value),
``unprocessable`` (reading the value raised or ran out of time, or no time guard).
"""

from ..inspect.base import type_name
from ..windows.adapt import adapter_for
from ..windows.order import kept_rows
from ..windows.profiles import Profiler, sample_positions
from ..windows.statistics import Texts
from . import engines
from .table import TableWords, asked_columns, read_table

_WORDS = TableWords("Reading", "Profile of", "profiling",
                    not_tabular=("rows show", "profiles show"),
                    lazy=("showing rows", "profiling it"))


def take(state, fields, ns, hidden, tracker):
    """The ``profile`` op: ``{"profile": TableProfile}`` or a refusal."""
    return read_table(fields, ns, hidden, "profile",
                      lambda session, value: _profile(session, value, fields), _WORDS,
                      lambda session, table, value: engines.profile(
                          state, session, table, value, fields))


def _profile(session, value, fields):
    adapter = adapter_for(value, session)
    total = adapter.total_rows()
    columns_total = adapter.columns_total()
    positions = asked_columns(fields, columns_total)
    view = fields["view"]
    rows = kept_rows(session, adapter, view, columns_total, fields["filter_ms"])
    kept = total if rows is None else len(rows)
    limit = fields["sample_rows"]
    sample = sample_positions(kept, limit) if kept > limit else None
    texts = Texts(fields["value_chars"])
    profiler = Profiler(session, adapter, rows, sample, fields["top"], texts,
                        fields["column_ms"])
    columns, cut = profiler.profile(positions, adapter.column_labels(positions))
    return {
        "name": fields["name"],
        "type": type_name(type(value)),
        "kind": adapter.kind,
        "total_rows": total,
        "filtered_rows": None if rows is None else kept,
        "columns_total": columns_total,
        "columns": columns,
        "columns_cut": cut,
        "sampled": sample is not None,
        "sample_rows": None if sample is None else limit,
        "values_truncated": texts.truncated,
        "view": dict(view.to_json(), columns=positions),
    }
