"""PySpark DataFrames — classic (py4j) and Spark Connect (gRPC) — explored in Spark.

The view is Spark ``Column`` expressions built as ``windows.expressions`` trees —
``F.col("price").isNotNull() & ~F.isnan(F.col("price")) & (F.col("price") > 10.0)`` —
evaluated on the real ``F`` (``pyspark.sql.functions`` for classic, its Connect twin for
Connect, both read from ``sys.modules``) for the rows and rendered for the ``code`` op
(``t_view = t.filter(…).orderBy(…).select([…])``), one tree for both.  Missing values
are null, and NaN in float and double columns (``F.isnan``): they match only ``isnull``.
Sorts are ``asc_nulls_last``/``desc_nulls_last`` of the column, NaN read as null
(``F.nanvl(c, F.lit(None))``), since Spark orders NaN above every number.  Text tests
are ``contains``, ``startswith``, ``endswith`` and ``rlike`` (Java regex; ``(?i)`` for
case-insensitive) of the column, or of ``cast("string")`` for other columns.

What comes back to the kernel: a window's rows, a count, one aggregate row per profiled
column, a top-k and at most 50 histogram bins.  Never more:

* A window at offset 0, and any window within the first :data:`DIRECT_ROWS` rows, is
  ``df.filter(c).orderBy(…).offset(o).limit(n)``: Spark takes a sorted view's first rows
  as a top-k.
* Past that, Spark's own ``offset`` would collect every skipped row in its driver (an
  offset of 25,000,000 stopped a Connect server's SparkContext, 500,000,000 ran local
  mode out of memory).  An unsorted view is paged by partition instead: its rows per
  partition are counted once (``groupBy(F.spark_partition_id()).count()``: a full pass,
  a tiny result, kept per value, filter and IPython execution), then rows [a, b) of
  partition p are those whose ``F.monotonically_increasing_id()`` (p << 33 | the row's
  place in its partition) lies between two bounds — a full pass again, but only the
  window comes back.  The order is Spark's partition order, stable for scans of files and ranges.
  A sorted view past :data:`DIRECT_ROWS` is refused (400: Spark would collect every
  earlier row in its driver): filter first.
* A count is ``df.filter(c).count()``.  A column's profile reads the column alone
  (projected first).  A number column: one ``agg`` (count, nulls, NaN, min, max, mean,
  stddev, ``percentile_approx`` at 5/25/50/75/95 %: flagged approximate), then its
  histogram, a ``groupBy`` of a bucket (its edges need the first job's range and
  quartiles).  A text column: one ``agg`` (``approx_count_distinct``: flagged
  approximate, empty strings), then its ``top`` values, a ``groupBy`` (one job that sums
  the groups and keeps the top in one plan was tried: its first run compiled for
  seconds).  Every query of a Spark table gets at least
  :data:`MIN_QUERY_MS` of time (a job's fixed cost), within the call's budget.

Cancelling.  A Spark call blocks in py4j or gRPC, where no Python signal is seen, and a
py4j connection interrupted mid-answer would be left out of step.  So every call — the
schema, the plan and the queries — runs in a worker thread of its own, whose jobs carry
a tag (classic: a job group, ``interruptOnCancel``; Connect: ``spark.addTag``, the
client's tags being per thread); the kernel's main thread waits, interruptibly, under
the probe's time guard.  Past it, the jobs are cancelled in Spark
(``cancelJobGroupAndFutureJobs`` / ``spark.interruptTag``, from another thread, bounded;
again every :data:`RECANCEL_S`, for a job that started after the cancel) and the worker
joined (bounded).  Spark stops a running task at its next interruption check: file scans
check between records, but the generated loop of ``spark.range`` checks once per batch
(up to 2^31 rows), so such a task can run on after its job was cancelled (the reply says
so when it sees it, classic only).  With ``PYSPARK_PIN_THREAD=false`` (not pyspark's
default) a job group cannot be kept to our thread: nothing is tagged nor cancelled, and
the reply says so.

A stopped SparkSession, or a Connect server that went away (its gRPC channel, asked to
connect, is not READY within :data:`REACH_S`), is a clear engine error at once, never the
client's retries (about ten minutes by default).  The Connect location is the server's
``sc://host:port``, never the URL's parameters (its token).  Engine errors
(``AnalysisException``, a Java exception) are the engine's first line.
"""

import os
import sys
import threading
import time
import uuid
import weakref

