"""Two tables compared row by row (the ``compare`` op): what every library's comparison
shares.

``name`` is the after, ``with`` the before.  Rows are matched by a key: the columns the
request names (``key``), else the index when it says something (pandas, when either
table's index is not the default ``RangeIndex``), else the position; the reply's ``by``
says which (``key``, ``index``, ``position``) and ``key_note`` why no key was used.  A row
of ``name`` only is *added*, of ``with`` only *removed*; a row of both is *changed* when a
cell of a compared column differs, else *unchanged*.  The compared columns are those both
tables have (by label); the key's columns are not compared; the others are listed
(``only_in_name``, ``only_in_with``) and a label that repeats in a table is not compared.

Cells are equal when their values are: missing values (None, NaN, NaT, null) equal each
other, numbers of two dtypes compare by value (1 == 1.0), a number never equals text.
A key must identify rows: a key the request names whose values repeat in a table is
refused (:class:`NotComparable`, a 400 quoting the repeated values); an index that
repeats is not used (by position, and ``key_note`` says so).

Each library compares with its own vectorised calls (``backends.pandas.PandasComparer``:
``Index.get_indexer`` on the key; ``backends.polars.PolarsComparer``: joins) through the
interface :class:`Comparer` describes.  Here: the columns planned, the result kept for
paging (:class:`Comparisons`: the rows' statuses and matches, never the tables), the
window of the listed rows (the view's filter and sort by the library's own table, on
the values shown) and the reply.
"""

import time

from ..inspect.base import type_name
from ..inspect.tables import label_text, plain_label
from .columns import ViewColumns
from .order import view_rows

#: Status codes of the rows (a library keeps them in an array of its own).
UNCHANGED, CHANGED, ADDED, REMOVED = 0, 1, 2, 3
STATUS_NAMES = ("unchanged", "changed", "added", "removed")
CODES = {text: code for code, text in enumerate(STATUS_NAMES)}
#: Characters of a column's name in the reply.
NAME_CHARS = 200
#: Names listed among the columns only one table has (or not compared); the rest counted.
LISTED_COLUMNS = 200
#: Columns compared at most (those past it are listed as not compared).
MAX_COMPARED_COLUMNS = 1_000
#: Repeated key values quoted when a key is refused.
QUOTED_KEYS = 3
#: Comparisons kept for paging, and per comparison the ids of the last statuses asked and
#: the orders of the last views: a comparison keeps 9 bytes a row of ``name`` (a status
#: and the matching row of ``with``) and 8 a removed row; ids and orders 8 bytes a listed
#: row each.
COMPARISONS_KEPT = 1
ORDERS_KEPT = 2


class NotComparable(Exception):
    """The tables cannot be compared as asked (a 400 that says why)."""


