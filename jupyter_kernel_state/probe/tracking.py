"""Change tracking: a ``post_run_cell`` hook that keeps, per visible name, cheap facts
about its value and the execution count at which the name was last bound or changed.

No user code runs in the hook: ids and types are read with C-level ``map``; ``len`` only
of exact builtin types; deeper fingerprints only through the inspectors' ``fingerprint``
(base methods, known attributes).  Silent executions (the probe's own) do not fire
``post_run_cell``.

What is compared after each user cell, and what that guarantees:

* every name's ``id`` (C-level): binding, rebinding and deleting a name are changes at
  that cell, exactly, whatever the size of the namespace;
* small immutable values (numbers, bool, None, str/bytes up to 4 KiB) are *held*, so
  their id cannot be reused: an unchanged id is the same value, and binding an equal
  value again (re-running ``x = 1``) is no change;
* the ``len`` of exact builtin containers and of long str/bytes (``LEN_TYPES``), for
  every one of them, every cell (C-level, after checking their type): ``append``,
  ``pop``, ``update`` … are changes at that cell, described ``len a → b``;
* deeper fingerprints (first item ids of containers; shape/dtype/data pointer of arrays;
  shape/columns/dtypes of tables; attribute count and ids of objects) cost Python time,
  so at most ``DEEP_BUDGET`` values are fingerprinted per cell: values bound in that
  cell first, then the others in turn, objects before containers (whose len was already
  compared).  With up to ``DEEP_BUDGET`` such values — nearly every notebook — each one
  is fingerprinted after every cell, as before.  Above that, a change only a deep
  fingerprint shows (``a[0] = 9``; a column added in place to one of 1,000 tables) is
  seen by the turn that reaches it (``changed_at`` = that later cell) or by a snapshot
  that shows the name (:meth:`Tracker.observe`: ``changed_at`` = the last cell), whichever
  comes first.  The same holds for a name rebound within one cell to a new object of the
  same type that happens to get the old one's id (the old one freed first).  A change
  made after the last cell (a silent execution, a comm handler) is recorded by the next
  cell's hook, as before; snapshots show the current value in any case.

The tracker also keeps a *shape version* for ``namespace.Visibility``: bumped when a
visible-able name appears or disappears, a tracked name's type changes, or the set of
names IPython hides changes — what can change which names a snapshot lists.
"""

import collections
import itertools
import operator
import time

from . import guard
from .inspectors import MISSING, inspector_for, type_name
from .namespace import (
    INTERNAL_NAME,
    hidden_names,
    keys_values,
    last_key,
    name_categories,
    name_category,
    natural_keys,
)
from .summary import HELD_TEXT, HELD_TYPES, MAX_HELD_TEXT

MAX_REMOVED = 1000
MAX_CHANGES = 5
HOOK_MARK = "_jupyter_kernel_state_hook"
#: Small immutable values are held (so their id cannot be reused) and compared by value:
#: the same rule as the summary cache's (summary.HELD_TYPES, HELD_TEXT, MAX_HELD_TEXT).
_HELD_OR_TEXT = HELD_TYPES | HELD_TEXT
#: Exact types whose ``len`` is C code and a useful fact (compared every cell).
LEN_TYPES = frozenset((list, dict, set, frozenset, tuple, bytearray, collections.deque, str, bytes))
#: Of those, the ones whose deep fingerprint starts with ("len", n, …): "len a → b".
_LEN_DESCRIBED = LEN_TYPES - HELD_TEXT
#: Deep fingerprints computed per cell at most (see the module docstring).
DEEP_BUDGET = 128

_consume = collections.deque(maxlen=0).extend


