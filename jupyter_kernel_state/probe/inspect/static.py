"""Summaries that call no user code, for when the time guard cannot arm.

A user timer is pending (``signal.alarm``/``setitimer``) or the probe runs off the main
thread: a slow ``__repr__`` could not be stopped, so none is called.  Only C-level and
static sources are read: ``len`` of exact builtin containers, ``shape``/``dtype``/
``nbytes`` of exact numpy arrays and scalars, row and column counts of exact pandas
frames and series whose axes are pandas' own types.  Everything else keeps its type and
kind; the preview stays empty and ``error`` says why.
"""

import collections
import sys

from .base import mro
from .display import bytes_repr, cut

#: Exact builtin types whose ``len`` is C code (the change tracker compares it every cell).
LEN_TYPES = frozenset(
    (list, tuple, dict, set, frozenset, str, bytes, bytearray, collections.deque)
)
_type_module = type.__dict__["__module__"].__get__


def _module(t):
    try:
        m = _type_module(t)
    except Exception:
        return ""
    return m if type(m) is str else ""


def fill(v, out, errors, limit):
    """Fill what static sources give; never calls user code, never raises."""
    t = type(v)
    try:
        if t in LEN_TYPES:
            out["size"] = len(v)
            if t is bytes:
                out["nbytes"] = len(v)
                out["preview"], out["truncated"] = bytes_repr(v, limit)
            return
        np = sys.modules.get("numpy")
        if np is not None and _module(t) == "numpy":
            _numpy(v, t, np, out, limit)
            return
        pd = sys.modules.get("pandas")
        if pd is not None and t in (getattr(pd, "DataFrame", None), getattr(pd, "Series", None)):
            _pandas(v, t, pd, out)
    except Exception as exc:  # numpy/pandas internals changed: fields stay null
        errors.append("static summary raised " + type(exc).__name__)


def _numpy(v, t, np, out, limit):
    if t is np.ndarray:
        out["shape"] = list(v.shape)
        out["size"] = int(v.size)
        out["dtype"] = str(v.dtype)
        out["nbytes"] = int(v.nbytes)
    elif np.generic in mro(t) and t is not np.object_:
        out["dtype"] = str(v.dtype)
        out["nbytes"] = int(v.nbytes)
        if v.dtype.kind in "biufc":
            out["preview"], out["truncated"] = cut(str(v.item()), limit)


def _pandas_own(x):
    m = _module(type(x))
    return m == "pandas" or m.startswith("pandas.")


def _own_axis(ax):
    return _pandas_own(ax)


def _pandas(v, t, pd, out):
    # Read the axes from the block manager: pandas' own attributes, no user accessor.
    mgr = v.__dict__.get("_mgr")
    if mgr is None:
        return
    axes = mgr.axes
    if not all(_own_axis(ax) for ax in axes):
        return
    if t is pd.DataFrame:
        cols, rows = len(axes[0]), len(axes[1])
        out["shape"] = [rows, cols]
        out["size"] = rows * cols
    else:
        n = len(axes[0])
        out["shape"] = [n]
        out["size"] = n
        dtype = mgr.dtype
        if _module(type(dtype)) in ("numpy", "numpy.dtypes") or _pandas_own(dtype):
            out["dtype"] = str(dtype)
