"""pandas tables in memory (DataFrame, Series): everything the table ops know of pandas.

* the tables (:class:`PandasFrame`, :class:`PandasSeries`): their shape and labels, and
  a window read with ``iloc`` (only the rows and columns asked for), its cells by dtype;
* a column's family (:func:`pandas_column`: an object column's values inferred) and a
  filter value read as pandas reads times (its Timestamps and Timedeltas);
* a filter as pandas expressions (:func:`pandas_condition`:
  ``sales["price"].notna() & (sales["price"] > 10.0)``), a view's rows in pandas' stable
  sort, missing values last, and the code of the view (:class:`PandasTable`, which numpy
  arrays and lists of records use too when the user imported pandas);
* a column's statistics (:class:`PandasColumn`, on numpy where pandas holds numpy data)
  and what the data-quality findings read of it; the table's duplicate rows by row
  hashes (:func:`pandas_duplicates`); a finding's fix (:meth:`PandasTable.fix`).

Nothing is imported: pandas comes from ``sys.modules``.  Every read of the value goes
through the time guard.
"""

import itertools
import keyword
import sys
import warnings

from .. import guard
from ..inspect.tables import PANDAS_FRAME, PANDAS_SERIES, label_text
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
from ..windows.expressions import Attr, Imports, ListOf, Lit, Ref, both, method, text_literal
from ..windows.families import EXPECTED_TIME, READERS, Column
from ..windows.filters import check_python_regex, condition_test, expression, is_text
from ..windows.findings import CONFIRM_ROWS, type_groups
from ..windows.sources import Table
from ..windows.statistics import (
    PlainColumn,
    SeriesColumn,
    booleans_out,
    numpy_numbers,
    numpy_ranked,
    series_dates_out,
    strings_out,
)
from .base import register
from .memory import LABEL_CHARS, MemoryTable, OneColumn, transpose

#: Column labels listed in a pandas ``sort_values``/selection; beyond, positions.
MAX_LISTED_LABELS = 50

# --- the tables ---------------------------------------------------------------------------


@register
class PandasFrame(MemoryTable):
    kind = "dataframe"
    inspector = PANDAS_FRAME

    def total_rows(self):
        return int(self.run(lambda v: v.shape[0], self.value))

    def columns_total(self):
        return int(self.run(lambda v: v.shape[1], self.value))

    def shape(self):
        return [self.total_rows(), self.columns_total()]

    def column_names(self, n):
        labels = self.run(lambda v: list(itertools.islice(v.columns, n)), self.value)
        return [label_text(c, LABEL_CHARS) for c in labels]

    def column_labels(self, positions):
        v = self.value
        positions = list(positions)
        labels = self.run(lambda: [v.columns[i] for i in positions])
        dtypes = self.run(lambda: (lambda all_: [all_.iloc[i] for i in positions])(v.dtypes))
        return [(label_text(c, LABEL_CHARS), str(d)) for c, d in zip(labels, dtypes)]

    @property
    def index_name(self):
        name = self.value.index.name
        return None if name is None else label_text(name, LABEL_CHARS)

    def column_values(self, position):
        return self.value.iloc[:, position]

    def stats_column(self, position):
        values = self.column_values(position)
        module = (getattr(type(values), "__module__", "") or "").split(".")[0]
        if module != "pandas":  # another library's Series (geopandas'): value by value
            return PlainColumn(list(values))
        return PandasColumn(values)

    def table(self, columns):
        return PandasTable(self, columns, self.value, series=False)

    def fix_source(self):
        return self.table(None)

    def duplicate_rows(self, rows):
        return pandas_duplicates(self.value, rows)

    def window(self, rows, positions, cells):
        positions = list(positions)
        sub = self.run(lambda v: v.iloc[rows, positions], self.value)
        index = cells.column(self.run(lambda: sub.index.tolist()),
                             dtype_is_date(getattr(sub.index, "dtype", None)))
        columns = [_series_cells(self.run(lambda j=j: sub.iloc[:, j]), cells)
                   for j in range(len(positions))]
        return index, transpose(columns, len(index))

    def comparer(self, other, names):
        """The comparison of this frame (``name``'s, the after) with ``other`` (a table
        of ``with``, the before): :class:`PandasComparer`."""
        return PandasComparer(self, other, names)


