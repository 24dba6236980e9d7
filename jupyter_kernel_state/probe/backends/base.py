"""What every table offers the table ops (``rows``, ``count``, ``profile``, ``findings``,
``code``), and the registry that finds a value's table: one backend per library behind
one interface.

A backend is a class of :class:`TableBackend` bound to a value and the call's guard
session.  Two kinds implement it: tables in memory (``memory.MemoryTable``: pandas,
polars, numpy and xarray, lists of records), read a window at a time by the value's own
library, and tables in an engine (``engine.EngineTable``: a polars LazyFrame, DuckDB,
Ibis, Spark, dask), explored by queries the engine runs.  A library's module defines
its classes and registers them (:func:`register`); the ops ask :func:`backend_for`,
which tries the engines first (by type: the list resolves them the same way, see
:class:`EngineInspector`), then the libraries in memory (by value), and says why any
other value is no table: :class:`Lazy` (reading it would compute or consume it) or
:class:`NotTabular`.
"""

import collections
import sys

from .. import guard
from ..inspect import third_party  # noqa: F401 (its resolvers first: the engines' go before)
from ..inspect.base import RESOLVERS, Inspector, inspector_for, type_name
from ..inspect.display import cut
from ..inspect.tables import dtype_summary

#: Characters of the plan a detail shows; columns named in a list's preview.
PLAN_CHARS = 4_000
PREVIEW_COLUMNS = 8

#: A window of the ``rows`` op: the value's ``shape``, its rows (``total``: None when an
#: engine did not count them), the rows its filter keeps (None without one), the rows'
#: labels (``index``) and cell texts (``rows``), and what the window's query cost an
#: engine (``cost_ms``; None in memory).
Page = collections.namedtuple("Page", "shape total filtered index rows cost_ms")
#: The columns' statistics of the ``profile`` op: the value's rows (``total``), those the
#: filter keeps (``filtered``), each column's entry (``columns``), the columns the budget
#: did not reach (``cut``), whether any column was computed on a sample (``sampled``).
Profiled = collections.namedtuple("Profiled", "total filtered columns cut sampled")
#: The data-quality findings of the ``findings`` op (``windows.findings``): the value's
#: rows (``total``: None when an engine did not count them), those the filter keeps
#: (``filtered``), the findings listed (each with its fix), how many the call's
#: ``max_findings`` cut, the findings by severity (before the cut), the checks that failed
#: (``errors``) and the kinds not checked, with why (``not_checked``), the columns the
#: budget did not reach (``cut``), whether a sample was read (``sampled``), the fixes'
#: syntax.
Found = collections.namedtuple(
    "Found", "total filtered findings findings_cut severities errors not_checked cut sampled "
             "syntax")


class EngineError(Exception):
    """The engine refused or failed the query: its own first line (a 422)."""


class Cancelled(Exception):
    """The query ran past its time guard and was cancelled in the engine (a 422 that
    says how long it was given)."""


class Refused(Exception):
    """What the engine cannot do without collecting (a 400 that says why)."""


class Lazy(Exception):
    """The value is lazy: a window would compute or consume it (the message says)."""


class NotTabular(Exception):
    """The value is not a table or an array (the message says what it is)."""


def first_line(exc):
    """An engine exception's own first line (its class name when it has no text)."""
    for line in str(exc).splitlines():
        line = line.strip()
        if line:
            return cut(line, 300)[0]
    return type(exc).__name__