def _held_flags(values, types):
    """Which values are held: HELD_TYPES, and str/bytes up to MAX_HELD_TEXT (C-level)."""
    flags = list(map(_HELD_OR_TEXT.__contains__, types))
    text = list(map(HELD_TEXT.__contains__, types))
    if any(text) and max(map(len, itertools.compress(values, text))) > MAX_HELD_TEXT:
        positions = itertools.compress(range(len(types)), text)
        sizes = map(len, itertools.compress(values, text))
        too_long = map(operator.gt, sizes, itertools.repeat(MAX_HELD_TEXT))
        for i in itertools.compress(positions, too_long):
            flags[i] = False  # long text is not held
    return flags


def _fingerprint(value, t):
    try:
        return inspector_for(t).fingerprint(value)
    except BaseException as exc:
        guard.check(exc)
        return ("error",)


class Tracker:
    """Per-name change records, updated after every user cell (see the module docstring).

    Records are columns (dicts keyed by name) so that a cell rebinding thousands of names
    is recorded with C-level ``dict.update`` calls.
    """

    def __init__(self, shell, on_change=None):
        self.shell = shell
        self.on_change = on_change  # called with a list of names whose value changed
        self.removed = {}  # name -> execution count it disappeared at (insertion-ordered)
        self.last_ec = None
        self.last_hook_ms = None
        # the namespace at the last scan (str keys, in order) and the ids of its values
        self.keys = []
        self.ids = []
        # per tracked name (not internal, not hidden when first seen)
        self.rid = {}  # id of the value
        self.rtype = {}  # type of the value
        self.first = {}  # execution count first seen
        self.at = {}  # execution count last bound or changed
        self.chg = {}  # structural changes at that count (non-empty only)
        self.held = {}  # the value itself, for HELD types
        self.lens = {}  # len, for LEN_TYPES values not held (same key order as ltypes)
        self.ltypes = {}  # their type
        self.objs = {}  # other values with a deep fingerprint worth re-checking (a set)
        self.fps = {}  # deep fingerprint, once taken
        self.verified = {}  # execution count of the last deep fingerprint
        self.turn_objs = 0
        self.turn_lens = 0
        self.hidden = frozenset()
        self.tracked = []  # per position of keys: a name that can be shown
        self.shape_version = 0
        self.scan_count = 0
        self.scan_shape = None
        self.deep_checks = 0  # deep fingerprints taken by the last scan (tests count them)
        self.scan(None)

    # -- the hook --------------------------------------------------------------------

    def post_run_cell(self, result=None):
        ec = getattr(result, "execution_count", None)
        if type(ec) is not int:
            ec = (getattr(self.shell, "execution_count", 1) or 1) - 1
        self.scan(ec)

    def scan(self, ec):
        t0 = time.perf_counter()
        ns = self.shell.user_ns
        keys, values = keys_values(ns)
        # names IPython hides that could otherwise be shown (its own _, _i … always change)
        hidden = frozenset(
            n
            for n in hidden_names(ns, getattr(self.shell, "user_ns_hidden", None))
            if name_category(n) != INTERNAL_NAME
        )
        ids = list(map(id, values))
        n_prev, n = len(self.keys), len(keys)
        budget = [DEEP_BUDGET]
        self.deep_checks = 0
        bump = hidden != self.hidden
        tracked = self.tracked  # per position: a name that can be shown (not internal, not hidden)
        prefix = n >= n_prev and keys[:n_prev] == self.keys
        if prefix:
            if n == n_prev and ids == self.ids:
                todo = []
            else:
                todo = _differing(ids, self.ids)
                todo.extend(range(n_prev, n))
            if n > n_prev:
                added = keys[n_prev:]
                natural_keys(added)  # sort keys for new names, ahead of snapshots
                showable = _showable(added)
                bump = bump or any(showable)
                tracked.extend(showable)
                if hidden and n_prev and hidden == self.hidden:
                    _untrack(tracked, hidden, added, n_prev)
            if hidden != self.hidden:
                _untrack(tracked, self.hidden, keys, 0, True)  # may be shown again
                _untrack(tracked, hidden, keys, 0)
        else:
            bump = self._collect_removed(keys, ec) or bump
            # every name whose id differs from its record (untracked names always do)
            moved = map(operator.ne, ids, map(self.rid.get, keys))
            todo = list(itertools.compress(range(n), moved))
            natural_keys(keys)
            tracked = self.tracked = _showable(keys)
            _untrack(tracked, hidden, keys, 0)
            if not bump:  # a name that can be shown appeared
                shown = itertools.compress(todo, map(tracked.__getitem__, todo))
                bump = any(keys[i] not in self.rid for i in shown)
        # rebound names, minus IPython's own and the hidden ones
        if len(todo) * 4 > n:  # many (a cell rebinding most names): one mask, compress
            if prefix:
                moved = list(map(operator.ne, ids, self.ids))
                moved.extend(itertools.repeat(True, n - n_prev))
            else:
                moved = list(map(operator.ne, ids, map(self.rid.get, keys)))
            mask = list(map(operator.and_, moved, tracked))
            names = list(itertools.compress(keys, mask))
            todo_values = list(itertools.compress(values, mask))
            todo_ids = list(itertools.compress(ids, mask))
        else:
            keep = list(map(tracked.__getitem__, todo))
            if not all(keep):
                todo = list(itertools.compress(todo, keep))
            names = list(map(keys.__getitem__, todo))
            todo_values = list(map(values.__getitem__, todo))
            todo_ids = list(map(ids.__getitem__, todo))
        if names:
            bump = self._record(names, todo_values, todo_ids, ec, budget) or bump
        # the same objects (ids unchanged): a new len, or another type under a reused id
        # (rebound names were just recorded with their new len and type)
        grown, retyped = self._check_lens(ns)
        if retyped:
            others = [ns[n] for n in retyped]
            bump = self._record(retyped, others, list(map(id, others)), ec, budget) or bump
        if grown:
            self._grown(ns, grown, ec, budget)
        self._turns(ns, ec, budget)
        self.keys, self.ids, self.hidden = keys, ids, hidden
        self.scan_count += 1
        self.scan_shape = (len(ns), last_key(ns))
        if bump:
            self.shape_version += 1
        if ec is not None:
            self.last_ec = ec
        self.last_hook_ms = (time.perf_counter() - t0) * 1000.0

    def _notify(self, names):
        if self.on_change is not None and names:
            self.on_change(names)

    def _record(self, names, values, ids, ec, budget):
        """Record rebound and new names; True when one appeared or changed type.

        Per-name Python work only where something is described (a type or len change,
        a deep fingerprint); the rest are C-level ``map``/``compress``/``dict.update``,
        with shortcuts for the usual cell (every name known, types unchanged).
        """
        m = len(names)
        everyone = range(m)
        types = list(map(type, values))
        old_types = list(map(self.rtype.get, names))
        same_type = list(map(operator.is_, old_types, types))
        if all(same_type):
            new_names, retyped = [], []
        else:
            is_new = list(map(operator.is_, old_types, itertools.repeat(None)))
            new_names = list(itertools.compress(names, is_new))
            other_type = list(map(operator.not_, same_type))
            retyped = [i for i in itertools.compress(everyone, other_type) if not is_new[i]]
            retyped_names = itertools.compress(names, other_type)
            self.rtype.update(zip(retyped_names, itertools.compress(types, other_type)))
        held = _held_flags(values, types)
        # an equal small value bound again is no change (both exact builtin scalars)
        mask = held if not retyped and not new_names else list(map(operator.and_, same_type, held))
        unchanged = ()
        if any(mask):
            olds = map(self.held.get, itertools.compress(names, mask))
            equal = list(map(operator.eq, olds, itertools.compress(values, mask)))
            if any(equal):
                unchanged = set(itertools.compress(itertools.compress(everyone, mask), equal))
        if not new_names and not unchanged:
            changed = None  # every name
            changed_names = names
        else:
            changed = [False] * m if new_names else [True] * m
            if new_names:
                known = itertools.chain(itertools.compress(everyone, same_type), retyped)
                _consume(map(changed.__setitem__, known, itertools.repeat(True)))
            _consume(map(changed.__setitem__, unchanged, itertools.repeat(False)))
            changed_names = list(itertools.compress(names, changed))
        # descriptions: the type, or the len of containers (old len read before updating)
        descriptions = {}
        for i in retyped:
            text = "type {} → {}".format(type_name(old_types[i]), type_name(types[i]))
            descriptions[names[i]] = (text,)
        lens = self.lens
        if lens:
            sized = map(_LEN_DESCRIBED.__contains__, types)
            if retyped or changed is not None:
                same = same_type if changed is None else map(operator.and_, changed, same_type)
                sized = map(operator.and_, same, sized)
            sized = list(sized)
            if any(sized):
                before = list(map(lens.get, itertools.compress(names, sized)))
                after = list(map(len, itertools.compress(values, sized)))  # exact builtin types
                if before != after:
                    for i, b, a in zip(itertools.compress(everyone, sized), before, after):
                        if b is not None and a != b:
                            descriptions[names[i]] = ("len {:,} → {:,}".format(b, a),)
        # the columns
        self.rid.update(zip(names, ids))
        if new_names:
            self.first.update(zip(new_names, itertools.repeat(ec)))
            self.at.update(zip(new_names, itertools.repeat(ec)))
            if self.removed:
                _consume(map(self.removed.pop, new_names, itertools.repeat(None)))
        chg, at = self.chg, self.at
        if changed_names:
            at.update(zip(changed_names, itertools.repeat(ec)))
            if chg:  # earlier descriptions of what changed now (chg is usually the smaller)
                if len(changed_names) <= len(chg):
                    _consume(map(chg.pop, changed_names, itertools.repeat(None)))
                else:
                    now = set(changed_names)
                    for name in [n for n in chg if n in now]:
                        del chg[name]
        held_names = list(itertools.compress(names, held))
        if held_names:
            was_held = self.held
            before = len(was_held)
            newly = ()
            if not all(same_type) or len(held_names) > before:
                absent = map(operator.not_, map(was_held.__contains__, held_names))
                newly = list(itertools.compress(held_names, absent))
            was_held.update(zip(held_names, itertools.compress(values, held)))
            if not newly and len(was_held) != before:  # a long text became short
                newly = [n for n in held_names if n in self.lens or n in self.objs]
            if newly:  # now held: forget what only non-held values have
                for d in (lens, self.ltypes, self.objs, self.fps, self.verified):
                    if d:
                        _consume(map(d.pop, newly, itertools.repeat(None)))
        if len(held_names) < m:
            others = list(itertools.compress(everyone, map(operator.not_, held)))
            self._record_others(names, values, types, old_types, others, ec, budget, descriptions)
            # the summary cache checks held values by identity; others may be worth dropping
            if changed is None:
                self._notify(list(map(names.__getitem__, others)))
            else:
                self._notify([names[i] for i in others if changed[i]])
        for name, changes in descriptions.items():
            if changes:
                chg[name] = changes
        return bool(new_names) or bool(retyped)

    def _record_others(self, names, values, types, old_types, others, ec, budget, descriptions):
        """Non-held values: len facts for LEN_TYPES, deep fingerprints within the budget."""
        lens, ltypes, objs, fps, verified = (
            self.lens,
            self.ltypes,
            self.objs,
            self.fps,
            self.verified,
        )
        names_o = list(map(names.__getitem__, others))
        if self.held:
            _consume(map(self.held.pop, names_o, itertools.repeat(None)))
        len_typed = list(map(LEN_TYPES.__contains__, map(types.__getitem__, others)))
        sized = list(itertools.compress(others, len_typed))
        if sized:
            # lens and ltypes get the same inserts and deletes: their orders stay aligned
            sized_names = list(itertools.compress(names_o, len_typed))
            lens.update(zip(sized_names, map(len, map(values.__getitem__, sized))))
            ltypes.update(zip(sized_names, map(types.__getitem__, sized)))
            for d in (objs, fps):  # a new object: its baseline is taken in turn
                if d:
                    _consume(map(d.pop, sized_names, itertools.repeat(None)))
        for i in itertools.compress(others, map(operator.not_, len_typed)):
            name = names[i]
            if name in lens:
                del lens[name], ltypes[name]
            objs[name] = None
            old_fp = fps.pop(name, MISSING)
            if budget[0] <= 0:
                continue  # fingerprinted in turn (no "changes" described for it)
            budget[0] -= 1
            self.deep_checks += 1
            fp = _fingerprint(values[i], types[i])
            if fp is None:
                objs.pop(name, None)  # nothing to re-check (callables, modules, classes)
                continue
            fps[name] = fp
            verified[name] = ec
            if old_fp is not MISSING and old_types[i] is types[i] and name not in descriptions:
                descriptions[name] = describe_changes(types[i], old_fp, types[i], fp)
        # fresh containers' baselines, while the budget allows
        for i in sized:
            if budget[0] <= 0:
                break
            budget[0] -= 1
            self.deep_checks += 1
            fps[names[i]] = _fingerprint(values[i], types[i])
            verified[names[i]] = ec

    def _check_lens(self, ns):
        """``(grown, retyped)``: names of LEN_TYPES values whose len changed, and whose
        type changed under the same id (another object took it)."""
        lens = self.lens
        if not lens:
            return (), ()
        names = list(lens)
        try:
            values = list(map(ns.__getitem__, names))
        except KeyError:  # a name vanished without the keys changing: check one by one
            values = [ns.get(n, MISSING) for n in names]
        types = list(map(type, values))
        same = list(map(operator.is_, types, self.ltypes.values()))
        retyped = ()
        if not all(same):
            retyped = [n for n, ok in zip(names, same) if not ok and n in ns]
            names = list(itertools.compress(names, same))
            values = list(itertools.compress(values, same))
            before = [lens[n] for n in names]
        else:
            before = list(lens.values())
        now = list(map(len, values))  # exact builtin types only: C code
        if now == before:
            return (), retyped
        grown = [(n, b, a) for n, b, a in zip(names, before, now) if a != b]
        return grown, retyped

    def _grown(self, ns, grown, ec, budget):
        """The same containers with a new len: a change at this cell."""
        lens, fps, verified, ltypes = self.lens, self.fps, self.verified, self.ltypes
        chg, at = self.chg, self.at
        for name, before, after in grown:
            lens[name] = after
            at[name] = ec
            if ltypes[name] in _LEN_DESCRIBED:
                chg[name] = ("len {:,} → {:,}".format(before, after),)
            else:
                chg.pop(name, None)
            fps.pop(name, None)
            if budget[0] > 0:
                budget[0] -= 1
                self.deep_checks += 1
                fps[name] = _fingerprint(ns[name], ltypes[name])
                verified[name] = ec
        self._notify([name for name, _, _ in grown])

    def _turns(self, ns, ec, budget):
        """Deep fingerprints of values bound before, in turn: objects, then containers
        (a value fingerprinted earlier in this scan is skipped)."""
        verified = self.verified
        if budget[0] > 0 and self.objs:
            names, self.turn_objs = _turn(list(self.objs), self.turn_objs, budget[0])
            self._deep(ns, [n for n in names if ec is None or verified.get(n) != ec], ec, budget)
        if budget[0] > 0 and self.lens:
            names, self.turn_lens = _turn(list(self.lens), self.turn_lens, budget[0])
            if ec is not None:
                names = [n for n in names if verified.get(n) != ec]
            self._deep(ns, names, ec, budget)

    def _deep(self, ns, names, ec, budget):
        fps, rtype, verified, changed = self.fps, self.rtype, self.verified, []
        for name in names:
            value = ns.get(name, MISSING)
            t = type(value)
            if value is MISSING:
                continue
            if rtype.get(name) is not t:  # another object took the old one's id
                if self._record([name], [value], [id(value)], ec, budget):
                    self.shape_version += 1
                continue
            budget[0] -= 1
            self.deep_checks += 1
            fp = _fingerprint(value, t)
            old = fps.get(name, MISSING)
            fps[name] = fp
            verified[name] = ec
            if fp is None and name in self.objs:
                del self.objs[name]
            if old is MISSING or old == fp:
                continue
            self._changed(name, ec, describe_changes(t, old, t, fp))
            changed.append(name)
        self._notify(changed)

    def _changed(self, name, ec, changes):
        self.at[name] = ec
        if changes:
            self.chg[name] = changes
        else:
            self.chg.pop(name, None)

    def _collect_removed(self, keys, ec):
        """Forget names that are gone; True when there were any."""
        present = set(keys)
        gone = [n for n in self.rid if n not in present]  # in the order they were recorded
        for name in gone:
            for d in (
                self.rid,
                self.rtype,
                self.first,
                self.at,
                self.chg,
                self.held,
                self.lens,
                self.ltypes,
                self.objs,
                self.fps,
                self.verified,
            ):
                d.pop(name, None)
            self.removed.pop(name, None)
            self.removed[name] = ec
        while len(self.removed) > MAX_REMOVED:
            del self.removed[next(iter(self.removed))]
        self._notify(list(gone))
        return bool(gone)

    # -- snapshot time ---------------------------------------------------------------

    def observe(self, name, value, t, fp):
        """A snapshot fingerprinted ``value`` (still bound to ``name``): a deep change the
        hook has not fingerprinted since the last cell is a change at the last cell."""
        old = self.fps.get(name, MISSING)
        if old == fp:
            return  # the usual case: as the hook saw it
        if self.rid.get(name) != id(value) or self.rtype.get(name) is not t or name in self.held:
            return  # rebound outside a cell (change_of says so) or held: nothing to add
        last = self.last_ec
        if old is MISSING:
            if name in self.objs or name in self.lens:
                self.fps[name] = fp
                self.verified[name] = last
            return
        if old == fp or last is None or self.verified.get(name) == last:
            return  # unchanged, or changed since the last cell: the next hook records it
        before = self.lens.get(name)
        if before is not None and len(value) != before:
            return  # its len changed after the last cell: the next hook records it
        self.fps[name] = fp
        self.verified[name] = last
        self._changed(name, last, describe_changes(t, old, t, fp))

    # -- queries ---------------------------------------------------------------------

    def resolve_since(self, since_ec):
        """``since_ec`` or, when None, the count before the most recent execution."""
        if since_ec is not None:
            return since_ec
        if self.last_ec is None:
            return None
        return self.last_ec - 1

    def change_of(self, name, value, since):
        """``(change, changed_at, changes)`` of ``name`` relative to ``since``."""
        kinds, ats, described = self.change_of_many([name], [value], since)
        return kinds[0], ats[0], list(described[0])

    def change_of_many(self, names, values, since):
        """``change_of`` for a page: three lists (change, changed_at, changes as a tuple,
        empty when none), no tuple per name."""
        rid, at_of, first_of, chg = self.rid.get, self.at.get, self.first.get, self.chg
        ats = list(map(at_of, names))
        kinds = []
        described = [()] * len(names)
        append = kinds.append
        for i, name, value, changed_at in zip(itertools.count(), names, values, ats):
            ident = rid(name)
            if ident is None:
                append("new")
            elif ident != id(value):
                append("modified")  # rebound outside a cell
            elif since is None:
                append("unchanged")
            else:
                first = first_of(name)
                if first is not None and first > since:
                    append("new")
                elif changed_at is not None and changed_at > since:
                    append("modified")
                    described[i] = chg.get(name, ())
                else:
                    append("unchanged")
        return kinds, ats, described

    def changed_at(self, name):
        return self.at.get(name)

    def removed_since(self, since, limit=1000):
        names = [
            n
            for n, ec in reversed(self.removed.items())
            if since is None or (ec is not None and ec > since)
        ]
        return names[:limit], len(names)