@register
class PandasSeries(OneColumn, PandasFrame):
    kind = "series"
    inspector = PANDAS_SERIES

    def column_labels(self, positions):
        v = self.value
        name = v.name
        return [("value" if name is None else label_text(name, LABEL_CHARS), str(v.dtype))]

    def total_rows(self):
        return int(self.run(len, self.value))

    def column_values(self, position):
        return self.value

    def table(self, columns):
        return PandasTable(self, columns, self.value, series=True)

    def window(self, rows, positions, cells):
        sub = self.run(lambda v: v.iloc[rows], self.value)
        index = cells.column(self.run(lambda: sub.index.tolist()),
                             dtype_is_date(getattr(sub.index, "dtype", None)))
        return index, [[x] for x in _series_cells(sub, cells)]


def _series_cells(col, cells, rows=None):
    """The texts of a Series' cells (at ``rows``, positions; None: all)."""
    dtype = col.dtype
    kind = getattr(dtype, "kind", "O")
    if kind == "f" and getattr(dtype, "itemsize", 8) < 8:
        values = list(col.to_numpy())  # numpy scalars: float32 prints as 0.1, not 0.1000000015
    else:
        values = col.tolist()
    values = _picked(values, rows)
    if kind in "biuf" and type(dtype).__module__.startswith("numpy"):  # plain numbers; NaN: missing
        return cells.numbers(values)
    return cells.column(values, dtype_is_date(dtype))


# --- a column's family, and filter values read as pandas reads them ------------------------


def pandas_column(name, s):
    """The ``families.Column`` of pandas Series ``s`` (an object column's values
    inferred)."""
    dtype = s.dtype
    text = str(dtype)
    if type(dtype).__name__ == "CategoricalDtype":
        pd = sys.modules["pandas"]
        inner = pandas_column(name, pd.Series(dtype.categories))
        return _column(name, text, "category", inner=inner, ordered=bool(dtype.ordered),
                       categories=dtype.categories)
    kind = getattr(dtype, "kind", "O")
    if type(dtype).__name__ == "StringDtype":
        return _column(name, text, "string")
    family = {"b": "boolean", "i": "integer", "u": "integer", "f": "float",
              "M": "datetime", "m": "timedelta", "U": "string", "S": "other"}.get(kind)
    if family is not None:
        return _column(name, text, family, tz=getattr(dtype, "tz", None))
    if kind != "O":
        return _column(name, text, "other")
    infer = sys.modules["pandas"].api.types.infer_dtype
    inferred = infer(s, skipna=True)
    family = {"string": "string", "empty": "string", "integer": "integer",
              "floating": "float", "mixed-integer-float": "float", "boolean": "boolean",
              "datetime": "pydatetime", "date": "date"}.get(inferred, "other")
    return _column(name, text, family)


def _column(name, dtype, family, **how):
    return Column(name, dtype, family, readers=PANDAS_READERS, **how)


def _timestamp(column, value):
    """A pandas Timestamp, in the column's time zone when it has one."""
    pd = sys.modules["pandas"]
    if type(value) is not str:
        raise column.misfit(value, EXPECTED_TIME)
    try:
        stamp = pd.Timestamp(value.strip())
    except (ValueError, TypeError, OverflowError):
        raise column.misfit(value, EXPECTED_TIME) from None
    if stamp is pd.NaT:
        raise column.misfit(value, EXPECTED_TIME)
    tz = column.tz
    if tz is None:
        if stamp.tzinfo is not None:
            raise column.misfit(value, "a time without a time zone")
        return stamp
    try:
        return stamp.tz_localize(tz) if stamp.tzinfo is None else stamp.tz_convert(tz)
    except (ValueError, TypeError, OverflowError):  # a time that does not exist there
        raise column.misfit(value, "a time that exists in " + str(tz)) from None


def _timedelta(column, value):
    pd = sys.modules["pandas"]
    try:
        delta = pd.Timedelta(value.strip()) if type(value) is str else None
    except (ValueError, TypeError, OverflowError):
        delta = None
    if delta is None or delta is pd.NaT:
        raise column.misfit(value, "a duration like '1 days 02:00:00'")
    return delta


#: A pandas column's filter values: its times as pandas Timestamps and Timedeltas.
PANDAS_READERS = dict(READERS, datetime=_timestamp, timedelta=_timedelta)


# --- a filter as pandas expressions --------------------------------------------------------


def pandas_condition(c, ref, column):
    """Condition ``c`` on the column ``ref`` (a Series' node) as a pandas expression:
    missing values (``isna``: None, NaN, NaT, ``pd.NA``) match only ``isnull``."""
    if c.op == "isnull":
        return method(ref, "isna")
    if c.op == "notnull":
        return method(ref, "notna")
    return both(method(ref, "notna"), condition_test(c, ref, column, _PANDAS))