from .. import guard
from ..protocol import CASE_OPS, LIST_OPS, RANGE_OPS, Condition, View
from ..windows import filters
from ..windows.columns import sort_keys
from ..windows.expressions import (
    Binary,
    Imports,
    Invert,
    Ref,
    both,
    compare,
    method,
    text_literal,
)
from ..windows.families import BadFilter, Column, typed
from . import aggregates, base
from .base import EngineError, Refused, register
from .engine import EngineTable

#: The least time guard of a Spark query (ms): a job's fixed cost, which the profile's
#: per-column guard (1 s by default) would not always cover on a warm local session.
MIN_QUERY_MS = 3_000
#: Rows a window may reach with Spark's own offset (in its driver): past it, an unsorted
#: view is paged by partition and a sorted one refused.
DIRECT_ROWS = 10_000
#: Partitions a view may have to be paged by partition (their counts come back as rows).
MAX_PARTITIONS = 100_000
#: Partition counts kept (by value, filter and execution).
PARTITIONS_KEPT = 16
#: How long a worker is waited for once its jobs were cancelled; how long reading a
#: schema, a plan or the input files may take (no guard: the list and the detail).
JOIN_S = 10.0
RECANCEL_S = 0.5
SCHEMA_S = 10.0
FILES_S = 1.0
PLAN_S = 5.0
#: How long a Connect server's channel may take to become ready.
REACH_S = 2.0
#: How long cancelled tasks are watched as they end (classic), and how often.
SETTLE_S = 0.5
POLL_S = 0.05
#: Files a location lists.
FILES_SHOWN = 5
DESCRIPTION = "jupyter-kernel-state"

_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_INTEGERS = ("ByteType", "ShortType", "IntegerType", "LongType")
_FLOATS = ("FloatType", "DoubleType")
_FAMILIES = {"DecimalType": "float", "StringType": "string", "VarcharType": "string",
             "CharType": "string", "BooleanType": "boolean", "DateType": "date",
             "TimestampType": "datetime", "TimestampNTZType": "datetime"}
_PROFILE_FAMILY = {"integer": "number", "float": "number", "string": "string",
                   "boolean": "boolean", "date": "datetime", "datetime": "datetime"}
#: Characters of a column name that ``F.col`` would read as a path or a star.
_SPECIAL = (".", "`", "*")


