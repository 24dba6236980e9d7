"""The ``snapshot`` op: which names, which page (or which changes), and their fragments.

A snapshot lists the visible names (``namespace.Visibility``), orders them
(``ordering.Sorter``) and returns one page of JSON fragments (``summary.SummaryCache``).
With ``delta`` and ``since_ec`` it returns instead every visible entry bound or changed
after ``since_ec`` (not paged) and the names removed since, when the change tracker can
say so exactly; otherwise a normal page with ``"delta": false``.
"""

import fnmatch
import json
import re

from . import guard, summary
from .inspectors import MISSING, inspector_for
from .namespace import natural_key

DEFAULT_LIMIT = 500
MAX_LIMIT = 10_000
DEFAULT_PREVIEW = 200
MAX_PREVIEW = 10_000
DEFAULT_GUARD_MS = 100
MAX_GUARD_MS = 5_000
#: Total time for user code in one call: the server's deadline is 5 s.
DEFAULT_BUDGET_MS = 2_000
MAX_FILTER_CHARS = 200
INCLUDE_GROUPS = frozenset(("private", "modules", "callables", "classes"))
SORTS = frozenset(("name", "type", "size", "changed", "memory"))
SORT_DIRECTIONS = ("", "asc", "desc")


def valid_sort(how):
    """``key`` or ``key:asc|desc`` with a known key."""
    key, _, direction = how.partition(":")
    return key in SORTS and direction in SORT_DIRECTIONS
_UNCHANGED_TAIL = ',"change":"unchanged","changed_at":null,"changes":[]}'


class Fragments(list):
    """Variables already encoded as JSON objects (spliced into the reply by ``dumps``)."""


class Request:
    """A checked snapshot request (``ValueError`` names the first bad field)."""

    __slots__ = (
        "budget_ms",
        "delta",
        "guard_ms",
        "include",
        "limit",
        "matches",
        "offset",
        "preview",
        "schema",
        "since",
        "sort",
    )

    def __init__(self, request):
        include = request.get("include") or ()
        if type(include) not in (list, tuple) or not INCLUDE_GROUPS.issuperset(include):
            raise ValueError("include")
        self.include = tuple(include)
        self.offset = int_field(request, "offset", 0, 0, 1 << 62)
        self.limit = int_field(request, "limit", DEFAULT_LIMIT, 0, MAX_LIMIT)
        self.preview = int_field(request, "preview_chars", DEFAULT_PREVIEW, 10, MAX_PREVIEW)
        self.guard_ms = int_field(request, "time_guard_ms", DEFAULT_GUARD_MS, 1, MAX_GUARD_MS)
        self.budget_ms = int_field(request, "budget_ms", DEFAULT_BUDGET_MS, 1, 60_000)
        self.sort = request.get("sort") or "name"
        if type(self.sort) is not str or not valid_sort(self.sort):
            raise ValueError("sort")
        self.since = request.get("since_ec")
        if self.since is not None and type(self.since) is not int:
            raise ValueError("since_ec")
        self.delta = request.get("delta", False)
        if type(self.delta) is not bool:
            raise ValueError("delta")
        self.matches = name_filter(request.get("filter"))
        self.schema = request.get("schema", False)
        if type(self.schema) is not bool:
            raise ValueError("schema")


def int_field(request, key, default, low, high):
    value = request.get(key, default)
    if value is None:
        value = default
    if type(value) is not int:
        raise ValueError(key)
    return max(low, min(high, value))


def name_filter(pattern):
    """A case-insensitive glob on names or type names; plain text matches anywhere."""
    if pattern is None or pattern == "":
        return None
    if type(pattern) is not str or len(pattern) > MAX_FILTER_CHARS:
        raise ValueError("filter")
    if not any(c in pattern for c in "*?["):
        pattern = "*" + pattern + "*"
    return re.compile(fnmatch.translate(pattern.lower())).match


