"""polars tables in memory (eager DataFrame, Series): everything the table ops know of
polars (its LazyFrames are an engine's: ``polars_lazy``, which builds its views with the
pieces here).

* the tables (:class:`PolarsFrame`, :class:`PolarsSeries`): their shape and names, and
  a window read with ``slice`` (only the rows and columns asked for);
* a column's family (:func:`polars_column`);
* a filter as polars expressions (:func:`polars_condition`:
  ``pl.col("price").is_not_null() & (pl.col("price") > 10.0)``, a float column's NaN
  missing too), a view's rows in polars' stable sort, missing values last, and the code
  of the view (:class:`PolarsTable`);
* a column's statistics (:class:`PolarsColumn`) and what the data-quality findings read
  of it; a finding's fix (:meth:`PolarsTable.fix`, LazyFrames' too).

Nothing is imported: polars comes from ``sys.modules``.  Every read of the value goes
through the time guard.
"""

import inspect
import sys

from .. import guard
from ..inspect.tables import POLARS_FRAME, POLARS_SERIES, label_text
from ..protocol import Condition
from ..windows import code as fixes
from ..windows.cells import dtype_is_date
from ..windows.code import NoCode, Replacements, Steps, wrapped
from ..windows.compare import (
    ADDED,
    CHANGED,
    QUOTED_KEYS,
    REMOVED,
    UNCHANGED,
    Comparer,
    Matched,
    NotComparable,
    one_table,
)
from ..windows.expressions import (
    Attr,
    Binary,
    Call,
    ListOf,
    Lit,
    Ref,
    both,
    literal,
    method,
)
from ..windows.families import BadFilter, Column
from ..windows.filters import condition_test, expression
from ..windows.findings import CONFIRM_ROWS, type_groups
from ..windows.sources import Table
from ..windows.statistics import (
    PERCENTS,
    SeriesColumn,
    bins_for,
    booleans_out,
    counts_from,
    edges_for,
    histogram,
    no_numbers,
    numbers_out,
    series_dates_out,
    strings_out,
)
from .base import register
from .memory import LABEL_CHARS, MemoryTable, OneColumn, transpose

# --- the tables ---------------------------------------------------------------------------


@register
class PolarsFrame(MemoryTable):
    kind = "dataframe"
    inspector = POLARS_FRAME

    def total_rows(self):
        return int(self.run(lambda v: v.height, self.value))

    def columns_total(self):
        return int(self.run(lambda v: v.width, self.value))

    def shape(self):
        return [self.total_rows(), self.columns_total()]

    def column_names(self, n):
        return [label_text(c, LABEL_CHARS) for c in self.run(lambda v: v.columns[:n], self.value)]

    def column_labels(self, positions):
        v = self.value
        names = self.run(lambda: v.columns)
        dtypes = self.run(lambda: v.dtypes)
        return [(label_text(names[i], LABEL_CHARS), str(dtypes[i])) for i in positions]

    def column_values(self, position):
        return self.value.to_series(position)

    def stats_column(self, position):
        return PolarsColumn(self.column_values(position))

    def table(self, columns):
        return PolarsTable(self, columns, self.value, series=False)

    def fix_source(self):
        return self.table(None)

    def duplicate_rows(self, rows):
        """Rows whose 64-bit hash (``hash_rows``) repeats, compared by polars itself
        (``n_unique``: NaN equals NaN) when at most
        :data:`windows.findings.CONFIRM_ROWS`; a tenth of ``n_unique``'s time on a
        million rows."""
        v = self.value if rows is None else self._rows(rows)
        if not len(v):
            return 0
        hashes = v.hash() if kind_of_series(v) else v.hash_rows()
        extra = len(v) - hashes.n_unique()
        if extra:
            repeated = hashes.is_duplicated()
            if int(repeated.sum()) <= CONFIRM_ROWS:
                candidates = v.filter(repeated)
                extra = len(candidates) - candidates.n_unique()
        return int(extra)

    def _rows(self, rows):
        if type(rows) is slice:
            return self.run(lambda v: v.slice(rows.start, rows.stop - rows.start), self.value)
        return self.run(lambda v: v[list(rows)], self.value)

    def window(self, rows, positions, cells):
        sub = self._rows(rows)
        n = sub.height
        start = rows.start if type(rows) is slice else None
        index = [str(start + i) for i in range(n)] if start is not None else [str(i) for i in rows]
        columns = []
        for p in positions:
            col = self.run(lambda p=p: sub.to_series(p))
            columns.append(cells.column(self.run(col.to_list), dtype_is_date(col.dtype)))
        return index, transpose(columns, n)

    def comparer(self, other, names):
        """The comparison of this frame (``name``'s, the after) with ``other`` (a table
        of ``with``, the before): :class:`PolarsComparer`."""
        return PolarsComparer(self, other, names)


