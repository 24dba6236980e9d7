"""A column's statistics with its own library, for the ``profile`` op: pandas Series,
polars Series, numpy 1-D arrays (``statistics.PlainColumn`` for lists and object arrays).

Every column offers the same methods: ``take`` (the rows at some positions), ``nulls``
(missing values: null, None, NaN, NaT, ``pd.NA``), ``family`` (what the values are:
``number``, ``string``, ``category``, ``boolean``, ``datetime``, ``other``) and the
statistics of each family (see ``statistics`` for their definitions). Numbers are read
as float64; ±inf is left out of every statistic of a number column (``count`` has it).
Nothing is imported: libraries come from ``sys.modules``.
"""

import sys

from .statistics import (
    PlainColumn,
    bins_for,
    counts_from,
    edges_for,
    histogram,
    iso,
    no_numbers,
    numbers_out,
    quantile,
    strings_out,
)

_PERCENTS = (5, 25, 50, 75, 95)  # statistics.QUANTILES and the median, in order
_NO_DATES = {"min": None, "max": None, "median": None}


def column_for(values):
    """The column object for ``values`` (a Series, an array or a list)."""
    module = (getattr(type(values), "__module__", "") or "").split(".")[0]
    if module == "pandas":
        return PandasColumn(values)
    if module == "polars":
        return PolarsColumn(values)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(values, np.ndarray):
        if values.dtype.kind == "O":
            return PlainColumn(values.tolist())
        return NumpyColumn(values)
    return PlainColumn(list(values))


def numpy_numbers(np, a, scale):
    """The statistics of a numpy number array (NaN and ±inf left out), from one sort: the
    quantiles are read at their positions, the histogram's counts found by bisection; an
    overflow (a std past the float range) is a missing statistic, whatever ``np.seterr``
    says."""
    with np.errstate(all="ignore"):
        return _numpy_numbers(np, a, scale)


def _numpy_numbers(np, a, scale):
    f = a.astype(np.float64, copy=False)
    ordered = np.sort(f)  # NaN sorts last
    start = int(np.searchsorted(ordered, -np.inf, "right"))
    stop = int(np.searchsorted(ordered, np.inf, "left"))
    ordered = ordered[start:stop]
    n = int(ordered.size)
    if not n:
        return no_numbers()
    if n < f.size:
        keep = np.isfinite(f)
        f, a = f[keep], a[keep]
    if a.dtype.kind in "iu":  # exact, however large
        low, high = a.min().item(), a.max().item()
    else:
        low, high = float(ordered[0]), float(ordered[-1])
    qs = [quantile(ordered, p / 100.0) for p in _PERCENTS]
    bins = bins_for(n, qs[1], qs[3], float(ordered[0]), float(ordered[-1]))
    edges = edges_for(ordered[0], ordered[-1], bins)
    counts = None
    if edges is not None:
        counts = counts_from(np.searchsorted(ordered, edges[:-1], "left").tolist(), n)
    return numbers_out(low, high, f.mean(), qs[2], f.std(ddof=1) if n > 1 else None,
                       qs[:2] + qs[3:], histogram(edges, counts, scale))


def numpy_ranked(np, counts, k):
    """The positions of the ``k`` largest counts (an array), ties first come first."""
    d = int(counts.size)
    k = min(k, d)
    if k <= 0:
        return []
    threshold = np.partition(counts, d - k)[d - k]
    candidates = np.flatnonzero(counts >= threshold)
    order = candidates[np.argsort(-counts[candidates], kind="stable")]
    return order[:k].tolist()


def booleans_out(true, present, scale):
    true = round(int(true) * scale)
    return {"true": true, "false": max(0, int(present) - true)}


def series_dates_out(present):
    """A pandas or polars series' present dates: its own min, max and median."""
    if not len(present):
        return dict(_NO_DATES)
    return {"min": iso(present.min()), "max": iso(present.max()),
            "median": iso(present.median())}


class PandasColumn:
    def __init__(self, s):
        self.s = s

    def __len__(self):
        return len(self.s)

    def take(self, positions):
        return PandasColumn(self.s.take(positions))

    def nulls(self):
        return int(self.s.isna().sum())

    def cheap_nulls(self):
        """Missing values found without a pass in Python (not object or python strings)."""
        np = sys.modules["numpy"]
        dtype = self.s.dtype
        if isinstance(dtype, np.dtype):
            return dtype.kind != "O"
        return getattr(dtype, "storage", None) != "python"

    def nulls_at(self, rows):
        mask = self.s.isna().to_numpy()
        return int(mask.sum() if rows is None else mask[rows].sum())

    def family(self):
        pd = sys.modules["pandas"]
        np = sys.modules["numpy"]
        types = pd.api.types
        dtype = self.s.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            return "category"
        if isinstance(dtype, np.dtype) and dtype.kind == "O":
            inferred = types.infer_dtype(self.s, skipna=True)
            return {"string": "string", "boolean": "boolean"}.get(inferred, "other")
        if types.is_bool_dtype(dtype):
            return "boolean"
        if types.is_datetime64_any_dtype(dtype):
            return "datetime"
        if types.is_numeric_dtype(dtype) and not types.is_complex_dtype(dtype):
            return "number"
        if types.is_string_dtype(dtype):
            return "string"
        return "other"

    def numbers(self, scale, texts):
        np = sys.modules["numpy"]
        dtype = self.s.dtype
        if isinstance(dtype, np.dtype):
            a = self.s.to_numpy()  # NaN, the only missing value, is left out by the sort
        else:  # nullable and arrow dtypes: their numpy type, the nulls dropped
            a = self.s.dropna().to_numpy(dtype=getattr(dtype, "numpy_dtype", np.float64))
        return numpy_numbers(np, a, scale)

    def strings(self, top, present, scale, texts):
        pd = sys.modules["pandas"]
        np = sys.modules["numpy"]
        # codes in the order values first appear (categories too: only those used); -1
        # for a missing value
        codes, uniques = pd.factorize(self.s)
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        empty = int(counts[np.asarray(uniques == "", dtype=bool)].sum())
        best = [(uniques[i], int(counts[i])) for i in numpy_ranked(np, counts, top)]
        return strings_out(len(uniques), empty, best, present, scale, texts)

    def booleans(self, present, scale, texts):
        return booleans_out(self.s.dropna().astype(bool).sum(), present, scale)

    def datetimes(self, scale, texts):
        return series_dates_out(self.s.dropna())


