"""Per-type inspectors behind a dispatch table (builtins; see third_party.py for the rest).

Types are classified with ``type(v)`` and its MRO only, read through ``type``'s own
descriptors so a hostile metaclass or ``__class__`` property is never consulted.  The base
:class:`Inspector` has safe defaults; subclasses override only what their type has
cheaply.  Containers are read with unbound base methods (``list.__len__(v)``) so that
subclass overrides are not called.
"""

import collections
import decimal
import fractions
import itertools
import json
import math
import types

from . import display
from .display import cut

_type_name = type.__dict__["__name__"].__get__
_type_qualname = type.__dict__["__qualname__"].__get__
_type_module = type.__dict__["__module__"].__get__
_type_mro = type.__dict__["__mro__"].__get__
_class_dict = type.__dict__["__dict__"].__get__
_SAFE_DESCRIPTORS = (types.GetSetDescriptorType, types.MemberDescriptorType)
MISSING = object()
#: Bound on the per-type caches (user classes redefined in every cell pile up).
MAX_TYPE_CACHE = 4096


def type_name(t):
    try:
        return _type_name(t)
    except Exception:
        return "?"


def qualname(t):
    try:
        module = _type_module(t)
        name = _type_qualname(t)
        if type(module) is not str or module == "builtins":
            return name
        return module + "." + name
    except Exception:
        return type_name(t)


def mro(t):
    try:
        return _type_mro(t)
    except Exception:
        return (t, object)


def lookup_static(t, name, default=MISSING):
    """Class attribute ``name`` found along the MRO, without running descriptors."""
    for klass in mro(t):
        try:
            d = _class_dict(klass)
        except Exception:
            continue
        if name in d:
            return d[name]
    return default


def instance_dict(v):
    """``v.__dict__`` through the type's own C descriptor, or None (never a property)."""
    desc = lookup_static(type(v), "__dict__", None)
    if type(desc) not in _SAFE_DESCRIPTORS:
        return None
    try:
        d = desc.__get__(v, type(v))
    except Exception:
        return None
    return d if type(d) in (dict, types.MappingProxyType) else None


class NotEvaluated(Exception):
    """The attribute is a property or other computed descriptor; it was not called."""


def static_attr(v, name):
    """Attribute value read statically: instance dict, slot, or plain class attribute.

    Raises AttributeError when absent, NotEvaluated for properties/descriptors.
    """
    d = instance_dict(v)
    if d is not None and name in d:
        return d[name]
    attr = lookup_static(type(v), name)
    if attr is MISSING:
        raise AttributeError(name)
    if type(attr) in _SAFE_DESCRIPTORS:
        return attr.__get__(v, type(v))
    if lookup_static(type(attr), "__get__", None) is not None and not isinstance_type(
        attr, (types.FunctionType, staticmethod, classmethod)
    ):
        raise NotEvaluated(name)
    return attr


def isinstance_type(v, classes):
    """``isinstance`` by ``type(v)``'s MRO only (never a ``__class__`` property)."""
    m = mro(type(v))
    return any(c in m for c in classes)


def error_name(exc):
    return type_name(type(exc))