class Comparer:
    """What a library implements to compare two of its tables (``after``: ``name``'s
    value, ``before``: ``with``'s).  Row ids: a row of ``after`` is its position, a
    removed row of ``before`` is ``len(after) + i`` (``i``: its rank among the removed).
    ``found`` is what :meth:`match` returned, completed by :meth:`compare_columns`: the
    library's arrays (statuses, matches, removed rows), never the tables.

    :meth:`labels` to :meth:`counts` run inside the caller's time guard (they call no
    guard themselves); :meth:`take`, :meth:`texts`, :meth:`same` and
    :meth:`index_texts` read the tables through the session's guard themselves (a
    cell's own repr has its own); the others read only ``found``."""

    library = None

    def labels(self, side):
        """[(label, text, dtype text)] of the columns of ``after`` (side 0) or ``before``
        (side 1)."""
        raise NotImplementedError

    def height(self, side):
        raise NotImplementedError

    def match(self, key):
        """The rows matched: ``key`` None (the index when meaningful, else positions) or
        (positions in ``after``, positions in ``before``).  Returns ``found`` with ``by``,
        ``note``, ``heights``; :class:`NotComparable` for a key that repeats."""
        raise NotImplementedError

    def match_columns(self, key, pairs):
        """``(found, changes)``: :meth:`match`, then :meth:`compare_columns`; a library
        may match the rows and compare their cells in one pass."""
        found = self.match(key)
        return found, self.compare_columns(found, pairs)

    def compare_columns(self, found, pairs):
        """[(cells changed, error or None)] for each (position in after, in before) of
        ``pairs`` over the matched rows; marks each matched row changed or not."""
        raise NotImplementedError

    def summary(self, side, position):
        """(mean or None, missing values) of a column."""
        raise NotImplementedError

    def counts(self, found):
        """{status code: rows}."""
        raise NotImplementedError

    def select(self, found, codes):
        """The ids of the rows whose status is one of ``codes``, ascending."""
        raise NotImplementedError

    def size(self, ids):
        raise NotImplementedError

    def ids_at(self, ids, start, stop):
        """``ids[start:stop]`` as a list of ints."""
        raise NotImplementedError

    def status_of(self, found, rows):
        """The status codes of rows of ``after`` (a list)."""
        raise NotImplementedError

    def match_of(self, found, rows):
        """The rows of ``before`` that rows of ``after`` matched (-1: none)."""
        raise NotImplementedError

    def removed_of(self, found, ranks):
        """The rows of ``before`` of the removed rows of these ranks."""
        raise NotImplementedError

    def shown_table(self, found, ids, columns):
        """``(table, back)``: a table of the library (``backends.base.TableBackend``) of
        the rows ``ids``, the columns ``columns`` ((position in after, in before, name)
        each) as shown (``before``'s values for a removed row), for a view's filter and
        sort; ``back`` maps its row positions to ids.  Runs inside the caller's guard."""
        raise NotImplementedError

    def take(self, side, rows):
        """The rows ``rows`` (positions, a list) of a table, every column: a window takes
        each table once.  ``rows`` below: positions in what this returned (a list; None:
        all of them, in order)."""
        raise NotImplementedError

    def texts(self, sub, positions, cells, rows=None):
        """The cell texts (``cells.Cells``) of the columns at ``positions`` of ``sub``
        (what :meth:`take` returned) at ``rows``, a list per column."""
        raise NotImplementedError

    def same(self, sub_a, p, sub_b, q):
        """Whether each row's cells of column ``p`` of ``sub_a`` and ``q`` of ``sub_b``
        hold one value (a list of booleans)."""
        raise NotImplementedError

    def differs(self, sub_a, sub_b, pairs, rows_a=None, rows_b=None):
        """For each (p, q) of ``pairs``, whether each row's two cells (``sub_a`` at
        ``rows_a``, ``sub_b`` at ``rows_b``) differ (lists of booleans); a library may
        read the columns at once."""
        raise NotImplementedError

    def index_texts(self, sub, cells, rows=None):
        """The index labels of ``sub`` at ``rows`` as text (tables whose index is a
        key)."""
        raise NotImplementedError


def one_table(table, other, names, frame_class):
    """:class:`NotComparable` unless both tables (``backends.base.TableBackend``) are
    DataFrames of ``frame_class``'s library."""
    for side, t in enumerate((table, other)):
        if t.kind != "dataframe":
            raise NotComparable("{} is a {}: comparisons are made between two DataFrames".format(
                names[side], type_name(type(t.value))))
    if not isinstance(other, frame_class):
        raise NotComparable(
            "{} is a {} and {} a {}: comparisons are made between two DataFrames of one "
            "library (pandas or polars)".format(names[0], _described(table.value), names[1],
                                                _described(other.value)))


def _described(value):
    """``polars DataFrame``: a value's type with its library."""
    t = type(value)
    module = (getattr(t, "__module__", "") or "").split(".")[0]
    return (module + " " if module and module != "builtins" else "") + type_name(t)


