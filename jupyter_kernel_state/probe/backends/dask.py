"""dask DataFrames explored in dask, on the scheduler the frame computes with.

What runs, and what comes back:

* **The plan** (list, detail, prompt) runs nothing: the schema from ``ddf.dtypes``, the
  partitions and the files read from the expression, the plan as the expression's
  ``tree_repr()``.  The row count is known only when dask knows it without computing: a
  frame made from pandas once dask has divided it into partitions (its partitions'
  lengths are then the expression's literal; dividing a large frame takes seconds, so
  the list leaves it to the first window).
* **The filter** is pandas': one ``windows.filters`` expression tree of
  ``pandas.pandas_condition`` (``t["x"].notnull() & (t["x"] > 3)``), evaluated lazily on
  the dask Series for the rows and rendered for the code, so the two cannot disagree.
  Every filter operator builds lazily in dask (``str.contains``, ``isin``, ``between``,
  comparisons); one that dask cannot build for a column (a period compared with text) is
  refused (a 400 with dask's reason).
* **A window** (dask has no offset): the view's partition lengths — known, or one pass
  of ``map_partitions(len)`` over the view's index that brings back one int per
  partition, kept per value, plan and filter (:data:`LENGTHS`) — place rows ``[offset,
  offset + limit)``, and only the partitions that hold them are computed
  (``partitions[i:j]``, the window's columns only) and sliced.
* **A sorted window** is a top-k, offered while ``offset + limit`` ≤ :data:`TOP_ROWS`:
  each partition is sorted (pandas' stable ``sort_values``, missing values — NaN, None,
  NaT — last) and cut to ``offset + limit`` rows, and the cuts are merged the same way
  in a tree reduction, so the rows are exactly the first ones of the whole view stably
  sorted: keys in mixed directions, ties in the view's order.  Deeper, it is refused
  (400): dask cannot sort without a shuffle.  The first key must hold numbers, booleans
  or times (the code's ``sort_values`` splits the rows by its quantiles, which dask
  cannot take of text with missing values); later keys may be text.  Other first keys
  are refused (400), as are columns not named by text.
* **A count** is the sum of the view's partition lengths (the same pass, kept).
* **A profile** of a column is one ``dask.compute`` of its reductions (count, missing
  values, min, max, mean, std, ``quantile`` — dask's is approximate —, ``nunique_approx``
  for text, the top values by count then value from ``value_counts``), flagged
  approximate, and a histogram of at most 50 bins (numpy's bins) in a second compute
  that sums each partition's bin counts.  Past its guard, the fallback profiles the
  view's rows among the table's leading partitions that hold its first N rows.

The code (``dask``) is the same filter, then dask's own ``sort_values(by,
ascending=[...], na_position="last", sort_function_kwargs={"kind": "stable"})`` (the
whole view sorted: a shuffle when the user computes it; its first rows are the
explorer's, but for the order of ties, which dask's shuffle does not keep), then the
columns.

Cancelling: the local schedulers (threads, processes, synchronous) run their loop in the
calling thread — the probe's main thread — which waits for tasks interruptibly, so the
time guard's signal ends the loop there: no task is handed to a worker after it
(measured: the answer comes within a few ms of the guard).  A scheduler callback of ours
(:class:`Stop`) is the second lock: its ``pretask`` refuses to start any task once the
query is cancelled (by the guard's watchdog thread, at the guard's time) or past its
deadline.  A task already
running when the guard fires (at most one per worker thread) finishes on its own: a
Python thread cannot be stopped.  With a ``dask.distributed`` Client as the scheduler,
the callbacks do not apply (the cluster runs the tasks): the guard ends the client's
wait, and the client releases the query's futures as it does on any error, so the
scheduler drops their tasks (not exercised by the tests: ``distributed`` is not
installed here).
"""

import sys
import time

from .. import guard
from ..protocol import View
from ..windows.columns import sort_keys
from ..windows.expressions import AND, Attr, Binary, Call, Imports, Invert, Ref, literal
from ..windows.families import BadFilter
from ..windows.filters import expression
from . import aggregates, base, engine
from .base import Refused, register
from .engine import EngineTable
from .pandas import label_literal, pandas_column, pandas_condition

