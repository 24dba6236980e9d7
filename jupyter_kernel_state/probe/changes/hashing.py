"""Content words of numpy, pandas and xarray columns: one 64-bit word per value, taken
with numpy's own vectorised calls (never a Python loop per row, never user code).

A column's *words* (:func:`column_words`) are each value's bits for the fixed-width
numbers and times (so two words are equal exactly when the values are), a 64-bit hash
for texts, and the element's identity for objects:

* integers, unsigned, bools, datetimes and timedeltas (NaT included): their bits;
* floats: their bits after ``-0.0`` is made ``0.0`` and every NaN the same NaN (so a
  NaN becoming NaN again, or ``-0.0`` becoming ``0.0``, is no change); ``longdouble``
  through ``float64``; complex numbers and fixed-width texts/bytes (``U``, ``S``,
  ``V`` without objects) by their bytes;
* ``object``: the address of each element, read from the array's buffer (``tobytes``,
  never an element's ``__eq__``/``__hash__``/``__repr__``): an element replaced by
  another object reads as changed even when the two compare equal (such columns are
  described as "objects replaced"), and an object changed in place (a list in a cell)
  reads as unchanged;
* pandas extension arrays: masked numbers (``Int64``, ``Float64``, ``boolean``) by
  their data with the masked positions set to one word; datetimes with a time zone,
  timedeltas and periods by their int64 values; categoricals by the words of their
  categories taken by the codes (a renamed category changes its values); Arrow-backed
  arrays by their buffers (texts with a polynomial hash of their bytes, numbers by their
  bits); any other extension array is not compared (None).

The words may share memory with the column (never written: a null's word is set in a
copy).  :func:`narrow` turns them into the 32-bit value words the tracker keeps (the
high half of a multiplication by an odd constant).  Nulls (NaN, NaT, masked, Arrow
nulls) are counted and numbers get their mean, in the same pass.  Everything reaches
numpy through ``sys.modules`` (pandas and xarray imply it).
"""

import sys

from ..inspect.base import MISSING, static_attr

_M1 = 0x9E3779B97F4A7C15
_M2 = 0xBF58476D1CE4E5B9
_M3 = 0x94D049BB133111EB
#: The word of a null that has no bits of its own (a masked value, an Arrow null).
NULL_WORD = 0x5BD1E9955BD1E995
#: Polynomial base for the bytes of a text (odd: invertible modulo 2**64).
_BASE = 0x100000001B3
_INT64_MIN = -(1 << 63)

_consts = {}


def _c(np):
    """numpy scalars of the constants (numpy 1.x shifts a uint64 array by a uint64 only)."""
    c = _consts.get(id(np))
    if c is None:
        u = np.uint64
        c = _consts[id(np)] = {
            "m1": u(_M1), "m2": u(_M2), "m3": u(_M3), "null": u(NULL_WORD),
            "s32": u(32), "s29": u(29), "one": u(1), "base": u(_BASE),
            "base_inv": u(pow(_BASE, (1 << 63) - 1, 1 << 64)),
        }  # fmt: skip
    return c


class Words:
    """One column's words and what was counted with them."""

    __slots__ = ("identity", "mean", "nulls", "words")

    def __init__(self, words, nulls=0, mean=None, identity=False):
        self.words = words  # uint64 ndarray, one per value (may share the column's memory)
        self.nulls = nulls  # int, or None when not counted
        self.mean = mean  # float, or None (not a number column)
        self.identity = identity  # words are the elements' identities (object columns)


def mix(np, h):
    """Mix uint64 words in place (bijective): the high bits depend on every input bit."""
    c = _c(np)
    h *= c["m1"]
    h ^= h >> c["s32"]
    h *= c["m2"]
    h ^= h >> c["s29"]
    return h


def narrow(np, words):
    """The 32-bit value words kept per value: the high half of ``words`` times an odd
    constant (a multiply-shift hash: two values collide with probability about 2**-32)."""
    h = words * _c(np)["m1"]
    h >>= _c(np)["s32"]
    return h.astype(np.uint32)


def nulled(np, words, nulls):
    """``words`` (not written) with the positions where ``nulls`` is True set to the null
    word."""
    return np.where(nulls, _c(np)["null"], words)


# --- numpy arrays -----------------------------------------------------------------------


def array_words(np, x):
    """Words of a 1-D numpy array, or None when its dtype is not compared."""
    kind = x.dtype.kind
    n = x.shape[0]
    if kind == "f":
        return _float_words(np, x)
    if kind in "iub":
        mean = None if kind == "b" or n == 0 else float(x.mean(dtype=np.float64))
        return Words(_bits(np, x), 0, mean)
    if kind in "mM":
        ints = np.ascontiguousarray(x).view(np.int64)
        nulls = int(np.count_nonzero(ints == _INT64_MIN))
        return Words(ints.view(np.uint64), nulls)
    if kind == "O":
        pointers = np.frombuffer(np.ascontiguousarray(x).tobytes(), dtype=np.uint64)
        return Words(pointers, None, None, True)
    if kind == "c":
        return Words(_byte_words(np, x + 0), 0)
    if kind in "USV" and not x.dtype.hasobject:
        return Words(_byte_words(np, x), 0)
    return None