class Inspector:
    """Safe defaults: no size, no shape, a bounded repr, no children."""

    kind = "object"
    #: True when summarising never runs user code (no time guard needed).
    safe = False
    #: False for immutable types: the object's id is a complete fingerprint.
    mutable = True

    def size(self, v):
        return None

    def cheap_size(self, v):
        """Size for sorting; must not run user code."""
        return None

    def shape(self, v):
        return None

    def dtype(self, v):
        return None

    def nbytes(self, v):
        return None

    def preview(self, v, limit, depth=0, ctx=None):
        return repr_leaf(v, limit)

    def detail_repr(self, v, limit):
        ctx = display.Ctx(max_items=max(display.MAX_ITEMS, min(1000, limit // 4)))
        return self.preview(v, limit, 0, ctx)

    def fingerprint(self, v):
        d = instance_dict(v)
        if d is None:
            return None
        return ("attrs", len(d), tuple(map(id, itertools.islice(d.values(), 8))))

    def children(self, v):
        """``(iterator of (access_key, label, value), total)`` or None."""
        d = instance_dict(v)
        if d is None:
            return None
        items = ((k, v2) for k, v2 in d.items() if type(k) is str)
        return ((("a:" + k, k, val) for k, val in items), len(d))

    def child(self, v, key):
        if key.startswith("a:"):
            return static_attr(v, key[2:])
        raise LookupError(key)

    def keys(self, v):
        return None

    def table(self, v):
        return None


def preview_of(v, limit, depth=0, ctx=None):
    """Bounded preview of any value through the dispatch table; element-level errors
    become inline markers, timeouts propagate."""
    if ctx is None:
        ctx = display.Ctx()
    try:
        return inspector_for(type(v)).preview(v, limit, depth, ctx)
    except Exception as exc:
        return cut("<{} object: repr raised {}>".format(type_name(type(v)), error_name(exc)), limit)[0], True


def repr_leaf(v, limit):
    """``repr`` of a user object, cut to ``limit``.  The only place user repr runs."""
    return cut(display.as_str(repr(v)), limit)


# --- scalars --------------------------------------------------------------------------


class NoneInspector(Inspector):
    kind = "none"
    safe = True
    mutable = False

    def preview(self, v, limit, depth=0, ctx=None):
        return cut("None", limit)

    def fingerprint(self, v):
        return None

    def children(self, v):
        return None


class ScalarInspector(NoneInspector):
    kind = "number"

    def preview(self, v, limit, depth=0, ctx=None):
        return cut(repr(v), limit)

    def fingerprint(self, v):
        # The value itself: ids of freed floats are reused at once.  NaN != NaN.
        return v if v == v else "nan"


class BoolInspector(ScalarInspector):
    kind = "boolean"


class IntInspector(ScalarInspector):
    def preview(self, v, limit, depth=0, ctx=None):
        return display.int_repr(v, limit)

    def fingerprint(self, v):
        v = int.__index__(v)
        if -_BIG <= v < _BIG:
            return v
        return (v.bit_length(), v & (_BIG - 1))


_BIG = 1 << 63


class BigNumberInspector(ScalarInspector):
    """Decimal / Fraction: repr is stdlib code but can be long; keep it guarded."""

    safe = False

    def fingerprint(self, v):
        if type(v) is fractions.Fraction:
            return (v.numerator, v.denominator)
        return v.as_tuple() if type(v) is decimal.Decimal else None


# --- text and bytes -------------------------------------------------------------------


class StrInspector(NoneInspector):
    kind = "string"

    def size(self, v):
        return str.__len__(v)

    cheap_size = size

    def preview(self, v, limit, depth=0, ctx=None):
        return display.text_repr(v, limit)

    def fingerprint(self, v):
        return (str.__len__(v), str.__getitem__(v, _HEAD), str.__getitem__(v, _TAIL))


_HEAD = slice(0, 8)
_TAIL = slice(-8, None)


class BytesInspector(NoneInspector):
    kind = "bytes"

    def __init__(self, base=bytes):
        self.base = base

    def size(self, v):
        return self.base.__len__(v)

    cheap_size = size
    nbytes = size

    def fingerprint(self, v):
        base = self.base
        return (base.__len__(v), base.__getitem__(v, _HEAD), base.__getitem__(v, _TAIL))

    def preview(self, v, limit, depth=0, ctx=None):
        if self.base is bytes:
            return display.bytes_repr(v, limit)
        return display.bytes_repr(v, limit, "bytearray(", ")")


class MutableBytesInspector(BytesInspector):
    mutable = True

    def fingerprint(self, v):
        return ("len", self.base.__len__(v), None)


class MemoryviewInspector(MutableBytesInspector):
    def __init__(self):
        self.base = memoryview

    def size(self, v):
        return len(v)

    cheap_size = size

    def shape(self, v):
        return list(v.shape)

    def dtype(self, v):
        return v.format

    def nbytes(self, v):
        return v.nbytes

    def preview(self, v, limit, depth=0, ctx=None):
        return cut("<memoryview format={!r} shape={}>".format(v.format, tuple(v.shape)), limit)


# --- containers -----------------------------------------------------------------------


class SequenceInspector(Inspector):
    """list / tuple / deque (exact or subclasses with the base repr)."""

    kind = "sequence"

    def __init__(self, base, opener="[", closer="]", prefix=""):
        self.base = base
        self.opener = prefix + opener
        self.closer = closer + (")" if prefix else "")
        self.mutable = base is not tuple

    def size(self, v):
        return self.base.__len__(v)

    cheap_size = size

    def _iter(self, v):
        return self.base.__iter__(v)

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        mark = display.enter(v, depth, ctx)
        if mark is not None:
            return self.opener + mark + self.closer, True
        ctx.seen.add(id(v))
        try:
            n = self.size(v)
            empty = self.opener + self.closer if n == 0 else None
            if self.base is tuple and n == 0:
                empty = "()"
            return display.items_repr(
                self.opener, self.closer, self._iter(v), n, limit, depth, ctx, preview_of, empty
            )
        finally:
            ctx.seen.discard(id(v))

    def fingerprint(self, v):
        return ("len", self.size(v), tuple(map(id, itertools.islice(self._iter(v), 4))))

    def children(self, v):
        pairs = enumerate(self._iter(v))
        return ((("i:%d" % i, "[%d]" % i, x) for i, x in pairs), self.size(v))

    def child(self, v, key):
        if key.startswith("i:"):
            index = _nonneg_int(key[2:])
            return next(itertools.islice(self._iter(v), index, index + 1))
        return Inspector.child(self, v, key)


class RangeInspector(SequenceInspector):
    safe = True

    def __init__(self):
        SequenceInspector.__init__(self, range)
        self.mutable = False

    def preview(self, v, limit, depth=0, ctx=None):
        return cut(repr(v), limit)

    def size(self, v):
        return len(v)

    def fingerprint(self, v):
        return (v.start, v.stop, v.step)


class MappingInspector(Inspector):
    kind = "mapping"

    def __init__(self, base=dict, prefix=""):
        self.base = base
        self.prefix = prefix

    def size(self, v):
        return self.base.__len__(v)

    cheap_size = size

    def _items(self, v):
        if self.base is dict:
            return iter(dict.items(v))
        return iter(v.items())

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        opener, closer = self._brackets(v)
        mark = display.enter(v, depth, ctx)
        if mark is not None:
            return opener + mark + closer, True
        ctx.seen.add(id(v))
        try:
            n = self.size(v)
            return display.pairs_repr(opener, closer, self._items(v), n, limit, depth, ctx, preview_of)
        finally:
            ctx.seen.discard(id(v))

    def _brackets(self, v):
        if not self.prefix:
            return "{", "}"
        if self.prefix == "defaultdict":
            factory = v.default_factory
            fname = "None" if factory is None else _callable_name(factory)
            return "defaultdict(" + fname + ", {", "})"
        return self.prefix + "({", "})"

    def fingerprint(self, v):
        return ("len", self.size(v), tuple(map(id, itertools.islice(self._values(v), 4))))

    def _values(self, v):
        return dict.values(v) if self.base is dict else v.values()

    def children(self, v):
        def gen():
            for pos, (k, val) in enumerate(self._items(v)):
                yield key_access(k, pos), preview_of(k, 60)[0], val

        return gen(), self.size(v)

    def child(self, v, key):
        if key.startswith("k:"):
            try:
                k = json.loads(key[2:])
            except ValueError:
                raise LookupError(key) from None
            if type(k) not in _JSON_KEY_TYPES:
                raise LookupError(key)
            getter = dict.get if self.base is dict else type(v).get
            val = getter(v, k, MISSING)
            if val is MISSING:
                raise LookupError(key)
            return val
        if key.startswith("p:"):
            pos = _nonneg_int(key[2:])
            return next(itertools.islice(self._items(v), pos, pos + 1))[1]
        return Inspector.child(self, v, key)

    def keys(self, v):
        keys = [preview_of(k, 100)[0] for k, _ in itertools.islice(self._items(v), 100)]
        return keys, self.size(v)


_JSON_KEY_TYPES = (str, int, bool, type(None), float)


def key_access(k, pos):
    """Access key for a mapping entry: by JSON value when the key is a plain scalar."""
    t = type(k)
    if t in _JSON_KEY_TYPES and not (t is float and not math.isfinite(k)):
        if t is not str or len(k) <= 1000:
            return "k:" + json.dumps(k)
    return "p:%d" % pos


class SetInspector(Inspector):
    kind = "set"

    def __init__(self, base):
        self.base = base
        self.mutable = base is set

    def size(self, v):
        return self.base.__len__(v)

    cheap_size = size

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        frozen = self.base is frozenset
        opener, closer = ("frozenset({", "})") if frozen else ("{", "}")
        mark = display.enter(v, depth, ctx)
        if mark is not None:
            return opener + mark + closer, True
        ctx.seen.add(id(v))
        try:
            n = self.size(v)
            empty = "frozenset()" if frozen else "set()"
            return display.items_repr(
                opener, closer, self.base.__iter__(v), n, limit, depth, ctx, preview_of, empty
            )
        finally:
            ctx.seen.discard(id(v))

    def fingerprint(self, v):
        return ("len", self.size(v), None)

    def children(self, v):
        pairs = enumerate(self.base.__iter__(v))
        return ((("e:%d" % i, "#%d" % i, x) for i, x in pairs), self.size(v))

    def child(self, v, key):
        if key.startswith("e:"):
            pos = _nonneg_int(key[2:])
            return next(itertools.islice(self.base.__iter__(v), pos, pos + 1))
        return Inspector.child(self, v, key)


def _nonneg_int(text):
    if not text.isdigit() or len(text) > 18:
        raise LookupError(text)
    return int(text)


def _callable_name(f):
    for attr in ("__qualname__", "__name__"):
        try:
            name = static_attr(f, attr)
        except Exception:
            continue
        if type(name) is str:
            return name
    return type_name(type(f))


# --- registry -------------------------------------------------------------------------

#: Exact type → inspector.  Subclasses are resolved through the MRO in ``resolve``.
DISPATCH = {
    type(None): NoneInspector(),
    bool: BoolInspector(),
    int: IntInspector(),
    float: ScalarInspector(),
    complex: ScalarInspector(),
    decimal.Decimal: BigNumberInspector(),
    fractions.Fraction: BigNumberInspector(),
    str: StrInspector(),
    bytes: BytesInspector(),
    bytearray: MutableBytesInspector(bytearray),
    memoryview: MemoryviewInspector(),
    list: SequenceInspector(list),
    tuple: SequenceInspector(tuple, "(", ")"),
    collections.deque: SequenceInspector(collections.deque, "[", "]", "deque("),
    range: RangeInspector(),
    dict: MappingInspector(),
    collections.OrderedDict: MappingInspector(dict, "OrderedDict"),
    collections.defaultdict: MappingInspector(dict, "defaultdict"),
    collections.Counter: MappingInspector(dict, "Counter"),
    types.MappingProxyType: MappingInspector(types.MappingProxyType, "mappingproxy"),
    set: SetInspector(set),
    frozenset: SetInspector(frozenset),
}

#: Functions ``(t, mro) -> Inspector | None`` tried before the MRO walk (third parties,
#: dataclasses, namedtuples, callables …); registered by the other probe modules.
RESOLVERS = []
_cache = {}


def inspector_for(t):
    try:
        return _cache[t]
    except KeyError:
        pass
    except Exception:  # unhashable type (hostile metaclass)
        return GENERIC
    insp = resolve(t)
    if len(_cache) >= MAX_TYPE_CACHE:
        _cache.clear()
    _cache[t] = insp
    return insp


def resolve(t):
    insp = DISPATCH.get(t)
    if insp is not None:
        return insp
    m = mro(t)
    for resolver in RESOLVERS:
        try:
            insp = resolver(t, m)
        except Exception:
            insp = None
        if insp is not None:
            return insp
    for base in m[1:]:
        insp = DISPATCH.get(base)
        if insp is not None:
            return SubclassInspector(insp, t, base)
    return GENERIC


class SubclassInspector(Inspector):
    """A subclass of a builtin: sizes from the base, repr from the subclass if it has
    its own ``__repr__``, children from the base."""

    def __init__(self, base_inspector, t, base):
        self.inner = base_inspector
        self.kind = base_inspector.kind
        self.mutable = True
        own_repr = lookup_static(t, "__repr__", None)
        self.own_repr = own_repr is not _class_dict(base).get("__repr__")

    def size(self, v):
        return self.inner.size(v)

    def cheap_size(self, v):
        return self.inner.cheap_size(v)

    def nbytes(self, v):
        return self.inner.nbytes(v)

    def preview(self, v, limit, depth=0, ctx=None):
        if self.own_repr:
            return repr_leaf(v, limit)
        return self.inner.preview(v, limit, depth, ctx)

    def fingerprint(self, v):
        return self.inner.fingerprint(v)

    def children(self, v):
        return self.inner.children(v)

    def child(self, v, key):
        return self.inner.child(v, key)

    def keys(self, v):
        return self.inner.keys(v)


class GenericInspector(Inspector):
    """Any other object: guarded ``len`` when the type defines it, guarded ``repr``."""

    def size(self, v):
        if lookup_static(type(v), "__len__", None) is None:
            return None
        return len(v)


GENERIC = GenericInspector()
