"""Tables and arrays as columns, for the content fingerprints (``contents``).

Only exact types are read, reached through ``sys.modules`` (nothing is imported): pandas
``DataFrame``/``Series``, polars ``DataFrame``/``Series``, numpy ``ndarray`` and xarray
``DataArray`` holding a numpy array.  A subclass (a GeoDataFrame, a masked array …) is
not compared: its attributes could be user code.  Columns are read through the
libraries' own code (a pandas frame's blocks, ``get_columns``), never through a value's
``__getitem__``; an array is one column of its values in C order.  At most
``MAX_COLUMNS`` columns of a table are compared.
"""

import itertools
import sys

from .hashing import NumpyOps, index_words
from .polars_hashing import polars_ops

#: Columns of a table compared (the table fingerprint names as many).
MAX_COLUMNS = 200
#: Columns (among the first few) that may serve as a row key when the index says nothing.
KEY_COLUMNS = 3
FRAME, SERIES, ARRAY = "frame", "series", "array"


class ContentColumn:
    """One column of a source: its key (label and occurrence: duplicate labels stay
    apart), label, dtype text, and how to read its values (a numpy array, a pandas
    extension array or a polars Series)."""

    __slots__ = ("dtype", "key", "label", "read", "text")

    def __init__(self, key, label, dtype, read, text=False):
        self.key, self.label, self.dtype, self.read = key, label, dtype, read
        self.text = text  # the values are texts (a costlier hash; a key candidate)


class ContentSource:
    """A value as columns: its kind (frame, series, array), the operations on its words,
    rows, shape (arrays), columns, and its index (pandas only) read on demand."""

    __slots__ = ("columns", "index", "kind", "ops", "rows", "shape", "width")

    def __init__(self, kind, ops, rows, columns, index=None, shape=None, width=None):
        self.kind, self.ops, self.rows, self.columns = kind, ops, rows, columns
        self.index = index  # a pandas Index, or None
        self.shape = shape
        self.width = len(columns) if width is None else width  # columns in the value

    @property
    def cells(self):
        """Values the comparison reads (rows × compared columns)."""
        return self.rows * max(1, len(self.columns))

    def signature(self):
        """What must be equal for two takes to be compared column by column."""
        return (self.kind, self.rows, self.width, tuple((c.key, c.dtype) for c in self.columns))

    def range_index(self):
        """The index is a pandas RangeIndex (its facts cost nothing)."""
        pandas = sys.modules.get("pandas")
        return pandas is not None and type(self.index) is pandas.RangeIndex

    def index_facts(self):
        """``("range", …)``, the index's Words, or None (no index, or not readable)."""
        if self.index is None:
            return None
        return index_words(self.ops.np, self.index)


#: The exact types read here and by ``samples``, by library: (module, attribute path, tag).
_TYPES = (
    ("numpy", "ndarray", "ndarray"),
    ("pandas", "DataFrame", "pandas frame"),
    ("pandas", "Series", "pandas series"),
    ("polars", "DataFrame", "polars frame"),
    ("polars", "Series", "polars series"),
    ("xarray", "DataArray", "data array"),
    ("torch", "Tensor", "tensor"),
    ("torch", "nn.Parameter", "tensor"),
)
#: The tags of the values that have columns (a tensor is only sampled).
_COLUMNED = frozenset(("ndarray", "pandas frame", "pandas series", "polars frame",
                       "polars series", "data array"))


_LIBRARIES = ("numpy", "pandas", "polars", "xarray", "torch")
_MODULE = type(sys)
_KNOWN = [None, {}]  # what the libraries looked like, and their types then


def library_types():
    """``{type: tag}`` of the libraries loaded now (nothing is imported); worked out again
    only when one of them was loaded since, or was still loading."""
    modules = sys.modules
    seen = tuple(len(m.__dict__) if type(m) is _MODULE else id(m)
                 for m in map(modules.get, _LIBRARIES))
    if _KNOWN[0] == seen:
        return _KNOWN[1]
    found = {}
    for library, path, tag in _TYPES:
        t = modules.get(library)
        for part in path.split("."):
            t = getattr(t, part, None) if t is not None else None
        if isinstance(t, type):
            found[t] = tag
    _KNOWN[0], _KNOWN[1] = seen, found
    return found


def content_types():
    """The exact types :func:`source_of` reads, of the libraries loaded now."""
    return frozenset(t for t, tag in library_types().items() if tag in _COLUMNED)


def source_of(value, t):
    """The columns of ``value`` (of exact type ``t``), or None when it has none here."""
    tag = library_types().get(t)
    if tag is None or tag not in _COLUMNED:
        return None
    modules = sys.modules
    np = modules.get("numpy")
    if tag == "ndarray":
        return _array(np, value)
    if tag.startswith("polars"):
        pl = modules["polars"]
        return _polars_frame(pl, value) if tag == "polars frame" else _polars_series(pl, value)
    if np is None:
        return None
    if tag == "pandas frame":
        return _pandas_frame(np, value)
    if tag == "pandas series":
        return _pandas_series(np, value)
    data = getattr(value.variable, "_data", None)  # a DataArray: numpy data only
    return _array(np, data) if type(data) is np.ndarray else None