#: Rows a sorted window may reach (``offset + limit``): past it, a sort needs a shuffle.
TOP_ROWS = 10_000
#: Partition lengths kept (by value, plan and filter), so that paging counts once.
LENGTHS = engine.Counts()
#: Expression nodes walked for the files a frame reads, and files named.
WALK_NODES = 10_000
FILES_SHOWN = 5
#: A filter longer than this is written one condition a line.
LINE_CHARS = 72
#: pandas methods dask spells differently (the code stays valid pandas).
_DASK_NAMES = {"notna": "notnull"}
_PROFILE_FAMILY = {"integer": "number", "float": "number", "string": "string",
                   "boolean": "boolean", "datetime": "datetime"}
_QUANTILES = [p / 100.0 for p in aggregates.PERCENTS]
#: Families a sort's first key may have (``sort_values`` splits the rows by its quantiles).
_FIRST_KEYS = ("integer", "float", "boolean", "datetime", "timedelta")


@register
class DaskTable(EngineTable):
    engine = "dask"
    title = "dask"
    syntaxes = ("dask",)
    stops = "cancelled in"
    watchdog = True  # its cancel at the guard's time stops the scheduler between tasks

    def __init__(self, value, session):
        super().__init__(value, session)
        self._stopper = None

    @classmethod
    def matches(cls, t, mro):
        return base.type_in(mro, "dask", ("DataFrame",))

    # --- the plan -----------------------------------------------------------------------

    def read_schema(self):
        dtypes = self.value.dtypes
        return [(name, str(d)) for name, d in zip(dtypes.index, dtypes)]

    def raw_names(self):
        return list(self.value.columns)

    def family(self, position):
        return pandas_column(self.schema()[position][0], self.value._meta.iloc[:, position])

    def known_rows(self):
        leaves = _leaves(self.value.expr)
        if not all(type(leaf).__name__.startswith("FromPandas") for leaf in leaves):
            return None  # a file's statistics would be read: not for the list
        if not all(_divided(leaf) for leaf in leaves):
            return None
        lengths = _known_lengths(self.value.expr)
        return None if lengths is None else sum(lengths)

    def location(self):
        leaves = _leaves(self.value.expr)
        parts = []
        if all(_divided(leaf) for leaf in leaves):
            n = self.value.npartitions
            parts.append("{:,} partition{}".format(n, "" if n == 1 else "s"))
        sources, files = [], []
        for leaf in leaves:
            source = _source_name(leaf)
            if source not in sources:
                sources.append(source)
            for path in _paths(leaf):
                if path not in files:
                    files.append(path)
        if sources:
            parts.append(", ".join(sources[:FILES_SHOWN]))
        if files:
            more = " …" if len(files) > FILES_SHOWN else ""
            parts.append("files: " + ", ".join(files[:FILES_SHOWN]) + more)
        return " · ".join(parts)

    def plan(self):
        return self.value.expr.tree_repr()

    # --- the view as dask expressions ---------------------------------------------------

    def _mask(self, view, columns, name, frame):
        """The filter as one expression tree over ``name`` (the text the code uses for
        the table); its column nodes stand for ``frame``'s Series (None: code only)."""

        def resolve(wanted):
            position = columns.find(wanted)
            label = self.raw_names()[position]
            literal_node = label_literal(label)
            if literal_node is None:
                raise BadFilter("column {} has no label dask can name".format(
                    columns.name(position)))
            text = "{}[{}]".format(name, literal_node.render(Imports()))
            series = None if frame is None else frame[label]
            return Ref(text, series), self.family(position)

        return _for_dask(expression(view.filter, resolve, pandas_condition))

    def _filtered(self, view, columns, ms):
        """The view's rows, lazily (its filter applied); a filter that does not fit is
        refused (a 400)."""
        if view.filter is None:
            return self.value
        return self.run(ms, self._apply_filter, view, columns)

    def _apply_filter(self, view, columns):
        mask = self._mask(view, columns, "t", self.value)
        try:
            return self.value[mask.evaluate()]
        except Exception as exc:
            guard.check(exc)
            raise Refused("dask cannot apply this filter: " + base.first_line(exc)) from None

    def _sort_keys(self, view, columns):
        """The view's sort keys, when dask's ``sort_values`` (the code) can sort by them:
        columns named by text, the first one holding numbers, booleans or times (dask
        splits the sort by the first key's quantiles, which fail on text with missing
        values)."""
        keys = sort_keys(view, columns)
        names = self.raw_names()
        for position, _desc in keys:
            if type(names[position]) is not str:
                raise Refused("dask sorts by columns named by text only: column {} is not"
                              .format(columns.name(position)))
        if keys:
            column = self.family(keys[0][0])
            if column.family not in _FIRST_KEYS:
                raise Refused(
                    "dask cannot sort by {} first: its sort splits the rows by the first "
                    "key, which must hold numbers, booleans or times; sort by such a column "
                    "first (then by this one)".format(column.describe()))
        return keys

    # --- partition lengths --------------------------------------------------------------

    def _lengths(self, view, frame, ms):
        """The view's rows per partition: kept, known, or one pass of ``len``."""
        v = self.value
        key = (id(v), type(v), v._name, View(filter=view.filter).key)
        kept = LENGTHS.get(key, v)
        if kept is not None:
            return kept
        lengths = None
        if view.filter is None:
            lengths = self.run(ms, _known_lengths, v.expr)
        if lengths is None:
            counts = self.run(ms, self._compute, ms, frame.index.map_partitions(len))[0]
            lengths = tuple(int(n) for n in counts.tolist())
        LENGTHS.put(key, v, lengths)
        return lengths

    # --- computed in dask ---------------------------------------------------------------

    def count(self, view, ms, columns):
        frame = self._filtered(view, columns, ms)
        return sum(self._lengths(view, frame, ms))

    def window(self, view, offset, limit, positions, ms, columns):
        keys = self._sort_keys(view, columns)
        if keys and offset + limit > TOP_ROWS:
            raise Refused("dask cannot sort {:,} rows without a shuffle; filter first or sort "
                          "in the first {:,} rows".format(offset + limit, TOP_ROWS))
        frame = self._filtered(view, columns, ms)
        names = self.raw_names()
        wanted = _unique([names[p] for p in positions])
        if keys:
            by = [names[p] for p, _desc in keys]
            sub = frame[_unique(wanted + by)]
            top = sub.reduction(_top_rows, _top_rows, meta=sub._meta, by=by,
                                ascending=[not desc for _, desc in keys], n=offset + limit)
            got = self.run(ms, self._compute, ms, top)[0].iloc[offset:offset + limit]
        else:
            got = self._slice(view, frame, offset, limit, wanted, ms)
            if isinstance(got, int):
                return [[] for _ in range(got)]
        if not positions:
            return [[] for _ in range(len(got))]
        values = {name: _python(got.iloc[:, j]) for j, name in enumerate(wanted)}
        return [list(row) for row in zip(*[values[names[p]] for p in positions])]

    def _slice(self, view, frame, offset, limit, wanted, ms):
        """Rows ``[offset, offset + limit)`` of the unsorted view from the partitions
        that hold them (their count when no column is asked for)."""
        lengths = self._lengths(view, frame, ms)
        stop = min(offset + limit, sum(lengths))
        if offset >= stop or not wanted:
            return max(0, stop - offset)
        first, last, start = _partitions_holding(lengths, offset, stop)
        part = frame[wanted].partitions[first:last + 1]
        got = self.run(ms, self._compute, ms, part)[0]
        return got.iloc[offset - start:stop - start]

    def profile_column(self, view, position, top, rows, ms, texts, columns):
        frame = self._filtered(view, columns, ms)
        if rows is not None:
            frame = self._leading(view, frame, rows, ms)
        s = frame[self.raw_names()[position]]
        family = _PROFILE_FAMILY.get(self.family(position).family, "other")
        entry = {"family": family, "approximate": False}
        read = {"number": self._numbers, "string": self._strings, "boolean": self._booleans,
                "datetime": self._dates}.get(family, self._others)
        present, nulls = read(s, entry, top, texts, ms)
        entry["count"], entry["null_count"] = int(present), int(nulls)
        return entry

    # Each reads its family's statistics into ``entry`` in one compute, which also
    # counts the present and the missing values (returned).

    def _numbers(self, s, entry, top, texts, ms):
        pd = sys.modules["pandas"]
        floats = s.astype("float64")
        finite = floats.where((floats != float("inf")) & (floats != float("-inf")))
        exact = s if s.dtype.kind in "iu" else finite  # an int column's own extremes
        found = self._aggregate(ms, s, finite.count(), exact.min(), exact.max(),
                                finite.mean(), finite.std(), finite.quantile(_QUANTILES))
        present, nulls, finite_n, low, high, mean, std, qs = found
        qs = [_number(q) for q in qs.tolist()] if finite_n else [None] * len(_QUANTILES)
        low, high = (_number(low), _number(high)) if finite_n else (None, None)
        edges = aggregates.bins_of(int(finite_n), qs, low, high)
        counts = None
        if edges is not None:
            bins = finite.reduction(_bin_counts, _summed, meta=pd.Series(dtype="int64"),
                                    chunk_kwargs={"edges": edges})
            counts = [int(c) for c in self.run(ms, self._compute, ms, bins)[0].tolist()]
        entry.update(aggregates.numbers_from(low, high, _number(mean), _number(std), qs,
                                             counts, edges))
        entry["approximate"] = bool(finite_n)
        return present, nulls

    def _strings(self, s, entry, top, texts, ms):
        asked = [s.dropna().nunique_approx(), (s == "").sum()]
        if top:
            counts = s.value_counts().to_frame()
            asked.append(counts.reduction(_top_counts, _top_counts, meta=counts._meta, n=top))
        found = self._aggregate(ms, s, *asked)
        present, nulls, distinct, empty = found[:4]
        best = []
        if top:
            best = list(zip(found[4].index.tolist(), found[4].iloc[:, 0].tolist()))
        entry.update(aggregates.strings_from(round(float(distinct)), int(empty), best,
                                             int(present), texts))
        entry["approximate"] = bool(present)
        return present, nulls

    def _booleans(self, s, entry, top, texts, ms):
        present, nulls, true = self._aggregate(ms, s, s.sum())
        entry.update({"true": int(true), "false": int(present) - int(true)})
        return present, nulls

    def _dates(self, s, entry, top, texts, ms):
        tz = getattr(s.dtype, "tz", None)
        middle = (s if tz is None else s.dt.tz_convert(None)).quantile(0.5)
        present, nulls, low, high, median = self._aggregate(ms, s, s.min(), s.max(), middle)
        if tz is not None and median == median:  # dask's quantile drops the zone
            median = median.tz_localize("UTC").tz_convert(tz)
        entry.update(aggregates.dates_from(low, high, median))
        entry["approximate"] = bool(present)
        return present, nulls

    def _others(self, s, entry, top, texts, ms):
        return self._aggregate(ms, s)

    def _aggregate(self, ms, s, *reductions):
        """(present values of ``s``, missing ones, *the reductions' values), computed
        together: one pass."""
        return self.run(ms, self._compute, ms, s.count(), s.isnull().sum(), *reductions)

    def _leading(self, view, frame, rows, ms):
        """The view's first ``rows`` rows among the leading partitions that hold them
        (by the view's lengths when kept, else by the table's when dask knows them; one
        partition otherwise)."""
        v = self.value
        lengths = LENGTHS.get((id(v), type(v), v._name, View(filter=view.filter).key), v)
        if lengths is None:
            lengths = self.run(ms, _known_lengths, v.expr)
        total = sum(lengths) if lengths else 0
        k = _partitions_holding(lengths, 0, min(rows, total))[1] + 1 if total else 1
        return frame.partitions[:k].head(rows, npartitions=k, compute=False)

    # --- running ------------------------------------------------------------------------

    def _compute(self, ms, *collections):
        """``dask.compute(*collections)`` on their scheduler; with a local one, no task
        starts once cancelled or past ``ms`` (:class:`Stop`)."""
        dask = sys.modules["dask"]
        deadline = time.perf_counter() + ms / 1000.0
        if self.session is not None:
            deadline = min(deadline, self.session.deadline)
        self._stopper = stop = Stop(deadline)
        kwargs = {}
        if _local_scheduler(dask, collections):
            kwargs["callbacks"] = [*_active_callbacks(), stop.callback()]
        return dask.compute(*collections, **kwargs)

    def cancel(self):
        """The guard's watchdog (a thread) or its timeout: no task of ours starts now."""
        if self._stopper is not None:
            self._stopper.stopped = True

    # --- code ---------------------------------------------------------------------------

    def code(self, view, selected, syntax, name, columns):
        out = name + "_view"
        imports = Imports()
        lines = []
        current = name
        if view.filter is not None:
            mask = self._mask(view, columns, name, None)
            lines.append("{} = {}[{}]".format(out, name, _wrapped(mask, imports)))
            current = out
        keys = self._sort_keys(view, columns)
        names = self.raw_names()
        if keys:
            by = [names[p] for p, _desc in keys]
            lines.append('{} = {}.sort_values({}, ascending={}, na_position="last", '
                         'sort_function_kwargs={{"kind": "stable"}})'.format(
                             out, current, literal(by, imports),
                             literal([not desc for _, desc in keys], imports)))
            current = out
        if selected is not None and list(selected) != list(range(len(names))):
            shown = [label_literal(names[p]) for p in selected]
            if None in shown:
                lines.append("{} = {}.iloc[:, {}]".format(out, current, list(selected)))
            else:
                lines.append("{} = {}[[{}]]".format(
                    out, current, ", ".join(label.render(imports) for label in shown)))
            current = out
        if current == name:
            lines.append("{} = {}".format(out, name))
        return "\n".join(imports.header() + lines) + "\n"