@register
class SparkTable(EngineTable):
    engine = "spark"
    title = "Spark"
    syntaxes = ("pyspark",)
    stops = "cancelled in"
    #: Every Spark job costs a fraction of a second however small its input (scheduling,
    #: a stage per shuffle; more on a loaded machine): no query of ours is given less.
    min_query_ms = MIN_QUERY_MS

    def __init__(self, value, session):
        super().__init__(value, session)
        connect = base.type_in(type(value).__mro__, "pyspark.sql.connect", ("DataFrame",))
        self.spark = (_Connect if connect else _Classic)(value)
        self.title = "Spark Connect" if connect else "Spark"
        self._location = None
        self._fields = None  # the StructType
        self._running = None  # the worker of the query being waited for
        self._straggling = 0  # tasks still ending after a cancel
        self._unstopped = False  # a worker that outlived its cancel

    @classmethod
    def matches(cls, t, mro):
        return base.type_in(mro, "pyspark.sql", ("DataFrame",))

    # --- the plan -----------------------------------------------------------------------

    def _struct(self):
        """The DataFrame's StructType (pyspark keeps it: read once per DataFrame)."""
        if self._fields is None:
            cached = self.spark.cached_schema()
            if cached is None:
                self.spark.check()
                cached = self._read(SCHEMA_S, "its schema", lambda: self.value.schema)
            self._fields = cached
        return self._fields

    def read_schema(self):
        return [(f.name, f.dataType.simpleString()) for f in self._struct().fields]

    def raw_names(self):
        return [f.name for f in self._struct().fields]

    def _type(self, position):
        return type(self._struct().fields[position].dataType).__name__

    def family(self, position):
        return self._column(position).column

    def _column(self, position):
        name = self.raw_names()[position]
        kind = self._type(position)
        if kind in _INTEGERS:
            family = "integer"
        elif kind in _FLOATS:
            family = "float"
        else:
            family = _FAMILIES.get(kind, "other")
        label, dtype = self.schema()[position]
        column = Column(label, dtype, family)
        return _SparkColumn(self._functions(), name, column, kind in _FLOATS)

    def location(self):
        if self._location is None:
            place = self.spark.place()
            files = self._files()
            if files:
                place += " · files: " + ", ".join(files[:FILES_SHOWN])
                place += " …" if len(files) > FILES_SHOWN else ""
            self._location = place
        return self._location

    def _files(self):
        """The input files, when Spark knows them at once (a bounded wait)."""
        try:
            self.spark.check()
            return list(self._read(FILES_S, "its input files", self.value.inputFiles))
        except Exception as exc:
            guard.check(exc)
            return []

    def plan(self):
        try:
            self.spark.check()
            return self._read(PLAN_S, "its plan", self.spark.plan_text)
        except EngineError as exc:
            return "(the plan was not read: {})".format(exc)

    # --- the view as Column expressions ----------------------------------------------------

    def _functions(self):
        return Ref("F", self.spark.functions())

    def _condition(self, view, columns):
        """The filter as one Column node (built here, evaluated in the worker)."""
        if view.filter is None:
            return None
        return _condition(view.filter, lambda c: self._column(columns.find(c)))

    def _sort(self, view, columns):
        keys = []
        for position, desc in sort_keys(view, columns):
            keys.append(self._column(position).sort_key(desc))
        return keys

    def _nodes(self, view, columns, order=True):
        return self._condition(view, columns), self._sort(view, columns) if order else []

    def _viewed(self, nodes):
        """The DataFrame of the view (in the worker: building Columns may call Spark)."""
        condition, keys = nodes
        df = self.value
        if condition is not None:
            df = df.filter(condition.evaluate())
        if keys:
            df = df.orderBy(*[key.evaluate() for key in keys])
        return df

    def _selected(self, positions):
        names = self.raw_names()
        return [_quoted(names[p]) for p in positions]

    # --- computed in Spark ----------------------------------------------------------------

    def count(self, view, ms, columns):
        nodes = self._nodes(view, columns, order=False)
        return int(self._query(ms, lambda: self._viewed(nodes).count()))

    def window(self, view, offset, limit, positions, ms, columns):
        nodes = self._nodes(view, columns)
        selected = self._selected(positions)
        if offset + limit <= DIRECT_ROWS:
            return self._query(ms, _direct, self._viewed, nodes, self._functions(), offset,
                               limit, selected)
        if nodes[1]:
            raise Refused(
                "rows {:,} to {:,} of a sorted view are not read: Spark would collect every "
                "earlier row in its driver to skip them (a sorted view shows its first {:,} "
                "rows) — filter first to bring the rows you want to the top".format(
                    offset, offset + limit, DIRECT_ROWS))
        return self._deep_page(view, nodes, offset, limit, selected, ms)

    def _deep_page(self, view, nodes, offset, limit, selected, ms):
        """Rows [offset, offset + limit) of an unsorted view, partition by partition."""
        key = (id(self.value), type(self.value), View(filter=view.filter).key,
               _execution())
        counts = PARTITIONS.get(key, self.value)
        if counts is None:
            counts = self._query(ms, _partition_counts, self._viewed, nodes, self._functions())
            PARTITIONS.put(key, self.value, counts)
        bounds = _row_ids(counts, offset, offset + limit)
        if bounds is None:
            return []
        row_id = _free_name(self.raw_names())
        return self._query(ms, _page, self._viewed, nodes, self._functions(), selected,
                           row_id, bounds)

    def profile_column(self, view, position, top, rows, ms, texts, columns):
        nodes = self._nodes(view, columns, order=False)
        col = self._column(position)
        family = _PROFILE_FAMILY.get(col.column.family, "other")
        reader = _Profile(self._viewed, nodes, rows, col)
        entry = {"family": family}
        if family == "number":
            total, present, nans, low, high, mean, std, qs, finite_n = self._query(
                ms, reader.numbers)
            qs = [aggregates.number(q) for q in (qs or [None] * len(aggregates.PERCENTS))]
            low, high = aggregates.number(low), aggregates.number(high)
            edges = aggregates.bins_of(finite_n, qs, low, high)
            counts = None if edges is None else self._query(ms, reader.bins, edges)
            entry.update(aggregates.numbers_from(low, high, aggregates.number(mean),
                                                 aggregates.number(std), qs, counts, edges))
            entry["approximate"] = finite_n > 0
        elif family == "string":
            total, present, nans, distinct, empty = self._query(ms, reader.strings)
            best = self._query(ms, reader.top, top) if top and present else []
            entry.update(aggregates.strings_from(distinct, empty, best, present, texts))
            entry["approximate"] = present > 0
        elif family == "boolean":
            total, present, nans, true = self._query(ms, reader.booleans)
            entry.update({"true": int(true), "false": int(present) - int(true)})
            entry["approximate"] = False
        elif family == "datetime":
            total, present, nans, low, high, median = self._query(ms, reader.dates)
            entry.update(aggregates.dates_from(low, high, median))
            entry["approximate"] = present > 0
        else:
            total, present, nans = self._query(ms, reader.counts)
            entry["approximate"] = False
        nulls = int(total) - int(present) + int(nans)
        entry["count"], entry["null_count"] = int(total) - nulls, nulls
        return entry

    # --- code -----------------------------------------------------------------------------

    def code(self, view, selected, syntax, name, columns):
        condition, keys = self._nodes(view, columns)
        imports = Imports()
        calls = []
        if condition is not None:
            calls.append(".filter({})".format(condition.render(imports)))
        if keys:
            calls.append(".orderBy({})".format(", ".join(k.render(imports) for k in keys)))
        if selected is not None:
            names = ", ".join(text_literal(n) for n in self._selected(selected))
            calls.append(".select([{}])".format(names))
        out = name + "_view"
        header = ["from pyspark.sql import functions as F", *imports.header()]
        if not calls:
            return "{} = {}\n".format(out, name)
        body = "{} = (\n    {}\n    {}\n)\n".format(out, name, "\n    ".join(calls))
        return "\n".join(header) + "\n\n" + body

    # --- running --------------------------------------------------------------------------

    def _query(self, ms, fn, *args):
        """``fn(*args)`` in a worker thread, its jobs tagged, within ``ms``: past it, its
        jobs are cancelled in Spark (:meth:`cancel`)."""
        self.spark.check()
        self._straggling, self._unstopped = 0, False
        return self.run(ms, self._wait, _Worker(self.spark, fn, args, tagged=True))

    def run(self, ms, fn, *args):
        try:
            return super().run(ms, fn, *args)
        finally:
            self.cancel()  # an interrupt, too, stops what runs for us

    def _wait(self, worker):
        """The worker's outcome, once it ends; an engine error as soon as a Connect
        server goes out of reach meanwhile (its client would retry for minutes: the
        worker is left to it, nothing being reachable to cancel)."""
        self._running = worker
        watch = self.spark.watch()
        try:
            worker.start()
            while not worker.wait(POLL_S):
                if watch.lost:
                    self._running = None
                    raise EngineError(self.spark.unreachable(watch.lost))
        finally:
            watch.close()
        self._running = None
        return worker.outcome()

    def cancel(self):
        """Cancels the running worker's jobs in Spark and waits for it (bounded): again
        every :data:`RECANCEL_S`, for a job (an operation) that started after a cancel."""
        worker, self._running = self._running, None
        if worker is None or worker.done.is_set():
            return
        if not self.spark.cancellable:
            return  # its reply says so
        deadline = time.monotonic() + JOIN_S
        while not worker.done.is_set() and time.monotonic() < deadline:
            _bounded(min(RECANCEL_S, deadline - time.monotonic()), self.spark.interrupt,
                     worker.tag)
            worker.done.wait(max(0.0, min(RECANCEL_S, deadline - time.monotonic())))
        self._straggling = self.spark.straggling(worker.tag)
        self._unstopped = not worker.done.is_set()

    def cancelled_text(self, ms, started):
        text = super().cancelled_text(ms, started)
        if not self.spark.cancellable:
            text += " (not cancelled in Spark: with PYSPARK_PIN_THREAD=false its jobs cannot " \
                    "be told from the kernel's own)"
        elif self._unstopped:
            text += " (Spark has not stopped it {:,} s after the cancel)".format(int(JOIN_S))
        elif self._straggling:
            text += " ({} of its tasks still finishing: Spark stops a task at its next " \
                    "interruption check)".format(self._straggling)
        return text

    def _read(self, seconds, what, fn, *args):
        """``fn(*args)`` in a worker thread, waited for at most ``seconds`` (reading the
        plan: nothing to cancel, an abandoned read ends by itself)."""
        worker = _Worker(self.spark, fn, args, tagged=False)
        worker.start()
        if not worker.wait(seconds):
            raise EngineError("{} did not give {} within {:,} ms".format(
                self.title, what, int(seconds * 1000)))
        return worker.outcome()