def _pandas_text(ref, column, c):
    if is_text(column):
        return ref
    return method(ref, "astype", Ref("str", str))


def _pandas_search(c, text):
    s = Attr(text, "str")
    if c.op == "regex":
        check_python_regex(c)
        return method(s, "contains", c.value, case=c.case, regex=True, na=False)
    if c.op in ("contains", "not_contains"):
        return method(s, "contains", c.value, case=c.case, regex=False, na=False)
    name = "startswith" if c.op == "starts_with" else "endswith"
    if c.case:
        return method(s, name, c.value, na=False)
    return method(Attr(method(s, "lower"), "str"), name, c.value.lower(), na=False)


_PANDAS = {"between": "between", "in": "isin", "text": _pandas_text, "search": _pandas_search}


# --- the view: its rows and its code -------------------------------------------------------


def pandas_duplicates(frame, rows):
    """How many of ``rows`` (positions; None: all) of a pandas DataFrame or Series equal
    an earlier row: rows whose 64-bit hash (``hash_pandas_object``) repeats, compared by
    pandas itself (``duplicated``) when at most :data:`windows.findings.CONFIRM_ROWS`
    (a hash collision, some n²/2⁶⁵ likely, is then ruled out); the rows' hashes counted
    otherwise.  A tenth of ``duplicated()``'s time on a million rows."""
    pd = sys.modules["pandas"]
    np = sys.modules["numpy"]
    if rows is not None:
        frame = frame.take(rows)
    hashes = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    ordered = np.sort(hashes)
    repeats = ordered[1:] == ordered[:-1]
    extra = int(repeats.sum())
    if not extra:
        return 0
    candidates = np.flatnonzero(np.isin(hashes, ordered[1:][repeats]))
    if len(candidates) <= CONFIRM_ROWS:
        return int(frame.take(candidates).duplicated().sum())
    return extra


