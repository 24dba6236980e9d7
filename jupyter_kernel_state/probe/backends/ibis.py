"""Ibis tables (``ibis.expr.types.relations.Table``) explored in their backend.

The view is one expression tree (``windows.expressions``) of Ibis calls —
``t.filter(~t["price"].isnan() & (t["price"] > 10.0))
.order_by(t["region"].desc()).select("price", "region")`` — evaluated on the real table
for the rows and rendered for the ``code`` op, so the two cannot disagree.  A window is
that expression ``.limit(limit, offset=offset)`` brought back with ``to_pyarrow``; a
count and each column's statistics are one aggregate expression (``approx_quantile``,
``approx_nunique``: flagged approximate), the top values one ``group_by``/``order_by``/
``limit``, a histogram one ``group_by`` of at most 50 buckets.

The rules are the explorer's: missing values (null, and NaN in a floating column) match
only ``isnull``, every other condition is its test (a test of null is null, dropped by the
filter), a floating column's ``~isnan() & <test>``; a sort puts missing
values last — Ibis sorts nulls last, and a floating column is sorted by
``isnan().ifelse(None, …)``, NaN as null, since SQL engines take NaN for the largest
number.  Text operators read a non-text column through ``cast("string")`` (the
backend's text of the value).

Cancelling: on the DuckDB and SQLite backends, at the guard's time a watchdog thread
calls the connection's ``interrupt()`` (DuckDB looks at Python signals too rarely for
the guard alone: a long sort ran seconds past it; SQLite never does), again until the
query has ended, so nothing keeps running; the guard's signal stops Ibis's own Python
work (compiling).  Other backends are stopped by the guard's signal where their client
looks at it.
"""

import sys
import threading
import time

from ..protocol import Condition
from ..windows.columns import sort_keys
from ..windows.expressions import (
    AND,
    Binary,
    Imports,
    Index,
    Invert,
    Lit,
    Ref,
    both,
    method,
)
from ..windows.families import Column
from ..windows.filters import condition_test
from . import aggregates, base
from .base import register
from .engine import EngineTable

#: A filter longer than this is written one condition a line.
LINE_CHARS = 72
#: Seconds a cancelled query is interrupted again (every INTERRUPT_S) until it ends.
JOIN_S = 2.0
INTERRUPT_S = 0.01
#: Backends whose connection's ``interrupt()`` stops its query from another thread.
INTERRUPTIBLE = ("duckdb", "sqlite")
#: Tables named in ``location``.
LOCATION_TABLES = 5

_PROFILE_FAMILY = {"integer": "number", "float": "number", "string": "string",
                   "boolean": "boolean", "date": "datetime", "datetime": "datetime"}


def _family(dtype):
    """(family, NaN possible) of an Ibis data type."""
    if dtype.is_floating():
        return "float", True
    if dtype.is_integer() or dtype.is_decimal():
        return "integer", False
    if dtype.is_string():
        return "string", False
    if dtype.is_boolean():
        return "boolean", False
    if dtype.is_date():
        return "date", False
    if dtype.is_timestamp():
        return "datetime", False
    return "other", False


class IbisColumn:
    """A column as the view's expressions see it: its node (``t["price"]``), its
    ``families.Column`` (how filter values read) and whether NaN can be in it."""

    def __init__(self, ref, column, nan):
        self.ref, self.column, self.nan = ref, column, nan