class NumpyColumn:
    """A 1-D numpy array of any dtype but ``object`` (a list's column does those)."""

    def __init__(self, a):
        self.a = a

    def __len__(self):
        return int(self.a.shape[0])

    def take(self, positions):
        return NumpyColumn(self.a[positions])

    def _missing(self):
        np = sys.modules["numpy"]
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
        return numpy_numbers(sys.modules["numpy"], self.a, scale)

    def strings(self, top, present, scale, texts):
        return PlainColumn(self.a.tolist()).strings(top, present, scale, texts)

    def booleans(self, present, scale, texts):
        return booleans_out(self.a.sum(), present, scale)

    def datetimes(self, scale, texts):
        np = sys.modules["numpy"]
        data = self._present()
        if not data.size:
            return dict(_NO_DATES)
        try:
            mid = np.percentile(data, 50)  # numpy's own (in the array's unit)
        except TypeError:  # a numpy too old to interpolate dates: the lower middle
            mid = np.sort(data)[(data.size - 1) // 2]
        return {"min": str(np.datetime_as_string(data.min())),
                "max": str(np.datetime_as_string(data.max())),
                "median": str(np.datetime_as_string(mid))}


#: polars dtypes (their name before any parameters) by family.
_POLARS_FAMILIES = {
    "boolean": ("Boolean",),
    "number": ("Int8", "Int16", "Int32", "Int64", "Int128", "UInt8", "UInt16", "UInt32",
               "UInt64", "UInt128", "Float16", "Float32", "Float64", "Decimal"),
    "string": ("String", "Utf8"),
    "category": ("Categorical", "Enum"),
    "datetime": ("Date", "Datetime"),
}
_POLARS_FAMILY = {name: family for family, names in _POLARS_FAMILIES.items() for name in names}


class PolarsColumn:
    def __init__(self, s):
        self.s = s

    def __len__(self):
        return len(self.s)

    def _base(self):
        return str(self.s.dtype).split("(")[0]

    def take(self, positions):
        s = self.s
        gather = getattr(s, "gather", None) or s.take
        return PolarsColumn(gather(positions))

    def nulls(self):
        n = self.s.null_count()
        if self._base().startswith("Float"):
            n += int(self.s.is_nan().sum() or 0)
        return int(n)

    def cheap_nulls(self):
        return True

    def nulls_at(self, rows):
        return self.nulls() if rows is None else self.take(rows).nulls()

    def family(self):
        return _POLARS_FAMILY.get(self._base(), "other")

    def numbers(self, scale, texts):
        pl = sys.modules["polars"]
        present = self.s.drop_nulls()
        base = self._base()
        if base == "Decimal" or base == "Float16":
            present = present.cast(pl.Float64)
        if base.startswith("Float"):
            present = present.filter(present.is_finite())
        n = len(present)
        if not n:
            return no_numbers()
        floats = present.cast(pl.Float64)
        ordered = floats.sort()
        qs = [ordered.quantile(p / 100.0, "linear") for p in _PERCENTS]
        low, high = present.min(), present.max()
        bins = bins_for(n, qs[1], qs[3], float(low), float(high))
        edges = edges_for(low, high, bins)
        counts = None
        if edges is not None:
            lefts = pl.Series(edges[:-1], dtype=pl.Float64)
            counts = counts_from(ordered.search_sorted(lefts, "left").to_list(), n)
        return numbers_out(low, high, floats.mean(), qs[2], floats.std() if n > 1 else None,
                           qs[:2] + qs[3:], histogram(edges, counts, scale))

    def strings(self, top, present, scale, texts):
        pl = sys.modules["polars"]
        s = self.s.drop_nulls()
        if self.family() == "category":
            s = s.cast(pl.Utf8)
        frame = s.to_frame("v")
        group_by = getattr(frame, "group_by", None) or frame.groupby
        size = pl.len() if hasattr(pl, "len") else pl.count()
        counted = group_by("v", maintain_order=True).agg(size.alias("n"))
        best = counted.sort("n", descending=True, maintain_order=True).head(top).rows()
        empty = int((s == "").sum() or 0)
        return strings_out(counted.height, empty, best, present, scale, texts)

    def booleans(self, present, scale, texts):
        return booleans_out(self.s.drop_nulls().sum() or 0, present, scale)

    def datetimes(self, scale, texts):
        return series_dates_out(self.s.drop_nulls())
