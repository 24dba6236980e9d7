"""Sampled fingerprints: what a preview shows of a value and what lies a few levels inside
a container, read without user code — so that a preview is never older than the value
it describes, and a change two levels down a dict is noticed (and said) by the cell that
made it.

A *sample* is a tuple of ``(path, leaf)`` entries, taken depth first:

* builtin containers (dict and its kin, list, tuple, deque, set, frozenset — subclasses
  through their base's methods), and at the top an object of the notebook's own class
  (defined in ``__main__``) by its ``__dict__``: a node ``("c", type name, len, id)``
  then their first ``SAMPLE_WIDTH`` entries (what a preview shows), down to
  ``SAMPLE_DEPTH`` levels, at most ``SAMPLE_NODES`` entries in all;
* leaves: ints, bools, None and texts of at most ``TEXT`` characters by value, floats by
  value (NaN and ``-0.0`` by their repr: a preview prints them), longer texts and bytes
  by length and builtin hash; numpy arrays by shape, dtype and the bytes of their head
  (``HEAD`` items per axis on the last ``HEAD_AXES`` axes), pandas and polars series by
  length and their head's words (and a pandas index's head), tables by shape, torch
  tensors by their version counter (bumped by every in-place operation), anything else
  by type name and identity;
* an array, series, DataArray or tensor bound to a name: its head, as above.

What a sample cannot see, and so where a change can be missed (docs/rest-api.md says the
same): entries past the first ``SAMPLE_WIDTH`` of a nested container, anything below
``SAMPLE_DEPTH`` levels or past ``SAMPLE_NODES`` entries, an array's values past its
head (``contents`` compares those for an array bound to a name, not for one inside a
container), an object changed in place unless it is a builtin container (or, at the top,
of the notebook's own class), a torch tensor written through ``.numpy()`` (no version
bump).  A preview built from a user's ``__repr__`` may show anything: only the object's
identity is sampled.

A flat container of at most 4 plain scalars has no sample: its fingerprint (the ids
of its first items) and the tracker's copy already cover it; nor does a container whose
copy holds only numbers and texts, for the hook (nothing nested; the copy tells the
rest).
"""

import collections
import itertools
import sys

from ..inspect.base import MISSING, instance_dict, mro
from ..inspect.secrets import secret_key
from .copies import KeptByName, holds_objects, key_text, value_text
from .hashing import column_words, index_words
from .polars_hashing import SEED
from .sources import library_types

#: Entries read per container, levels below the value, entries per sample.
SAMPLE_WIDTH = 20
SAMPLE_DEPTH = 4
SAMPLE_NODES = 256
#: Texts kept by value up to this many characters.
TEXT = 64
#: Items per axis of an array's head, and axes read (the rest: first items).
HEAD = 20
HEAD_AXES = 2
#: Nested changes named per value before "N more nested values changed".
MAX_NESTED = 3

_PLAIN = frozenset((int, float, str, bool, type(None)))
_DICTS = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)
_SEQUENCES = (list, tuple, collections.deque)
_SETS = (set, frozenset)


def sample(value, t):
    """The sample of ``value`` (of type ``t``), or None when it needs none (never
    raises: a value that cannot be sampled has none)."""
    try:
        kind = _KINDS.get(t, _UNKNOWN)
        if kind is _UNKNOWN:
            kind = _kind(t)
        if kind is list or kind is tuple:  # the usual case, inline: a short list of numbers
            if kind.__len__(value) <= 4 and _PLAIN.issuperset(map(type, kind.__iter__(value))):
                return None
            return _container(value, t, kind, False)
        if kind is _ARRAY_LIKE:
            head = _head(value, t)
            if head is _NONE or head is None or head[0] == "table":
                return None  # a table's preview shows no values: its fingerprint covers it
            return (((), head),)
        return None if kind is None else _container(value, t, kind)
    except Exception:
        return None


def container_sample(value, t):
    """The sample of a container or an object of the notebook's own class, else None."""
    try:
        kind = _kind(t)
        return None if kind is None or kind is _ARRAY_LIKE else _container(value, t, kind)
    except Exception:
        return None


def _container(value, t, base, check=True):
    if base is _OBJECT:
        if type(instance_dict(value)) is not dict:
            return None
    elif check and _flat(value, base):
        return None
    out = []
    _walk(value, t, (), 0, out, set())
    return tuple(out)


_ARRAY_LIKE, _OBJECT = "array-like", "object"
_KINDS = {}
_UNKNOWN = object()


