"""The ``delete`` and ``timeline`` ops: one variable, by its exact namespace key.

``delete`` removes the key from the user namespace (never code built from the name),
drops its kept versions (``ops.kept``) and lets the tracker record the removal at once,
at the last user execution, so the list, deltas, the prompt and the timeline agree
without waiting for the next cell.
``timeline`` answers from the tracker's timeline (``changes.logs.Timeline``); a name that
is gone still has one.  With it, the name's lineage (``changes.lineage``): the executions
that bound it (``defined_in``) and read it (``used_in``), those whose dynamic access
cannot be told by name (``unknown``) and those not analysed (``not_analysed``), the
newest ``lineage_limit`` of each, ``lineage_totals`` counting all held.
"""

from ..inspect.base import MISSING
from ..namespace.visibility import is_hidden, lookup
from ..protocol import refusal


def delete(state, fields, ns, hidden, tracker):
    """The ``delete`` op."""
    name = fields["name"]
    value = lookup(ns, name)
    if value is MISSING or is_hidden(name, value, hidden):
        return refusal("not_found", "Variable not found: " + name)
    try:
        dict.__delitem__(ns, name)
    except (KeyError, TypeError):
        return refusal("not_found", "Variable not found: " + name)
    del value
    kept = getattr(state, "kept", None)
    if kept is not None:
        kept.forget(name)  # its kept versions go with it
    if tracker is not None:
        tracker.scan(tracker.last_ec)  # the removal, stamped at the last user execution
    return {"deleted": name}


def timeline(state, fields, ns, hidden, tracker):
    """The ``timeline`` op."""
    name, limit = fields["name"], fields["limit"]
    if tracker is None:
        return refusal("bad_request", "No change tracking in this namespace")
    entries, total, complete_after = tracker.records.timeline.of(name, limit)
    value = lookup(ns, name)
    bound = value is not MISSING and not is_hidden(name, value, hidden)
    if not total and not bound:
        return refusal("not_found", "Variable not found: " + name)
    return {"timeline": {
        "name": name,
        "total": total,
        "limit": limit,
        "entries": entries,
        "complete_after": complete_after,
        "exists": bound,
        **tracker.lineage.of(name, fields["lineage_limit"]),
    }}
