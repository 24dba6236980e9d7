"""The ``digest`` op: what an assistant's prompt needs of a namespace of any size.

A reply bounded by ``limit`` (L): the exact number of visible names; the exact counts of
names new, modified and removed since ``since_ec`` with up to L changed entries (most
recent first); up to L *notable* entries (names outside runs, tables, arrays and mappings
before scalars); and up to L *runs* — names sharing a prefix with consecutive numbers and
the same type (``v0 … v299``), collapsed to one record each.

Cost: everything that looks at every name (runs, notable names, counts per kind) is
cached by the identity of the visible-names list, which ``visibility.Visibility`` keeps
while the namespace's shape is unchanged. After a cell that rebinds one name, a digest
costs the changed names, L cached entries and the bounds of the runs holding a changed
name (at most ``MAX_BOUNDED_RUN`` values each).
"""

import bisect
import heapq
import itertools
import operator
import re

from ..changes.records import MAX_REMOVED
from ..changes.since import changed_since, logged_changes, removed_exactly_since
from ..inspect.base import MISSING, type_name
from ..namespace import visibility
from ..protocol import MAX_LIMIT
from . import findings, snapshot

#: Fewer names with one prefix are listed one by one (a few lines cost little, and each
#: line shows a value).
MIN_RUN = 5
#: ``low``/``high`` only for int/float runs up to this size (C-level min/max).
MAX_BOUNDED_RUN = 10_000
#: Kinds listed before the rest, in this order (the prompt's ranking); never collapsed.
KIND_RANK = {"dataframe": 0, "series": 1, "array": 1, "tensor": 1, "index": 2, "mapping": 2,
             "sequence": 3, "set": 3}
OTHER_RANK = 4
#: More distinct execution counts among the changed names: a heap, not a pass per count.
MAX_LEVELS = 8
_NUMBERED = re.compile(r"(.*?)([0-9]+)\Z", re.S)
_DIGIT_CHARS = "0123456789"
_NO_NUMBER = {"": "-2"}
_BOUNDED_TYPES = (int, float)


def split_name(name):
    """``(prefix, number, digits)`` of a name ending in digits, else None."""
    match = _NUMBERED.match(name)
    if match is None:
        return None
    digits = match.group(2)
    return match.group(1), int(digits), digits


class Shape:
    """What a digest computes once per visible-names list (``names`` identity)."""

    __slots__ = ("bounds", "bounds_ec", "by_prefix", "in_runs", "kinds", "names", "notable",
                 "order", "runs", "types")

    def __init__(self, names, ns, sorter):
        self.names = names
        order = sorter.sort(names, "name", ns)  # cached by the sorter for the same list
        self.order = order
        types = self.types = list(map(type, map(ns.get, order)))
        kind_of_type = {t: visibility.kind_of(t) for t in set(types)}
        kinds = list(map(kind_of_type.__getitem__, types))
        self.kinds = {}
        for t, kind in kind_of_type.items():
            self.kinds[kind] = self.kinds.get(kind, 0) + types.count(t)
        self.runs = _runs(order, types, kinds)  # [start, end, prefix, first_num, last_num, type]
        self.in_runs = sum(r[1] - r[0] for r in self.runs)
        self.by_prefix = {}
        for i, r in enumerate(self.runs):
            self.by_prefix.setdefault(r[2], []).append((r[3], i))
        self.notable = _notable(order, kinds, self.runs)
        self.bounds = {}  # run index -> (low, high)
        self.bounds_ec = None

    def same(self, names, ns):
        """``names`` (another list) holds the same names, bound to values of the same types."""
        if names != self.names:
            return False
        types = map(type, map(ns.get, self.order))
        return all(map(operator.is_, types, self.types))

    def run_of(self, name):
        """The index of the run holding ``name``, or None."""
        parts = split_name(name)
        if parts is None:
            return None
        starts = self.by_prefix.get(parts[0])
        if not starts:
            return None
        at = bisect.bisect_right(starts, (parts[1], 1 << 62)) - 1
        if at < 0:
            return None
        index = starts[at][1]
        return index if parts[1] <= self.runs[index][4] else None


def _runs(order, types, kinds):
    """Maximal runs (in natural order) of at least MIN_RUN names: one prefix, consecutive
    numbers, one type of a kind that is not ranked (tables and arrays stay listed).

    Per name only C-level passes (one regex over the joined names, ``map``, ``compress``);
    the Python loop is over the segments between breaks."""
    n = len(order)
    if n < MIN_RUN:
        return []
    repeat = itertools.repeat
    prefixes = list(map(str.rstrip, order, repeat(_DIGIT_CHARS)))
    digits = list(map(operator.getitem, order, map(slice, map(len, prefixes), repeat(None))))
    nums = list(map(int, map(_NO_NUMBER.get, digits, digits)))  # -2: no number
    ranked = set(KIND_RANK)
    ok = list(map(operator.and_, map(operator.truth, digits),
                  map(operator.not_, map(ranked.__contains__, kinds))))
    after = itertools.islice
    joins = map(
        all,
        zip(
            map(operator.eq, after(prefixes, 1, None), prefixes),
            map(operator.is_, after(types, 1, None), types),
            map(operator.eq, after(nums, 1, None), map(operator.add, nums, itertools.repeat(1))),
            after(ok, 1, None),
            ok,
        ),
    )
    breaks = [0, *itertools.compress(range(1, n), map(operator.not_, joins)), n]
    runs = []
    for start, end in zip(breaks, after(breaks, 1, None)):
        if end - start >= MIN_RUN and ok[start]:
            runs.append([start, end, prefixes[start], nums[start], nums[end - 1], types[start]])
    return runs