@register
class PolarsSeries(OneColumn, PolarsFrame):
    kind = "series"
    inspector = POLARS_SERIES

    def total_rows(self):
        return int(self.run(len, self.value))

    def column_labels(self, positions):
        v = self.value
        return [(label_text(v.name, LABEL_CHARS) or "value", str(v.dtype))]

    def column_values(self, position):
        return self.value

    def table(self, columns):
        return PolarsTable(self, columns, self.value.to_frame(), series=True)

    def window(self, rows, positions, cells):
        v = self.value
        if type(rows) is slice:
            sub = self.run(lambda: v.slice(rows.start, rows.stop - rows.start))
            index = [str(rows.start + i) for i in range(len(sub))]
        else:
            sub = self.run(lambda: v[list(rows)])
            index = [str(i) for i in rows]
        return index, [[x] for x in cells.column(self.run(sub.to_list), dtype_is_date(v.dtype))]


def kind_of_series(value):
    """Whether a polars value is a Series (else a DataFrame)."""
    return type(value).__name__ == "Series"


# --- a column's family ---------------------------------------------------------------------

_FAMILIES = {"Boolean": "boolean", "String": "string", "Utf8": "string",
             "Categorical": "category", "Enum": "category", "Date": "date",
             "Datetime": "datetime"}


def polars_column(name, dtype):
    """The ``families.Column`` of a polars column of ``dtype``."""
    base = type(dtype).__name__
    if base in ("DataTypeClass", "type"):  # a dtype class rather than an instance
        base = getattr(dtype, "__name__", base)
    if base.startswith(("Int", "UInt")):
        family = "integer"
    elif base.startswith("Float"):
        family = "float"
    else:
        family = _FAMILIES.get(base, "other")
    inner = Column(name, "String", "string") if family == "category" else None
    return Column(name, str(dtype), family, tz=getattr(dtype, "time_zone", None), inner=inner)


# --- a filter as polars expressions --------------------------------------------------------


def polars_condition(c, ref, column):
    """Condition ``c`` on the column ``ref`` (``pl.col(...)``) as a polars expression:
    missing values (null, and NaN in a float column) match only ``isnull``."""
    floats = column.family == "float"
    if c.op == "isnull":
        missing = method(ref, "is_null")
        return Binary("|", (missing, method(ref, "is_nan"))) if floats else missing
    present = [method(ref, "is_not_null")] + ([method(ref, "is_not_nan")] if floats else [])
    if c.op == "notnull":
        return both(*present)
    return both(*present, condition_test(c, ref, column, _POLARS))


def _polars_text(ref, column, c):
    if column.family == "string":
        return ref
    return method(ref, "cast", Ref("pl.String", sys.modules["polars"].String, "pl"))


def _polars_search(c, text):
    s = Attr(text, "str")
    if c.op == "regex":
        pattern = c.value if c.case else "(?i)" + c.value
        _check_rust_regex(c, pattern)
        return method(s, "contains", pattern)
    if not c.case:
        s = Attr(method(s, "to_lowercase"), "str")
    value = c.value if c.case else c.value.lower()
    if c.op in ("contains", "not_contains"):
        return method(s, "contains", value, literal=True)
    return method(s, "starts_with" if c.op == "starts_with" else "ends_with", value)


def _polars_bound(value):
    """A range's bound: text as ``pl.lit("a")`` (``is_between`` reads a plain string as
    a column's name)."""
    if type(value) is str:
        pl = sys.modules["polars"]
        return Call(Attr(Ref("pl", pl, "pl"), "lit"), [Lit(value)])
    return value


_POLARS = {"between": "is_between", "in": "is_in", "text": _polars_text,
           "search": _polars_search, "bound": _polars_bound}


def _check_rust_regex(c, pattern):
    """polars reads patterns with Rust's regex crate: ask it about this one."""
    pl = sys.modules["polars"]
    try:
        pl.select(pl.lit("").str.contains(pattern))
    except Exception as exc:
        first = (str(exc).strip().splitlines() or ["invalid"])[-1].strip()
        for line in str(exc).splitlines():
            if line.strip().startswith("error:"):
                first = line.strip()[len("error:"):].strip()
        raise BadFilter("filter regex {!r} is not a valid polars (Rust) regular expression: "
                        "{}".format(c.value[:60], first[:200])) from None


# --- the view: its rows and its code -------------------------------------------------------