@register
class IbisTable(EngineTable):
    engine = "ibis"
    syntaxes = ("ibis",)
    stops = "interrupted in"

    def __init__(self, value, session):
        super().__init__(value, session)
        self._title = None
        self._types = None
        self._operations = {}  # Ibis operation name: whether the backend has it
        self._running = None  # (thread id, ended event) while a query runs
        self._interrupting = threading.Lock()

    @classmethod
    def matches(cls, t, mro):
        return base.type_in(mro, "ibis.", ("Table",))

    @property
    def title(self):
        """``Ibis (duckdb)``: the backend's name when the table is bound to one."""
        if self._title is None:
            name = getattr(self._backend(False) or self._made_default(), "name", None)
            self._title = "Ibis ({})".format(name) if type(name) is str else "Ibis"
        return self._title

    # --- the plan -----------------------------------------------------------------------

    def _ibis_schema(self):
        """[(name, Ibis data type)], read once from the expression (nothing computed)."""
        if self._types is None:
            self._types = list(self.value.schema().items())
        return self._types

    def read_schema(self):
        return [(name, str(dtype)) for name, dtype in self._ibis_schema()]

    def raw_names(self):
        return [name for name, _ in self._ibis_schema()]

    def family(self, position):
        return self._column(Ref("t", self.value), position).column

    def _typed_family(self, dtype):
        """(family, NaN possible) of a column of ``dtype``: NaN only where the backend
        knows it (SQLite stores NaN as null and has no ``isnan``)."""
        family, nan = _family(dtype)
        return family, nan and self._has("IsNan")

    def _column(self, table, position):
        name, dtype = self._ibis_schema()[position]
        family, nan = self._typed_family(dtype)
        tz = getattr(dtype, "timezone", None) if family == "datetime" else None
        column = Column(self.schema()[position][0], str(dtype), family, tz=tz)
        return IbisColumn(Index(table, Lit(name)), column, nan)

    def location(self):
        backend = self._backend(False)
        if backend is None:
            return "in memory (a memtable)" if self._reads("InMemoryTable") else None
        place = str(getattr(backend, "name", "") or type(backend).__module__)
        database = _database(backend)
        if database is not None:
            place += ": " + database
        tables = self._tables()
        if tables:
            place += " · " + ("table " if len(tables) == 1 else "tables ") + ", ".join(tables)
        return place

    def _reads(self, operation):
        """The expression's tables of Ibis operation ``operation`` (by its name)."""
        ops = sys.modules.get("ibis.expr.operations")
        if ops is None or not hasattr(ops, operation):
            return []
        return list(self.value.op().find(getattr(ops, operation)))

    def _tables(self):
        """The backend tables the expression reads (not memtables)."""
        names = []
        for op in self._reads("DatabaseTable"):
            name = str(getattr(op, "name", ""))
            if name and name not in names:
                names.append(name)
        cut = names[:LOCATION_TABLES]
        return [*cut, "…"] if len(names) > len(cut) else cut

    def plan(self):
        """The SQL Ibis compiles the table to (``ibis.to_sql``), or why there is none
        (an unbound table, a backend that is not SQL)."""
        ibis = base.loaded("ibis")
        if ibis is None:
            return ""
        try:
            return str(ibis.to_sql(self.value))
        except Exception as exc:
            return "(no SQL: {})".format(base.first_line(exc))

    def _made_default(self):
        """Ibis's default backend, when already made (a memtable runs on it)."""
        ibis = base.loaded("ibis")
        try:
            return ibis.options.default_backend
        except Exception:
            return None

    def _backend(self, use_default):
        """The backend the table is bound to (with ``use_default``: the default one a
        memtable runs on), or None."""
        try:
            return self.value._find_backend(use_default=use_default)
        except Exception:
            return None

    # --- the view as Ibis expressions ---------------------------------------------------

    def _chain(self, view, columns, name="t", order=True, selected=None):
        """The view as one node: ``t.filter(…).order_by(…).select(…)``."""
        table = Ref(name, self.value)
        node = table
        condition = self._condition(view, columns, table)
        if condition is not None:
            node = method(node, "filter", condition)
        keys = self._keys(view, columns, table) if order else []
        if keys:
            node = method(node, "order_by", *keys)
        if selected is not None and list(selected) != list(range(self.columns_total())):
            names = self.raw_names()
            node = method(node, "select", *[names[p] for p in selected])
        return node

    def _condition(self, view, columns, table):
        if view.filter is None:
            return None
        return _expression(view.filter, lambda c: self._column(table, columns.find(c)))

    def _keys(self, view, columns, table):
        """The sort keys, missing values last: nulls sort last in Ibis, and a floating
        column is sorted with NaN (the largest number to SQL) as null, so that the
        next key orders every missing value alike."""
        keys = []
        for position, desc in sort_keys(view, columns):
            col = self._column(table, position)
            key = col.ref
            if col.nan:
                key = method(method(col.ref, "isnan"), "ifelse", None, col.ref)
            keys.append(method(key, "desc") if desc else key)
        return keys

    # --- computed in the backend --------------------------------------------------------

    def count(self, view, ms, columns):
        chain = self._chain(view, columns, order=False)
        return int(self.run(ms, lambda: _scalar(chain.evaluate().count())))

    def window(self, view, offset, limit, positions, ms, columns):
        chain = self._chain(view, columns)
        names = [self.raw_names()[p] for p in positions]

        def read():
            rel = chain.evaluate().limit(limit, offset=offset)
            if not names:
                return [[] for _ in range(int(_scalar(rel.count())))]
            unique = list(dict.fromkeys(names))
            arrow = rel.select(*unique).to_pyarrow()
            found = {n: arrow.column(i).to_pylist() for i, n in enumerate(unique)}
            return [list(row) for row in zip(*[found[n] for n in names])]

        return self.run(ms, read)

    def profile_column(self, view, position, top, rows, ms, texts, columns):
        chain = self._chain(view, columns, order=False)

        def viewed():
            rel = chain.evaluate()
            return rel if rows is None else rel.limit(rows)

        rel = self.run(ms, viewed)
        name, dtype = self._ibis_schema()[position]
        family, nan = self._typed_family(dtype)
        family = _PROFILE_FAMILY.get(family, "other")

        def aggregate(metrics):
            """The one row of the counts and ``metrics(column)``, as a dict: built and
            run under the guard, so Ibis's own errors are the engine's."""
            def one():
                c = rel[name]
                found = {"total": rel.count(), "present": c.count()}
                if nan:
                    found["nans"] = c.count(where=c.isnan())
                found.update(metrics(c))
                return rel.aggregate(**found).to_pyarrow().to_pylist()[0]

            return self.run(ms, one)

        if family == "number":
            entry, found = self._numbers(ms, rel, name, nan, aggregate)
        elif family == "string":
            entry, found = self._strings(ms, rel, name, top, texts, aggregate)
        else:
            entry, found = {"boolean": _booleans, "datetime": _dates}.get(
                family, _others)(aggregate)
        nulls = int(found["total"]) - int(found["present"]) + int(found.get("nans", 0))
        entry.update(family=family, count=int(found["total"]) - nulls, null_count=nulls)
        return entry

    def _numbers(self, ms, rel, name, nan, aggregate):
        """A number column's statistics over its finite values: one aggregate, then a
        histogram's buckets."""
        quantile, approximate = self._quantile()

        def metrics(c):
            finite = _finite(c, nan, self._has("IsInf"))
            out = {"low": c.min(where=finite), "high": c.max(where=finite),
                   "mean": c.mean(where=finite), "std": c.std(where=finite),
                   "finite": c.count(where=finite)}
            if quantile is not None:
                out["qs"] = getattr(c, quantile)([p / 100 for p in aggregates.PERCENTS],
                                                 where=finite)
            return out

        found = aggregate(metrics)
        qs = found.get("qs") or [None] * len(aggregates.PERCENTS)
        qs = [None if q is None else float(q) for q in qs]
        low, high = aggregates.number(found["low"]), aggregates.number(found["high"])
        edges = aggregates.bins_of(found["finite"], qs, low, high)
        bins = None if edges is None else self._bins(ms, rel, name, nan, edges)
        entry = aggregates.numbers_from(low, high, found["mean"], found["std"], qs, bins, edges)
        entry["approximate"] = approximate and found["finite"] > 0
        return entry, found

    def _quantile(self):
        """(the column method that computes several quantiles in one aggregate, whether
        they are approximate): the backend's approximate ones where it has them."""
        if self._has("ApproxMultiQuantile"):
            return "approx_quantile", True
        if self._has("MultiQuantile"):
            return "quantile", False
        return None, False

    def _has(self, operation):
        """Whether the backend computes Ibis operation ``operation`` (by its name;
        without a backend to ask, assumed)."""
        known = self._operations.get(operation)
        if known is None:
            known = self._operations[operation] = self._asked(operation)
        return known

    def _asked(self, operation):
        ops = sys.modules.get("ibis.expr.operations")
        backend = self._backend(True)
        if ops is None or not hasattr(ops, operation):
            return False
        if backend is None:
            return True
        try:
            return bool(backend.has_operation(getattr(ops, operation)))
        except Exception:
            return True

    def _bins(self, ms, rel, name, nan, edges):
        """Counts of the finite values in each of the ``edges``' equal intervals: one
        ``group_by`` of the bucket numbers."""
        bins = len(edges) - 1
        low, high = edges[0], edges[-1]
        step = (high - low) / bins

        def count():
            c = rel[name]
            finite = _finite(c, nan, self._has("IsInf"))
            kept = rel.filter(c.notnull() if finite is None else finite)
            bucket = ((kept[name] - low) / step).floor().cast("int64").clip(0, bins - 1)
            grouped = kept.group_by(b=bucket).aggregate(n=kept.count())
            return grouped.to_pyarrow().to_pylist()

        counts = [0] * bins
        for found in self.run(ms, count):
            counts[int(found["b"])] += int(found["n"])
        return counts

    def _strings(self, ms, rel, name, top, texts, aggregate):
        """Distinct (approximate) and empty values in one aggregate, then the ``top``
        most frequent values."""
        approximate = self._has("ApproxCountDistinct")
        found = aggregate(lambda c: {
            "distinct": c.approx_nunique() if approximate else c.nunique(),
            "empty": c.count(where=c == "")})

        def best():
            kept = rel.filter(rel[name].notnull())
            grouped = kept.group_by(v=kept[name]).aggregate(n=kept.count())
            ordered = grouped.order_by(grouped["n"].desc(), grouped["v"]).limit(top)
            return [(r["v"], r["n"]) for r in ordered.to_pyarrow().to_pylist()]

        pairs = self.run(ms, best) if top else []
        entry = aggregates.strings_from(found["distinct"], found["empty"], pairs,
                                        found["present"], texts)
        entry["approximate"] = approximate and found["present"] > 0
        return entry, found

    # --- running: DuckDB's queries interrupted at the guard --------------------------------

    @property
    def watchdog(self):
        """A watchdog thread cancels at the guard's time when the table runs on DuckDB,
        which looks at Python signals too rarely (``engine.EngineTable.run``)."""
        return self._interruptible() is not None

    def run(self, ms, fn, *args):
        ended = threading.Event()
        self._running = (threading.get_ident(), ended)
        try:
            return super().run(ms, fn, *args)
        finally:
            with self._interrupting:  # no interrupt of ours lands after this query
                ended.set()
                self._running = None

    def _interruptible(self):
        """The connection to interrupt from another thread, when the table runs on
        DuckDB or SQLite (both ``interrupt()`` a running query, thread-safe)."""
        backend = self._backend(True)
        if getattr(backend, "name", None) not in INTERRUPTIBLE:
            return None
        con = getattr(backend, "con", None)
        return con if callable(getattr(con, "interrupt", None)) else None

    def cancel(self):
        """Interrupt the backend's query (DuckDB's ``interrupt()``, harmless when
        nothing runs), never after it has ended (a late watchdog would stop the next
        one).  From the watchdog, again every ``INTERRUPT_S`` until the query has ended
        (for at most ``JOIN_S``): a query that Ibis was still compiling at the first
        interrupt is stopped by the next as soon as it reaches DuckDB."""
        con = self._interruptible()
        if con is None:
            con = getattr(self._backend(False), "con", None)
        interrupt = getattr(con, "interrupt", None)
        running = self._running
        if running is None or not callable(interrupt):
            return
        deadline = time.perf_counter() + JOIN_S
        while True:
            with self._interrupting:
                if running[1].is_set():
                    return
                try:
                    interrupt()
                except Exception:
                    return
            if running[0] == threading.get_ident():
                return  # called where the query ran: it has ended
            if running[1].wait(INTERRUPT_S) or time.perf_counter() > deadline:
                return

    # --- code ---------------------------------------------------------------------------

    def code(self, view, selected, syntax, name, columns):
        chain = self._chain(view, columns, name=name, selected=selected)
        imports = Imports()
        out = name + "_view"
        calls = ["." + attr + "(" + _arguments(args, imports) + ")"
                 for attr, args in _calls(chain)]
        if not calls:
            return "{} = {}\n".format(out, name)
        body = "{} = (\n    {}\n)".format(out, "\n    ".join([name, *calls]))
        return "\n".join([*imports.header(), body]) + "\n"