class Stop:
    """A scheduler callback (dask's ``(start, start_state, pretask, posttask, finish)``)
    that lets no task start once ``stopped`` (set by :meth:`DaskTable.cancel`) or past
    ``deadline``: it raises the guard's timeout in the scheduler's loop."""

    def __init__(self, deadline):
        self.deadline = deadline
        self.stopped = False

    def pretask(self, key, dsk, state):
        if self.stopped or time.perf_counter() >= self.deadline:
            self.stopped = True
            raise guard.ProbeTimeout()

    def callback(self):
        return (None, None, self.pretask, None, None)


# --- the scheduler ----------------------------------------------------------------------


def _local_scheduler(dask, collections):
    """Whether the collections compute on a local scheduler (whose loop takes
    callbacks), not a distributed Client's."""
    try:
        schedule = dask.base.get_scheduler(collections=list(collections))
    except Exception:
        return False
    owner = getattr(schedule, "__self__", None)
    return owner is None or "Client" not in type(owner).__name__


def _active_callbacks():
    """The user's own registered callbacks (a progress bar, a profiler): the callbacks
    a compute is given replace them, so they are passed on."""
    callbacks = sys.modules.get("dask.callbacks")
    active = getattr(getattr(callbacks, "Callback", None), "active", None)
    return list(active) if active else []


