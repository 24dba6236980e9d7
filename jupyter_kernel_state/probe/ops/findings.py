"""The ``findings`` op: a table's data-quality findings, each with the rows it concerns
(a filter the grid opens) and the code that fixes it, for the data explorer's Findings
list and for assistants (``describe_table``).

Fields (``protocol.OPERATIONS["findings"]``): ``name``, ``columns`` (column positions,
or ``column_start``/``column_stop``; at most ``max_columns``), ``view`` (its filter: the
rows checked; a sort changes no finding), ``max_findings`` (findings listed at most;
``findings_cut`` counts the rest), ``syntax`` (the fixes' code: ``pandas``, ``polars``,
``dplyr``, ``duckdb``; null: the value's own library's), ``sample_rows`` (past this many
rows, every check reads a fixed-seed sample of that many, as a profile does, and counts
are flagged ``approximate``), ``time_guard_ms`` (each read of the value), ``filter_ms``
(the filter), ``column_ms`` (each column's checks, the duplicate rows, the
correlations), ``budget_ms`` (the whole call).

The rules, their severities and the fixes are ``windows.findings``'s; a table in memory
is checked column by column with its own library, an engine's table by aggregate queries
(``backends.engine``: the kinds it does not compute are listed in ``not_checked`` with
why).  A column that raises or runs out of ``column_ms`` is listed in ``errors``; the
rest goes on.  Refusals as for ``profile``, and ``bad_request`` for a syntax that does
not fit the value.
"""

import time

from ..inspect.base import type_name
from ..windows.code import NoCode
from .table import TableWords, asked_columns, ms_since, read_table

_WORDS = TableWords("Checking", "Findings of", "checking it",
                    not_tabular=("rows show", "findings are made for"),
                    lazy=("showing rows", "checking it"), bad_request=(NoCode,))


def take(state, fields, ns, hidden, tracker):
    """The ``findings`` op: ``{"findings": TableFindings}`` or a refusal."""
    return read_table(fields, ns, hidden, "findings",
                      lambda session, value, table: _findings(state, value, table, fields),
                      _WORDS)


def _findings(state, value, table, fields):
    view = fields["view"]
    columns_total = table.columns_total()
    positions = asked_columns(fields, columns_total)
    labels = table.column_labels(positions)
    started = time.perf_counter()
    found = table.read_findings(state, fields, positions, labels, type_name(type(value)))
    reply = {
        "name": fields["name"],
        "type": type_name(type(value)),
        "kind": table.kind,
        "total_rows": found.total,
        "filtered_rows": found.filtered,
        "columns_total": columns_total,
        "columns_cut": found.cut,
        "findings": found.findings,
        "findings_total": len(found.findings) + found.findings_cut,
        "findings_cut": found.findings_cut,
        "severities": found.severities,
        "errors": found.errors,
        "not_checked": found.not_checked,
        "syntax": found.syntax,
        "sampled": found.sampled,
        "sample_rows": fields["sample_rows"] if found.sampled else None,
        "view": dict(view.to_json(), columns=positions),
    }
    counted = found.total if view.filter is None else found.filtered
    engine = table.info(counted, ms_since(started))
    if engine is not None:
        reply["engine"] = engine
    return reply
