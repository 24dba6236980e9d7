"""What a cell did inside a table or an array, in words, from two content takes
(``contents.ContentFacts``) of one name.

Rows are matched by the index, by a key column when the index says nothing (a default
RangeIndex, or a polars frame: one of the first ``sources.KEY_COLUMNS`` integer or text
columns, unique before and after), else by position; then each column's value words are
compared on the matched rows.  The words:

* ``rows by index: 3 added, 12 removed, 40 changed`` (``by key id``, ``, reordered``);
  ``rows by position: 40 changed``; ``500 rows appended``, ``12 rows removed from the
  end`` (the other rows unchanged); ``rows reordered, values unchanged``;
* per column (a series or an array has no label): ``price: 2,341 values changed, mean
  121.1 → 126.4, nulls 512 → 0`` — exact from kept value words; from block hashes only
  (a table kept without them): ``price: values changed in 3 of 64 blocks``; an object
  column: ``tags: 12 objects replaced`` (compared by identity); an array or series names
  up to three places: ``2 values changed at [3], [7]``;
* ``3 more columns changed`` past the room left, ``values unchanged`` when a rebinding
  changed nothing.

Counts are exact when both takes kept value words (up to a 32-bit hash collision, 2**-32
per changed value); the mean and nulls are the whole column's, before and after.
"""

import math

from .fingerprints import column_text
from .hashing import is_default_range
from .sources import ARRAY

#: Places named per column (arrays, series) when at most this many values changed.
MAX_PLACES = 3
NOT_IN_TIME = "not compared in time"


class ColumnChange:
    """How one column changed: exact ``count`` (or changed ``blocks`` of ``of_blocks``),
    its mean and nulls before and after (None: unchanged), the first places (new
    positions) when asked, the mask of changed rows (exact counts only)."""

    __slots__ = ("blocks", "count", "identity", "key", "label", "mask", "means", "nulls",
                 "of_blocks", "places")

    def __init__(self, old, new):
        self.key, self.label, self.identity = new.key, new.label, new.identity
        self.count = self.blocks = self.of_blocks = self.mask = None
        self.places = ()
        self.means = None if _same_number(old.mean, new.mean) else (old.mean, new.mean)
        self.nulls = None if old.nulls == new.nulls else (old.nulls, new.nulls)

    def __bool__(self):
        return bool(self.count or self.blocks or self.means or self.nulls)


def _same_number(a, b):
    """Two means are the same up to the rounding of a sum taken in another order."""
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)


def compare_column(old, new, ops, places=False, rows=None):
    """The change of a column between two takes of the same rows in the same order
    (``rows``: the matched positions, old and new, or None), or None when unchanged or
    not comparable (another dtype: the structural words say it)."""
    if old.dtype != new.dtype or old.blocks is None or new.blocks is None:
        return None
    change = ColumnChange(old, new)
    if old.words is not None and new.words is not None:
        a, b = old.words, new.words
        if rows is not None:
            a, b = ops.take(a, rows[0]), ops.take(b, rows[1])
        mask = ops.differ(a, b)
        change.count = ops.count(mask)
        if change.count:
            change.mask = mask
            if places and change.count <= MAX_PLACES:
                found = ops.positions(mask, MAX_PLACES)
                change.places = found if rows is None else [_at(ops, rows[1], p) for p in found]
    elif rows is None and len(old.blocks) == len(new.blocks):
        change.blocks = sum(1 for x, y in zip(old.blocks, new.blocks) if x != y)
        change.of_blocks = len(new.blocks)
    return change if change else None


def _at(ops, positions, p):
    return int(positions[p])


class Comparison:
    """Two takes compared: the rows' words, the changed columns, and whether everything
    compared was equal."""

    __slots__ = ("changes", "rows", "unchanged")

    def __init__(self):
        self.rows = []
        self.changes = []
        self.unchanged = False


def compare(old, new, ops, places=False):
    """Compare two whole takes (rows may have been added, removed or reordered)."""
    out = Comparison()
    if old.lib != new.lib or old.kind != new.kind:
        return out
    common = [k for k in new.columns if k in old.columns]
    how, matched = _match_rows(old, new, ops)
    rows = None if matched is None or matched.old is None else (matched.old, matched.new)
    for key in common:
        a, b = old.columns[key], new.columns[key]
        if how is not None and how.startswith("key ") and key == new.key:
            continue  # the key itself: the rows' words say what came and went
        if how == "prefix":
            change = _prefix_column(a, b, ops, min(old.rows, new.rows))
        elif how is None and old.rows != new.rows:
            change = _stats_only(a, b)
        else:
            change = compare_column(a, b, ops, places, rows)
        if change is not None:
            out.changes.append(change)
    _rows_words(out, how, matched, old, new, ops, common)
    out.unchanged = not out.changes and not out.rows and old.rows == new.rows \
        and len(common) == len(new.columns) == len(old.columns)
    return out