# --- the expression ----------------------------------------------------------------------


def _leaves(expr):
    """The expression's sources (nodes without dependencies), walking at most
    :data:`WALK_NODES` nodes."""
    out = []
    for i, node in enumerate(expr.walk()):
        if i >= WALK_NODES:
            break
        if not node.dependencies():
            out.append(node)
    return out


def _divided(leaf):
    """Whether dask has divided a source into partitions: a pandas frame is divided on
    first use, by its index (seconds for tens of millions of rows: not for the list, which
    leaves it to the first window); other sources know their partitions."""
    if type(leaf).__name__ != "FromPandas":
        return True
    frame = vars(leaf).get("frame") or leaf.operand("frame")  # the frame it sorted, if any
    info = getattr(frame, "_division_info", None) or {}
    return (leaf.operand("npartitions"), leaf.sort) in info


def _known_lengths(expr):
    """The partitions' lengths when dask knows them without computing (a frame from
    pandas, parquet statistics): ``Lengths`` of the expression simplifies to a
    literal.  None otherwise."""
    module = sys.modules.get("dask.dataframe.dask_expr._expr")
    lengths, literal_class = (getattr(module, n, None) for n in ("Lengths", "Literal"))
    if lengths is None or literal_class is None:
        return None
    try:
        simplified = lengths(expr).simplify()
    except Exception as exc:
        guard.check(exc)
        return None
    if type(simplified) is not literal_class:
        return None
    return tuple(int(n) for n in simplified.value)


