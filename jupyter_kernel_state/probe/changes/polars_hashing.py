"""Content words of polars columns, and the comparison's operations on them.

A column's words are ``Series.hash`` (polars' own vectorised hash, stable within one
polars version; nulls hash to one value, ``-0.0`` and ``0.0`` alike, every NaN alike):
64 bits per value for row keys, their low 32 bits as the value words the tracker keeps.
``Object`` columns (Python objects) are not compared: hashing them would call their
``__hash__``.  Numbers get their mean and every column its null count (polars' own
``mean``/``null_count``).

When numpy is loaded the words are viewed as numpy arrays and compared by
``hashing.NumpyOps`` (:class:`PolarsNumpyOps`: faster); otherwise (polars does not
import numpy, and the probe never does) by polars alone (:class:`PolarsOps`, whose
arithmetic wraps modulo 2**64 as numpy's does).
"""

import sys

from .hashing import _M1, _M2, _M3, Alignment, NumpyOps

#: The seed of ``Series.hash`` (any fixed value: words are compared within one process).
SEED = 0x2545F491
_TWO32 = 1 << 32


class PolarsWords:
    """One polars column's words (``UInt64``) and what was counted with them."""

    __slots__ = ("identity", "mean", "nulls", "words")

    def __init__(self, words, nulls, mean):
        self.words, self.nulls, self.mean, self.identity = words, nulls, mean, False


def polars_words(pl, s):
    """The :class:`PolarsWords` of a polars Series, or None (an Object column)."""
    dtype = s.dtype
    if dtype == pl.Object:
        return None
    words = s.hash(seed=SEED)
    mean = None
    if dtype.is_numeric() and len(s) > s.null_count():
        x = s.mean()
        mean = float(x) if type(x) in (int, float) else None
    return PolarsWords(words, int(s.null_count()), mean)


class PolarsNumpyOps(NumpyOps):
    """Polars columns hashed by polars, their words compared by numpy."""

    lib = "polars-numpy"

    def __init__(self, pl, np):
        NumpyOps.__init__(self, np)
        self.pl = pl

    def column(self, s):
        found = polars_words(self.pl, s)
        if found is not None:
            found.words = found.words.to_numpy()
        return found


class PolarsOps:
    """Polars columns hashed and compared by polars alone (numpy not loaded)."""

    lib = "polars"

    def __init__(self, pl):
        self.pl = pl

    def column(self, s):
        return polars_words(self.pl, s)

    def narrow(self, words):
        return (words & 0xFFFFFFFF).cast(self.pl.UInt32)

    def keep(self, words):
        return words  # a new Series (polars' hash)

    def nbytes(self, words):
        return int(words.estimated_size())

    def blocks(self, words, block_rows):
        """The same block sums as ``hashing.NumpyOps.blocks``."""
        pl = self.pl
        n = len(words)
        span = min(block_rows, n)
        if n == 0:
            return []
        weights = _mix(pl.int_range(1, span + 1, dtype=pl.UInt64, eager=True)) | 1
        w = words.cast(pl.UInt64) + 1
        full = n // block_rows
        out = []
        if full:
            grid = (w.head(full * block_rows) * pl.concat([weights] * full))
            grid = grid.reshape((full, block_rows))
            sums = grid.arr.sum() if hasattr(grid, "arr") and "Array" in str(grid.dtype) \
                else grid.list.sum()
            out.extend(sums.to_list())
        rest = n - full * block_rows
        if rest:
            out.append(int((w.tail(rest) * weights.head(rest)).sum()))
        return out

    def differ(self, a, b):
        return a != b

    def count(self, mask):
        return int(mask.sum() or 0)

    def positions(self, mask, k):
        return mask.arg_true().head(k).to_list()

    def either(self, a, b):
        return a | b

    def take(self, words, positions):
        return words if positions is None else words.gather(positions)

    def head(self, words, n):
        return words.head(n)

    def equal(self, a, b):
        return len(a) == len(b) and bool(a.equals(b))

    def unique(self, keys):
        return keys.n_unique() == len(keys)

    def range_keys(self, facts):
        _, start, stop, step = facts
        return self.pl.int_range(start, stop, step, dtype=self.pl.Int64, eager=True)\
            .hash(seed=SEED)

    def digest(self, words):
        return hash(tuple(self.blocks(words, max(1, len(words)))))

    def align(self, k0, k1):
        pl = self.pl
        if self.equal(k0, k1):
            return Alignment(0, 0, None, None, False)
        left = pl.DataFrame({"k": k0, "i0": pl.int_range(0, len(k0), eager=True)})
        right = pl.DataFrame({"k": k1, "i1": pl.int_range(0, len(k1), eager=True)})
        joined = right.join(left, on="k", how="inner").sort("i1")
        old, new = joined.get_column("i0"), joined.get_column("i1")
        common = len(joined)
        reordered = common > 1 and bool((old.diff().drop_nulls() < 0).any())
        return Alignment(len(k1) - common, len(k0) - common, old, new, reordered)

    def same_rows(self, old_columns, new_columns):
        pl = self.pl
        rows = []
        for columns in (old_columns, new_columns):
            h = pl.zeros(len(columns[0]), dtype=pl.UInt64, eager=True)
            for i, words in enumerate(columns):
                h = h * _M3 + words.cast(pl.UInt64) + (i + 1)
            rows.append(h.sort())
        return bool(rows[0].equals(rows[1]))


def _mix(x):
    """The same mixing as ``hashing.mix`` (wrapping arithmetic; shifts as divisions)."""
    x = x * _M1
    x = x ^ (x // _TWO32)
    x = x * _M2
    return x ^ (x // (1 << 29))


def polars_ops(pl):
    """The operations for polars columns: through numpy when it is loaded."""
    np = sys.modules.get("numpy")
    return PolarsOps(pl) if np is None else PolarsNumpyOps(pl, np)