class PandasTable(Table):
    """A pandas DataFrame or Series (``frame``) whose rows are the explorer's rows.

    ``setup``: how the code builds it from the variable (``pd.DataFrame``) when the value
    is not a pandas object itself (None: it is; False: no code is written for it);
    ``width``: the columns the explorer shows (a frame built from records may have
    more)."""

    library = "pandas"

    def __init__(self, table, columns, frame, series, setup=None, width=None):
        super().__init__(table, columns)
        self.frame, self.series, self.setup, self.width = frame, series, setup, width
        self.base = Ref("t", frame)
        self.unique = series or bool(frame.columns.is_unique)

    def bind(self, text):
        """Name the table ``text`` in the expressions built from now on."""
        self.base = Ref(text, self.frame)
        return self

    def label(self, position):
        """The column's label as a literal (``"price"``, ``0``), or None for one that
        is no plain literal or not unique (then the code uses ``.iloc``)."""
        if not self.unique:
            return None
        return label_literal(self.frame.columns[position])

    def column(self, position):
        if self.series:
            return self.base, self.frame
        values = self.frame.iloc[:, position]
        label = self.label(position)
        if label is None:
            ref = Ref("{}.iloc[:, {}]".format(self.base.text, position), values)
        else:
            ref = Ref("{}[{}]".format(self.base.text, label.render(Imports())), values)
        return ref, values

    def resolve(self, wanted):
        position = self.columns.find(wanted)
        ref, values = self.column(position)
        return ref, pandas_column(self.columns.name(position), values)

    def mask(self, view):
        """The filter's expression (``sales[mask]`` keeps its rows), or None."""
        if view.filter is None:
            return None
        return expression(view.filter, self.resolve, pandas_condition)

    def rows(self, view):
        np = sys.modules["numpy"]
        mask = self.mask(view)
        kept = None
        if mask is not None:
            kept = np.flatnonzero(np.asarray(mask.evaluate().to_numpy(dtype=bool)))
        keys = self.keys(view)
        if not keys:
            return kept, None if kept is None else len(kept)
        if self.series:
            sub = self.frame if kept is None else self.frame.iloc[kept]
        else:
            sub = self.frame.iloc[:, [p for p, _ in keys]]
            sub = sub if kept is None else sub.iloc[kept]
            sub = sub.set_axis(list(range(len(keys))), axis=1)
        ranked = self.sort(sub.reset_index(drop=True), list(range(len(keys))), keys)
        local = ranked.index.to_numpy()
        return (local if kept is None else kept[local]), None if kept is None else len(kept)

    def sort(self, target, labels, keys):
        """``target.sort_values(...)``: the library's stable sort, missing values last."""
        return self.sort_node(Ref("t", target), Lit(list(labels)), keys).evaluate()

    def sort_node(self, base, by, keys):
        """``base.sort_values(by, ascending=[...], kind="stable", na_position="last")``
        (a Series: no ``by``)."""
        options = {"kind": "stable", "na_position": "last"}
        if self.series:
            return method(base, "sort_values", ascending=not keys[0][1], **options)
        return method(base, "sort_values", by, ascending=[not desc for _, desc in keys],
                      **options)

    def code(self, view, name, selected):
        """``t_view = t[mask]``, ``.sort_values(...)``, ``[["a", "b"]]`` (from
        ``pd.DataFrame(t)`` for a value pandas does not hold)."""
        steps = Steps(name)
        if self.setup:
            steps.imports.add("pd")
            steps.bind("{}({})".format(self.setup, name))
        self.bind(steps.current)
        mask = self.mask(view)
        if mask is not None:
            steps.bind("{}[{}]".format(steps.current, wrapped(mask, steps.imports)))
        keys = self.keys(view)
        if keys:
            by = None
            if not self.series:
                labels = [self.label(p) for p, _ in keys]
                if None in labels:
                    raise NoCode("column {} has no label a sort can name (not unique, or no "
                                 "plain value): rename it first".format(
                                     self.columns.name(keys[labels.index(None)][0])))
                by = ListOf(labels)
            steps.bind(self.sort_node(Ref(steps.current, None), by, keys).render(steps.imports))
        shown = self._shown(selected)
        if shown is not None:
            steps.bind(steps.current + shown)
        return steps.text()

    def fix(self, fix, steps):
        """A finding's fix (``windows.code.Fix``) on the variable: see :func:`_pandas_fix`."""
        _pandas_fix(self, fix, steps)

    def _shown(self, selected):
        """``[["a", "b"]]`` or ``.iloc[:, [0, 3]]``: the columns shown, when not all."""
        if self.series:
            return None
        width = int(self.frame.shape[1])
        shown = list(range(self.width if self.width is not None else width))
        if selected is not None:
            shown = list(selected)
        if shown == list(range(width)):
            return None
        labels = [self.label(p) for p in shown]
        if None not in labels and len(labels) <= MAX_LISTED_LABELS:
            return "[" + ListOf(labels).render(Imports()) + "]"
        if shown == list(range(shown[0] if shown else 0, (shown[-1] + 1) if shown else 0)):
            return ".iloc[:, {}:{}]".format(shown[0], shown[-1] + 1) if shown else ".iloc[:, []]"
        return ".iloc[:, {}]".format(shown)


# --- a finding's fix -------------------------------------------------------------------------


def _pandas_fix(table, fix, steps):
    """``fix`` (``windows.code.Fix``) as pandas steps on ``steps.current``: a new table
    each, bound to the variable (``assign``, or ``copy()`` then an assignment into the
    copy for a label that is no keyword)."""
    current = steps.current
    action = fix.action
    if action == fixes.DROP_DUPLICATES:
        if fix.positions:
            steps.bind("{}.drop_duplicates(subset={}, keep=\"first\")".format(
                current, _labels(table, fix.positions)))
        else:
            steps.bind(current + ".drop_duplicates()")
        return
    if action == fixes.DROP_COLUMNS:
        if table.series:
            raise NoCode("a Series is one column: drop the variable rather than its column")
        steps.bind("{}.drop(columns={})".format(current, _labels(table, fix.positions)))
        return
    if action == fixes.DROP_MISSING:
        if table.series:
            steps.bind(current + ".dropna()")
        else:
            steps.bind("{}.dropna(subset={})".format(current, _labels(table, fix.positions)))
        return
    position = fix.positions[0]
    if not table.series:
        _labels(table, fix.positions)  # a label the code can name
    ref, values = table.bind(current).column(position)
    expression = _fixed_column(fix, ref, values, steps.imports).render(steps.imports)
    if table.series:
        steps.bind(expression)
        return
    label = table.frame.columns[position]
    if type(label) is str and label.isidentifier() and not keyword.iskeyword(label) \
            and label != "self":
        steps.bind("{}.assign({}={})".format(current, label, expression))
    elif type(label) is str:
        steps.bind("{}.assign(**{{{}: {}}})".format(current, text_literal(label), expression))
    else:
        steps.bind(current + ".copy()")
        steps.lines.append("{}[{}] = {}".format(
            steps.out, table.label(position).render(steps.imports), expression))


