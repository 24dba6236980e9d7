"""Inspectors for numpy, torch and xarray, and the resolver for every third-party type.

Libraries are reached only through ``sys.modules``: nothing is imported here, so a
library the user has not imported is never loaded.  Everything is O(1) or O(first items):
``a.flat[:k]``, a view of the first row; never a full repr.
"""

import itertools
import json
import sys

from . import display
from .arrays import (
    NDARRAY,
    NdarrayInspector,
    NumpyScalarInspector,
    numpy_scalar_kind,
    short_floats,
)
from .base import RESOLVERS, Inspector
from .display import cut
from .scalars import DATE
from .tables import (
    PANDAS_FRAME,
    PANDAS_INDEX,
    PANDAS_SERIES,
    POLARS_FRAME,
    POLARS_SERIES,
    PREVIEW_COLUMNS,
    label_text,
    plain_label,
    values_repr,
)

# --- torch ----------------------------------------------------------------------------


class TensorInspector(NdarrayInspector):
    kind = "tensor"

    def size(self, v):
        return int(v.numel())

    cheap_size = size

    def dtype(self, v):
        return str(v.dtype).replace("torch.", "")

    def nbytes(self, v):
        return int(v.element_size() * v.numel())

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        x = v.detach()
        while x.dim() > 1 and x.shape[0] > 0:
            x = x[0]  # a view of the first row: never the whole tensor
        values = [x.item()] if x.dim() == 0 else x[: ctx.max_items].cpu().tolist()
        text, truncated = values_repr(values, int(v.numel()), limit, ctx)
        device = str(v.device)
        if device != "cpu":
            text, t2 = cut(text + " device=" + device, limit)
            truncated = truncated or t2
        return text, truncated

    def fingerprint(self, v):
        return ("array", tuple(v.shape), str(v.dtype), v.data_ptr())

    def detail_repr(self, v, limit):
        return self.preview(v, limit, 0, display.Ctx(max_items=min(1000, limit // 4)))


# --- xarray ---------------------------------------------------------------------------


class DataArrayInspector(NdarrayInspector):
    def nbytes(self, v):
        return int(v.nbytes)

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        dims = (
            "("
            + ", ".join("{}: {}".format(label_text(d, 20), n) for d, n in zip(v.dims, v.shape))
            + ")"
        )
        data = getattr(v.variable, "_data", None)
        numpy = sys.modules.get("numpy")
        if numpy is not None and type(data) is numpy.ndarray:
            k = min(ctx.max_items, data.size)
            text, _ = values_repr(short_floats(data.flat[:k].tolist()), int(data.size), limit, ctx)
        else:
            text = "(lazy)"
        return cut(dims + " " + text, limit)[0], True

    def detail_repr(self, v, limit):
        return self.preview(v, limit, 0, display.Ctx(max_items=min(1000, limit // 4)))

    def fingerprint(self, v):
        return ("array", tuple(v.shape), str(v.dtype), tuple(plain_label(d) for d in v.dims))

    def children(self, v):
        return None

    def child(self, v, key):
        raise LookupError(key)


class DatasetInspector(Inspector):
    kind = "mapping"

    def size(self, v):
        return len(v.data_vars)

    def nbytes(self, v):
        return int(v.nbytes)

    def preview(self, v, limit, depth=0, ctx=None):
        dims = ", ".join(
            "{}: {}".format(label_text(d, 20), n) for d, n in itertools.islice(v.sizes.items(), 10)
        )
        names = [
            (label_text(k), str(a.dtype))
            for k, a in itertools.islice(v.data_vars.items(), PREVIEW_COLUMNS)
        ]
        text = "(" + dims + ") — " + ", ".join("{}:{}".format(n, d) for n, d in names)
        return cut(text, limit)

    detail_repr = preview

    def fingerprint(self, v):
        return (
            "dataset",
            tuple((plain_label(k), n) for k, n in v.sizes.items()),
            tuple(map(plain_label, v.data_vars)),
        )

    def children(self, v):
        names = list(v.data_vars)
        return (
            (("k:" + json.dumps(n), label_text(n), v[n]) for n in names if type(n) is str),
            len(names),
        )

    def child(self, v, key):
        if key.startswith("k:"):
            name = json.loads(key[2:])
            if type(name) is str and name in v.data_vars:
                return v[name]
        raise LookupError(key)


def _resolve(t, m):
    modules = sys.modules
    np = modules.get("numpy")
    if np is not None:
        if np.ndarray in m:
            return NDARRAY
        if np.generic in m:
            return _numpy_scalar(numpy_scalar_kind(m, np))
    for library, loaded, kinds in _LIBRARY_TYPES:
        module = modules.get(library)
        if module is None or not hasattr(module, loaded):
            continue
        for attribute, insp in kinds:
            cls = getattr(module, attribute, None)  # a type this version lacks: none
            if cls is not None and cls in m:
                return insp
    return None


_NUMPY_SCALARS = {}


def _numpy_scalar(kind):
    insp = _NUMPY_SCALARS.get(kind)
    if insp is None:
        insp = _NUMPY_SCALARS[kind] = NumpyScalarInspector(kind)
    return insp


TENSOR = TensorInspector()
DATA_ARRAY = DataArrayInspector()
DATASET = DatasetInspector()
#: The libraries after numpy: the module's name, an attribute it has once its import is
#: done, then its types (by attribute) and their inspectors: the first of them in a
#: type's MRO is its inspector.  (A polars LazyFrame, like every engine's table, is
#: resolved before these: ``backends.base.EngineInspector``.)
_LIBRARY_TYPES = (
    ("pandas", "Index", (("DataFrame", PANDAS_FRAME), ("Series", PANDAS_SERIES),
                         ("Index", PANDAS_INDEX), ("Timestamp", DATE))),
    ("polars", "Series", (("DataFrame", POLARS_FRAME), ("Series", POLARS_SERIES))),
    ("torch", "Tensor", (("Tensor", TENSOR),)),
    ("xarray", "Dataset", (("DataArray", DATA_ARRAY), ("Dataset", DATASET))),
)
RESOLVERS.insert(0, _resolve)