# --- the filter as Ibis expressions --------------------------------------------------------


def _expression(node, resolve):
    """The filter ``node`` as one Ibis expression node; ``resolve(column)`` gives its
    :class:`IbisColumn`.  Missing values (null, NaN in a floating column) match only
    ``isnull``: a test of null is null, which ``filter`` drops as it drops False, and the
    tree joins its tests only with ``&`` and ``|`` — so a test needs no ``notnull()`` of
    its own (which cost DuckDB a second pass: 1.6× its own two-condition filter), only a
    floating column's ``~isnan()`` (NaN is a value to SQL engines; null there too)."""
    if type(node) is not Condition:
        joined = [_expression(n, resolve) for n in node.nodes]
        return Binary("&" if node.join == "and" else "|", joined) if len(joined) > 1 else joined[0]
    col = resolve(node.column)
    ref = col.ref
    if node.op == "isnull":
        missing = method(ref, "isnull")
        return Binary("|", (missing, method(ref, "isnan"))) if col.nan else missing
    if node.op == "notnull":
        present = [method(ref, "notnull")] + ([Invert(method(ref, "isnan"))] if col.nan else [])
        return both(*present)
    test = condition_test(node, ref, col.column, _IBIS)
    return both(Invert(method(ref, "isnan")), test) if col.nan else test


