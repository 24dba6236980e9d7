"""polars LazyFrames explored in polars: the view is a LazyFrame, collected one window or
one aggregate row at a time.

The view is one chain of polars calls — ``t.filter(mask).sort([...], descending=[...],
nulls_last=True, maintain_order=True).select([...])`` — built as a tree of
``windows.expressions`` nodes by the in-memory polars table's own pieces
(``polars.PolarsTable``: the filter tree of ``polars.polars_condition``, a float
column's NaN sorted as null, so last): the ``code`` op renders that tree, a window
evaluates it on the real LazyFrame, so the rows shown are those the code keeps.  A
window adds ``.slice(offset, limit)`` (polars plans a sort followed by a slice as a
top-k, and pushes a slice down into its scans) and collects at most its rows; a count
is ``select(pl.len())``; a number column's statistics are one ``select`` of aggregates
(exact quantiles) and its histogram one ``group_by`` of at most 50 bins; a text column's
one query: a ``group_by`` of its values (missing values one group), then those groups
summed — rows, missing, exact distinct and empty counts — and the ``top`` most frequent.
The schema is ``collect_schema()`` and the plan ``explain()`` (both run polars'
planner, which may list files and read their metadata: under the guard).

Cancelling: polars does not check Python signals while it computes, and its own cancel
(``collect(background=True)``, ``InProcessQuery.cancel``) is no answer: that path runs
polars' in-memory engine, which materializes a scan to sort it (4.3 GB and 6 s for a
window of a 40 M-row Parquet file sorted on two columns, against 0.3 GB and 1.2 s
streaming; 400 M rows took the kernel out of memory), and its cancel landed 4–48 s late
on 400 M rows.  So each query is a plain ``collect()`` — polars' default engine,
streaming unless the user chose another — in a worker thread, which the main thread
waits for in short waits the time guard's signal ends; and the view is built over the
value behind a *checkpoint*: ``map_batches`` of a function that passes each batch on
unchanged (filters, projections and slices are still pushed down through it) and raises
once the query is stopped.  Past its guard a query is stopped and waited for as long as
its guard again (at most :data:`CANCEL_WAIT_S`); :class:`base.Cancelled` says so, and
says when polars had not returned yet.

What the checkpoint stops: whatever reads the value batch by batch — a scan, a filter,
the input of a sort, a ``group_by`` or a profile's aggregates — at its next batch.
Measured with polars 2.1 on 2 cores, a sort, a ``group_by`` and the quantiles of a
400 M-row Parquet scan returned within 0.1 s of the stop; a count whose filter polars
pushes into the Parquet reader within 0.5 s (few rows reach the checkpoint).  What it
does not stop: a step that has read all its input (the quantiles' own sort, a
``group_by``'s finish), work inside the user's own plan before its output (a join or a
``group_by`` the LazyFrame holds), and planning (``collect``'s first step, in the
worker; ``collect_schema`` and ``explain``, on the main thread under the guard, which
is checked when they return).  Its cost: a Python call per batch, some 1.3–3 times the
time of the same query without it (a count of all rows, which polars reads from a
Parquet footer or a frame's length, is run without it).
"""

import math
import re
import sys
import threading

from .. import guard
from ..windows.expressions import AND, Attr, Binary, Call, Imports, Ref, method
from ..windows.findings import DATE_PATTERN, NUMBER_PATTERN
from . import aggregates, base
from .base import register
from .engine import EngineTable
from .engine_findings import ALL_KINDS
from .polars import PolarsTable, polars_column

#: The main thread waits for a query in waits of this long (each one the guard can end).
WAIT_S = 0.05
#: How long a stopped query is waited for: its own guard, at most this (the reply says
#: when it had not returned yet).
CANCEL_WAIT_S = 1.0
#: Stopped queries that had not returned, listed (the last so many) until they do.
MAX_STOPPING = 32
#: Lines of the plan read for the files it scans, and files named.
PLAN_LINES = 2_000
FILES_SHOWN = 5
#: A generated line longer than this is written one call (and one condition) a line.
LINE_CHARS = 80

