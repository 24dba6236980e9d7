"""Which names of the namespace are visible, and in which order.

This loop touches every name, so it only does dict lookups on ``type(v)``: no user code,
no ``isinstance``.  Natural sort keys are cached per name and the sorted order is reused
while the set of visible names is unchanged.
"""

import itertools
import operator
import re

from ..inspect.base import MISSING, inspector_for
from ..protocol import MAX_NAME

#: IPython's own names: never shown, never found by ``detail``.
INTERNAL = frozenset(
    (
        "In",
        "Out",
        "exit",
        "quit",
        "get_ipython",
        "_",
        "__",
        "___",
        "_oh",
        "_dh",
        "_ih",
        "_i",
        "_ii",
        "_iii",
        "__builtins__",
        "__builtin__",
        "__name__",
        "__doc__",
        "__package__",
        "__loader__",
        "__spec__",
        "__file__",
        "__cached__",
        "_sh",
    )
)
_INTERNAL_RE = re.compile(r"_(?:i?\d+)\Z")
#: IPython's handle of an execution result (``_12`` is ``Out[12]``): hidden from the
#: list, yet the table ops by name reach it — a cell's output grid reads its windows.
_OUTPUT_RE = re.compile(r"_[1-9]\d{0,8}\Z")
#: Kinds hidden unless the request includes their group.
GROUP_OF_KIND = {"module": "modules", "callable": "callables", "class": "classes"}
MAX_KEY_CACHE = 50_000
_DIGITS = re.compile(r"\d+")


class NameCache(dict):
    """A per-name cache; ``base`` is its size after the last rebuild (see _remember)."""

    def __init__(self):
        super().__init__()
        self.base = 0

    def clear(self):
        super().clear()
        self.base = 0


_natural_keys = NameCache()
_kind_of_type = {}


def reset_caches():
    """Forget every per-name cache (a new probe state starts empty)."""
    _name_category.clear()
    _natural_keys.clear()


def is_internal(name):
    return name in INTERNAL or (name[:1] == "_" and _INTERNAL_RE.match(name) is not None)


def is_output(name):
    """``_<n>``: the result of execution ``n`` while IPython's output cache keeps it."""
    return _OUTPUT_RE.match(name) is not None


def lookup(ns, name):
    """``ns[name]`` read as a plain dict's (a user mapping's methods are never called)."""
    try:
        return dict.get(ns, name, MISSING)
    except TypeError:
        return MISSING


def is_hidden(name, value, hidden_ns):
    """IPython internals, and names IPython hides that still hold the same object."""
    if is_internal(name):
        return True
    return hidden_ns is not None and hidden_ns.get(name, MISSING) is value


# Name categories (cached per name): shown, private (shown on request), never shown.
PUBLIC, PRIVATE, INTERNAL_NAME = 0, 1, 2
_name_category = NameCache()


def name_category(name):
    cat = _name_category.get(name)
    if cat is None:
        if is_internal(name) or not name.isidentifier() or len(name) > MAX_NAME:
            cat = INTERNAL_NAME
        elif name[:1] == "_":
            cat = PRIVATE
        else:
            cat = PUBLIC
        if len(_name_category) < MAX_KEY_CACHE:
            _name_category[name] = cat  # (a full cache is rebuilt by name_categories)
    return cat


def name_categories(keys):
    """Categories aligned with ``keys``; names seen for the first time are classified in
    bulk with C-level ``map`` calls.  The result never depends on the cache's bound."""
    cats = list(map(_name_category.get, keys))
    if None not in cats:
        return cats
    missing = list(itertools.compress(keys, map(operator.is_, cats, itertools.repeat(None))))
    flags = zip(
        map(_short_identifier, missing),
        map(_starts_private, missing),
        map(INTERNAL.__contains__, missing),
        map(operator.truth, map(_INTERNAL_RE.match, missing)),
    )
    fresh = dict(zip(missing, map(_CATEGORY_OF_FLAGS.__getitem__, flags)))
    cats = list(map(fresh.get, keys, cats))  # the cached category where there was one
    _remember(_name_category, fresh, keys, cats)
    return cats


