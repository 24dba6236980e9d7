"""Inspectors for tables and their columns: pandas DataFrame/Series/Index, polars
DataFrame/Series — and the helpers the other third-party inspectors share.

Only the first rows and columns are read (``iloc[:k]``, ``head(k)``); never a full repr,
never ``memory_usage(deep=True)``.  Nothing is imported: libraries come from
``sys.modules``.
"""

import itertools
import json
import math
import sys

from . import display
from .arrays import Raw, ShapedInspector, elem_text, values_repr
from .base import Inspector, preview_of
from .display import cut

#: Columns named in a table preview, columns listed in a detail, head rows/columns.
PREVIEW_COLUMNS = 12
MAX_COLUMNS = 200
HEAD_ROWS = 10
HEAD_COLUMNS = 50
MAX_CELL = 100
#: Columns fingerprinted by the change tracker.
FINGERPRINT_COLUMNS = 200


def label_text(x, limit=40):
    if type(x) is str:
        return cut(x, limit)[0]
    return preview_of(x, limit)[0]


def plain_label(x):
    """A label safe to compare and keep: plain scalars (or tuples of them) as is."""
    if type(x) in (str, int, float, bool) or x is None:
        return x
    if type(x) is tuple and all(type(i) in (str, int, float, bool) for i in x):
        return x
    return (type(x).__name__, id(x))


def column_key(label, pos):
    t = type(label)
    if t in (str, int, bool) or (t is float and math.isfinite(label)):
        return "c:" + json.dumps(label)
    return "ci:%d" % pos


def _cell(x):
    if type(x) is str:
        return cut(x, MAX_CELL)[0]
    return preview_of(x, MAX_CELL)[0]


def _table_preview(rows, cols, names_dtypes, limit):
    head = "{:,}×{:,}".format(rows, cols)
    parts = ["{}:{}".format(label_text(n), d) for n, d in names_dtypes]
    if cols > len(parts):
        parts.append("…")
    text = head + (" — " + ", ".join(parts) if parts else "")
    return cut(text, limit)[0], len(parts) < cols or len(text) > limit


def dtype_summary(counts):
    if not counts:
        return None
    if len(counts) == 1:
        return next(iter(counts))
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    parts = ["{} ×{:,}".format(name, n) for name, n in ranked[:4]]
    if len(ranked) > 4:
        parts.append("…")
    return cut("mixed: " + ", ".join(parts), 100)[0]


#: pandas dtypes whose values read best as their ``str`` (compact when all at midnight):
#: 2024-01-01, 2024-01-01 12:00:00, NaT,
#: 0 days 01:00:00, 2024-01, (0, 1].
_TEXT_DTYPE_KINDS = frozenset("mM")
_TEXT_DTYPE_NAMES = ("period", "interval")


def pandas_values(head):
    """``head.tolist()``, dates and spans as their readable text."""
    values = head.tolist()
    dtype = head.dtype
    kind = getattr(dtype, "kind", "O")
    if kind in _TEXT_DTYPE_KINDS or str(dtype).startswith(_TEXT_DTYPE_NAMES):
        texts = [str(x) for x in values]
        if kind == "M" and all(t.endswith(" 00:00:00") or t == "NaT" for t in texts):
            texts = [t[:-9] if t != "NaT" else t for t in texts]  # dates at midnight: dates
        return [Raw(t) for t in texts]
    return values


def _head(columns, rows, index):
    return {
        "columns": [label_text(c, MAX_CELL) for c in columns],
        "rows": [[_cell(x) for x in row] for row in rows],
        "index": None if index is None else [_cell(x) for x in index],
    }


# --- pandas ---------------------------------------------------------------------------


