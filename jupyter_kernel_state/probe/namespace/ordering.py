"""The order of the visible names: ``Sorter`` for ``sort=name|type|size|memory|changed``,
each with an optional direction, and the cheap measures it sorts by (no user code)."""

from .. import guard
from ..inspect.base import inspector_for, shallow_memory, type_name
from .visibility import _natural_keys, natural_keys


class Sorter:
    """Orders visible names; remembers the last order for ``sort=name``.

    ``how`` is a key with an optional direction, ``name:desc``.  Each key has its natural
    direction (names and types A to Z; size, memory and changed largest or latest first);
    the other direction reverses the order, with unknown values still last.
    """

    def __init__(self):
        self._names = None
        self._order = None

    def sort(self, names, how, ns, changed_at=None):
        key, _, direction = how.partition(":")
        natural = NATURAL_DIRECTION.get(key)
        if natural is None or direction not in ("", "asc", "desc"):
            raise ValueError("sort")
        order = self._sort(names, key, ns, changed_at, direction in ("", natural))
        return order

    def _sort(self, names, how, ns, changed_at, forward):
        if how == "name":
            if names is not self._names and names != self._names:
                natural_keys(names)
                self._order = sorted(names, key=_natural_keys.__getitem__)
                self._names = names
            return self._order if forward else self._order[::-1]
        natural_keys(names)
        nat = _natural_keys.__getitem__
        if how == "type":
            order = sorted(names, key=lambda n: (type_name(type(ns.get(n))).casefold(), nat(n)))
            return order if forward else order[::-1]
        sign = -1 if forward else 1
        if how == "changed":
            changed_at = changed_at or (lambda name: None)
            measure = changed_at
        else:
            measure = _MEASURES[how]

            def measure(n, of=measure):
                return of(ns.get(n))

        def numeric_key(n):
            x = measure(n)
            return (x is None, sign * (x or 0), nat(n))

        return sorted(names, key=numeric_key)


#: Each sort key's natural direction.
NATURAL_DIRECTION = {"name": "asc", "type": "asc", "size": "desc", "memory": "desc",
                     "changed": "desc"}


def cheap_memory(value):
    """The memory column's value without a summary: ``nbytes`` where the type has it
    without user code, else a built-in ``sys.getsizeof``; None otherwise."""
    try:
        t = type(value)
        insp = inspector_for(t)
        if insp.safe or insp.safe_for(value) or _library_type(t):
            nbytes = insp.nbytes(value)
            if type(nbytes) is int:
                return nbytes
        return shallow_memory(value)
    except BaseException as exc:
        guard.check(exc)
        return None


def cheap_size(value):
    try:
        size = inspector_for(type(value)).cheap_size(value)
    except BaseException as exc:
        guard.check(exc)
        return None
    return size if type(size) is int else None


def _library_type(t):
    """Exact numpy, pandas, polars types: their ``nbytes`` is the library's own code."""
    module = getattr(t, "__module__", "") or ""
    return module.split(".")[0] in ("numpy", "pandas", "polars")


_MEASURES = {"size": cheap_size, "memory": cheap_memory}