def _notable(order, kinds, runs):
    """Up to MAX_LIMIT names outside runs, ranked kinds first, natural order within."""
    cap = MAX_LIMIT
    outside = bytearray(b"\x01") * len(order)
    for start, end, *_ in runs:
        outside[start:end] = bytes(end - start)
    names = list(itertools.compress(order, outside))
    ranks = list(map(KIND_RANK.get, itertools.compress(kinds, outside),
                     itertools.repeat(OTHER_RANK)))
    out = []
    for rank in range(OTHER_RANK + 1):
        if len(out) >= cap:
            break
        chosen = itertools.compress(names, map(operator.eq, ranks, itertools.repeat(rank)))
        out.extend(itertools.islice(chosen, cap - len(out)))
    return out


def _shape(state, names, ns):
    shape = getattr(state, "digest_shape", None)
    if shape is not None and shape.names is not names and shape.same(names, ns):
        shape.names = names  # a list recomputed equal: C-level checks, no Python per name
    if shape is None or shape.names is not names:
        shape = Shape(names, ns, state.sorter)
        state.digest_shape = shape
    return shape


#: Changed variables whose timelines a digest carries, and entries each.
TIMELINE_NAMES = 10
TIMELINE_ENTRIES = 5


def _timelines(tracker, changed):
    """The last entries of the first changed names' timelines (for the prompt's line
    "sales: rows 100,000 → 95,991 at [9]; column revenue added at [11]")."""
    if tracker is None:
        return {}
    timeline = tracker.records.timeline
    out = {}
    for name in changed[:TIMELINE_NAMES]:
        entries, _total, _complete = timeline.of(name, TIMELINE_ENTRIES)
        if entries:
            out[name] = entries
    return out


def take(state, fields, ns, hidden, tracker):
    """The ``digest`` op (``variables`` is a ``snapshot.Fragments``)."""
    limit, include = fields["limit"], fields["include"]
    names = state.visibility.names(ns, include, hidden, tracker)
    shape = _shape(state, names, ns)
    since_ec = fields["since_ec"]
    since = tracker.resolve_since(since_ec) if tracker is not None else since_ec
    names_of = _Names(state.visibility, ns, hidden, names, include)
    changed, counts = _changed(names_of, tracker, since, ns, shape.order, limit)
    listed = set(changed)
    pinned = [n for n in _pinned(fields["pinned"], ns, hidden, include, limit)
              if n not in listed]
    shown = listed.union(pinned)
    notable = []
    for name in shape.notable:
        if len(notable) >= limit:
            break
        if name not in shown:
            notable.append(name)
    variables = snapshot.page_fragments(state.cache, changed + pinned + notable, ns, fields,
                                        tracker, since)
    if len(state.cache.entries) > len(names) + 1000:
        state.cache.prune(ns)
    runs, unlisted = _listed_runs(shape, ns, tracker, names_of, limit)
    counts["listed"] = len(changed)
    return {
        "total": len(names),
        "findings": findings.clauses(state, changed + pinned + notable, ns, hidden, tracker),
        "timelines": _timelines(tracker, changed),
        "variables": variables,
        "changed": counts,
        "notable": len(notable),
        "notable_total": len(names) - shape.in_runs,
        "runs": runs,
        "runs_total": len(shape.runs),
        "names_in_runs": shape.in_runs,
        "names_in_unlisted_runs": unlisted,
        "kinds": dict(shape.kinds),
    }


def _pinned(names, ns, hidden, include, limit):
    """The visible names of ``names`` (the user's annotated variables), at most ``limit``."""
    out = []
    for name in names[:limit]:
        value = ns.get(name, MISSING)
        if value is MISSING or visibility.is_hidden(name, value, hidden):
            continue
        category = visibility.name_category(name)
        group = visibility.GROUP_OF_KIND.get(visibility.kind_of(type(value)))
        if category == visibility.INTERNAL_NAME or (
                category == visibility.PRIVATE and "private" not in include) or (
                group is not None and group not in include):
            continue
        out.append(name)
    return out


