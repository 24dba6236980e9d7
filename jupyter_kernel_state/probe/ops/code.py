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

from .. import guard
from ..inspect.base import MISSING, type_name
from ..namespace.visibility import is_hidden, lookup
from ..protocol import refusal
from ..windows.adapt import adapter_for
from ..windows.adapters import Lazy, NotTabular
from ..windows.code import NoCode, positions_of, view_code
from ..windows.columns import NoSuchColumn, ViewColumns
from ..windows.families import BadFilter


def take(state, fields, ns, hidden, tracker):
    """The ``code`` op: ``{"code": {"syntax", "code", "name", "view"}}`` or a refusal."""
    name = fields["name"]
    value = lookup(ns, name)
    if value is MISSING or is_hidden(name, value, hidden):
        return refusal("not_found", "Variable not found: " + name)
    what = "{} ({})".format(name, type_name(type(value)))
    with guard.session(fields["time_guard_ms"], fields["budget_ms"]) as session:
        try:
            return {"code": _code(session, value, fields)}
        except (NoSuchColumn, BadFilter, NoCode) as exc:
            return refusal("bad_request", str(exc))
        except NotTabular as exc:
            return refusal("bad_request", "{} is {}".format(name, exc).replace(
                "rows show", "code is written for"))
        except Lazy as exc:
            return refusal("lazy", "{} is {}".format(name, exc))
        except guard.ProbeTimeout:
            return refusal("unprocessable", "Reading {} timed out".format(what))
        except guard.BudgetExhausted:
            return refusal("unprocessable", "Reading {} ran out of time".format(what))
        except guard.GuardUnavailable as exc:
            return refusal("unprocessable", "Code of {} {}".format(what, exc))
        except BaseException as exc:
            message = guard.user_error("writing its code", exc)
            return refusal("unprocessable", "{}: {}".format(what, message))


def _code(session, value, fields):
    name, view = fields["name"], fields["view"]
    adapter = adapter_for(value, session)
    columns_total = adapter.columns_total()
    selected = positions_of(fields, columns_total)
    beyond = [p for p in selected or () if p >= columns_total]
    if beyond:
        raise NoSuchColumn("column {} is out of range: the value has {:,} column{}".format(
            beyond[0], columns_total, "" if columns_total == 1 else "s"))
    columns = ViewColumns(adapter, view, columns_total)
    syntax, code = session.run_within(
        fields["sort_ms"], view_code, adapter, columns, view, name, fields["syntax"], selected,
        type_name(type(value)))
    echoed = dict(view.to_json(), columns=selected)
    return {"syntax": syntax, "code": code, "name": name, "view": echoed}
