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

from .. import guard
from ..inspect.base import inspector_for, type_name
from ..protocol import check as check_request
from ..windows.code import NoCode
from ..windows.known_findings import KnownFindings, clause
from .table import TableWords, asked_columns, ms_since, read_table

_WORDS = TableWords("Checking", "Findings of", "checking it",
                    not_tabular=("rows show", "findings are made for"),
                    lazy=("showing rows", "checking it"), bad_request=(NoCode,))


def take(state, fields, ns, hidden, tracker):
    """The ``findings`` op: ``{"findings": TableFindings}`` or a refusal.  The findings of
    a whole table (no filter, every column) are remembered as the prompt's clause."""
    def read(session, value, table):
        reply = _findings(state, value, table, fields)
        whole = (fields["view"].filter is None
                 and len(reply["view"]["columns"]) == reply["columns_total"]
                 and not reply["columns_cut"] and not reply["errors"])
        if whole and table.engine is None:
            _remember(state, fields["name"], value, tracker, reply)
        return reply

    return read_table(fields, ns, hidden, "findings", read, _WORDS)


def known(state):
    """The probe's remembered clauses (``entry.ProbeState``)."""
    memo = getattr(state, "known_findings", None)
    if memo is None:
        memo = state.known_findings = KnownFindings()
    return memo


def token_of(name, value, tracker):
    """What a remembered clause holds for: the object, its fingerprint (shape, columns,
    dtypes) and the content changes the tracker has seen of the name."""
    t = type(value)
    fp = inspector_for(t).fingerprint(value)
    versions = getattr(getattr(tracker, "records", None), "versions", None) or {}
    return (id(value), t, fp, versions.get(name))


def _remember(state, name, value, tracker, reply):
    text = clause(reply["findings"], reply["findings_total"], reply["sampled"])
    known(state).put(name, token_of(name, value, tracker), text)


#: The digest checks a table whose clause is not known when it has at most this many
#: cells, one table a call, each column under this guard: measured on 2 cores, a
#: 1,000 × 5 frame adds 11 ms to the first digest after it changes (10,000 × 5 would add
#: 65 ms, which is why larger tables are said only once the explorer's Findings,
#: describe_table or the findings route checked them whole).
DIGEST_CELLS = 10_000
DIGEST_TABLES = 1
DIGEST_COLUMN_MS = 50


def clauses(state, names, ns, hidden, tracker):
    """``{name: clause}`` of the tables among ``names`` (pandas and polars DataFrames):
    remembered while unchanged, else checked here when small (``DIGEST_CELLS``, at most
    ``DIGEST_TABLES`` a call); never an engine's table, never a large one."""
    memo, out, checked = known(state), {}, 0
    for name in names:
        value = ns.get(name)
        module = (getattr(type(value), "__module__", "") or "").split(".")[0]
        if module not in ("pandas", "polars") or type(value).__name__ != "DataFrame":
            continue
        with guard.session(DIGEST_COLUMN_MS, DIGEST_COLUMN_MS * 20) as session:
            try:
                token = session.run(token_of, name, value, tracker)
                shape = session.run(lambda v=value: v.shape)
            except (guard.ProbeTimeout, guard.BudgetExhausted, guard.GuardUnavailable):
                continue  # not said, rather than late
            except BaseException as exc:
                guard.check(exc)
                continue
        text = memo.get(name, token)
        if text is None and checked < DIGEST_TABLES and shape[0] * shape[1] <= DIGEST_CELLS:
            checked += 1
            fields = check_request({"op": "findings", "name": name,
                                    "column_ms": DIGEST_COLUMN_MS})[1]
            take(state, fields, ns, hidden, tracker)
            text = memo.get(name, token)
        if text is not None:
            out[name] = text
    return out


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