class TableBackend:
    """A value seen as a table by the table ops, bound to the call's guard ``session``.
    The ops build their replies from its methods; each takes the probe's ``state``
    (``entry.ProbeState``: the execution count, the sorted orders kept) and the op's
    checked ``fields`` where it needs them.

    Class attributes: ``engine`` (the engine's id, ``duckdb``; None for a table in
    memory), ``kind`` (``dataframe``, ``series``, ``array``, ``records``),
    ``index_name`` (the rows' labels' name, or None)."""

    engine = None
    kind = "dataframe"
    index_name = None

    def __init__(self, value, session):
        self.value = value
        self.session = session

    # --- its columns (also as ``windows.columns.ViewColumns`` finds a view's) ----------

    def columns_total(self):
        raise NotImplementedError

    def column_names(self, n):
        """The first ``n`` column names as text, for finding a column by its name."""
        raise NotImplementedError

    def column_labels(self, positions):
        """[(name text, dtype text)] of the columns at ``positions``."""
        raise NotImplementedError

    # --- the table ops ------------------------------------------------------------------

    def read_page(self, state, fields, positions, cells):
        """The ``rows`` op's :class:`Page`: rows ``fields["offset"]`` to ``offset +
        limit`` of ``fields["view"]``, the columns at ``positions``, each cell's text
        made by ``cells`` (``windows.cells.Cells``)."""
        raise NotImplementedError

    def read_count(self, state, fields):
        """The ``count`` op's number: the rows ``fields["view"]``'s filter keeps (every
        row without one)."""
        raise NotImplementedError

    def read_profile(self, state, fields, positions, labels, texts):
        """The ``profile`` op's :class:`Profiled`: the statistics of the columns at
        ``positions`` (``labels``: their names and dtypes) over the rows the view's
        filter keeps; texts cut by ``texts`` (``windows.statistics.Texts``)."""
        raise NotImplementedError

    def read_findings(self, state, fields, positions, labels, what):
        """The ``findings`` op's :class:`Found`: the data-quality findings of the columns
        at ``positions`` (``labels``: their names and dtypes) over the rows the view's
        filter keeps, at most ``fields["max_findings"]``, each with its fix in
        ``fields["syntax"]`` (None: the table's own); ``what``: the value's type name.
        Tables in memory and in engines implement it; any other table has none."""
        raise Refused("data-quality findings are not computed for a {}".format(what))

    def write_code(self, fields, what):
        """The ``code`` op's ``(syntax, code, selected)``: code in ``fields["syntax"]``
        (None: the table's own) that binds ``<name>_view`` to the view's rows, order and
        the columns ``fields`` selects (``selected``: their positions, None for every
        column, ``windows.code.positions_of``); ``what``: the value's type name, for
        messages.  ``windows.code.NoCode`` when there is none."""
        raise NotImplementedError

    def info(self, counted=None, cost_ms=None):
        """What a reply says of the engine (its ``engine`` field), or None in memory."""
        return None


# --- the registry -------------------------------------------------------------------------

#: Engines' tables (matched by type, first) and tables in memory (matched by value, in the
#: order registered: libraries whose values no two share).
ENGINES = []
IN_MEMORY = []


def register(table_class):
    """Make ``table_class`` the table of its values, for the ops (and for an engine's,
    the list and the detail)."""
    (IN_MEMORY if table_class.engine is None else ENGINES).append(table_class)
    _RESOLVED.clear()
    return table_class


_RESOLVED = {}


def engine_class(t):
    """The registered engine table class for type ``t``, or None."""
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


def backend_for(value, session):
    """The table of ``value`` bound to ``session``: an engine's, else a library's in
    memory; :class:`Lazy` or :class:`NotTabular` otherwise."""
    table_class = engine_class(type(value))
    if table_class is not None:
        return table_class(value, session)
    for table_class in IN_MEMORY:
        if table_class.accepts(value):
            return table_class(value, session)
    t = type(value)
    module = getattr(t, "__module__", "") or ""
    if module.split(".")[0] == "dask":
        raise Lazy("a dask {}, which is lazy: showing rows would compute it".format(type_name(t)))
    if _is_iterator(value):
        raise Lazy("a {}, an iterator: showing rows would consume it".format(type_name(t)))
    raise NotTabular("a {} ({}): rows show tables, arrays and lists of records".format(
        type_name(t), inspector_for(t).kind))


def _is_iterator(value):
    t = type(value)
    try:
        return hasattr(t, "__next__") and hasattr(t, "__iter__")
    except Exception as exc:
        guard.check(exc)
        return False


def type_in(mro, module_prefix, names):
    """Whether a class of ``mro`` is named one of ``names`` in a module under
    ``module_prefix`` (a library recognised without importing it)."""
    for cls in mro:
        module = getattr(cls, "__module__", "") or ""
        if cls.__name__ in names and module.startswith(module_prefix):
            return True
    return False


def loaded(module):
    """The library if the user imported it (never imported here)."""
    return sys.modules.get(module)


# --- an engine's table in the list ---------------------------------------------------------


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
