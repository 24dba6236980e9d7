"""Bounded copies of values, and the words for how a value changed since its copy.

The change tracker keeps, per name, a *copy* of what is cheap to keep and worth telling,
taken with the value's deep fingerprint (in the same budget; no user code runs):

* dicts (and ``OrderedDict``, ``defaultdict``, ``Counter``), objects' attributes (their
  ``__dict__``) and named tuples' fields: the length, and the first ``COPY_ITEMS``
  entries, each key and value kept by value when it is a small scalar or a text of at
  most ``COPY_TEXT`` characters, else as its type and id;
* lists, tuples and deques: the length, and the first and the last ``COPY_ITEMS // 2``
  items, kept the same way;
* sets and frozensets: their elements, when they are at most ``COPY_ITEMS`` small scalars
  and short texts.

Two copies that differ mean the value changed (a dict's 7th value, which the fingerprint's
first ids do not see), and :func:`describe` says how, from the copies and the live value
(read with base methods): ``depth 6 → 8``, ``key lr added``, ``keys a, b removed``,
``appended 3``, ``12 items appended``, ``2 items removed from the end``,
``[0] 1 → 9``, ``item 'x' added``, ``attribute lr added``.  A scalar or short text bound
to a name is held by the tracker already: :func:`describe_scalar` gives ``6 → 8``.

Secrets: a value under a key, attribute or field whose name looks like a credential's
reads ``[masked]`` (``password [masked] → [masked]``), every value of a variable whose name
does too, and a text that looks like a credential is masked (``inspect.secrets``).

Bounds: ``COPY_ITEMS`` per copy, at most ``MAX_COPIES`` names with a copy at once
(:class:`Copies`; a copy not kept is counted in ``refused``), at most ``VALUE_BUDGET``
values described in words per cell, each value in at most ``VALUE_TEXT`` characters,
``MAX_NAMED`` keys named per description; what this holds in memory is measured in
docs/performance.md.
"""

import collections
import itertools
import operator

from ..inspect import display
from ..inspect.base import MISSING, Inspector, inspector_for, instance_dict, type_name
from ..inspect.containers import MappingInspector
from ..inspect.objects import FieldsInspector
from ..inspect.secrets import MASK, mask_values, secret_key

#: Entries (or first + last items) a copy keeps of one value.
COPY_ITEMS = 32
#: The longest text a copy keeps by value (a longer one: its type and id).
COPY_TEXT = 64
#: Names with a copy at once, at most (past it, new names get none: ``Copies.refused``).
MAX_COPIES = 2_000
#: Characters of one value in a description (``depth 6 → 8``).
VALUE_TEXT = 40
#: Keys (items, attributes) named in one description before "and N more".
MAX_NAMED = 3
#: Changed values named per copy before "N more … changed".
MAX_VALUES = 3
#: Values described in words per cell at most (scalars and copies alike): a cell that
#: changes 10,000 values describes these, the others are "modified" with their
#: structural changes (len, type, shape …).
VALUE_BUDGET = 32

MAPPING, ATTRIBUTES, FIELDS, SEQUENCE, SET = "mapping", "attributes", "fields", "sequence", "set"
#: Exact types a copy keeps by value (texts up to ``COPY_TEXT`` characters).
SCALARS = frozenset((int, float, complex, bool, type(None)))
TEXTS = frozenset((str, bytes))
KEPT = SCALARS | TEXTS
#: Kept by identity only: what a copy holds for any other value (ints: comparing two
#: never runs user code; the type object itself only names it in a description).
_OPAQUE = ("opaque",)
_compress = itertools.compress
_DICT_KINDS = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)


def _kept(x):
    """``x`` itself when a copy keeps it by value, else ``(id of its type, id, type)``."""
    t = type(x)
    if t in SCALARS or (t in TEXTS and len(x) <= COPY_TEXT):
        return x
    return (id(t), id(x), t)


def _all_kept(items, types):
    """True when every one of ``items`` (of ``types``) is kept by value (C-level)."""
    if not KEPT.issuperset(types):
        return False
    if TEXTS.isdisjoint(types):
        return True
    return max(map(len, _compress(items, map(TEXTS.__contains__, types)))) <= COPY_TEXT


def _keep_all(items):
    """``(kept items, their types)``: a tuple of the items, and the id of their one type
    (the usual case: one int) or a tuple of their types' ids.  Types are compared by
    identity only (a metaclass's ``__eq__`` never runs)."""
    types = tuple(map(type, items))
    kept = tuple(items) if _all_kept(items, types) else tuple(map(_kept, items))
    if not types or all(map(operator.is_, types, itertools.repeat(types[0]))):
        return kept, id(types[0]) if types else 0
    return kept, tuple(map(id, types))


