"""DuckDB relations (``DuckDBPyRelation``) explored in DuckDB.

The view is SQL text (``sql``) applied with the relational API — ``rel.filter(where)``,
``.order(order_by)``, ``.limit(n, offset)``, ``.project(columns)`` — and a window brings
back at most its rows (``fetchall`` on the limited relation).  A count is one aggregate
query.  A number column's statistics are one aggregate query (``approx_quantile``:
flagged approximate) and its histogram a second, DuckDB's ``histogram`` over the bins'
edges (at most 50 counts; the edges need the first query's range and quartiles).  A text
column's are one statement: its values counted once by a ``GROUP BY`` (missing values one
group), then those groups summed — rows, missing, exact distinct and empty counts — and
their ``top`` most frequent, ties by value.

Cancelling: at the guard's time a watchdog thread calls the relation's connection's
``interrupt()``, and DuckDB stops the query ("Interrupted!"); nothing is left running.
(DuckDB also looks at Python signals between its tasks, but not inside a long aggregate
pipeline: the guard's SIGALRM alone was seen to leave a count running.)  The code is the
same SQL, as relational API calls (``duckdb``) or one ``SELECT`` over the relation
(``sql``).

Data-quality findings: a column's facts are one aggregate query (counts, min and max,
``approx_quantile`` quartiles — flagged approximate —, ``regexp_full_match`` counts of
text that reads as numbers or dates), the outliers one ``count(*) FILTER``, the
duplicate rows ``count(*)`` against ``distinct()``'s.  Fixes are relational API calls
(:class:`DuckDBFixes`: ``distinct()``, ``project('* EXCLUDE (…)')``, ``project('*
REPLACE (…)')``, ``filter(…)``).
"""

import re

from ..windows import code as fixes
from ..windows.code import NoCode
from ..windows.columns import sort_keys
from ..windows.expressions import text_literal
from ..windows.families import Column
from ..windows.findings import DATE_PATTERN, NUMBER_PATTERN
from . import aggregates, base, sql
from .base import register
from .engine import EngineTable
from .engine_findings import ALL_KINDS

_INTEGERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
             "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "DECIMAL")
_FLOATS = ("FLOAT", "DOUBLE", "REAL")
#: Files a relation's SQL reads: read_parquet('…'), read_csv([...]), FROM '….parquet'.
_FILES = re.compile(
    r"read_(?:parquet|csv|csv_auto|json|json_auto|ndjson)\s*\(\s*\[?\s*'((?:[^']|'')*)'"
    r"|\bFROM\s+'((?:[^']|'')*)'", re.IGNORECASE)


def _family(dtype):
    """(family, NaN possible) of a DuckDB type's text."""
    base_type = dtype.split("(")[0].strip().upper()
    if base_type in _INTEGERS:
        return "integer", False
    if base_type in _FLOATS:
        return "float", True
    if base_type == "VARCHAR":
        return "string", False
    if base_type == "BOOLEAN":
        return "boolean", False
    if base_type == "DATE":
        return "date", False
    if base_type.startswith("TIMESTAMP"):
        return "datetime", False
    return "other", False


#: The name the profile's statements give the view (``rel.query``).
_VIEW = "__jupyter_kernel_state_view"

_PROFILE_FAMILY = {"integer": "number", "float": "number", "string": "string",
                   "boolean": "boolean", "date": "datetime", "datetime": "datetime"}


