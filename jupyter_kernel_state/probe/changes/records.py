"""The change tracker's per-name records, and how a batch of rebound names is recorded.

Records are columns: one dict per fact, keyed by name, so that a cell rebinding
thousands of names is recorded with C-level ``map``/``compress``/``dict.update`` calls.
Python runs per name only where something is described (a type or len change, a deep
fingerprint and its bounded copy, a held scalar bound to another value: at most
``copies.VALUE_BUDGET`` of those per cell).  What the facts guarantee is told in
``tracker``'s module docstring.
"""

import collections
import itertools
import operator

from ..inspect.base import MISSING
from ..inspect.cache import HELD_TEXT, HELD_TYPES, MAX_HELD_TEXT
from ..inspect.secrets import secret_name
from ..inspect.static import LEN_TYPES
from .contents import Contents
from .copies import VALUE_BUDGET, Copies, describe, describe_scalar
from .fingerprints import MAX_CHANGES, describe_changes, describe_len, describe_type, fingerprint
from .logs import MODIFIED, NEW, REMOVED, ChangeLog, Timeline
from .samples import Samples
from .samples import describe as describe_nested
from .table_words import is_provisional

#: Kept names that disappeared, at most (the oldest are forgotten first).
MAX_REMOVED = 1000
#: Small immutable values are held (so their id cannot be reused) and compared by value:
#: the same rule as the summary cache's (``inspect.cache``).
HELD_OR_TEXT = HELD_TYPES | HELD_TEXT
#: ``LEN_TYPES`` (exact types whose ``len`` is C code: a fact compared every cell) whose
#: len change is described ``len a → b`` (not text).
LEN_DESCRIBED = LEN_TYPES - HELD_TEXT

_consume = collections.deque(maxlen=0).extend
_repeat = itertools.repeat
_compress = itertools.compress


def held_flags(values, types):
    """Per value: held (HELD_TYPES, or str/bytes up to MAX_HELD_TEXT), C-level."""
    flags = list(map(HELD_OR_TEXT.__contains__, types))
    text = list(map(HELD_TEXT.__contains__, types))
    if any(text) and max(map(len, _compress(values, text))) > MAX_HELD_TEXT:
        positions = _compress(range(len(types)), text)
        sizes = map(len, _compress(values, text))
        too_long = map(operator.gt, sizes, _repeat(MAX_HELD_TEXT))
        for i in _compress(positions, too_long):
            flags[i] = False  # long text is not held
    return flags


def _pop_all(column, names):
    if column:
        _consume(map(column.pop, names, _repeat(None)))


class DeepBudget:
    """The deep fingerprints (each with its copy) one scan may still take (``left``) and
    has taken (``taken``), and the values it may still describe in words (``words``)."""

    __slots__ = ("left", "taken", "words")

    def __init__(self, size, words=VALUE_BUDGET):
        self.left = size
        self.taken = 0
        self.words = words

    def take(self):
        """True, and one fewer left, when one more fingerprint may be taken."""
        if self.left <= 0:
            return False
        self.left -= 1
        self.taken += 1
        return True

    def word(self):
        """True, and one fewer left, when one more value may be described in words."""
        if self.words <= 0:
            return False
        self.words -= 1
        return True


class _Batch:
    """Names recorded together (aligned lists) and what the steps found out about them."""

    __slots__ = (
        "changed", "changed_names", "descriptions", "held", "held_names", "ids", "names",
        "new_names", "old_types", "retyped", "same_type", "types", "values",
    )  # fmt: skip

    def __init__(self, names, values, ids):
        self.names, self.values, self.ids = names, values, ids
        self.descriptions = {}  # name -> the changes described at this cell