_BLOCK = 256


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
    (which start at position ``offset``); names IPython's own stay untracked."""
    if not hidden:
        return
    for i in itertools.compress(range(len(keys)), map(hidden.__contains__, keys)):
        tracked[offset + i] = value and name_category(keys[i]) != INTERNAL_NAME


def _turn(names, start, budget):
    """``budget`` names from ``start`` on, wrapping around; the next start."""
    n = len(names)
    if n <= budget:
        return names, 0
    start %= n
    chunk = names[start : start + budget]
    if len(chunk) < budget:
        chunk += names[: budget - len(chunk)]
    return chunk, (start + budget) % n


def describe_changes(old_t, old_fp, new_t, new_fp):
    """Short structural differences, e.g. ``rows 1,000 → 980``; at most MAX_CHANGES."""
    if old_t is not new_t:
        return ("type {} → {}".format(type_name(old_t), type_name(new_t)),)
    if (
        type(old_fp) is not tuple
        or type(new_fp) is not tuple
        or not old_fp
        or old_fp[0] != new_fp[0]
    ):
        return ()
    tag = old_fp[0]
    out = []
    if tag == "len" and old_fp[1] != new_fp[1]:
        out.append("len {:,} → {:,}".format(old_fp[1], new_fp[1]))
    elif tag == "array":
        if old_fp[1] != new_fp[1]:
            out.append("shape {} → {}".format(_shape(old_fp[1]), _shape(new_fp[1])))
        if old_fp[2] != new_fp[2]:
            out.append("dtype {} → {}".format(old_fp[2], new_fp[2]))
    elif tag == "series":
        if old_fp[1] != new_fp[1]:
            out.append("len {:,} → {:,}".format(old_fp[1], new_fp[1]))
        if old_fp[2] != new_fp[2]:
            out.append("dtype {} → {}".format(old_fp[2], new_fp[2]))
    elif tag == "table":
        out.extend(_table_changes(old_fp, new_fp))
    return tuple(out[:MAX_CHANGES])