class PandasFrameInspector(ShapedInspector):
    kind = "dataframe"

    def nbytes(self, v):
        # From the blocks (O(blocks)), as memory_usage(index=True, deep=False) sums them
        # column by column (a Series per column: seconds on 10,000 columns).
        mgr = getattr(v, "_mgr", None)
        blocks = getattr(mgr, "blocks", None)
        if type(blocks) is tuple:
            index = v.index.memory_usage(deep=False)
            return int(sum(b.values.nbytes for b in blocks)) + int(index)
        return int(v.memory_usage(index=True, deep=False).sum())

    def dtype(self, v):
        """``float64`` when all columns share it, else ``mixed: int64 ×2, object ×1``."""
        counts = {}
        blocks = getattr(getattr(v, "_mgr", None), "blocks", None)
        if type(blocks) is tuple:
            for b in blocks:
                name = str(b.dtype)
                counts[name] = counts.get(name, 0) + len(b.mgr_locs)
        else:
            for d in itertools.islice(v.dtypes, MAX_COLUMNS):
                counts[str(d)] = counts.get(str(d), 0) + 1
        return dtype_summary(counts)

    def _dtypes(self, v, k):
        if v.shape[1] <= 2000:
            return [str(d) for d in itertools.islice(v.dtypes, k)]
        return [str(d) for d in v.iloc[:, :k].dtypes]

    def preview(self, v, limit, depth=0, ctx=None):
        rows, cols = v.shape
        k = min(PREVIEW_COLUMNS, cols)
        pairs = zip(itertools.islice(v.columns, k), self._dtypes(v, k))
        return _table_preview(rows, cols, pairs, limit)

    def detail_repr(self, v, limit):
        sub = v.iloc[: HEAD_ROWS * 2, :HEAD_COLUMNS]
        text = repr(sub)
        if sub.shape != v.shape:
            text += "\n[{:,} rows × {:,} columns]".format(*v.shape)
        return cut(text, limit)

    def fingerprint(self, v):
        k = FINGERPRINT_COLUMNS
        cols = tuple(plain_label(c) for c in itertools.islice(v.columns, k))
        return ("table", tuple(v.shape), cols, tuple(self._dtypes(v, k)))

    def columns(self, v, k):
        """The first ``k`` columns with their dtypes, and how many there are."""
        cols = v.shape[1]
        k = min(k, cols)
        return [
            {"name": label_text(c, MAX_CELL), "dtype": d}
            for c, d in zip(itertools.islice(v.columns, k), self._dtypes(v, k))
        ], cols

    def table(self, v):
        cols = v.shape[1]
        k = min(MAX_COLUMNS, cols)
        columns = [
            {"name": label_text(c, MAX_CELL), "dtype": d}
            for c, d in zip(itertools.islice(v.columns, k), self._dtypes(v, k))
        ]
        sub = v.iloc[:HEAD_ROWS, :HEAD_COLUMNS]
        head = _head(list(sub.columns), sub.to_numpy(dtype=object).tolist(), list(sub.index))
        return {"columns": columns, "columns_total": cols, "head": head}

    def children(self, v):
        def gen():
            for pos, label in enumerate(v.columns):
                yield column_key(label, pos), label_text(label), v.iloc[:, pos]

        return gen(), int(v.shape[1])

    def child(self, v, key):
        if key.startswith("ci:") and key[3:].isdigit():
            pos = int(key[3:])
        elif key.startswith("c:"):
            pos = _find_label(v.columns, json.loads(key[2:]))
        else:
            raise LookupError(key)
        if pos >= v.shape[1]:
            raise LookupError(key)
        return v.iloc[:, pos]


def _find_label(columns, label):
    if type(label) not in (str, int, float, bool):
        raise LookupError(label)
    for pos, c in enumerate(columns):
        if type(c) is type(label) and c == label:
            return pos
    raise LookupError(label)


class PandasSeriesInspector(Inspector):
    kind = "series"

    def size(self, v):
        return len(v)

    cheap_size = size

    def shape(self, v):
        return [len(v)]

    def dtype(self, v):
        return str(v.dtype)

    def nbytes(self, v):
        return int(v.nbytes)

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        n = len(v)
        head = v.iloc[: ctx.max_items]
        values = pandas_values(head)
        index = head.index
        pandas = sys.modules.get("pandas")
        default = (
            pandas is not None
            and type(index) is pandas.RangeIndex
            and index.start == 0
            and index.step == 1
        )
        if default:
            return values_repr(values, n, limit, ctx)
        pairs = zip(pandas_values(index), values)
        return display.pairs_repr("{", "}", pairs, n, limit, 0, ctx, elem_text)

    def detail_repr(self, v, limit):
        sub = v.iloc[: HEAD_ROWS * 2]
        text = repr(sub)
        if len(sub) != len(v):
            text += "\n[{:,} values]".format(len(v))
        return cut(text, limit)

    def fingerprint(self, v):
        return ("series", len(v), str(v.dtype))

    def children(self, v):
        def gen():
            for pos, label in enumerate(v.index):
                yield "i:%d" % pos, label_text(label), v.iloc[pos]

        return gen(), len(v)

    def child(self, v, key):
        if key.startswith("i:") and key[2:].isdigit() and int(key[2:]) < len(v):
            return v.iloc[int(key[2:])]
        raise LookupError(key)