def _kind(t):
    """What a type is to samples (kept per type): array-like, a builtin container's
    base, an object of the notebook's own class, or None."""
    try:
        return _KINDS[t]
    except KeyError:
        pass
    if t in library_types():
        kind = _ARRAY_LIKE
    else:
        kind = _container_base(t)
        if kind is None and _own_class(t):
            kind = _OBJECT
    if len(_KINDS) >= 4096:
        _KINDS.clear()
    _KINDS[t] = kind
    return kind


def digest(entries):
    """One int for a sample (its builtin hash: every leaf is a plain value)."""
    return hash(entries)


_NONE = object()


def _head(value, t):
    """The leaf of an array-like value (its head), ``_NONE`` when it is not array-like."""
    tag = library_types().get(t)
    if tag is None:
        return _NONE
    np = sys.modules.get("numpy")
    if tag in ("pandas frame", "polars frame"):
        return ("table", tuple(value.shape))
    if tag == "polars series":
        return ("series", len(value), str(value.dtype),
                tuple(value.head(HEAD).hash(seed=SEED).to_list()))
    if tag == "tensor":
        return ("tensor", int(value._version))
    if np is None:
        return ("o", tag, id(value))
    if tag == "pandas series":
        return _pandas_head(np, value)
    data = value if tag == "ndarray" else getattr(value.variable, "_data", None)
    return _array_head(np, data) if type(data) is np.ndarray else ("lazy", id(data))


def _array_head(np, a):
    if a.ndim > HEAD_AXES + 2:
        region = a.flat[: HEAD ** 2]
    else:
        region = a[tuple(slice(0, HEAD) for _ in range(a.ndim))]
    return ("array", tuple(a.shape), str(a.dtype), hash(np.ascontiguousarray(region).tobytes()))


def _pandas_head(np, s):
    found = column_words(np, s._values[:HEAD])
    words = None if found is None else hash(found.words.tobytes())
    index = index_words(np, s.index[:HEAD])
    if index is not None and type(index) is not tuple:
        index = hash(index.words.tobytes())
    return ("series", len(s), str(s.dtype), words, index)


def _own_class(t):
    """A class of the notebook's own (defined in ``__main__``): its attributes are the
    user's state.  A library's object keeps caches in its ``__dict__``: not sampled."""
    module = type.__dict__["__module__"].__get__(t)
    return module == "__main__"


def _container_base(t):
    if t in _DICTS or t in _SEQUENCES or t in _SETS:
        return t
    for base in mro(t)[1:]:
        if base in (dict, list, tuple, collections.deque, set, frozenset):
            return base
    return None


def _flat(value, base):
    """A container of at most 4 plain scalars (keys and values)."""
    if base.__len__(value) > 4:
        return False
    if base is dict or issubclass(base, dict):
        items = list(dict.items(value))
        return _PLAIN.issuperset(map(type, itertools.chain.from_iterable(items)))
    return _PLAIN.issuperset(map(type, base.__iter__(value)))


def _walk(value, t, path, depth, out, seen):
    """Append the entries of ``value`` (at ``path``) to ``out``, depth first."""
    if len(out) >= SAMPLE_NODES:
        return
    base = _kind(t)
    if base is None or base is _ARRAY_LIKE or (base is _OBJECT and depth > 0):
        out.append((path, _leaf(value, t)))
        return
    if base is _OBJECT:
        d = instance_dict(value)
        items, n, name = _dict_items(d), len(d), "attrs"
    elif issubclass(base, dict):
        items, n, name = _dict_items(value), dict.__len__(value), base.__name__
    else:
        n = base.__len__(value)
        found = itertools.islice(base.__iter__(value), SAMPLE_WIDTH)
        items, name = (("#%d" % i, x) for i, x in enumerate(found)), base.__name__
    out.append((path, ("c", name, n, id(value))))
    if depth >= SAMPLE_DEPTH or id(value) in seen:
        return
    seen.add(id(value))
    for key, item in items:
        if len(out) >= SAMPLE_NODES:
            return
        _walk(item, type(item), (*path, key), depth + 1, out, seen)


def _dict_items(d):
    for i, (k, v) in enumerate(itertools.islice(dict.items(d), SAMPLE_WIDTH)):
        tk = type(k)
        kept = k if (tk is int or (tk is str and len(k) <= TEXT)) else "#%d" % i
        yield kept, v


def _leaf(x, t):
    if t is int or (t is str and len(x) <= TEXT):
        return x
    if t is float:
        return ("f", x) if x == x and x != 0 else ("f", repr(x))
    if t is bool or x is None:
        return ("b", x)
    if t is str or t is bytes:
        return ("t", t.__name__, len(x), hash(x))
    head = _head(x, t)
    if head is not _NONE and head is not None:
        return head
    return ("o", getattr(t, "__name__", "?") if type(t) is type else "?", id(x))


