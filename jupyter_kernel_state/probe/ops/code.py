"""The ``code`` op: Python that binds ``<name>_view`` to the rows, order and columns of a
view, for the data explorer's "Convert to Code".

Fields (``protocol.OPERATIONS["code"]``): ``name``, ``view`` (the sort and the filter),
``columns`` (the positions shown, in order; else ``column_start``/``column_stop``; none:
every column), ``syntax`` (pandas, polars or dplyr; null: the value's own library),
``time_guard_ms`` (each read of the value), ``sort_ms`` (reading the columns the view
names, building a pandas frame of an array or records), ``budget_ms`` (the whole call).

The code is written from the value's dtypes (``windows.code``); nothing is executed but
the library calls that read them.  Refusals as for ``rows``, and ``bad_request`` for a
syntax that does not fit the value.
"""

from ..inspect.base import type_name
from ..windows.adapt import adapter_for
from ..windows.code import NoCode, positions_of, view_code
from ..windows.columns import ViewColumns
from . import engines
from .table import TableWords, read_table

_WORDS = TableWords("Reading", "Code of", "writing its code",
                    not_tabular=("rows show", "code is written for"), bad_request=(NoCode,))


def take(state, fields, ns, hidden, tracker):
    """The ``code`` op: ``{"code": {"syntax", "code", "name", "view"}}`` or a refusal."""
    return read_table(fields, ns, hidden, "code",
                      lambda session, value: _code(session, value, fields), _WORDS,
                      lambda session, table, value: engines.code(session, table, value, fields))


def _code(session, value, fields):
    name, view = fields["name"], fields["view"]
    adapter = adapter_for(value, session)
    columns_total = adapter.columns_total()
    selected = positions_of(fields, columns_total)
    columns = ViewColumns(adapter, view, columns_total)
    syntax, code = session.run_within(
        fields["sort_ms"], view_code, adapter, columns, view, name, fields["syntax"], selected,
        type_name(type(value)))
    echoed = dict(view.to_json(), columns=selected)
    return {"syntax": syntax, "code": code, "name": name, "view": echoed}
