"""A value seen as rows × columns: what every table adapter shares (the ``rows`` op).

One adapter per kind of value (``frames``: pandas and polars; ``ndarrays``: numpy and
xarray; ``records``: lists of records), chosen by ``adapt.adapter_for``.  An adapter
reads only the window asked for, each read through the time guard (``Adapter.run``);
a view's filter and sort go through its ``table`` (``sources``).
"""


#: Characters of a column or index label.
LABEL_CHARS = 200


class Lazy(Exception):
    """The value is lazy: a window would compute or consume it (the message says)."""


class NotTabular(Exception):
    """The value is not a table or an array (the message says what it is)."""



class Adapter:
    """A value seen as rows × columns.  Subclasses read through ``session.run``."""

    kind = "dataframe"
    index_name = None

    def __init__(self, value, session):
        self.value = value
        self.session = session

    def run(self, fn, *args):
        return self.session.run(fn, *args)

    # shape and columns
    def total_rows(self):
        raise NotImplementedError

    def shape(self):
        return [self.total_rows()]

    def columns_total(self):
        return 1

    def column_labels(self, positions):
        """[(name text, dtype text)] of the columns at ``positions``."""
        return [("value", self.dtype_text())]

    def dtype_text(self):
        return None

    def column_names(self, n):
        """The first ``n`` column names as text, for finding a sort column."""
        return [name for name, _ in self.column_labels(range(n))]

    def column_values(self, position):
        """The whole column at ``position`` (a Series, an array or a list), for a filter."""
        raise NotImplementedError

    def table(self, columns):
        """The value as its library sees it (``sources``), for a view's rows and code;
        ``columns`` (``columns.ViewColumns``) has found the columns a view names."""
        raise NotImplementedError

    # windows
    def window(self, rows, positions, cells):
        """(index labels, rows of cell text) for ``rows`` (a slice or row positions)."""
        raise NotImplementedError


def take_rows(seq, rows):
    return seq[rows] if type(rows) is slice else [seq[i] for i in rows]


def transpose(columns, n):
    return [[col[i] for col in columns] for i in range(n)]


class OneColumn:
    """Mixed into the adapters of one-column values (Series): their shape and names."""

    def columns_total(self):
        return 1

    def shape(self):
        return [self.total_rows()]

    def column_names(self, n):
        return [name for name, _ in self.column_labels(range(n))]
