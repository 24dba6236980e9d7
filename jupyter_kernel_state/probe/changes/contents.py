"""Content fingerprints of tables and arrays, kept per name: what the change tracker
compares to tell what a cell did inside a DataFrame, a Series or an array.

What is kept per value (:class:`ContentFacts`), from its columns (``sources``) hashed by
the libraries' own vectorised calls (``hashing``, ``polars_hashing``):

* per column (at most ``sources.MAX_COLUMNS``): its dtype, null count and mean, and
  block hashes — one 64-bit sum per block of ``block_rows`` rows (at least
  ``MIN_BLOCK_ROWS``, at most ``MAX_BLOCKS`` blocks: 512 bytes a column);
* for a value of at most ``DETAIL_VALUES`` values, while all such *detailed* values hold
  at most ``DETAIL_BYTES`` (the least recently changed lose theirs first): 4 bytes per
  value (a 32-bit hash of each), the index's and a key column's 64-bit words (8 bytes a
  row): what makes counts exact and rows matched by index or key;
* nothing for a value of more than ``MAX_COMPARED`` values: its change reads ``changed
  (not compared: 40,000,000 rows)``; nothing past ``MAX_CONTENTS`` names or
  ``MAX_KEPT_COLUMNS`` columns in all (about 1 KiB each; a new name past them is counted
  in ``refused``).

A comparison is done column by column when the rows are the same (same count, same
index, same columns and dtypes: an in-place edit, a ``fillna``), so a big table is
compared a few columns at a time within a time budget (the columns a cell names first);
otherwise (rows added, removed, reordered) it is one whole take, done only when it fits.
How long a column takes is estimated from what the last ones took (``Contents.rates``).
"""

import array
import collections
import sys
import time

from .. import guard
from .fingerprints import MAX_CHANGES
from .hashing import NumpyOps, is_default_range
from .polars_hashing import PolarsNumpyOps, PolarsOps
from .sources import FRAME, KEY_COLUMNS, content_types, safe_label, source_of
from .table_words import (
    NOT_IN_TIME,
    ColumnChanges,
    compare,
    compare_column,
    not_compared,
    place_text,
    words,
)

#: Values (rows × compared columns) past which a value is not compared.
MAX_COMPARED = 20_000_000
#: Blocks per column at most, and rows per block at least.
MAX_BLOCKS = 64
MIN_BLOCK_ROWS = 1024
#: Values of a table whose per-value words are kept, and bytes of such words in all.
DETAIL_VALUES = 1_000_000
DETAIL_BYTES = 16 << 20
#: Names with content facts at most, and columns in all of them.
MAX_CONTENTS = 2_000
MAX_KEPT_COLUMNS = 20_000
#: Rough Python overhead of the facts of a column and of a value (for the memory count).
_COLUMN_BYTES = 360
_VALUE_BYTES = 900
#: Seconds per value first assumed for a column, per library and kind (then learnt per
#: library and dtype).
_FIRST_RATES = {"numpy": 2.5e-9, "numpy text": 4e-8, "polars": 8e-9, "polars text": 2e-8,
                "polars-numpy": 5e-9, "polars-numpy text": 2e-8}
#: Dtypes whose rate is learnt, at most.
_MAX_RATES = 256
#: Seconds a column costs whatever its length (texts: more calls).
_COLUMN_SECONDS = 3e-5
_TEXT_SECONDS = 8e-5
#: Seconds per row of matching two takes' rows (sorts: index or key, the same rows).
_MATCH_SECONDS = 3e-8

NEW, REBOUND, RESHAPED, TOUCHED, TURN = "new", "rebound", "reshaped", "touched", "turn"
#: What a check did: took a first baseline, found no change, found changes, compared some
#: columns only, did nothing (no time), not compared (too big), not a content value.
BASELINE, SAME, CHANGED, PARTIAL, SKIPPED, TOO_BIG, NOT_CONTENT = (
    "baseline", "same", "changed", "partial", "skipped", "too big", "not content")


