"""The ``keep``, ``kept`` and ``drop_kept`` ops: versions of a table kept on the user's
request, to compare the table with itself as of an earlier execution (``compare`` with
``with_execution``).  The store and its caps are ``windows.kept``'s.

Fields: ``name``; ``max_kept`` and ``max_kept_bytes`` (the server's caps, sent with
every call so that each reply says them); ``keep``: ``evict`` (drop the oldest versions
to make room instead of refusing), ``time_guard_ms`` (the copy), ``budget_ms``;
``drop_kept``: ``execution`` (null: every version of the name).

Replies: ``{"kept": KeptVersions}`` — the name's versions, oldest first, the caps and
their use, and what this call ``kept`` and ``dropped``.  Refusals: ``not_found`` (no
such variable — its versions went with it —, or no version of that execution: the
message lists those kept),
``bad_request`` (not a pandas or polars DataFrame: an engine's table, an array …),
``lazy``, ``unprocessable`` (the copy alone passes the byte cap; the copy raised or ran
out of time), ``full`` (no room under a cap without ``evict``: the message lists what
is held).
"""

from ..inspect.base import MISSING, type_name
from ..namespace.visibility import is_hidden, lookup
from ..protocol import refusal
from ..windows import kept as store
from .table import TableWords, read_table

_WORDS = TableWords("Keeping a version of", "A kept version of", "copying it",
                    not_tabular=("rows show tables, arrays and lists of records",
                                 "versions are kept of pandas or polars DataFrames"),
                    lazy=("showing rows", "copying it"), bad_request=(store.NotKeepable,))


def versions(state):
    """The probe's kept versions (``entry.ProbeState``)."""
    kept = getattr(state, "kept", None)
    if kept is None:
        kept = state.kept = store.KeptVersions()
    return kept


def last_execution(state, tracker):
    """The last user execution: what a version kept now is "as of"."""
    last = getattr(tracker, "last_ec", None)
    if type(last) is int:
        return last
    ec = state.execution_count()
    return max(0, ec - 1) if type(ec) is int else 0


def keep(state, fields, ns, hidden, tracker):
    """The ``keep`` op."""
    kept = versions(state)
    execution = last_execution(state, tracker)
    caps = fields["max_kept"], fields["max_kept_bytes"]
    reply = read_table(fields, ns, hidden, "kept", lambda session, value, table: _keep(
        kept, session, value, table, fields, execution), _WORDS)
    if "kept" in reply:
        if type(reply["kept"]) is dict:  # refused for a cap
            return reply["kept"]
        version, dropped, replaced = reply["kept"]
        out = kept.listing(fields["name"], *caps)
        out.update({"kept": version.to_json(), "replaced": replaced,
                    "dropped": [v.to_json() for v in dropped]})
        reply["kept"] = out
    return reply


def _keep(kept, session, value, table, fields, execution):
    """``(version, dropped, replaced)``, or the refusal of a cap (read_table would take
    it for the value's own error)."""
    try:
        return _copied(kept, session, value, table, fields, execution)
    except store.PastByteCap as exc:
        return refusal("unprocessable", str(exc))
    except store.Full as exc:
        return refusal("full", str(exc))


def _copied(kept, session, value, table, fields, execution):
    name = fields["name"]
    library = store.library_of(value)
    if table.engine is not None:
        raise store.NotKeepable(
            "{} is a {} (a lazy {} table): versions are kept of tables in memory (pandas or "
            "polars DataFrames), never collected from an engine".format(
                name, type_name(type(value)), getattr(table, "title", table.engine)))
    if table.kind != "dataframe" or library is None or getattr(table, "comparer", None) is None:
        raise store.NotKeepable(
            "{} is a {}: versions are kept of pandas or polars DataFrames (what Compare "
            "with… compares)".format(name, type_name(type(value))))
    nbytes = session.run(store.measured, value)
    if nbytes is None:
        raise store.NotKeepable("the memory of {} cannot be measured, so no version of it "
                                "is kept (a cap could not be held)".format(name))
    dropped = kept.room(name, execution, nbytes, fields["max_kept"], fields["max_kept_bytes"],
                        fields["evict"])
    copy = session.run(store.copy_of, value, library)
    size = session.run(store.measured, copy)
    if size is None:
        raise store.NotKeepable("the memory of the copy of {} cannot be measured, so it is "
                                "not kept (a cap could not be held)".format(name))
    if size > nbytes:  # never more than was checked against the caps
        dropped = kept.room(name, execution, size, fields["max_kept"],
                            fields["max_kept_bytes"], fields["evict"])
    shape = session.run(lambda: (len(copy), len(copy.columns)))
    version = store.Version(name, execution, copy, library, size, *shape)
    replaced = kept.put(version, dropped)
    return version, dropped, replaced


def listing(state, fields, ns, hidden, tracker):
    """The ``kept`` op: the versions of ``name`` kept (none: an empty list; a name that
    is not bound: not found)."""
    if not _bound(fields["name"], ns, hidden):
        return refusal("not_found", "Variable not found: " + fields["name"])
    return {"kept": versions(state).listing(fields["name"], fields["max_kept"],
                                            fields["max_kept_bytes"])}


def drop(state, fields, ns, hidden, tracker):
    """The ``drop_kept`` op: a version of ``name`` (every one, without ``execution``)."""
    kept = versions(state)
    name, execution = fields["name"], fields["execution"]
    if not _bound(name, ns, hidden):  # its versions went with it
        return refusal("not_found", "Variable not found: " + name)
    dropped = kept.drop(name, execution)
    if not dropped and execution is not None:
        return refusal("not_found", missing(kept, name, execution))
    out = kept.listing(name, fields["max_kept"], fields["max_kept_bytes"])
    out["dropped"] = [v.to_json() for v in dropped]
    return {"kept": out}


def _bound(name, ns, hidden):
    value = lookup(ns, name)
    return value is not MISSING and not is_hidden(name, value, hidden)


def missing(kept, name, execution):
    """The message for a version that is not kept: what is."""
    held = ", ".join("[{}]".format(v.execution) for v in kept.of(name))
    return "No version of {} as of [{}] is kept; {}".format(
        name, execution, "kept: " + held if held else
        "none is kept (POST …/variables/{}/kept keeps the current one)".format(name))