class PolarsTable(Table):
    """A polars DataFrame (a Series as its one-column frame: ``series``); ``frame`` may be
    anything with polars' ``columns`` and ``dtypes`` (a LazyFrame's schema)."""

    library = "polars"

    def __init__(self, table, columns, frame, series):
        super().__init__(table, columns)
        self.frame, self.series = frame, series
        self.pl = sys.modules["polars"]
        self.names = frame.columns
        self.dtypes = frame.dtypes

    def pl_ref(self):
        return Ref("pl", self.pl, "pl")

    def column(self, position):
        return Call(Attr(self.pl_ref(), "col"), [Lit(self.names[position])])

    def resolve(self, wanted):
        position = self.columns.find(wanted)
        return self.column(position), polars_column(self.names[position], self.dtypes[position])

    def mask(self, view):
        if view.filter is None:
            return None
        return expression(view.filter, self.resolve, polars_condition)

    def sort_keys(self, keys):
        """The sort's expressions: a float column's NaN as null, so that it sorts last."""
        out = []
        for position, _desc in keys:
            ref = self.column(position)
            if polars_column("", self.dtypes[position]).family == "float":
                ref = method(ref, "fill_nan", None)
            out.append(ref)
        return out

    def sort_node(self, base, keys):
        """``base.sort([...], descending=[...], nulls_last=True, maintain_order=True)``."""
        return method(base, "sort", ListOf(self.sort_keys(keys)),
                      descending=[desc for _, desc in keys], nulls_last=True,
                      maintain_order=True)

    def rows(self, view):
        index = "__row"
        while index in self.names:
            index += "_"
        base = Ref("t", self.frame.with_row_index(index))
        mask = self.mask(view)
        node = base if mask is None else method(base, "filter", mask)
        keys = self.keys(view)
        if keys:
            node = self.sort_node(node, keys)
        positions = node.evaluate().get_column(index)
        np = sys.modules.get("numpy")
        positions = positions.to_numpy() if np is not None else positions.to_list()
        return positions, None if mask is None else len(positions)

    def fix(self, fix, steps):
        """A finding's fix (``windows.code.Fix``) as polars calls on the variable — a
        DataFrame or a LazyFrame alike (a Series through ``to_frame()`` and back):
        ``unique``, ``drop``, ``filter``, ``with_columns``."""
        if self.series:
            if fix.action == fixes.DROP_COLUMNS:
                raise NoCode("a Series is one column: drop the variable rather than its column")
            steps.bind(steps.current + ".to_frame()")
        current = steps.current
        action = fix.action
        names = [self.names[p] for p in fix.positions]
        if action == fixes.DROP_DUPLICATES:
            if names:
                steps.bind("{}.unique(subset={}, keep=\"first\", maintain_order=True)".format(
                    current, literal(names, steps.imports)))
            else:
                steps.bind(current + ".unique(maintain_order=True)")
        elif action == fixes.DROP_COLUMNS:
            steps.bind("{}.drop({})".format(current, literal(names, steps.imports)))
        elif action == fixes.DROP_MISSING:
            position = fix.positions[0]
            kept = polars_condition(Condition(position, "notnull"), self.column(position),
                                    polars_column(names[0], self.dtypes[position]))
            steps.bind("{}.filter({})".format(current, kept.render(steps.imports)))
        else:
            expression = self._fixed_column(fix, fix.positions[0])
            steps.bind("{}.with_columns({})".format(current, expression.render(steps.imports)))
        if self.series:
            steps.bind(steps.current + ".to_series()")

    def _fixed_column(self, fix, position):
        pl = self.pl
        ref = self.column(position)
        action = fix.action
        if action == fixes.TO_NUMBER:
            text = method(Attr(ref, "str"), "strip_chars")
            return method(text, "cast", Ref("pl.Float64", pl.Float64, "pl"), strict=False)
        if action == fixes.TO_DATE:
            text = Attr(method(Attr(ref, "str"), "strip_chars"), "str")
            if fix.value == "date":
                return method(text, "to_date", strict=False)
            if fix.value == "utc":
                return method(text, "to_datetime", strict=False, time_zone="UTC")
            return method(text, "to_datetime", strict=False)
        if action == fixes.CLIP:
            low, high = fix.value
            return method(ref, "clip", low, high)
        if action == fixes.RELABEL:
            mapping = Replacements(fix.value)
            family = polars_column("", self.dtypes[position]).family
            if family == "category":
                text = method(ref, "cast", Ref("pl.String", pl.String, "pl"))
                return method(method(text, "replace", mapping), "cast",
                              Ref("pl.Categorical", pl.Categorical, "pl"))
            return method(ref, "replace", mapping)
        raise NoCode("no polars code for " + action.replace("_", " "))

    def code(self, view, name, selected):
        """``t_view = t.filter(mask)``, ``.sort(...)``, ``.select([...])`` (a Series
        through ``to_frame()`` and back)."""
        steps = Steps(name)
        steps.imports.add("pl")
        if self.series:
            steps.bind("{}.to_frame()".format(name))
        mask = self.mask(view)
        if mask is not None:
            steps.bind("{}.filter({})".format(steps.current, wrapped(mask, steps.imports)))
        keys = self.keys(view)
        if keys:
            steps.bind(self.sort_node(Ref(steps.current, None), keys).render(steps.imports))
        if selected is not None and not self.series and list(selected) != list(
                range(len(self.names))):
            names = [self.names[p] for p in selected]
            steps.bind("{}.select({})".format(steps.current, literal(names, steps.imports)))
        if self.series:
            steps.bind("{}.to_series()".format(steps.current))
        return steps.text()