def _source_name(leaf):
    """What a source is: ``from pandas``, ``read_csv``, ``ReadParquetFSSpec``."""
    name = type(leaf).__name__
    if name.startswith("FromPandas"):
        return "from pandas"
    if name.startswith("ReadParquet"):
        return "read_parquet"
    if name.startswith("FromMap"):
        func = getattr(leaf.operand("func"), "func", leaf.operand("func"))
        return getattr(func, "__name__", name).lstrip("_")
    return name


def _paths(leaf):
    if "path" not in getattr(type(leaf), "_parameters", ()):
        return []
    path = leaf.operand("path")
    paths = path if isinstance(path, (list, tuple)) else [path]
    return [str(p) for p in paths[:FILES_SHOWN + 1]]


def _for_dask(node):
    """The pandas expression tree with dask's spellings (``notnull`` for ``notna``),
    changed in place."""
    if isinstance(node, Attr):
        node.name = _DASK_NAMES.get(node.name, node.name)
        _for_dask(node.target)
    elif isinstance(node, Call):
        _for_dask(node.function)
        for item in [*node.args, *[v for _k, v in node.kwargs]]:
            _for_dask(item)
    elif isinstance(node, Binary):
        for item in node.items:
            _for_dask(item)
    elif isinstance(node, Invert):
        _for_dask(node.item)
    return node