# --- words --------------------------------------------------------------------------


def describe(old, new, secret=False):
    """How the nested part (two levels down or deeper) of a container changed since its
    sample: ``db.host 'h' → 'k'``, ``db.port added``; empty when it did not."""
    if old is None or new is None or old == new:
        return ()
    before, after = dict(old), dict(new)
    found = []
    for path, leaf in after.items():
        if (len(path) < 2 and not _in_place(leaf)) or _replaced(before, after, path):
            continue  # the first level (the copy's words say it), or inside a replaced one
        was = before.get(path, _NONE)
        if was is _NONE:
            if _resized(before, after, path[:-1], 1):
                found.append(_path_text(path) + " added")
        elif was != leaf:
            masked = secret or any(type(k) is str and secret_key(k) for k in path)
            found.append(_path_text(path) + " " + _leaf_change(was, leaf, masked))
    for path in before:
        if len(path) >= 2 and path not in after and not _replaced(before, after, path) \
                and _resized(before, after, path[:-1], -1):
            found.append(_path_text(path) + " removed")
    out = found[:MAX_NESTED]
    if len(found) > MAX_NESTED:
        more = len(found) - MAX_NESTED
        out.append("{} more nested value{} changed".format(more, "" if more == 1 else "s"))
    return tuple(out)


def _in_place(leaf):
    """An array's or a series' head: changed in place, no copy says it."""
    return type(leaf) is tuple and leaf[:1] in (("array",), ("series",), ("tensor",))


def _replaced(before, after, path):
    """A container above ``path`` (below the value) is another object than before: its
    own change is told (``db changed``), not what is inside it."""
    for i in range(1, len(path)):
        a, b = before.get(path[:i]), after.get(path[:i])
        if type(a) is tuple and type(b) is tuple and a[:1] == ("c",) == b[:1] and a[3] != b[3]:
            return True
    return False


def _resized(before, after, parent, sign):
    """``parent`` is a container in both samples whose length grew (``sign`` 1) or
    shrank (-1)."""
    a, b = before.get(parent), after.get(parent)
    if type(a) is not tuple or type(b) is not tuple or a[:1] != ("c",) or b[:1] != ("c",):
        return False
    return (b[2] - a[2]) * sign > 0


def _path_text(path):
    parts = []
    for key in path:
        if type(key) is str and key.startswith("#") and key[1:].isdigit():
            parts.append("[" + key[1:] + "]")
        else:
            text = key_text(key)
            parts.append(text if text.startswith("[") or not parts else "." + text)
    return "".join(parts)


def _leaf_change(a, b, masked):
    if type(a) is tuple and type(b) is tuple and a[:1] == b[:1] and a[0] in ("c", "o"):
        return "changed"
    if type(a) is tuple and a[:1] == ("array",) and type(b) is tuple and b[:1] == ("array",):
        return "values changed"
    return _leaf_text(a, masked) + " → " + _leaf_text(b, masked)


def _leaf_text(leaf, masked):
    if type(leaf) is not tuple:
        return value_text(leaf, masked)
    tag = leaf[0]
    if tag == "f":
        return value_text(leaf[1], masked) if type(leaf[1]) is float else leaf[1]
    if tag == "b":
        return value_text(leaf[1], masked)
    if tag == "c":
        return "<{} of {:,}>".format(leaf[1], leaf[2])
    if tag == "t":
        return "<{} of {:,}>".format(leaf[1], leaf[2])
    if tag == "o":
        return "<" + leaf[1] + ">"
    return "<" + str(tag) + ">"


#: Names whose sample the tracker keeps, at most (past it: counted in ``refused``).
MAX_SAMPLES = 2_000


class Samples(KeptByName):
    """The tracker's samples by name (containers and objects: what the hook compares)."""

    def __init__(self, max_samples=MAX_SAMPLES):
        KeptByName.__init__(self, max_samples)

    def retake(self, name, value, t, copy=MISSING):
        """``(old, new)``: the sample kept for ``name`` and the one just taken of
        ``value`` (kept in its place); either may be None.  Arrays and tables are left
        to the content fingerprints; a value whose bounded ``copy`` (just taken) holds
        only numbers and texts has nothing nested to sample (its copy tells the rest)."""
        new = None if copy is not MISSING and not holds_objects(copy) else \
            container_sample(value, t)
        return self.swap(name, new), new
