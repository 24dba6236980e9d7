"""The summaries of a namespace's variables, kept per name while each value is unchanged.

The change tracker (``changes.tracker``) follows the same rule for what is *held* (small
immutable values, compared by identity and value): ``HELD_TYPES``, ``HELD_TEXT``,
``MAX_HELD_TEXT`` are defined here once.
"""

import collections
import itertools
import weakref

from .. import guard
from .base import inspector_for
from .fragments import encode_fragments
from .summary import build

#: Variables whose summaries are kept, at most (past it the cache starts again).
MAX_CACHE = 20_000
#: Small immutable values: the cache holds them, so "the same object" is exact and cheap.
HELD_TYPES = frozenset((int, float, complex, bool, type(None)))
HELD_TEXT = frozenset((str, bytes))
MAX_HELD_TEXT = 4096
_NOT_HELD = object()
#: Types whose instances cannot be weakly referenced (list, dict, tuple …), learnt once.
_NO_WEAKREF = {}
# Cache entry slots (a list per name, not an object: fewer allocations at 10,000 names):
# weak reference, id, type, fingerprint, preview limit, summary, its JSON fragment, the
# value itself when held; then the change and changed_at last sent and the whole JSON
# object sent with them (filled by ops.snapshot.page_fragments, which reads these names too).
REF, ID, TYPE, FP, LIMIT, SUMMARY, FRAGMENT, HELD, SENT_CHANGE, SENT_AT, SENT = range(11)


class SummaryCache:
    """name → summary, reused while (the object, its cheap fingerprint, preview size) are
    unchanged.  Small immutable values are held by the entry, so an identical object is
    the same value and nothing else is checked.  Other objects are held weakly when their
    type allows; otherwise their id plus a value-aware fingerprint (ints, strs … include
    their value) guards against id reuse."""

    def __init__(self, max_entries=MAX_CACHE):
        self.max_entries = max_entries
        self.entries = {}
        self.hits = 0
        self.misses = 0

    def get(self, name, v, limit, session):
        return self.entry(name, v, limit, session)[SUMMARY]

    def fragments(self, entries):
        """Fill in the JSON fragments of ``entries`` (cached with them)."""
        todo = [e for e in entries if e[FRAGMENT] is None]
        if todo:
            for entry, fragment in zip(todo, encode_fragments([e[SUMMARY] for e in todo])):
                entry[FRAGMENT] = fragment
        return [e[FRAGMENT] for e in entries]

    def entry(self, name, v, limit, session, observe=None):
        """The cache entry of ``name`` bound to ``v``; ``observe(name, v, type, fp)``
        receives the fingerprint of every value that needs one (the change tracker) and
        returns a token (or None) that must also be the same for the entry to be reused."""
        entry = self.entries.get(name)
        if entry is not None and entry[HELD] is v and entry[LIMIT] == limit:
            self.hits += 1
            return entry
        t = type(v)
        if t in HELD_TYPES or (t in HELD_TEXT and len(v) <= MAX_HELD_TEXT):
            fp = None
            held = v
        else:
            held = _NOT_HELD
            try:
                fp = inspector_for(t).fingerprint(v)
            except BaseException as exc:
                guard.check(exc)
                fp = ("error",)
            if observe is not None:
                token = observe(name, v, t, fp)  # content changes seen, what a preview shows
                if token is not None:
                    fp = (fp, token)
            if entry is not None:
                ref, ident, et, efp, elimit = entry[:5]
                if (
                    ident == id(v)
                    and et is t
                    and elimit == limit
                    and efp == fp
                    and (ref is None or ref() is v)
                ):
                    self.hits += 1
                    return entry
        self.misses += 1
        summary = build(name, v, limit, session)
        ref = None
        if held is _NOT_HELD and _NO_WEAKREF.get(t) is None:
            try:
                ref = weakref.ref(v)
            except TypeError:
                if len(_NO_WEAKREF) < 4096:
                    _NO_WEAKREF[t] = True
        if len(self.entries) >= self.max_entries:
            self.entries.clear()
        entry = [ref, id(v), t, fp, limit, summary, None, held, None, None, None]
        self.entries[name] = entry
        return entry

    def discard(self, name):
        self.entries.pop(name, None)

    def discard_many(self, names):
        """Forget ``names`` (the change tracker calls this with what changed)."""
        entries = self.entries
        if entries and names:
            collections.deque(map(entries.pop, names, itertools.repeat(None)), maxlen=0)

    def prune(self, ns):
        """Drop entries for names that are gone."""
        if len(self.entries) > 0:
            gone = [n for n in self.entries if n not in ns]
            for n in gone:
                del self.entries[n]
