"""Change tracking: a ``post_run_cell`` hook that fingerprints every visible name.

The fingerprint is ``(id(value), type(value), inspector.fingerprint(value))``: lengths of
builtin containers, shape/dtype/data pointer of arrays, shape/columns/dtypes of tables —
never user code.  Silent executions (the probe's own) do not fire ``post_run_cell``.
"""

import itertools
import operator
import time

from .inspectors import inspector_for, type_name
from .namespace import INTERNAL_NAME, hidden_names, keys_values, name_category, natural_keys

MAX_REMOVED = 1000
MAX_CHANGES = 5
HOOK_MARK = "_jupyter_kernel_state_hook"
#: Small immutable values are held (so their id cannot be reused) and compared by value.
HELD_TYPES = frozenset((int, float, complex, bool, type(None)))
HELD_TEXT = frozenset((str, bytes))
MAX_HELD_TEXT = 4096

# Record slots (a list per name, mutated in place: cheaper than objects).
ID, TYPE, FP, FIRST_SEEN, CHANGED_AT, CHANGES, HELD = range(7)


class Tracker:
    """Per-name change records, updated after every user cell.

    The namespace's key order is kept with the ids of its values; while names are only
    added at the end, a scan costs C-level ``map(id, ...)`` plus Python work for the
    rebound names and for values that need a fingerprint (containers, arrays, tables,
    objects).  Small scalars are held and compared by value, so re-running ``x = 1`` is
    not a change.
    """

    def __init__(self, shell, on_change=None):
        self.shell = shell
        self.records = {}
        self.removed = {}  # name -> execution count it disappeared at (insertion-ordered)
        self.last_ec = None
        self.last_hook_ms = None
        self.on_change = on_change
        self.keys = []
        self.ids = []
        self.fp_pos = set()
        self.scan(None)

    # -- the hook --------------------------------------------------------------------

    def post_run_cell(self, result=None):
        ec = getattr(result, "execution_count", None)
        if type(ec) is not int:
            ec = (getattr(self.shell, "execution_count", 1) or 1) - 1
        self.scan(ec)

    def scan(self, ec):
        t0 = time.perf_counter()
        ns = self.shell.user_ns
        keys, values = keys_values(ns)
        hidden = hidden_names(ns, getattr(self.shell, "user_ns_hidden", None))
        ids = list(map(id, values))
        n_prev = len(self.keys)
        if len(keys) >= n_prev and keys[:n_prev] == self.keys:
            rebound = itertools.compress(range(n_prev), map(operator.ne, ids, self.ids))
            todo = self.fp_pos.union(rebound)
            todo.update(range(n_prev, len(keys)))
            natural_keys(keys[n_prev:])  # sort keys for new names, ahead of snapshots
        else:
            self._collect_removed(keys, ec)
            self.fp_pos = set()
            todo = range(len(keys))
            natural_keys(keys)
        visit = self._visit
        for i in sorted(todo):
            visit(i, keys[i], values[i], ec, hidden)
        self.keys, self.ids = keys, ids
        if ec is not None:
            self.last_ec = ec
        self.last_hook_ms = (time.perf_counter() - t0) * 1000.0

    def _visit(self, i, name, value, ec, hidden):
        if name_category(name) == INTERNAL_NAME or name in hidden:
            self.fp_pos.discard(i)
            return
        t = type(value)
        held = None
        if t in HELD_TYPES or (t in HELD_TEXT and len(value) <= MAX_HELD_TEXT):
            held = value
            fp = None
            self.fp_pos.discard(i)
        else:
            try:
                fp = inspector_for(t).fingerprint(value)
            except Exception:
                fp = ("error",)
            self.fp_pos.add(i)
        rec = self.records.get(name)
        if rec is None:
            self.records[name] = [id(value), t, fp, ec, ec, (), held]
            if self.removed:
                self.removed.pop(name, None)
            return
        if rec[ID] == id(value) and rec[TYPE] is t and rec[FP] == fp:
            return
        old = rec[HELD]
        if held is not None and old is not None and type(old) is t and old == value:
            rec[ID], rec[HELD] = id(value), held  # an equal value bound again
            return
        rec[CHANGES] = describe_changes(rec[TYPE], rec[FP], t, fp)
        rec[ID], rec[TYPE], rec[FP], rec[CHANGED_AT], rec[HELD] = id(value), t, fp, ec, held
        if self.on_change is not None:
            self.on_change(name)

    def _collect_removed(self, keys, ec):
        gone = set(self.records).difference(keys)
        for name in gone:
            del self.records[name]
            self.removed.pop(name, None)
            self.removed[name] = ec
            if self.on_change is not None:
                self.on_change(name)
        while len(self.removed) > MAX_REMOVED:
            del self.removed[next(iter(self.removed))]

    # -- queries ---------------------------------------------------------------------

    def resolve_since(self, since_ec):
        """``since_ec`` or, when None, the count before the most recent execution."""
        if since_ec is not None:
            return since_ec
        if self.last_ec is None:
            return None
        return self.last_ec - 1

    def change_of(self, name, value, since):
        """``(change, changed_at, changes)`` of ``name`` relative to ``since``."""
        rec = self.records.get(name)
        if rec is None:
            return "new", None, []
        changed_at = rec[CHANGED_AT]
        if rec[ID] != id(value):
            return "modified", changed_at, []  # rebound outside a cell
        if since is None:
            return "unchanged", changed_at, []
        first = rec[FIRST_SEEN]
        if first is not None and first > since:
            return "new", changed_at, []
        if changed_at is not None and changed_at > since:
            return "modified", changed_at, list(rec[CHANGES])
        return "unchanged", changed_at, []

    def changed_at(self, name):
        rec = self.records.get(name)
        return None if rec is None else rec[CHANGED_AT]

    def removed_since(self, since, limit=1000):
        names = [n for n, ec in reversed(self.removed.items()) if since is None or (ec is not None and ec > since)]
        return names[:limit], len(names)


