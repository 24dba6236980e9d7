"""What was stamped at each execution, kept in two bounded logs fed by the same stamps.

:class:`ChangeLog` keeps the names stamped at each execution, so that "what changed since
execution N" costs what changed, not the size of the namespace: the change tracker adds
the names it stamps (new, rebound, grown, fingerprinted as changed), a delta snapshot
asks for the names logged after N.  :class:`Timeline` keeps the same stamps with their
kind (new, modified, removed) and how the value changed (the structural changes the
tracker read from fingerprints — never copies of data), so one name's history can be
told: one list per kind and execution, kept as stamped (nothing per name at that point:
a cell that binds a million names costs a list copy); a question about one name looks
through the kept executions (``Timeline.of``).

Both are bounded: at most ``MAX_CELLS`` executions and ``MAX_NAMES`` names (a cell with
more is kept as "too many"); what falls off the end moves ``complete_after`` forward,
and a question about an earlier execution gets None ("cannot tell: reload the whole
list") from the change log, never a shorter answer; a timeline says from which execution
on it is complete.
"""

import collections

from ..protocol import DEFAULT_ENTRIES
from .fingerprints import MAX_CHANGES

MAX_CELLS = 1_000
MAX_NAMES = 100_000




class ChangeLog:
    def __init__(self, max_cells=MAX_CELLS, max_names=MAX_NAMES):
        self.max_cells = max_cells
        self.max_names = max_names
        self.by_count = collections.OrderedDict()  # execution count -> [names], oldest first
        self.names_held = 0
        #: The last execution whose names were dropped (None: nothing dropped): changes
        #: after it, and only those, can be told.
        self.complete_after = None

    def add(self, ec, names):
        """``names`` (a list) were bound or changed at execution ``ec``."""
        if ec is None or not names:
            return
        entry = self.by_count.get(ec)
        if entry is None:
            entry = self.by_count[ec] = []
        if entry is not _TOO_MANY:
            if len(entry) + len(names) > self.max_names:
                self.names_held -= len(entry)
                self.by_count[ec] = _TOO_MANY
            else:
                entry.extend(names)
                self.names_held += len(names)
        self._trim()

    def _trim(self):
        while self.by_count and (len(self.by_count) > self.max_cells
                                 or self.names_held > self.max_names):
            ec, names = self.by_count.popitem(last=False)
            if names is not _TOO_MANY:
                self.names_held -= len(names)
            if self.complete_after is None or ec > self.complete_after:
                self.complete_after = ec

    def since(self, since_ec, limit):
        """The names logged after execution ``since_ec`` (each once, in no set order), or
        None when the log cannot tell (it starts later, or lost that part) or when more
        than ``limit`` are logged."""
        if self.complete_after is not None and since_ec < self.complete_after:
            return None
        out = {}
        for ec, names in reversed(self.by_count.items()):
            if ec <= since_ec:
                continue
            if names is _TOO_MANY:
                return None
            out.update(dict.fromkeys(names))
            if len(out) > limit:
                return None
        return list(out)


class _TooMany(list):
    """Marks an execution that changed more names than the log holds."""


_TOO_MANY = _TooMany()


# --- each name's timeline ---------------------------------------------------------



NEW, MODIFIED, REMOVED = "new", "modified", "removed"


class _Cell:
    __slots__ = ("changes", "parts", "too_many")

    def __init__(self):
        self.parts = []  # (kind, [names]) in the order they were stamped
        self.changes = {}  # name -> descriptions of its change at this execution
        self.too_many = False


class Timeline:
    def __init__(self, max_cells=MAX_CELLS, max_names=MAX_NAMES):
        self.max_cells = max_cells
        self.max_names = max_names
        self.cells = collections.OrderedDict()  # execution count -> _Cell, oldest first
        self.held = 0  # names (and descriptions) held in all cells
        #: The last execution whose entries were dropped (None: nothing dropped yet).
        self.complete_after = None

    def add(self, ec, kind, names):
        """``names`` were stamped ``kind`` at execution ``ec``."""
        if ec is None or not names:
            return
        cell = self._cell(ec)
        if cell.too_many:
            return
        if len(names) > self.max_names:
            self._too_many(cell)
            return
        cell.parts.append((kind, list(names)))
        self.held += len(names)
        self._trim()

    def describe(self, ec, described):
        """How names changed at ``ec`` (name -> descriptions), after ``add``."""
        cell = self.cells.get(ec)
        if cell is None or cell.too_many or not described:
            return
        for name, changes in described.items():
            if name not in cell.changes:
                self.held += 1
            cell.changes[name] = tuple(changes)[:MAX_CHANGES]
        self._trim()

    def _cell(self, ec):
        cell = self.cells.get(ec)
        if cell is None:
            cell = self.cells[ec] = _Cell()
            if len(self.cells) > 1 and ec < next(reversed(self.cells)):
                self.cells.move_to_end(ec)  # keep insertion = execution order in practice
        return cell

    def _too_many(self, cell):
        self.held -= sum(len(names) for _kind, names in cell.parts) + len(cell.changes)
        cell.parts, cell.changes, cell.too_many = [], {}, True

    def _trim(self):
        while self.cells and (len(self.cells) > self.max_cells or self.held > self.max_names):
            ec, cell = self.cells.popitem(last=False)
            self.held -= sum(len(names) for _kind, names in cell.parts) + len(cell.changes)
            if self.complete_after is None or ec > self.complete_after:
                self.complete_after = ec

    def of(self, name, limit=DEFAULT_ENTRIES):
        """``(entries, total, complete_after)``: the last ``limit`` entries for ``name``,
        oldest first, each ``{"execution_count", "change", "changes"}``; ``total`` counts
        every entry held; they are complete for the executions after ``complete_after``
        (None: since the tracker started)."""
        entries = []
        complete_after = self.complete_after
        for ec, cell in self.cells.items():
            if cell.too_many:
                complete_after = ec  # cannot tell what that execution did to ``name``
                entries = []
                continue
            kinds = [kind for kind, names in cell.parts if name in names]
            if not kinds:
                continue
            # new and modified at once is new; removed after either (deleted through the
            # API) is its own entry.
            kept = [k for k in kinds if k != MODIFIED or NEW not in kinds]
            for kind in dict.fromkeys(kept):
                changes = list(cell.changes.get(name, ())) if kind == MODIFIED else []
                entries.append({"execution_count": ec, "change": kind, "changes": changes})
        return entries[-limit:] if limit else [], len(entries), complete_after
