"""Which names were bound or changed at each execution, so that "what changed since
execution N" costs what changed, not the size of the namespace.

The change tracker adds the names it stamps with an execution count (new, rebound,
grown, fingerprinted as changed); a delta snapshot asks for the names logged after N.
The log is bounded: at most ``MAX_CELLS`` executions and ``MAX_NAMES`` names (a cell
rebinding more names than that is logged as "too many"); what falls off the end moves
``complete_after`` forward, and a question about an earlier execution gets None ("cannot
tell: reload the whole list"), never a shorter answer.
"""

import collections

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
