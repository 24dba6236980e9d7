"""What every engine's table offers the table ops (``rows``, ``count``, ``profile``,
``code``) and the list, and how engine work runs: within a time guard, cancelled in the
engine past it.

An engine module defines one :class:`EngineTable` subclass and registers it
(:func:`register`).  The table is a *plan*: its schema, where its data lives and its plan
text are read without computing anything (the list, the detail, the prompt); everything
else — a window, a count, a sort, a filter, a column's statistics — is one query the
engine runs, bringing back at most the window or one aggregate row (or a few: a top-k,
a histogram's bins).  Each query runs through :meth:`EngineTable.run`: under the probe's
time guard, and past it cancelled *in the engine* (:meth:`EngineTable.cancel`: DuckDB's
interrupt, a Spark job tag, a polars background query, a dask scheduler callback), so no
work of ours keeps running after the answer.

Rows of an engine's table have no index: a window's labels are its rows' positions in
the view.  Sorts are the engine's own (missing values last); an engine whose sort is not
stable orders ties as it finds them (said in the docs).
"""

import sys
import threading
import time

from .. import guard
from ..inspect import third_party  # noqa: F401 (its resolvers first: the engines' go before)
from ..inspect.base import RESOLVERS, Inspector
from ..inspect.display import cut
from ..inspect.tables import dtype_summary, label_text
from ..protocol import View
from ..windows.columns import NoSuchColumn
from ..windows.families import BadFilter
from ..windows.statistics import (
    QUANTILES,
    Texts,
    bins_for,
    edges_for,
    finite,
    histogram,
    iso,
    numbers_out,
    strings_out,
)

#: Characters of a column name, and of the plan a detail shows.
LABEL_CHARS = 200
PLAN_CHARS = 4_000
#: Columns named in a list's preview.
PREVIEW_COLUMNS = 8
#: Counts kept (by value, view and execution), so that paging does not count again.
COUNTS_KEPT = 16
#: The quantiles a profile asks an engine for (5, 25, 50, 75, 95 %).
PERCENTS = (5, 25, 50, 75, 95)


class EngineError(Exception):
    """The engine refused or failed the query: its own first line (a 422)."""


class Cancelled(Exception):
    """The query ran past its time guard and was cancelled in the engine (a 422 that
    says how long it was given)."""


class Refused(Exception):
    """What the engine cannot do without collecting (a 400 that says why)."""


def first_line(exc):
    """An engine exception's own first line (its class name when it has no text)."""
    for line in str(exc).splitlines():
        line = line.strip()
        if line:
            return cut(line, 300)[0]
    return type(exc).__name__


