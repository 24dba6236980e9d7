"""Tables that live in an engine: what each engine's module implements (one
:class:`EngineTable` subclass), the table ops built on it, and how engine work runs —
within a time guard, cancelled in the engine past it.

The table is a *plan*: its schema, where its data lives and its plan text are read
without computing anything (the list, the detail, the prompt); everything else — a
window, a count, a sort, a filter, a column's statistics — is one query the engine runs,
bringing back at most the window or one aggregate row (or a few: a top-k, a histogram's
bins).  Each query runs through :meth:`EngineTable.run`: under the probe's time guard,
and past it cancelled *in the engine* (:meth:`EngineTable.cancel`: DuckDB's interrupt, a
Spark job tag, a polars background query, a dask scheduler callback), so no work of ours
keeps running after the answer; the answer says so (:class:`base.Cancelled`, a 422), and
the engine's own errors are its first line (:class:`base.EngineError`, a 422).

The ops: a window is one query (filter, sort, limit and offset, projection) plus, when
the engine does not know its row count, a count under ``count_ms`` — kept per value, view
and execution (:data:`COUNTS`), so scrolling counts once; a count cancelled in the engine
answers ``total_rows: null`` (not counted) rather than hold the window.  A profile column
is one aggregate query under ``column_ms``; past it, cancelled in the engine, it is
computed again on the view's first ``sample_rows`` rows and flagged (``sampled``,
``approximate``).  Rows of an engine's table have no index: a window's labels are its
rows' positions in the view.  Sorts are the engine's own (missing values last); an
engine whose sort is not stable orders ties as it finds them (said in the docs).

The data-quality findings come from the same kind of aggregates (``engine_findings``).
"""

import threading
import time

from .. import guard
from ..inspect.display import cut
from ..inspect.tables import label_text
from ..protocol import EMPTY_VIEW, View
from ..windows.cells import compact_dates
from ..windows.code import NoCode, positions_of
from ..windows.columns import NoSuchColumn, ViewColumns
from ..windows.families import BadFilter
from .base import Cancelled, EngineError, Page, Profiled, Refused, TableBackend, first_line
from .engine_findings import EngineFindings

#: Characters of a column name.
LABEL_CHARS = 200
#: Counts kept (by value, view and execution), so that paging does not count again.
COUNTS_KEPT = 16
#: The share of the budget left that an engine's least guard (``min_query_ms``) may
#: take: the rest is for cancelling the query in the engine and answering.
FLOOR_SHARE = 0.75
#: Families whose cells read as dates (compact when all at midnight).
_DATES = ("date", "datetime")