class TimeBudget:
    """Seconds left for content work (the hook's, or a snapshot's)."""

    __slots__ = ("deadline",)

    def __init__(self, seconds):
        self.deadline = time.perf_counter() + seconds

    def fits(self, seconds):
        return time.perf_counter() + seconds <= self.deadline

    def left(self):
        return max(0.0, self.deadline - time.perf_counter())


class ColumnFacts:
    __slots__ = ("blocks", "dtype", "identity", "key", "label", "mean", "nulls", "words")

    def __init__(self, column):
        self.key, self.label, self.dtype = column.key, safe_label(column.label), column.dtype
        self.words = self.blocks = self.nulls = self.mean = None
        self.identity = False


class ContentFacts:
    """One take of a value's content (see the module docstring)."""

    __slots__ = ("block_rows", "checked", "columns", "detailed", "index", "index_digest",
                 "index_identity", "index_words", "key", "key_words", "kind", "lib", "rows",
                 "shape", "taken_at")

    def __init__(self, source, block_rows, detailed):
        self.kind, self.lib, self.rows = source.kind, source.ops.lib, source.rows
        self.shape = source.shape
        self.block_rows, self.detailed = block_rows, detailed
        self.columns = {}  # column key -> ColumnFacts, in column order
        self.checked = {}  # column key -> execution count it was last compared at
        self.index = self.index_digest = self.index_words = self.key = self.key_words = None
        self.index_identity = False
        self.taken_at = None

    def nbytes(self, ops):
        """Bytes held (words, blocks, and an estimate of the Python objects)."""
        total = _VALUE_BYTES
        for c in self.columns.values():
            total += _COLUMN_BYTES + (0 if c.blocks is None else 8 * len(c.blocks))
            total += 0 if c.words is None else ops.nbytes(c.words)
        for w in (self.index_words, self.key_words):
            total += 0 if w is None else ops.nbytes(w)
        return total

    def detail_nbytes(self, ops):
        if not self.detailed:
            return 0
        total = sum(ops.nbytes(c.words) for c in self.columns.values() if c.words is not None)
        for w in (self.index_words, self.key_words):
            total += 0 if w is None else ops.nbytes(w)
        return total

    def drop_detail(self):
        self.detailed = False
        self.index_words = self.key_words = None
        for c in self.columns.values():
            c.words = None