def _type_ids(types, n):
    """The ``n`` type ids a copy's ``types`` stands for."""
    return types if type(types) is tuple else (types,) * n


def _entries(kind, n, keys, values):
    """A mapping-like copy: ``(kind, n, keys, values, value type ids)``; keys not kept by
    value are opaque (never named, never looked up)."""
    key_types = list(map(type, keys))
    if not _all_kept(keys, key_types):
        keys = [k if type(k) in KEPT and _kept(k) is k else _OPAQUE for k in keys]
    kept, types = _keep_all(values)
    return (kind, n, tuple(keys), kept, types)


def _mapping_copy(value, t):
    n = dict.__len__(value)
    if n <= COPY_ITEMS:
        keys, values = list(dict.keys(value)), list(dict.values(value))
    else:
        keys = list(itertools.islice(dict.keys(value), COPY_ITEMS))
        values = list(itertools.islice(dict.values(value), COPY_ITEMS))
    return _entries(MAPPING, n, keys, values)


def _sequence_copy(value, t):
    n = t.__len__(value)
    if n <= COPY_ITEMS:
        kept, types = _keep_all(list(t.__iter__(value)))
        return (SEQUENCE, n, kept, (), types)
    half = COPY_ITEMS // 2
    head = list(itertools.islice(t.__iter__(value), half))
    if t is collections.deque:
        tail = list(itertools.islice(t.__reversed__(value), half))[::-1]
    else:
        tail = list(t.__getitem__(value, slice(n - half, n)))
    kept, types = _keep_all(head + tail)
    return (SEQUENCE, n, kept[:half], kept[half:], types)


def _set_copy(value, t):
    n = t.__len__(value)
    if n > COPY_ITEMS:
        return (SET, n, None)
    items = list(t.__iter__(value))
    return (SET, n, frozenset(items) if _all_kept(items, tuple(map(type, items))) else None)


#: The copy of each exact builtin container type (the usual case: no dispatch).
_COPIERS = {
    dict: _mapping_copy,
    list: _sequence_copy,
    tuple: _sequence_copy,
    collections.deque: _sequence_copy,
    set: _set_copy,
    frozenset: _set_copy,
}


def copy_of(value, t):
    """The bounded copy of ``value`` (of type ``t``), or None when it has none."""
    copier = _COPIERS.get(t)
    if copier is not None:
        return copier(value, t)
    insp = inspector_for(t)
    cls = type(insp)
    if cls is MappingInspector and insp.base is dict and t in _DICT_KINDS:
        return _mapping_copy(value, t)
    if cls is FieldsInspector:
        if insp.tuple_based:
            fields = insp.fields[:COPY_ITEMS]
            values = list(itertools.islice(tuple.__iter__(value), len(fields)))
            return _entries(FIELDS, len(insp.fields), list(fields[: len(values)]), values)
        return _attributes(value)
    if insp.fingerprint.__func__ is Inspector.fingerprint:  # objects read by their __dict__
        return _attributes(value)
    return None


def _attributes(value):
    d = instance_dict(value)
    if type(d) is not dict:
        return None
    keys = list(itertools.islice(dict.keys(d), COPY_ITEMS))
    values = list(itertools.islice(dict.values(d), COPY_ITEMS))
    return _entries(ATTRIBUTES, dict.__len__(d), keys, values)


_PLAIN_IDS = frozenset(map(id, (int, float, complex, bool, type(None), str, bytes)))


def holds_objects(copy):
    """A copy keeps some value by identity that is neither a number nor a text (a
    container or an object, which may hold more); True when there is no copy to tell."""
    if copy is None:
        return True
    if copy[0] == SET:
        return False
    types = copy[-1]
    if type(types) is int:
        return types not in _PLAIN_IDS
    return not _PLAIN_IDS.issuperset(types)


class KeptByName:
    """Something kept per name, for at most ``max_names`` names (past it a new name gets
    nothing, counted in ``refused``): the tracker's copies and samples."""

    def __init__(self, max_names):
        self.by_name = {}
        self.max_names = max_names
        self.refused = 0

    def swap(self, name, new):
        """Keep ``new`` (None: nothing) for ``name``; what was kept before (or None)."""
        by_name = self.by_name
        old = by_name.pop(name, None)
        if new is not None:
            if len(by_name) < self.max_names:
                by_name[name] = new
            else:
                self.refused += 1
        return old

    def drop(self, names):
        """Forget what is kept for ``names`` (any iterable; C-level)."""
        by_name = self.by_name
        if by_name:
            kept = filter(by_name.__contains__, names)
            collections.deque(map(by_name.pop, kept), maxlen=0)


