"""The data-quality findings (``windows.findings``) of a table that lives in an engine:
the rules of a table in memory, fed by aggregate queries the engine runs — nothing is
collected.

Each engine implements the hooks it can (:class:`EngineFindings`: DuckDB's and polars'
do): one aggregate row per column (:meth:`~EngineFindings.finding_facts`: counts, min and
max, quartiles, text that reads as numbers or dates, an estimate of the distinct values),
the values outside two bounds (:meth:`~EngineFindings.count_outside`), the rows less the
distinct ones (:meth:`~EngineFindings.count_duplicates`), a key's repeated values
(:meth:`~EngineFindings.key_counts`), a text column's labels when they are few
(:meth:`~EngineFindings.label_counts`), Pearson's r of pairs of number columns
(:meth:`~EngineFindings.correlations`).  Each query runs under ``column_ms`` and, past
it, is cancelled in the engine and run again on the view's first ``sample_rows`` rows
(flagged).  What holds every distinct value in the engine's memory — the duplicate rows,
a key's values — reads every row only when the view has at most ``sample_rows`` rows,
else its first ``sample_rows`` (a lower bound, said so).  The kinds an engine does not
list in :attr:`~EngineFindings.finding_kinds` are not checked, and the reply says why;
``mixed_types`` never applies (an engine's column holds one type).  The engines' own
outlier rule is the IQR's (their quartiles; no MAD).
"""

from .. import guard
from ..protocol import MAX_FILTER_ITEMS
from ..windows.code import NoCode
from ..windows.columns import ViewColumns
from ..windows.findings import (
    CORRELATION,
    CORRELATION_COLUMNS,
    ID_CHARS,
    KINDS,
    MAX_LABELS,
    Col,
    FindingList,
    Rules,
    filter_refs,
    looks_like_id,
    near_duplicate_groups,
    write_fixes,
)
from ..windows.statistics import Texts
from .base import Cancelled, EngineError, Found, Refused

#: Every kind but ``mixed_types``: what an engine with all the hooks computes.
ALL_KINDS = tuple(k for k in KINDS if k != "mixed_types")
_OUT_OF_TIME = "not reached: the call's time budget ran out"


