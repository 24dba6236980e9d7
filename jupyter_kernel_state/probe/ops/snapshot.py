"""The ``snapshot`` op: which names, which page (or which changes), and their fragments.

A snapshot lists the visible names (``namespace.visibility.Visibility``), keeps those the
``filter`` and ``changed_in`` select, orders them (``namespace.ordering.Sorter``) and
returns one page of JSON fragments (``inspect.cache.SummaryCache``), with ``total`` (the
visible names) and ``matched`` (those selected: what the pages go through).
With ``delta`` and ``since_ec`` it returns instead every visible entry bound or changed
after ``since_ec`` (not paged) and the names removed since, when the change tracker can
say so exactly; otherwise a normal page with ``"delta": false``.
"""

import fnmatch
import re

from .. import guard
from ..changes.records import MAX_REMOVED
from ..changes.since import logged_changes, removed_exactly_since
from ..inspect import cache as summaries
from ..inspect.base import MISSING, inspector_for
from ..namespace.visibility import natural_key
from ..wire import Fragments, dumps

#: The end of an unchanged variable's fragment: its change fields are at their defaults,
#: left out (``protocol.VARIABLE_DEFAULTS``).
_UNCHANGED_TAIL = "}"


def name_filter(pattern):
    """A case-insensitive glob on names or type names; plain text matches anywhere."""
    if not pattern:
        return None
    if not any(c in pattern for c in "*?["):
        pattern = "*" + pattern + "*"
    return re.compile(fnmatch.translate(pattern.lower())).match


def take(state, fields, ns, hidden, tracker):
    """The ``snapshot`` op (``variables`` is a ``Fragments``)."""
    include, matches = fields["include"], name_filter(fields["filter"])
    names = state.visibility.names(ns, include, hidden, tracker)
    listed = len(names)
    if matches is not None:
        # type() of a value runs no user code; the pattern is data, matched as a glob.
        names = [n for n in names if matches(n.lower()) or matches(type(ns[n]).__name__.lower())]
    changed_in = fields["changed_in"]
    if changed_in is not None:
        at = tracker.changed_at if tracker is not None else (lambda name: None)
        names = [n for n in names if at(n) == changed_in]
    used_by_cell = fields["used_by_cell"]
    if used_by_cell is not None:
        touched = tracker.lineage.names_of_cell(used_by_cell) if tracker is not None else ()
        names = [n for n in names if n in touched]
    since_ec = fields["since_ec"]
    since = tracker.resolve_since(since_ec) if tracker is not None else since_ec
    changes = None
    if fields["delta"] and changed_in is None and used_by_cell is None:
        # changed_in and used_by_cell ask a page, never a delta
        changes = _changes_since(state, ns, hidden, tracker, fields, matches)
    if changes is not None:
        page, removed, removed_total = changes
    else:
        changed_at = tracker.changed_at if tracker is not None else None
        order = state.sorter.sort(names, fields["sort"], ns, changed_at)
        offset = fields["offset"]
        page = order[offset : offset + fields["limit"]]
        removed, removed_total = (
            tracker.removed_since(since, MAX_REMOVED) if tracker is not None else ([], 0)
        )
    variables = page_fragments(state.cache, page, ns, fields, tracker, since)
    if len(state.cache.entries) > len(names) + 1000:
        state.cache.prune(ns)
    reply = {
        "total": listed,
        "matched": len(names),
        "variables": variables,
        "removed": removed,
        "removed_total": removed_total,
    }
    if changed_in is not None:
        reply["changed_in"] = changed_in  # said back: the server knows it was applied
    if used_by_cell is not None:
        reply["used_by_cell"] = used_by_cell
    if fields["schema"]:
        reply["schema"] = table_columns(page, ns, fields)
    if fields["delta"]:
        reply["delta"] = changes is not None
    return reply


def _changes_since(state, ns, hidden, tracker, fields, matches):
    """``(names changed after since_ec, removed, removed_total)`` for a delta reply, or
    None when it cannot be told exactly (no tracker or since; more than ``limit``
    changed; changes or removals older than the tracker keeps)."""
    since = fields["since_ec"]
    if tracker is None or since is None:
        return None
    logged = logged_changes(state.visibility, ns, hidden, tracker, since, fields["limit"],
                            fields["include"], matches)
    if logged is None:
        return None
    changed, left = logged
    removed = removed_exactly_since(tracker, since, MAX_REMOVED)
    if removed is None:
        return None
    changed.sort(key=natural_key)
    names, total = removed
    if left:  # still bound, no longer listed (now hidden, or no longer matching): gone too
        already = set(names)
        names = names + [n for n in left if n not in already]
        total += len(left)
    return changed, names, total


#: Columns listed per table for ``detail=schema``.
SCHEMA_COLUMNS = 50


def table_columns(page, ns, fields):
    """For ``detail=schema``: each table's first columns with dtypes, and their count
    (``{name: {"columns", "columns_total"}}``; an error instead when reading failed)."""
    out = {}
    with guard.session(fields["time_guard_ms"], fields["budget_ms"]) as session:
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


def page_fragments(cache, page, ns, fields, tracker, since):
    """The page's JSON fragments, each with its change fields (``fields``: the request's
    ``preview_chars``, ``time_guard_ms`` and ``budget_ms``)."""
    entry, cached = cache.entry, cache.entries.get
    observe = tracker.observe if tracker is not None else None
    # Parallel lists, no tuple per variable: fewer new objects for the garbage collector.
    shown, values, entries = [], [], []
    # The cache entries' slots, as locals (read once per variable in the loops below).
    held, limit_slot = summaries.HELD, summaries.LIMIT
    preview = fields["preview_chars"]
    with guard.session(fields["time_guard_ms"], fields["budget_ms"]) as session:
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
    sent_change, sent_at, sent = summaries.SENT_CHANGE, summaries.SENT_AT, summaries.SENT
    tails = {}  # (change, changed_at) -> the fragment's end, when there are no changes
    kinds, ats, described = tracker.change_of_many(shown, values, since)
    for e, fragment, change, at, changes in zip(entries, done, kinds, ats, described):
        if changes:
            append(
                fragment + _tail(change, at)[:-1] + ',"changes":' + dumps(list(changes)) + "}"
            )
            continue
        if e[sent_change] is change and e[sent_at] == at:  # as last sent, same change
            append(e[sent])
            continue
        tail = tails.get((change, at))
        if tail is None:
            tail = tails[(change, at)] = _tail(change, at)
        e[sent_change], e[sent_at], e[sent] = change, at, fragment + tail
        append(e[sent])
    return out


def _tail(change, at):
    """The end of a fragment: its change fields that are not at their defaults."""
    text = "" if change == "unchanged" else ',"change":"' + change + '"'
    return text + ("" if at is None else ',"changed_at":' + str(int(at))) + "}"