# --- a column in expressions ----------------------------------------------------------------


class _SparkColumn:
    """A column as the view's expressions see it: ``F.col(name)`` (a node), its
    ``families.Column`` (how values read) and whether NaN can be in it."""

    def __init__(self, functions, name, column, nan):
        self.F, self.column, self.nan = functions, column, nan
        self.name = _quoted(name)
        self.ref = method(functions, "col", self.name)

    def present(self):
        not_null = method(self.ref, "isNotNull")
        if not self.nan:
            return not_null
        return both(not_null, Invert(method(self.F, "isnan", self.ref)))

    def missing(self):
        null = method(self.ref, "isNull")
        if not self.nan:
            return null
        return Binary("|", (null, method(self.F, "isnan", self.ref)))

    def text(self):
        if self.column.family == "string":
            return self.ref
        return method(self.ref, "cast", "string")

    def sort_key(self, desc):
        value = self.ref
        if self.nan:  # NaN as null, so that it sorts last (Spark puts NaN above numbers)
            value = method(self.F, "nanvl", self.ref, method(self.F, "lit", None))
        return method(value, "desc_nulls_last" if desc else "asc_nulls_last")


def _condition(node, resolve):
    """The filter ``node`` as one Column node; ``resolve(column)`` gives its
    :class:`_SparkColumn`."""
    if type(node) is not Condition:
        parts = [_condition(n, resolve) for n in node.nodes]
        return Binary("&" if node.join == "and" else "|", parts) if len(parts) > 1 else parts[0]
    col = resolve(node.column)
    if node.op == "isnull":
        return col.missing()
    if node.op == "notnull":
        return col.present()
    return both(col.present(), _test(node, col))


