"""Change tracking: a ``post_run_cell`` hook that keeps, per visible name, cheap facts
about its value and the execution count at which the name was last bound or changed.

No user code runs in the hook: ids and types are read with C-level ``map``; ``len`` only
of exact builtin types; deeper fingerprints only through the inspectors' ``fingerprint``
(base methods, known attributes).  Silent executions (the probe's own) do not fire
``post_run_cell``.

What is compared after each user cell, and what that guarantees:

* every name's ``id`` (C-level, ``bindings``): binding, rebinding and deleting a name
  are changes at that cell, exactly, whatever the size of the namespace;
* small immutable values (numbers, bool, None, str/bytes up to 4 KiB) are *held*, so
  their id cannot be reused: an unchanged id is the same value, and binding an equal
  value again (re-running ``x = 1``) is no change;
* the ``len`` of exact builtin containers and of long str/bytes (``LEN_TYPES``), for
  every one of them, every cell (C-level, after checking their type): ``append``,
  ``pop``, ``update`` … are changes at that cell, described ``len a → b``;
* deeper fingerprints (``fingerprints``: first item ids of containers; shape/dtype/data
  pointer of arrays; shape/columns/dtypes of tables; attribute count and ids of objects)
  cost Python time, so at most ``DEEP_BUDGET`` values are fingerprinted per cell: values
  bound in that cell first, then the others in turn, objects before containers (whose
  len was already compared).  With up to ``DEEP_BUDGET`` such values — nearly every
  notebook — each one is fingerprinted after every cell.  Above that, a change only a
  deep fingerprint shows (``a[0] = 9``; a column added in place to one of 1,000 tables)
  is seen by the turn that reaches it (``changed_at`` = that later cell) or by a
  snapshot that shows the name (:meth:`ChangeTracker.observe`: ``changed_at`` = the last
  cell), whichever comes first.  The same holds for a name rebound within one cell to a
  new object of the same type that happens to get the old one's id (the old one freed
  first).  A change made after the last cell (a silent execution, a comm handler) is
  recorded by the next cell's hook; snapshots show the current value in any case.
* nested content (``samples``): with a container's deep fingerprint and copy, a sample
  of what lies below its first level — the first 20 entries per level, 4 levels, 256
  entries, numbers and short texts by value, arrays by their head — so that
  ``cfg['db']['host'] = 'k'`` is a change of that cell, said ``db.host 'h' → 'k'``; a
  change past the sample's width or depth, inside a library's object, or in an array
  past its head is not seen (docs/rest-api.md lists these).
* content fingerprints of tables and arrays (``contents``: per-column block hashes,
  null counts and means; 32-bit value words for tables of up to 1,000,000 values,
  within 16 MiB for all) are compared within a time budget of their own, ``CONTENT_MS``
  per cell: values bound or reshaped in the cell first, then those its code names (the
  columns it names first), then, within ``TURN_MS``, the others in turn, column by
  column while the rows are the same ones (same count, same index).  What fits says
  what the cell did inside them (``price: 2,341 values changed, mean 121.1 → 126.4``,
  ``rows by index: 3 added``) *at that cell*; what does not fit is compared by the
  snapshots that show the name, within ``OBSERVE_MS`` per cell (``changed_at`` = the
  last cell, as for deep fingerprints), or by a later turn (``changed_at`` = that later
  cell).  A table bound or reshaped in the cell whose comparison did not fit says so
  (``changed (not compared in time: 100,000 rows)``, replaced by the words once a
  snapshot after that cell compares it); one past ``contents.MAX_COMPARED`` values is
  never compared (``changed (not compared: 40,000,000 rows)``).  A value changed in
  place before its first take (a baseline taken in turn) is not seen.

The tracker also keeps a *shape version* for ``namespace.visibility.Visibility``: bumped when a
visible-able name appears or disappears, a tracked name's type changes, or the set of
names IPython hides changes — what can change which names a snapshot lists.

The summary cache (``inspect.cache.SummaryCache``) and the tracker, as ``entry`` wires them:

* tracker → cache: ``on_change(names)`` (``entry.install`` passes the cache's
  ``discard_many``) is called by the hook with the names whose non-held value was
  rebound, changed len or deep fingerprint, or disappeared; their cached summaries are
  dropped.  Held values are not reported: the cache checks them by identity.
* cache → tracker: when a snapshot looks a non-held value up in the cache, the cache
  fingerprints it and hands the fingerprint to :meth:`ChangeTracker.observe` (the ``observe``
  argument of ``SummaryCache.entry``): that is how a snapshot records a deep, nested or
  content change the hook's budget has not reached yet.  ``observe`` returns a token —
  the content changes seen for the name and the digest of the value's sample (an
  array's or a series' head, a container's first entries and what is nested in them) —
  that must also be the same for the cache to reuse a summary: a preview is never older
  than the value, whatever the hook had time for (a change after the last cell included).
* Both follow the same held rule (``inspect.cache.HELD_TYPES``, ``HELD_TEXT``,
  ``MAX_HELD_TEXT``) and the same fingerprints (``fingerprints.fingerprint``), so they agree
  on what is unchanged.  The cache does not need ``on_change`` to be right (before
  reusing an entry it compares id, type, fingerprint and a weak reference, or the held
  value); ``on_change`` drops entries that cannot be reused, at once.
"""

