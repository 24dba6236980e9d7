"""The ``delete`` and ``timeline`` ops: one variable, by its exact namespace key.

``delete`` removes the key from the user namespace (never code built from the name) and
lets the tracker record the removal at once, at the last user execution, so the list,
deltas, the prompt and the timeline agree without waiting for the next cell.
``timeline`` answers from the tracker's timeline (see timeline.py); a name that is gone
still has one.
"""

from .detail import valid_name
from .inspectors import MISSING
from .namespace import is_hidden
from .timeline import DEFAULT_ENTRIES, MAX_ENTRIES


def refuse(reason, message):
    """A refusal: ``reason`` is not_found, bad_request, lazy or unprocessable."""
    return {"ok": False, reason: True, "error": message}


def lookup(ns, name):
    try:
        return dict.get(ns, name, MISSING)
    except TypeError:
        return MISSING


def delete(request, ns, hidden, tracker):
    name = request.get("name")
    if not valid_name(name):
        return refuse("bad_request", "Invalid variable name")
    value = lookup(ns, name)
    if value is MISSING or is_hidden(name, value, hidden):
        return refuse("not_found", "Variable not found: " + name)
    try:
        dict.__delitem__(ns, name)
    except (KeyError, TypeError):
        return refuse("not_found", "Variable not found: " + name)
    del value
    if tracker is not None:
        tracker.scan(tracker.last_ec)  # the removal, stamped at the last user execution
    return {"deleted": name}


def timeline(request, ns, hidden, tracker):
    name = request.get("name")
    if not valid_name(name):
        return refuse("bad_request", "Invalid variable name")
    limit = request.get("limit", DEFAULT_ENTRIES)
    if type(limit) is not int or not 1 <= limit <= MAX_ENTRIES:
        return refuse("bad_request", "limit must be an integer from 1 to {}".format(MAX_ENTRIES))
    if tracker is None:
        return refuse("bad_request", "No change tracking in this namespace")
    entries, total, complete_after = tracker.records.timeline.of(name, limit)
    value = lookup(ns, name)
    bound = value is not MISSING and not is_hidden(name, value, hidden)
    if not total and not bound:
        return refuse("not_found", "Variable not found: " + name)
    return {"timeline": {
        "name": name,
        "total": total,
        "limit": limit,
        "entries": entries,
        "complete_after": complete_after,
        "exists": bound,
    }}
