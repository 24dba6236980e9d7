"""The findings of a table in memory (``backends.memory.MemoryTable``), column by column
(:class:`Finder`): each column's checks with its own library's column (its backend's
``stats_column``: the methods :class:`PlainFacts` lists), under ``column_ms``, on the rows
a filter keeps and the profile's fixed-seed sample past ``sample_rows``; then the table's
duplicate rows (its backend's ``duplicate_rows``) and correlated pairs (matrix products
in blocks of rows with numpy, value by value without).  The rules are
``windows.findings``'s.
"""

import math
import sys

from .. import guard
from ..protocol import MAX_FILTER_ITEMS
from .findings import (
    CORRELATION,
    CORRELATION_BLOCK,
    CORRELATION_COLUMNS,
    MAX_LABELS,
    PLAIN_CORRELATION_ROWS,
    VALUE_CHARS,
    Rules,
    looks_like_id,
    near_duplicate_groups,
    short_labels,
    text_counts,
    type_groups,
)
from .statistics import PlainColumn, Texts, missing, quantile

# --- correlations ----------------------------------------------------------------------------


def numpy_correlations(np, arrays):
    """(r, n) matrices of Pearson's r and of the rows where both are present, over the
    pairs of ``arrays`` (numeric numpy arrays of one length; NaN and ±inf missing), in
    blocks of rows: four matrix products per block, so memory stays a block's."""
    k = len(arrays)
    total = len(arrays[0]) if k else 0
    center = np.zeros((k, 1))  # any center gives the same r: the first block's means
    with np.errstate(all="ignore"):
        for i, a in enumerate(arrays):
            first = a[:CORRELATION_BLOCK].astype(np.float64, copy=False)
            first = first[np.isfinite(first)]
            center[i, 0] = float(first.mean()) if first.size else 0.0
    n = np.zeros((k, k))
    s = np.zeros((k, k))
    q = np.zeros((k, k))
    p = np.zeros((k, k))
    with np.errstate(all="ignore"):
        for start in range(0, total, CORRELATION_BLOCK):
            block = np.stack([a[start:start + CORRELATION_BLOCK].astype(np.float64, copy=False)
                              for a in arrays])
            mask = np.isfinite(block)
            z = np.where(mask, block - center, 0.0)
            if mask.all():
                rows = block.shape[1]
                n += rows
                sums = z.sum(axis=1)
                s += sums[:, None]
                q += (z * z).sum(axis=1)[:, None]
            else:
                m = mask.astype(np.float64)
                n += m @ m.T
                s += z @ m.T
                q += (z * z) @ m.T
            p += z @ z.T
        top = n * p - s * s.T
        bottom = np.sqrt((n * q - s * s) * (n * q.T - s.T * s.T))
        r = np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.nan)
    return np.clip(r, -1.0, 1.0), n


