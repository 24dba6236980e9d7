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

from .. import guard
from ..inspect.base import MISSING, type_name
from ..namespace.visibility import is_hidden, lookup
from ..protocol import refusal
from ..windows.adapt import adapter_for
from ..windows.adapters import Lazy, NotTabular
from ..windows.columns import NoSuchColumn
from ..windows.families import BadFilter
from ..windows.order import kept_rows
from ..windows.profiles import Profiler, sample_positions
from ..windows.statistics import Texts
from .rows import _positions as asked_columns


def take(state, fields, ns, hidden, tracker):
    """The ``profile`` op: ``{"profile": TableProfile}`` or a refusal."""
    name = fields["name"]
    value = lookup(ns, name)
    if value is MISSING or is_hidden(name, value, hidden):
        return refusal("not_found", "Variable not found: " + name)
    what = "{} ({})".format(name, type_name(type(value)))
    with guard.session(fields["time_guard_ms"], fields["budget_ms"]) as session:
        try:
            profile = _profile(session, value, fields)
        except (NoSuchColumn, BadFilter) as exc:
            return refusal("bad_request", str(exc))
        except NotTabular as exc:
            return refusal("bad_request", "{} is {}".format(name, exc).replace(
                "rows show", "profiles show"))
        except Lazy as exc:
            return refusal("lazy", "{} is {}".format(name, exc).replace(
                "showing rows", "profiling it"))
        except guard.ProbeTimeout:
            return refusal("unprocessable", "Reading {} timed out".format(what))
        except guard.BudgetExhausted:
            return refusal("unprocessable", "Reading {} ran out of time".format(what))
        except guard.GuardUnavailable as exc:
            return refusal("unprocessable", "Profile of {} {}".format(what, exc))
        except BaseException as exc:
            message = guard.user_error("profiling", exc)
            return refusal("unprocessable", "{}: {}".format(what, message))
    return {"profile": profile}


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