class EngineTable:
    """One engine's table, bound to the probe call's guard session.

    Class attributes: ``engine`` (its id: ``duckdb``), ``title`` (``DuckDB``),
    ``syntaxes`` (the code it writes; the first is its own), ``stops`` (how a query past
    its guard is stopped, for the docs and messages)."""

    engine = "engine"
    title = "Engine"
    syntaxes = ()
    stops = "cancelled"
    #: True: a watchdog thread calls :meth:`cancel` at the guard's time (for engines
    #: that may block in native code without looking at Python signals).
    watchdog = False

    def __init__(self, value, session):
        self.value = value
        self.session = session
        self._schema = None

    # --- which values -------------------------------------------------------------------

    @classmethod
    def matches(cls, t, mro):
        """Whether the type ``t`` (its MRO: ``mro``) is this engine's table."""
        return False

    # --- the plan: nothing computed -----------------------------------------------------

    def read_schema(self):
        """[(name, dtype text)] of every column, from the plan."""
        raise NotImplementedError

    def schema(self):
        """The columns' names (cut for display) and dtypes; an engine that cannot say
        (a closed connection, a stopped session) is an :class:`EngineError`."""
        if self._schema is None:
            try:
                read = self.read_schema()
            except BaseException as exc:
                if isinstance(exc, guard.OURS):
                    raise
                guard.check(exc)
                raise EngineError(first_line(exc)) from None
            self._schema = [(label_text(n, LABEL_CHARS), d) for n, d in read]
        return self._schema

    def known_rows(self):
        """The row count when the engine knows it without computing (None otherwise)."""
        return None

    def location(self):
        """Where the data lives (a database file, scanned paths, a cluster), or None."""
        return None

    def plan(self):
        """The engine's plan as text (bounded by the caller)."""
        return ""

    # --- the adapter's face, for ViewColumns --------------------------------------------

    kind = "dataframe"
    index_name = None

    def columns_total(self):
        return len(self.schema())

    def column_names(self, n):
        return [name for name, _ in self.schema()[:n]]

    def column_labels(self, positions):
        schema = self.schema()
        return [schema[p] for p in positions]

    def column_name(self, position):
        """The column's own name in the engine (not cut)."""
        return self.raw_names()[position]

    def raw_names(self):
        raise NotImplementedError

    def family(self, position):
        """The ``windows.families.Column`` of a column: how a filter value is read."""
        raise NotImplementedError

    # --- computed in the engine ---------------------------------------------------------

    # Each takes ``columns`` (``windows.columns.ViewColumns``: the columns the view names,
    # found) and ``ms``, the time guard of its query.

    def count(self, view, ms, columns):
        """The rows the view's filter keeps (all rows without one)."""
        raise NotImplementedError

    def window(self, view, offset, limit, positions, ms, columns):
        """The rows ``offset`` to ``offset + limit`` of the view, as a list of rows (each a
        list of the ``positions``' Python values)."""
        raise NotImplementedError

    def profile_column(self, view, position, top, rows, ms, texts, columns):
        """One column's statistics: ``{"family", "count", "null_count", "approximate",
        ...the family's fields}``, of the view's rows (its sort changes none), or of
        its first ``rows`` rows when ``rows`` is not None (the bounded fallback)."""
        raise NotImplementedError

    def code(self, view, selected, syntax, name, columns):
        """Code in ``syntax`` that binds ``<name>_view`` to the view's rows, order and
        columns (``selected``: positions, None for every column)."""
        raise NotImplementedError

    # --- running ------------------------------------------------------------------------

    def run(self, ms, fn, *args):
        """``fn(*args)`` within ``ms`` (and the call's budget); past it, cancelled in the
        engine (:meth:`cancel`: from the guard's signal, and from a watchdog thread when
        the engine may not look at signals) and :class:`Cancelled`; the engine's own
        errors as :class:`EngineError`."""
        started = time.perf_counter()
        watch = None
        if self.watchdog:
            left = min(ms / 1000.0, max(0.0, self.session.deadline - started))
            watch = _Watchdog(left, self.cancel)
        try:
            return self.session.run_within(ms, fn, *args)
        except guard.ProbeTimeout:
            if watch is None or not watch.end():
                self.cancel()
            raise Cancelled(self.cancelled_text(ms, started)) from None
        except guard.BudgetExhausted:
            raise
        except (guard.GuardUnavailable, guard.ProbeInterrupted, Refused, EngineError,
                Cancelled, BadFilter, NoSuchColumn):
            raise  # ours, or the view's own fault (a 400)
        except BaseException as exc:
            guard.check(exc)
            fired = watch is not None and watch.end()
            if fired or self.session.exhausted:
                if not fired:
                    self.cancel()
                raise Cancelled(self.cancelled_text(ms, started)) from None
            raise EngineError(first_line(exc)) from None
        finally:
            if watch is not None:
                watch.end()

    def cancel(self):
        """Stop what this table's engine is running for us (nothing by default: the
        guard's signal stops engines that check for it)."""

    def cancelled_text(self, ms, started):
        spent = int((time.perf_counter() - started) * 1000)
        return "{} {} after {:,} ms (its time guard is {:,} ms): it needs more time".format(
            self.stops, self.title, spent, ms)

    def info(self, counted=None, cost_ms=None):
        """What a reply says of the engine (``engine`` in rows and profiles)."""
        return {"name": self.engine, "title": self.title, "lazy": True,
                "rows": counted, "location": self.location_text(),
                "cost_ms": cost_ms}

    def location_text(self):
        try:
            place = self.location()
        except Exception as exc:
            guard.check(exc)
            return None
        return None if place is None else cut(str(place), 300)[0]