def _remember(cache, fresh, keys, values):
    """Add ``fresh`` (computed for some of ``keys``) to a per-name cache.

    Within its bound — ``MAX_KEY_CACHE``, or twice the names asked about — the cache just
    grows.  Past it, a call about a whole namespace (at least half the cache) rebuilds
    the cache from those names (``keys`` with their ``values``): a namespace larger than
    the bound is not recomputed on every call, and names long gone are dropped.  A call
    about a few names adds them, unless the cache has grown to twice the bound or the
    last rebuild (then it starts again from them).  Afterwards every name of ``keys`` is
    in the cache.
    """
    size = len(cache) + len(fresh)
    if size <= max(MAX_KEY_CACHE, 2 * len(keys)):
        cache.update(fresh)
    elif 2 * len(keys) >= len(cache):
        cache.clear()
        cache.update(zip(keys, values))
        cache.base = len(cache)
    elif size > 2 * max(MAX_KEY_CACHE, cache.base):
        cache.clear()
        cache.update(zip(keys, values))
        cache.base = 0
    else:
        cache.update(fresh)


_starts_private = operator.methodcaller("startswith", "_")


def _short_identifier(name):
    return len(name) <= MAX_NAME and name.isidentifier()


# (isidentifier, starts with "_", internal name, internal pattern) -> category
_CATEGORY_OF_FLAGS = {
    (ident, private, internal, pattern): (
        INTERNAL_NAME if internal or pattern or not ident else PRIVATE if private else PUBLIC
    )
    for ident in (False, True)
    for private in (False, True)
    for internal in (False, True)
    for pattern in (False, True)
}


def kind_of(t):
    try:
        return _kind_of_type[t]
    except KeyError:
        kind = inspector_for(t).kind
        if len(_kind_of_type) > 4096:
            _kind_of_type.clear()
        _kind_of_type[t] = kind
        return kind
    except Exception:
        return "object"


def hidden_names(ns, hidden_ns):
    """Names IPython hides (``user_ns_hidden``) that still hold the same object."""
    if not hidden_ns:
        return ()
    return {n for n, v in list(hidden_ns.items()) if type(n) is str and ns.get(n, MISSING) is v}


def keys_values(ns):
    """``(keys, values)`` of the namespace with non-str keys dropped (C-level copies)."""
    keys = list(ns)
    values = list(ns.values())
    if len(keys) != len(values) or list(map(type, keys)).count(str) != len(keys):
        pairs = [(k, v) for k, v in list(ns.items()) if type(k) is str]
        keys = [k for k, _ in pairs]
        values = [v for _, v in pairs]
    return keys, values


