"""The arithmetic of a column profile that needs no library (the ``profile`` op), the
profile of a plain list's column (a list of records, a numpy object array), and the
same arithmetic over numpy arrays (numpy given by the caller, never imported) for the
columns numpy holds (pandas', numpy's).

Each backend's columns (``backends.pandas.PandasColumn``, ``backends.polars``,
``backends.numpy``, the engines' aggregates) share the definitions written here:

* quantiles by linear interpolation (numpy's default ``linear`` method, pandas' and
  polars' ``"linear"``), the median being the 50 % quantile;
* a histogram of equal-width bins over [min, max], as ``numpy.histogram`` makes it
  (edges ``numpy.linspace``, every bin half-open but the last); its bin count by the
  Freedman–Diaconis rule (width 2·IQR/n^⅓), by Sturges' (log2 n + 1) when the IQR is 0,
  between 1 and :data:`MAX_BINS`;
* the most frequent values by count, ties in the order the values first appear;
* every number JSON-finite (NaN and ±inf never leave the probe).
"""

import bisect
import datetime
import heapq
import math

from ..inspect.display import cut

#: Bins of a histogram at most; quantiles (percent) besides the median; all the
#: quantiles read, the median among them, in order.
MAX_BINS = 50
QUANTILES = (5, 25, 75, 95)
PERCENTS = (5, 25, 50, 75, 95)


class Texts:
    """Text values of a profile (top values, labels) cut to ``limit`` characters,
    counting the cuts."""

    def __init__(self, limit):
        self.limit = limit
        self.truncated = 0

    def text(self, s):
        out, was_cut = cut(s, self.limit)
        if was_cut:
            self.truncated += 1
        return out

    def value(self, x):
        """A JSON value for a top entry: a bool, a finite number, else its text."""
        t = type(x)
        if t is bool or t is int:
            return x
        if t is float:
            return finite(x)
        if isinstance(x, str):
            return self.text(x if t is str else str.__str__(x))
        if isinstance(x, bytes):
            return self.text(bytes.decode(x, "utf-8", "replace"))
        item = getattr(x, "item", None)  # a numpy scalar
        if item is not None and type(x).__module__ == "numpy":
            return self.value(item())
        return self.text(iso(x) or "<{}>".format(type(x).__name__))


def finite(x):
    """``x`` as a plain int or float, None when it is NaN or infinite (or None)."""
    if x is None:
        return None
    if type(x) is bool:
        return int(x)
    if type(x) is int:
        return x
    x = float(x)
    return x if math.isfinite(x) else None


def iso(x):
    """A date or time as ISO 8601 text (None for a missing one)."""
    if x is None or x != x:  # pandas' NaT is unequal to itself
        return None
    isoformat = getattr(x, "isoformat", None)
    if isoformat is not None and isinstance(x, (datetime.date, datetime.time)):
        return isoformat()
    return None


# --- numbers --------------------------------------------------------------------------


def bins_for(n, q25, q75, low, high):
    """How many equal-width bins: Freedman–Diaconis, Sturges when the IQR is 0."""
    if n <= 0:
        return 0
    span = high - low
    iqr = q75 - q25
    fd = iqr > 0 and span > 0
    wanted = span / (2.0 * iqr / n ** (1.0 / 3.0)) if fd else math.log2(n) + 1.0
    if not wanted <= MAX_BINS:  # also NaN
        return MAX_BINS
    return max(1, math.ceil(wanted))


def edges_for(low, high, bins):
    """The bin edges ``numpy.histogram`` makes over [low, high] (a single value: ±0.5);
    None when the range is too wide for a float."""
    low, high = float(low), float(high)
    if low == high:
        low, high = low - 0.5, high + 0.5
    if not math.isfinite(high - low):
        return None
    step = (high - low) / bins
    return [i * step + low for i in range(bins)] + [high]


def counts_from(starts, total):
    """Each bin's count from ``starts``, how many of the ``total`` values lie under each
    left edge (a bin holds [left, right), the last one [left, right])."""
    return [b - a for a, b in zip(starts, [*starts[1:], total])]