class _Watchdog:
    """Calls ``cancel`` from a thread of its own after ``seconds``, unless the run ended
    first (decided under a lock; ``cancel`` itself runs outside it, so an engine's cancel
    may wait for its query to end).  An engine whose cancel must never reach a later
    query guards that itself (the Ibis backend does); DuckDB's is one ``interrupt()``."""

    def __init__(self, seconds, cancel):
        self.lock = threading.Lock()
        self.running = True
        self.fired = False
        self.cancel = cancel
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True
        self.timer.start()

    def _fire(self):
        with self.lock:
            if not self.running:
                return
            self.fired = True
        try:
            self.cancel()
        except Exception:
            pass  # the engine is gone: the query ends with its own error

    def end(self):
        """Stop watching; whether it fired (then the engine was asked to cancel)."""
        with self.lock:
            self.running = False
        self.timer.cancel()
        return self.fired


# --- the registry and the list's inspector ---------------------------------------------

ENGINES = []


def register(table_class):
    """Make ``table_class`` the table of its engine's values (list, detail and ops)."""
    ENGINES.append(table_class)
    _RESOLVED.clear()
    return table_class


_RESOLVED = {}


def engine_class(t):
    """The registered table class for type ``t``, or None."""
    found = _RESOLVED.get(t, False)
    if found is not False:
        return found
    try:
        mro = t.__mro__
    except Exception:
        mro = (t,)
    found = None
    for table_class in ENGINES:
        try:
            if table_class.matches(t, mro):
                found = table_class
                break
        except Exception:
            continue
    if len(_RESOLVED) > 1024:
        _RESOLVED.clear()
    _RESOLVED[t] = found
    return found


def table_for(value, session):
    """The engine table of ``value`` bound to ``session``, or None (not an engine's)."""
    table_class = engine_class(type(value))
    return None if table_class is None else table_class(value, session)


def type_in(mro, module_prefix, names):
    """Whether a class of ``mro`` is named one of ``names`` in a module under
    ``module_prefix`` (a library recognised without importing it)."""
    for cls in mro:
        module = getattr(cls, "__module__", "") or ""
        if cls.__name__ in names and module.startswith(module_prefix):
            return True
    return False


class EngineInspector(Inspector):
    """An engine's table in the list and the detail: its schema, where it lives and (in
    the detail) its plan, all read from the plan; nothing is computed."""

    kind = "dataframe"
    mutable = False  # a plan: its identity is its fingerprint

    def __init__(self, table_class):
        self.table_class = table_class

    def _table(self, v):
        return self.table_class(v, None)

    def shape(self, v):
        table = self._table(v)
        rows = table.known_rows()
        return None if rows is None else [int(rows), table.columns_total()]

    def dtype(self, v):
        counts = {}
        for _name, d in self._table(v).schema():
            counts[d] = counts.get(d, 0) + 1
        return dtype_summary(counts)

    def preview(self, v, limit, depth=0, ctx=None):
        table = self._table(v)
        schema = table.schema()
        rows = table.known_rows()
        head = "lazy · {} · {} · {:,} column{}".format(
            table.title, "not counted" if rows is None else "{:,} rows".format(rows),
            len(schema), "" if len(schema) == 1 else "s")
        parts = ["{}:{}".format(n, d) for n, d in schema[:PREVIEW_COLUMNS]]
        if len(schema) > len(parts):
            parts.append("…")
        text = head + (" — " + ", ".join(parts) if parts else "")
        return cut(text, limit)[0], len(parts) < len(schema) or len(text) > limit

    def detail_repr(self, v, limit):
        return self.preview(v, limit)

    def fingerprint(self, v):
        return ("engine", id(v))

    def children(self, v):
        return None

    def table(self, v):
        table = self._table(v)
        schema = table.schema()
        plan, plan_cut = cut(table.plan() or "", PLAN_CHARS)
        rows = table.known_rows()
        return {
            "columns": [{"name": n, "dtype": d} for n, d in schema[:200]],
            "columns_total": len(schema),
            "head": None,
            "engine": {"name": table.engine, "title": table.title, "lazy": True,
                       "rows": rows, "location": table.location_text(),
                       "plan": plan, "plan_truncated": plan_cut},
        }


