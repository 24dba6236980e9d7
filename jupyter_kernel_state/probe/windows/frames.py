"""pandas and polars tables (DataFrame, Series) as row windows for the ``rows`` op.

Only the window is read (``iloc``, ``slice``) and, for a sort, the one column ranked;
every read goes through the time guard.
"""

import itertools

from ..inspect.tables import label_text
from .adapters import LABEL_CHARS, Adapter, OneColumn, transpose
from .cells import dtype_is_date
from .sources import PandasTable, PolarsTable


class PandasFrame(Adapter):
    kind = "dataframe"

    def total_rows(self):
        return int(self.run(lambda v: v.shape[0], self.value))

    def columns_total(self):
        return int(self.run(lambda v: v.shape[1], self.value))

    def shape(self):
        return [self.total_rows(), self.columns_total()]

    def column_names(self, n):
        labels = self.run(lambda v: list(itertools.islice(v.columns, n)), self.value)
        return [label_text(c, LABEL_CHARS) for c in labels]

    def column_labels(self, positions):
        v = self.value
        positions = list(positions)
        labels = self.run(lambda: [v.columns[i] for i in positions])
        dtypes = self.run(lambda: (lambda all_: [all_.iloc[i] for i in positions])(v.dtypes))
        return [(label_text(c, LABEL_CHARS), str(d)) for c, d in zip(labels, dtypes)]

    @property
    def index_name(self):
        name = self.value.index.name
        return None if name is None else label_text(name, LABEL_CHARS)

    def column_values(self, position):
        return self.value.iloc[:, position]

    def table(self, columns):
        return PandasTable(self, columns, self.value, series=False)

    def window(self, rows, positions, cells):
        positions = list(positions)
        sub = self.run(lambda v: v.iloc[rows, positions], self.value)
        index = cells.column(self.run(lambda: sub.index.tolist()),
                             dtype_is_date(getattr(sub.index, "dtype", None)))
        columns = [_series_cells(self.run(lambda j=j: sub.iloc[:, j]), cells)
                   for j in range(len(positions))]
        return index, transpose(columns, len(index))


def _series_cells(col, cells):
    dtype = col.dtype
    kind = getattr(dtype, "kind", "O")
    if kind == "f" and getattr(dtype, "itemsize", 8) < 8:
        values = list(col.to_numpy())  # numpy scalars: float32 prints as 0.1, not 0.1000000015
    else:
        values = col.tolist()
    if kind in "biuf" and type(dtype).__module__.startswith("numpy"):  # plain numbers; NaN: missing
        return cells.numbers(values)
    return cells.column(values, dtype_is_date(dtype))


class PandasSeries(OneColumn, PandasFrame):
    kind = "series"

    def column_labels(self, positions):
        v = self.value
        name = v.name
        return [("value" if name is None else label_text(name, LABEL_CHARS), str(v.dtype))]

    def total_rows(self):
        return int(self.run(len, self.value))

    def column_values(self, position):
        return self.value

    def table(self, columns):
        return PandasTable(self, columns, self.value, series=True)

    def window(self, rows, positions, cells):
        sub = self.run(lambda v: v.iloc[rows], self.value)
        index = cells.column(self.run(lambda: sub.index.tolist()),
                             dtype_is_date(getattr(sub.index, "dtype", None)))
        return index, [[x] for x in _series_cells(sub, cells)]


class PolarsFrame(Adapter):
    kind = "dataframe"

    def total_rows(self):
        return int(self.run(lambda v: v.height, self.value))

    def columns_total(self):
        return int(self.run(lambda v: v.width, self.value))

    def shape(self):
        return [self.total_rows(), self.columns_total()]

    def column_names(self, n):
        return [label_text(c, LABEL_CHARS) for c in self.run(lambda v: v.columns[:n], self.value)]

    def column_labels(self, positions):
        v = self.value
        names = self.run(lambda: v.columns)
        dtypes = self.run(lambda: v.dtypes)
        return [(label_text(names[i], LABEL_CHARS), str(dtypes[i])) for i in positions]

    def column_values(self, position):
        return self.value.to_series(position)

    def table(self, columns):
        return PolarsTable(self, columns, self.value, series=False)

    def _rows(self, rows):
        if type(rows) is slice:
            return self.run(lambda v: v.slice(rows.start, rows.stop - rows.start), self.value)
        return self.run(lambda v: v[list(rows)], self.value)

    def window(self, rows, positions, cells):
        sub = self._rows(rows)
        n = sub.height
        start = rows.start if type(rows) is slice else None
        index = [str(start + i) for i in range(n)] if start is not None else [str(i) for i in rows]
        columns = []
        for p in positions:
            col = self.run(lambda p=p: sub.to_series(p))
            columns.append(cells.column(self.run(col.to_list), dtype_is_date(col.dtype)))
        return index, transpose(columns, n)


class PolarsSeries(OneColumn, PolarsFrame):
    kind = "series"

    def total_rows(self):
        return int(self.run(len, self.value))

    def column_labels(self, positions):
        v = self.value
        return [(label_text(v.name, LABEL_CHARS) or "value", str(v.dtype))]

    def column_values(self, position):
        return self.value

    def table(self, columns):
        return PolarsTable(self, columns, self.value.to_frame(), series=True)

    def window(self, rows, positions, cells):
        v = self.value
        if type(rows) is slice:
            sub = self.run(lambda: v.slice(rows.start, rows.stop - rows.start))
            index = [str(rows.start + i) for i in range(len(sub))]
        else:
            sub = self.run(lambda: v[list(rows)])
            index = [str(i) for i in rows]
        return index, [[x] for x in cells.column(self.run(sub.to_list), dtype_is_date(v.dtype))]