def _test(c, col):
    op, column = c.op, col.column
    if op in _SYMBOLS:
        return compare(_SYMBOLS[op], col.ref, typed(column, c.value))
    if op in RANGE_OPS:
        low, high = (typed(column, v) for v in c.value)
        test = method(col.ref, "between", low, high)
        return Invert(test) if op == "not_between" else test
    if op in LIST_OPS:
        test = method(col.ref, "isin", [typed(column, v) for v in c.value])
        return Invert(test) if op == "not_in" else test
    if op in CASE_OPS:
        test = _search(c, col)
        return Invert(test) if op == "not_contains" else test
    if op in ("empty", "not_empty"):
        if column.family != "string":
            raise column.refuse(op, "it applies to text columns")
        return compare("==" if op == "empty" else "!=", col.ref, "")
    if column.family != "boolean":
        raise column.refuse(op, "it applies to boolean columns")
    return compare("==", col.ref, op == "is_true")


def _search(c, col):
    text = col.text()
    if c.op == "regex":
        _check_regex(c)
        return method(text, "rlike", c.value if c.case else "(?i)" + c.value)
    value = c.value
    if not c.case:
        text, value = method(col.F, "lower", text), value.lower()
    name = {"contains": "contains", "not_contains": "contains", "starts_with": "startswith",
            "ends_with": "endswith"}[c.op]
    return method(text, name, value)


def _check_regex(c):
    """A pattern without a repetition of repetitions: Java's regex backtracks, and a task
    inside one match does not see its job cancelled."""
    try:
        parsed = filters._parsed(c.value)
    except Exception:
        return  # not Python's syntax: Java judges it
    if filters._nested_repeat(parsed, False):
        raise BadFilter(
            "filter regex {!r} repeats a repetition (like (a+)+), which Java's regex can take "
            "exponential time on, beyond any cancel: write it without the nested "
            "repetition".format(c.value[:60]))


def _quoted(name):
    """``name`` as ``F.col`` and ``select`` read it: backticks around a name with a dot,
    a backtick or a star (inner backticks doubled)."""
    if any(ch in name for ch in _SPECIAL):
        return "`" + name.replace("`", "``") + "`"
    return name


# --- the queries (run in a worker thread) -----------------------------------------------------


def _direct(viewed, nodes, F, offset, limit, selected):
    """Rows [offset, offset + limit) of the view, Spark taking the first rows."""
    df = viewed(nodes)
    if offset:
        df = df.offset(offset)
    df = df.limit(limit)
    if not selected:
        return [[] for _ in df.select(F.value.lit(1)).collect()]
    return [list(row) for row in df.select(*selected).collect()]


def _partition_counts(viewed, nodes, F):
    """[(partition, rows)] of the view, partitions in order (a full pass)."""
    F = F.value
    found = (viewed(nodes).groupBy(F.spark_partition_id().alias("p")).count()
             .limit(MAX_PARTITIONS + 1).collect())
    if len(found) > MAX_PARTITIONS:
        raise Refused("the view has more than {:,} partitions: it is not paged past its first "
                      "{:,} rows — filter first".format(MAX_PARTITIONS, DIRECT_ROWS))
    return sorted((int(p), int(n)) for p, n in found)