class NameRecords:
    """What the tracker knows per tracked name (visible-able: not internal, not hidden
    when first seen), and the names that disappeared."""

    def __init__(self):
        # every tracked name is in these four
        self.value_id = {}  # id of the value at the last record
        self.value_type = {}  # type of the value
        self.first_seen = {}  # execution count the name was first seen at
        self.changed_at = {}  # execution count the name was last bound or changed at
        # only the names a fact applies to
        self.changes = {}  # descriptions of that change ("len 3 → 4"), when there are any
        self.held_value = {}  # the value itself, when held (small immutable values)
        self.lengths = {}  # len of LEN_TYPES values not held (same key order as length_types)
        self.length_types = {}  # their type (to see another object under a reused id)
        self.deep_candidates = {}  # other values to deep-fingerprint in turn (an ordered set)
        self.fingerprints = {}  # deep fingerprint of non-held values, once taken
        self.verified_at = {}  # execution count at which that fingerprint was taken
        self.copies = Copies()  # bounded copies of non-held values, taken with fingerprints
        self.samples = Samples()  # sampled nested content of containers, taken with copies
        self.contents = Contents()  # content fingerprints of tables and arrays
        self.versions = {}  # name -> content changes seen (the summary cache's token)
        self.content_words = {}  # name -> (execution, what content comparisons said at it)
        self.removed = {}  # name -> execution count it disappeared at (oldest first)
        self.log = ChangeLog()  # the names stamped at each execution count (bounded)
        self.timeline = Timeline()  # the same, with kinds and descriptions (bounded)
        self._facts = (
            self.value_id, self.value_type, self.first_seen, self.changed_at, self.changes,
            self.held_value, self.lengths, self.length_types, self.deep_candidates,
            self.fingerprints, self.verified_at,
        )  # fmt: skip

    # -- recording ---------------------------------------------------------------------

    def record(self, names, values, ids, ec, budget):
        """Record rebound and new names at execution count ``ec``.

        Returns ``(shape_changed, unheld_changed)``: True when a name appeared or changed
        type, and the names of non-held values that changed (for the summary cache).
        Afterwards each name's id, type, held value or len, and change stamp are current;
        deep fingerprints are taken while ``budget`` allows (the others in turn)."""
        b = _Batch(names, values, ids)
        self._classify_types(b)
        self._find_changed(b)
        self._describe_shallow(b)
        self._describe_held(b, budget)
        self._stamp(b, ec)
        self._hold(b)
        self.contents.bound(b.names, b.values, b.types, ec)
        unheld_changed = []
        if len(b.held_names) < len(names):
            unheld = list(_compress(range(len(names)), map(operator.not_, b.held)))
            self._record_unheld(b, unheld, ec, budget)
            if b.changed is None:
                unheld_changed = list(map(names.__getitem__, unheld))
            else:
                unheld_changed = [names[i] for i in unheld if b.changed[i]]
        changes = self.changes
        described = {name: d[:MAX_CHANGES] for name, d in b.descriptions.items() if d}
        changes.update(described)
        self.timeline.describe(ec, described)
        return bool(b.new_names) or bool(b.retyped), unheld_changed

    def _classify_types(self, b):
        """Types, old types, new names and retyped positions; ``value_type`` is current."""
        b.types = types = list(map(type, b.values))
        b.old_types = old_types = list(map(self.value_type.get, b.names))
        b.same_type = same_type = list(map(operator.is_, old_types, types))
        if all(same_type):  # the usual cell: every name known, types unchanged
            b.new_names, b.retyped = [], []
            return
        is_new = list(map(operator.is_, old_types, _repeat(None)))
        b.new_names = list(_compress(b.names, is_new))
        other_type = list(map(operator.not_, same_type))
        b.retyped = [i for i in _compress(range(len(types)), other_type) if not is_new[i]]
        self.value_type.update(zip(_compress(b.names, other_type), _compress(types, other_type)))

    def _find_changed(self, b):
        """``b.held`` flags; ``b.changed``: per position, bound to a different value (None:
        all are), new names excluded; an equal held value bound again is no change."""
        b.held = held = held_flags(b.values, b.types)
        everyone = range(len(b.names))
        fresh = b.retyped or b.new_names
        mask = list(map(operator.and_, b.same_type, held)) if fresh else held
        unchanged = ()
        if any(mask):
            olds = map(self.held_value.get, _compress(b.names, mask))
            equal = list(map(operator.eq, olds, _compress(b.values, mask)))
            if any(equal):
                unchanged = set(_compress(_compress(everyone, mask), equal))
        if not b.new_names and not unchanged:
            b.changed, b.changed_names = None, b.names
            return
        b.changed = changed = [False] * len(held) if b.new_names else [True] * len(held)
        if b.new_names:
            known = itertools.chain(_compress(everyone, b.same_type), b.retyped)
            _consume(map(changed.__setitem__, known, _repeat(True)))
        _consume(map(changed.__setitem__, unchanged, _repeat(False)))
        b.changed_names = list(_compress(b.names, changed))

    def _describe_shallow(self, b):
        """Describe type changes and len changes of the same type (``lengths`` is read
        before ``_record_unheld`` updates it)."""
        names, types, descriptions = b.names, b.types, b.descriptions
        for i in b.retyped:
            descriptions[names[i]] = (describe_type(b.old_types[i], types[i]),)
        lengths = self.lengths
        if not lengths:
            return
        sized = map(LEN_DESCRIBED.__contains__, types)
        if b.retyped or b.changed is not None:
            same = b.same_type if b.changed is None else map(operator.and_, b.changed, b.same_type)
            sized = map(operator.and_, same, sized)
        sized = list(sized)
        if not any(sized):
            return
        before = list(map(lengths.get, _compress(names, sized)))
        after = list(map(len, _compress(b.values, sized)))  # exact builtin types: C code
        if before != after:
            for i, old, new in zip(_compress(range(len(names)), sized), before, after):
                if old is not None and new != old:
                    descriptions[names[i]] = (describe_len(old, new),)

    def _describe_held(self, b, budget):
        """Held values bound to another held value: ``6 → 8`` (after a type change's
        words), while ``budget`` has words (``held_value`` is read before ``_hold``
        updates it)."""
        held_value = self.held_value
        if not held_value or budget.words <= 0 or not any(b.held):
            return
        changed = b.held if b.changed is None else map(operator.and_, b.held, b.changed)
        positions = itertools.islice(_compress(range(len(b.names)), changed), budget.words)
        names, values, descriptions = b.names, b.values, b.descriptions
        for i in positions:
            name = names[i]
            old = held_value.get(name, MISSING)
            if old is MISSING or not budget.word():
                continue
            text = describe_scalar(old, values[i], secret_name(name))
            descriptions[name] = (*descriptions.get(name, ()), text)[:MAX_CHANGES]

    def _stamp(self, b, ec):
        """``value_id`` of every name; ``first_seen`` and ``changed_at`` of new names,
        ``changed_at`` of changed ones, whose earlier ``changes`` are dropped."""
        self.value_id.update(zip(b.names, b.ids))
        if b.new_names:
            self.first_seen.update(zip(b.new_names, _repeat(ec)))
            self.changed_at.update(zip(b.new_names, _repeat(ec)))
            self.log.add(ec, b.new_names)
            self.timeline.add(ec, NEW, b.new_names)
            _pop_all(self.removed, b.new_names)
        changed_names, changes = b.changed_names, self.changes
        if not changed_names:
            return
        self.changed_at.update(zip(changed_names, _repeat(ec)))
        self.log.add(ec, changed_names)
        self.timeline.add(ec, MODIFIED, changed_names)
        if not changes:
            return
        if len(changed_names) <= len(changes):
            _consume(map(changes.pop, changed_names, _repeat(None)))
        else:  # changes is usually the smaller
            now = set(changed_names)
            for name in [n for n in changes if n in now]:
                del changes[name]

    def _hold(self, b):
        """``held_value`` of held names; a name newly held loses its non-held facts."""
        b.held_names = held_names = list(_compress(b.names, b.held))
        if not held_names:
            return
        held_value = self.held_value
        before = len(held_value)
        newly = ()
        if not all(b.same_type) or len(held_names) > before:
            absent = map(operator.not_, map(held_value.__contains__, held_names))
            newly = list(_compress(held_names, absent))
        held_value.update(zip(held_names, _compress(b.values, b.held)))
        if not newly and len(held_value) != before:  # a long text became short
            newly = [n for n in held_names if n in self.lengths or n in self.deep_candidates]
        if newly:
            for column in self._unheld_facts():
                _pop_all(column, newly)
            self.copies.drop(newly)
            self.samples.drop(newly)

    def _unheld_facts(self):
        return (self.lengths, self.length_types, self.deep_candidates, self.fingerprints,
                self.verified_at)  # fmt: skip

    def _record_unheld(self, b, unheld, ec, budget):
        """Non-held values (positions ``unheld``): lens of LEN_TYPES values, deep
        fingerprints of the others and of fresh containers while ``budget`` allows."""
        names, types = b.names, b.types
        unheld_names = list(map(names.__getitem__, unheld))
        _pop_all(self.held_value, unheld_names)
        len_typed = list(map(LEN_TYPES.__contains__, map(types.__getitem__, unheld)))
        sized = list(_compress(unheld, len_typed))
        if sized:
            # lengths and length_types get the same inserts and deletes: orders stay aligned
            sized_names = list(_compress(unheld_names, len_typed))
            self.lengths.update(zip(sized_names, map(len, map(b.values.__getitem__, sized))))
            self.length_types.update(zip(sized_names, map(types.__getitem__, sized)))
            _pop_all(self.deep_candidates, sized_names)  # a new object: a baseline in turn
            _pop_all(self.fingerprints, sized_names)
        self._fingerprint_objects(b, _compress(unheld, map(operator.not_, len_typed)), ec, budget)
        for at, i in enumerate(sized):  # fresh containers' baselines, while the budget allows
            if not budget.take():
                stale = list(map(names.__getitem__, sized[at:]))
                self.copies.drop(stale)  # stale: baselines in turn
                self.samples.drop(stale)
                break
            name, value, t = names[i], b.values[i], types[i]
            self.fingerprints[name] = fingerprint(value, t)
            self.verified_at[name] = ec
            self._describe_copy(b, i, name, value, t, budget)

    def _describe_copy(self, b, i, name, value, t, budget):
        """Retake ``name``'s copy; a value bound anew to the same type is described
        (while ``budget`` has words)."""
        old, new = self.copies.retake(name, value, t)
        old_sample, new_sample = self.samples.retake(name, value, t, new)
        copy_changed = old is not None and old != new
        sample_changed = old_sample is not None and new_sample is not None \
            and old_sample != new_sample
        if b.old_types[i] is t and (copy_changed or sample_changed) and budget.word():
            secret = secret_name(name)
            words = describe(old, new, value, secret) if copy_changed else ()
            words += describe_nested(old_sample, new_sample, secret)
            if words:
                before = b.descriptions.get(name, ())
                b.descriptions[name] = (*before, *words)[:MAX_CHANGES]

    def _fingerprint_objects(self, b, positions, ec, budget):
        """Values that are neither held nor LEN_TYPES become deep candidates; those the
        budget allows are fingerprinted now, and a change of the same type described."""
        lengths, length_types, candidates = self.lengths, self.length_types, self.deep_candidates
        fingerprints, verified_at = self.fingerprints, self.verified_at
        descriptions = b.descriptions
        for i in positions:
            name, t = b.names[i], b.types[i]
            if name in lengths:
                del lengths[name], length_types[name]
            candidates[name] = None
            old_fp = fingerprints.pop(name, MISSING)
            if not budget.take():
                self.copies.drop([name])
                self.samples.drop([name])
                continue  # fingerprinted in turn (no changes described for it)
            fp = fingerprint(b.values[i], t)
            if fp is None:
                # nothing to re-check (callables, modules, classes, named tuples): a
                # named tuple's copy still tells its next rebinding
                del candidates[name]
            else:
                fingerprints[name] = fp
                verified_at[name] = ec
                if old_fp is not MISSING and b.old_types[i] is t and name not in descriptions:
                    descriptions[name] = describe_changes(t, old_fp, t, fp)
            self._describe_copy(b, i, name, b.values[i], t, budget)

    def mark_changed(self, name, ec, changes):
        """``name`` changed at ``ec`` as ``changes`` describes (possibly not at all)."""
        changes = tuple(changes)[:MAX_CHANGES]
        self.versions[name] = self.versions.get(name, 0) + 1
        self.changed_at[name] = ec
        self.log.add(ec, [name])
        self.timeline.add(ec, MODIFIED, [name])
        if changes:
            self.timeline.describe(ec, {name: changes})
        if changes:
            self.changes[name] = changes
        else:
            self.changes.pop(name, None)

    def add_words(self, name, ec, words):
        """What the content comparisons found for ``name`` at ``ec`` (all of it so far:
        it replaces what they said before at ``ec``, a provisional "not compared in
        time" included), after the words ``ec`` stamped otherwise; a change of its own
        when ``ec`` stamped none."""
        self.versions[name] = self.versions.get(name, 0) + 1
        said = self.content_words.get(name)
        self.content_words[name] = (ec, tuple(words))
        if self.changed_at.get(name) != ec or ec is None:
            self.mark_changed(name, ec, words)
            return
        before = said[1] if said is not None and said[0] == ec else ()
        kept = [w for w in self.changes.get(name, ()) if w not in before and not is_provisional(w)]
        merged = tuple(dict.fromkeys(kept + list(words)))[:MAX_CHANGES]
        if merged:
            self.changes[name] = merged
        else:
            self.changes.pop(name, None)
        self.timeline.describe(ec, {name: merged})

    def room(self, name, ec):
        """Words the content comparisons of ``name`` may give at ``ec`` (after the
        others already stamped)."""
        if self.changed_at.get(name) != ec:
            return MAX_CHANGES
        said = self.content_words.get(name)
        before = said[1] if said is not None and said[0] == ec else ()
        kept = [w for w in self.changes.get(name, ()) if w not in before and not is_provisional(w)]
        return max(1, MAX_CHANGES - len(kept))

    def forget_gone(self, keys, ec):
        """Forget the tracked names not among ``keys``, noting them as removed at ``ec``;
        returns them (in the order they were recorded)."""
        gone = list(itertools.filterfalse(set(keys).__contains__, self.value_id))
        removed = self.removed
        for column in self._facts:
            _pop_all(column, gone)
        self.copies.drop(gone)
        self.samples.drop(gone)
        self.contents.drop(gone)
        _pop_all(self.versions, gone)
        _pop_all(self.content_words, gone)
        _pop_all(removed, gone)
        removed.update(zip(gone, _repeat(ec)))
        self.timeline.add(ec, REMOVED, gone)
        while len(removed) > MAX_REMOVED:
            del removed[next(iter(removed))]
        return gone

    # -- queries -----------------------------------------------------------------------

    def change_of_many(self, names, values, since):
        """Per name: ``"new"``, ``"modified"`` or ``"unchanged"`` relative to ``since``, when
        it changed, and its changes (a tuple, empty when none): three lists."""
        value_id, first_seen, changes = self.value_id.get, self.first_seen.get, self.changes
        ats = list(map(self.changed_at.get, names))
        kinds = []
        described = [()] * len(names)
        append = kinds.append
        for i, name, value, changed_at in zip(itertools.count(), names, values, ats):
            ident = value_id(name)
            if ident is None:
                append("new")
            elif ident != id(value):
                append("modified")  # rebound outside a cell
            elif since is None:
                append("unchanged")
            else:
                first = first_seen(name)
                if first is not None and first > since:
                    append("new")
                elif changed_at is not None and changed_at > since:
                    append("modified")
                    described[i] = changes.get(name, ())
                else:
                    append("unchanged")
        return kinds, ats, described

    def removed_since(self, since, limit):
        """The names removed after ``since`` (all when None), newest first: up to
        ``limit`` of them, and how many there are."""
        names = [
            n
            for n, ec in reversed(self.removed.items())
            if since is None or (ec is not None and ec > since)
        ]
        return names[:limit], len(names)
