"""numpy arrays (1-D, 2-D, structured) and xarray DataArrays held in memory as rows ×
columns, for the ``rows`` op: only the window is read (``a[i:j]``); a view's sort and
filter see the array through pandas when the user imported it."""

import sys

from ..inspect.tables import label_text
from .adapters import LABEL_CHARS, Adapter, Lazy, NotTabular, take_rows, transpose
from .sources import PandasTable, PlainTable


class NumpyArray(Adapter):
    """1-D (one column, or one per field of a structured dtype) and 2-D arrays."""

    kind = "array"

    def __init__(self, value, session, index_labels=None, column_names=None):
        super().__init__(value, session)
        if value.ndim not in (1, 2):
            raise NotTabular("a {}-D array: rows show 1-D and 2-D arrays".format(value.ndim))
        self.fields = value.dtype.names if value.ndim == 1 else None
        self.index_labels = index_labels
        self.names = column_names

    def total_rows(self):
        return int(self.value.shape[0])

    def shape(self):
        return [int(n) for n in self.value.shape]

    def columns_total(self):
        if self.fields:
            return len(self.fields)
        return 1 if self.value.ndim == 1 else int(self.value.shape[1])

    def column_labels(self, positions):
        a = self.value
        if self.fields:
            return [(label_text(self.fields[i], LABEL_CHARS), str(a.dtype[i])) for i in positions]
        if a.ndim == 1:
            return [("value", str(a.dtype))]
        names = self.names
        return [(names[i] if names is not None else str(i), str(a.dtype)) for i in positions]

    def _column(self, position):
        a = self.value
        if self.fields:
            return a[self.fields[position]]
        return a if a.ndim == 1 else a[:, position]

    def column_values(self, position):
        return self._column(position)

    def table(self, columns):
        """pandas' view of the array (``pd.DataFrame(a)``, ``pd.Series(a)`` for 1-D) when
        the user imported pandas, else value by value.  An xarray's coordinates are not
        pandas' labels: its rows are ordered by pandas, but no code is written for it."""
        pd = sys.modules.get("pandas")
        if pd is None:
            return PlainTable(self, columns)
        a = self.value
        code = self.index_labels is None and self.names is None
        if a.ndim == 1 and not self.fields:
            return PandasTable(self, columns, pd.Series(a), True, "pd.Series" if code else False)
        return PandasTable(self, columns, pd.DataFrame(a), False,
                           "pd.DataFrame" if code else False)

    def window(self, rows, positions, cells):
        positions = list(positions)
        if type(rows) is slice:
            labels = list(range(rows.start, min(rows.stop, self.total_rows())))
        else:
            labels = list(rows)
        if self.index_labels is not None:
            index = cells.column(take_rows(self.index_labels, rows), True)
        else:
            index = [str(i) for i in labels]
        columns = []
        for p in positions:
            part = self._column(p)[rows]
            dates = part.dtype.kind == "M"
            values = part.tolist() if part.dtype.kind == "O" else list(part)
            columns.append(cells.column(values, dates))
        return index, transpose(columns, len(index))


def data_array(value, session):
    """A numpy-backed xarray DataArray as a :class:`NumpyArray` (its first dimension's
    coordinate as the index, its second's as column names); :class:`Lazy` on dask."""
    if getattr(value, "chunks", None) is not None:
        raise Lazy("an xarray DataArray on dask, which is lazy: showing rows would compute it")
    a = value.values  # numpy-backed: a view, nothing computed
    dims = value.dims
    coords = value.coords
    index = coords[dims[0]].values if dims and dims[0] in coords else None
    names = None
    if a.ndim == 2 and dims[1] in coords:
        names = [label_text(x, LABEL_CHARS) for x in coords[dims[1]].values.tolist()]
    out = NumpyArray(a, session, index, names)
    out.index_name = str(dims[0]) if dims else None
    return out