class Visibility:
    """Which names a snapshot shows, cached while the names and their types are unchanged.

    All per-name work is C-level (``map``, ``compress``) except for names and types seen
    for the first time.
    """

    def __init__(self):
        self.keys = None
        self.types = None
        self.cats = None
        self.kinds = None
        self.masks = {}
        self.reuse = {}

    def names(self, ns, include, hidden_ns, tracker=None):
        """Visible names, in namespace order (a list the caller must not change).

        With the change tracker of ``ns`` (``changes.tracker.ChangeTracker``), the list is reused —
        not one name is looked at — while the tracker's shape version is unchanged and
        either the namespace's size and last key are those of the last computation, or
        that computation saw the namespace as the tracker's last scan did and the
        namespace now looks as the tracker's latest scan saw it (IPython's own ``_iN``
        names come and go with every cell and never bump the version).

        Guarantee: names added or deleted outside user cells (silent executions, comm
        handlers, threads) are seen at once whenever they change the namespace's size or
        its last key — adding a name always moves the last key; deleting one always
        changes the size unless a name was added too.  Anything else that can change the
        list — a name rebound to a module, function or class (or back), a name IPython
        hides — is seen after the next user cell at the latest, whose hook bumps the
        version.  Until then such a name may be listed (or missing) by its old kind; its
        summary is always of its current value.
        """
        if tracker is None:
            return self._names(ns, include, hidden_ns)
        key = include if type(include) is tuple else tuple(include)
        now = (len(ns), last_key(ns))
        kept = self.reuse.get(key)
        if kept is not None and kept[0] == tracker.shape_version:
            _, scans, shape, clean, names = kept
            if shape == now:
                return names  # nothing moved since
            if clean and scans <= tracker.scan_count and now == tracker.scan_shape:
                return names  # computed as of a scan; later scans saw no change that counts
        names = self._names(ns, include, hidden_ns)
        if len(self.reuse) > 16:
            self.reuse.clear()
        clean = now == tracker.scan_shape
        self.reuse[key] = (tracker.shape_version, tracker.scan_count, now, clean, names)
        return names

    def shows(self, ns, name, include, hidden_ns):
        """Whether ``name`` is among the names a snapshot with ``include`` lists (the
        rules of ``_names`` for one name: its category, its value's kind, IPython's
        hidden names)."""
        value = ns.get(name, MISSING) if type(name) is str else MISSING
        if value is MISSING:
            return False
        category = name_category(name)
        if category == INTERNAL_NAME or (category == PRIVATE and "private" not in include):
            return False
        group = GROUP_OF_KIND.get(kind_of(type(value)))
        if group is not None and group not in include:
            return False
        return not hidden_ns or hidden_ns.get(name, MISSING) is not value

    def _names(self, ns, include, hidden_ns):
        keys, values = keys_values(ns)
        types = list(map(type, values))
        if keys != self.keys or not all(map(operator.is_, types, self.types)):
            # (the state changes only once all of it is computed: an error on the way
            # leaves the previous, consistent state)
            cats = name_categories(keys)
            kinds = list(map(_kind_of_type.get, types))
            if None in kinds:  # types seen for the first time: classify each once
                unknown = itertools.compress(
                    types, map(operator.is_, kinds, itertools.repeat(None))
                )
                known = dict(_kind_of_type)
                known.update((t, kind_of(t)) for t in set(unknown))
                kinds = list(map(known.__getitem__, types))
            self.keys, self.types, self.cats, self.kinds = keys, types, cats, kinds
            self.masks = {}
        private = "private" in include
        excluded = frozenset(k for k, g in GROUP_OF_KIND.items() if g not in include)
        mask = self.masks.get((private, excluded))
        if mask is None:
            name_ok = (True, private, False)
            kind_ok = {k: k not in excluded for k in set(self.kinds)}
            mask = list(
                map(
                    operator.and_,
                    map(name_ok.__getitem__, self.cats),
                    map(kind_ok.__getitem__, self.kinds),
                )
            )
            self.masks[(private, excluded)] = mask
        names = list(itertools.compress(keys, mask))
        hidden = hidden_names(ns, hidden_ns)
        if hidden:
            names = list(itertools.filterfalse(hidden.__contains__, names))
        return names


def last_key(ns):
    """The namespace's last key when it is an exact str (else an object equal to nothing
    else, so that nothing is reused)."""
    try:
        key = next(reversed(ns)) if ns else None
    except Exception:
        return object()
    return key if key is None or type(key) is str else object()


def visible(ns, include, hidden_ns):
    """``[(name, value)]`` in namespace order (convenience; snapshots use Visibility)."""
    names = Visibility().names(ns, include, hidden_ns)
    return [(n, ns[n]) for n in names]


def natural_keys(names):
    """Fill the natural-sort-key cache for ``names`` in one regex pass (C-level joins).
    Afterwards every name of ``names`` is in the cache (``_natural_keys[name]``)."""
    if _natural_keys:
        missing = list(itertools.filterfalse(_natural_keys.__contains__, names))
    else:
        missing = list(names)
    if not missing:
        return
    joined = "\x00".join(missing)
    parts = _DIGITS.sub(_pad, joined.casefold()).split("\x00")
    if len(parts) != len(missing):  # a name held a NUL: do them one by one
        fresh = {n: _natural_key_of(n) for n in missing}
    else:
        # key = folded name with zero-padded numbers, NUL, the name itself (a tie-break)
        keys = map(operator.add, map(operator.add, parts, itertools.repeat("\x00")), missing)
        fresh = dict(zip(missing, keys))
    if len(_natural_keys) + len(fresh) > max(MAX_KEY_CACHE, 2 * len(names)):
        known = list(map(fresh.get, names, map(_natural_keys.get, names)))
        _remember(_natural_keys, fresh, names, known)
    else:
        _natural_keys.update(fresh)


def _natural_key_of(name):
    folded = name.casefold()
    if _DIGITS.search(folded) is not None:
        folded = _DIGITS.sub(_pad, folded)
    return folded + "\x00" + name


def natural_key(name):
    key = _natural_keys.get(name)
    if key is None:
        key = _natural_key_of(name)
        if len(_natural_keys) < MAX_KEY_CACHE:
            _natural_keys[name] = key  # (a full cache is rebuilt by natural_keys)
    return key


def _pad(match):
    return match[0].zfill(20)