def _labels(table, positions):
    labels = [table.label(p) for p in positions]
    if None in labels:
        raise NoCode("column {} has no label a fix can name (not unique, or no plain "
                     "value): rename it first".format(
                         table.frame.columns[positions[labels.index(None)]]))
    return ListOf(labels).render(Imports())


def _fixed_column(fix, ref, values, imports):
    """The fixed column's expression (``pd.to_numeric(sales["price"], ...)``)."""
    pd = sys.modules["pandas"]
    action = fix.action
    module = Ref("pd", pd, "pd")
    if action == fixes.TO_NUMBER:
        return method(module, "to_numeric", ref, errors="coerce")
    if action == fixes.TO_DATE:
        options = {}
        if _major(pd) >= 2:
            options["format"] = "ISO8601"
        options["errors"] = "coerce"
        if fix.value == "utc":
            options["utc"] = True
        return method(module, "to_datetime", ref, **options)
    if action == fixes.CLIP:
        low, high = fix.value
        return method(ref, "clip", low, high)
    if action == fixes.TO_TEXT:
        return method(ref, "astype", "string")
    if action == fixes.RELABEL:
        mapping = Replacements(fix.value)
        if type(values.dtype).__name__ == "CategoricalDtype":
            text = method(method(ref, "astype", Ref("object", object)), "replace", mapping)
            return method(text, "astype", "category")
        return method(ref, "replace", mapping)
    raise NoCode("no pandas code for " + action)


def _major(module):
    try:
        return int(str(module.__version__).split(".")[0])
    except (AttributeError, ValueError):
        return 0


def label_literal(label):
    """A pandas column label as a literal node, or None when it is not a plain one
    (text, an integer, a tuple of those)."""
    t = type(label)
    if t is str or t is int:
        return Lit(label)
    module = (getattr(t, "__module__", "") or "").split(".")[0]
    if module == "numpy" and getattr(getattr(label, "dtype", None), "kind", "") in ("i", "u"):
        return Lit(int(label))
    if t is tuple and label and all(type(x) in (str, int) for x in label):
        return _Tuple(label)
    return None