def _wrapped(node, imports):
    """The filter's text; a long and/or, one item a line (inside the brackets)."""
    text = node.render(imports)
    if len(text) <= LINE_CHARS or not (type(node) is Binary and node.op in ("&", "|")):
        return text
    inside = AND if node.op == "|" else node.strength
    items = [item.code(imports, inside) for item in node.items]
    return "\n    " + ("\n    " + node.op + " ").join(items) + "\n"


# --- the tasks (module functions: the processes scheduler pickles them) ---------------


def _top_rows(part, by, ascending, n):
    """The first ``n`` rows of ``part`` stably sorted, missing values last."""
    return part.sort_values(by, ascending=ascending, kind="stable",
                            na_position="last").head(n)


def _top_counts(counts, n):
    """The ``n`` most frequent values of a ``value_counts`` frame: by count, then value."""
    ordered = counts.sort_index(kind="stable")
    return ordered.sort_values(ordered.columns[0], ascending=False, kind="stable").head(n)


def _bin_counts(part, edges):
    """A partition's numpy histogram counts over ``edges`` (its finite values)."""
    np, pd = sys.modules["numpy"], sys.modules["pandas"]
    values = part.to_numpy(dtype="float64", na_value=np.nan)
    return pd.Series(np.histogram(values[np.isfinite(values)], bins=edges)[0])


def _summed(counts):
    """Bin counts of several partitions (one row each), added up."""
    return counts.sum()


# --- values ------------------------------------------------------------------------------


def _partitions_holding(lengths, start, stop):
    """(first, last, the first's starting row) of the partitions that hold rows
    ``[start, stop)``, for 0 ≤ ``start`` < ``stop`` ≤ ``sum(lengths)``."""
    first = first_row = None
    row = 0
    for i, n in enumerate(lengths):
        if first is None and row + n > start:
            first, first_row = i, row
        if row + n >= stop:
            return first, i, first_row
        row += n
    raise ValueError("rows {}-{} are past the partitions' {} rows".format(start, stop, row))


def _unique(items):
    out = []
    for x in items:
        if x not in out:
            out.append(x)
    return out


def _python(series):
    """A pandas column's values as Python values, missing ones (NaN, None, NaT, NA) as
    None, durations as their text (``1 days 02:00:00``)."""
    missing = series.isna().tolist()
    values = series.tolist()
    if getattr(series.dtype, "kind", "") == "m":
        values = [str(x) for x in values]
    return [None if m else x for x, m in zip(values, missing)]


def _number(x):
    """An aggregate as a Python int or float; None when missing."""
    if x is None:
        return None
    item = getattr(x, "item", None)
    if item is not None and type(x).__module__ == "numpy":
        x = item()
    if type(x) in (int, float):
        return x
    try:
        return float(x)
    except (TypeError, ValueError):
        return None
