"""Tables held in memory (pandas, polars, numpy and xarray, lists of records): what each
library's module implements (one :class:`MemoryTable` subclass per kind of value), and
the table ops built on it.

A table in memory is read a window at a time: only the rows and columns asked for
(``iloc``, ``slice``, ``a[i:j]``), each read through the time guard (:meth:`run`).  A
view's filter and sort go through the value's own library (:meth:`MemoryTable.table`:
``windows.sources``, the same expressions the ``code`` op writes) under their own time
guard, and the order is kept (``windows.order``) so that scrolling a sorted table costs
a window, not a sort; a profile reads one column at a time (:meth:`stats_column`,
``windows.profiles``), and so do the data-quality findings (``windows.finder``), then the
table's duplicate rows (:meth:`duplicate_rows`) and correlated pairs.
"""

from ..inspect.base import inspector_for
from ..windows.code import fix_syntax, positions_of, view_code
from ..windows.columns import ViewColumns
from ..windows.finder import Finder, plain_duplicates
from ..windows.findings import Col, FindingList, filter_refs, write_fixes
from ..windows.order import kept_rows, view_rows
from ..windows.profiles import Profiler, sample_positions
from .base import Found, Page, Profiled, TableBackend

#: Characters of a column or index label.
LABEL_CHARS = 200


class MemoryTable(TableBackend):
    """A value in memory seen as rows × columns.  Subclasses read through :meth:`run`."""

    #: The list's inspector of this class's values (``inspect.tables``), when it says which.
    inspector = None

    @classmethod
    def accepts(cls, value):
        """Whether ``value`` is this class's table."""
        return cls.inspector is not None and inspector_for(type(value)) is cls.inspector

    def run(self, fn, *args):
        return self.session.run(fn, *args)

    # --- shape and columns --------------------------------------------------------------

    def total_rows(self):
        raise NotImplementedError

    def shape(self):
        return [self.total_rows()]

    def column_names(self, n):
        return [name for name, _ in self.column_labels(range(n))]

    def column_values(self, position):
        """The whole column at ``position`` (a Series, an array or a list), for a filter."""
        raise NotImplementedError

    def stats_column(self, position):
        """The column at ``position`` as its library's statistics see it (a
        ``windows.statistics.PlainColumn`` or a library's own), for a profile."""
        raise NotImplementedError

    def table(self, columns):
        """The value as its library sees it (``windows.sources``), for a view's rows and
        code; ``columns`` (``windows.columns.ViewColumns``) has found the columns a view
        names."""
        raise NotImplementedError

    def fix_source(self):
        """The library's table that writes the findings' fixes (``windows.sources.Table``
        with a ``fix`` method), or None when none is written (arrays, records)."""
        return None

    def duplicate_rows(self, rows):
        """How many of ``rows`` (positions; None: every row) equal an earlier row in
        every column: value by value here (a library's table counts its own way)."""
        columns = []
        for position in range(self.columns_total()):
            values = self.column_values(position)
            columns.append(values.tolist() if hasattr(values, "tolist") else list(values))
        return plain_duplicates(columns, rows)

    def window(self, rows, positions, cells):
        """(index labels, rows of cell text) for ``rows`` (a slice or row positions)."""
        raise NotImplementedError

    # --- the table ops ------------------------------------------------------------------

    def read_page(self, state, fields, positions, cells):
        offset, limit, view = fields["offset"], fields["limit"], fields["view"]
        total = self.total_rows()
        shape = self.shape()
        rows = slice(min(offset, total), min(total, offset + limit))
        filtered = None
        if view.sort or view.filter is not None:
            columns = ViewColumns(self, view, self.columns_total())
            key = (fields["name"], id(self.value), type(self.value), view.key,
                   state.execution_count(), total)
            order, filtered = state.row_orders.order(key, lambda: self.session.run_within(
                fields["sort_ms"], view_rows, self, columns, view))
            rows = order[min(offset, len(order)):offset + limit]
        index, data = self.window(rows, positions, cells)
        return Page(shape, total, filtered, index, data, None)

    def read_count(self, state, fields):
        """The filter computed by the value's own library within ``count_ms``."""
        rows = kept_rows(self.session, self, fields["view"], self.columns_total(),
                         fields["count_ms"])
        return self.total_rows() if rows is None else len(rows)

    def read_profile(self, state, fields, positions, labels, texts):
        """Past ``sample_rows`` rows kept, from a fixed-seed sample of that many."""
        total = self.total_rows()
        rows = kept_rows(self.session, self, fields["view"], self.columns_total(),
                         fields["filter_ms"])
        kept = total if rows is None else len(rows)
        limit = fields["sample_rows"]
        sample = sample_positions(kept, limit) if kept > limit else None
        profiler = Profiler(self.session, self, rows, sample, fields["top"], texts,
                            fields["column_ms"])
        columns, unreached = profiler.profile(positions, labels)
        return Profiled(total, None if rows is None else kept, columns, unreached,
                        sample is not None)

    def read_findings(self, state, fields, positions, labels, what):
        """Column by column (``windows.findings.Finder``), on the rows a profile reads:
        past ``sample_rows`` rows kept, a fixed-seed sample of that many."""
        view, name = fields["view"], fields["name"]
        source = self.fix_source()
        syntax, note = fix_syntax(source, fields["syntax"], name, what)
        total = self.total_rows()
        rows = kept_rows(self.session, self, view, self.columns_total(), fields["filter_ms"])
        kept = total if rows is None else len(rows)
        limit = fields["sample_rows"]
        sample = sample_positions(kept, limit) if kept > limit else None
        names = self.column_names(max(positions) + 1) if positions else []
        refs = filter_refs(names, positions)
        cols = [Col(p, label, refs[p]) for p, (label, _dtype) in zip(positions, labels)]
        out = FindingList(view.filter)
        finder = Finder(self.session, self, rows, sample, fields["column_ms"], out)
        unreached = finder.find(cols)
        write = write_fixes(source, name, syntax, dict(enumerate(names)), note, self.session)
        listed, cut, severities = out.finish(fields["max_findings"], write)
        return Found(total, None if rows is None else kept, listed, cut, severities, out.errors,
                     out.not_checked, unreached, sample is not None, syntax)

    def write_code(self, fields, what):
        """From the value's dtypes (``windows.code``), within ``sort_ms``."""
        view = fields["view"]
        columns_total = self.columns_total()
        selected = positions_of(fields, columns_total)
        columns = ViewColumns(self, view, columns_total)
        syntax, code = self.session.run_within(fields["sort_ms"], view_code, self, columns,
                                               view, fields["name"], fields["syntax"],
                                               selected, what)
        return syntax, code, selected


class OneColumn:
    """Mixed into the tables of one-column values (Series): their shape and names."""

    def columns_total(self):
        return 1

    def shape(self):
        return [self.total_rows()]

    def column_names(self, n):
        return [name for name, _ in self.column_labels(range(n))]


def take_rows(seq, rows):
    return seq[rows] if type(rows) is slice else [seq[i] for i in rows]


def transpose(columns, n):
    return [[col[i] for col in columns] for i in range(n)]