def take(state, request, ns, hidden, tracker, max_removed):
    """The snapshot reply for ``request`` (a dict; ``variables`` is a ``Fragments``)."""
    try:
        req = Request(request)
    except ValueError as exc:
        return {"ok": False, "bad_request": True,
                "error": "Invalid snapshot request: {}".format(exc)}
    names = state.visibility.names(ns, req.include, hidden, tracker)
    if req.matches is not None:
        # type() of a value runs no user code; the pattern is data, matched as a glob.
        matches = req.matches
        names = [n for n in names if matches(n.lower()) or matches(type(ns[n]).__name__.lower())]
    since = tracker.resolve_since(req.since) if tracker is not None else req.since
    changes = None
    if req.delta:
        changes = _changes_since(state, ns, hidden, tracker, req, max_removed)
    if changes is not None:
        page, removed, removed_total = changes
    else:
        changed_at = tracker.changed_at if tracker is not None else None
        order = state.sorter.sort(names, req.sort, ns, changed_at)
        page = order[req.offset : req.offset + req.limit]
        removed, removed_total = (
            tracker.removed_since(since, max_removed) if tracker is not None else ([], 0)
        )
    variables = _fragments(state.cache, page, ns, req, tracker, since)
    if len(state.cache.entries) > len(names) + 1000:
        state.cache.prune(ns)
    reply = {
        "total": len(names),
        "variables": variables,
        "removed": removed,
        "removed_total": removed_total,
    }
    if req.schema:
        reply["schema"] = table_columns(page, ns, req)
    if req.delta:
        reply["delta"] = changes is not None
    return reply


def _changes_since(state, ns, hidden, tracker, req, max_removed):
    """``(names changed after since_ec, removed, removed_total)`` for a delta reply, or
    None when it cannot be told exactly (no tracker or since; more than ``limit``
    changed; changes or removals older than the tracker keeps)."""
    if tracker is None or req.since is None:
        return None
    logged = logged_changes(state.visibility, ns, hidden, tracker, req)
    if logged is None:
        return None
    changed, left = logged
    removed = removed_exactly_since(tracker, req.since, max_removed)
    if removed is None:
        return None
    changed.sort(key=natural_key)
    names, total = removed
    if left:  # still bound, no longer listed (now hidden, or no longer matching): gone too
        already = set(names)
        names = names + [n for n in left if n not in already]
        total += len(left)
    return changed, names, total


def logged_changes(visibility, ns, hidden, tracker, req):
    """``(listed, left)``: the names bound or changed after execution ``req.since`` (from
    the tracker's change log: the cost is that of the changes) that the list shows, and
    those it no longer shows though they are still bound (a name rebound to a module, one
    no longer matching the filter by type). None when more than ``req.limit`` changed or
    when the log cannot tell."""
    since = req.since
    candidates = tracker.change_log.since(since, req.limit)
    if candidates is None:
        return None
    changed_at, shows, matches = tracker.changed_at, visibility.shows, req.matches
    listed, left = [], []
    for name in candidates:
        at = changed_at(name)
        if at is None or at <= since:
            continue
        if not shows(ns, name, req.include, hidden) or (matches is not None and not (
            matches(name.lower()) or matches(type(ns[name]).__name__.lower())
        )):
            if name in ns:  # (a deleted name is in the tracker's removed list)
                left.append(name)
            continue
        listed.append(name)
    return listed, left


def changed_since(tracker, since, names, limit):
    """The names of ``names`` bound or changed after execution ``since``, or None when
    more than ``limit`` (one look per name: for callers that hold the names anyway)."""
    changed_at = tracker.changed_at
    changed = [n for n in names if (at := changed_at(n)) is not None and at > since]
    return changed if len(changed) <= limit else None


def removed_exactly_since(tracker, since, limit):
    """``(names, total)`` removed after execution ``since``, or None when the tracker's
    bounded list (``limit`` names, the tracker's ``MAX_REMOVED``) may have dropped one."""
    removed = tracker.removed  # name -> execution count, oldest first, at most ``limit``
    if len(removed) >= limit:
        oldest = next(iter(removed.values()))
        if oldest is None or oldest > since:
            return None  # older removals were dropped; some may be after ``since``
    return tracker.removed_since(since, limit)


#: Columns listed per table for ``detail=schema``.
SCHEMA_COLUMNS = 50