def _array(np, a):
    def read():
        return a.reshape(-1) if a.flags.c_contiguous else np.ravel(a)

    dtype = str(a.dtype)
    column = ContentColumn(("values", 0), None, dtype, read, a.dtype.kind in "USO")
    return ContentSource(ARRAY, NumpyOps(np), int(a.size), [column], shape=tuple(a.shape))


def plain_label(x):
    """A label safe to keep and compare: plain scalars (or tuples of them) as they are,
    anything else by its type's name and its id (never its ``__eq__``/``__hash__``)."""
    if type(x) in (str, int, float, bool) or x is None:
        return x
    if type(x) is tuple and all(type(i) in (str, int, float, bool) for i in x):
        return x
    return (type(x).__name__, id(x))


def safe_label(x):
    """A column label as text for a description, without its ``__repr__`` unless it is
    a plain scalar (None: a series or an array, which has no label in its words)."""
    if x is None:
        return None
    plain = plain_label(x)
    if type(plain) is str:
        return plain
    if type(plain) is tuple and len(plain) == 2 and plain[1] == id(x):
        return "<" + plain[0] + ">"
    return repr(plain)


def _keys(labels):
    """A key per label: the label made plain, and its occurrence among equal labels."""
    seen = {}
    out = []
    for label in labels:
        plain = plain_label(label)
        n = seen.get(plain, 0)
        seen[plain] = n + 1
        out.append((plain, n))
    return out


def _pandas_frame(np, df):
    rows, width = df.shape
    labels = list(itertools.islice(df.columns, MAX_COLUMNS))
    arrays = _block_columns(np, df, len(labels))
    if arrays is None:
        arrays = [(str(df.dtypes.iloc[i]), _column_reader(df, i)) for i in range(len(labels))]
    columns = [
        ContentColumn(key, label, dtype, read, _is_text(np, dtype))
        for key, label, (dtype, read) in zip(_keys(labels), labels, arrays)
    ]
    return ContentSource(FRAME, NumpyOps(np), int(rows), columns, df.index, width=int(width))


def _block_columns(np, df, k):
    """``[(dtype text, reader)]`` of the first ``k`` columns, from the frame's blocks (one
    ``values`` per block, its rows viewed per column), or None when there are none."""
    blocks = getattr(getattr(df, "_mgr", None), "blocks", None)
    if type(blocks) is not tuple:
        return None
    found = [None] * k
    for block in blocks:
        values = block.values
        dtype = str(block.dtype)
        places = block.mgr_locs.as_array.tolist()
        if getattr(values, "ndim", 1) == 2:  # an ndarray, or a 2-D datetime array …
            for row, place in enumerate(places):
                if place < k:
                    found[place] = (dtype, _row_reader(values, row))
        elif places and places[0] < k:
            found[places[0]] = (dtype, _constant(values))
    return None if any(f is None for f in found) else found


def _row_reader(values, row):
    return lambda: values[row]


def _constant(values):
    return lambda: values


def _column_reader(df, i):
    return lambda: df.iloc[:, i]._values


def _is_text(np, dtype):
    return dtype in ("str", "string", "object") or dtype.startswith(("string[", "<U", "|S"))


def _pandas_series(np, s):
    values = s._values
    dtype = str(s.dtype)
    column = ContentColumn(("values", 0), s.name, dtype, _constant(values), _is_text(np, dtype))
    return ContentSource(SERIES, NumpyOps(np), len(s), [column], s.index)


def _polars_frame(pl, df):
    rows, width = df.shape
    series = df.get_columns()[:MAX_COLUMNS]
    labels = [s.name for s in series]
    columns = [
        ContentColumn(key, s.name, str(s.dtype), _constant(s), _polars_text(s))
        for key, s in zip(_keys(labels), series)
    ]
    return ContentSource(FRAME, polars_ops(pl), int(rows), columns, width=int(width))


def _polars_series(pl, s):
    column = ContentColumn(("values", 0), s.name, str(s.dtype), _constant(s), _polars_text(s))
    return ContentSource(SERIES, polars_ops(pl), len(s), [column])


def _polars_text(s):
    return str(s.dtype) in ("String", "Utf8", "Binary")


def size_of(value):
    """``(rows, kind)`` of a content value, read cheaply (a shape, a len), or None."""
    t = type(value)
    if t not in content_types():
        return None
    try:
        shape = value.shape
        rows = int(shape[0]) if len(shape) == 2 and t.__name__ == "DataFrame" else None
        if rows is not None:
            return rows, FRAME
        if t.__name__ == "Series":
            return len(value), SERIES
        size = 1
        for n in shape:
            size *= int(n)
        return size, ARRAY
    except Exception:
        return None
