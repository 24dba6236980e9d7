"""Per-type inspectors behind a dispatch table (builtins; ``third_party`` for the rest).

Types are classified with ``type(v)`` and its MRO only, read through ``type``'s own
descriptors so a hostile metaclass or ``__class__`` property is never consulted.  The base
:class:`Inspector` has safe defaults; subclasses override only what their type has
cheaply.  Containers are read with unbound base methods (``list.__len__(v)``) so that
subclass overrides are not called.
"""

import itertools
import sys
import types

from .. import guard
from . import display
from .display import cut
from .secrets import SECRET_NAME, secret_key

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



def shallow_memory(v):
    """``sys.getsizeof`` when the type's ``__sizeof__`` is built-in (no user code runs):
    the object itself, not what it refers to; None otherwise."""
    sizeof = lookup_static(type(v), "__sizeof__", None)
    if type(sizeof) not in _BUILTIN_METHODS:
        return None
    try:
        return sys.getsizeof(v)
    except Exception:
        return None


_BUILTIN_METHODS = (type(object.__sizeof__), type(list.__sizeof__), type(len))


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
    #: True when ``size`` is a base C method (``list.__len__``): no timer needed.
    size_safe = False

    def safe_for(self, v):
        """True when summarising this value runs no user code although the type may
        (e.g. a numeric numpy array): it then runs without the time guard."""
        return False

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

    def detail_repr(self, v, limit, ctx=None):
        """The repr of a detail: more items than a preview.  ``ctx`` (this base method
        only): whether values under credential-like keys are revealed, and the count."""
        items = max(display.MAX_ITEMS, min(1000, limit // 4))
        if ctx is None:
            ctx = display.Ctx(max_items=items)
        else:
            ctx.max_items = items
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
    except BaseException as exc:  # SystemExit … from an element: marked inline
        return cut(
            "<{} object: {}>".format(type_name(type(v)), guard.user_error("repr", exc)), limit
        )[0], True


def repr_leaf(v, limit):
    """``repr`` of a user object, cut to ``limit``.  The only place user repr runs."""
    return cut(display.as_str(repr(v)), limit)


#: Attribute names looked at for credentials (an object's first ones).
MAX_SECRET_ATTRIBUTES = 200


def secret_attributes(v):
    """Whether ``v``'s own attributes (its ``__dict__``, read statically) have a name that
    looks like a credential's: then its repr, the user's code, may show the value."""
    d = instance_dict(v)
    if not d:
        return False
    names = [k for k in itertools.islice(d, MAX_SECRET_ATTRIBUTES) if type(k) is str]
    return SECRET_NAME.search("\n".join(names)) is not None and any(map(secret_key, names))


def own_preview(v, limit, depth=0, ctx=None):
    """An object by its own repr — or, when one of its attributes is named like a
    credential, by its attributes (read statically) with that one masked, unless
    ``ctx.reveal``: ``Client(url='https://x', api_token=[masked])``."""
    if not secret_attributes(v):
        return repr_leaf(v, limit)
    ctx = ctx or display.Ctx()
    ctx.secrets += 1
    if ctx.reveal:
        return repr_leaf(v, limit)
    opener = type_name(type(v)) + "("
    mark = display.enter(v, depth, ctx)
    if mark is not None:
        return opener + mark + ")", True
    d = instance_dict(v) or {}
    ctx.seen.add(id(v))
    try:
        items = ((k, x) for k, x in d.items() if type(k) is str)
        return display.pairs_repr(opener, ")", items, len(d), limit, depth, ctx, preview_of,
                                  "=", _name)
    finally:
        ctx.seen.discard(id(v))


def _name(name, limit, depth, ctx):
    return cut(name, limit)


def nonneg_int(text):
    if not text.isdigit() or len(text) > 18:
        raise LookupError(text)
    return int(text)


def callable_name(f):
    for attr in ("__qualname__", "__name__"):
        try:
            name = static_attr(f, attr)
        except Exception:
            continue
        if type(name) is str:
            return name
    return type_name(type(f))


# --- registry -------------------------------------------------------------------------

#: Exact type → inspector (filled by ``scalars``, ``containers`` and ``objects``).
#: Subclasses are resolved through the MRO in ``resolve``.
BY_TYPE = {}

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
    insp = BY_TYPE.get(t)
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
        insp = BY_TYPE.get(base)
        if insp is not None:
            return SubclassInspector(insp, t, base)
    return GENERIC


class SubclassInspector(Inspector):
    """A subclass of a builtin: sizes from the base, repr from the subclass if it has
    its own ``__repr__``, children from the base."""

    def __init__(self, base_inspector, t, base):
        self.inner = base_inspector
        self.kind = base_inspector.kind
        self.size_safe = base_inspector.size_safe
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
            return own_preview(v, limit, depth, ctx)
        return self.inner.preview(v, limit, depth, ctx)

    def fingerprint(self, v):
        if self.kind == "number":  # the base's fingerprint compares v == v: a user __eq__
            return ("id", id(v))
        return self.inner.fingerprint(v)

    def children(self, v):
        return self.inner.children(v)

    def child(self, v, key):
        return self.inner.child(v, key)

    def keys(self, v):
        return self.inner.keys(v)


class GenericInspector(Inspector):
    """Any other object: guarded ``len`` when the type defines it, guarded ``repr`` (its
    attributes instead when one is named like a credential: ``own_preview``)."""

    def size(self, v):
        if lookup_static(type(v), "__len__", None) is None:
            return None
        return len(v)

    def preview(self, v, limit, depth=0, ctx=None):
        return own_preview(v, limit, depth, ctx)


GENERIC = GenericInspector()