import itertools
import operator
import re
import time

from ..inspect.base import MISSING
from ..inspect.secrets import secret_name
from ..namespace.visibility import last_key
from .bindings import Bindings
from .contents import (
    BASELINE,
    CHANGED,
    PARTIAL,
    REBOUND,
    RESHAPED,
    SAME,
    SKIPPED,
    TOO_BIG,
    TURN,
    TimeBudget,
)
from .copies import describe
from .fingerprints import describe_changes, describe_len, fingerprint
from .lineage import Lineage, analyse
from .records import LEN_DESCRIBED, MAX_REMOVED, DeepBudget, NameRecords
from .samples import describe as describe_nested
from .samples import digest, sample
from .sources import size_of
from .table_words import NOT_IN_TIME, is_provisional, not_compared

#: Marks the probe's ``post_run_cell`` and ``pre_run_cell`` callbacks and its AST
#: transformer (so that a new probe removes old ones).
HOOK_MARK = "_jupyter_kernel_state_hook"
#: Deep fingerprints computed per cell at most (see the module docstring).
DEEP_BUDGET = 128
#: Milliseconds of content comparisons (tables, arrays) per cell in the hook: for those
#: the cell bound, reshaped or named, and of that for the others in turn; and per
#: execution for the snapshots that follow it (0: none there).
CONTENT_MS = 0.8
TURN_MS = 0.3
OBSERVE_MS = 50.0
#: Characters of a cell's code read for the names it mentions.
MAX_SOURCE = 20_000
#: Names given "not compared in time" per cell at most.
MAX_UNCOMPARED = 32
_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTED = re.compile(r"""['"]([^'"\\\n]{1,200})['"]""")
_ASSIGN = r"\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)"
_ASSIGNED = re.compile(r"""['"]([^'"\\\n]{1,200})['"]\s*\]""" + _ASSIGN)
_ASSIGNED_ATTR = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)" + _ASSIGN)