class EngineFindings:
    """Mixed into ``engine.EngineTable``: the ``findings`` op of an engine's table.

    ``finding_kinds``: the kinds it computes (``windows.findings.KINDS``);
    ``fix_library``: the syntax of its fixes (None: none is written)."""

    finding_kinds = ()
    fix_library = None

    # --- the hooks: one aggregate query each ---------------------------------------------

    def finding_facts(self, view, position, rows, sample, ms, columns):
        """One column of the view (its first ``rows`` rows when not None), as aggregate
        rows: ``{"family"`` (a profile's), ``"total"``, ``"nulls"`` (NaN too), ``"low"``,
        ``"high"`` (min and max of the present values; None for ``other``),
        ``"quartiles"`` ([Q1, median, Q3] of a number column's finite values, or None;
        an engine whose exact quartiles hold the values in memory reads some ``sample``
        of them), ``"approximate"`` (the quartiles are estimates), ``"whole"`` (an
        integer column), and for text ``"numbers"``, ``"dates"``, ``"nonblank"`` (rows
        that read as numbers, as ISO dates, rows not blank), ``"date_kind"`` ("date",
        "datetime", "utc"), ``"longest"`` (characters) and ``"distinct"`` (an
        estimate)``}``."""
        raise Refused("findings are not computed in " + self.title)

    def count_outside(self, view, position, low, high, rows, ms, columns):
        """How many values of the column lie below ``low`` or above ``high``."""
        raise Refused("findings are not computed in " + self.title)

    def count_duplicates(self, view, rows, ms, columns):
        """(rows, distinct rows) of the view's first ``rows`` rows (None: every row)."""
        raise Refused("findings are not computed in " + self.title)

    def key_counts(self, view, position, limit, rows, ms, columns):
        """(present values, distinct ones, rows whose value repeats, the first ``limit``
        repeated values, how many values repeat) of the view's first ``rows`` rows."""
        raise Refused("findings are not computed in " + self.title)

    def label_counts(self, view, position, limit, rows, ms, columns):
        """[(label, rows)] of at most ``limit`` + 1 distinct present values (as text)."""
        raise Refused("findings are not computed in " + self.title)

    def correlations(self, view, positions, rows, ms, columns):
        """{(i, j): (r, n)}: Pearson's r of the columns at ``positions[i]`` and
        ``positions[j]`` (i < j) over the ``n`` rows where both are finite."""
        raise Refused("findings are not computed in " + self.title)

    def fix_source(self):
        """What writes its fixes (``fix(fix, steps)``, as ``windows.sources.Table``)."""
        return None

    def unchecked(self, kind):
        """Why ``kind`` is not checked in this engine."""
        if kind == "mixed_types" and self.finding_kinds:
            return "not applicable: a column of {} holds values of one type".format(self.title)
        return "data-quality findings of this kind are not computed in {} yet".format(self.title)

    # --- the op ----------------------------------------------------------------------------

    def read_findings(self, state, fields, positions, labels, what):
        """Column by column, then the duplicate rows and the correlated pairs; the kinds
        this engine does not compute listed as not checked."""
        view, name = fields["view"], fields["name"]
        syntax, note = self._fix_syntax(fields["syntax"], name, what)
        columns = ViewColumns(self, view, self.columns_total())
        out = FindingList(view.filter)
        for kind in KINDS:
            if kind not in self.finding_kinds:
                out.skip(kind, self.unchecked(kind))
        refs = filter_refs(self.column_names(self.columns_total()), positions)
        self._run = _Run(fields, columns)
        unreached = 0
        if self.finding_kinds:
            for i, (position, (label, _dtype)) in enumerate(zip(positions, labels)):
                if self.session.exhausted:
                    unreached = len(positions) - i
                    break
                col = Col(position, label, refs[position])
                try:
                    self._column_findings(out, col, view)
                except guard.BudgetExhausted:
                    unreached = len(positions) - i
                    break
                except (Cancelled, EngineError, Refused) as exc:
                    out.error("column", col, str(exc))
            for kind, check in (("duplicate_rows", self._duplicates),
                                ("correlated", self._correlated)):
                if kind in self.finding_kinds:
                    self._table_check(out, kind, check, view)
        write = write_fixes(self.fix_source(), name, syntax, dict(enumerate(self.raw_names())),
                            note, self.session)
        listed, cut, severities = out.finish(fields["max_findings"], write)
        total, filtered = self._known_counts(state, view)
        seen = self._run.seen
        if view.filter is not None:
            filtered = seen if filtered is None else filtered
        elif total is None:
            total = seen
        return Found(total, filtered, listed, cut, severities, out.errors, out.not_checked,
                     unreached, self._run.sampled, syntax)

    def _fix_syntax(self, syntax, name, what):
        own = self.fix_library
        if syntax is None:
            if own is None:
                return None, "no fix code is written for {} tables".format(self.title)
            syntax = own
        if syntax != "dplyr" and syntax != own:
            raise NoCode("{} fixes are not written for {} (a {} table): ask for {}".format(
                syntax, name, self.title, " or ".join([s for s in (own, "dplyr") if s])))
        return syntax, None

    def _whole_or_first(self, fn, *args, bounded=False):
        """``(fn(rows, *args), rows)``: ``rows`` None (every row) unless ``bounded`` and
        the view has more than ``sample_rows`` (or an unknown count); past ``column_ms``,
        cancelled and run on the first ``sample_rows`` rows."""
        run = self._run
        limit = run.fields["sample_rows"]
        rows = limit if bounded and (run.seen is None or run.seen > limit) else None
        try:
            found = fn(rows, *args)
        except Cancelled as whole:
            if rows is not None:
                raise
            try:
                found = fn(limit, *args)
            except Cancelled:
                raise whole from None
            rows = limit
        run.sampled = run.sampled or rows is not None
        return found, rows

    def _column_findings(self, out, col, view):
        run = self._run
        ms, columns, limit = run.fields["column_ms"], run.columns, run.fields["sample_rows"]
        position = col.position
        facts, rows = self._whole_or_first(
            lambda rows: self.finding_facts(view, position, rows, limit, ms, columns))
        if rows is None:
            run.seen = int(facts["total"])
        rules = Rules(out, rows is not None, rows, first=True)
        total, nulls = int(facts["total"]), int(facts["nulls"])
        if not total or (nulls and rules.missing(col, total, nulls)):
            return
        present = total - nulls
        family = facts["family"]
        if present < 2 or family == "other":
            return
        low, high = facts.get("low"), facts.get("high")
        if low is not None and low == high:
            rules.constant(col, present, Texts(60).value(low))
            return
        key = looks_like_id(col.name) and "id_like" in self.finding_kinds and (
            (family == "number" and facts.get("whole")) or
            (family == "string" and (facts.get("longest") or 0) <= ID_CHARS))
        if key:
            key = self._key(out, col, view)
        if family == "number" and not key:
            self._outliers(out, col, view, facts, rows)
            if len(run.numbers) < CORRELATION_COLUMNS:
                run.numbers.append(col)
        labelled = family in ("string", "category")
        if labelled and "near_duplicate_labels" in self.finding_kinds and \
                (facts.get("distinct") or 0) <= MAX_LABELS:
            pairs = self.label_counts(view, position, MAX_LABELS, rows, ms, columns)
            pairs.sort(key=lambda pair: pair[0])  # an engine's groups come in no set order
            if len(pairs) <= MAX_LABELS:
                rules.near_duplicates(col, near_duplicate_groups(pairs))
        if family == "string" and not key:
            rules.text(col, int(facts["numbers"] or 0), int(facts["dates"] or 0),
                       int(facts["nonblank"] or 0), facts["date_kind"], False)

    def _outliers(self, out, col, view, facts, rows):
        quartiles = facts.get("quartiles")
        if quartiles is None or None in quartiles:
            return
        run = self._run
        estimated = Rules(out, rows is not None or facts.get("approximate", False), rows,
                          first=True)
        estimated.outliers(
            col, [float(q) for q in quartiles], lambda median: 0.0, facts.get("whole"),
            lambda lo, hi: self.count_outside(view, col.position, lo, hi, rows,
                                              run.fields["column_ms"], run.columns))

    def _key(self, out, col, view):
        """``id_like`` and ``duplicate_keys`` (on at most ``sample_rows`` rows); whether
        the column is a key."""
        run = self._run
        (present, distinct, repeated_rows, keys, repeated), rows = self._whole_or_first(
            lambda rows: self.key_counts(view, col.position, MAX_FILTER_ITEMS, rows,
                                         run.fields["column_ms"], run.columns), bounded=True)
        rules = Rules(out, rows is not None, rows, first=True)
        return rules.key(col, present, distinct, repeated_rows, keys, repeated)

    def _table_check(self, out, kind, check, view):
        if self.session.exhausted:
            out.skip(kind, _OUT_OF_TIME)
            return
        try:
            check(out, view)
        except guard.BudgetExhausted:
            out.skip(kind, _OUT_OF_TIME)
        except (Cancelled, EngineError, Refused) as exc:
            out.error(kind, None, str(exc))

    def _duplicates(self, out, view):
        run = self._run
        (total, distinct), rows = self._whole_or_first(
            lambda rows: self.count_duplicates(view, rows, run.fields["column_ms"], run.columns),
            bounded=True)
        rules = Rules(out, rows is not None, rows, first=True)
        rules.duplicate_rows(int(total) - int(distinct), int(total))

    def _correlated(self, out, view):
        run = self._run
        cols = run.numbers
        if len(cols) < 2:
            return
        positions = [c.position for c in cols]
        pairs, rows = self._whole_or_first(
            lambda rows: self.correlations(view, positions, rows, run.fields["column_ms"],
                                           run.columns))
        rules = Rules(out, rows is not None, rows, first=True)
        found = [(abs(r), i, j, r, n) for (i, j), (r, n) in pairs.items()
                 if r is not None and abs(r) >= CORRELATION and n >= 3]
        for _, i, j, r, n in sorted(found, reverse=True):
            rules.correlated(cols[i], cols[j], max(-1.0, min(1.0, float(r))), int(n))


class _Run:
    """One call's state: its fields, the view's columns found, the rows a column's
    aggregates counted (``seen``), whether any query fell back on the first rows, the
    number columns a correlation compares."""

    def __init__(self, fields, columns):
        self.fields = fields
        self.columns = columns
        self.seen = None
        self.sampled = False
        self.numbers = []