def histogram(edges, counts, scale=1.0):
    """``{"edges", "counts"}`` as the reply says it (counts scaled for a sample; none
    without edges)."""
    if edges is None:
        return {"edges": [], "counts": []}
    return {"edges": [finite(e) for e in edges],
            "counts": [round(c * scale) for c in counts]}


def quantile(ordered, q):
    """The ``q`` quantile (0–1) of sorted values, as numpy's ``linear`` method."""
    n = len(ordered)
    virtual = (n - 1) * q
    if virtual <= 0:
        return float(ordered[0])
    if virtual >= n - 1:
        return float(ordered[-1])
    lo = math.floor(virtual)
    a, b = float(ordered[lo]), float(ordered[lo + 1])
    t = virtual - lo
    diff = b - a
    return b - diff * (1.0 - t) if t >= 0.5 else a + diff * t


def numbers_out(low, high, mean, median, std, quantiles, hist):
    return {"min": finite(low), "max": finite(high), "mean": finite(mean),
            "median": finite(median), "std": finite(std),
            "quantiles": {str(p): finite(q) for p, q in zip(QUANTILES, quantiles)},
            "histogram": hist}


def no_numbers():
    return numbers_out(None, None, None, None, None, [None] * len(QUANTILES),
                       histogram(None, None))


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
    qs = [quantile(ordered, p / 100.0) for p in PERCENTS]
    bins = bins_for(n, qs[1], qs[3], float(ordered[0]), float(ordered[-1]))
    edges = edges_for(ordered[0], ordered[-1], bins)
    counts = None
    if edges is not None:
        counts = counts_from(np.searchsorted(ordered, edges[:-1], "left").tolist(), n)
    return numbers_out(low, high, f.mean(), qs[2], f.std(ddof=1) if n > 1 else None,
                       qs[:2] + qs[3:], histogram(edges, counts, scale))


# --- values by count ------------------------------------------------------------------


def ranked(counts, k):
    """The indices of the ``k`` largest of ``counts`` (a list), ties first come first."""
    return heapq.nsmallest(k, range(len(counts)), key=lambda i: (-counts[i], i))


def numpy_ranked(np, counts, k):
    """The positions of the ``k`` largest counts (a numpy array), ties first come first."""
    d = int(counts.size)
    k = min(k, d)
    if k <= 0:
        return []
    threshold = np.partition(counts, d - k)[d - k]
    candidates = np.flatnonzero(counts >= threshold)
    order = candidates[np.argsort(-counts[candidates], kind="stable")]
    return order[:k].tolist()


def strings_out(distinct, empty, top, present, scale, texts):
    """``top``: (value, count) pairs, most frequent first; ``present``: non-null values
    counted (the column's, for a sample: ``scale`` brings counts to its size)."""
    listed = [{"value": texts.value(v), "count": round(c * scale)} for v, c in top]
    return {"distinct": int(distinct), "empty": round(empty * scale), "top": listed,
            "other": max(0, int(present) - sum(e["count"] for e in listed))}


def booleans_out(true, present, scale):
    true = round(int(true) * scale)
    return {"true": true, "false": max(0, int(present) - true)}


def no_dates():
    return {"min": None, "max": None, "median": None}


def series_dates_out(present):
    """A pandas or polars series' present dates: its own min, max and median."""
    if not len(present):
        return no_dates()
    return {"min": iso(present.min()), "max": iso(present.max()),
            "median": iso(present.median())}


class SeriesColumn:
    """A library's Series (``s``) profiled with the library's own methods: the base of
    ``backends.pandas.PandasColumn`` and ``backends.polars.PolarsColumn``."""

    def __init__(self, s):
        self.s = s

    def __len__(self):
        return len(self.s)


# --- a plain list's column ------------------------------------------------------------


def missing(x):
    """None, or a float NaN (numpy's too): a missing value of a plain column."""
    return x is None or (isinstance(x, float) and x != x)