class Matched:
    """What a comparison keeps of its tables (none of their data): per row of ``name``
    its row of ``with`` (``match``, -1: none) and its status code (``status``), the
    removed rows of ``with`` (``removed``) — each in an array of the library's — and
    how rows were matched (``by``, ``note``)."""

    def __init__(self, height, with_height):
        self.heights = (height, with_height)
        self.by, self.note = None, None
        self.match = self.status = self.removed = None


class ComparePlan:
    """What is compared: the key's columns, the pairs of columns, and those not compared.

    ``pairs``: (position in after, position in before, name); ``only``: names of the
    columns only after (0) or before (1) has, and how many; ``skipped``: [{name, reason}]
    (at most :data:`LISTED_COLUMNS`) and how many."""

    def __init__(self, comparer, key, names):
        self.after, self.before = comparer.labels(0), comparer.labels(1)
        self.key = None if key is None else self._key(key, names)
        keyed = set() if self.key is None else set(self.key[0])
        b_places = _places(self.before)
        a_places = _places(self.after)
        self.pairs, self.skipped, self.skipped_total = [], [], 0
        self.only = ([], []), [0, 0]
        matched = set()
        for p, (label, text, _dtype) in enumerate(self.after):
            k = _label_key(label)
            if p in keyed:
                matched.update(b_places.get(k, ()))
                continue
            theirs = b_places.get(k, ())
            if len(a_places[k]) > 1 or len(theirs) > 1:
                matched.update(theirs)
                self._skip(text, "its label repeats in {}".format(
                    names[0] if len(a_places[k]) > 1 else names[1]))
            elif theirs:
                matched.add(theirs[0])
                if len(self.pairs) < MAX_COMPARED_COLUMNS:
                    self.pairs.append((p, theirs[0], label_text(label, NAME_CHARS)))
                else:
                    self._skip(text, "past the first {:,} columns compared".format(
                        MAX_COMPARED_COLUMNS))
            else:
                self._only(0, text)
        for q, (label, text, _dtype) in enumerate(self.before):
            if q in matched:
                continue
            if len(b_places[_label_key(label)]) > 1:
                self._skip(text, "its label repeats in " + names[1])
            elif not (self.key is not None and q in self.key[1]):
                self._only(1, text)

    def _key(self, key, names):
        positions = ([], [])
        for side in (0, 1):
            labels = self.after if side == 0 else self.before
            for wanted in key:
                found = [p for p, (_l, text, _d) in enumerate(labels) if text == wanted]
                if not found:
                    raise NotComparable("key column {!r} is not a column of {}".format(
                        wanted[:100], names[side]))
                if len(found) > 1:
                    raise NotComparable("key column {!r} names {} columns of {}".format(
                        wanted[:100], len(found), names[side]))
                positions[side].append(found[0])
        return positions

    def _skip(self, text, reason):
        self.skipped_total += 1
        if len(self.skipped) < LISTED_COLUMNS:
            self.skipped.append({"name": text, "reason": reason})

    def _only(self, side, text):
        self.only[1][side] += 1
        if len(self.only[0][side]) < LISTED_COLUMNS:
            self.only[0][side].append(text)

    def key_names(self):
        return None if self.key is None else [self.after[p][1] for p in self.key[0]]


def _places(labels):
    out = {}
    for p, (label, _text, _dtype) in enumerate(labels):
        out.setdefault(_label_key(label), []).append(p)
    return out


def _label_key(label):
    item = getattr(label, "item", None)
    if item is not None and type(label).__module__ == "numpy":  # np.int64(3) is 3
        try:
            label = item()
        except Exception:
            pass
    return plain_label(label)


class Compared:
    """One comparison, kept for paging: the plan, the library's ``found`` (statuses and
    matches), the counts and the columns' entries, and the orders of its views."""

    def __init__(self, plan, found, counts, columns, took_ms):
        self.plan, self.found, self.counts, self.columns = plan, found, counts, columns
        self.took_ms = took_ms
        self.orders = {}
        self.selected = {}

    def order(self, key, compute):
        """The ids of a view (kept: the last :data:`ORDERS_KEPT`)."""
        return _kept(self.orders, key, compute)

    def select(self, codes, compute):
        """The ids of the rows of some statuses, in order (kept likewise)."""
        return _kept(self.selected, tuple(sorted(codes)), compute)