class PandasIndexInspector(PandasSeriesInspector):
    kind = "index"

    def nbytes(self, v):
        return int(v.memory_usage(deep=False))

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        pandas = sys.modules.get("pandas")
        if pandas is not None and type(v) is pandas.RangeIndex:
            return cut(repr(v), limit)
        return values_repr(pandas_values(v[: ctx.max_items]), len(v), limit, ctx)

    def detail_repr(self, v, limit):
        return self.preview(v, limit, 0, display.Ctx(max_items=min(1000, limit // 4)))

    def children(self, v):
        return ((("i:%d" % i, "[%d]" % i, x) for i, x in enumerate(v)), len(v))

    def child(self, v, key):
        if key.startswith("i:") and key[2:].isdigit() and int(key[2:]) < len(v):
            return v[int(key[2:])]
        raise LookupError(key)


# --- polars ---------------------------------------------------------------------------


class PolarsFrameInspector(PandasFrameInspector):
    def size(self, v):
        rows, cols = v.shape
        return rows * cols

    cheap_size = size

    def nbytes(self, v):
        return int(v.estimated_size())

    def dtype(self, v):
        counts = {}
        for d in itertools.islice(v.schema.values(), MAX_COLUMNS):
            counts[str(d)] = counts.get(str(d), 0) + 1
        return dtype_summary(counts)

    def _dtypes(self, v, k):
        return [str(d) for d in itertools.islice(v.schema.values(), k)]

    def preview(self, v, limit, depth=0, ctx=None):
        rows, cols = v.shape
        k = min(PREVIEW_COLUMNS, cols)
        return _table_preview(rows, cols, zip(v.columns[:k], self._dtypes(v, k)), limit)

    def detail_repr(self, v, limit):
        return cut(repr(v.head(HEAD_ROWS * 2).select(v.columns[:HEAD_COLUMNS])), limit)

    def fingerprint(self, v):
        k = FINGERPRINT_COLUMNS
        return ("table", tuple(v.shape), tuple(v.columns[:k]), tuple(self._dtypes(v, k)))

    def columns(self, v, k):
        names = v.columns
        dtypes = self._dtypes(v, k)
        return [{"name": label_text(n, MAX_CELL), "dtype": d}
                for n, d in zip(names[:k], dtypes)], len(names)

    def table(self, v):
        names = v.columns
        dtypes = self._dtypes(v, MAX_COLUMNS)
        columns = [{"name": label_text(n, MAX_CELL), "dtype": d} for n, d in zip(names, dtypes)]
        sub = v.head(HEAD_ROWS).select(names[:HEAD_COLUMNS])
        head = _head(sub.columns, [list(r) for r in sub.rows()], None)
        return {"columns": columns, "columns_total": len(names), "head": head}

    def children(self, v):
        names = v.columns
        return (
            (("c:" + json.dumps(n), label_text(n), v.to_series(i)) for i, n in enumerate(names)),
            len(names),
        )

    def child(self, v, key):
        if key.startswith("c:"):
            name = json.loads(key[2:])
            if type(name) is str and name in v.columns:
                return v.get_column(name)
        raise LookupError(key)


class PolarsSeriesInspector(PandasSeriesInspector):
    def nbytes(self, v):
        return int(v.estimated_size())

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        return values_repr(v.head(ctx.max_items).to_list(), len(v), limit, ctx)

    def detail_repr(self, v, limit):
        return cut(repr(v.head(HEAD_ROWS * 2)), limit)

    def children(self, v):
        n = len(v)
        return ((("i:%d" % i, "[%d]" % i, v[i]) for i in range(n)), n)

    def child(self, v, key):
        if key.startswith("i:") and key[2:].isdigit() and int(key[2:]) < len(v):
            return v[int(key[2:])]
        raise LookupError(key)


PANDAS_FRAME = PandasFrameInspector()
PANDAS_SERIES = PandasSeriesInspector()
PANDAS_INDEX = PandasIndexInspector()
POLARS_FRAME = PolarsFrameInspector()
POLARS_SERIES = PolarsSeriesInspector()
