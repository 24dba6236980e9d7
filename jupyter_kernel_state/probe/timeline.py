"""Each variable's change timeline: at which executions a name was new, modified or
removed, and how (the structural changes the tracker read from fingerprints — never
copies of data).

The tracker hands over the names it stamps, one list per kind and execution, as it
stamps them; nothing is done per name at that point beyond keeping the list, so a cell
that binds a million names costs a list copy.  A question about one name looks through
the kept executions (``of``).  The timeline is bounded like the change log: at most
``MAX_CELLS`` executions and ``MAX_NAMES`` names in all (a cell with more is kept as
"too many"); what falls off the end moves ``complete_after`` forward, and an answer
says from which execution on it is complete.
"""

import collections

MAX_CELLS = 1_000
MAX_NAMES = 100_000
#: Entries in one answer (default and most).
DEFAULT_ENTRIES = 20
MAX_ENTRIES = 100
#: Change descriptions kept per name and execution.
MAX_CHANGES = 5

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