class Copies(KeptByName):
    """The tracker's copies by name: at most ``max_copies`` names (past it a new name gets
    none, counted in ``refused``)."""

    def __init__(self, max_copies=MAX_COPIES):
        KeptByName.__init__(self, max_copies)

    @property
    def max_copies(self):
        return self.max_names

    @max_copies.setter
    def max_copies(self, n):
        self.max_names = n

    def retake(self, name, value, t):
        """``(old, new)``: the copy kept for ``name`` and the one just taken of ``value``
        (kept in its place); either may be None."""
        new = copy_of(value, t)
        return self.swap(name, new), new

    def held_items(self):
        """Values a copy keeps by value, over every copy (for the memory measure)."""
        total = 0
        for copy in self.by_name.values():
            if copy[0] == SET:
                total += len(copy[2] or ())
            elif copy[0] == SEQUENCE:
                total += len(copy[2]) + len(copy[3])
            else:
                total += len(copy[2]) + len(copy[3])
        return total


# --- words ------------------------------------------------------------------------


def describe(old, new, value, secret=False):
    """How ``value`` (whose copy is now ``new``) changed since its copy ``old``: a tuple
    of short texts, empty when the copies do not tell (or are of different kinds).
    ``secret``: the variable's name looks like a credential's (every value masked)."""
    if old is None or new is None or old[0] != new[0] or old == new:
        return ()
    kind = old[0]
    if kind == SEQUENCE:
        return tuple(_sequence_changes(old, new, value, secret))
    if kind == SET:
        return tuple(_set_changes(old, new, secret))
    live = value if kind == MAPPING else instance_dict(value) if kind == ATTRIBUTES else None
    return tuple(_mapping_changes(old, new, live if type(live) in _DICT_KINDS else None, secret))


def describe_scalar(old, new, secret=False):
    """``6 → 8``: a held scalar or short text bound again to another value."""
    return value_text(old, secret) + " → " + value_text(new, secret)


def value_text(x, secret=False):
    """A kept value as a description shows it: bounded, masked for secrets."""
    if secret:
        return MASK
    t = type(x)
    if t is tuple:  # kept by identity: its type
        return "<" + type_name(x[2]) + ">"
    if t is str:
        text = display.text_repr(x, VALUE_TEXT)[0]
    elif t is bytes:
        text = display.bytes_repr(x, VALUE_TEXT)[0]
    elif t is int:
        text = display.int_repr(x, VALUE_TEXT)[0]
    else:
        text = display.cut(repr(x), VALUE_TEXT)[0]
    return mask_values(text)


def key_text(k):
    """A key as a description names it: an identifier as is, else its repr in brackets."""
    if type(k) is str and k.isidentifier():
        return display.cut(k, VALUE_TEXT)[0]
    return "[" + value_text(k) + "]"


def _named(noun, keys, total, verb):
    """``key lr added``, ``keys a, b, c and 2 more removed``."""
    names = [key_text(k) for k in keys[:MAX_NAMED]]
    more = total - len(names)
    listed = ", ".join(names) + (" and {} more".format(display.count(more)) if more > 0 else "")
    return "{}{} {} {}".format(noun, "" if total == 1 else "s", listed, verb)


_NOUNS = {MAPPING: "key", ATTRIBUTES: "attribute", FIELDS: "field"}


def _same(a, ta, b, tb):
    """Two kept values (and their type ids) are the same value."""
    return ta == tb and a == b


def _changed_text(key, a, b, secret):
    """``depth 6 → 8``, ``db changed`` (another object of the same type)."""
    masked = secret or secret_key(key)
    if type(a) is tuple and type(b) is tuple and a[0] == b[0]:
        return key_text(key) + " changed"
    return key_text(key) + " " + value_text(a, masked) + " → " + value_text(b, masked)