def table_columns(page, ns, req):
    """For ``detail=schema``: each table's first columns with dtypes, and their count
    (``{name: {"columns", "columns_total"}}``; an error instead when reading failed)."""
    out = {}
    with guard.session(req.guard_ms, req.budget_ms) as session:
        for name in page:
            value = ns.get(name, MISSING)
            insp = inspector_for(type(value))
            if value is MISSING or not hasattr(insp, "columns"):
                continue
            try:
                columns, total = session.run(insp.columns, value, SCHEMA_COLUMNS)
                out[name] = {"columns": columns, "columns_total": total}
            except guard.ProbeTimeout:
                out[name] = {"columns": None, "columns_total": None,
                             "error": "columns timed out"}
            except (guard.BudgetExhausted, guard.GuardUnavailable) as exc:
                out[name] = {"columns": None, "columns_total": None,
                             "error": str(exc) or "not inspected: probe time budget exhausted"}
            except BaseException as exc:
                out[name] = {"columns": None, "columns_total": None,
                             "error": guard.user_error("columns", exc)}
    return out


def _fragments(cache, page, ns, req, tracker, since):
    """The page's JSON fragments, each with its change fields."""
    entry, cached = cache.entry, cache.entries.get
    observe = tracker.observe if tracker is not None else None
    # Parallel lists, no tuple per variable: fewer new objects for the garbage collector.
    shown, values, entries = [], [], []
    # The cache entries' slots, as locals (read once per variable in the loops below).
    held, limit_slot = summary.HELD, summary.LIMIT
    preview = req.preview
    with guard.session(req.guard_ms, req.budget_ms) as session:
        for name in page:
            value = ns.get(name, MISSING)
            if value is MISSING:
                continue
            e = cached(name)
            if e is None or e[held] is not value or e[limit_slot] != preview:
                e = entry(name, value, preview, session, observe)  # else: held, the same
            shown.append(name)
            values.append(value)
            entries.append(e)
    done = cache.fragments(entries)
    out = Fragments()
    if tracker is None:
        out.extend(fragment + _UNCHANGED_TAIL for fragment in done)
        return out
    append = out.append
    sent_change, sent_at, sent = summary.SENT_CHANGE, summary.SENT_AT, summary.SENT
    tails = {}  # (change, changed_at) -> the fragment's end, when there are no changes
    kinds, ats, described = tracker.change_of_many(shown, values, since)
    for e, fragment, change, at, changes in zip(entries, done, kinds, ats, described):
        if changes:
            append(
                fragment
                + ',"change":"{}","changed_at":{},"changes":{}}}'.format(
                    change, "null" if at is None else int(at), dumps(list(changes))
                )
            )
            continue
        if e[sent_change] is change and e[sent_at] == at:  # as last sent, same change
            append(e[sent])
            continue
        tail = tails.get((change, at))
        if tail is None:
            tail = tails[(change, at)] = ',"change":"{}","changed_at":{},"changes":[]}}'.format(
                change, "null" if at is None else int(at)
            )
        e[sent_change], e[sent_at], e[sent] = change, at, fragment + tail
        append(e[sent])
    return out


def dumps(reply):
    """One line of JSON: ``Fragments`` spliced in as they are, NaN and odd types made
    safe."""
    variables = reply.get("variables") if type(reply) is dict else None
    if type(variables) is Fragments:
        rest = dict(reply)
        rest["variables"] = []
        text = dumps(rest)
        marker = '"variables":[]'
        at = text.index(marker) + len(marker) - 1
        return text[:at] + ",".join(variables) + text[at:]
    try:
        return json.dumps(
            reply, ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=_opaque
        )
    except ValueError:
        return json.dumps(
            _finite(reply), ensure_ascii=True, allow_nan=False, separators=(",", ":"),
            default=_opaque,
        )


def dumps_lines(reply):
    """The reply with each variable's JSON on a line of its own after the rest (JSON text
    never holds a raw newline): the server passes the lines through without decoding
    them.  ``variables_count`` lets it check that none was lost."""
    variables = reply.get("variables") if type(reply) is dict else None
    if type(variables) is not Fragments:
        return dumps(reply)
    rest = dict(reply)
    del rest["variables"]
    rest["variables_count"] = len(variables)
    if not variables:
        return dumps(rest)
    return dumps(rest) + "\n" + "\n".join(variables)


def _opaque(o):
    return "<" + type(o).__name__ + ">"


def _finite(x):
    if type(x) is float and (x != x or x in (float("inf"), float("-inf"))):
        return None
    if type(x) is dict:
        return {k: _finite(v) for k, v in x.items()}
    if type(x) in (list, tuple):
        return [_finite(v) for v in x]
    return x