@register
class DuckDBTable(EngineTable):
    engine = "duckdb"
    title = "DuckDB"
    syntaxes = ("duckdb", "sql")
    stops = "interrupted in"
    watchdog = True
    watchdog_repeat_s = 0.05  # an interrupt before the query starts is forgotten
    finding_kinds = ALL_KINDS
    fix_library = "duckdb"

    @classmethod
    def matches(cls, t, mro):
        return base.type_in(mro, ("duckdb", "_duckdb"), ("DuckDBPyRelation",))

    def cancel(self):
        con = getattr(self.value, "_con", None)  # the relation's connection (DuckDB 1.x: none)
        interrupt = getattr(con, "interrupt", None)
        if interrupt is not None:
            interrupt()

    # --- the plan -----------------------------------------------------------------------

    def read_schema(self):
        v = self.value
        return list(zip(v.columns, [str(t) for t in v.types]))

    def raw_names(self):
        return list(self.value.columns)

    def family(self, position):
        return self._sql_column(position).column

    def _sql_column(self, position):
        name = self.raw_names()[position]
        dtype = str(self.value.types[position])
        family, nan = _family(dtype)
        tz = "UTC" if "TIME ZONE" in dtype.upper() else None
        column = Column(self.schema()[position][0], dtype, family, tz=tz)
        return sql.SqlColumn(sql.identifier(name), column, nan)

    def location(self):
        text = self.value.sql_query()
        files = []
        for match in _FILES.finditer(text):
            path = (match.group(1) or match.group(2) or "").replace("''", "'")
            if path and path not in files:
                files.append(path)
        if files:
            return "files: " + ", ".join(files[:5]) + (" …" if len(files) > 5 else "")
        return None

    def plan(self):
        try:  # as text: under Jupyter, DuckDB shows the plan as HTML and returns ""
            return self.value.explain(format="text")
        except TypeError:  # DuckDB 1.x: no format
            return self.value.explain()

    # --- the view as SQL ----------------------------------------------------------------

    def _where(self, view, columns):
        if view.filter is None:
            return None
        return sql.where(view.filter, lambda c: self._sql_column(columns.find(c)))

    def _order(self, view, columns):
        keys = sort_keys(view, columns)
        if not keys:
            return None
        return sql.order_by(keys, self._sql_column)

    def _viewed(self, view, columns, order=True):
        rel = self.value
        condition = self._where(view, columns)
        if condition is not None:
            rel = rel.filter(condition)
        ordering = self._order(view, columns) if order else None
        if ordering is not None:
            rel = rel.order(ordering)
        return rel

    def _projection(self, positions):
        return ", ".join(sql.identifier(self.raw_names()[p]) for p in positions)

    # --- computed in DuckDB -------------------------------------------------------------

    def count(self, view, ms, columns):
        rel = self.run(ms, self._viewed, view, columns, False)
        return int(self.run(ms, lambda: rel.aggregate("count(*)").fetchall()[0][0]))

    def window(self, view, offset, limit, positions, ms, columns):
        def read():
            rel = self._viewed(view, columns).limit(limit, offset)
            if not positions:
                return [[] for _ in rel.project("1").fetchall()]
            return [list(row) for row in rel.project(self._projection(positions)).fetchall()]

        return self.run(ms, read)

    def profile_column(self, view, position, top, rows, ms, texts, columns):
        rel = self.run(ms, self._viewed, view, columns, False)
        if rows is not None:
            rel = self.run(ms, rel.limit, rows)
        col = self._sql_column(position)
        family = _PROFILE_FAMILY.get(col.column.family, "other")
        c = col.sql
        missing = "count(*) FILTER (WHERE isnan({}))".format(c) if col.nan else "0"
        head = "count(*), count({}), {}".format(c, missing)
        entry = {"family": family}
        if family == "number":
            value = "(CASE WHEN isfinite({0}) THEN {0} END)".format(c) if col.nan else c
            row = self._one(ms, rel, "{}, min({v}), max({v}), avg({v}), stddev_samp({v}), "
                            "approx_quantile({v}, [0.05, 0.25, 0.5, 0.75, 0.95]), count({v})"
                            .format(head, v=value))
            total, present, nans, low, high, mean, std, qs, finite_n = row
            qs = list(qs) if qs is not None else [None] * 5
            qs = [None if q is None else float(q) for q in qs]
            edges = aggregates.bins_of(finite_n, qs, low, high)
            counts = None
            if edges is not None:
                counts = self._bins(ms, rel, value, edges)
            entry.update(aggregates.numbers_from(aggregates.number(low), aggregates.number(high),
                                                 mean, std, qs, counts, edges))
            entry["approximate"] = finite_n > 0
        elif family in ("string",):
            total, present, nans, distinct, empty, best = self._strings(ms, rel, c, top)
            entry.update(aggregates.strings_from(distinct, empty, best, present, texts))
            entry["approximate"] = False
        elif family == "boolean":
            total, present, nans, true = self._one(
                ms, rel, "{}, count(*) FILTER (WHERE {})".format(head, c))
            entry.update({"true": int(true), "false": int(present) - int(true)})
            entry["approximate"] = False
        elif family == "datetime":
            total, present, nans, low, high, median = self._one(
                ms, rel, "{}, min({c}), max({c}), approx_quantile({c}, 0.5)".format(head, c=c))
            entry.update(aggregates.dates_from(low, high, median))
            entry["approximate"] = present > 0
        else:
            total, present, nans = self._one(ms, rel, head)
            entry["approximate"] = False
        nulls = int(total) - int(present) + int(nans)
        entry["count"], entry["null_count"] = int(total) - nulls, nulls
        return entry

    def _one(self, ms, rel, expressions):
        return self.run(ms, lambda: rel.aggregate(expressions).fetchall()[0])

    def _strings(self, ms, rel, c, top):
        """(rows, present, 0, distinct, empty, the ``top`` most frequent, ties by value)
        from one statement: the column's values counted once (``GROUP BY``: missing values
        one group), then those groups summed and their first ``top`` — exact."""
        best = "NULL"
        if top:
            best = ("(SELECT list(struct_pack(v := v, n := n) ORDER BY n DESC, v) FROM "
                    "(SELECT v, n FROM g WHERE v IS NOT NULL ORDER BY n DESC, v LIMIT {}))"
                    .format(int(top)))
        query = ("WITH g AS MATERIALIZED (SELECT {c} AS v, count(*) AS n FROM {t} GROUP BY {c}) "
                 "SELECT coalesce(sum(n), 0), coalesce(sum(n) FILTER (WHERE v IS NOT NULL), 0), "
                 "count(v), coalesce(sum(n) FILTER (WHERE v = ''), 0), {best} FROM g"
                 .format(c=c, t=_VIEW, best=best))
        total, present, distinct, empty, found = self.run(
            ms, lambda: rel.query(_VIEW, query).fetchall()[0])
        best = [(x["v"], int(x["n"])) for x in found or ()]
        return int(total), int(present), 0, int(distinct), int(empty), best

    def _bins(self, ms, rel, value, edges):
        """How many values fall in each bin (``[left, right)``, the last ``[left,
        right]``), by DuckDB's ``histogram`` over explicit boundaries: it counts each
        value in the bin of the least boundary ≥ it, so the values are negated to close
        the bins on the left."""
        bins = len(edges) - 1
        inner = [-e for e in reversed(edges[1:-1])]  # -e[B-1] < … < -e[1]
        if bins == 1 or any(inner[k] >= inner[k + 1] for k in range(len(inner) - 1)):
            return self._bins_by_step(ms, rel, value, edges)
        bounds = ", ".join("'{!r}'::DOUBLE".format(b) for b in inner)
        found = self.run(ms, lambda: rel.aggregate(
            "histogram(-CAST({} AS DOUBLE), [{}])".format(value, bounds)).fetchall()[0][0])
        found = found or {}
        counts = [int(found.get(-edges[k], 0)) for k in range(1, bins)]
        return [int(found.get(float("inf"), 0)), *counts]

    def _bins_by_step(self, ms, rel, value, edges):
        """The bins by each value's ``floor((v - low) / step)`` (one bin, or edges too
        close to tell apart as boundaries)."""
        bins = len(edges) - 1
        low, high = edges[0], edges[-1]
        step = (high - low) / bins
        bucket = ("least(greatest(CAST(floor(({v} - {low}) / {step}) AS BIGINT), 0), {last})"
                  .format(v=value, low=repr(low), step=repr(step), last=bins - 1))
        found = self.run(ms, lambda: rel.filter(value + " IS NOT NULL").aggregate(
            bucket + " AS b, count(*) AS n", bucket).fetchall())
        counts = [0] * bins
        for b, n in found:
            counts[int(b)] += int(n)
        return counts

    # --- the findings' aggregates ---------------------------------------------------------

    def _limited(self, ms, view, rows, columns):
        rel = self.run(ms, self._viewed, view, columns, False)
        return rel if rows is None else self.run(ms, rel.limit, rows)

    def finding_facts(self, view, position, rows, sample, ms, columns):
        rel = self._limited(ms, view, rows, columns)
        col = self._sql_column(position)
        family = _PROFILE_FAMILY.get(col.column.family, "other")
        c = col.sql
        nans = "count(*) FILTER (WHERE isnan({}))".format(c) if col.nan else "0"
        parts = ["count(*)", "count({})".format(c), nans]
        present = "(CASE WHEN NOT isnan({0}) THEN {0} END)".format(c) if col.nan else c
        if family != "other":
            parts += ["min({})".format(present), "max({})".format(present)]
        if family == "number":
            finite = "(CASE WHEN isfinite({0}) THEN {0} END)".format(c) if col.nan else c
            parts.append("approx_quantile(CAST({} AS DOUBLE), [0.25, 0.5, 0.75])".format(finite))
        elif family == "string":
            number, date = sql.string(NUMBER_PATTERN), sql.string(DATE_PATTERN)
            parts += ["count(*) FILTER (WHERE regexp_full_match({}, {}))".format(c, number),
                      "count(*) FILTER (WHERE regexp_full_match({}, {}))".format(c, date),
                      "count(*) FILTER (WHERE regexp_matches({}, '\\S'))".format(c),
                      "count(*) FILTER (WHERE regexp_full_match({}, {}) AND regexp_matches({}, "
                      "'[0-9]{{2}}:[0-9]{{2}}'))".format(c, date, c),
                      "count(*) FILTER (WHERE regexp_full_match({}, {}) AND regexp_matches({}, "
                      "'(Z|[+-][0-9]{{2}}:?[0-9]{{2}})\\s*$'))".format(c, date, c),
                      "max(length({}))".format(c), "approx_count_distinct({})".format(c)]
        elif family == "category":
            parts.append("approx_count_distinct({})".format(c))
        row = self._one(ms, rel, ", ".join(parts))
        total, count, nans = int(row[0]), int(row[1]), int(row[2])
        facts = {"family": family, "total": total, "nulls": total - count + nans,
                 "whole": col.column.family == "integer", "approximate": True}
        if family != "other":
            facts["low"], facts["high"] = row[3], row[4]
        if family == "number":
            qs = row[5]
            facts["quartiles"] = None if qs is None else [None if q is None else float(q)
                                                          for q in qs]
        elif family == "string":
            numbers, dates, nonblank, times, offsets, longest, distinct = row[5:12]
            facts.update(numbers=numbers, dates=dates, nonblank=nonblank, longest=longest,
                         distinct=distinct,
                         date_kind="utc" if offsets else "datetime" if times else "date")
        return facts

    def count_outside(self, view, position, low, high, rows, ms, columns):
        rel = self._limited(ms, view, rows, columns)
        col = self._sql_column(position)
        test = "({0} < {1} OR {0} > {2})".format(col.sql, sql.literal(low), sql.literal(high))
        if col.nan:
            test = "(NOT isnan({}) AND {})".format(col.sql, test)
        return int(self._one(ms, rel, "count(*) FILTER (WHERE {})".format(test))[0])

    def count_duplicates(self, view, rows, ms, columns):
        rel = self._limited(ms, view, rows, columns)
        total = self._one(ms, rel, "count(*)")[0]
        distinct = self.run(ms, lambda: rel.distinct().aggregate("count(*)").fetchall()[0][0])
        return int(total), int(distinct)

    def _groups(self, ms, view, position, rows, columns):
        """The column's present values and their rows (``v``, ``n``), as a relation."""
        rel = self._limited(ms, view, rows, columns)
        c = self._sql_column(position).sql
        return self.run(ms, lambda: rel.filter(c + " IS NOT NULL").aggregate(
            "{} AS v, count(*) AS n".format(c), c))

    def key_counts(self, view, position, limit, rows, ms, columns):
        groups = self._groups(ms, view, position, rows, columns)
        present, distinct, repeated_rows, repeated = self._one(
            ms, groups, "coalesce(sum(n), 0), count(*), coalesce(sum(n) FILTER (WHERE n > 1), 0), "
            "count(*) FILTER (WHERE n > 1)")
        keys = []
        if repeated:
            keys = [v for (v,) in self.run(ms, lambda: groups.filter("n > 1").project("v")
                                           .limit(limit).fetchall())]
        return int(present), int(distinct), int(repeated_rows), keys, int(repeated)

    def label_counts(self, view, position, limit, rows, ms, columns):
        groups = self._groups(ms, view, position, rows, columns)
        found = self.run(ms, lambda: groups.limit(limit + 1).fetchall())
        return [(str(v), int(n)) for v, n in found]

    def correlations(self, view, positions, rows, ms, columns):
        rel = self._limited(ms, view, rows, columns)
        values = []
        for p in positions:
            col = self._sql_column(p)
            v = "CAST({} AS DOUBLE)".format(col.sql)
            values.append("(CASE WHEN isfinite({0}) THEN {0} END)".format(v) if col.nan else v)
        pairs = [(i, j) for i in range(len(values)) for j in range(i + 1, len(values))]
        parts = []
        for i, j in pairs:
            parts += ["corr({}, {})".format(values[i], values[j]),
                      "regr_count({}, {})".format(values[i], values[j])]
        row = self._one(ms, rel, ", ".join(parts))
        return {pair: (row[2 * k], int(row[2 * k + 1] or 0)) for k, pair in enumerate(pairs)}

    def fix_source(self):
        return DuckDBFixes(self)

    # --- code ---------------------------------------------------------------------------

    def code(self, view, selected, syntax, name, columns):
        condition = self._where(view, columns)
        ordering = self._order(view, columns)
        out = name + "_view"
        projection = None if selected is None else self._projection(selected)
        if syntax == "sql":
            parts = ["SELECT " + (projection or "*"), "FROM " + sql.identifier(name)]
            if condition is not None:
                parts.append("WHERE " + condition)
            if ordering is not None:
                parts.append("ORDER BY " + ordering)
            return "{} = {}.query({}, {})\n".format(
                out, name, text_literal(name), _sql_text("\n".join(parts)))
        calls = []
        if condition is not None:
            calls.append(".filter({})".format(_sql_text(condition)))
        if ordering is not None:
            calls.append(".order({})".format(_sql_text(ordering)))
        if projection is not None:
            calls.append(".project({})".format(_sql_text(projection)))
        if not calls:
            return "{} = {}\n".format(out, name)
        return "{} = (\n    {}\n    {}\n)\n".format(out, name, "\n    ".join(calls))


