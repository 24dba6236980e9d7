"""numpy arrays (1-D, 2-D, structured) and xarray DataArrays held in memory as rows ×
columns: everything the table ops know of numpy.

* the tables (:class:`NumpyArray`; :class:`DataArrayTable`, a numpy-backed DataArray
  with its coordinates as labels, refused as lazy on dask): only the window is read
  (``a[i:j]``);
* a view's sort and filter see the array through pandas when the user imported it
  (``backends.pandas.PandasTable`` over ``pd.DataFrame(a)``), else value by value;
* a column's statistics (:class:`NumpyColumn`; an object array's as a plain list's) and
  what the data-quality findings read of it; duplicate rows by pandas' row hashes when
  the user imported pandas, else by numpy's ``unique`` (no fix code: arrays get none).

Nothing is imported: numpy, pandas and xarray come from ``sys.modules``.
"""

from ..inspect.tables import label_text
from ..windows.sources import PlainTable
from ..windows.statistics import PlainColumn, booleans_out, no_dates, numpy_numbers, quantile
from .base import Lazy, NotTabular, loaded, register
from .memory import LABEL_CHARS, MemoryTable, take_rows, transpose
from .pandas import PandasTable, pandas_duplicates


@register
class NumpyArray(MemoryTable):
    """1-D (one column, or one per field of a structured dtype) and 2-D arrays."""

    kind = "array"

    def __init__(self, value, session, index_labels=None, column_names=None):
        super().__init__(value, session)
        if value.ndim not in (1, 2):
            raise NotTabular("a {}-D array: rows show 1-D and 2-D arrays".format(value.ndim))
        self.fields = value.dtype.names if value.ndim == 1 else None
        self.index_labels = index_labels
        self.names = column_names

    @classmethod
    def accepts(cls, value):
        np = loaded("numpy")
        return np is not None and isinstance(value, np.ndarray)

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

    def column_values(self, position):
        a = self.value
        if self.fields:
            return a[self.fields[position]]
        return a if a.ndim == 1 else a[:, position]

    def stats_column(self, position):
        values = self.column_values(position)
        if values.dtype.kind == "O":
            return PlainColumn(values.tolist())
        return NumpyColumn(values)

    def table(self, columns):
        """pandas' view of the array (``pd.DataFrame(a)``, ``pd.Series(a)`` for 1-D) when
        the user imported pandas, else value by value.  An xarray's coordinates are not
        pandas' labels: its rows are ordered by pandas, but no code is written for it."""
        pd = loaded("pandas")
        if pd is None:
            return PlainTable(self, columns)
        a = self.value
        code = self.index_labels is None and self.names is None
        if a.ndim == 1 and not self.fields:
            return PandasTable(self, columns, pd.Series(a), True, "pd.Series" if code else False)
        return PandasTable(self, columns, pd.DataFrame(a), False,
                           "pd.DataFrame" if code else False)

    def duplicate_rows(self, rows):
        """By pandas' row hashes when the user imported pandas; else numpy's ``unique``
        of the rows (an object or structured array: value by value)."""
        a = self.value
        pd = loaded("pandas")
        if pd is not None and not self.fields:
            frame = pd.Series(a, copy=False) if a.ndim == 1 else pd.DataFrame(a, copy=False)
            return pandas_duplicates(frame, rows)
        if a.dtype.kind == "O" or self.fields:
            return super().duplicate_rows(rows)
        np = loaded("numpy")
        part = a if rows is None else a[rows]
        if not len(part):
            return 0
        return int(len(part) - len(np.unique(part, axis=0)))

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
            part = self.column_values(p)[rows]
            dates = part.dtype.kind == "M"
            values = part.tolist() if part.dtype.kind == "O" else list(part)
            columns.append(cells.column(values, dates))
        return index, transpose(columns, len(index))