def _row_ids(counts, start, stop):
    """The monotonically_increasing_id bounds (inclusive) of the view's rows
    [start, stop), from the rows per partition; None past the last row."""
    bounds = []
    stop = min(stop, sum(n for _, n in counts))
    if start >= stop:
        return None
    for wanted in (start, stop - 1):
        seen = 0
        for p, n in counts:
            if wanted < seen + n:
                bounds.append((p << 33) | (wanted - seen))
                break
            seen += n
    return bounds[0], bounds[1]


def _page(viewed, nodes, F, selected, row_id, bounds):
    """The view's rows whose monotonically_increasing_id is within ``bounds``, in order."""
    F = F.value
    df = viewed(nodes).select(*selected, F.monotonically_increasing_id().alias(row_id))
    rows = df.filter(F.col(row_id).between(bounds[0], bounds[1])).collect()
    rows.sort(key=lambda row: row[-1])
    return [list(row)[:-1] for row in rows]


def _free_name(names):
    """A column name the DataFrame does not have (Spark compares names ignoring case)."""
    name, taken = "__jupyter_kernel_state_row", {n.lower() for n in names}
    while name in taken:
        name += "_"
    return name


class _Profile:
    """One column's aggregates over the view (or its first ``rows`` rows), the column
    projected first (``c``, and ``v``: its finite values, NaN and ±inf as null), so that
    Spark computes each value once and carries no other column."""

    def __init__(self, viewed, nodes, rows, col):
        self.viewed, self.nodes, self.rows = viewed, nodes, rows
        self.F, self.name, self.nan = col.F.value, col.name, col.nan

    def frame(self):
        df = self.viewed(self.nodes)
        return df if self.rows is None else df.limit(self.rows)

    def projected(self):
        F, c = self.F, self.F.col(self.name)
        value = F.when((c > float("-inf")) & (c < float("inf")), c) if self.nan else c
        return self.frame().select(c.alias("c"), value.alias("v"))

    def head(self):
        F, c = self.F, self.F.col("c")
        nans = F.count(F.when(F.isnan(c), 1)) if self.nan else F.lit(0)
        return [F.count(F.lit(1)), F.count(c), nans]

    def _one(self, *aggregates):
        return tuple(self.projected().agg(*self.head(), *aggregates).collect()[0])

    def counts(self):
        return self._one()

    def numbers(self):
        F, v = self.F, self.F.col("v")
        percents = [p / 100.0 for p in aggregates.PERCENTS]
        return self._one(F.min(v), F.max(v), F.avg(v), F.stddev_samp(v),
                         F.percentile_approx(v, percents), F.count(v))

    def bins(self, edges):
        F, v = self.F, self.F.col("v")
        bins = len(edges) - 1
        low, high = float(edges[0]), float(edges[-1])
        step = (high - low) / bins
        bucket = F.least(F.greatest(F.floor((v - F.lit(low)) / F.lit(step)).cast("long"),
                                    F.lit(0)), F.lit(bins - 1))
        found = (self.projected().filter(v.isNotNull()).groupBy(bucket.alias("b")).count()
                 .collect())
        counts = [0] * bins
        for b, n in found:
            counts[int(b)] += int(n)
        return counts

    def strings(self):
        F, c = self.F, self.F.col("c")
        return self._one(F.approx_count_distinct(c), F.count(F.when(c == "", 1)))

    def top(self, k):
        F, v = self.F, self.F.col("v")
        found = (self.projected().filter(v.isNotNull()).groupBy(v).agg(F.count(F.lit(1)).alias("n"))
                 .orderBy(F.desc("n"), F.asc("v")).limit(k).collect())
        return [(value, int(n)) for value, n in found]

    def booleans(self):
        F, c = self.F, self.F.col("c")
        return self._one(F.count(F.when(c, 1)))

    def dates(self):
        F, c = self.F, self.F.col("c")
        return self._one(F.min(c), F.max(c), F.percentile_approx(c, 0.5))


# --- the worker thread ------------------------------------------------------------------------


