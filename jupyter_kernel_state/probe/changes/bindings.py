"""Which names a cell bound, rebound or removed: the namespace compared with the last scan.

The comparison is C-level, whatever the size of the namespace: the keys (in order) and
the ids of the values are copied with ``list``/``map``; when the old keys are a prefix of
the new ones (names were only added: nearly every cell), only the ids are compared, in
blocks that compare equal as a whole.  Otherwise (a name deleted, or re-inserted) every
id is compared with the one recorded for its name.
"""

import itertools
import operator

from ..namespace.visibility import (
    INTERNAL_NAME,
    hidden_names,
    keys_values,
    name_categories,
    name_category,
    natural_keys,
)

#: Ids compared per block by ``_differing`` (a block that compares equal is skipped).
_BLOCK = 256
#: New names up to 1/_FEW of the namespace are classified one by one; more are classified
#: in bulk.  namespace's per-name caches are only ever given every current name: given a
#: few, a cache past its bound would be rebuilt from those few, and the next snapshot
#: would classify and sort-key every name again.
_FEW = 16


class Rebinding:
    """What one comparison found: tracked names bound to another object, their values
    and ids (aligned lists); whether a trackable name appeared or the hidden names
    changed (``shape_changed``); whether names may have gone (``keys_shrank``)."""

    __slots__ = ("ids", "keys_shrank", "names", "shape_changed", "values")


class Bindings:
    """The namespace as the last scan saw it: its str keys in order, the ids of their
    values, and per position whether the name is tracked (neither one of IPython's own
    names nor one it hides)."""

    def __init__(self):
        self.keys = []
        self.ids = []
        self.tracked = []  # per position of keys: True for a name that can be shown
        self.hidden = frozenset()  # names IPython hides that could otherwise be shown

    def compare(self, ns, hidden_ns, value_id):
        """Compare ``ns`` with the last scan (``value_id``: name -> recorded id) and
        remember it as the new last scan; a :class:`Rebinding`."""
        keys, values = keys_values(ns)
        # IPython's own _, _i … are never tracked, hidden or not
        hidden = frozenset(
            n for n in hidden_names(ns, hidden_ns) if name_category(n) != INTERNAL_NAME
        )
        ids = list(map(id, values))
        n_prev, n = len(self.keys), len(keys)
        prefix = n >= n_prev and keys[:n_prev] == self.keys
        if prefix:
            todo, shape_changed = self._appended(keys, ids, hidden)
        else:
            todo, shape_changed = self._reordered(keys, ids, hidden, value_id)
        out = Rebinding()
        out.shape_changed = shape_changed or hidden != self.hidden
        out.keys_shrank = not prefix
        self._select(out, todo, keys, values, ids, None if prefix else value_id)
        self.keys, self.ids, self.hidden = keys, ids, hidden
        return out

    def _select(self, out, todo, keys, values, ids, value_id):
        """The tracked names at positions ``todo`` with their values and ids, into ``out``
        (``value_id`` None: the old keys are a prefix, compare ids with the last scan)."""
        tracked = self.tracked
        if len(todo) * 4 > len(keys):  # many (a cell rebinding most names): one mask
            if value_id is None:
                moved = list(map(operator.ne, ids, self.ids))
                moved.extend(itertools.repeat(True, len(keys) - len(self.keys)))
            else:
                moved = map(operator.ne, ids, map(value_id.get, keys))
            mask = list(map(operator.and_, moved, tracked))
            out.names = list(itertools.compress(keys, mask))
            out.values = list(itertools.compress(values, mask))
            out.ids = list(itertools.compress(ids, mask))
            return
        keep = list(map(tracked.__getitem__, todo))
        if not all(keep):
            todo = list(itertools.compress(todo, keep))
        out.names = list(map(keys.__getitem__, todo))
        out.values = list(map(values.__getitem__, todo))
        out.ids = list(map(ids.__getitem__, todo))

    def _appended(self, keys, ids, hidden):
        """The old keys are a prefix of ``keys``: positions whose id differs or that are
        new, and whether a trackable name appeared; ``tracked`` extended and updated."""
        n_prev, n = len(self.keys), len(keys)
        if n == n_prev and ids == self.ids:
            todo = []
        else:
            todo = _differing(ids, self.ids)
            todo.extend(range(n_prev, n))
        tracked, appeared = self.tracked, False
        if n > n_prev:
            added = keys[n_prev:]
            if len(added) * _FEW <= n:  # one by one: namespace's name caches stay as they are
                showable = [name_category(k) != INTERNAL_NAME for k in added]
            else:  # in bulk, over every name (see _FEW)
                natural_keys(keys)  # sort keys for the new names, ahead of snapshots
                showable = _showable(keys)[n_prev:]
            appeared = any(showable)
            tracked.extend(showable)
            if hidden and n_prev and hidden == self.hidden:
                _untrack(tracked, hidden, added, n_prev)
        if hidden != self.hidden:
            _untrack(tracked, self.hidden, keys, 0, True)  # may be shown again
            _untrack(tracked, hidden, keys, 0)
        return todo, appeared

    def _reordered(self, keys, ids, hidden, value_id):
        """Names were deleted or re-inserted: positions whose id differs from the one
        recorded for the name (untracked names always do), and whether a trackable name
        appeared; ``tracked`` rebuilt."""
        moved = map(operator.ne, ids, map(value_id.get, keys))
        todo = list(itertools.compress(range(len(keys)), moved))
        if len(todo) * _FEW > len(keys):
            natural_keys(keys)  # sort keys for the new names, ahead of snapshots
        tracked = self.tracked = _showable(keys)
        _untrack(tracked, hidden, keys, 0)
        shown = itertools.compress(todo, map(tracked.__getitem__, todo))
        appeared = not all(map(value_id.__contains__, map(keys.__getitem__, shown)))
        return todo, appeared


def _differing(ids, old):
    """Positions (below ``len(old)``) where ``ids`` differs from ``old``: blocks that
    compare equal (C-level, usually all but a few) are skipped whole."""
    out = []
    n = len(old)
    for a in range(0, n, _BLOCK):
        b = a + _BLOCK
        mine, theirs = ids[a:b], old[a:b]
        if mine != theirs:
            out.extend(itertools.compress(range(a, min(b, n)), map(operator.ne, mine, theirs)))
    return out


def _showable(keys):
    """Per key: not one of IPython's own names (C-level once categories are cached)."""
    return list(map(operator.ne, name_categories(keys), itertools.repeat(INTERNAL_NAME)))


def _untrack(tracked, hidden, keys, offset, value=False):
    """Set ``tracked`` to ``value`` at the positions of the ``hidden`` names among ``keys``
    (which start at position ``offset``); IPython's own names stay untracked."""
    if not hidden:
        return
    for i in itertools.compress(range(len(keys)), map(hidden.__contains__, keys)):
        tracked[offset + i] = value and name_category(keys[i]) != INTERNAL_NAME