def _bits(np, x):
    """The values' bits as uint64 (a view of 8-byte values, else a widened copy)."""
    size = x.dtype.itemsize
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    bits = np.ascontiguousarray(x).view(unsigned)
    return bits if size == 8 else bits.astype(np.uint64)


def _float_words(np, x):
    if x.dtype.itemsize > 8:
        x = x.astype(np.float64)
    y = x + x.dtype.type(0)  # a copy, with -0.0 made 0.0
    nan = np.isnan(y)
    nulls = int(np.count_nonzero(nan))
    n = y.shape[0]
    if nulls:
        total = float(np.where(nan, 0, y).sum(dtype=np.float64))
        y[nan] = np.nan  # one NaN
    else:
        total = float(y.sum(dtype=np.float64)) if n else 0.0
    mean = total / (n - nulls) if n > nulls else None
    return Words(_bits(np, y), nulls, mean)


def _byte_words(np, x):
    """Words of any fixed-width values from their bytes, 8 at a time (Horner, odd
    multiplier), then mixed."""
    n, size = x.shape[0], x.dtype.itemsize
    width = -(-size // 8) * 8
    raw = np.zeros((n, width), dtype=np.uint8)
    raw[:, :size] = np.ascontiguousarray(x).view(np.uint8).reshape(n, size)
    parts = raw.view(np.uint64)
    h = parts[:, 0].copy()
    m3 = _c(np)["m3"]
    for j in range(1, parts.shape[1]):
        h *= m3
        h += parts[:, j]
    return mix(np, h)


# --- pandas extension arrays and Arrow ------------------------------------------------


def column_words(np, values):
    """Words of a column's values: a 1-D ndarray or a pandas extension array; None when
    its kind is not compared."""
    if type(values) is np.ndarray:
        return array_words(np, values) if values.ndim == 1 else None
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return None
    if type(values) is pandas.Categorical:
        return _categorical_words(np, values)
    data, mask = _attr(values, "_data"), _attr(values, "_mask")
    if type(data) is np.ndarray and type(mask) is np.ndarray:  # masked numbers
        return _masked_words(np, data, mask)
    backing = _attr(values, "_ndarray")
    if type(backing) is np.ndarray and backing.ndim == 1:  # datetimes, periods …
        return array_words(np, backing)
    chunked = _attr(values, "_pa_array")
    if chunked is not MISSING and "pyarrow" in sys.modules:
        return _arrow_words(np, chunked)
    return None


def _attr(v, name):
    try:
        return static_attr(v, name)
    except Exception:
        return MISSING


def _masked_words(np, data, mask):
    found = array_words(np, data)
    if found is None:
        return None
    nulls = int(np.count_nonzero(mask))
    if nulls:
        found.words = nulled(np, found.words, mask)
        if found.mean is not None:
            kept = data[~mask]
            found.mean = float(kept.mean(dtype=np.float64)) if kept.size else None
    found.nulls = nulls
    return found


def _categorical_words(np, cat):
    codes = np.asarray(cat.codes)
    categories = index_words(np, cat.categories)
    if categories is None:
        return None
    categories = range_keys(np, categories) if type(categories) is tuple else categories.words
    missing = codes < 0
    if len(categories):
        words = categories.take(np.where(missing, 0, codes).astype(np.intp))
    else:
        words = np.zeros(len(codes), dtype=np.uint64)
    nulls = int(np.count_nonzero(missing))
    if nulls:
        words = nulled(np, words, missing)
    return Words(words, nulls)


def _arrow_words(np, chunked):
    pa = sys.modules["pyarrow"]
    chunks = getattr(chunked, "chunks", None)
    if type(chunks) is not list:
        return None
    parts = []
    for chunk in chunks:
        words = _arrow_chunk(np, pa, chunk)
        if words is None:
            return None
        parts.append(words)
    words = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    mean = None
    t = chunked.type
    if (pa.types.is_integer(t) or pa.types.is_floating(t)) and len(words):
        mean = _arrow_mean(pa, chunked)
    return Words(words, int(chunked.null_count), mean)


def _arrow_mean(pa, chunked):
    try:
        x = sys.modules["pyarrow.compute"].mean(chunked).as_py()
    except Exception:
        return None
    return float(x) if type(x) in (int, float) else None


def _arrow_chunk(np, pa, chunk):
    t, n = chunk.type, len(chunk)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
            or pa.types.is_large_binary(t):
        words = _text_words(np, pa, chunk)
    elif pa.types.is_boolean(t):
        words = chunk.fill_null(False).to_numpy(zero_copy_only=False).astype(np.uint64)
    elif (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_temporal(t)) \
            and t.bit_width in (16, 32, 64):
        letter = "f" if pa.types.is_floating(t) else "u"
        dtype = np.dtype("<%s%d" % (letter, t.bit_width // 8))
        data = np.frombuffer(chunk.buffers()[1], dtype=dtype, count=chunk.offset + n)
        words = array_words(np, data[chunk.offset :]).words
    elif pa.types.is_integer(t) and t.bit_width == 8:
        data = np.frombuffer(chunk.buffers()[1], dtype=np.uint8, count=chunk.offset + n)
        words = array_words(np, data[chunk.offset :]).words
    else:
        return None
    if chunk.null_count:
        valid = chunk.is_valid().to_numpy(zero_copy_only=False)
        words = nulled(np, words, ~valid)
    return words


#: Bytes of texts hashed at once (the powers of the base are kept for this many).
TEXT_PIECE = 1 << 16


def _text_words(np, pa, chunk):
    """A polynomial hash of each text's bytes, from the offsets and data buffers (no
    Python object per row), pieces of at most ``TEXT_PIECE`` bytes at a time; then its
    length; mixed."""
    n, offset = len(chunk), chunk.offset
    buffers = chunk.buffers()
    large = pa.types.is_large_string(chunk.type) or pa.types.is_large_binary(chunk.type)
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32,
                            count=offset + n + 1)[offset:].astype(np.int64)
    words = np.zeros(n, dtype=np.uint64)
    if n and offsets[-1] > offsets[0]:
        data = np.frombuffer(buffers[2], dtype=np.uint8, count=int(offsets[-1]))
        i = 0
        while i < n:
            j = int(np.searchsorted(offsets, offsets[i] + TEXT_PIECE, side="right")) - 1
            j = min(max(j, i + 1), n)
            _text_piece(np, data, offsets[i : j + 1], words[i:j])
            i = j
    c = _c(np)
    words *= c["m3"]
    words += (offsets[1:] - offsets[:-1]).astype(np.uint64)
    return mix(np, words)


def _text_piece(np, data, offsets, out):
    """``out[k]`` = sum of byte j of text k times base**j (modulo 2**64), from a prefix
    sum over the piece's bytes, shifted back by base**-start."""
    start = int(offsets[0])
    total = int(offsets[-1]) - start
    if total == 0:
        return
    powers, inverses = _powers(np, total + 1)
    prefix = np.zeros(total + 1, dtype=np.uint64)
    np.cumsum(data[start : start + total] * powers[:total], out=prefix[1:])
    rel = offsets - start
    out[:] = (prefix[rel[1:]] - prefix[rel[:-1]]) * inverses[rel[:-1]]


_POWERS = {}


def _powers(np, m):
    """``base**i`` and ``base**-i`` modulo 2**64 for i < m: kept for ``TEXT_PIECE + 1``
    (1 MiB), computed afresh for a longer single text."""
    kept = _POWERS.get(id(np))
    if kept is not None and len(kept[0]) >= m:
        return kept
    size = max(m, TEXT_PIECE + 1)
    c = _c(np)
    p = np.full(size, c["base"], dtype=np.uint64)
    q = np.full(size, c["base_inv"], dtype=np.uint64)
    p[0] = q[0] = 1
    found = (np.cumprod(p, dtype=np.uint64), np.cumprod(q, dtype=np.uint64))
    if size == TEXT_PIECE + 1:
        _POWERS.clear()
        _POWERS[id(np)] = found
    return found


# --- indexes ----------------------------------------------------------------------------


def index_words(np, index):
    """A pandas index as row keys: ``("range", start, stop, step)`` for a RangeIndex,
    else the :class:`Words` of its labels (a MultiIndex by its levels and codes), or
    None.  Only pandas' own index types are read (their properties are pandas code)."""
    pandas = sys.modules.get("pandas")
    t = type(index)
    if pandas is None or not _pandas_type(t):
        return None
    if t is pandas.RangeIndex:
        return ("range", int(index.start), int(index.stop), int(index.step))
    if t is pandas.MultiIndex:
        return _multi_words(np, index)
    return column_words(np, index._values)


def _pandas_type(t):
    module = type.__dict__["__module__"].__get__(t)
    return type(module) is str and (module == "pandas" or module.startswith("pandas."))


def _multi_words(np, index):
    c = _c(np)
    n = len(index)
    words = np.zeros(n, dtype=np.uint64)
    identity = False
    for level, codes in zip(index.levels, index.codes):
        found = index_words(np, level)
        if found is None:
            return None
        if type(found) is tuple:
            found = range_keys(np, found)
        else:
            identity = identity or found.identity
            found = found.words
        codes = np.asarray(codes)
        missing = codes < 0
        if len(found):
            part = found.take(np.where(missing, 0, codes).astype(np.intp))
        else:
            part = np.zeros(n, dtype=np.uint64)
        words *= c["m3"]
        words += nulled(np, part, missing)
    return Words(mix(np, words), None, None, identity)


def range_keys(np, facts):
    """The labels of a ``("range", …)`` index as words comparable with ``index_words``
    (an int64 index's words are its bits)."""
    _, start, stop, step = facts
    return np.arange(start, stop, step, dtype=np.int64).view(np.uint64)


def is_default_range(facts, rows):
    """A RangeIndex 0, 1, … n-1: it says nothing about which row is which."""
    return type(facts) is tuple and facts[1:] == (0, rows, 1)


# --- what the comparison does with words, in numpy ---------------------------------------


class Alignment:
    """Two tables' rows matched by their keys: how many were added and removed, the
    positions of the common rows in the old and in the new table (None: the same rows in
    the same order), and whether the common rows changed order."""

    __slots__ = ("added", "new", "old", "removed", "reordered")

    def __init__(self, added, removed, old, new, reordered):
        self.added, self.removed, self.old, self.new = added, removed, old, new
        self.reordered = reordered


class NumpyOps:
    """The comparison's operations on numpy words (``contents`` and ``table_words`` use
    these or ``polars_hashing.PolarsOps``, which has the same methods)."""

    lib = "numpy"

    def __init__(self, np):
        self.np = np

    def column(self, values):
        return column_words(self.np, values)

    def narrow(self, words):
        return narrow(self.np, words)

    def keep(self, words):
        """``words`` as kept: never a view of the user's data (which may change)."""
        return words.copy()

    def nbytes(self, words):
        return int(words.nbytes)

    def blocks(self, words, block_rows):
        """Per block of ``block_rows`` value words: the sum of each (plus one) times an odd
        weight of its place in the block, modulo 2**64 (a swap inside a block shows)."""
        np = self.np
        n = len(words)
        span = min(block_rows, n)
        weights = mix(np, np.arange(1, span + 1, dtype=np.uint64)) | _c(np)["one"]
        w = words.astype(np.uint64)
        w += _c(np)["one"]
        full = n // block_rows if n >= block_rows else 0
        out = []
        if full:
            grid = w[: full * block_rows].reshape(full, block_rows)
            grid *= weights
            out.extend(grid.sum(axis=1, dtype=np.uint64).tolist())
        rest = n - full * block_rows
        if rest:
            tail = w[full * block_rows :]
            tail *= weights[:rest]
            out.append(int(tail.sum(dtype=np.uint64)))
        return out

    def differ(self, a, b):
        return a != b

    def count(self, mask):
        return int(self.np.count_nonzero(mask))

    def positions(self, mask, k):
        return self.np.flatnonzero(mask)[:k].tolist()

    def either(self, a, b):
        return a | b

    def take(self, words, positions):
        return words if positions is None else words[positions]

    def head(self, words, n):
        return words[:n]

    def equal(self, a, b):
        return len(a) == len(b) and bool(self.np.array_equal(a, b))

    def unique(self, keys):
        return len(self.np.unique(keys)) == len(keys)

    def range_keys(self, facts):
        return range_keys(self.np, facts)

    def digest(self, words):
        """One int standing for a whole array of words (an index's, to compare)."""
        return hash(words.tobytes())

    def align(self, k0, k1):
        np = self.np
        if len(k0) == len(k1) and np.array_equal(k0, k1):
            return Alignment(0, 0, None, None, False)
        order = np.argsort(k0, kind="stable")
        ordered = k0[order]
        if len(k0):
            at = np.minimum(np.searchsorted(ordered, k1), len(k0) - 1)
            found = ordered[at] == k1
        else:
            at = found = np.zeros(len(k1), dtype=bool)
        new = np.flatnonzero(found)
        old = order[at[found]]
        common = len(new)
        reordered = bool(common > 1 and np.any(old[1:] < old[:-1]))
        return Alignment(len(k1) - common, len(k0) - common, old, new, reordered)

    def same_rows(self, old_columns, new_columns):
        """The same rows in another order: each table's row hashes (from every column's
        value words), sorted, are equal."""
        np = self.np
        rows = []
        for columns in (old_columns, new_columns):
            h = np.zeros(len(columns[0]), dtype=np.uint64)
            for i, words in enumerate(columns):
                h *= _c(np)["m3"]
                h += words.astype(np.uint64) + np.uint64(i + 1)
            rows.append(np.sort(h))
        return bool(np.array_equal(rows[0], rows[1]))