# --- a column's statistics -----------------------------------------------------------------

#: polars dtypes (their name before any parameters) by profile family.
_PROFILE_FAMILIES = {
    "boolean": ("Boolean",),
    "number": ("Int8", "Int16", "Int32", "Int64", "Int128", "UInt8", "UInt16", "UInt32",
               "UInt64", "UInt128", "Float16", "Float32", "Float64", "Decimal"),
    "string": ("String", "Utf8"),
    "category": ("Categorical", "Enum"),
    "datetime": ("Date", "Datetime"),
}
_PROFILE_FAMILY = {name: family for family, names in _PROFILE_FAMILIES.items() for name in names}


class PolarsColumn(SeriesColumn):
    """A polars Series' statistics (``windows.statistics.PlainColumn`` lists the
    methods)."""

    def _base(self):
        return str(self.s.dtype).split("(")[0]

    def take(self, positions):
        s = self.s
        gather = getattr(s, "gather", None) or s.take
        return PolarsColumn(gather(positions))

    def nulls(self):
        n = self.s.null_count()
        if self._base().startswith("Float"):
            n += int(self.s.is_nan().sum() or 0)
        return int(n)

    def cheap_nulls(self):
        return True

    def nulls_at(self, rows):
        return self.nulls() if rows is None else self.take(rows).nulls()

    def family(self):
        return _PROFILE_FAMILY.get(self._base(), "other")

    def numbers(self, scale, texts):
        pl = sys.modules["polars"]
        present = self.s.drop_nulls()
        base = self._base()
        if base == "Decimal" or base == "Float16":
            present = present.cast(pl.Float64)
        if base.startswith("Float"):
            present = present.filter(present.is_finite())
        n = len(present)
        if not n:
            return no_numbers()
        floats = present.cast(pl.Float64)
        ordered = floats.sort()
        qs = [ordered.quantile(p / 100.0, "linear") for p in PERCENTS]
        low, high = present.min(), present.max()
        bins = bins_for(n, qs[1], qs[3], float(low), float(high))
        edges = edges_for(low, high, bins)
        counts = None
        if edges is not None:
            lefts = pl.Series(edges[:-1], dtype=pl.Float64)
            counts = counts_from(ordered.search_sorted(lefts, "left").to_list(), n)
        return numbers_out(low, high, floats.mean(), qs[2], floats.std() if n > 1 else None,
                           qs[:2] + qs[3:], histogram(edges, counts, scale))

    def strings(self, top, present, scale, texts):
        counted = self._counted()
        best = counted.sort("n", descending=True, maintain_order=True).head(top).rows()
        empty = int((self.s == "").sum() or 0)
        return strings_out(counted.height, empty, best, present, scale, texts)

    def booleans(self, present, scale, texts):
        return booleans_out(self.s.drop_nulls().sum() or 0, present, scale)

    def datetimes(self, scale, texts):
        return series_dates_out(self.s.drop_nulls())

    # --- what the findings read (``windows.findings.PlainFacts`` lists the methods) ---

    def _present(self):
        """The present values (nulls dropped; NaN too in a float column)."""
        s = self.s.drop_nulls()
        if self._base().startswith("Float"):
            s = s.filter(s.is_not_nan())
        return s

    def _finite(self):
        pl = sys.modules["polars"]
        s = self._present()
        base = self._base()
        if base == "Decimal" or base == "Float16":
            s = s.cast(pl.Float64)
        if s.dtype.is_float():
            s = s.filter(s.is_finite())
        return s

    def bounds(self):
        s = self._present()
        return s.min(), s.max()

    def quartiles(self):
        pl = sys.modules["polars"]
        s = self._finite().cast(pl.Float64)
        if not len(s):
            return None
        return [float(s.quantile(q, "linear")) for q in (0.25, 0.5, 0.75)]

    def deviations(self, center):
        pl = sys.modules["polars"]
        s = self._finite().cast(pl.Float64)
        return float((s - center).abs().median() or 0.0) if len(s) else 0.0

    def outside(self, low, high):
        s = self._present()
        return int(((s < low) | (s > high)).sum() or 0)

    def whole(self):
        s = self._finite()
        if not s.dtype.is_float():
            return True
        return bool((s == s.floor()).all())

    def floats(self):
        pl = sys.modules["polars"]
        s = self.s.cast(pl.Float64)
        if sys.modules.get("numpy") is not None:
            return s.to_numpy()  # nulls as NaN
        return s.to_list()

    def _counted(self):
        """Each distinct present value (``v``, a category's as text) and its rows
        (``n``), in the order values first appear (kept: a profile and the findings read
        it once)."""
        found = getattr(self, "_groups", None)
        if found is None:
            pl = sys.modules["polars"]
            s = self.s.drop_nulls()
            if self.family() == "category":
                s = s.cast(pl.Utf8)
            frame = s.to_frame("v")
            group_by = getattr(frame, "group_by", None) or frame.groupby
            size = pl.len() if hasattr(pl, "len") else pl.count()
            found = self._groups = group_by("v", maintain_order=True).agg(size.alias("n"))
        return found

    def labels(self, limit):
        counted = self._counted()
        return counted.head(limit).rows(), counted.height

    def repeated(self, limit):
        pl = sys.modules["polars"]
        counted = self._counted()
        repeats = counted.filter(pl.col("n") > 1)
        rows = int(repeats.get_column("n").sum() or 0)
        return counted.height, rows, repeats.get_column("v").head(limit).to_list(), repeats.height

    def type_counts(self):
        if self._base() != "Object":
            return None
        return type_groups([x for x in self.s.to_list() if x is not None])