def _kept(kept, key, compute):
    got = kept.get(key)
    if got is None:
        got = compute()
        while len(kept) >= ORDERS_KEPT:
            kept.pop(next(iter(kept)))
        kept[key] = got
    return got


class Comparisons:
    """The last comparisons, keyed by what makes them valid (both values, their shapes,
    the key asked and the execution count)."""

    def __init__(self):
        self.kept = {}

    def peek(self, key):
        """The comparison kept for ``key``, or None."""
        return self.kept.get(key)

    def get(self, key, compute):
        """``(compared, reused)``."""
        found = self.kept.get(key)
        if found is not None:
            return found, True
        found = compute()
        while len(self.kept) >= COMPARISONS_KEPT:
            self.kept.pop(next(iter(self.kept)))
        self.kept[key] = found
        return found, False


def compute(comparer, plan):
    """The comparison of the tables ``comparer`` holds as ``plan`` says (the caller runs
    it under the comparison's time guard)."""
    started = time.perf_counter()
    found, changes = comparer.match_columns(plan.key, [(p, q) for p, q, _n in plan.pairs])
    columns = []
    for (p, q, text), (changed, error) in zip(plan.pairs, changes):
        mean, nulls = comparer.summary(0, p)
        with_mean, with_nulls = comparer.summary(1, q)
        columns.append({
            "name": text, "position": p, "with_position": q,
            "dtype": plan.after[p][2], "with_dtype": plan.before[q][2],
            "changed": changed, "error": error,
            "mean": _finite(mean), "with_mean": _finite(with_mean),
            "nulls": nulls, "with_nulls": with_nulls,
        })
    counts = comparer.counts(found)
    took = int((time.perf_counter() - started) * 1000)
    return Compared(plan, found, counts, columns, took)


def _finite(x):
    if x is None:
        return None
    try:
        x = float(x)
    except (TypeError, ValueError, OverflowError):
        return None
    return x if x - x == 0 else None


def listed_rows(session, comparer, compared, fields, codes):
    """``(ids, kept, selected)``: the ids of the rows the window pages through (those of
    the statuses asked, kept by the view's filter, in its order), how many the filter
    kept (None without one) and how many rows have those statuses; the filter and sort by
    the library's own table of the values shown, under ``sort_ms``, the order kept."""
    found, view = compared.found, fields["view"]
    ids = compared.select(codes, lambda: comparer.select(found, codes))
    selected = comparer.size(ids)
    if not view.sort and view.filter is None:
        return ids, None, selected

    def ordered():
        table, back = session.run_within(fields["sort_ms"], comparer.shown_table, found, ids,
                                         shown_columns(compared.plan))
        columns = ViewColumns(table, view, table.columns_total())
        positions, kept = session.run_within(fields["sort_ms"], view_rows, table, columns,
                                             view)
        return (ids if positions is None else back(positions)), kept

    key = (tuple(sorted(codes)), view.key)
    ordered_ids, kept = compared.order(key, ordered)
    return ordered_ids, kept, selected


def shown_columns(plan):
    """The columns a view's filter and sort may name: the key's, then the compared ones."""
    out = []
    if plan.key is not None:
        for p, q in zip(*plan.key):
            out.append((p, q, label_text(plan.after[p][0], NAME_CHARS)))
    return out + list(plan.pairs)