def _mapping_changes(old, new, live, secret):
    kind, old_n, old_keys, old_values, old_types = old
    new_n, new_keys, new_values, new_types = new[1:]
    old_types = _type_ids(old_types, len(old_values))
    new_types = _type_ids(new_types, len(new_values))
    before = {k: (v, tv) for k, v, tv in zip(old_keys, old_values, old_types) if k is not _OPAQUE}
    after = {k: (v, tv) for k, v, tv in zip(new_keys, new_values, new_types) if k is not _OPAQUE}
    old_whole, new_whole = old_n <= COPY_ITEMS, new_n <= COPY_ITEMS
    changed, removed = [], []
    for key, (a, ta) in before.items():
        seen = after.get(key, MISSING)
        if seen is MISSING:
            if new_whole or live is None:
                if new_whole:
                    removed.append(key)
                continue
            x = dict.get(live, key, MISSING)  # a kept key: its hash and eq are builtin
            if x is MISSING:
                removed.append(key)
                continue
            seen = (_kept(x), id(type(x)))
        if not _same(a, ta, seen[0], seen[1]):
            changed.append((key, a, seen[0]))
    out = [_changed_text(k, a, b, secret) for k, a, b in changed[:MAX_VALUES]]
    if len(changed) > MAX_VALUES:
        more = len(changed) - MAX_VALUES
        noun = {MAPPING: "value", ATTRIBUTES: "attribute", FIELDS: "field"}[kind]
        out.append("{} more {}{} changed".format(more, noun, "" if more == 1 else "s"))
    noun = _NOUNS[kind]
    if old_whole:
        added = [k for k in after if k not in before]
        total = max(len(added), new_n - old_n + len(removed))
        if total > 0:
            out.append(_named(noun, added, total, "added"))
    if removed:
        out.append(_named(noun, removed, len(removed), "removed"))
    return out


def _sequence_changes(old, new, value, secret):
    _kind, old_n, old_head, old_tail, old_types = old
    new_n, new_head, new_tail, new_types = new[1:]
    old_items = _positions(old_n, old_head, old_tail, old_types)
    new_items = _positions(new_n, new_head, new_tail, new_types)

    def at(p):
        """The new value's item at ``p`` (kept, type id): from its copy, else read."""
        found = new_items.get(p)
        if found is None:
            x = type(value).__getitem__(value, p)  # list/tuple/deque base method
            found = (_kept(x), id(type(x)))
        return found

    def unmoved(shift):
        """Every item the old copy holds is in the new value ``shift`` places later."""
        for p, (a, ta) in old_items.items():
            q = p + shift
            if not 0 <= q < new_n or not _same(a, ta, *at(q)):
                return False
        return True

    grown = new_n - old_n
    if grown > 0 and unmoved(0):
        fresh = [at(p)[0] for p in range(old_n, min(new_n, old_n + MAX_NAMED + 1))]
        if grown <= MAX_NAMED and all(type(x) is not tuple for x in fresh):
            return ["appended " + ", ".join(value_text(x, secret) for x in fresh)]
        return [_items(grown) + " appended"]
    if grown > 0 and unmoved(grown):
        return [_items(grown) + " inserted at the start"]
    if grown < 0:
        gone = -grown
        if all(p >= new_n or _same(a, ta, *at(p)) for p, (a, ta) in old_items.items()):
            return [_items(gone) + " removed from the end"]
        if all(p < gone or _same(a, ta, *at(p - gone)) for p, (a, ta) in old_items.items()):
            return [_items(gone) + " removed from the start"]
        return []
    if grown == 0:  # the same length: the items that differ
        changed = []
        for p, (a, ta) in old_items.items():
            b, tb = at(p)
            if not _same(a, ta, b, tb):
                changed.append((p, a, b))
        out = ["[{}] {}".format(p, _item_change(a, b, secret)) for p, a, b in changed[:MAX_VALUES]]
        if len(changed) > MAX_VALUES:
            more = len(changed) - MAX_VALUES
            out.append("{} more item{} changed".format(more, "" if more == 1 else "s"))
        return out
    return []


def _item_change(a, b, secret):
    if type(a) is tuple and type(b) is tuple and a[0] == b[0]:
        return "changed"
    return value_text(a, secret) + " → " + value_text(b, secret)


def _items(n):
    return "{} item{}".format(display.count(n), "" if n == 1 else "s")


def _positions(n, head, tail, types):
    """position → (kept item, its type id) for the items a sequence copy holds."""
    types = _type_ids(types, len(head) + len(tail))
    out = dict(zip(range(len(head)), zip(head, types)))
    start = n - len(tail)
    out.update(zip(range(start, n), zip(tail, types[len(head) :])))
    return out


def _set_changes(old, new, secret):
    before, after = old[2], new[2]
    if before is None or after is None:
        return []
    out = []
    for verb, items in (("added", after - before), ("removed", before - after)):
        if items:
            ordered = sorted(items, key=_order)
            texts = [value_text(x, secret) for x in ordered[:MAX_NAMED]]
            more = len(ordered) - len(texts)
            listed = ", ".join(texts) + (" and {} more".format(more) if more > 0 else "")
            out.append("item{} {} {}".format("" if len(ordered) == 1 else "s", listed, verb))
    return out


def _order(x):
    """A stable order for kept set elements: by type name, then by repr."""
    return (type(x).__name__, repr(x))