class Contents:
    """The content facts of every table and array name, what to compare first, and
    what the comparisons cost."""

    def __init__(self):
        self.names = {}  # names bound to a content value (an ordered set)
        self.facts = {}  # name -> ContentFacts
        self.pending = {}  # name -> (reason, execution count): compare these first
        self.verified = {}  # name -> execution count it was last wholly compared at
        self.detailed = collections.OrderedDict()  # name -> detail bytes (least recent first)
        self.detail_bytes = 0
        self.too_big = {}  # name -> values, for values not compared
        self.least = {}  # name -> seconds its cheapest comparison takes (a column), last seen
        self.found = {}  # name -> (execution, {column key: ColumnChange}) found at it so far
        self.widths = {}  # name -> columns its facts may hold (what MAX_KEPT_COLUMNS counts)
        self.kept_columns = 0
        self.rates = dict(_FIRST_RATES)
        self.refused = 0
        self.turn = 0
        self.types = frozenset()

    # -- what was bound -----------------------------------------------------------------

    def bound(self, names, values, types, ec):
        """Names (re)bound at ``ec``: content values are compared first (a rebinding
        with the old take), others forgotten.  C-level when none are content values."""
        self.types = kinds = content_types()
        if kinds:
            flags = list(map(kinds.__contains__, types))
            if any(flags):
                for name, flag in zip(names, flags):
                    if flag:
                        self.names[name] = True
                        again = name in self.facts or name in self.too_big
                        self.pending[name] = (REBOUND if again else NEW, ec)
        if self.names:
            gone = self.names.keys() & set(names)
            if gone and kinds:
                typed = dict(zip(names, types))
                gone = [n for n in gone if typed[n] not in kinds]
            self.drop(gone)

    def reshaped(self, name, ec):
        if name in self.names and self.pending.get(name, (None, None))[1] != ec:
            self.pending[name] = (RESHAPED, ec)  # a rebinding at ec stays one

    def drop(self, names):
        for name in names:
            self.names.pop(name, None)
            self.pending.pop(name, None)
            self.verified.pop(name, None)
            self.too_big.pop(name, None)
            self.least.pop(name, None)
            self.found.pop(name, None)
            self._forget(name)

    def _forget(self, name):
        self.facts.pop(name, None)
        self.kept_columns -= self.widths.pop(name, 0)
        size = self.detailed.pop(name, None)
        if size is not None:
            self.detail_bytes -= size

    # -- what to compare ---------------------------------------------------------------

    def agenda(self, ec, mentioned):
        """Names in the order the hook compares them: pending (bound or reshaped at
        ``ec``), those the cell's code names, then the others in turn."""
        first = [n for n, (_, at) in self.pending.items() if at == ec]
        seen = set(first)
        touched = [n for n in mentioned if n in self.names and n not in seen] if mentioned else []
        seen.update(touched)
        names = list(self.names)
        start = self.turn % len(names) if names else 0
        rest = [n for n in names[start:] + names[:start] if n not in seen]
        return [(n, self.pending[n][0]) for n in first] + [(n, TOUCHED) for n in touched] + \
            [(n, TURN) for n in rest]

    def affordable(self, name, budget):
        """What comparing ``name`` cost the last time (a column) fits ``budget``: else it
        is not even read (a big table waits for a snapshot, or a quieter cell)."""
        return budget.fits(self.least.get(name, 0.0))

    def advance(self, checked):
        self.turn += checked

    def expire(self, ec):
        """Forget what was pending before ``ec``: its comparison did not fit in time (nor
        in the snapshots after it).  The take it would have been compared with goes too:
        compared later, the change would be dated at a later cell; a new baseline is
        taken in turn."""
        for name in [n for n, (_, at) in self.pending.items() if at != ec]:
            reason = self.pending.pop(name)[0]
            if reason in (REBOUND, RESHAPED):
                self._forget(name)

    # -- comparing -----------------------------------------------------------------------

    def check(self, name, value, ec, budget, reason=TURN, mentioned=None, room=MAX_CHANGES):
        """Compare ``value`` (bound to ``name``) with its last take, within ``budget``:
        ``(status, words)``, at most ``room`` words.  Never raises for the value's sake:
        a value that cannot be read is not compared (and forgotten)."""
        try:
            return self._check(name, value, ec, budget, reason, mentioned, room)
        except BaseException as exc:
            guard.check(exc)
            self.drop([name])
            return NOT_CONTENT, ()

    def _check(self, name, value, ec, budget, reason, mentioned, room):
        source = source_of(value, type(value))
        if source is None:
            self.drop([name])
            return NOT_CONTENT, ()
        cells = source.cells
        if cells > MAX_COMPARED:
            self._forget(name)
            self.too_big[name] = cells
            self.pending.pop(name, None)
            self.verified[name] = ec
            if reason in (REBOUND, RESHAPED):
                return TOO_BIG, (not_compared(source.rows, source.kind, "not compared"),)
            return TOO_BIG, ()
        self.too_big.pop(name, None)
        self.least[name] = min(self._cost(source, [c]) for c in source.columns) \
            if source.columns else 0.0
        old = self.facts.get(name)
        index = None
        if old is None or (old.lib, old.kind, old.rows, old.shape) == \
                (source.ops.lib, source.kind, source.rows, source.shape):
            index = self._index(source, budget)
            if index is _LATER:
                return SKIPPED, ()
            if old is None:  # a first take, column by column as the budget allows
                old = self._start(name, source, index, ec)
                if old is None:
                    return SKIPPED, ()
            keyed = reason == REBOUND and old.key is not None and \
                (index[0] is None or is_default_range(index[0], source.rows))
            if index[0] == old.index and index[1] == old.index_digest and not keyed:
                # the same rows in the same order (a new value whose index says nothing
                # but has a key column is matched by its key: a whole take below)
                return self._by_column(name, old, source, ec, budget, mentioned, room)
        cost = self._cost(source, source.columns) + source.rows * _MATCH_SECONDS
        if index is None and source.index is not None and not source.range_index():
            cost += self._cost(source, source.columns[:1])
        if not budget.fits(cost):
            return SKIPPED, ()
        new = self._take(source, ec, old, index)  # rows added, removed or moved: whole
        self._keep(name, new, ec)
        comparison = compare(old, new, source.ops, places=source.kind != "frame")
        if comparison.unchanged:
            return SAME, ()
        return CHANGED, tuple(words(comparison, source.kind, room, _order(source, mentioned),
                                    place_text(source)))

    def _by_column(self, name, old, source, ec, budget, mentioned, room):
        """The same rows in the same order: compare the columns not yet compared at
        ``ec`` (those the cell names first) while the budget allows; a new column, or
        one of another dtype, gets its baseline (the fingerprint's words tell those)."""
        ops = source.ops
        if old.detailed and source.cells > DETAIL_VALUES:
            old.drop_detail()
        keys = [c.key for c in source.columns]
        self.kept_columns += len(keys) - self.widths.get(name, 0)
        self.widths[name] = len(keys)
        old.columns = {k: old.columns[k] for k in keys if k in old.columns}
        old.checked = {k: old.checked[k] for k in keys if k in old.checked}
        order = _order(source, mentioned)
        todo = [c for c in source.columns if old.checked.get(c.key) != ec]
        compared = [c for c in todo if c.key in old.columns and old.columns[c.key].dtype == c.dtype]
        assigned = _order(source, getattr(mentioned, "assigned", None))
        compared.sort(key=lambda c: (c.key not in assigned, c.key not in order,
                                     old.checked.get(c.key) or 0))
        fresh = [c for c in todo if c.key not in old.columns or old.columns[c.key].dtype != c.dtype]
        key = _key_column(source) if old.detailed and source.kind == FRAME else None
        changes, left, done = [], 0, 0
        waiting = {c.key for c in compared}
        for column in compared + fresh:
            if not budget.fits(self._cost(source, [column])):
                continue  # a cheaper one may still fit
            done += 1
            waiting.discard(column.key)
            facts, words64 = self._column(source, column, old.block_rows, old.detailed,
                                          column is key)
            if words64 is not None and not facts.identity:
                old.key, old.key_words = column.key, ops.keep(words64)
            before = old.columns.get(column.key)
            change = None if before is None else compare_column(
                before, facts, ops, source.kind != "frame")
            old.columns[column.key] = facts
            old.checked[column.key] = ec
            if change is not None:
                changes.append(change)
        left = len(waiting)
        finished = len(old.checked) == len(keys) and all(at == ec for at in old.checked.values())
        if finished:
            old.columns = {k: old.columns[k] for k in keys}
            self.verified[name] = ec
            self.pending.pop(name, None)
        if changes and not old.detailed and source.cells <= DETAIL_VALUES:
            old.detailed = True  # changed again: exact counts from its next comparison on
        self._touch(name, old, ops, recent=bool(changes))
        changes = self._so_far(name, ec, changes, keys)
        if changes:
            whole = finished and all(c.mask is not None or not c.count for c in changes)
            comparison = ColumnChanges(changes, ops if len(changes) > 1 and whole else None)
            found = words(comparison, source.kind, room - (1 if left else 0), order,
                          place_text(source))
            if left:
                found.append("{} of {} columns {}".format(left, len(compared), NOT_IN_TIME))
            return CHANGED, tuple(found)
        if not compared:
            return (BASELINE, ()) if done else (SKIPPED, ())
        if left:
            if not done:
                return SKIPPED, ()
            return PARTIAL, ("{} of {} columns {}".format(left, len(compared), NOT_IN_TIME),)
        return SAME, ()

    def _so_far(self, name, ec, changes, keys):
        """The column changes found at ``ec`` by this comparison and the earlier ones at
        ``ec`` (a table compared a few columns at a time), in column order."""
        earlier = self.found.get(name)
        found = earlier[1] if earlier is not None and earlier[0] == ec else {}
        found.update((c.key, c) for c in changes)
        if found:
            self.found[name] = (ec, found)
        else:
            self.found.pop(name, None)
        return [found[k] for k in keys if k in found]

    def _start(self, name, source, index, ec):
        """Empty facts for a first take (its columns come one by one), kept; None when
        no more names may have facts."""
        if not self._room_for(name, len(source.columns)):
            return None
        detailed = source.cells <= DETAIL_VALUES
        facts = ContentFacts(source, _block_rows(source.rows, None), detailed)
        facts.index, facts.index_digest = index[0], index[1]
        if index[2] is not None:
            facts.index_identity = index[2].identity
            facts.index_words = source.ops.keep(index[2].words) if detailed else None
        facts.taken_at = ec
        self.facts[name] = facts
        return facts

    def _index(self, source, budget):
        """``(index facts, digest, Words)`` of the source's index (hashing an index that
        is not a RangeIndex costs like a column); ``_LATER`` when that does not fit."""
        if source.index is None:
            return (None, None, None)
        if not source.range_index() and not budget.fits(self._cost(source, source.columns[:1])):
            return _LATER
        found = source.index_facts()
        if found is None or type(found) is tuple:
            return (found, None, None)
        return ("values", source.ops.digest(found.words), found)

    def _take(self, source, ec, old, index):
        """A whole take of ``source`` (its index too)."""
        detailed = source.cells <= DETAIL_VALUES
        block_rows = _block_rows(source.rows, old)
        facts = ContentFacts(source, block_rows, detailed)
        if index is None:
            index = self._index(source, TimeBudget(3600.0))
        facts.index, facts.index_digest = index[0], index[1]
        if index[2] is not None:
            facts.index_identity = index[2].identity
            facts.index_words = source.ops.keep(index[2].words) if detailed else None
        key = _key_column(source) if detailed and source.kind == FRAME else None
        for column in source.columns:
            found, words64 = self._column(source, column, block_rows, detailed, column is key)
            facts.columns[column.key] = found
            facts.checked[column.key] = ec
            if column is key and words64 is not None and not found.identity:
                facts.key, facts.key_words = column.key, source.ops.keep(words64)
        facts.taken_at = ec
        return facts

    def _column(self, source, column, block_rows, detailed, keep_key=False):
        """The facts of one column (and its 64-bit words when ``keep_key``); learns how
        long a value takes."""
        ops = source.ops
        started = time.perf_counter()
        facts = ColumnFacts(column)
        found = ops.column(column.read())
        if found is not None:
            facts.blocks = array.array("Q", ops.blocks(found.words, block_rows))
            facts.words = ops.narrow(found.words) if detailed else None
            facts.nulls, facts.mean, facts.identity = found.nulls, found.mean, found.identity
        rows = source.rows
        if rows >= 10_000 and found is not None:
            kind = (source.ops.lib, column.dtype)
            fixed = _TEXT_SECONDS if column.text else _COLUMN_SECONDS
            took = max(1e-10, (time.perf_counter() - started - fixed) / rows)
            rate = self.rates.get(kind)
            if rate is None and len(self.rates) >= _MAX_RATES:
                self.rates = dict(_FIRST_RATES)
            # down at once, up slowly: a slow first pass (cold memory) must not keep a
            # column out of every later budget
            self.rates[kind] = took if rate is None or took < rate else 0.8 * rate + 0.2 * took
        return facts, (found.words if keep_key and found is not None else None)

    def _cost(self, source, columns):
        """Seconds ``columns`` of ``source`` are expected to take."""
        rows, rates, lib = source.rows, self.rates, source.ops.lib
        total = 0.0
        for c in columns:
            rate = rates.get((lib, c.dtype))
            if rate is None:
                rate = rates[lib + " text" if c.text else lib]
            total += (_TEXT_SECONDS if c.text else _COLUMN_SECONDS) + rows * rate
        return total

    def _keep(self, name, facts, ec):
        self._forget(name)  # the last take goes, its columns with it
        if not self._room_for(name, len(facts.columns)):
            return
        self.facts[name] = facts
        self.verified[name] = ec
        self.pending.pop(name, None)
        self._touch(name, facts, _ops_of(facts))

    def _room_for(self, name, width):
        """``name`` (without facts) may keep facts of ``width`` columns; else it is
        refused (counted)."""
        if len(self.facts) < MAX_CONTENTS and self.kept_columns + width <= MAX_KEPT_COLUMNS:
            self.kept_columns += width
            self.widths[name] = width
            return True
        self.refused += 1
        return False

    def _touch(self, name, facts, ops, recent=True):
        """Count the value words ``name`` holds (the most recent when ``recent``: it
        changed or was taken); the least recent lose theirs past ``DETAIL_BYTES``."""
        size = self.detailed.get(name)
        if size is not None:
            self.detail_bytes -= size
            if recent:
                self.detailed.move_to_end(name)
        if not facts.detailed or ops is None:
            self.detailed.pop(name, None)
            return
        size = facts.detail_nbytes(ops)
        self.detailed[name] = size
        self.detail_bytes += size
        while self.detail_bytes > DETAIL_BYTES and len(self.detailed) > 1:
            victim, lost = next(iter(self.detailed.items()))
            del self.detailed[victim]
            self.detail_bytes -= lost
            self.facts[victim].drop_detail()

    # -- measures ------------------------------------------------------------------------

    def nbytes(self):
        """Bytes the facts hold (for docs/performance.md)."""
        return sum(f.nbytes(_ops_of(f)) for f in self.facts.values())