def _stats_only(a, b):
    if a.dtype != b.dtype:
        return None
    change = ColumnChange(a, b)
    return change if change else None


def _prefix_column(a, b, ops, n):
    """Rows kept at the start (appended or cut at the end): the first ``n`` compared."""
    if a.dtype != b.dtype or a.words is None or b.words is None:
        return _stats_only(a, b)
    change = ColumnChange(a, b)
    mask = ops.differ(ops.head(a.words, n), ops.head(b.words, n))
    change.count = ops.count(mask)
    change.mask = mask if change.count else None
    return change if change else None


def _match_rows(old, new, ops):
    """``(how, Alignment)``: how rows were matched ("index", "key <label>", "prefix",
    "position") and the match (None: position by position); ``(None, None)`` when they
    cannot be.  The index matches rows when the new one is not the default RangeIndex
    (a filter, a sort keep their labels; ``reset_index``, ``ignore_index`` renumber)."""
    same_index = old.index == new.index and old.index_digest == new.index_digest
    says_nothing = new.index is None or is_default_range(new.index, new.rows)
    if old.rows == new.rows and same_index and not (says_nothing and new.key is not None):
        return "position", None
    if not says_nothing:
        keys = _index_keys(old, ops), _index_keys(new, ops)
        if keys[0] is not None and keys[1] is not None and ops.unique(keys[0]) \
                and ops.unique(keys[1]):
            return "index", ops.align(keys[0], keys[1])
    if old.key is not None and old.key == new.key and old.key_words is not None \
            and new.key_words is not None and ops.unique(old.key_words) \
            and ops.unique(new.key_words):
        return "key " + column_text(new.columns[new.key].label), \
            ops.align(old.key_words, new.key_words)
    if old.rows == new.rows:
        return "position", None
    if old.detailed and new.detailed:
        return "prefix", None
    return None, None


def _index_keys(facts, ops):
    index = facts.index
    if type(index) is tuple:
        return ops.range_keys(index) if facts.detailed else None
    if index is None or facts.index_identity:
        return None
    return facts.index_words


def _rows_words(out, how, matched, old, new, ops, common):
    if how == "prefix":
        if out.changes and any(c.count for c in out.changes):
            for c in out.changes:  # not rows kept at the start: the row count says it
                c.count = c.mask = None
            out.changes = [c for c in out.changes if c]
            return
        n = new.rows - old.rows
        noun = "value" if new.kind == "array" else "row"
        plural = "" if abs(n) == 1 else "s"
        out.rows.append("{:,} {}{} appended".format(n, noun, plural) if n > 0
                        else "{:,} {}{} removed from the end".format(-n, noun, plural))
        out.changes = [c for c in out.changes if c.means or c.nulls]
        return
    if how in (None,) or not common:
        return
    changed = _changed_rows(out.changes, ops)
    if how == "position":
        if changed and _reordered_only(out, old, new, ops, common):
            return
        if changed is not None and changed and len(out.changes) > 1:
            out.rows.append("rows by position: {:,} changed".format(changed))
        return
    if not changed and not matched.reordered and (matched.added == 0 or matched.removed == 0):
        return  # only added, or only removed: the row count says as much
    if not (matched.added or matched.removed or matched.reordered) \
            and sum(1 for c in out.changes if c.count) <= 1:
        return  # only one column's values changed: its words say as much
    parts = []
    if matched.added:
        parts.append("{:,} added".format(matched.added))
    if matched.removed:
        parts.append("{:,} removed".format(matched.removed))
    if changed:
        parts.append("{:,} changed".format(changed))
    if matched.reordered:
        parts.append("reordered")
    if parts:
        out.rows.append("rows by {}: {}".format(how, ", ".join(parts)))


def _changed_rows(changes, ops):
    """Rows with at least one changed value (exact counts only), or None."""
    masks = [c.mask for c in changes if c.mask is not None]
    if not masks:
        exact = all(c.count == 0 or (c.count is None and not c.blocks) for c in changes)
        return 0 if exact else None
    mask = masks[0]
    for other in masks[1:]:
        mask = ops.either(mask, other)
    return ops.count(mask)


def _reordered_only(out, old, new, ops, common):
    """The rows were only put in another order (every column's words, as a multiset of
    rows, are the same): said so in place of the columns' words."""
    columns = [(old.columns[k].words, new.columns[k].words) for k in common]
    if len(common) != len(old.columns) or any(a is None or b is None for a, b in columns):
        return False
    if any(c.means or c.nulls for c in out.changes):
        return False
    if not ops.same_rows([a for a, _ in columns], [b for _, b in columns]):
        return False
    out.rows.append("rows reordered, values unchanged")
    out.changes = []
    return True


