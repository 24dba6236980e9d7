"""Inspectors for builtin containers: sequences, ranges, mappings and sets.

Containers are read with unbound base methods (``list.__len__(v)``, ``dict.items(v)``) so
overrides in subclasses are never called; only the first few items are visited.  The
atomic builtins (numbers, text, bytes) are in ``scalars``; importing this module
registers both in ``BY_TYPE``.
"""

import collections
import itertools
import json
import math
import types

from . import display, scalars  # noqa: F401 (scalars registers the atomic builtins)
from .base import BY_TYPE, MISSING, Inspector, callable_name, nonneg_int, preview_of
from .display import cut


class BracketedInspector(Inspector):
    """A builtin container shown as its items between brackets (sequences, sets), read
    with its base type's unbound ``__len__`` and ``__iter__``: ``opener`` and ``closer``
    around the items, ``empty`` the text of an empty one."""

    size_safe = True

    def __init__(self, base, opener, closer, empty):
        self.base = base
        self.opener = opener
        self.closer = closer
        self.empty = empty

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
        fast = self.plain_preview(v, limit, ctx.max_items)
        if fast is not None:
            return fast
        ctx.seen.add(id(v))
        try:
            n = self.size(v)
            return display.items_repr(self.opener, self.closer, self._iter(v), n, limit, depth,
                                      ctx, preview_of, self.empty)
        finally:
            ctx.seen.discard(id(v))

    def plain_preview(self, v, limit, max_items=display.MAX_ITEMS):
        """The preview when the first items are plain scalars (no user code, no
        per-element dispatch), else None."""
        n = self.size(v)
        if n == 0:
            return None
        reprs = display.plain_reprs(list(itertools.islice(self._iter(v), max_items)), limit)
        if reprs is None:
            return None
        return display.plain_items_repr(self.opener, self.closer, reprs, n, limit, max_items)


class SequenceInspector(BracketedInspector):
    """list / tuple / deque (exact or subclasses with the base repr)."""

    kind = "sequence"

    def __init__(self, base, opener="[", closer="]", prefix=""):
        opener = prefix + opener
        closer = closer + (")" if prefix else "")
        BracketedInspector.__init__(self, base, opener, closer, opener + closer)
        self.mutable = base is not tuple

    def fingerprint(self, v):
        base = self.base
        return ("len", base.__len__(v), tuple(map(id, itertools.islice(base.__iter__(v), 4))))

    def children(self, v):
        pairs = enumerate(self._iter(v))
        return ((("i:%d" % i, "[%d]" % i, x) for i, x in pairs), self.size(v))

    def child(self, v, key):
        if key.startswith("i:"):
            index = nonneg_int(key[2:])
            return next(itertools.islice(self._iter(v), index, index + 1))
        return Inspector.child(self, v, key)


class RangeInspector(SequenceInspector):
    safe = True

    def __init__(self):
        SequenceInspector.__init__(self, range)
        self.mutable = False

    def preview(self, v, limit, depth=0, ctx=None):
        return cut(repr(v), limit)

    def plain_preview(self, v, limit, max_items=display.MAX_ITEMS):
        return None

    def size(self, v):
        return len(v)

    def fingerprint(self, v):
        return (v.start, v.stop, v.step)


class MappingInspector(Inspector):
    kind = "mapping"

    def __init__(self, base=dict, prefix=""):
        self.base = base
        self.prefix = prefix
        self.size_safe = base is dict  # a mappingproxy's len is its mapping's

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
        fast = self.plain_preview(v, limit, ctx.max_items, opener, closer, ctx)
        if fast is not None:
            return fast
        ctx.seen.add(id(v))
        try:
            n = self.size(v)
            return display.pairs_repr(
                opener, closer, self._items(v), n, limit, depth, ctx, preview_of
            )
        finally:
            ctx.seen.discard(id(v))

    def plain_preview(
        self, v, limit, max_items=display.MAX_ITEMS, opener=None, closer=None, ctx=None
    ):
        """The preview when the first keys and values are plain scalars, else None; the
        values under credential-like keys masked as ``ctx`` says (counted in it)."""
        if self.base is not dict:
            return None
        n = self.size(v)
        if n == 0:
            return None
        if opener is None:
            opener, closer = self._brackets(v)
        pairs = list(itertools.islice(dict.items(v), max_items))
        keys = display.plain_reprs([k for k, _ in pairs], limit)
        if keys is None:
            return None
        values = display.plain_reprs([x for _, x in pairs], limit)
        if values is None:
            return None
        values = display.mask_pairs([k for k, _ in pairs], keys, values, ctx or display.Ctx())
        return display.plain_items_repr(
            opener, closer, keys, n, limit, max_items, pair_reprs=values
        )

    def _brackets(self, v):
        if not self.prefix:
            return "{", "}"
        if self.prefix == "defaultdict":
            factory = v.default_factory
            fname = "None" if factory is None else callable_name(factory)
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
            pos = nonneg_int(key[2:])
            return next(itertools.islice(self._items(v), pos, pos + 1))[1]
        return Inspector.child(self, v, key)

    def keys(self, v):
        keys = [preview_of(k, 100)[0] for k, _ in itertools.islice(self._items(v), 100)]
        return keys, self.size(v)


_JSON_KEY_TYPES = (str, int, bool, type(None), float)


def key_access(k, pos):
    """Access key for a mapping entry: by JSON value when the key is a plain scalar."""
    t = type(k)
    if (
        t in _JSON_KEY_TYPES
        and not (t is float and not math.isfinite(k))
        and (t is not str or len(k) <= 1000)
    ):
        return "k:" + json.dumps(k)
    return "p:%d" % pos


class SetInspector(BracketedInspector):
    kind = "set"

    def __init__(self, base):
        if base is frozenset:
            BracketedInspector.__init__(self, base, "frozenset({", "})", "frozenset()")
        else:
            BracketedInspector.__init__(self, base, "{", "}", "set()")
        self.mutable = base is set

    def fingerprint(self, v):
        return ("len", self.size(v), None)

    def children(self, v):
        pairs = enumerate(self.base.__iter__(v))
        return ((("e:%d" % i, "#%d" % i, x) for i, x in pairs), self.size(v))

    def child(self, v, key):
        if key.startswith("e:"):
            pos = nonneg_int(key[2:])
            return next(itertools.islice(self.base.__iter__(v), pos, pos + 1))
        return Inspector.child(self, v, key)


#: Exact type → inspector.  Subclasses are resolved through the MRO in ``resolve``.
BY_TYPE.update(
    {
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
)
