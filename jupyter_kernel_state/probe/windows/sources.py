"""A table as its library sees it, for a view's rows and for the code of that view.

Each table is seen through one library: pandas (DataFrames, Series; numpy arrays and
lists of records as ``pd.DataFrame(value)`` when the user imported pandas), polars
(DataFrames, Series as ``s.to_frame()``), or none (:class:`PlainTable`: value by value).
A table resolves a view's columns (by name as the explorer lists them, or by position)
to expressions — ``sales["price"]``, ``pl.col("price")`` — that are evaluated for the
explorer and rendered for the ``code`` op, and orders rows with the library's own sort
(stable, missing values last), so that the generated code gives the same rows in the
same order.  Everything here may run the value's own code: callers run it under the
time guard.
"""

import sys

from .expressions import Attr, Call, Imports, Lit, Ref, method
from .families import pandas_column, plain_column, polars_column
from .filters import expression, plain_mask

#: Column labels listed in a pandas ``sort_values``/selection; beyond, positions.
MAX_LISTED_LABELS = 50


class Table:
    """A table's columns as expressions of its library (or as plain values)."""

    library = "plain"

    def __init__(self, adapter, columns):
        self.adapter = adapter
        self.columns = columns  # ``columns.ViewColumns``: the view's columns, found

    def keys(self, view):
        """The view's sort keys as (position, descending), a column's first key only."""
        out, seen = [], set()
        for key in view.sort:
            position = self.columns.find(key.column)
            if position not in seen:
                seen.add(position)
                out.append((position, key.desc))
        return out


class PandasTable(Table):
    """A pandas DataFrame or Series (``frame``) whose rows are the explorer's rows.

    ``setup``: how the code builds it from the variable (``pd.DataFrame``) when the value
    is not a pandas object itself (None: it is; False: no code is written for it);
    ``width``: the columns the explorer shows (a frame built from records may have
    more)."""

    library = "pandas"

    def __init__(self, adapter, columns, frame, series, setup=None, width=None):
        super().__init__(adapter, columns)
        self.frame, self.series, self.setup, self.width = frame, series, setup, width
        self.base = Ref("t", frame)
        self.unique = series or bool(frame.columns.is_unique)

    def bind(self, text):
        """Name the table ``text`` in the expressions built from now on."""
        self.base = Ref(text, self.frame)
        return self

    def label(self, position):
        """The column's label as a literal (``"price"``, ``0``), or None for one that
        is no plain literal or not unique (then the code uses ``.iloc``)."""
        if not self.unique:
            return None
        return label_literal(self.frame.columns[position])

    def column(self, position):
        if self.series:
            return self.base, self.frame
        values = self.frame.iloc[:, position]
        label = self.label(position)
        if label is None:
            ref = Ref("{}.iloc[:, {}]".format(self.base.text, position), values)
        else:
            ref = Ref("{}[{}]".format(self.base.text, label.render(Imports())), values)
        return ref, values

    def resolve(self, wanted):
        position = self.columns.find(wanted)
        ref, values = self.column(position)
        return ref, pandas_column(self.columns.name(position), values)

    def mask(self, view):
        """The filter's expression (``sales[mask]`` keeps its rows), or None."""
        if view.filter is None:
            return None
        return expression(view.filter, self.resolve, "pandas")

    def rows(self, view):
        """Row positions in the view's order (None: every row as it is), and the count
        of rows kept (None without a filter)."""
        np = sys.modules["numpy"]
        mask = self.mask(view)
        kept = None
        if mask is not None:
            kept = np.flatnonzero(np.asarray(mask.evaluate().to_numpy(dtype=bool)))
        keys = self.keys(view)
        if not keys:
            return kept, None if kept is None else len(kept)
        if self.series:
            sub = self.frame if kept is None else self.frame.iloc[kept]
        else:
            sub = self.frame.iloc[:, [p for p, _ in keys]]
            sub = sub if kept is None else sub.iloc[kept]
            sub = sub.set_axis(list(range(len(keys))), axis=1)
        ranked = self.sort(sub.reset_index(drop=True), list(range(len(keys))), keys)
        local = ranked.index.to_numpy()
        return (local if kept is None else kept[local]), None if kept is None else len(kept)

    def sort(self, target, labels, keys):
        """``target.sort_values(...)``: the library's stable sort, missing values last."""
        return self.sort_node(Ref("t", target), Lit(list(labels)), keys).evaluate()

    def sort_node(self, base, by, keys):
        """``base.sort_values(by, ascending=[...], kind="stable", na_position="last")``
        (a Series: no ``by``)."""
        options = {"kind": "stable", "na_position": "last"}
        if self.series:
            return method(base, "sort_values", ascending=not keys[0][1], **options)
        return method(base, "sort_values", by, ascending=[not desc for _, desc in keys],
                      **options)


