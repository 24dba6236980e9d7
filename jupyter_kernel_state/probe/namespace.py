"""Which names of the namespace are visible, and in which order.

This loop touches every name, so it only does dict lookups on ``type(v)``: no user code,
no ``isinstance``.  Natural sort keys are cached per name and the sorted order is reused
while the set of visible names is unchanged.
"""

import re

from .inspectors import MISSING, inspector_for, type_name

#: IPython's own names: never shown, never found by ``detail``.
INTERNAL = frozenset(
    (
        "In", "Out", "exit", "quit", "get_ipython", "_", "__", "___", "_oh", "_dh", "_ih",
        "_i", "_ii", "_iii", "__builtins__", "__builtin__", "__name__", "__doc__",
        "__package__", "__loader__", "__spec__", "__file__", "__cached__", "_sh",
    )
)
_INTERNAL_RE = re.compile(r"_(?:i?\d+)\Z")
#: Kinds hidden unless the request includes their group.
GROUP_OF_KIND = {"module": "modules", "callable": "callables", "class": "classes"}
MAX_KEY_CACHE = 50_000
_DIGITS = re.compile(r"\d+")
_natural_keys = {}
_kind_of_type = {}


def is_internal(name):
    return name in INTERNAL or (name[:1] == "_" and _INTERNAL_RE.match(name) is not None)


def is_hidden(name, value, hidden_ns):
    """IPython internals, and names IPython hides that still hold the same object."""
    if is_internal(name):
        return True
    return hidden_ns is not None and hidden_ns.get(name, MISSING) is value


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


def visible(ns, include, hidden_ns):
    """``[(name, value)]`` in namespace order, filtered by ``include``."""
    private = "private" in include
    excluded = frozenset(k for k, g in GROUP_OF_KIND.items() if g not in include)
    kinds = _kind_of_type
    hidden_get = hidden_ns.get if hidden_ns else None
    internal = INTERNAL
    out = []
    append = out.append
    for name, value in list(ns.items()):
        if type(name) is not str or name in internal:
            continue
        if name[:1] == "_":
            if not private or _INTERNAL_RE.match(name) is not None:
                continue
        if hidden_get is not None and hidden_get(name, MISSING) is value:
            continue
        if excluded:
            t = type(value)
            kind = kinds.get(t) if type(t) is type else None
            if kind is None:
                kind = kind_of(t)
            if kind in excluded:
                continue
        append((name, value))
    return out


def natural_key(name):
    key = _natural_keys.get(name)
    if key is None:
        folded = name.casefold()
        if _DIGITS.search(folded) is not None:
            folded = _DIGITS.sub(_pad, folded)
        key = folded + "\x00" + name
        if len(_natural_keys) >= MAX_KEY_CACHE:
            _natural_keys.clear()
        _natural_keys[name] = key
    return key


def _pad(match):
    digits = match.group()
    return digits.zfill(20) if len(digits) < 20 else digits


class Sorter:
    """Sorts visible names; remembers the last name order for ``sort=name``."""

    def __init__(self):
        self._names = None
        self._order = None

    def sort(self, items, how, changed_at=None):
        if how == "name":
            names = [n for n, _ in items]
            if names != self._names:
                index = dict(items)
                order = sorted(names, key=natural_key)
                self._names, self._order = names, order
                return [(n, index[n]) for n in order]
            index = dict(items)
            return [(n, index[n]) for n in self._order]
        if how == "type":
            return sorted(items, key=lambda nv: (type_name(type(nv[1])).casefold(), natural_key(nv[0])))
        if how == "size":
            return sorted(items, key=_size_key)
        if how == "changed":
            changed_at = changed_at or (lambda name: None)

            def key(nv):
                ec = changed_at(nv[0])
                return (ec is None, -(ec or 0), natural_key(nv[0]))

            return sorted(items, key=key)
        raise ValueError("sort")


def cheap_size(value):
    try:
        size = inspector_for(type(value)).cheap_size(value)
    except Exception:
        return None
    return size if type(size) is int else None


def _size_key(nv):
    size = cheap_size(nv[1])
    return (size is None, -(size or 0), natural_key(nv[0]))