_INSPECTORS = {}


def _resolve(t, mro):
    table_class = engine_class(t)
    if table_class is None:
        return None
    insp = _INSPECTORS.get(table_class)
    if insp is None:
        insp = _INSPECTORS[table_class] = EngineInspector(table_class)
    return insp


RESOLVERS.insert(0, _resolve)


# --- counts kept --------------------------------------------------------------------------


class Counts:
    """Counts by (value identity, type, view, execution): paging a view counts once.
    Each count holds the value it counted (at most :data:`COUNTS_KEPT` plans, small
    objects), so that another value given the same id once the first is gone never
    reads its count."""

    def __init__(self):
        self.kept = {}

    def get(self, key, value):
        found = self.kept.get(key)
        if found is None or found[0] is not value:
            return None
        return found[1]

    def put(self, key, value, n):
        while len(self.kept) >= COUNTS_KEPT:
            self.kept.pop(next(iter(self.kept)))
        self.kept[key] = (value, n)


COUNTS = Counts()


def sort_keys(view, columns):
    """The view's sort keys as [(position, descending)], a column's first key only."""
    out, seen = [], set()
    for key in view.sort:
        position = columns.find(key.column)
        if position not in seen:
            seen.add(position)
            out.append((position, key.desc))
    return out


def count_key(value, view, execution_count):
    return (id(value), type(value), View(filter=view.filter).key, execution_count)


# --- profiles from aggregates ------------------------------------------------------------


def numbers_from(low, high, mean, std, quantiles, bins_counts, edges):
    """A number column's statistics (``statistics.numbers_out``) from an engine's
    aggregates: ``quantiles`` at :data:`PERCENTS`; ``bins_counts`` per edge interval."""
    qs = [finite(q) for q in quantiles]
    median = qs[2]
    others = [qs[0], qs[1], qs[3], qs[4]]
    assert len(others) == len(QUANTILES)
    return numbers_out(low, high, mean, median, std, others, histogram(edges, bins_counts))


def bins_of(n, quantiles, low, high):
    """The histogram's edges for ``n`` finite values (Freedman–Diaconis, Sturges), as
    the in-memory profiles make them; None without a range."""
    if not n or low is None or high is None:
        return None
    q25, q75 = quantiles[1], quantiles[3]
    if q25 is None or q75 is None:
        q25 = q75 = 0.0
    bins = bins_for(n, float(q25), float(q75), float(low), float(high))
    return edges_for(low, high, bins)


def strings_from(distinct, empty, top, present, texts):
    return strings_out(distinct, empty, top, present, 1.0, texts)


def number(x):
    """An aggregate's number as a Python int or float (a Decimal as float), None when it
    is none."""
    if x is None or type(x) in (int, float):
        return x
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def dates_from(low, high, median):
    return {"min": iso(low), "max": iso(high), "median": iso(median)}


def new_texts(limit):
    return Texts(limit)


def loaded(module):
    """The library if the user imported it (never imported here)."""
    return sys.modules.get(module)