class PolarsTable(Table):
    """A polars DataFrame (a Series as its one-column frame: ``series``)."""

    library = "polars"

    def __init__(self, adapter, columns, frame, series):
        super().__init__(adapter, columns)
        self.frame, self.series = frame, series
        self.pl = sys.modules["polars"]
        self.names = frame.columns
        self.dtypes = frame.dtypes

    def pl_ref(self):
        return Ref("pl", self.pl, "pl")

    def column(self, position):
        return Call(Attr(self.pl_ref(), "col"), [Lit(self.names[position])])

    def resolve(self, wanted):
        position = self.columns.find(wanted)
        return self.column(position), polars_column(self.names[position], self.dtypes[position])

    def mask(self, view):
        if view.filter is None:
            return None
        return expression(view.filter, self.resolve, "polars")

    def sort_keys(self, keys):
        """The sort's expressions: a float column's NaN as null, so that it sorts last."""
        out = []
        for position, _desc in keys:
            ref = self.column(position)
            if polars_column("", self.dtypes[position]).family == "float":
                ref = method(ref, "fill_nan", None)
            out.append(ref)
        return out

    def sort_node(self, base, keys):
        """``base.sort([...], descending=[...], nulls_last=True, maintain_order=True)``."""
        return method(base, "sort", ListOf(self.sort_keys(keys)),
                      descending=[desc for _, desc in keys], nulls_last=True,
                      maintain_order=True)

    def rows(self, view):
        index = "__row"
        while index in self.names:
            index += "_"
        base = Ref("t", self.frame.with_row_index(index))
        mask = self.mask(view)
        node = base if mask is None else method(base, "filter", mask)
        keys = self.keys(view)
        if keys:
            node = self.sort_node(node, keys)
        positions = node.evaluate().get_column(index)
        np = sys.modules.get("numpy")
        positions = positions.to_numpy() if np is not None else positions.to_list()
        return positions, None if mask is None else len(positions)


class PlainTable(Table):
    """Values no library holds: each column a list, filtered and sorted value by value."""

    def resolve(self, wanted):
        position = self.columns.find(wanted)
        values = self.values(position)
        return values, plain_column(self.columns.name(position), values)

    def values(self, position):
        values = self.adapter.column_values(position)
        return values.tolist() if hasattr(values, "tolist") else list(values)

    def rows(self, view):
        total = self.adapter.total_rows()
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


class ListOf(Lit):
    """A list of nodes, rendered ``[a, b]`` and evaluated to the list of their values."""

    def __init__(self, items):
        super().__init__(None)
        self.items = items

    def render(self, imports):
        return "[" + ", ".join(item.render(imports) for item in self.items) + "]"

    def evaluate(self):
        return [item.evaluate() for item in self.items]


def _absent(x):
    return x is None or (type(x) is float and x != x)


def label_literal(label):
    """A pandas column label as a literal node, or None when it is not a plain one
    (text, an integer, a tuple of those)."""
    t = type(label)
    if t is str or t is int:
        return Lit(label)
    module = (getattr(t, "__module__", "") or "").split(".")[0]
    if module == "numpy" and getattr(getattr(label, "dtype", None), "kind", "") in ("i", "u"):
        return Lit(int(label))
    if t is tuple and label and all(type(x) in (str, int) for x in label):
        return _Tuple(label)
    return None


class _Tuple(Lit):
    """A tuple label: ``("a", 1)`` (``df[("a", 1)]`` reads a MultiIndex column)."""

    def render(self, imports):
        items = [Lit(x).render(imports) for x in self.value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    def evaluate(self):
        return self.value