# --- two tables compared (the ``compare`` op, ``windows.compare``) -------------------------


class PolarsComparer(Comparer):
    """Two polars DataFrames compared: by key, one lazy query — a left join of ``name``'s
    rows with ``with``'s on the key's columns (missing keys equal), in ``name``'s order,
    that compares the pairs of columns in the same ``select`` (:meth:`match_columns`) —
    or by position (polars has no index), each pair of columns by ``eq_missing`` on the
    matched rows (:func:`polars_same`); the statuses in a polars Series."""

    library = "polars"

    def __init__(self, table, other, names):
        one_table(table, other, names, PolarsFrame)
        self.session, self.names = table.session, names
        self.frames = (table.value, other.value)
        self.pl = sys.modules["polars"]

    def labels(self, side):
        frame = self.frames[side]
        return [(n, label_text(n, LABEL_CHARS), str(d)) for n, d in zip(frame.columns,
                                                                         frame.dtypes)]

    def height(self, side):
        return int(self.frames[side].height)

    def nulls_keyword(self):
        """How this polars spells "missing keys match" in a join (``join_nulls`` before
        1.24)."""
        return nulls_keyword(self.pl)

    def match(self, key):
        pl = self.pl
        found = Matched(self.height(0), self.height(1))
        n_a, n_b = found.heights
        if key is None:
            found.by = "position"
            found.note = "no key given, and a polars table has no index: compared by position"
            found.match = pl.concat([
                pl.int_range(0, min(n_a, n_b), eager=True, dtype=pl.Int64),
                pl.repeat(-1, max(0, n_a - n_b), eager=True, dtype=pl.Int64)])
            found.removed = pl.int_range(n_a, max(n_a, n_b), eager=True, dtype=pl.Int64)
        else:
            after, before = self.frames
            names = [after.columns[p] for p in key[0]]
            left = after.select(names)
            right = before.select([before.columns[q] for q in key[1]])
            right = right.rename(dict(zip(right.columns, names)))
            for side, frame in enumerate((left, right)):
                repeated = frame.is_duplicated()
                if repeated.any():
                    raise NotComparable(_polars_repeated(frame.filter(repeated),
                                                         self.names[side]))
            left, right = _key_types(pl, left, right)
            a_row, b_row = _free("__row_a", names), _free("__row_b", names)
            left, right = left.with_row_index(a_row), right.with_row_index(b_row)
            matched = _join(pl, left, right, names, "left").sort(a_row)
            found.match = matched.get_column(b_row).cast(pl.Int64).fill_null(-1)
            removed = _join(pl, right, left, names, "anti").get_column(b_row)
            found.removed = removed.cast(pl.Int64).sort()
            found.by = "key"
        found.status = ((found.match < 0).cast(pl.Int8) * ADDED).cast(pl.Int8)
        return found

    def match_columns(self, key, pairs):
        """By key: the key's uniqueness counted on both sides at once (``n_unique``; the
        repeated values read only for the refusal), then one lazy query — the left join
        in ``name``'s order and every pair of columns compared as :func:`polars_same`
        does, the cells of unmatched rows not compared — collected once.  Pairs whose
        dtypes polars cannot compare as they are go column by column
        (:meth:`compare_columns`), as does everything if the query raises."""
        if key is None:
            return super().match_columns(key, pairs)
        pl = self.pl
        after, before = self.frames
        names = [after.columns[p] for p in key[0]]
        left = after.select(names)
        right = before.select([before.columns[q] for q in key[1]])
        right = right.rename(dict(zip(right.columns, names)))
        self._unique((left, right))
        fused = [j for j, (p, q) in enumerate(pairs)
                 if _natively_compared(pl, after.dtypes[p], before.dtypes[q])]
        try:
            found, counted = self._joined(key, pairs, fused, left.schema, right.schema)
        except Exception as exc:
            guard.check(exc)
            found, counted, fused = self.match(key), {}, []
        rest = [j for j in range(len(pairs)) if j not in counted]
        by_rest = dict(zip(rest, self.compare_columns(found, [pairs[j] for j in rest])))
        return found, [counted[j] if j in counted else by_rest[j] for j in range(len(pairs))]

    def _unique(self, frames):
        """:class:`NotComparable` (as :meth:`match` words it) when a side's key repeats."""
        pl = self.pl
        counts = pl.collect_all([
            f.lazy().select((pl.struct(pl.all()) if f.width > 1 else pl.all()).n_unique())
            for f in frames])
        for side, (frame, counted) in enumerate(zip(frames, counts)):
            if counted.item() != frame.height:
                repeated = frame.is_duplicated()
                if repeated.any():
                    raise NotComparable(_polars_repeated(frame.filter(repeated),
                                                         self.names[side]))

    def _joined(self, key, pairs, fused, left_schema, right_schema):
        """``(found, {pair: (cells changed, None)})``: the key's left join in ``name``'s
        order (the key's columns only), then ``with``'s compared columns taken at the
        matched rows and compared in one ``select`` (polars runs the columns in
        parallel; ``name``'s are read in place); ``ValueError`` when the join's rows are
        not ``name``'s (a key polars' counts missed)."""
        pl = self.pl
        after, before = self.frames
        n_a, n_b = after.height, before.height
        keys = ["k{}".format(i) for i in range(len(key[0]))]
        casts = _key_casts(pl, keys, list(left_schema.values()), list(right_schema.values()))
        left = after.lazy().select([pl.col(after.columns[p]).alias(k)
                                    for p, k in zip(key[0], keys)])
        right = before.lazy().select([pl.col(before.columns[q]).alias(k)
                                      for q, k in zip(key[1], keys)])
        left = left.with_columns(casts[0]).with_row_index("ra")
        right = right.with_columns(casts[1]).with_row_index("rb")
        ordered = _keeps_left_order(pl)
        joined = _join(pl, left, right, keys, "left",
                       **({"maintain_order": "left"} if ordered else {}))
        if not ordered:
            joined = joined.sort("ra")
        rows_b = joined.select("rb").collect().to_series()
        if len(rows_b) != n_a:
            raise ValueError("the join's rows are not the rows of " + self.names[0])
        matched = rows_b.is_not_null()
        at = rows_b.fill_null(0)  # unmatched rows read row 0, their cells not compared
        mine = after.select([pl.col(after.columns[pairs[j][0]]).alias("a{}".format(j))
                             for j in fused])
        theirs = before.select([pl.col(before.columns[pairs[j][1]]).gather(at)
                                .alias("b{}".format(j)) for j in fused]) if n_b else None
        both = pl.concat([mine, theirs], how="horizontal") if fused and n_b else None
        out = pl.DataFrame([rows_b.cast(pl.Int64).fill_null(-1).alias("match")])
        if both is not None:
            out = out.with_columns(both.select([
                (~_same_expr(pl, "a{}".format(j), "b{}".format(j),
                             after.dtypes[pairs[j][0]], before.dtypes[pairs[j][1]])
                 & pl.lit(matched)).alias("d{}".format(j)) for j in fused]))
        fused = fused if both is not None else []
        found = Matched(n_a, n_b)
        found.by = "key"
        found.match = out.get_column("match")
        changed = (pl.any_horizontal([pl.col("d{}".format(j)) for j in fused]) if fused
                   else pl.lit(False))  # none of name's rows match when with is empty
        found.status = out.select(
            pl.when(pl.col("match") < 0).then(pl.lit(ADDED, dtype=pl.Int8))
            .when(changed).then(pl.lit(CHANGED, dtype=pl.Int8))
            .otherwise(pl.lit(UNCHANGED, dtype=pl.Int8)).alias("status")).to_series()
        hit = pl.repeat(False, n_b, eager=True, dtype=pl.Boolean)
        rows_b = found.match.filter(found.match >= 0)
        if len(rows_b):
            hit.scatter(rows_b, True)
        found.removed = (~hit).arg_true().cast(pl.Int64)
        sums = out.select([pl.col("d{}".format(j)).sum() for j in fused]).row(0) \
            if fused else ()
        return found, {j: (int(n), None) for j, n in zip(fused, sums)}

    def compare_columns(self, found, pairs):
        pl = self.pl
        after, before = self.frames
        matched = found.match >= 0
        rows_a = matched.arg_true()
        rows_b = found.match.filter(matched)
        whole_a = len(rows_a) == found.heights[0]
        whole_b = len(rows_b) == found.heights[1] and bool(
            (rows_b == pl.int_range(0, len(rows_b), eager=True, dtype=pl.Int64)).all())
        differs = pl.repeat(False, len(rows_a), eager=True, dtype=pl.Boolean)
        out = []
        for p, q in pairs:
            try:
                x, y = after.to_series(p), before.to_series(q)
                differ = ~polars_same(pl, x if whole_a else x.gather(rows_a),
                                      y if whole_b else y.gather(rows_b))
            except Exception as exc:
                out.append((None, guard.user_error("comparing", exc)))
                continue
            differs = differs | differ
            out.append((int(differ.sum()), None))
        changed = rows_a.filter(differs)
        if len(changed):
            found.status.scatter(changed, CHANGED)
        return out

    def summary(self, side, position):
        s = self.frames[side].to_series(position)
        nulls = s.null_count()
        mean = None
        if s.dtype.is_float():
            nulls += int(s.is_nan().sum())
            mean = s.fill_nan(None).mean()
        elif s.dtype.is_numeric():
            mean = s.mean()
        return mean, int(nulls)

    def counts(self, found):
        status = found.status
        out = {code: int((status == code).sum()) for code in (UNCHANGED, CHANGED, ADDED)}
        out[REMOVED] = len(found.removed)
        return out

    def select(self, found, codes):
        pl = self.pl
        n_a = found.heights[0]
        parts = []
        mine = [c for c in codes if c != REMOVED]
        if mine:
            rows = pl.int_range(0, n_a, eager=True, dtype=pl.Int64)
            parts.append(rows.filter(found.status.is_in(pl.Series(mine, dtype=pl.Int8))))
        if REMOVED in codes:
            parts.append(pl.int_range(n_a, n_a + len(found.removed), eager=True,
                                      dtype=pl.Int64))
        return pl.concat(parts) if parts else pl.Series("ids", [], dtype=pl.Int64)

    def size(self, ids):
        return len(ids)

    def ids_at(self, ids, start, stop):
        return ids.slice(start, max(0, stop - start)).to_list()

    def status_of(self, found, rows):
        return found.status.gather(rows).to_list() if rows else []

    def match_of(self, found, rows):
        return found.match.gather(rows).to_list() if rows else []

    def removed_of(self, found, ranks):
        return found.removed.gather(ranks).to_list() if ranks else []

    def shown_table(self, found, ids, columns):
        pl = self.pl
        n_a = found.heights[0]
        after, before = self.frames
        names = [text for _p, _q, text in columns]
        rows_a = ids.filter(ids < n_a)
        ranks = ids.filter(ids >= n_a) - n_a
        parts = [_rows(pl, after.select([after.columns[p] for p, _q, _t in columns]), rows_a)]
        if len(ranks):
            parts.append(_rows(pl, before.select([before.columns[q] for _p, q, _t in columns]),
                               found.removed.gather(ranks)))
        parts = [pl.DataFrame([part.to_series(i).alias(n) for i, n in enumerate(names)])
                 for part in parts]
        try:
            shown = pl.concat(parts, how="vertical_relaxed")
        except Exception as exc:  # no common type (text and numbers): both as text
            guard.check(exc)
            shown = pl.concat([part.select(pl.all().cast(pl.String)) for part in parts])
        return PolarsFrame(shown, self.session), lambda positions: ids.gather(positions)

    def take(self, side, rows):
        pl = self.pl
        return self.session.run(lambda: _rows(pl, self.frames[side], rows))

    def texts(self, sub, positions, cells, rows=None):
        out = []
        for p in positions:
            col = self.session.run(lambda p=p: sub.to_series(p))
            out.append(cells.column(_picked(self.session.run(col.to_list), rows),
                                    dtype_is_date(col.dtype)))
        return out

    def differs(self, sub_a, sub_b, pairs, rows_a=None, rows_b=None):
        """The pairs polars compares natively in one ``select`` (one call, not one per
        column; the rows picked in it), the others as :meth:`same` compares them."""
        pl = self.pl
        height = sub_a.height if rows_a is None else len(rows_a)
        native = [k for k, (p, q) in enumerate(pairs) if _natively_compared(
            pl, sub_a.dtypes[p], sub_b.dtypes[q])] if height else []

        at = [None if rows is None else pl.Series(rows, dtype=pl.Int64)
              for rows in (rows_a, rows_b)] if native else []

        def column(side, sub, p, alias):
            c = pl.col(sub.columns[p])
            return (c if at[side] is None else c.gather(at[side])).alias(alias)

        def fused():
            both = pl.concat([
                sub_a.select([column(0, sub_a, pairs[k][0], "a{}".format(k))
                              for k in native]),
                sub_b.select([column(1, sub_b, pairs[k][1], "b{}".format(k))
                              for k in native])], how="horizontal")
            return both.select([~_same_expr(pl, "a{}".format(k), "b{}".format(k),
                                            sub_a.dtypes[pairs[k][0]],
                                            sub_b.dtypes[pairs[k][1]]) for k in native])

        out = {}
        if native:
            try:
                out = dict(zip(native, self.session.run(fused).to_dict(as_series=False)
                               .values()))
            except Exception as exc:
                guard.check(exc)
        if len(out) < len(pairs):  # the others read the rows picked, once
            sub_a, sub_b = self.session.run(lambda: (
                sub_a if rows_a is None else _rows(pl, sub_a, rows_a),
                sub_b if rows_b is None else _rows(pl, sub_b, rows_b)))
        return [out[k] if k in out else [not same for same in self.same(sub_a, p, sub_b, q)]
                for k, (p, q) in enumerate(pairs)]

    def same(self, sub_a, p, sub_b, q):
        pl = self.pl
        try:
            return self.session.run(lambda: polars_same(pl, sub_a.to_series(p),
                                                        sub_b.to_series(q)).to_list())
        except Exception as exc:
            guard.check(exc)
            return [True] * sub_a.height  # its column says why it was not compared