class ChangeTracker:
    """Per-name change records (``records``), updated after every user cell from a
    comparison of the namespace with the last scan (``bindings``)."""

    def __init__(self, shell, on_change=None):
        self.shell = shell
        self.on_change = on_change  # called with a list of names whose value changed
        self.records = NameRecords()
        self.bindings = Bindings()
        # name -> execution count last bound or changed (a dict's get: sorting calls it per name)
        self.changed_at = self.records.changed_at.get
        # name -> execution count it disappeared at, oldest first (at most MAX_REMOVED)
        self.removed = self.records.removed
        self.change_log = self.records.log  # what was stamped at each execution
        self.last_ec = None  # execution count of the last user cell scanned
        self.last_hook_ms = None  # how long the last scan took
        self.turn_objects = 0  # where the next turn over deep candidates starts
        self.turn_containers = 0  # where the next turn over containers starts
        self.shape_version = 0
        self.scan_count = 0
        self.scan_shape = None  # (len, last key) of the namespace at the last scan
        self.deep_checks = 0  # deep fingerprints taken by the last scan (tests count them)
        self.content_checks = 0  # content comparisons done by the last scan (tests count them)
        self._observe_ec = None  # the execution the snapshots' content budget is for
        self._observe_left = 0.0  # seconds of it left
        self._mentioned = frozenset()  # what the last cell's code names
        self.lineage = Lineage()  # what each cell's code bound and read (bounded)
        self.trees = TreeKeeper()  # the tree IPython parsed for the running cell
        self.lineage_enabled = True  # off only to measure what it costs (benchmarks)
        self.last_lineage_ms = None
        self.scan(None)

    # -- the hook --------------------------------------------------------------------

    def post_run_cell(self, result=None):
        ec = getattr(result, "execution_count", None)
        if type(ec) is not int:
            ec = (getattr(self.shell, "execution_count", 1) or 1) - 1
        code = _cell_code(result, self.shell.user_ns, ec)
        self.scan(ec, code)
        tree, self.trees.tree = self.trees.tree, None
        if self.lineage_enabled:
            cell_id = getattr(getattr(result, "info", None), "cell_id", None)
            self.record_lineage(ec, code, cell_id, tree)

    def record_lineage(self, ec, code, cell_id=None, tree=None):
        """What the cell's code (``tree``: as IPython parsed it, when known) bound and
        read (``lineage``), reads kept only for names of the namespace (or gone from
        it): not builtins, not IPython's own names."""
        t0 = time.perf_counter()
        found = analyse(code, getattr(self.shell, "transform_cell", None), tree)
        if found.read:
            ns = self.shell.user_ns
            hidden = getattr(self.shell, "user_ns_hidden", None) or {}
            removed = self.records.removed
            found.read = {
                name: in_function for name, in_function in found.read.items()
                if (name in ns and hidden.get(name, MISSING) is not ns[name]) or name in removed
            }
        self.lineage.add(ec, cell_id, code, found)
        self.last_lineage_ms = (time.perf_counter() - t0) * 1000.0

    def scan(self, ec, code=None):
        """Record what the cell with execution count ``ec`` (None: before any), whose
        code was ``code`` (None: unknown), changed."""
        t0 = time.perf_counter()
        ns = self.shell.user_ns
        budget = DeepBudget(DEEP_BUDGET)
        self.records.contents.expire(ec)  # what the last cell left uncompared: not now
        shape_changed = self._rebound(ns, ec, budget)
        shape_changed |= self._same_objects(ns, ec, budget)
        shape_changed |= self._turns(ns, ec, budget)
        self._contents(ns, ec, code)
        self.scan_count += 1
        self.scan_shape = (len(ns), last_key(ns))
        if shape_changed:
            self.shape_version += 1
        if ec is not None:
            self.last_ec = ec
        self.deep_checks = budget.taken
        self.last_hook_ms = (time.perf_counter() - t0) * 1000.0

    def _rebound(self, ns, ec, budget):
        """Names bound, rebound or deleted since the last scan are recorded; True when
        a trackable name appeared, went or changed type, or the hidden names changed."""
        records = self.records
        hidden_ns = getattr(self.shell, "user_ns_hidden", None)
        rebinding = self.bindings.compare(ns, hidden_ns, records.value_id)
        shape_changed = rebinding.shape_changed
        if rebinding.keys_shrank:
            gone = records.forget_gone(self.bindings.keys, ec)
            self._notify(gone)
            shape_changed = shape_changed or bool(gone)
        if rebinding.names:
            names, values, ids = rebinding.names, rebinding.values, rebinding.ids
            shape_changed |= self._record(names, values, ids, ec, budget)
        return shape_changed

    def _same_objects(self, ns, ec, budget):
        """Names still bound to the same id: a container with a new len is a change at
        ``ec``; another type under that id (the old object freed) is recorded anew (True)."""
        resized, retyped = self._length_changes(ns)
        shape_changed = False
        if retyped:
            values = [ns[n] for n in retyped]
            shape_changed = self._record(retyped, values, list(map(id, values)), ec, budget)
        if resized:
            self._resized(ns, resized, ec, budget)
        return shape_changed

    def _notify(self, names):
        if self.on_change is not None and names:
            self.on_change(names)

    def _record(self, names, values, ids, ec, budget):
        """Record rebound and new names; True when one appeared or changed type."""
        shape_changed, unheld_changed = self.records.record(names, values, ids, ec, budget)
        self._notify(unheld_changed)  # held values are checked by identity by the cache
        return shape_changed

    def _length_changes(self, ns):
        """``(resized, retyped)``: ``(name, len before, len now)`` of LEN_TYPES values
        whose len changed, and names whose type changed under the same id (another
        object took it).  C-level: a few ``map`` calls over every such value."""
        lengths = self.records.lengths
        if not lengths:
            return (), ()
        names = list(lengths)
        try:
            values = list(map(ns.__getitem__, names))
        except KeyError:  # a name vanished without the keys changing: check one by one
            values = [ns.get(n, MISSING) for n in names]
        types = list(map(type, values))
        same = list(map(operator.is_, types, self.records.length_types.values()))
        retyped = ()
        if not all(same):
            retyped = [n for n, ok in zip(names, same) if not ok and n in ns]
            names = list(itertools.compress(names, same))
            values = list(itertools.compress(values, same))
            before = [lengths[n] for n in names]
        else:
            before = list(lengths.values())
        now = list(map(len, values))  # exact builtin types only: C code
        if now == before:
            return (), retyped
        resized = [(n, b, a) for n, b, a in zip(names, before, now) if a != b]
        return resized, retyped

    def _resized(self, ns, resized, ec, budget):
        """The same containers with a new len: a change at this cell, described for
        containers (not text); their deep fingerprint is retaken while the budget allows."""
        records = self.records
        lengths, length_types = records.lengths, records.length_types
        for name, before, after in resized:
            lengths[name] = after
            t = length_types[name]
            words = (describe_len(before, after),) if t in LEN_DESCRIBED else ()
            records.fingerprints.pop(name, None)
            if budget.take():
                value = ns[name]
                records.fingerprints[name] = fingerprint(value, t)
                records.verified_at[name] = ec
                old, new = records.copies.retake(name, value, t)
                sampled, sample_now = records.samples.retake(name, value, t, new)
                if budget.word():
                    secret = secret_name(name)
                    words += describe(old, new, value, secret)
                    words += describe_nested(sampled, sample_now, secret)
            else:
                records.copies.drop([name])  # stale: the next turn takes a baseline
                records.samples.drop([name])
            records.mark_changed(name, ec, words)
        self._notify([name for name, _, _ in resized])

    def _turns(self, ns, ec, budget):
        """Deep fingerprints of values bound before, in turn, while the budget allows:
        objects, then containers (a value fingerprinted earlier at ``ec`` is skipped).
        True when one turned out to have another type (see ``_deep``)."""
        records, shape_changed = self.records, False
        if budget.left > 0 and records.deep_candidates:
            names, self.turn_objects = _turn(
                list(records.deep_candidates), self.turn_objects, budget.left
            )
            shape_changed = self._deep(ns, self._unverified(names, ec), ec, budget)
        if budget.left > 0 and records.lengths:
            names, self.turn_containers = _turn(
                list(records.lengths), self.turn_containers, budget.left
            )
            shape_changed |= self._deep(ns, self._unverified(names, ec), ec, budget)
        return shape_changed

    def _contents(self, ns, ec, code):
        """Tables and arrays compared within ``CONTENT_MS``: those bound or reshaped in
        this cell, then those its code names, then the others in turn."""
        contents = self.records.contents
        self.content_checks = 0
        if ec is None or not contents.names or CONTENT_MS <= 0:  # 0: no content comparisons
            return
        budget = TimeBudget(CONTENT_MS / 1000.0)
        in_turn = TimeBudget(min(CONTENT_MS, TURN_MS) / 1000.0)
        mentioned = self._mentioned = _mentioned(code)
        turns = 0
        for name, reason in contents.agenda(ec, mentioned):
            share = in_turn if reason == TURN else budget
            if share.left() <= 0:
                break
            value = ns.get(name, MISSING)
            if value is MISSING or not contents.affordable(name, share):
                continue
            turns += reason == TURN
            status, words = contents.check(name, value, ec, share, reason, mentioned,
                                           self.records.room(name, ec))
            self.content_checks += status != SKIPPED
            self._content_found(name, value, ec, reason, status, words)
        contents.advance(turns)
        self._uncompared(ns, ec)

    def _content_found(self, name, value, ec, reason, status, words):
        """Record what a content comparison of ``name`` at ``ec`` found; a "not compared
        in time" said earlier for ``ec`` gives way to what was compared since."""
        records = self.records
        if status == CHANGED or (status == TOO_BIG and words):
            records.add_words(name, ec, words)
            self._notify([name])
        elif status == SAME and reason == REBOUND and records.changed_at.get(name) == ec \
                and not records.changes.get(name):
            records.add_words(name, ec, ("values unchanged",))
        elif status == SKIPPED and reason in (REBOUND, RESHAPED):
            self._not_in_time(name, value, ec)
        elif status == PARTIAL and (reason in (REBOUND, RESHAPED) or self._provisional(name, ec)):
            if self._silent(name, ec):
                records.add_words(name, ec, words)
        elif status in (SAME, BASELINE) and self._provisional(name, ec):
            records.add_words(name, ec, ())

    def _silent(self, name, ec):
        """``name`` has no words at ``ec`` but "not compared in time": only then is that
        said (a table whose shape changed already says what changed)."""
        return not any(not is_provisional(w) for w in self.records.changes.get(name, ())) \
            or self.records.changed_at.get(name) != ec

    def _provisional(self, name, ec):
        records = self.records
        return records.changed_at.get(name) == ec and any(
            NOT_IN_TIME in w for w in records.changes.get(name, ()))

    def _uncompared(self, ns, ec):
        """Tables rebound or reshaped in this cell whose comparison did not fit say so."""
        records = self.records
        left = [n for n, (reason, at) in records.contents.pending.items()
                if at == ec and reason in (REBOUND, RESHAPED)]
        for name in left[:MAX_UNCOMPARED]:
            if not any(NOT_IN_TIME in w for w in records.changes.get(name, ())):
                self._not_in_time(name, ns.get(name), ec)

    def _not_in_time(self, name, value, ec):
        facts = self.records.contents.facts.get(name)
        if facts is None or facts.taken_at == ec or not self._silent(name, ec):
            return  # no earlier take to compare with, or its shape's words say it changed
        size = size_of(value)
        if size is not None:
            self.records.add_words(name, ec, (not_compared(size[0], size[1], NOT_IN_TIME),))

    def _unverified(self, names, ec):
        if ec is None:
            return names
        verified_at = self.records.verified_at
        return [n for n in names if verified_at.get(n) != ec]

    def _deep(self, ns, names, ec, budget):
        """Retake the deep fingerprints of ``names``; one that differs is a change at
        ``ec``.  A value of another type under the same id is recorded anew (True)."""
        records, changed, shape_changed = self.records, [], False
        fingerprints, value_type = records.fingerprints, records.value_type
        for name in names:
            value = ns.get(name, MISSING)
            if value is MISSING:
                continue
            t = type(value)
            if value_type.get(name) is not t:  # another object took the old one's id
                shape_changed |= self._record([name], [value], [id(value)], ec, budget)
                continue
            if not budget.take():
                break  # the rest in a later turn
            fp = fingerprint(value, t)
            old = fingerprints.get(name, MISSING)
            fingerprints[name] = fp
            records.verified_at[name] = ec
            if fp is None:
                records.deep_candidates.pop(name, None)
            before, after = records.copies.retake(name, value, t)
            sampled, sample_now = records.samples.retake(name, value, t, after)
            if old is MISSING:
                continue  # a baseline
            nested = sampled is not None and sample_now is not None and sampled != sample_now
            if old == fp and (before is None or after is None or before == after) and not nested:
                continue
            if old != fp:
                records.contents.reshaped(name, ec)
            words = describe_changes(t, old, t, fp)
            if budget.word():
                secret = secret_name(name)
                words += describe(before, after, value, secret)
                words += describe_nested(sampled, sample_now, secret)
            records.mark_changed(name, ec, words)
            changed.append(name)
        self._notify(changed)
        return shape_changed

    # -- snapshot time ---------------------------------------------------------------

    def observe(self, name, value, t, fp):
        """A snapshot fingerprinted ``value`` (still bound to ``name``): a change the hook
        has not seen since the last cell (deep fingerprint, nested sample, content within
        the snapshots' budget) is a change at the last cell.

        Returns the summary cache's token for the value — its content changes seen and the
        digest of its sample (what a preview shows) — or None when it has neither: the
        cache reuses a summary only while the token is the same."""
        records = self.records
        entries = sample(value, t)
        if records.fingerprints.get(name, MISSING) == fp and entries is None \
                and name not in records.contents.names:
            version = records.versions.get(name)  # the usual case: as the hook saw it
            return None if version is None else (version, None)
        here = (
            records.value_id.get(name) == id(value)
            and records.value_type.get(name) is t
            and name not in records.held_value
        )  # else rebound outside a cell (change_of says so) or held: nothing to add
        if here:
            seen = self._observe_fingerprint(name, value, t, fp)
            if not seen and entries is not None and name in records.samples.by_name:
                self._observe_sample(name, value, t, entries)
            if name in records.contents.names:
                self._observe_content(name, value)
        version = records.versions.get(name)
        if entries is None and version is None:
            return None
        return (version, None if entries is None else digest(entries))

    def _observe_fingerprint(self, name, value, t, fp):
        """The deep fingerprint compared; True when it told something (or nothing can
        be told now)."""
        records = self.records
        old = records.fingerprints.get(name, MISSING)
        if old == fp:
            return False  # the usual case: as the hook saw it
        last = self.last_ec
        if old is MISSING:  # no baseline yet: this one is it
            if name in records.deep_candidates or name in records.lengths:
                records.fingerprints[name] = fp
                records.verified_at[name] = last
                records.samples.retake(name, value, t)
            return True
        if last is None or records.verified_at.get(name) == last:
            return True  # changed since the last cell: the next hook records it
        before = records.lengths.get(name)
        if before is not None and len(value) != before:
            return True  # its len changed after the last cell: the next hook records it
        records.fingerprints[name] = fp
        records.verified_at[name] = last
        records.contents.reshaped(name, last)
        old_copy, new_copy = records.copies.retake(name, value, t)
        sampled, sample_now = records.samples.retake(name, value, t)
        secret = secret_name(name)
        words = describe(old_copy, new_copy, value, secret)
        words += describe_nested(sampled, sample_now, secret)
        records.mark_changed(name, last, describe_changes(t, old, t, fp) + words)
        self._notify([name])
        return True

    def _observe_sample(self, name, value, t, entries):
        """The same fingerprint, another sample (a value past the fingerprint's first
        items, or nested): a change at the last cell, told from the copy and sample."""
        records = self.records
        kept = records.samples.by_name.get(name)
        last = self.last_ec
        if kept == entries or last is None or records.verified_at.get(name) == last:
            return
        records.verified_at[name] = last
        old_copy, new_copy = records.copies.retake(name, value, t)
        records.samples.retake(name, value, t)
        secret = secret_name(name)
        words = describe(old_copy, new_copy, value, secret) + describe_nested(kept, entries, secret)
        records.mark_changed(name, last, words)
        self._notify([name])

    def _observe_content(self, name, value):
        """A table or array the hook has not compared since the last cell, compared now
        within what is left of the snapshots' budget for that cell."""
        contents = self.records.contents
        last = self.last_ec
        if last is None or contents.verified.get(name) == last or OBSERVE_MS <= 0:
            return
        if self._observe_ec != last:
            self._observe_ec, self._observe_left = last, OBSERVE_MS / 1000.0
        if self._observe_left <= 0:
            return
        pending = contents.pending.get(name)
        reason = pending[0] if pending is not None and pending[1] == last else TURN
        started = time.perf_counter()
        try:
            status, words = contents.check(name, value, last, TimeBudget(self._observe_left),
                                           reason, self._mentioned, self.records.room(name, last))
        finally:
            self._observe_left -= time.perf_counter() - started
        self._content_found(name, value, last, reason, status, words)

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
        kinds, ats, described = self.records.change_of_many([name], [value], since)
        return kinds[0], ats[0], list(described[0])

    def change_of_many(self, names, values, since):
        """``change_of`` for a page: three lists (change, changed_at, changes as a tuple,
        empty when none), no tuple per name."""
        return self.records.change_of_many(names, values, since)

    def removed_since(self, since, limit=MAX_REMOVED):
        """Names removed after ``since``, newest first (up to ``limit``), and their count."""
        return self.records.removed_since(since, limit)