def window_rows(comparer, compared, ids, shown, cells):
    """The window's rows (``ids``, in order): ``{"status", "position", "key", "cells",
    "changes", "changed_cells"}``.  ``cells``: the texts of the compared columns at
    ``shown`` (``before``'s for a removed row); ``changes``: those of them that differ,
    before → after; ``changed_cells``: how many of every compared column differ.

    Each table is taken once: ``name``'s rows of the window, ``with``'s removed rows then
    the rows the changed ones matched; the texts and the changed cells read those two by
    row positions.  Only the cells shown become text (and count when cut): every listed
    row's, and ``with``'s of the changed rows in the shown columns where one of them
    differs."""
    found, plan = compared.found, compared.plan
    n_a = found.heights[0]
    mine = [i for i in ids if i < n_a]
    removed = comparer.removed_of(found, [i - n_a for i in ids if i >= n_a])
    status = dict(zip(mine, comparer.status_of(found, mine)))
    changed = [i for i in mine if status[i] == CHANGED]
    before_rows = comparer.match_of(found, changed)
    shown_pairs = [plan.pairs[j] for j in shown]
    key_columns = ([], []) if plan.key is None else plan.key
    at_a = {i: k for k, i in enumerate(mine)}
    n_w = len(removed) + len(before_rows)
    rows_c = _unless_all([at_a[i] for i in changed], len(mine))
    rows_r = _unless_all(list(range(len(removed))), n_w)
    rows_b = _unless_all(list(range(len(removed), n_w)), n_w)
    sub_a, sub_w = comparer.take(0, mine), comparer.take(1, removed + before_rows)
    cells_a = _rows(comparer.texts(sub_a, [p for p, _q, _t in shown_pairs], cells), len(mine))
    cells_r = _rows(comparer.texts(sub_w, [q for _p, q, _t in shown_pairs], cells, rows_r),
                    len(removed))
    keys_a, keys_r = _keys(comparer, found.by, (sub_a, sub_w), (None, rows_r), key_columns,
                           mine, removed, cells)
    differ = comparer.differs(sub_a, sub_w, [(p, q) for p, q, _t in plan.pairs], rows_c,
                              rows_b)
    # the before's texts of the shown columns where a window's row changed, only
    needed = [j for j, k in enumerate(shown) if any(differ[k])]
    befores = dict(zip(needed, comparer.texts(sub_w, [shown_pairs[j][1] for j in needed],
                                              cells, rows_b)))
    at_c = {i: k for k, i in enumerate(changed)}
    shown_at = list(shown)
    out, rank = [], 0
    for i in ids:
        if i >= n_a:
            out.append(_row(REMOVED, removed[rank], keys_r[rank], cells_r[rank], 0))
            rank += 1
            continue
        k = at_a[i]
        if status[i] != CHANGED:
            out.append(_row(status[i], i, keys_a[k], cells_a[k], 0))
            continue
        c = at_c[i]
        row = _row(CHANGED, i, keys_a[k], cells_a[k], sum(d[c] for d in differ))
        row["changes"] = [{"column": j, "before": befores[j][c], "after": cells_a[k][j]}
                          for j, pair in enumerate(shown_at) if differ[pair][c]]
        out.append(row)
    return out


def _unless_all(rows, n):
    """``rows`` (positions in a take of ``n`` rows), or None when they are all of it in
    order (nothing to pick)."""
    return None if len(rows) == n and rows == list(range(n)) else rows


def _row(code, position, key, texts, changed):
    return {"status": STATUS_NAMES[code], "position": position, "key": key, "cells": texts,
            "changes": [], "changed_cells": changed}


def _rows(columns, n):
    """Columns of texts as rows (``n`` of them)."""
    return [[col[r] for col in columns] for r in range(n)]


def _keys(comparer, by, subs, at, key_columns, mine, removed, cells):
    """Each row's key as texts: its key columns' cells, its index label, or its position
    (``subs``' rows at ``at``)."""
    if by == "key":
        return [_rows(comparer.texts(sub, positions, cells, rows), len(listed))
                for sub, rows, positions, listed in zip(subs, at, key_columns,
                                                         (mine, removed))]
    if by == "index":
        return [[[t] for t in comparer.index_texts(sub, cells, rows)]
                for sub, rows in zip(subs, at)]
    return [[[str(i)] for i in listed] for listed in (mine, removed)]


def counts_of(compared):
    return {name: int(compared.counts.get(code, 0)) for code, name in enumerate(STATUS_NAMES)}