def polars_same(pl, x, y):
    """Whether each pair of values of the Series ``x`` and ``y`` is one value: missing
    values (null, and NaN in a float column) equal each other, numbers of two dtypes
    compared as floats, values of dtypes polars cannot compare never equal."""
    x, y = _nan_as_null(x), _nan_as_null(y)
    if x.dtype != y.dtype:
        if _number(x.dtype) and _number(y.dtype):
            return x.cast(pl.Float64).eq_missing(y.cast(pl.Float64))
        try:
            return x.eq_missing(y)
        except Exception as exc:
            guard.check(exc)
            return x.is_null() & y.is_null()
    return x.eq_missing(y)


def nulls_keyword(pl):
    try:
        names = inspect.signature(pl.DataFrame.join).parameters
    except (TypeError, ValueError):
        return "nulls_equal"
    return "nulls_equal" if "nulls_equal" in names else "join_nulls"


def _join(pl, left, right, on, how, **more):
    return left.join(right, on=on, how=how, **{nulls_keyword(pl): True}, **more)


def _rows(pl, frame, rows):
    return frame.select(pl.all().gather(rows))


def _picked(values, rows):
    """The items of the list ``values`` at ``rows`` (positions; None: all)."""
    return values if rows is None else [values[r] for r in rows]


def _nan_as_null(s):
    return s.fill_nan(None) if s.dtype.is_float() else s


