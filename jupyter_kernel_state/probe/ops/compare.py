"""The ``compare`` op: two tables compared row by row — rows added, removed and changed,
the changed cells, each compared column's summary before and after — and a window of
the rows that differ, for the explorer's "Compare with…", assistants
(``compare_tables``) and the CLI.

Fields (``protocol.OPERATIONS["compare"]``): ``name`` (the after) and ``with`` (the
before), ``key`` (column names; null: the index when meaningful, else the position),
``statuses`` (the rows listed: added, removed, changed by default; unchanged too when
asked), ``offset``/``limit`` (≤ ``max_rows``), ``columns`` (positions in the compared
columns' list, or ``column_start``/``column_stop``; at most ``max_columns``), ``view``
(the filter and sort of the listed rows, on the values shown: the key's and compared
columns' of ``name``, of ``with`` for a removed row), ``syntax`` (the code's: pandas,
polars, dplyr), ``with_execution`` (the version of ``with`` kept as of that execution,
``ops.kept``: ``sales`` against itself as it was), ``cell_chars``, ``time_guard_ms``
(reading the columns), ``compare_ms`` (the comparison), ``max_cells`` (rows × columns
compared at most), ``sort_ms`` (the view), ``cell_guard_ms`` (each cell's own repr),
``budget_ms`` (the whole call).

Two pandas or two polars DataFrames are compared by their own library
(``windows.compare``); the comparison is kept (one, with the orders of two views) until
the next cell, so that paging costs a window.  Refusals: ``not_found`` (either name, or
no version of ``with`` kept as of ``with_execution``: the message lists those kept),
``bad_request`` (a value that is no DataFrame, tables of two libraries, a key that is
not a column of both or that repeats, a view naming a column the window lacks, a syntax
that does not fit), ``lazy``, ``unprocessable`` (past ``max_cells``, or the
comparison's time guard; the tables' own code raised).
"""

import textwrap

from ..backends.base import Cancelled, Lazy, NotTabular, backend_for
from ..inspect.base import MISSING, type_name
from ..namespace.visibility import is_hidden, lookup
from ..protocol import refusal
from ..windows import compare as diff
from ..windows.cells import Cells
from ..windows.code import NoCode
from ..windows.compare_code import comparison_code
from . import kept as kept_op
from .table import TableWords, asked_columns, read_table

_WORDS = TableWords("Comparing", "Comparison of", "comparing",
                    not_tabular=("rows show tables, arrays and lists of records",
                                 "comparisons are made between two DataFrames"),
                    lazy=("showing rows", "comparing it"),
                    bad_request=(diff.NotComparable, NoCode))


class TooLarge(Cancelled):
    """More cells than a comparison reads (a 422 that says how many, and the bound)."""


def take(state, fields, ns, hidden, tracker):
    """The ``compare`` op: ``{"comparison": TableComparison}`` or a refusal."""
    values = []
    for field in ("name", "with"):
        value = lookup(ns, fields[field])
        if value is MISSING or is_hidden(fields[field], value, hidden):
            given = "" if field == "name" else " (given as with)"
            return refusal("not_found", "Variable not found: " + fields[field] + given)
        values.append(value)
    version = None
    if fields["with_execution"] is not None:
        kept = kept_op.versions(state)
        version = kept.get(fields["with"], fields["with_execution"])
        if version is None:
            return refusal("not_found", kept_op.missing(kept, fields["with"],
                                                        fields["with_execution"]))
        values[1] = version.value
    return read_table(fields, ns, hidden, "comparison",
                      lambda session, value, table: _compare(state, session, value, table,
                                                             values[1], fields, version),
                      _WORDS)


