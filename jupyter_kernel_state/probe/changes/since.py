"""What changed since an execution, as the list of visible names shows it: from the
change tracker's log (the cost is that of the changes, not of the namespace), or one
look per name for callers that hold the names anyway.  Shared by ``snapshot`` deltas and
the ``digest``."""


def logged_changes(visibility, ns, hidden, tracker, since, limit, include, matches=None):
    """``(listed, left)``: the names bound or changed after execution ``since`` (from
    the tracker's change log: the cost is that of the changes) that the list shows, and
    those it no longer shows though they are still bound (a name rebound to a module, one
    no longer matching the filter by type). None when more than ``limit`` changed or
    when the log cannot tell."""
    candidates = tracker.change_log.since(since, limit)
    if candidates is None:
        return None
    changed_at, shows = tracker.changed_at, visibility.shows
    listed, left = [], []
    for name in candidates:
        at = changed_at(name)
        if at is None or at <= since:
            continue
        if not shows(ns, name, include, hidden) or (matches is not None and not (
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
