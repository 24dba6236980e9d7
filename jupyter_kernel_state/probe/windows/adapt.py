"""The adapter for a value (``rows`` op): which kind of table or array it is, or why it
is none — :class:`adapters.Lazy` when reading it would compute or consume it,
:class:`adapters.NotTabular` otherwise."""

import sys

from .. import guard
from ..inspect.base import inspector_for, type_name
from ..inspect.tables import PANDAS_FRAME, PANDAS_SERIES, POLARS_FRAME, POLARS_LAZY, POLARS_SERIES
from .adapters import Lazy, NotTabular
from .frames import PandasFrame, PandasSeries, PolarsFrame, PolarsSeries
from .ndarrays import NumpyArray, data_array
from .records import RecordList


def adapter_for(value, session):
    """The adapter for ``value``; :class:`Lazy` or :class:`NotTabular` otherwise."""
    t = type(value)
    module = getattr(t, "__module__", "") or ""
    if module.split(".")[0] == "dask":
        raise Lazy("a dask {}, which is lazy: showing rows would compute it".format(type_name(t)))
    if isinstance(value, (list, tuple)):  # a subclass's own methods run under the guard
        return RecordList(value, session)
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
        return data_array(value, session)
    if _is_iterator(value):
        raise Lazy("a {}, an iterator: showing rows would consume it".format(type_name(t)))
    raise NotTabular("a {} ({}): rows show tables, arrays and lists of records".format(
        type_name(t), inspector.kind))


def _is_iterator(value):
    t = type(value)
    try:
        return hasattr(t, "__next__") and hasattr(t, "__iter__")
    except Exception as exc:
        guard.check(exc)
        return False