def _compare(state, session, value, table, other, fields, version):
    # A kept version is named "sales as of [12]" in messages, sales_at_12 in the code.
    names = (fields["name"], fields["with"] if version is None else version.label())
    try:
        other_table = backend_for(other, session)
    except (NotTabular, Lazy) as exc:
        raise diff.NotComparable("{} is {}".format(names[1], _reworded(str(exc)))) from None
    for side, (t, v) in enumerate(((table, value), (other_table, other))):
        if t.engine is not None:
            raise diff.NotComparable("{} is a {} (a lazy {} table): comparisons are made "
                                     "between tables in memory (pandas or polars "
                                     "DataFrames)".format(names[side], type_name(type(v)),
                                                          getattr(t, "title", t.engine)))
    make = getattr(table, "comparer", None)
    if make is None:
        raise diff.NotComparable("{} is a {}: comparisons are made between two pandas or two "
                                 "polars DataFrames".format(names[0], type_name(type(value))))
    comparer = make(other_table, names)
    heights = session.run(lambda: (comparer.height(0), comparer.height(1)))
    widths = (table.columns_total(), other_table.columns_total())
    key = (names, fields["key"], id(value), id(other), type(value), type(other),
           state.execution_count(), heights, widths)
    # a kept comparison keeps its plan: paging reads no column's label again
    kept = _kept(state).peek(key)
    plan = kept.plan if kept is not None else session.run(diff.ComparePlan, comparer,
                                                           fields["key"], names)
    read = max(heights) * (len(plan.pairs) + (len(fields["key"] or ()) or 1))
    if read > fields["max_cells"]:
        raise TooLarge("not compared: {:,} rows × {:,} columns is past the {:,} cells a "
                       "comparison reads (give it more time with budget_ms)".format(
                           max(heights), read // max(1, max(heights)), fields["max_cells"]))
    compared, reused = _kept(state).get(key, lambda: session.run_within(
        fields["compare_ms"], diff.compute, comparer, plan))
    return _reply(session, comparer, compared, reused, fields, value, other, version)


def _kept(state):
    """The comparisons kept by the probe (``entry.ProbeState``)."""
    kept = getattr(state, "comparisons", None)
    if kept is None:
        kept = state.comparisons = diff.Comparisons()
    return kept


def _reworded(text):
    return text.replace(*_WORDS.not_tabular)


def _reply(session, comparer, compared, reused, fields, value, other, version):
    plan, found, view = compared.plan, compared.found, fields["view"]
    codes = [diff.CODES[s] for s in fields["statuses"]]
    ids, kept, selected = diff.listed_rows(session, comparer, compared, fields, codes)
    listed = comparer.size(ids)
    offset, limit = fields["offset"], fields["limit"]
    window = comparer.ids_at(ids, min(offset, listed), min(listed, offset + limit))
    shown = asked_columns(fields, len(plan.pairs))
    cells = Cells(fields["cell_chars"], session, fields["cell_guard_ms"])
    rows = diff.window_rows(comparer, compared, window, shown, cells)
    code, note = _code(comparer, fields, plan, found.by, version)
    reply = {
        "name": fields["name"],
        "with": fields["with"],
        "with_execution": None if version is None else version.execution,
        "type": type_name(type(value)),
        "with_type": type_name(type(other)),
        "library": comparer.library,
        "by": found.by,
        "key": plan.key_names() if found.by == "key" else None,
        "key_note": found.note,
        "total_rows": found.heights[0],
        "with_rows": found.heights[1],
    }
    reply.update(diff.counts_of(compared))
    reply.update({
        "columns": compared.columns,
        "only_in_name": plan.only[0][0],
        "only_in_name_total": plan.only[1][0],
        "only_in_with": plan.only[0][1],
        "only_in_with_total": plan.only[1][1],
        "not_compared": plan.skipped,
        "not_compared_total": plan.skipped_total,
        "statuses": list(fields["statuses"]),
        "listed_rows": selected,
        "filtered_rows": kept,
        "offset": offset,
        "limit": limit,
        "window_columns": [{"name": plan.pairs[j][2], "position": j,
                            "dtype": compared.columns[j]["dtype"],
                            "with_dtype": compared.columns[j]["with_dtype"]} for j in shown],
        "rows": rows,
        "view": view.to_json(),
        "sort": view.sort_text(),
        "filter": None if view.filter is None else view.filter.to_json(),
        "cells_truncated": cells.truncated,
        "cells_unread": cells.unread,
        "code": code,
        "code_note": note,
        "compare_ms": 0 if reused else compared.took_ms,
        "reused": reused,
    })
    return reply


def _code(comparer, fields, plan, by, version):
    """``({"syntax", "code"}, None)``, or ``(None, why)`` when no code is written in the
    tables' own syntax (an asked syntax that does not fit is a 400).  A kept version is
    no variable of the user's: the code names it ``<with>_at_<execution>``, says so in a
    comment, and the note says it (``(code, note)``)."""
    nulls = getattr(comparer, "nulls_keyword", lambda: "nulls_equal")()
    other = fields["with"] if version is None else version.code_name()
    try:
        syntax, code = comparison_code(comparer.library, fields["syntax"],
                                       (fields["name"], other), plan, by, nulls)
    except NoCode as exc:
        if fields["syntax"] is not None:
            raise
        return None, str(exc)
    if version is None:
        return {"syntax": syntax, "code": code}, None
    note = ("{} is {}, a copy the extension keeps (not a variable of yours): to run this "
            "code, bind {} yourself to that version, e.g. {} before the cell that changes "
            "{}".format(other, version.label(), other, _copy_code(syntax, other, version),
                        version.name))
    head = "\n".join("# " + line for line in textwrap.wrap(note, 86))  # R's comment too
    return {"syntax": syntax, "code": head + "\n" + code}, note


def _copy_code(syntax, other, version):
    if syntax == "dplyr":
        return "{} <- {}".format(other, version.name)
    if version.library == "polars":
        return "{} = {}.clone()".format(other, version.name)
    return "{} = {}.copy()".format(other, version.name)