_LATER = object()


def _ops_of(facts):
    """The operations on the words of ``facts`` (None: their library is gone)."""
    np, pl = sys.modules.get("numpy"), sys.modules.get("polars")
    if facts.lib == "polars":
        return None if pl is None else PolarsOps(pl)
    if facts.lib == "polars-numpy":
        return None if pl is None or np is None else PolarsNumpyOps(pl, np)
    return None if np is None else NumpyOps(np)


def _block_rows(rows, old):
    """Rows per block: kept from the last take while it gives at most 4 × MAX_BLOCKS
    blocks (so blocks stay comparable as rows are appended), else chosen anew."""
    if old is not None and old.block_rows and -(-rows // old.block_rows) <= 4 * MAX_BLOCKS:
        return old.block_rows
    return max(MIN_BLOCK_ROWS, -(-rows // MAX_BLOCKS))


def _key_column(source):
    """The first integer or text column among the first few: a row key candidate (used
    only when unique before and after, and when the index says nothing)."""
    for column in source.columns[:KEY_COLUMNS]:
        d = column.dtype
        if column.text or d.startswith(("int", "uint", "Int", "UInt")):
            return column
    return None


def _order(source, mentioned):
    """The keys of the columns the cell's code names (by their str label)."""
    if not mentioned:
        return ()
    return {c.key for c in source.columns if type(c.label) is str and c.label in mentioned}