def _turn(names, start, budget):
    """``budget`` names from ``start`` on, wrapping around; the next start."""
    n = len(names)
    if n <= budget:
        return names, 0
    start %= n
    chunk = names[start : start + budget]
    if len(chunk) < budget:
        chunk += names[: budget - len(chunk)]
    return chunk, (start + budget) % n


def _cell_code(result, ns, ec):
    """The code of the cell that just ran (IPython's ``result.info.raw_cell``, else
    ``_i<ec>``), or None."""
    code = getattr(getattr(result, "info", None), "raw_cell", None)
    if type(code) is not str:
        code = ns.get("_i%d" % ec) if type(ec) is int else None
    return code if type(code) is str else None


class Mentioned(frozenset):
    """The names and quoted texts of a cell's code, and (``assigned``) those it assigns
    to: ``df['price'] *= 1.1``, ``df.loc[m, 'price'] = 0``, ``df.price = 0``."""

    assigned = frozenset()


def _mentioned(code):
    """What a cell's code (its first ``MAX_SOURCE`` characters) names: the tables it
    touches, and the columns it names (those it assigns to first)."""
    found = Mentioned()
    if code:
        code = code[:MAX_SOURCE]
        found = Mentioned(frozenset(_NAMES.findall(code)).union(_QUOTED.findall(code)))
        found.assigned = frozenset(_ASSIGNED.findall(code)).union(_ASSIGNED_ATTR.findall(code))
    return found


