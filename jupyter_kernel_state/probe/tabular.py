"""Tables and arrays as row windows, for the ``rows`` op (the data explorer).

One adapter per kind of value: pandas DataFrame and Series, polars DataFrame and
Series, numpy 1-D/2-D arrays (structured arrays by field), xarray DataArrays held in
memory, and lists of records (dicts, lists or tuples, scalars).  An adapter reads only
the window asked for (``iloc``, ``slice``, ``a[i:j]``) and the one column a sort needs;
nothing is ever copied whole.  Lazy values (polars LazyFrame, dask, xarray on dask,
generators and iterators) are refused with :class:`Lazy`: reading them would compute or
consume them.

Cells become text by dtype: floats in their shortest round-trip form, dates compact
(``2024-10-02`` when a column's times in the window are all midnight), missing values
(None, NaN, NaT, pd.NA) as ``None`` so the grid can mark them.
"""

import datetime
import sys

from . import guard
from .cells import LABEL_CHARS, Adapter, Lazy, NotTabular, take_rows, transpose
from .frames import PandasFrame, PandasSeries, PolarsFrame, PolarsSeries
from .inspectors import inspector_for, type_name
from .tables import (
    PANDAS_FRAME,
    PANDAS_SERIES,
    POLARS_FRAME,
    POLARS_LAZY,
    POLARS_SERIES,
    label_text,
)

#: Records read to find a list of records' columns, and the most columns kept from them.
RECORD_SCAN = 200
MAX_RECORD_KEYS = 10_000


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

    def sort_order(self, position, descending):
        np = sys.modules["numpy"]

        def order(col):
            ranked = np.argsort(col, kind="stable")
            if descending:
                ranked = ranked[::-1]
            if col.dtype.kind in "fcmM":
                missing = np.isnat(col[ranked]) if col.dtype.kind in "mM" else np.isnan(col[ranked])
                if missing.any():
                    ranked = np.concatenate([ranked[~missing], ranked[missing]])
            return ranked

        return order(self._column(position))

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


class Records(Adapter):
    """A list or tuple of dicts (columns = their keys), of lists/tuples (positions), or of
    plain values (one column)."""

    kind = "records"

    def __init__(self, value, session):
        super().__init__(value, session)
        head = self.run(lambda: list(value[:RECORD_SCAN]))
        if head and all(type(r) is dict for r in head):
            keys = {}
            for r in head:
                for k in r:
                    if len(keys) >= MAX_RECORD_KEYS:
                        break
                    keys.setdefault(k, None)
            self.mode, self.keys = "dict", list(keys)
        elif head and all(type(r) in (list, tuple) for r in head):
            self.mode, self.keys = "seq", list(range(max(len(r) for r in head)))
        else:
            self.mode, self.keys = "value", [None]

    def total_rows(self):
        return int(self.run(len, self.value))

    def columns_total(self):
        return len(self.keys)

    def column_labels(self, positions):
        if self.mode == "value":
            return [("value", None)]
        return [(label_text(self.keys[i], LABEL_CHARS), None) for i in positions]

    def _cell(self, record, position):
        if self.mode == "value":
            return record
        key = self.keys[position]
        if self.mode == "dict":
            return record.get(key) if type(record) is dict else None
        if type(record) in (list, tuple) and key < len(record):
            return record[key]
        return None

    def column_values(self, position):
        return [self._cell(r, position) for r in self.value]

    def sort_order(self, position, descending):
        value = self.value
        keyed = [(self._cell(r, position), i) for i, r in enumerate(value)]
        present = [p for p in keyed if not _absent(p[0])]
        absent = [i for x, i in keyed if _absent(x)]

        def ranked():
            return sorted(present, key=lambda p: p[0], reverse=descending)

        return [i for _x, i in ranked()] + absent

    def window(self, rows, positions, cells):
        records = self.run(take_rows, self.value, rows)
        labels = range(rows.start, rows.start + len(records)) if type(rows) is slice else rows
        positions = list(positions)
        out = [[self._cell(r, p) for p in positions] for r in records]
        columns = []
        for j in range(len(positions)):
            values = [row[j] for row in out]
            present = [x for x in values if x is not None]
            dates = bool(present) and all(isinstance(x, datetime.datetime) for x in present)
            columns.append(cells.column(values, dates))
        return [str(i) for i in labels], transpose(columns, len(records))


def _absent(x):
    return x is None or (type(x) is float and x != x)


# --- choosing an adapter ----------------------------------------------------------------


def adapter_for(value, session):
    """The adapter for ``value``; :class:`Lazy` or :class:`NotTabular` otherwise."""
    t = type(value)
    module = getattr(t, "__module__", "") or ""
    if module.split(".")[0] == "dask":
        raise Lazy("a dask {}, which is lazy: showing rows would compute it".format(type_name(t)))
    if isinstance(value, (list, tuple)):  # a subclass's own methods run under the guard
        return Records(value, session)
    inspector = inspector_for(t)
    if inspector is PANDAS_FRAME:
        return PandasFrame(value, session)
    if inspector is PANDAS_SERIES:
        return PandasSeries(value, session)
    if inspector is POLARS_FRAME:
        return PolarsFrame(value, session)
    if inspector is POLARS_SERIES:
        return PolarsSeries(value, session)
    if inspector is POLARS_LAZY:
        raise Lazy("a polars LazyFrame, which is lazy: showing rows would compute it "
                   "(collect() it first)")
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return NumpyArray(value, session)
    xr = sys.modules.get("xarray")
    if xr is not None and isinstance(value, getattr(xr, "DataArray", ())):
        return _data_array(value, session)
    if _is_iterator(value):
        raise Lazy("a {}, an iterator: showing rows would consume it".format(type_name(t)))
    raise NotTabular("a {} ({}): rows show tables, arrays and lists of records".format(
        type_name(t), inspector.kind))


def _data_array(value, session):
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


def _is_iterator(value):
    t = type(value)
    try:
        return hasattr(t, "__next__") and hasattr(t, "__iter__")
    except Exception as exc:
        guard.check(exc)
        return False