class EngineTable(EngineFindings, TableBackend):
    """One engine's table, bound to the probe call's guard session (None in the list).

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
    #: Seconds between the watchdog's further calls of :meth:`cancel` while the run goes
    #: on (None: once).
    watchdog_repeat_s = None
    #: The least time guard any of its queries gets (ms), within the call's budget: the
    #: fixed cost of one query in an engine that schedules jobs (Spark's), which a guard
    #: meant for the query's work alone would not cover.
    min_query_ms = 0

    def __init__(self, value, session):
        super().__init__(value, session)
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

    # --- its columns --------------------------------------------------------------------

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

    # --- the table ops ------------------------------------------------------------------

    def read_page(self, state, fields, positions, cells):
        view, offset, limit = fields["view"], fields["offset"], fields["limit"]
        columns_total = self.columns_total()
        columns = ViewColumns(self, view, columns_total)
        started = time.perf_counter()
        data = self.window(view, offset, limit, positions, fields["sort_ms"], columns)
        cost = ms_since(started)
        total, filtered = self._counts(state, view, columns, fields["count_ms"])
        texts = [_cells(cells, [row[j] for row in data], self.family(p).family)
                 for j, p in enumerate(positions)]
        rows = [[col[i] for col in texts] for i in range(len(data))]
        index = [str(offset + i) for i in range(len(data))]
        return Page([total, columns_total], total, filtered, index, rows, cost)

    def _counts(self, state, view, columns, ms):
        """(every row, the rows the filter keeps): known, kept, or counted now within
        ``ms`` (and the call's budget); None for a count cancelled in the engine."""
        execution = state.execution_count()
        whole = self._count(EMPTY_VIEW, columns, ms, execution)
        if view.filter is None:
            return whole, None
        return whole, self._count(view, columns, ms, execution)

    def _count(self, view, columns, ms, execution):
        if view.filter is None:
            known = self.known_rows()
            if known is not None:
                return int(known)
        key = count_key(self.value, view, execution)
        kept = COUNTS.get(key, self.value)
        if kept is not None:
            return kept
        if self.session.exhausted:
            return None
        try:
            n = self.count(view, ms, columns)
        except Cancelled:
            return None
        COUNTS.put(key, self.value, n)
        return n

    def read_count(self, state, fields):
        """Known, kept, or counted now: past ``count_ms``, :class:`Cancelled` (a refusal
        that says so)."""
        view = fields["view"]
        columns = ViewColumns(self, view, self.columns_total())
        n = None
        if view.filter is None:
            n = self.known_rows()
        key = count_key(self.value, view, state.execution_count())
        if n is None:
            n = COUNTS.get(key, self.value)
        if n is None:
            n = self.count(view, fields["count_ms"], columns)
            COUNTS.put(key, self.value, n)
        return n

    def read_profile(self, state, fields, positions, labels, texts):
        view = fields["view"]
        columns = ViewColumns(self, view, self.columns_total())
        out, unreached, sampled = [], 0, False
        for i, (position, (label, dtype)) in enumerate(zip(positions, labels)):
            if self.session.exhausted:
                unreached = len(positions) - i
                break
            entry = {"name": label, "position": position, "dtype": dtype, "family": "other",
                     "count": None, "null_count": None, "approximate": False, "error": None}
            try:
                entry.update(self._profiled(view, position, fields, texts, columns))
                sampled = entry.pop("sampled", False) or sampled
            except guard.BudgetExhausted:
                unreached = len(positions) - i
                break
            except (Cancelled, EngineError) as exc:
                entry["error"] = str(exc)
            out.append(entry)
        total, filtered = self._known_counts(state, view)
        return Profiled(total, filtered, out, unreached, sampled)

    def _known_counts(self, state, view):
        """(every row, the rows the filter keeps) as far as known or kept: never counted
        here (None when not)."""
        execution = state.execution_count()
        total = self.known_rows()
        if total is None:
            total = COUNTS.get(count_key(self.value, EMPTY_VIEW, execution), self.value)
        filtered = None
        if view.filter is not None:
            filtered = COUNTS.get(count_key(self.value, view, execution), self.value)
        return total, filtered

    def _profiled(self, view, position, fields, texts, columns):
        """A column's statistics over the view, else (cancelled) over its first
        ``sample_rows`` rows, flagged."""
        ms = fields["column_ms"]
        try:
            return self.profile_column(view, position, fields["top"], None, ms, texts, columns)
        except Cancelled as whole:
            try:
                entry = self.profile_column(view, position, fields["top"],
                                            fields["sample_rows"], ms, texts, columns)
            except Cancelled:
                raise whole from None
            entry["approximate"] = True
            entry["sampled"] = True
            entry["error"] = None
            return entry

    def write_code(self, fields, what):
        """In the engine's syntax (:attr:`syntaxes`)."""
        name, view, syntax = fields["name"], fields["view"], fields["syntax"]
        columns_total = self.columns_total()
        if syntax is None:
            syntax = self.syntaxes[0]
        if syntax not in self.syntaxes:
            raise NoCode("{} code is not written for {} (a {} table): ask for {}".format(
                syntax, name, self.title, " or ".join(self.syntaxes)))
        selected = positions_of(fields, columns_total)
        columns = ViewColumns(self, view, columns_total)
        return syntax, self.code(view, selected, syntax, name, columns), selected

    # --- running ------------------------------------------------------------------------

    def run(self, ms, fn, *args):
        """``fn(*args)`` within ``ms`` (and the call's budget); past it, cancelled in the
        engine (:meth:`cancel`: from the guard's signal, and from a watchdog thread when
        the engine may not look at signals) and :class:`Cancelled`; the engine's own
        errors as :class:`EngineError`."""
        started = time.perf_counter()
        # The guard it really has: at least the engine's floor — but no more of the budget
        # left than leaves a quarter of it to cancel in the engine and answer —, at most
        # the budget left.
        left = max(1, int((self.session.deadline - started) * 1000))
        ms = min(max(ms, min(self.min_query_ms, int(left * FLOOR_SHARE))), left)
        watch = None
        if self.watchdog:
            watch = _Watchdog(ms / 1000.0, self.cancel, self.watchdog_repeat_s)
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
    may wait for its query to end), and again every ``repeat`` seconds while it runs: an
    interrupt that lands before the engine has started its query (DuckDB still sniffing a
    CSV, binding) is forgotten when the query starts. An engine whose cancel must never
    reach a later query guards that itself (the Ibis backend does); DuckDB's is one
    ``interrupt()``, which a query started later does not see."""

    #: How long ``end`` waits for a cancel under way to return (it must not reach the
    #: next query: under the GIL a cancel can be held until that query lets go of it).
    END_WAIT_S = 5.0

    def __init__(self, seconds, cancel, repeat=None):
        self.lock = threading.Condition()
        self.running = True
        self.fired = False
        self.cancelling = False
        self.cancel = cancel
        self.repeat = repeat
        self.timer = self._timer(seconds)

    def _timer(self, seconds):
        timer = threading.Timer(seconds, self._fire)
        timer.daemon = True
        timer.start()
        return timer

    def _fire(self):
        with self.lock:
            if not self.running:
                return
            self.fired = True
            self.cancelling = True
            if self.repeat is not None:
                self.timer = self._timer(self.repeat)
        try:
            self.cancel()
        except Exception:
            pass  # the engine is gone: the query ends with its own error
        finally:
            with self.lock:
                self.cancelling = False
                self.lock.notify_all()

    def end(self):
        """Stop watching; whether it fired (then the engine was asked to cancel). A
        cancel under way has returned when this does."""
        with self.lock:
            self.running = False
            timer = self.timer
            self.lock.wait_for(lambda: not self.cancelling, self.END_WAIT_S)
        timer.cancel()
        return self.fired


def _cells(cells, values, family):
    values = [_plain(x) for x in values]
    if family in _DATES:
        return compact_dates([None if x is None else str(x) for x in values])
    return cells.column(values)


def _plain(x):
    """An engine's value as the cells read it: a Decimal as its text."""
    if type(x).__name__ == "Decimal":
        return str(x)
    return x


def ms_since(started):
    return int((time.perf_counter() - started) * 1000)


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


def count_key(value, view, execution_count):
    return (id(value), type(value), View(filter=view.filter).key, execution_count)