def _number(dtype):
    return dtype.is_numeric() or str(dtype) == "Boolean"


def _key_types(pl, left, right):
    """The key's columns of both sides made comparable: numbers of two dtypes as floats,
    other dtypes that differ as text; a float's NaN as null (missing keys match)."""
    names = left.columns
    casts = _key_casts(pl, names, [left.schema[n] for n in names],
                       [right.schema[n] for n in names])
    return left.with_columns(casts[0]), right.with_columns(casts[1])


def _key_casts(pl, names, a_types, b_types):
    """The expressions of :func:`_key_types` for each side (columns ``names``)."""
    casts = ([], [])
    for name, a, b in zip(names, a_types, b_types):
        target = None
        if a != b:
            target = pl.Float64 if _number(a) and _number(b) else pl.String
        for side, dtype in enumerate((a, b)):
            expr = pl.col(name) if target is None else pl.col(name).cast(target)
            if (dtype if target is None else target).is_float():
                expr = expr.fill_nan(None)
            casts[side].append(expr)
    return casts


def _natively_compared(pl, a, b):
    """Whether :func:`_same_expr` compares columns of dtypes ``a`` and ``b`` exactly as
    :func:`polars_same` does (one dtype, or two of numbers; never objects)."""
    if a == pl.Object or b == pl.Object:
        return False
    return a == b or (_number(a) and _number(b))


