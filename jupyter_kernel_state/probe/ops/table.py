"""What the table ops (``rows``, ``count``, ``profile``, ``code``) share: the variable
looked up and refused alike, its table found (``backends.base.backend_for``: every
library registered, in memory and in engines), the read run within the call's time
guard and budget, its failures said as refusals in each op's own words; the column
positions a window or a profile asks for.
"""

import time

from .. import guard
from ..backends import dask, duckdb, ibis, numpy, pandas, polars, polars_lazy, records, spark  # noqa: F401 (register the tables)
from ..backends.base import Cancelled, EngineError, Lazy, NotTabular, Refused, backend_for
from ..inspect.base import MISSING, type_name
from ..namespace.visibility import is_hidden, is_output, lookup
from ..protocol import refusal
from ..windows.columns import NoSuchColumn, checked_positions
from ..windows.families import BadFilter


class TableWords:
    """How one table op words its refusals: ``reading`` starts the timeouts' ("Reading
    rows of"), ``title`` the missing guard's ("Rows of"), ``doing`` names what raised
    ("reading rows"); ``not_tabular`` and ``lazy``: (old, new) rewordings of those
    exceptions' text; ``bad_request``: the op's own exceptions answered as 400s."""

    def __init__(self, reading, title, doing, not_tabular=None, lazy=None, bad_request=()):
        self.reading = reading
        self.title = title
        self.doing = doing
        self.not_tabular = not_tabular
        self.lazy = lazy
        self.bad_request = (NoSuchColumn, BadFilter, Refused, *bad_request)


def read_table(fields, ns, hidden, key, read, words):
    """``{key: read(session, value, table)}`` for the variable ``fields["name"]`` (or an
    execution result's ``_<n>``, hidden from the list only) and its
    table (``backends.base.TableBackend``), read within the call's ``time_guard_ms`` and
    ``budget_ms``; else the refusal that says why."""
    name = fields["name"]
    value = lookup(ns, name)
    if value is MISSING or (is_hidden(name, value, hidden) and not is_output(name)):
        if is_output(name):
            return refusal("not_found", "The output {} is gone: deleted, or past IPython's "
                           "output cache".format(name))
        return refusal("not_found", "Variable not found: " + name)
    what = "{} ({})".format(name, type_name(type(value)))
    with guard.session(fields["time_guard_ms"], fields["budget_ms"]) as session:
        try:
            return {key: read(session, value, backend_for(value, session))}
        except words.bad_request as exc:
            return refusal("bad_request", str(exc))
        except NotTabular as exc:
            return refusal("bad_request", _reworded("{} is {}".format(name, exc),
                                                    words.not_tabular))
        except Lazy as exc:
            return refusal("lazy", _reworded("{} is {}".format(name, exc), words.lazy))
        except guard.ProbeTimeout:
            return refusal("unprocessable", "{} {} timed out".format(words.reading, what))
        except guard.BudgetExhausted:
            return refusal("unprocessable", "{} {} ran out of time".format(words.reading, what))
        except Cancelled as exc:
            return refusal("unprocessable", "{} {}: {}".format(words.reading, what, exc))
        except EngineError as exc:
            return refusal("unprocessable", "{}: {}".format(what, exc))
        except guard.GuardUnavailable as exc:
            return refusal("unprocessable", "{} {} {}".format(words.title, what, exc))
        except BaseException as exc:
            message = guard.user_error(words.doing, exc)
            return refusal("unprocessable", "{}: {}".format(what, message))


def _reworded(text, rewording):
    return text if rewording is None else text.replace(*rewording)


def asked_columns(fields, total):
    """The column positions asked for: listed (each must exist), or a range (cut to what
    there is, at most ``max_columns``)."""
    listed = fields["columns"]
    if listed is not None:
        return checked_positions(listed, total)
    start, stop, width = fields["column_start"], fields["column_stop"], fields["max_columns"]
    stop = min(start + width if stop is None else stop, start + width, total)
    return list(range(start, max(start, stop)))


def ms_since(started):
    """Milliseconds since ``started`` (``time.perf_counter``), as an int."""
    return int((time.perf_counter() - started) * 1000)