def plain_correlations(columns):
    """The same as :func:`numpy_correlations` value by value (lists of numbers, None or
    NaN missing)."""
    k = len(columns)
    r = [[float("nan")] * k for _ in range(k)]
    n = [[0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i + 1, k):
            pairs = [(x, y) for x, y in zip(columns[i], columns[j])
                     if _finite(x) and _finite(y)]
            n[i][j] = n[j][i] = len(pairs)
            if len(pairs) < 3:
                continue
            mx = math.fsum(x for x, _ in pairs) / len(pairs)
            my = math.fsum(y for _, y in pairs) / len(pairs)
            sxy = math.fsum((x - mx) * (y - my) for x, y in pairs)
            sxx = math.fsum((x - mx) ** 2 for x, _ in pairs)
            syy = math.fsum((y - my) ** 2 for _, y in pairs)
            if sxx > 0 and syy > 0:
                r[i][j] = r[j][i] = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    return r, n


def _finite(x):
    return type(x) in (int, float) and math.isfinite(x)


# --- a plain list's column -------------------------------------------------------------------


class PlainFacts(PlainColumn):
    """A column as a Python list (records, numpy object arrays) with what the findings
    read of a column (every library's column offers the same methods:
    ``backends.pandas.PandasColumn``, ``backends.polars.PolarsColumn``,
    ``backends.numpy.NumpyColumn``): ``bounds`` (min and max of the present values),
    ``quartiles`` ([Q1, median, Q3] of the finite numbers, or None), ``deviations``
    (their MAD around a center), ``outside`` (values below or above two bounds),
    ``whole`` (whole numbers only), ``floats`` (the numbers for correlations),
    ``labels`` (the first distinct values with their rows, and how many there are),
    ``repeated`` (distinct values, rows whose value repeats, the first repeated values
    and how many), ``type_counts`` (kinds of values, for an object column; None when the
    column's type says)."""

    def take(self, positions):
        values = self.values
        return PlainFacts([values[i] for i in positions])

    def _numbers(self):
        return [x for x in self.values if type(x) in (int, float) and math.isfinite(x)]

    def bounds(self):
        present = self.present()
        return min(present), max(present)

    def quartiles(self):
        data = sorted(float(x) for x in self._numbers())
        if not data:
            return None
        return [quantile(data, q) for q in (0.25, 0.5, 0.75)]

    def deviations(self, center):
        data = sorted(abs(float(x) - center) for x in self._numbers())
        return quantile(data, 0.5) if data else 0.0

    def outside(self, low, high):
        return sum(1 for x in self.values
                   if type(x) in (int, float) and x == x and (x < low or x > high))

    def whole(self):
        return all(type(x) is int or (type(x) is float and x == math.floor(x))
                   for x in self._numbers())

    def floats(self):
        return self.values

    def _counts(self):
        counts = {}
        for x in self.values:
            if not missing(x):
                counts[x] = counts.get(x, 0) + 1
        return counts

    def labels(self, limit):
        counts = self._counts()
        return list(counts.items())[:limit], len(counts)

    def repeated(self, limit):
        counts = self._counts()
        keys = [k for k, n in counts.items() if n > 1]
        return len(counts), sum(counts[k] for k in keys), keys[:limit], len(keys)

    def type_counts(self):
        return type_groups(self.present())


def plain_facts(column):
    """A profile's column as the findings read it: a plain list's as :class:`PlainFacts`,
    a library's as it is."""
    return PlainFacts(column.values) if type(column) is PlainColumn else column


def plain_duplicates(columns, rows):
    """How many rows (of ``rows``, None: all) equal an earlier one, from each column's
    values (lists): value by value (unhashable cells: TypeError)."""
    if rows is None:
        rows = range(len(columns[0])) if columns else []
    seen = set()
    extra = 0
    for i in rows:
        row = tuple(_hashable(c[i]) for c in columns)
        if row in seen:
            extra += 1
        else:
            seen.add(row)
    return extra


def _hashable(x):
    return ("nan",) if type(x) is float and x != x else x


# --- a table in memory -----------------------------------------------------------------------


class Finder:
    """Checks the columns of one table in memory (``backends.memory.MemoryTable``), each
    under ``column_ms``, on ``rows`` (positions a filter keeps, None: all) and ``sample``
    (positions among those, None: all), then the table: duplicate rows, correlated
    pairs.  A column that raises or runs out of time is an error of the list; the rest
    goes on; what the call's budget does not reach is counted (columns) or not checked
    (the table's checks)."""

    def __init__(self, session, table, rows, sample, column_ms, out):
        self.session = session
        self.table = table
        self.rows = rows
        self.sample = sample
        self.column_ms = column_ms
        self.out = out
        self.kept = None
        self.rules = Rules(out, sample is not None, None if sample is None else len(sample))
        self.numbers = []  # (Col, facts) of the number columns a correlation compares
        self.texts = Texts(VALUE_CHARS)

    def find(self, cols):
        """Every check; how many columns the budget did not reach."""
        total = self.table.total_rows()
        self.kept = total if self.rows is None else len(self.rows)
        unreached = 0
        for i, col in enumerate(cols):
            if self._guarded("column", col, self._column, col) is False:
                unreached = len(cols) - i
                break
        for kind, check in (("duplicate_rows", self._duplicates),
                            ("correlated", self._correlations)):
            if self._guarded(kind, None, check) is False:
                self.out.skip(kind, "not reached: the call's time budget ran out")
        return unreached

    def _guarded(self, check, col, fn, *args):
        """``fn(*args)`` under ``column_ms``; False when the call's budget ran out."""
        if self.session.exhausted:
            return False
        try:
            self.session.run_within(self.column_ms, fn, *args)
        except guard.ProbeTimeout:
            if self.session.exhausted:
                return False
            self.out.error(check, col, "{} timed out ({:,} ms)".format(
                "checking the column" if col is not None else "checking " + check.replace("_", " "),
                self.column_ms))
        except guard.BudgetExhausted:
            return False
        except guard.GuardUnavailable:
            raise
        except BaseException as exc:
            self.out.error(check, col, guard.user_error(
                "checking the column" if col is not None else "checking " + check.replace("_", " "),
                exc))
        return True

    def _picked(self):
        rows, sample = self.rows, self.sample
        if sample is None or rows is None:
            return rows if sample is None else sample
        if type(rows) is list:
            return [rows[i] for i in sample]
        return rows[sample]

    def _column(self, col):
        whole = plain_facts(self.table.stats_column(col.position))
        picked = self._picked()
        data = whole if picked is None else plain_facts(whole.take(picked))
        kept = self.kept
        if not kept:
            return
        family = data.family()
        missing_n = data.nulls()
        if self.sample is None:
            nulls = missing_n
        elif whole.cheap_nulls():
            nulls = whole.nulls_at(self.rows)
        else:
            nulls = min(kept, round(missing_n * kept / max(1, len(data))))
        rules = self.rules
        if nulls and rules.missing(col, kept, nulls):
            return
        present = len(data) - missing_n
        if present < 2:
            return
        scale = (kept - nulls) / present if self.sample is not None else 1.0
        pairs = distinct = None
        if family in ("string", "category"):
            pairs, distinct = data.labels(MAX_LABELS)
        key = False
        if looks_like_id(col.name) and (
                (family == "number" and data.whole()) or
                (family == "string" and short_labels(pairs))):
            n_distinct, rows, keys, repeated = data.repeated(MAX_FILTER_ITEMS)
            key = rules.key(col, present, n_distinct, rows, [self._plain(k) for k in keys],
                            repeated, kept - nulls)
        if family in ("number", "boolean", "datetime"):
            low, high = data.bounds()
            if low == high:
                rules.constant(col, kept - nulls, self.texts.value(low))
                return
            if family == "number" and not key:
                quartiles = data.quartiles()
                if quartiles is not None:
                    rules.outliers(col, quartiles, data.deviations, data.whole(),
                                   lambda lo, hi: round(data.outside(lo, hi) * scale))
                if len(self.numbers) < CORRELATION_COLUMNS:
                    self.numbers.append(col)
        elif pairs is not None:
            if distinct == 1:
                rules.constant(col, kept - nulls, self.texts.value(pairs[0][0]))
                return
            if distinct <= MAX_LABELS:
                rules.near_duplicates(col, [[(a, round(n * scale)) for a, n in g]
                                            for g in near_duplicate_groups(pairs)])
            if family == "string" and not key:
                numbers, dates, nonblank, kind = text_counts(pairs)
                rules.text(col, round(numbers * scale), round(dates * scale),
                           round(nonblank * scale), kind, distinct > len(pairs))
        else:
            counts = data.type_counts()
            if counts:
                rules.mixed(col, {k: round(n * scale) for k, n in counts.items()})

    def _plain(self, x):
        """A key as a filter value: a plain number or text (numpy's scalars as Python's)."""
        item = getattr(x, "item", None)
        if item is not None and (type(x).__module__ or "").split(".")[0] == "numpy":
            x = item()
        return str.__str__(x) if isinstance(x, str) else x

    def _duplicates(self):
        extra = self.table.duplicate_rows(self._picked())
        self.rules.duplicate_rows(extra, self.kept if self.sample is None else len(self.sample))

    def _correlations(self):
        cols = self.numbers
        if len(cols) < 2:
            return
        picked = self._picked()
        arrays = []
        for col in cols:
            facts = self.table.stats_column(col.position)
            facts = plain_facts(facts if picked is None else facts.take(picked))
            arrays.append(facts.floats())
        np = _numpy()
        partial = False
        if np is not None and all(isinstance(a, np.ndarray) for a in arrays):
            r, n = numpy_correlations(np, arrays)
            r, n = r.tolist(), n.tolist()
        else:
            lists = [a.tolist() if hasattr(a, "tolist") else list(a) for a in arrays]
            partial = len(lists[0]) > PLAIN_CORRELATION_ROWS
            r, n = plain_correlations([c[:PLAIN_CORRELATION_ROWS] for c in lists])
        found = []
        for i in range(len(cols)):
            for j in range(i + 1, len(cols)):
                if abs(r[i][j]) >= CORRELATION and n[i][j] >= 3:
                    found.append((abs(r[i][j]), i, j))
        for _, i, j in sorted(found, reverse=True):
            self.rules.correlated(cols[i], cols[j], r[i][j], int(n[i][j]), partial)


def _numpy():
    return sys.modules.get("numpy")