def _same_expr(pl, x, y, x_type, y_type):
    """:func:`polars_same` as an expression, for the dtypes :func:`_natively_compared`
    accepts."""
    x, y = pl.col(x), pl.col(y)
    if x_type.is_float():
        x = x.fill_nan(None)
    if y_type.is_float():
        y = y.fill_nan(None)
    if x_type != y_type:
        x, y = x.cast(pl.Float64), y.cast(pl.Float64)
    return x.eq_missing(y)


def _keeps_left_order(pl):
    """Whether this polars' joins take ``maintain_order`` (1.18 and later)."""
    try:
        return "maintain_order" in inspect.signature(pl.DataFrame.join).parameters
    except (TypeError, ValueError):
        return False


def _free(name, taken):
    while name in taken:
        name += "_"
    return name


def _polars_repeated(repeats, name):
    distinct = repeats.unique(maintain_order=True)
    rows = distinct.head(QUOTED_KEYS).rows()
    quoted = ", ".join(label_text(r[0] if len(r) == 1 else r, 40) for r in rows)
    n = distinct.height
    return "the key is not unique in {}: {:,} value{} repeat{} ({}{}): give columns that " \
        "identify a row".format(name, n, "" if n == 1 else "s", "s" if n == 1 else "", quoted,
                                ", …" if n > QUOTED_KEYS else "")
