"""A table as its library sees it, for a view's rows and for the code of that view.

Each table in memory is seen through one library: its backend's own (pandas'
``backends.pandas.PandasTable``, polars' ``backends.polars.PolarsTable``; numpy arrays
and lists of records through pandas when the user imported it), else none
(:class:`PlainTable`: value by value).  A table resolves a view's columns (by name as
the explorer lists them, or by position) to expressions — ``sales["price"]``,
``pl.col("price")`` — that are evaluated for the explorer and rendered for the ``code``
op, orders rows with the library's own sort (stable, missing values last), so that the
generated code gives the same rows in the same order, and writes that code
(:meth:`Table.code`).  Everything here may run the value's own code: callers run it
under the time guard.
"""

from .columns import sort_keys
from .families import plain_column
from .filters import plain_mask


class Table:
    """A table's columns as expressions of its library (or as plain values).

    ``library``: the library whose code it writes (``plain``: none)."""

    library = "plain"

    def __init__(self, table, columns):
        self.table = table  # the backend (``backends.memory.MemoryTable``)
        self.columns = columns  # ``columns.ViewColumns``: the view's columns, found

    def keys(self, view):
        """The view's sort keys as (position, descending), a column's first key only."""
        return sort_keys(view, self.columns)

    def rows(self, view):
        """Row positions in the view's order (None: every row as it is), and the count
        of rows kept (None without a filter)."""
        raise NotImplementedError

    def code(self, view, name, selected):
        """The library's code binding ``<name>_view`` to the view's rows, order and
        columns (``selected``: positions shown, None for every column)."""
        raise NotImplementedError


class PlainTable(Table):
    """Values no library holds: each column a list, filtered and sorted value by value."""

    def resolve(self, wanted):
        position = self.columns.find(wanted)
        values = self.values(position)
        return values, plain_column(self.columns.name(position), values)

    def values(self, position):
        values = self.table.column_values(position)
        return values.tolist() if hasattr(values, "tolist") else list(values)

    def rows(self, view):
        total = self.table.total_rows()
        order = list(range(total))
        kept = None
        if view.filter is not None:
            keep = plain_mask(view.filter, self.resolve)
            order = [i for i in order if keep[i]]
            kept = len(order)
        for position, desc in reversed(self.keys(view)):  # stable sorts, last key first
            values = self.values(position)
            present = [i for i in order if not _absent(values[i])]
            absent = [i for i in order if _absent(values[i])]
            order = sorted(present, key=values.__getitem__, reverse=desc) + absent
        return order, kept


def _absent(x):
    return x is None or (type(x) is float and x != x)