def _changed(names_of, tracker, since, ns, order, limit):
    """Up to ``limit`` changed names (most recent first, then natural order) and the exact
    counts."""
    counts = {"new": 0, "modified": 0, "removed": 0, "removed_names": [],
              "removed_exact": True}
    if tracker is None or since is None:
        return [], counts
    # As many as there are: exact counts cost the changed names, never the unchanged ones.
    changed = changed_names(names_of, tracker, since)
    if len(changed) > limit:
        counts["new"] = _count_new(tracker, changed, since)
        counts["modified"] = len(changed) - counts["new"]
        changed = _most_recent(tracker, changed, order, limit)
    if changed:
        kinds, _, _ = tracker.change_of_many(changed, [ns.get(n, MISSING) for n in changed],
                                             since)
        if len(changed) <= limit and counts["new"] == 0:
            counts["new"], counts["modified"] = kinds.count("new"), kinds.count("modified")
    removed = removed_exactly_since(tracker, since, MAX_REMOVED)
    if removed is None:  # older removals were dropped from the tracker's bounded list
        removed = tracker.removed_since(since, MAX_REMOVED)
        counts["removed_exact"] = False
    counts["removed_names"] = list(removed[0][:limit])
    counts["removed"] = removed[1]
    return changed, counts


class _Names:
    """The visible names and how they were chosen (what a change-log query needs)."""

    __slots__ = ("hidden", "include", "names", "ns", "visibility")

    def __init__(self, visibility, ns, hidden, names, include):
        self.visibility, self.ns, self.hidden, self.names = visibility, ns, hidden, names
        self.include = include


def changed_names(names_of, tracker, since):
    """Every visible name bound or changed after execution ``since``: from the tracker's
    change log when there is one (the cost of the changes), else one look per name."""
    if getattr(tracker, "change_log", None) is not None:
        logged = logged_changes(names_of.visibility, names_of.ns, names_of.hidden,
                                         tracker, since, max(1, len(names_of.names)),
                                         names_of.include)
        if logged is not None:
            return logged[0]  # the listed ones (not those that left the list)
    names = names_of.names
    return changed_since(tracker, since, names, max(1, len(names))) or []


def _count_new(tracker, changed, since):
    """How many of ``changed`` (bound or changed after ``since``) are new: first seen after
    ``since`` or not recorded yet (as ``NameRecords.change_of_many`` says). C-level passes."""
    records = tracker.records
    first = map(records.first_seen.get, changed, itertools.repeat(-1))
    later = map(operator.lt, itertools.repeat(since), first)
    unknown = map(operator.not_, map(records.value_id.__contains__, changed))
    return sum(map(operator.or_, later, unknown))


def _most_recent(tracker, changed, order, limit):
    """The ``limit`` names of ``changed`` changed last, in natural order within a cell."""
    ats = list(map(tracker.changed_at, changed))
    levels = sorted(set(ats), key=lambda at: -(at or 0))
    if len(levels) > MAX_LEVELS:
        key = visibility.natural_key
        recent = heapq.nsmallest(limit, zip(ats, changed),
                                 key=lambda p: (-(p[0] or 0), key(p[1])))
        return [n for _, n in recent]
    picked = []
    for level in levels:
        group = set(itertools.compress(changed, map(operator.eq, ats, itertools.repeat(level))))
        in_order = itertools.compress(order, map(group.__contains__, order))
        picked.extend(itertools.islice(in_order, limit - len(picked)))
        if len(picked) >= limit:
            break
    return picked


def _listed_runs(shape, ns, tracker, names_of, limit):
    """Up to ``limit`` runs (the largest, in natural order) as records, and how many names
    are in the runs left out."""
    runs = shape.runs
    if len(runs) > limit:
        chosen = sorted(heapq.nlargest(limit, range(len(runs)),
                                       key=lambda i: runs[i][1] - runs[i][0]))
    else:
        chosen = range(len(runs))
    _forget_changed_bounds(shape, tracker, names_of)
    out = []
    listed = 0
    for i in chosen:
        start, end, _prefix, _first, _last, t = runs[i]
        low = high = None
        if t in _BOUNDED_TYPES and end - start <= MAX_BOUNDED_RUN:
            bounds = shape.bounds.get(i)
            if bounds is None:
                values = list(map(ns.get, shape.order[start:end]))
                if list(map(type, values)).count(t) == len(values):  # exact: no user code
                    bounds = shape.bounds[i] = (min(values), max(values))
            if bounds is not None:
                low, high = bounds
        listed += end - start
        out.append({
            "first": shape.order[start],
            "last": shape.order[end - 1],
            "count": end - start,
            "type": type_name(t),
            "kind": visibility.kind_of(t),
            "low": low,
            "high": high,
        })
    return out, shape.in_runs - listed


def _forget_changed_bounds(shape, tracker, names_of):
    """Drop the bounds of runs holding a name rebound since they were computed."""
    if tracker is None:
        shape.bounds.clear()
        return
    ec = tracker.last_ec
    if shape.bounds_ec == ec:
        return
    if shape.bounds and shape.bounds_ec is not None:
        for name in changed_names(names_of, tracker, shape.bounds_ec):
            index = shape.run_of(name)
            if index is not None:
                shape.bounds.pop(index, None)
    elif shape.bounds:
        shape.bounds.clear()
    shape.bounds_ec = ec