@register
class DataArrayTable(NumpyArray):
    """A numpy-backed xarray DataArray, as its array (its first dimension's coordinate
    as the index, its second's as column names); :class:`Lazy` on dask."""

    def __init__(self, value, session):
        if getattr(value, "chunks", None) is not None:
            raise Lazy("an xarray DataArray on dask, which is lazy: showing rows would "
                       "compute it")
        a = value.values  # numpy-backed: a view, nothing computed
        dims = value.dims
        coords = value.coords
        index = coords[dims[0]].values if dims and dims[0] in coords else None
        names = None
        if a.ndim == 2 and dims[1] in coords:
            names = [label_text(x, LABEL_CHARS) for x in coords[dims[1]].values.tolist()]
        super().__init__(a, session, index, names)
        self.index_name = str(dims[0]) if dims else None

    @classmethod
    def accepts(cls, value):
        xr = loaded("xarray")
        return xr is not None and isinstance(value, getattr(xr, "DataArray", ()))


class NumpyColumn:
    """A 1-D numpy array of any dtype but ``object`` (a plain list's column does those):
    its statistics (``windows.statistics.PlainColumn`` lists the methods)."""

    def __init__(self, a):
        self.a = a

    def __len__(self):
        return int(self.a.shape[0])

    def take(self, positions):
        return NumpyColumn(self.a[positions])

    def _missing(self):
        np = loaded("numpy")
        kind = self.a.dtype.kind
        if kind in "fc":
            return np.isnan(self.a)
        if kind in "mM":
            return np.isnat(self.a)
        return None

    def _present(self):
        mask = self._missing()
        return self.a if mask is None or not mask.any() else self.a[~mask]

    def nulls(self):
        mask = self._missing()
        return 0 if mask is None else int(mask.sum())

    def cheap_nulls(self):
        return True

    def nulls_at(self, rows):
        mask = self._missing()
        if mask is None:
            return 0
        return int(mask.sum() if rows is None else mask[rows].sum())

    def family(self):
        kind = self.a.dtype.kind
        if kind == "b":
            return "boolean"
        if kind in "iuf":
            return "number"
        if kind == "M":
            return "datetime"
        if kind in "US":
            return "string"
        return "other"

    def numbers(self, scale, texts):
        return numpy_numbers(loaded("numpy"), self.a, scale)

    def strings(self, top, present, scale, texts):
        return PlainColumn(self.a.tolist()).strings(top, present, scale, texts)

    def booleans(self, present, scale, texts):
        return booleans_out(self.a.sum(), present, scale)

    def datetimes(self, scale, texts):
        np = loaded("numpy")
        data = self._present()
        if not data.size:
            return no_dates()
        try:
            mid = np.percentile(data, 50)  # numpy's own (in the array's unit)
        except TypeError:  # a numpy too old to interpolate dates: the lower middle
            mid = np.sort(data)[(data.size - 1) // 2]
        return {"min": str(np.datetime_as_string(data.min())),
                "max": str(np.datetime_as_string(data.max())),
                "median": str(np.datetime_as_string(mid))}

    # --- what the findings read (``windows.findings.PlainFacts`` lists the methods) ---

    def _finite(self):
        np = loaded("numpy")
        a = self.a
        if a.dtype.kind == "f":
            a = a[np.isfinite(a)]
        return a

    def bounds(self):
        a = self._present()
        return a.min(), a.max()

    def quartiles(self):
        np = loaded("numpy")
        a = self._finite()
        if not a.size:
            return None
        return [float(q) for q in np.quantile(a, (0.25, 0.5, 0.75))]

    def deviations(self, center):
        np = loaded("numpy")
        a = self._finite().astype(np.float64)
        return quantile(np.sort(np.abs(a - center)), 0.5) if a.size else 0.0

    def outside(self, low, high):
        a = self.a
        return int(((a < low) | (a > high)).sum())

    def whole(self):
        np = loaded("numpy")
        a = self._finite()
        return a.dtype.kind in "iub" or bool((a == np.floor(a)).all())

    def floats(self):
        return self.a

    def _counted(self):
        found = getattr(self, "_groups", None)
        if found is None:
            np = loaded("numpy")
            values, counts = np.unique(self._present(), return_counts=True)
            found = self._groups = (values, counts)
        return found

    def labels(self, limit):
        values, counts = self._counted()
        return list(zip(values[:limit].tolist(), counts[:limit].tolist())), len(values)

    def repeated(self, limit):
        np = loaded("numpy")
        values, counts = self._counted()
        repeats = np.flatnonzero(counts > 1)
        return (len(values), int(counts[repeats].sum()), values[repeats[:limit]].tolist(),
                len(repeats))

    def type_counts(self):
        return None
