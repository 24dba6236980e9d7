"""The ``code`` op: Python that binds ``<name>_view`` to the rows, order and columns of a
view, for the data explorer's "Convert to Code".

Fields (``protocol.OPERATIONS["code"]``): ``name``, ``view`` (the sort and the filter),
``columns`` (the positions shown, in order; else ``column_start``/``column_stop``; none:
every column), ``syntax`` (``protocol.SYNTAXES``; null: the value's own library's or
engine's),
``time_guard_ms`` (each read of the value), ``sort_ms`` (reading the columns the view
names, building a pandas frame of an array or records), ``budget_ms`` (the whole call).

The code is written from the value's dtypes by its own library's table for a table in
memory (``windows.code``), in the engine's syntax for an engine's (``polars_lazy``,
``duckdb``/``sql``, ``ibis``, ``pyspark``, ``dask``); nothing is executed but the library
calls that read the dtypes.  Refusals as for ``rows``, and ``bad_request`` for a syntax
that does not fit the value.
"""

from ..inspect.base import type_name
from ..windows.code import NoCode
from .table import TableWords, read_table

_WORDS = TableWords("Reading", "Code of", "writing its code",
                    not_tabular=("rows show", "code is written for"), bad_request=(NoCode,))


def take(state, fields, ns, hidden, tracker):
    """The ``code`` op: ``{"code": {"syntax", "code", "name", "view"}}`` or a refusal."""
    return read_table(fields, ns, hidden, "code",
                      lambda session, value, table: _code(value, table, fields), _WORDS)


def _code(value, table, fields):
    syntax, code, selected = table.write_code(fields, type_name(type(value)))
    echoed = dict(fields["view"].to_json(), columns=selected)
    return {"syntax": syntax, "code": code, "name": fields["name"], "view": echoed}