class PlainColumn:
    """A column as a Python list (records, numpy object arrays): statistics with the
    standard library, value by value.

    Every column a profile reads offers its methods (a library's own columns too:
    ``backends.pandas.PandasColumn``, ``backends.polars.PolarsColumn``,
    ``backends.numpy.NumpyColumn``): ``take`` (the rows at some positions), ``nulls``
    (missing values: null, None, NaN, NaT, ``pd.NA``), ``cheap_nulls`` and ``nulls_at``,
    ``family`` (what the values are: ``number``, ``string``, ``category``, ``boolean``,
    ``datetime``, ``other``) and the statistics of each family.  Numbers are read as
    float64; ±inf is left out of every statistic of a number column (``count`` has it)."""

    def __init__(self, values):
        self.values = values

    def __len__(self):
        return len(self.values)

    def take(self, positions):
        values = self.values
        return PlainColumn([values[i] for i in positions])

    def nulls(self):
        return sum(1 for x in self.values if missing(x))

    def cheap_nulls(self):
        return False  # one value at a time

    def nulls_at(self, rows):
        values = self.values
        return sum(1 for i in (range(len(values)) if rows is None else rows)
                   if missing(values[i]))

    def present(self):
        return [x for x in self.values if not missing(x)]

    def family(self):
        kinds = set()
        for x in self.values:
            if missing(x):
                continue
            t = type(x)
            if t is bool:
                kinds.add("boolean")
            elif t is int or t is float:
                kinds.add("number")
            elif isinstance(x, str):
                kinds.add("string")
            elif isinstance(x, datetime.datetime):
                kinds.add("datetime")
            elif isinstance(x, datetime.date):
                kinds.add("date")
            else:
                return "other"
            if len(kinds) > 1:
                return "other"
        kind = kinds.pop() if kinds else "other"
        return "datetime" if kind == "date" else kind

    def numbers(self, scale, texts):
        values = self.present()
        data = sorted(float(x) for x in values if math.isfinite(x))
        n = len(data)
        if not n:
            return no_numbers()
        if all(type(x) is int for x in values):  # exact, however large
            low, high = min(values), max(values)
        else:
            low, high = data[0], data[-1]
        mean = math.fsum(data) / n
        std = math.sqrt(math.fsum((x - mean) ** 2 for x in data) / (n - 1)) if n > 1 else None
        qs = [quantile(data, p / 100.0) for p in QUANTILES]
        bins = bins_for(n, qs[1], qs[2], data[0], data[-1])
        edges = edges_for(data[0], data[-1], bins)
        counts = None
        if edges is not None:
            counts = counts_from([bisect.bisect_left(data, e) for e in edges[:-1]], n)
        return numbers_out(low, high, mean, quantile(data, 0.5), std, qs,
                           histogram(edges, counts, scale))

    def strings(self, top, present, scale, texts):
        counts = {}
        for x in self.values:
            if not missing(x):
                counts[x] = counts.get(x, 0) + 1
        keys = list(counts)
        values = [counts[k] for k in keys]
        empty = counts.get("", 0) + counts.get(b"", 0)
        best = [(keys[i], values[i]) for i in ranked(values, top)]
        return strings_out(len(keys), empty, best, present, scale, texts)

    def booleans(self, present, scale, texts):
        return booleans_out(sum(1 for x in self.values if x is True), present, scale)

    def datetimes(self, scale, texts):
        data = sorted(self.present())
        if not data:
            return no_dates()
        n = len(data)
        mid = data[n // 2]
        if n % 2 == 0:  # halfway between the middle two (dates: from their midnights)
            lower = data[n // 2 - 1]
            if not isinstance(lower, datetime.datetime):
                lower = datetime.datetime.combine(lower, datetime.time())
                mid = datetime.datetime.combine(mid, datetime.time())
            mid = lower + (mid - lower) / 2
        return {"min": iso(data[0]), "max": iso(data[-1]), "median": iso(mid)}