class _Tuple(Lit):
    """A tuple label: ``("a", 1)`` (``df[("a", 1)]`` reads a MultiIndex column)."""

    def render(self, imports):
        items = [Lit(x).render(imports) for x in self.value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    def evaluate(self):
        return self.value


# --- a column's statistics -----------------------------------------------------------------


class PandasColumn(SeriesColumn):
    """A pandas Series' statistics (``windows.statistics.PlainColumn`` lists the
    methods)."""

    def take(self, positions):
        return PandasColumn(self.s.take(positions))

    def nulls(self):
        return int(self.s.isna().sum())

    def cheap_nulls(self):
        """Missing values found without a pass in Python (not object or python strings)."""
        np = sys.modules["numpy"]
        dtype = self.s.dtype
        if isinstance(dtype, np.dtype):
            return dtype.kind != "O"
        return getattr(dtype, "storage", None) != "python"

    def nulls_at(self, rows):
        mask = self.s.isna().to_numpy()
        return int(mask.sum() if rows is None else mask[rows].sum())

    def family(self):
        pd = sys.modules["pandas"]
        np = sys.modules["numpy"]
        types = pd.api.types
        dtype = self.s.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            return "category"
        if isinstance(dtype, np.dtype) and dtype.kind == "O":
            inferred = types.infer_dtype(self.s, skipna=True)
            return {"string": "string", "boolean": "boolean"}.get(inferred, "other")
        if types.is_bool_dtype(dtype):
            return "boolean"
        if types.is_datetime64_any_dtype(dtype):
            return "datetime"
        if types.is_numeric_dtype(dtype) and not types.is_complex_dtype(dtype):
            return "number"
        if types.is_string_dtype(dtype):
            return "string"
        return "other"

    def numbers(self, scale, texts):
        np = sys.modules["numpy"]
        dtype = self.s.dtype
        if isinstance(dtype, np.dtype):
            a = self.s.to_numpy()  # NaN, the only missing value, is left out by the sort
        else:  # nullable and arrow dtypes: their numpy type, the nulls dropped
            a = self.s.dropna().to_numpy(dtype=getattr(dtype, "numpy_dtype", np.float64))
        return numpy_numbers(np, a, scale)

    def strings(self, top, present, scale, texts):
        pd = sys.modules["pandas"]
        np = sys.modules["numpy"]
        # codes in the order values first appear (categories too: only those used); -1
        # for a missing value
        codes, uniques = pd.factorize(self.s)
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        empty = int(counts[np.asarray(uniques == "", dtype=bool)].sum())
        best = [(uniques[i], int(counts[i])) for i in numpy_ranked(np, counts, top)]
        return strings_out(len(uniques), empty, best, present, scale, texts)

    def booleans(self, present, scale, texts):
        return booleans_out(self.s.dropna().astype(bool).sum(), present, scale)

    def datetimes(self, scale, texts):
        return series_dates_out(self.s.dropna())

    # --- what the findings read (``windows.findings.PlainFacts`` lists the methods) ---

    def _numbers(self):
        """The column's numbers as a numpy array: NaN (and ±inf) kept in a float column,
        a nullable or arrow column's missing values dropped."""
        np = sys.modules["numpy"]
        dtype = self.s.dtype
        if isinstance(dtype, np.dtype):
            return self.s.to_numpy()
        return self.s.dropna().to_numpy(dtype=getattr(dtype, "numpy_dtype", np.float64))

    def _finite(self):
        np = sys.modules["numpy"]
        a = self._numbers()
        if a.dtype.kind == "f":
            a = a[np.isfinite(a)]
        return a

    def bounds(self):
        return self.s.min(), self.s.max()

    def quartiles(self):
        np = sys.modules["numpy"]
        a = self._finite()
        if not a.size:
            return None
        return [float(q) for q in np.quantile(a, (0.25, 0.5, 0.75))]

    def deviations(self, center):
        np = sys.modules["numpy"]
        a = self._finite()
        return float(np.median(np.abs(a.astype(np.float64) - center))) if a.size else 0.0

    def outside(self, low, high):
        a = self._numbers()
        return int(((a < low) | (a > high)).sum())

    def whole(self):
        np = sys.modules["numpy"]
        a = self._finite()
        if a.dtype.kind in "iub":
            return True
        return bool((a == np.floor(a)).all())

    def floats(self):
        np = sys.modules["numpy"]
        dtype = self.s.dtype
        if isinstance(dtype, np.dtype):
            return self.s.to_numpy()
        return self.s.to_numpy(dtype=np.float64, na_value=np.nan)

    def _factorized(self):
        found = getattr(self, "_codes", None)
        if found is None:
            pd = sys.modules["pandas"]
            np = sys.modules["numpy"]
            codes, uniques = pd.factorize(self.s)
            counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
            found = self._codes = (uniques, counts)
        return found

    def labels(self, limit):
        uniques, counts = self._factorized()
        k = min(limit, len(uniques))
        return list(zip(uniques[:k].tolist(), counts[:k].tolist())), len(uniques)

    def repeated(self, limit):
        np = sys.modules["numpy"]
        uniques, counts = self._factorized()
        repeats = np.flatnonzero(counts > 1)
        keys = uniques.take(repeats[:limit]).tolist()
        return len(uniques), int(counts[repeats].sum()), keys, len(repeats)

    def type_counts(self):
        np = sys.modules["numpy"]
        if not (isinstance(self.s.dtype, np.dtype) and self.s.dtype.kind == "O"):
            return None
        return type_groups(self.s.dropna().to_numpy())


# --- two tables compared (the ``compare`` op, ``windows.compare``) -------------------------


class PandasComparer(Comparer):
    """Two pandas DataFrames compared: rows matched by ``Index.get_indexer`` (on the key's
    columns, the index, or nothing: positions), each pair of columns by pandas' own ``==``
    on the matched rows (:func:`pandas_same`); the statuses in a numpy array."""

    library = "pandas"

    def __init__(self, table, other, names):
        one_table(table, other, names, PandasFrame)
        self.session, self.names = table.session, names
        self.frames = (table.value, other.value)

    def labels(self, side):
        frame = self.frames[side]
        return [(c, label_text(c, LABEL_CHARS), str(d))
                for c, d in zip(list(frame.columns), list(frame.dtypes))]

    def height(self, side):
        return int(self.frames[side].shape[0])

    def match(self, key):
        pd = sys.modules["pandas"]
        np = sys.modules["numpy"]
        after, before = self.frames
        found = Matched(self.height(0), self.height(1))
        if key is not None:
            indexes = [_key_index(pd, frame, positions)
                       for frame, positions in zip(self.frames, key)]
            for side, index in enumerate(indexes):
                if not index.is_unique:
                    raise NotComparable(_repeated(index, self.names[side]))
            found.by = "key"
            found.match = indexes[1].get_indexer(indexes[0])
        elif not (_default_range(pd, after.index) and _default_range(pd, before.index)):
            repeats = [n for n, f in zip(self.names, self.frames) if not f.index.is_unique]
            if repeats:
                found.note = ("the index of {} repeats labels: no key given, compared by "
                              "position".format(" and ".join(repeats)))
            else:
                try:
                    found.match = before.index.get_indexer(after.index)
                    found.by = "index"
                except (TypeError, ValueError) as exc:
                    found.note = ("the indexes cannot be matched ({}): no key given, compared "
                                  "by position".format(type(exc).__name__))
        else:
            found.note = ("no key given and both indexes are the default 0 … n-1: compared by "
                          "position")
        if found.match is None:
            found.by = "position"
            found.match = np.arange(found.heights[0], dtype=np.int64)
            found.match[found.heights[1]:] = -1
        found.match = np.asarray(found.match, dtype=np.int64)
        hit = np.zeros(found.heights[1], dtype=bool)
        hit[found.match[found.match >= 0]] = True
        found.removed = np.flatnonzero(~hit)
        found.status = np.where(found.match >= 0, UNCHANGED, ADDED).astype(np.int8)
        return found

    def compare_columns(self, found, pairs):
        np = sys.modules["numpy"]
        after, before = self.frames
        rows_a = np.flatnonzero(found.match >= 0)
        rows_b = found.match[rows_a]
        whole_a = len(rows_a) == found.heights[0]
        whole_b = len(rows_b) == found.heights[1] and bool(
            (rows_b == np.arange(len(rows_b))).all())
        differs = np.zeros(len(rows_a), dtype=bool)
        out = []
        for p, q in pairs:
            try:
                x = after.iloc[:, p].array  # the values, without the index
                y = before.iloc[:, q].array
                differ = ~pandas_same(x if whole_a else x.take(rows_a),
                                      y if whole_b else y.take(rows_b))
            except Exception as exc:
                out.append((None, guard.user_error("comparing", exc)))
                continue
            differs |= differ
            out.append((int(differ.sum()), None))
        found.status[rows_a[differs]] = CHANGED
        return out

    def summary(self, side, position):
        types = sys.modules["pandas"].api.types
        s = self.frames[side].iloc[:, position]
        dtype = s.dtype
        mean = None
        if types.is_numeric_dtype(dtype) and not types.is_bool_dtype(dtype) \
                and not types.is_complex_dtype(dtype):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mean = s.mean()
        return mean, int(s.isna().sum())

    def counts(self, found):
        np = sys.modules["numpy"]
        counted = np.bincount(found.status, minlength=3)
        return {UNCHANGED: int(counted[UNCHANGED]), CHANGED: int(counted[CHANGED]),
                ADDED: int(counted[ADDED]), REMOVED: len(found.removed)}

    def select(self, found, codes):
        np = sys.modules["numpy"]
        parts = []
        mine = [c for c in codes if c != REMOVED]
        if mine:
            parts.append(np.flatnonzero(np.isin(found.status, mine)))
        if REMOVED in codes:
            parts.append(found.heights[0] + np.arange(len(found.removed)))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def size(self, ids):
        return len(ids)

    def ids_at(self, ids, start, stop):
        return [int(i) for i in ids[start:stop].tolist()]

    def status_of(self, found, rows):
        return found.status[_positions(rows)].tolist()

    def match_of(self, found, rows):
        return found.match[_positions(rows)].tolist()

    def removed_of(self, found, ranks):
        return found.removed[_positions(ranks)].tolist()

    def shown_table(self, found, ids, columns):
        pd = sys.modules["pandas"]
        np = sys.modules["numpy"]
        ids = np.asarray(ids, dtype=np.int64)
        cut = int(np.searchsorted(ids, found.heights[0]))
        names = [text for _p, _q, text in columns]
        parts = [self.frames[0].iloc[ids[:cut], [p for p, _q, _t in columns]]]
        if cut < len(ids):
            removed = found.removed[ids[cut:] - found.heights[0]]
            parts.append(self.frames[1].iloc[removed, [q for _p, q, _t in columns]])
        parts = [part.set_axis(names, axis=1) for part in parts]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            shown = pd.concat(parts, ignore_index=True) if len(parts) > 1 else \
                parts[0].reset_index(drop=True)
        return PandasFrame(shown, self.session), lambda positions: ids[np.asarray(positions,
                                                                                  dtype=np.intp)]

    def take(self, side, rows):
        rows = _positions(rows)
        return _Taken(self.session.run(lambda: self.frames[side].iloc[rows]))

    def texts(self, sub, positions, cells, rows=None):
        columns = self.session.run(sub.columns, positions)
        return [_series_cells(column, cells, rows) for column in columns]

    def differs(self, sub_a, sub_b, pairs, rows_a=None, rows_b=None):
        """For each pair, whether each row's two cells differ: the columns taken once, all
        compared under one guard."""
        return self.session.run(_differs, sub_a, sub_b, pairs, rows_a, rows_b)

    def index_texts(self, sub, cells, rows=None):
        index = self.session.run(lambda: sub.frame.index)
        return cells.column(_picked(self.session.run(index.tolist), rows),
                            dtype_is_date(getattr(index, "dtype", None)))


class _Taken:
    """Rows of a table taken once for a window (:meth:`PandasComparer.take`), each column
    read from them as a Series at most once, however many times the window reads it."""

    def __init__(self, frame):
        self.frame = frame
        self.read = {}

    def columns(self, positions):
        """The columns at ``positions``, as Series: every column's Series picked (no copy)
        for a table not much wider than asked, else the asked columns taken first."""
        positions = list(positions)
        unread = [p for p in positions if p not in self.read]
        if unread:
            if self.frame.shape[1] <= 2 * len(unread) + 16:
                self.read.update(enumerate(column for _label, column in self.frame.items()))
            else:
                self.read.update(zip(unread, (column for _label, column
                                              in self.frame.iloc[:, unread].items())))
        return [self.read[p] for p in positions]


def _differs(sub_a, sub_b, pairs, rows_a, rows_b):
    a = [_at(c.array, rows_a) for c in sub_a.columns([p for p, _q in pairs])]
    b = [_at(c.array, rows_b) for c in sub_b.columns([q for _p, q in pairs])]
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x, y in zip(a, b):
            try:
                out.append((~_same(x, y)).tolist())
            except Exception as exc:
                guard.check(exc)
                out.append([False] * len(x))  # its column says why it was not compared
    return out


def _at(array, rows):
    """A column's values (a pandas array) at ``rows`` (None: all)."""
    return array if rows is None else array.take(_positions(rows))


def _picked(values, rows):
    """The items of the list ``values`` at ``rows`` (None: all)."""
    return values if rows is None else [values[r] for r in rows]


def pandas_same(a, b):
    """Whether each pair of values of the pandas arrays ``a`` and ``b`` (a Series'
    ``array``, by position) is one value: pandas' ``==`` (values of different dtypes read
    as objects when it refuses them, as categories of different categories), missing
    values equal each other."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _same(a, b)


def _same(a, b):
    pd = sys.modules["pandas"]
    np = sys.modules["numpy"]
    try:
        eq = a == b
    except (TypeError, ValueError):
        eq = np.asarray(a, dtype=object) == np.asarray(b, dtype=object)
    if np.ndim(eq) == 0:  # no elementwise comparison: none equal
        eq = np.zeros(len(a), dtype=bool)
    elif not isinstance(eq, np.ndarray) or eq.dtype != bool:
        eq = eq.to_numpy(dtype=bool, na_value=False) if hasattr(eq, "to_numpy") else \
            np.asarray(eq, dtype=bool)
    return eq | (np.asarray(pd.isna(a)) & np.asarray(pd.isna(b)))


def _key_index(pd, frame, positions):
    """The key's values as an index (a MultiIndex for several columns)."""
    if len(positions) == 1:
        return pd.Index(frame.iloc[:, positions[0]])
    return pd.MultiIndex.from_arrays([frame.iloc[:, p] for p in positions])


def _repeated(index, name):
    repeated = index[index.duplicated()].unique()
    quoted = ", ".join(label_text(x, 40) for x in repeated[:QUOTED_KEYS].tolist())
    one = len(repeated) == 1
    return "the key is not unique in {}: {:,} value{} repeat{} ({}{}): give columns that " \
        "identify a row".format(name, len(repeated), "" if one else "s", "s" if one else "",
                                quoted, ", …" if len(repeated) > QUOTED_KEYS else "")


def _default_range(pd, index):
    return type(index) is pd.RangeIndex and index.start == 0 and index.step == 1


def _positions(rows):
    np = sys.modules["numpy"]
    return np.asarray(rows, dtype=np.intp)