# --- the words ----------------------------------------------------------------------


class ColumnChanges:
    """Column changes found column by column (the same rows), as :func:`words` reads them;
    with ``ops``, the rows they changed in all."""

    __slots__ = ("changes", "rows")

    def __init__(self, changes, ops):
        self.changes = changes
        self.rows = []
        if ops is not None:
            masks = [c.mask for c in changes if c.mask is not None]
            if len(masks) == len(changes):
                mask = masks[0]
                for other in masks[1:]:
                    mask = ops.either(mask, other)
                self.rows.append("rows by position: {:,} changed".format(ops.count(mask)))


def place_text(source):
    """How a changed value's place is named: ``[3]`` (``[1, 2]`` in a 2-D array), or
    a series' index label when it is a plain scalar."""
    if source.kind == ARRAY:
        shape = source.shape or (source.rows,)

        def at(p):
            place = []
            for n in reversed(shape):
                place.append(p % n if n else 0)
                p = p // n if n else 0
            return "[" + ", ".join(str(i) for i in reversed(place)) + "]"

        return at
    index = source.index
    plain = index is None or source.range_index()

    def label(p):
        if plain:
            return "[{}]".format(p)
        x = index[p]
        if type(x) in (int, str, float, bool):
            return repr(x) if type(x) is str else str(x)
        return "#{}".format(p)

    return label




def column_words(change, labelled, place_text=None):
    """``price: 2,341 values changed, mean 121.1 → 126.4, nulls 512 → 0``."""
    parts = []
    if change.count:
        noun = "object" if change.identity else "value"
        verb = "replaced" if change.identity else "changed"
        text = "{:,} {}{} {}".format(change.count, noun, "" if change.count == 1 else "s", verb)
        if change.places and place_text is not None:
            text += " at " + ", ".join(place_text(p) for p in change.places)
        parts.append(text)
    elif change.blocks:
        verb = "replaced" if change.identity else "changed"
        parts.append("{} {} in {} of {} block{}".format(
            "objects" if change.identity else "values", verb, change.blocks,
            change.of_blocks, "" if change.of_blocks == 1 else "s"))
    if change.means:
        parts.append("mean " + numbers_text(*change.means))
    if change.nulls:
        parts.append("nulls {} → {}".format(_count(change.nulls[0]), _count(change.nulls[1])))
    text = ", ".join(parts)
    return column_text(change.label) + ": " + text if labelled else text


def _count(n):
    return "?" if n is None else "{:,}".format(n)


def words(comparison, kind, room, order=None, place_text=None):
    """At most ``room`` words: the rows' first, then the columns (``order``: column keys
    to name first), the rest counted."""
    out = list(comparison.rows[:room])
    changes = comparison.changes
    if order:
        first = [c for c in changes if c.key in order]
        changes = first + [c for c in changes if c.key not in order]
    left = room - len(out)
    labelled = kind == "frame"
    if len(changes) > left and left > 0:
        shown = changes[: left - 1]
        more = len(changes) - len(shown)
        out.extend(column_words(c, labelled, place_text) for c in shown)
        out.append("{} more column{} changed".format(more, "" if more == 1 else "s"))
    elif left > 0:
        out.extend(column_words(c, labelled, place_text) for c in changes)
    return out


def not_compared(rows, kind, why):
    """``changed (not compared: 40,000,000 rows)``."""
    noun = "values" if kind == "array" else "rows"
    return "changed ({}: {:,} {})".format(why, rows, noun)


def is_provisional(text):
    """A word the tracker replaces once the comparison is done (same execution)."""
    return NOT_IN_TIME in text


# --- numbers ----------------------------------------------------------------------------


def number_text(x):
    """A mean as a description shows it: 4 significant digits, thousands separated."""
    if x is None:
        return "none"
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return _digits(x, 4)


def _digits(x, significant):
    m = abs(x)
    if m == 0:
        return "0"
    if 1e-4 <= m < 1e15:
        decimals = max(0, significant - 1 - math.floor(math.log10(m)))
        text = "{:,.{}f}".format(x, decimals)
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    return "{:.{}e}".format(x, significant - 1)


def numbers_text(a, b):
    """``a → b`` with enough digits that two different numbers read differently."""
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
        return number_text(a) + " → " + number_text(b)
    for significant in (4, 6, 9, 12, 17):
        x, y = _digits(a, significant), _digits(b, significant)
        if x != y:
            return x + " → " + y
    return _digits(a, 17) + " → " + _digits(b, 17)