def _shape(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _table_changes(old_fp, new_fp):
    (old_rows, old_cols), old_names, old_dtypes = old_fp[1], old_fp[2], old_fp[3]
    (new_rows, new_cols), new_names, new_dtypes = new_fp[1], new_fp[2], new_fp[3]
    out = []
    if old_rows != new_rows:
        out.append("rows {:,} → {:,}".format(old_rows, new_rows))
    old_set, new_set = set(old_names), set(new_names)
    for label in new_names:
        if label not in old_set:
            out.append("column {} added".format(_col(label)))
    for label in old_names:
        if label not in new_set:
            out.append("column {} removed".format(_col(label)))
    old_types = dict(zip(old_names, old_dtypes))
    for label, dtype in zip(new_names, new_dtypes):
        before = old_types.get(label)
        if before is not None and before != dtype:
            out.append("column {} dtype {} → {}".format(_col(label), before, dtype))
    if not out and old_cols != new_cols:
        out.append("columns {:,} → {:,}".format(old_cols, new_cols))
    return out


def _col(label):
    text = label if type(label) is str else repr(label)
    return text if len(text) <= 40 else text[:39] + "…"


def register(shell, tracker):
    """Register ``tracker``'s hook, first removing any earlier probe's hook."""
    unregister_all(shell)

    def _jks_post_run_cell(result=None):
        try:
            tracker.post_run_cell(result)
        except Exception:
            pass  # never disturb the user's cell

    setattr(_jks_post_run_cell, HOOK_MARK, True)
    shell.events.register("post_run_cell", _jks_post_run_cell)
    return _jks_post_run_cell


def unregister_all(shell):
    events = getattr(shell, "events", None)
    callbacks = getattr(events, "callbacks", {}).get("post_run_cell", [])
    for cb in list(callbacks):
        if getattr(cb, HOOK_MARK, False):
            try:
                events.unregister("post_run_cell", cb)
            except ValueError:
                pass