class TreeKeeper:
    """An AST transformer that changes nothing: it keeps the first tree IPython hands
    its transformers after ``pre_run_cell`` (the user cell's, as IPython parsed and
    transformed it), so that lineage reads the code that ran without parsing it again.
    Later trees of the same cell (``%time`` transforms its statement too) and those of
    silent executions (no ``pre_run_cell``) are not kept."""

    def __init__(self):
        self.tree = None
        self.armed = False

    def visit(self, node):
        if self.armed:
            self.tree, self.armed = node, False
        return node

    def arm(self, *args):
        self.tree, self.armed = None, True


def register(shell, tracker):
    """Register ``tracker``'s hook (and its tree keeper, first among IPython's AST
    transformers), first removing any earlier probe's."""
    unregister_all(shell)

    def _jks_post_run_cell(result=None):
        try:
            tracker.post_run_cell(result)
        except Exception:
            pass  # never disturb the user's cell

    keeper = tracker.trees

    def _jks_pre_run_cell(info=None):
        keeper.arm()

    for marked in (_jks_post_run_cell, _jks_pre_run_cell, keeper):
        setattr(marked, HOOK_MARK, True)
    shell.events.register("post_run_cell", _jks_post_run_cell)
    transformers = getattr(shell, "ast_transformers", None)
    if type(transformers) is list:
        shell.events.register("pre_run_cell", _jks_pre_run_cell)
        transformers.insert(0, keeper)
    return _jks_post_run_cell


def unregister_all(shell):
    """Remove every probe hook and tree keeper (of this probe or an earlier one) from
    ``shell``."""
    events = getattr(shell, "events", None)
    for event in ("post_run_cell", "pre_run_cell"):
        callbacks = getattr(events, "callbacks", {}).get(event, [])
        for cb in list(callbacks):
            if getattr(cb, HOOK_MARK, False):
                try:
                    events.unregister(event, cb)
                except ValueError:
                    pass
    transformers = getattr(shell, "ast_transformers", None)
    if type(transformers) is list:
        transformers[:] = [t for t in transformers if not getattr(t, HOOK_MARK, False)]