def _sql_text(text):
    """SQL as a Python string literal (triple-quoted when it spans lines)."""
    if "\n" in text and '"""' not in text and "\\" not in text:
        return '"""' + text + '"""' if not text.endswith('"') else text_literal(text)
    return text_literal(text)


class DuckDBFixes:
    """A finding's fix (``windows.code.Fix``) as relational API calls on the variable:
    ``t = t.distinct()``, ``t.project('* EXCLUDE ("c")')``, ``t.project('* REPLACE
    (TRY_CAST(trim("c") AS DOUBLE) AS "c")')``, ``t.filter('"c" IS NOT NULL')``; one row
    per key through ``QUALIFY row_number() OVER (PARTITION BY "key") = 1`` (which of a
    key's rows is kept is DuckDB's choice: a relation has no order of its own)."""

    library = "duckdb"
    series = False

    def __init__(self, table):
        self.table = table

    def fix(self, fix, steps):
        t = self.table
        current = steps.current
        action = fix.action
        names = [sql.identifier(t.raw_names()[p]) for p in fix.positions]
        if action == fixes.DROP_DUPLICATES:
            if not names:
                steps.bind(current + ".distinct()")
                return
            query = "SELECT * FROM {} QUALIFY row_number() OVER (PARTITION BY {}) = 1".format(
                sql.identifier(steps.name), ", ".join(names))
            steps.bind("{}.query({}, {})".format(current, text_literal(steps.name),
                                                  _sql_text(query)))
        elif action == fixes.DROP_COLUMNS:
            steps.bind("{}.project({})".format(
                current, _sql_text("* EXCLUDE ({})".format(", ".join(names)))))
        elif action == fixes.DROP_MISSING:
            present = t._sql_column(fix.positions[0]).present()
            steps.bind("{}.filter({})".format(current, _sql_text(present)))
        else:
            value = self._value(fix, names[0])
            steps.bind("{}.project({})".format(
                current, _sql_text("* REPLACE ({} AS {})".format(value, names[0]))))

    def _value(self, fix, c):
        action = fix.action
        if action == fixes.TO_NUMBER:
            return "TRY_CAST(trim({}) AS DOUBLE)".format(c)
        if action == fixes.TO_DATE:
            to = {"date": "DATE", "datetime": "TIMESTAMP", "utc": "TIMESTAMPTZ"}[fix.value]
            return "TRY_CAST(trim({}) AS {})".format(c, to)
        if action == fixes.CLIP:
            low, high = fix.value
            return "least(greatest({}, {}), {})".format(c, sql.literal(low), sql.literal(high))
        if action == fixes.RELABEL:
            whens = " ".join("WHEN {} THEN {}".format(sql.string(a), sql.string(b))
                             for a, b in fix.value)
            return "CASE {} {} ELSE {} END".format(c, whens, c)
        raise NoCode("no DuckDB code for " + action.replace("_", " "))