#: ``Parquet SCAN [/data/a.parquet, ... 5 other sources]`` in ``explain()``'s text.
_SCAN = re.compile(r"^\s*(\w+) SCAN \[(.+)\]\s*$")

#: Stopped queries that had not returned when their reply was sent.
_STOPPING = []

_PROFILE_FAMILY = {"integer": "number", "float": "number", "decimal": "number",
                   "string": "string", "category": "category", "boolean": "boolean",
                   "date": "datetime", "datetime": "datetime"}


class _Frame:
    """What ``polars.PolarsTable`` reads of a frame: its column names and dtypes."""

    def __init__(self, names, dtypes):
        self.columns, self.dtypes = names, dtypes


@register
class PolarsLazyTable(EngineTable):
    engine = "polars"
    title = "polars"
    syntaxes = ("polars_lazy", "polars")
    stops = "cancelled in"
    finding_kinds = ALL_KINDS
    fix_library = "polars"  # polars' DataFrame calls are a LazyFrame's too

    def __init__(self, value, session):
        super().__init__(value, session)
        self._names = self._dtypes = None
        self._plan = None
        self._query = None
        self._ms = 0
        self._landed = True

    @classmethod
    def matches(cls, t, mro):
        return base.type_in(mro, "polars", ("LazyFrame",))

    # --- the plan -----------------------------------------------------------------------

    def _guarded(self, fn):
        """``fn()`` under the call's time guard (the list's inspector is guarded already)."""
        if self.session is None:
            return fn()
        return self.run(self.session.per_value * 1000.0, fn)

    def _read(self):
        if self._names is None:
            lf = self.value
            read = getattr(lf, "collect_schema", None)  # polars >= 1.0; then .schema
            schema = self._guarded(read if read is not None else lambda: lf.schema)
            self._names, self._dtypes = list(schema.keys()), list(schema.values())
        return self._names, self._dtypes

    def read_schema(self):
        names, dtypes = self._read()
        return [(n, str(d)) for n, d in zip(names, dtypes)]

    def raw_names(self):
        return self._read()[0]

    def dtype(self, position):
        return self._read()[1][position]

    def family(self, position):
        return polars_column(self.schema()[position][0], self.dtype(position))

    def plan(self):
        if self._plan is None:
            self._plan = self._guarded(self.value.explain)
        return self._plan

    def location(self):
        """The files the plan scans (``Parquet SCAN [...]``), None for data in memory."""
        try:
            text = self.plan()
        except guard.BudgetExhausted:
            return None
        found = []
        for line in text.splitlines()[:PLAN_LINES]:
            match = _SCAN.match(line)
            if match and match.group(2) not in found:
                found.append(match.group(2))
        if not found:
            return None
        more = " …" if len(found) > FILES_SHOWN else ""
        return "files: " + ", ".join(found[:FILES_SHOWN]) + more

    # --- the view as polars calls -------------------------------------------------------

    def _table(self, columns):
        names, dtypes = self._read()
        return PolarsTable(None, columns, _Frame(names, dtypes), False)

    def _chain(self, start, view, columns, order=True, selected=None):
        """The view as one node: ``start.filter(mask).sort(...).select([...])``."""
        table = self._table(columns)
        node = start
        mask = table.mask(view)
        if mask is not None:
            node = method(node, "filter", mask)
        keys = table.keys(view) if order else []
        if keys:
            node = table.sort_node(node, keys)
        if selected is not None and list(selected) != list(range(len(self.raw_names()))):
            node = method(node, "select", [self.raw_names()[p] for p in selected])
        return node

    def _viewed(self, start, view, columns, order=True):
        """The view's LazyFrame over ``start`` (the value, behind its checkpoint)."""
        return self._chain(Ref("t", start), view, columns, order).evaluate()

    # --- computed in polars -------------------------------------------------------------

    def count(self, view, ms, columns):
        """``select(pl.len())`` of the view; without the checkpoint when polars counts
        every row from metadata (a Parquet footer, a frame in memory), which the
        checkpoint would turn into a read of a column."""
        pl = sys.modules["polars"]
        cheap = view.filter is None and _counts_from_metadata(
            self.run(ms, self.value.select(pl.len()).explain))
        frame = self._collect(ms, lambda t: self._viewed(t, view, columns, False).select(pl.len()),
                              checkpoint=not cheap)
        return int(frame.item())

    def window(self, view, offset, limit, positions, ms, columns):
        pl = sys.modules["polars"]
        names = [self.raw_names()[p] for p in positions]

        def plan(t):
            lf = self._viewed(t, view, columns).slice(offset, limit)
            return lf.select(names) if names else lf.select(pl.len())

        frame = self._collect(ms, plan)
        if not names:
            return [[] for _ in range(int(frame.item()))]
        values = [frame.get_column(n).to_list() for n in names]
        return [list(row) for row in zip(*values)]

    def profile_column(self, view, position, top, rows, ms, texts, columns):
        pl = sys.modules["polars"]
        kind = self.family(position).family
        if str(self.dtype(position)).startswith("Decimal"):
            kind = "decimal"
        family = _PROFILE_FAMILY.get(kind, "other")

        def viewed(t):
            lf = self._viewed(t, view, columns, False)
            return lf if rows is None else lf.head(rows)

        c = pl.col(self.raw_names()[position])
        head = [pl.len().alias("total"), c.null_count().alias("nulls")]
        if kind == "float":
            head.append(c.is_nan().sum().alias("nans"))
        entry = {"family": family}
        if family == "number":
            row = self._numbers(ms, viewed, c, kind, head, entry)
        elif family in ("string", "category"):
            row = self._strings(ms, viewed, c, family, top, texts, head, entry)
        elif family == "boolean":
            row = self._one(ms, viewed, head, c.sum().alias("true"))
            present = row["total"] - row["nulls"]
            entry.update({"true": int(row["true"] or 0),
                          "false": present - int(row["true"] or 0), "approximate": False})
        elif family == "datetime":
            row = self._one(ms, viewed, head, c.min().alias("low"), c.max().alias("high"),
                            c.median().alias("median"))
            entry.update(aggregates.dates_from(row["low"], row["high"], row["median"]))
            entry["approximate"] = False
        else:
            row = self._one(ms, viewed, head)
            entry["approximate"] = False
        nulls = int(row["nulls"]) + int(row.get("nans") or 0)
        entry["count"], entry["null_count"] = int(row["total"]) - nulls, nulls
        return entry

    def _numbers(self, ms, viewed, c, kind, head, entry):
        """min, max, mean, std, quantiles (exact, ``linear``) and the histogram of the
        finite values (a decimal column's as floats)."""
        pl = sys.modules["polars"]
        if kind == "float":
            v = c.filter(c.is_finite())
        elif kind == "decimal":
            v = c.cast(pl.Float64)
        else:
            v = c
        row = self._one(ms, viewed, head, v.min().alias("low"), v.max().alias("high"),
                        v.mean().alias("mean"), v.std().alias("std"),
                        v.count().alias("finite"), *_quantiles(pl, v))
        qs = _quantiles_of(row)
        low, high = row["low"], row["high"]
        edges = aggregates.bins_of(row["finite"], qs, low, high)
        counts = None if edges is None else self._bins(ms, viewed, c, edges)
        entry.update(aggregates.numbers_from(low, high, row["mean"], row["std"], qs, counts, edges))
        entry["approximate"] = False
        return row

    def _bins(self, ms, viewed, c, edges):
        """How many finite values fall in each of the equal-width bins over ``edges``."""
        pl = sys.modules["polars"]
        bins = len(edges) - 1
        low, step = edges[0], (edges[-1] - edges[0]) / bins
        v = pl.col("v")
        bucket = ((v - low) / step).floor().cast(pl.Int64).clip(0, bins - 1).alias("b")

        def plan(t):
            values = viewed(t).select(c.cast(pl.Float64).alias("v"))
            return values.filter(v.is_finite()).group_by(bucket).agg(pl.len().alias("n"))

        counts = [0] * bins
        found = self._collect(ms, plan)
        for b, n in zip(found.get_column("b").to_list(), found.get_column("n").to_list()):
            counts[int(b)] += int(n)
        return counts

    def _strings(self, ms, viewed, c, family, top, texts, head, entry):
        """Distinct values, empty ones and the ``top`` most frequent (ties by value), from
        one query: the column's values counted once (``group_by``: missing values one
        group), then those groups summed and their first ``top`` — exact."""
        pl = sys.modules["polars"]
        s = c.cast(pl.String) if family == "category" else c
        v, n = pl.col("v"), pl.col("n")
        wanted = [n.sum().alias("total"), n.filter(v.is_null()).sum().alias("nulls"),
                  v.count().alias("distinct"), n.filter(v == "").sum().alias("empty")]
        if top:
            present = v.is_not_null()
            wanted.append(pl.struct(v, n).filter(present)
                          .sort_by([n.filter(present), v.filter(present)],
                                   descending=[True, False]).head(top)
                          .implode().alias("top"))

        def plan(t):
            groups = viewed(t).group_by(s.alias("v")).agg(pl.len().alias("n"))
            return groups.select(wanted)

        row = self._collect(ms, plan).row(0, named=True)
        present = int(row["total"] or 0) - int(row["nulls"] or 0)
        best = [(x["v"], int(x["n"])) for x in (row.get("top") or ())]
        entry.update(aggregates.strings_from(int(row["distinct"] or 0), int(row["empty"] or 0),
                                             best, present, texts))
        entry["approximate"] = False
        return {"total": int(row["total"] or 0), "nulls": int(row["nulls"] or 0)}

    def _one(self, ms, viewed, head, *aggregates):
        """One aggregate row of the view (as a dict): ``head`` (its counts), then
        ``aggregates``."""
        frame = self._collect(ms, lambda t: viewed(t).select([*head, *aggregates]))
        return frame.row(0, named=True)

    # --- the findings' aggregates (exact quartiles; every query behind the checkpoint) -------

    def _limited(self, view, rows, columns):
        def viewed(t):
            lf = self._viewed(t, view, columns, False)
            return lf if rows is None else lf.head(rows)

        return viewed

    def finding_facts(self, view, position, rows, sample, ms, columns):
        """Exact quartiles hold the values in memory: past ``sample`` rows they are read
        on every k-th row (``gather_every``, streamed), some ``sample`` rows in all
        (flagged approximate)."""
        pl = sys.modules["polars"]
        kind = self.family(position).family
        if str(self.dtype(position)).startswith("Decimal"):
            kind = "decimal"
        family = _PROFILE_FAMILY.get(kind, "other")
        c = pl.col(self.raw_names()[position])
        head = [pl.len().alias("total"), c.null_count().alias("nulls")]
        present = c
        if kind == "float":
            head.append(c.is_nan().sum().alias("nans"))
            present = c.filter(c.is_not_nan())
        if family == "category":
            present = c.cast(pl.String)
        aggregates = []
        if family != "other":
            aggregates += [present.min().alias("low"), present.max().alias("high")]
        if family == "string":
            date = c.str.contains(DATE_PATTERN)
            aggregates += [c.str.contains(NUMBER_PATTERN).sum().alias("numbers"),
                           date.sum().alias("dates"),
                           c.str.contains(r"\S").sum().alias("nonblank"),
                           (date & c.str.contains("[0-9]{2}:[0-9]{2}")).sum().alias("times"),
                           (date & c.str.contains(r"(Z|[+-][0-9]{2}:?[0-9]{2})\s*$")).sum()
                           .alias("offsets"),
                           c.str.len_chars().max().alias("longest"),
                           c.drop_nulls().approx_n_unique().alias("distinct")]
        elif family == "category":
            aggregates.append(c.drop_nulls().approx_n_unique().alias("distinct"))
        row = self._one(ms, self._limited(view, rows, columns), head, *aggregates)
        total = int(row["total"])
        facts = {"family": family, "total": total,
                 "nulls": int(row["nulls"]) + int(row.get("nans") or 0),
                 "whole": kind == "integer", "approximate": False,
                 "low": row.get("low"), "high": row.get("high")}
        if family == "number":
            step = max(1, -(-total // sample))
            facts["quartiles"] = self._quartiles(ms, view, rows, step, c, kind, columns)
            facts["approximate"] = step > 1
        if family in ("string", "category"):
            facts.update(longest=row.get("longest"), distinct=row["distinct"])
        if family == "string":
            facts.update(numbers=row["numbers"], dates=row["dates"], nonblank=row["nonblank"],
                         date_kind="utc" if row["offsets"] else "datetime" if row["times"]
                         else "date")
        return facts

    def _quartiles(self, ms, view, rows, step, c, kind, columns):
        pl = sys.modules["polars"]
        every = c if step == 1 else c.gather_every(step)
        finite = (every.filter(every.is_finite()) if kind == "float" else every).cast(pl.Float64)
        fractions = [0.25, 0.5, 0.75]
        if _major(pl) >= 2:
            wanted = [finite.quantile(fractions, "linear").alias("quartiles")]
        else:
            wanted = [finite.quantile(q, "linear").alias("q%d" % (q * 100)) for q in fractions]
        row = self._one(ms, self._limited(view, rows, columns), wanted)
        listed = row.get("quartiles", False)
        if listed is False:
            listed = [row["q%d" % p] for p in (25, 50, 75)]
        return None if listed is None else list(listed)

    def count_outside(self, view, position, low, high, rows, ms, columns):
        pl = sys.modules["polars"]
        c = pl.col(self.raw_names()[position])
        outside = (c < low) | (c > high)
        if self.family(position).family == "float":
            outside = outside & c.is_not_nan()
        row = self._one(ms, self._limited(view, rows, columns), [outside.sum().alias("n")])
        return int(row["n"] or 0)

    def count_duplicates(self, view, rows, ms, columns):
        pl = sys.modules["polars"]
        viewed = self._limited(view, rows, columns)
        total = self._collect(ms, lambda t: viewed(t).select(pl.len())).item()
        distinct = self._collect(ms, lambda t: viewed(t).unique().select(pl.len())).item()
        return int(total), int(distinct)

    def _groups(self, view, position, rows, columns):
        """A plan of the column's present values and their rows (``v``, ``n``)."""
        pl = sys.modules["polars"]
        c = pl.col(self.raw_names()[position])
        if self.family(position).family == "category":
            c = c.cast(pl.String)
        viewed = self._limited(view, rows, columns)
        return lambda t: viewed(t).select(c.alias("v")).drop_nulls().group_by("v").agg(
            pl.len().alias("n"))

    def key_counts(self, view, position, limit, rows, ms, columns):
        pl = sys.modules["polars"]
        groups = self._groups(view, position, rows, columns)
        repeated = pl.col("n") > 1
        row = self._collect(ms, lambda t: groups(t).select(
            pl.col("n").sum().alias("present"), pl.len().alias("distinct"),
            pl.col("n").filter(repeated).sum().alias("rows"), repeated.sum().alias("keys"))
        ).row(0, named=True)
        keys = []
        if row["keys"]:
            found = self._collect(ms, lambda t: groups(t).filter(repeated).select("v").head(limit))
            keys = found.get_column("v").to_list()
        return (int(row["present"] or 0), int(row["distinct"]), int(row["rows"] or 0), keys,
                int(row["keys"] or 0))

    def label_counts(self, view, position, limit, rows, ms, columns):
        groups = self._groups(view, position, rows, columns)
        found = self._collect(ms, lambda t: groups(t).head(limit + 1))
        return list(zip(found.get_column("v").to_list(), found.get_column("n").to_list()))

    def correlations(self, view, positions, rows, ms, columns):
        """Pearson's r from sums, in two aggregate passes (each pair's rows and means, then
        the centred sums), which polars streams: ``pl.corr`` over filtered columns holds
        them in memory (1.2 GB for three columns of 100 M rows, measured with polars 2.1)."""
        pl = sys.modules["polars"]
        values = []
        for p in positions:
            v = pl.col(self.raw_names()[p]).cast(pl.Float64)
            values.append(pl.when(v.is_finite()).then(v))
        pairs = [(i, j) for i in range(len(values)) for j in range(i + 1, len(values))]
        masked = []
        for i, j in pairs:
            both = values[i].is_not_null() & values[j].is_not_null()
            masked.append((both, pl.when(both).then(values[i]), pl.when(both).then(values[j])))
        lf = self._limited(view, rows, columns)
        means = self._one(ms, lf, [e for k, (both, x, y) in enumerate(masked) for e in (
            both.sum().alias("n%d" % k), x.mean().alias("x%d" % k), y.mean().alias("y%d" % k))])
        wanted = []
        for k, (_both, x, y) in enumerate(masked):
            if not means["n%d" % k]:
                continue
            dx, dy = x - means["x%d" % k], y - means["y%d" % k]
            wanted += [(dx * dy).sum().alias("c%d" % k), (dx * dx).sum().alias("a%d" % k),
                       (dy * dy).sum().alias("b%d" % k)]
        sums = self._one(ms, lf, wanted) if wanted else {}
        out = {}
        for k, pair in enumerate(pairs):
            n = int(means["n%d" % k] or 0)
            spread = (sums.get("a%d" % k) or 0.0) * (sums.get("b%d" % k) or 0.0)
            out[pair] = (sums["c%d" % k] / math.sqrt(spread) if n > 1 and spread > 0 else None, n)
        return out

    def fix_source(self):
        return self._table(None)

    # --- running: a query in a worker thread, stopped at its checkpoint -------------------

    def _collect(self, ms, plan, checkpoint=True):
        """``plan(start)`` (a LazyFrame over the value behind a checkpoint) collected
        within ``ms``; past it, stopped."""
        self._read()  # the schema first: its own guarded read, never nested in this one
        self._ms = ms
        return self.run(ms, self._wait, plan, checkpoint)

    def _wait(self, plan, checkpoint):
        """Collect in a worker thread; wait on the main thread, where the guard's signal
        interrupts the wait; any exception stops the query."""
        _prune()
        query = _Query()
        lf = plan(_checkpoint(self.value, query.check) if checkpoint else self.value)
        self._query = query
        query.start(lf)
        try:
            while not query.done.wait(WAIT_S):
                pass
        except BaseException:
            query.stop.set()
            raise
        self._query = None
        if query.error is not None:
            raise query.error
        return query.result

    def cancel(self):
        """Stop the running query and wait (as long as its guard, at most
        :data:`CANCEL_WAIT_S`) for polars to return."""
        query, self._query = self._query, None
        if query is None:
            return
        query.stop.set()
        query.done.wait(min(self._ms / 1000.0, CANCEL_WAIT_S))
        self._landed = query.done.is_set()
        if not self._landed:
            _STOPPING.append(query)

    def cancelled_text(self, ms, started):
        text = super().cancelled_text(ms, started)
        if self._landed:
            return text
        return text + "; polars had not stopped yet: it stops when its next batch reaches " \
                      "our checkpoint, or at the end of the step it is in"

    # --- code ---------------------------------------------------------------------------

    def code(self, view, selected, syntax, name, columns):
        imports = Imports()
        node = self._chain(Ref(name, self.value), view, columns, True, selected)
        out = name + "_view"
        text = node.render(imports)
        if len(out) + 3 + len(text) > LINE_CHARS:
            text = "(\n    " + "\n    ".join(_calls(node, imports)) + "\n)"
        return "\n".join([*imports.header(), "{} = {}".format(out, text)]) + "\n"


def _calls(node, imports):
    """A chain ``t.filter(…).sort(…)`` as its lines: ``t``, ``.filter(…)``, ``.sort(…)``
    (a long filter one condition a line)."""
    lines = []
    while type(node) is Call and type(node.function) is Attr:
        parts = [_argument(a, imports) for a in node.args]
        parts += [k + "=" + v.render(imports) for k, v in node.kwargs]
        lines.append("." + node.function.name + "(" + ", ".join(parts) + ")")
        node = node.function.target
    lines.append(node.render(imports))
    return lines[::-1]


def _argument(node, imports):
    text = node.render(imports)
    if len(text) <= LINE_CHARS - 12 or not (type(node) is Binary and node.op in ("&", "|")):
        return text
    inside = AND if node.op == "|" else node.strength  # an & inside an | is parenthesized
    items = [item.code(imports, inside) for item in node.items]
    return "\n        " + ("\n        " + node.op + " ").join(items) + "\n    "


# --- quantiles ------------------------------------------------------------------------------


def _quantiles(pl, v):
    """The quantiles at ``aggregates.PERCENTS`` (``linear``): one expression in polars 2 (one
    pass over the values, some 2.5 times faster than five), else one each."""
    fractions = [p / 100.0 for p in aggregates.PERCENTS]
    if _major(pl) >= 2:
        return [v.quantile(fractions, "linear").alias("quantiles")]
    return [v.quantile(q, "linear").alias("q%d" % p)
            for q, p in zip(fractions, aggregates.PERCENTS)]


def _quantiles_of(row):
    listed = row.get("quantiles", False)
    if listed is False:
        listed = [row["q%d" % p] for p in aggregates.PERCENTS]
    listed = list(listed or [None] * len(aggregates.PERCENTS))
    return [None if q is None else float(q) for q in listed]


def _major(pl):
    try:
        return int(str(pl.__version__).split(".")[0])
    except (AttributeError, ValueError):
        return 0


# --- queries and their checkpoint ----------------------------------------------------------


class Stopped(Exception):
    """Raised by the checkpoint in polars' threads: the probe stopped the query."""


class _Query:
    """One ``collect()`` in a worker thread (polars' own engine: streaming unless the user
    chose another), which the checkpoint stops once :attr:`stop` is set."""

    def __init__(self):
        self.stop = threading.Event()
        self.done = threading.Event()
        self.result = self.error = None

    def start(self, lf):
        thread = threading.Thread(target=self._collect, args=(lf,), daemon=True,
                                  name="jupyter-kernel-state polars query")
        thread.start()

    def _collect(self, lf):
        try:
            self.result = lf.collect()
        except BaseException as exc:
            self.error = exc
        finally:
            self.done.set()

    def check(self, frame):
        """The checkpoint: each batch of the value passes here, unchanged."""
        if self.stop.is_set():
            raise Stopped("stopped by the probe's time guard")
        return frame


def _checkpoint(lf, check):
    """``lf`` with ``check`` called on every batch it yields (filters, projections and
    slices still pushed down through it); ``lf`` itself when polars cannot (then a query
    runs to its end)."""
    try:
        return lf.map_batches(check, streamable=True, validate_output_schema=False,
                              predicate_pushdown=True, projection_pushdown=True,
                              slice_pushdown=True)
    except TypeError:
        return lf


def _counts_from_metadata(plan):
    """Whether the plan of ``select(pl.len())`` reads no column, only metadata: one
    Parquet or IPC scan, or a frame in memory, projecting 0 columns (a CSV's or an NDJSON
    file's count reads the file: it runs behind the checkpoint)."""
    lines = [line.strip() for line in plan.splitlines()
             if line.strip() and not line.strip().startswith("ESTIMATED ROWS")]
    if not 2 <= len(lines) <= 3 or lines[0] != "SELECT [len()]":
        return False
    source = lines[1].startswith(("Parquet SCAN [", "Ipc SCAN [", "DF ["))
    return source and re.search(r"\bPROJECT(\[\])? 0/\d+ COLUMNS$", lines[-1]) is not None


def _prune():
    """Forget the stopped queries polars has returned from."""
    _STOPPING[:] = [q for q in _STOPPING if not q.done.is_set()][-MAX_STOPPING:]