class _Worker:
    """One Spark call in a thread of its own, its jobs tagged (``tag``) when it runs
    queries; the engine's errors read there (reading a py4j error calls Java)."""

    def __init__(self, spark, fn, args, tagged):
        self.spark, self.fn, self.args, self.tagged = spark, fn, args, tagged
        self.tag = "jupyter-kernel-state-" + uuid.uuid4().hex[:16]
        self.done = threading.Event()
        self.result = self.error = None
        self.thread = threading.Thread(target=self._run, name=DESCRIPTION + " spark",
                                       daemon=True)

    def start(self):
        self.thread.start()

    def wait(self, seconds=None):
        """Whether it ended (within ``seconds``); a signal (the time guard) interrupts."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while not self.done.wait(POLL_S):
            if deadline is not None and time.monotonic() > deadline:
                return False
        return True

    def outcome(self):
        if self.error is not None:
            raise self.error
        return self.result

    def _run(self):
        try:
            if self.tagged:
                self.spark.tag(self.tag)
            try:
                self.result = self.fn(*self.args)
            finally:
                if self.tagged:
                    self.spark.untag(self.tag)
        except (Refused, EngineError, BadFilter) as exc:
            self.error = exc
        except BaseException as exc:
            self.error = EngineError(_engine_text(exc))
        finally:
            self.done.set()


def _engine_text(exc):
    """An engine exception's first informative line (a py4j error's Java exception)."""
    try:
        text = str(exc)
    except Exception:
        return type(exc).__name__
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("An error occurred while calling"):
            continue
        return base.first_line(line.lstrip(": "))
    return type(exc).__name__


def _bounded(seconds, fn, *args):
    """``fn(*args)`` in a thread, waited for at most ``seconds`` (its errors ignored)."""
    thread = threading.Thread(target=_quietly, args=(fn, *args), daemon=True,
                              name=DESCRIPTION + " spark cancel")
    thread.start()
    thread.join(seconds)


def _quietly(fn, *args):
    try:
        fn(*args)
    except Exception:
        pass


# --- the two kinds of session ------------------------------------------------------------------


class _Classic:
    """A classic (py4j) DataFrame's session: job groups, the SparkContext's master.

    A job group belongs to the JVM thread of the Python thread that set it (pyspark's
    pinned threads, the default since 3.2); with ``PYSPARK_PIN_THREAD=false`` any pooled
    JVM thread may carry it — into the user's own jobs — so nothing is tagged then, and
    nothing can be cancelled."""

    def __init__(self, df):
        self.df = df
        self.session = df.sparkSession
        self.sc = self.session._sc
        self.cancellable = os.environ.get("PYSPARK_PIN_THREAD", "true").lower() != "false"

    def functions(self):
        F = sys.modules.get("pyspark.sql.functions")
        if F is None:
            raise EngineError("pyspark.sql.functions is not loaded in this kernel: "
                              "from pyspark.sql import functions as F")
        return F

    def cached_schema(self):
        return vars(self.df).get("schema")

    def check(self):
        if getattr(self.sc, "_jsc", None) is None:
            raise EngineError("its SparkSession was stopped (spark.stop()): make the "
                              "DataFrame again on a running session")

    def place(self):
        return "Spark master " + str(getattr(self.sc, "master", "?"))

    def plan_text(self):
        return self.sc._jvm.PythonSQLUtils.explainString(self.df._jdf.queryExecution(),
                                                         "simple")

    def tag(self, tag):
        if self.cancellable:
            self.sc.setJobGroup(tag, DESCRIPTION, True)

    def untag(self, tag):
        if self.cancellable:
            self.sc._jsc.clearJobGroup()

    def interrupt(self, tag):
        if not self.cancellable:
            return
        try:  # Spark 4: the jobs the group starts later too
            self.sc._jsc.sc().cancelJobGroupAndFutureJobs(tag, DESCRIPTION + ": past its guard")
        except Exception:
            self.sc.cancelJobGroup(tag)

    def watch(self):
        return _Watch(None)

    def straggling(self, tag):
        """Tasks of the group's jobs still running after a cancel, once they had
        :data:`SETTLE_S` to end."""
        out = []
        _bounded(SETTLE_S + JOIN_S, lambda: out.append(self._settle(tag)))
        return out[0] if out else 0

    def _settle(self, tag):
        deadline = time.monotonic() + SETTLE_S
        while True:
            running = self._running_tasks(tag)
            if not running or time.monotonic() > deadline:
                return running
            time.sleep(POLL_S * 4)

    def _running_tasks(self, tag):
        tracker = self.sc.statusTracker()
        running = 0
        for job in tracker.getJobIdsForGroup(tag):
            info = tracker.getJobInfo(job)
            for stage in (info.stageIds if info is not None else ()):
                stage_info = tracker.getStageInfo(stage)
                if stage_info is not None:
                    running += stage_info.numActiveTasks
        return running


class _Connect:
    """A Spark Connect DataFrame's session: operation tags, the server's address."""

    cancellable = True

    def __init__(self, df):
        self.df = df
        self.session = df.sparkSession
        self.client = self.session.client

    def functions(self):
        F = sys.modules.get("pyspark.sql.connect.functions")
        if F is None:
            raise EngineError("pyspark.sql.connect.functions is not loaded in this kernel")
        return F

    def cached_schema(self):
        return getattr(self.df, "_cached_schema", None)

    def check(self):
        if self.client.is_closed:
            raise EngineError("its Spark Connect session was stopped (spark.stop()): make "
                              "the DataFrame again on a running session")
        state = _channel_state(self.client._channel, REACH_S)
        if state != "READY":
            raise EngineError(self.unreachable(state))

    def unreachable(self, state):
        return "the Spark Connect server at {} does not answer (its channel is {})".format(
            self.address(), state or "not ready after {:,} ms".format(int(REACH_S * 1000)))

    def watch(self):
        return _Watch(self.client._channel)

    def address(self):
        builder = self.client._builder
        endpoint = getattr(builder, "endpoint", None) or getattr(builder, "host", "?")
        return "sc://" + str(endpoint)  # never the URL's parameters: its token

    def place(self):
        return "Spark Connect " + self.address()

    def plan_text(self):
        return self.df._explain_string(mode="simple")

    def tag(self, tag):
        self.session.addTag(tag)

    def untag(self, tag):
        self.session.removeTag(tag)

    def interrupt(self, tag):
        if _channel_state(self.client._channel, RECANCEL_S) == "READY":  # else: it retries
            self.session.interruptTag(tag)

    def straggling(self, tag):
        return 0  # the server's tasks are not seen from the client


class _Watch:
    """A gRPC channel's connectivity while a call runs: ``lost`` (the state's name) once
    it fails to connect; nothing for a classic session (``channel`` None)."""

    def __init__(self, channel):
        self.lost = None
        self.channel = channel if hasattr(channel, "subscribe") else None
        if self.channel is not None:
            self.channel.subscribe(self._seen)

    def _seen(self, state):
        if state.name in ("TRANSIENT_FAILURE", "SHUTDOWN"):
            self.lost = state.name

    def close(self):
        if self.channel is not None:
            self.channel.unsubscribe(self._seen)


def _channel_state(channel, seconds):
    """The gRPC channel's connectivity once it settles (READY, TRANSIENT_FAILURE,
    SHUTDOWN); None when it does not settle within ``seconds``.  An idle channel is asked
    to connect — only then: grpc's poller would ask again after we left, and fail on a
    channel closed meanwhile (its own race)."""
    if not hasattr(channel, "subscribe"):
        return "READY"  # a channel of the user's making: the query will tell
    state = _settled(channel, seconds, False, ("READY", "TRANSIENT_FAILURE", "SHUTDOWN",
                                               "IDLE", "CONNECTING"))
    if state in ("IDLE", "CONNECTING"):
        state = _settled(channel, seconds, True, ("READY", "TRANSIENT_FAILURE", "SHUTDOWN"))
    return state


def _settled(channel, seconds, connect, final):
    """The first state of ``final`` the channel reports within ``seconds``, or None."""
    settled = threading.Event()
    seen = []

    def watch(state):
        seen.append(state.name)
        if state.name in final:
            settled.set()

    channel.subscribe(watch, try_to_connect=connect)
    try:
        deadline = time.monotonic() + seconds
        while not settled.wait(POLL_S) and time.monotonic() < deadline:
            pass
    finally:
        channel.unsubscribe(watch)
    return next(name for name in seen if name in final) if settled.is_set() else None


# --- partition counts kept ------------------------------------------------------------------


class _PartitionCounts:
    """Rows per partition by (value, filter, execution), for paging deep into a view;
    an entry holds its DataFrame weakly, so that a new value at a reused id misses."""

    def __init__(self):
        self.kept = {}

    def get(self, key, value):
        found = self.kept.get(key)
        if found is None or found[0]() is not value:
            return None
        return found[1]

    def put(self, key, value, counts):
        while len(self.kept) >= PARTITIONS_KEPT:
            self.kept.pop(next(iter(self.kept)))
        try:
            ref = weakref.ref(value)
        except TypeError:  # held, then: the entry keeps its value alive, and its id
            ref = _Held(value)
        self.kept[key] = (ref, counts)


class _Held:
    def __init__(self, value):
        self.value = value

    def __call__(self):
        return self.value


PARTITIONS = _PartitionCounts()


def _execution():
    """The kernel's execution count (IPython's), so that counts kept end with a cell."""
    ipython = sys.modules.get("IPython")
    try:
        shell = ipython.get_ipython() if ipython is not None else None
    except Exception:
        return None
    count = getattr(shell, "execution_count", None)
    return count if type(count) is int else None