def describe_changes(old_t, old_fp, new_t, new_fp):
    """Short structural differences, e.g. ``rows 1,000 → 980``; at most MAX_CHANGES."""
    if old_t is not new_t:
        return ("type {} → {}".format(type_name(old_t), type_name(new_t)),)
    if type(old_fp) is not tuple or type(new_fp) is not tuple or not old_fp or old_fp[0] != new_fp[0]:
        return ()
    tag = old_fp[0]
    out = []
    if tag == "len" and old_fp[1] != new_fp[1]:
        out.append("len {:,} → {:,}".format(old_fp[1], new_fp[1]))
    elif tag == "array":
        if old_fp[1] != new_fp[1]:
            out.append("shape {} → {}".format(_shape(old_fp[1]), _shape(new_fp[1])))
        if old_fp[2] != new_fp[2]:
            out.append("dtype {} → {}".format(old_fp[2], new_fp[2]))
    elif tag == "series":
        if old_fp[1] != new_fp[1]:
            out.append("len {:,} → {:,}".format(old_fp[1], new_fp[1]))
        if old_fp[2] != new_fp[2]:
            out.append("dtype {} → {}".format(old_fp[2], new_fp[2]))
    elif tag == "table":
        out.extend(_table_changes(old_fp, new_fp))
    return tuple(out[:MAX_CHANGES])


def _shape(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _table_changes(old_fp, new_fp):
    (old_rows, old_cols), old_names, old_dtypes = old_fp[1], old_fp[2], old_fp[3]
    (new_rows, new_cols), new_names, new_dtypes = new_fp[1], new_fp[2], new_fp[3]
    out = []
    if old_rows != new_rows:
        out.append("rows {:,} → {:,}".format(old_rows, new_rows))
    old_set, new_set = set(old_names), set(new_names)
    for label in new_names:
        if label not in old_set:
            out.append("column {} added".format(_col(label)))
    for label in old_names:
        if label not in new_set:
            out.append("column {} removed".format(_col(label)))
    old_types = dict(zip(old_names, old_dtypes))
    for label, dtype in zip(new_names, new_dtypes):
        before = old_types.get(label)
        if before is not None and before != dtype:
            out.append("column {} dtype {} → {}".format(_col(label), before, dtype))
    if not out and old_cols != new_cols:
        out.append("columns {:,} → {:,}".format(old_cols, new_cols))
    return out


def _col(label):
    text = label if type(label) is str else repr(label)
    return text if len(text) <= 40 else text[:39] + "…"


def register(shell, tracker):
    """Register ``tracker``'s hook, first removing any earlier probe's hook."""
    unregister_all(shell)

    def _jks_post_run_cell(result=None):
        try:
            tracker.post_run_cell(result)
        except Exception:
            pass  # never disturb the user's cell

    setattr(_jks_post_run_cell, HOOK_MARK, True)
    shell.events.register("post_run_cell", _jks_post_run_cell)
    return _jks_post_run_cell


def unregister_all(shell):
    events = getattr(shell, "events", None)
    callbacks = getattr(events, "callbacks", {}).get("post_run_cell", [])
    for cb in list(callbacks):
        if getattr(cb, HOOK_MARK, False):
            try:
                events.unregister("post_run_cell", cb)
            except ValueError:
                pass