def _ibis_text(ref, column, c):
    """The column as text: itself, or the backend's text of its values."""
    if column.family == "string":
        return ref
    return method(ref, "cast", "string")


def _ibis_search(c, text):
    """A text operator on ``text``; without ``case``, on both sides lowered (a pattern
    with RE2's ``(?i)``)."""
    if c.op == "regex":
        return method(text, "re_search", c.value if c.case else "(?i)" + c.value)
    value = c.value
    if not c.case:
        text, value = method(text, "lower"), value.lower()
    name = {"contains": "contains", "not_contains": "contains", "starts_with": "startswith",
            "ends_with": "endswith"}[c.op]
    return method(text, name, value)


_IBIS = {"between": "between", "in": "isin", "text": _ibis_text, "search": _ibis_search}


# --- a profile's simple families ----------------------------------------------------------


def _booleans(aggregate):
    found = aggregate(lambda c: {"true": c.count(where=c)})
    true = int(found["true"])
    return {"true": true, "false": int(found["present"]) - true, "approximate": False}, found


def _dates(aggregate):
    found = aggregate(lambda c: {"low": c.min(), "high": c.max(), "median": c.approx_median()})
    entry = aggregates.dates_from(found["low"], found["high"], found["median"])
    entry["approximate"] = found["present"] > 0
    return entry, found


def _others(aggregate):
    return {"approximate": False}, aggregate(lambda c: {})


# --- helpers -------------------------------------------------------------------------------


def _calls(chain):
    """``[(method, args)]`` of a ``t.filter(…).order_by(…)`` node, first call first."""
    calls = []
    node = chain
    while type(node) is not Ref:
        calls.append((node.function.name, node.args))
        node = node.function.target
    return calls[::-1]


def _arguments(args, imports):
    """A call's arguments; a long ``&``/``|`` filter one item a line."""
    texts = [a.render(imports) for a in args]
    text = ", ".join(texts)
    if len(args) != 1 or len(text) <= LINE_CHARS:
        return text
    node = args[0]
    if not (type(node) is Binary and node.op in ("&", "|")):
        return text
    inside = AND if node.op == "|" else node.strength
    items = [item.code(imports, inside) for item in node.items]
    return "\n        " + ("\n        " + node.op + " ").join(items) + "\n    "


def _finite(c, nan, inf):
    """The condition of a floating column's finite values (None: every present value
    of a column without NaN)."""
    if not nan:
        return None
    present = c.notnull() & ~c.isnan()
    return present & ~c.isinf() if inf else present


def _scalar(expr):
    """An Ibis scalar expression's value, computed."""
    return expr.to_pyarrow().as_py()


def _database(backend):
    """A file database's path (DuckDB, SQLite) as given to ``connect``, read without a
    query; None for others, whose arguments may hold credentials (so may a MotherDuck
    path's query string: never shown)."""
    if getattr(backend, "name", None) not in ("duckdb", "sqlite"):
        return None
    args = getattr(backend, "_con_args", None) or ()
    kwargs = getattr(backend, "_con_kwargs", None) or {}
    text = str(args[0] if args else kwargs.get("database", ":memory:"))
    if text.startswith(("md:", "motherduck:")):
        return "MotherDuck"
    if text == "" or text.startswith(":memory:"):
        return "in memory"
    return text.split("?")[0]

