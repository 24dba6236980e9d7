"""Data-quality findings (the ``findings`` op): the rules, their severities, the rows
each finding concerns as a filter the grid opens, its fix as data (``code.Fix``); a table
in memory is checked by ``windows.finder``, an engine's by ``backends.engine_findings``.

The rules (each threshold a constant below):

* ``empty_column`` (error): every value of the column is missing (null, NaN, NaT, None);
  ``missing``: some are — a warning from :data:`MISSING_WARNING` of the rows, info
  below.  Filter ``isnull``; fix: drop the column, drop the rows.
* ``duplicate_rows`` (warning): rows equal to an earlier row in every column (pandas by
  64-bit row hashes, confirmed by pandas' own comparison below :data:`CONFIRM_ROWS`
  candidates; polars ``n_unique``; value by value otherwise).  No filter can say "equal
  to another row": ``filter`` null.  Fix: drop them, the first of each kept.
* ``id_like`` (info): a column named like an ID (:func:`looks_like_id`: a word ``id``,
  ``uuid``, ``guid``, ``pk``, or a name ending in ``key``) of whole numbers or short text
  (at most :data:`ID_CHARS` characters), at least :data:`ID_DISTINCT` of its values
  distinct; ``duplicate_keys`` (error): such a column whose values repeat — its filter
  lists the repeated keys (``in``, up to the filter's :data:`protocol.MAX_FILTER_ITEMS`),
  its fix keeps each key's first row.
* ``constant`` (info): at least two values, all equal.  Fix: drop the column.
* ``outliers`` (warning): numbers outside [Q1 − 1.5·IQR, Q3 + 1.5·IQR] (the IQR rule,
  quartiles as the profile's: linear interpolation); when the IQR is 0, outside
  median ± 3.5·MAD/0.6745 (the MAD rule, Iglewicz–Hoaglin's modified z-score); when the
  MAD is 0 too, none (half the values are one value: no spread to judge by).  The bounds
  of a column of whole numbers are rounded inwards to whole numbers.  Filter: an ``or``
  of the two bounds; fix: clip to them.  Not for ID-like columns.
* ``mixed_types`` (error): an object column holding values of more than one kind
  (numbers, text, booleans, bytes, dates, datetimes, or a class of its own).  Fix: read
  it as numbers when numbers are most of it, else as text.
* ``numbers_as_text`` / ``dates_as_text`` (warning): a text column (not ID-like) at least
  :data:`TEXT_SHARE` of whose non-blank values read as numbers (:data:`NUMBER_PATTERN`:
  no leading zero, so codes like ``007`` stay text) or ISO dates
  (:data:`DATE_PATTERN`), judged on its first :data:`MAX_LABELS` distinct values.
  Filter: the pattern (``regex``); fix: ``pd.to_numeric(..., errors="coerce")``, polars'
  ``cast(..., strict=False)`` (dates: ``to_datetime``/``to_date``).
* ``near_duplicate_labels`` (warning): labels of a text or category column (at most
  :data:`MAX_LABELS` distinct) equal once stripped of surrounding whitespace and
  case-folded.  Each group's most frequent spelling is kept; the others are the rows
  concerned (filter ``in``) and the fix replaces them by it.
* ``correlated`` (info): two number columns with \\|Pearson r\\| ≥ :data:`CORRELATION`
  over the rows where both are present, among the first :data:`CORRELATION_COLUMNS`
  number columns checked (not ID-like, not constant).  ``filter`` and ``fix`` null.

Severities: ``error`` — the column or key is unusable as it stands (every value missing,
a key that repeats, one column of several types); ``warning`` — values that distort
results until fixed; ``info`` — facts worth knowing that need no fix.  Findings are
ordered by severity, then column, then kind, and cut at the call's ``max_findings``
(``findings_cut`` counts the rest).  Past ``sample_rows`` rows every check reads the
same fixed-seed sample as a profile and every count is flagged ``approximate``
(duplicate rows and keys: those found in the sample, a lower bound).
"""

import collections
import math
import re

from .. import guard
from ..inspect.display import cut
from ..protocol import MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_FILTER_ITEMS, MAX_FILTER_VALUE
from . import code
from .code import NoCode

#: Severities, most severe first.
SEVERITIES = ("error", "warning", "info")
#: Every finding's kind, in the order a column's findings are listed.
KINDS = ("empty_column", "duplicate_keys", "mixed_types", "missing", "duplicate_rows",
         "outliers", "numbers_as_text", "dates_as_text", "near_duplicate_labels", "constant",
         "id_like", "correlated")
#: Missing values from this share of the rows on are a warning (info below).
MISSING_WARNING = 0.05
#: An ID: this share of its values distinct at least, text at most this long.
ID_DISTINCT = 0.9
ID_CHARS = 64
#: The IQR rule's factor; the MAD rule's modified z-score and its constant.
IQR_FACTOR = 1.5
MAD_Z = 3.5
MAD_SCALE = 0.6745
#: Text read as numbers or dates: this share of its non-blank values at least.
TEXT_SHARE = 0.9
#: Distinct labels read per column (near duplicates: only columns with at most as many).
MAX_LABELS = 10_000
#: Pearson's \|r\| from which a pair is a finding; number columns compared at most; rows
#: compared value by value (no numpy) at most; rows per block of the matrix products.
CORRELATION = 0.95
CORRELATION_COLUMNS = 20
PLAIN_CORRELATION_ROWS = 20_000
CORRELATION_BLOCK = 32_768
#: Duplicate-row candidates (rows whose hash repeats) compared by pandas itself at most.
CONFIRM_ROWS = 100_000
#: Characters of a message; of a name or a value inside it; labels named in one.
MESSAGE_CHARS = 300
NAME_CHARS = 60
VALUE_CHARS = 40
LABELS_SHOWN = 3
#: Significant digits of an outlier bound (rounded outwards).
BOUND_DIGITS = 6
#: Replacements one relabelling fix writes at most.
MAX_RELABELS = 1_000

#: Text that reads as a number: no leading zero (codes like 007 stay text), no
#: thousands separators; surrounding whitespace allowed (what pd.to_numeric and polars'
#: cast read alike).
NUMBER_PATTERN = r"^\s*[+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*$"
#: ISO 8601 dates and date-times (an optional time, fraction and offset).
DATE_PATTERN = (r"^\s*[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}"
                r"(?:\.[0-9]{1,9})?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?\s*$")
_NUMBER = re.compile(NUMBER_PATTERN)
_DATE = re.compile(DATE_PATTERN)
_TIME = re.compile(r"[0-9]{2}:[0-9]{2}")
_OFFSET = re.compile(r"(?:Z|[+-][0-9]{2}:?[0-9]{2})\s*$")
#: The words of a name that make it an ID's (the last word ``key`` too).
_ID_WORDS = frozenset(("id", "ids", "uuid", "guid", "pk"))
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")

_RANK = {s: i for i, s in enumerate(SEVERITIES)}
_KIND_RANK = {k: i for i, k in enumerate(KINDS)}

#: A column as the findings name it: its position, its name as listed, how a filter
#: names it (``ref``: the name, or the position when the name does not find it).
Col = collections.namedtuple("Col", "position name ref")


# --- names -------------------------------------------------------------------------------


def looks_like_id(name):
    """Whether a column's name is an ID's: a word ``id`` (``customer_id``, ``orderId``,
    ``ID``), ``uuid``, ``guid``, ``pk``, or a last word ``key``."""
    words = [w.lower() for w in _WORDS.findall(str(name))]
    return bool(words) and (any(w in _ID_WORDS for w in words) or words[-1] == "key")


def filter_refs(names, positions):
    """How a filter names each column at ``positions``: its name (as listed: ``names``,
    every column's up to the last one asked) when that finds it, else its position."""
    first = {}
    for position, name in enumerate(names):
        first.setdefault(name, position)
    return {p: names[p] if first.get(names[p]) == p and len(names[p]) <= 1_000 else p
            for p in positions}


# --- text ----------------------------------------------------------------------------------


def _short(text, limit=VALUE_CHARS):
    return cut(str(text), limit)[0]


def _quoted(value):
    if isinstance(value, str):
        return repr(_short(str.__str__(value)))
    return _short(value)


def number_text(x):
    """A bound or a statistic in a message: ``3.1``, ``250.0``, ``1,234``."""
    if type(x) is int:
        return "{:,}".format(x)
    text = "{:.6g}".format(x)
    if re.match(r"^-?[0-9]+$", text):
        text += ".0"
    return text


def rounded(x, direction):
    """``x`` at :data:`BOUND_DIGITS` significant digits, rounded by ``direction``
    (``math.floor``: down, ``math.ceil``: up), so that a bound read in a message is the
    bound the rule applies and the fix clips to."""
    if x == 0 or not math.isfinite(x):
        return x
    places = BOUND_DIGITS - 1 - math.floor(math.log10(abs(x)))
    step = 10.0 ** -places
    out = round(x, places)
    if direction is math.floor and out > x:
        out = round(out - step, places)
    elif direction is math.ceil and out < x:
        out = round(out + step, places)
    return float(out)


def _many(n, word):
    """``1 outlier``, ``12 outliers``."""
    return "{:,} {}{}".format(n, word, "" if n == 1 else "s")


def _share(n, total):
    share = 100.0 * n / total if total else 0.0
    return "{:.1f}%".format(share) if share < 99.95 or n == total else "99.9%"


# --- findings ------------------------------------------------------------------------------


def finding(kind, severity, cols, message, count, approximate, row_filter=None,
            filter_note=None, details=None):
    """One finding as the reply lists it (its ``fix`` added by :meth:`FindingList.finish`)."""
    return {"kind": kind, "severity": severity, "columns": [c.name for c in cols],
            "positions": [c.position for c in cols], "message": cut(message, MESSAGE_CHARS)[0],
            "count": int(count), "approximate": bool(approximate), "filter": row_filter,
            "filter_note": filter_note, "fix": None, "fix_note": None,
            "details": details or {}}


class FindingList:
    """The findings of one call, the checks that failed (``errors``) and those not made
    (``not_checked``), put in order and cut at the end (:meth:`finish`)."""

    def __init__(self, view_filter=None):
        self.view_filter = view_filter  # the view's filter node (protocol), or None
        self.found = []  # (finding, code.Fix or None, note when no fix)
        self.errors = []
        self.not_checked = []

    def add(self, entry, fix=None, note=None):
        if entry["filter"] is not None and self.view_filter is not None:
            entry["filter"], why = _within_view(self.view_filter, entry["filter"])
            if why is not None:
                entry["filter_note"] = why
        self.found.append((entry, fix, note))

    def error(self, check, col, message):
        self.errors.append({"check": check, "column": None if col is None else col.name,
                            "position": None if col is None else col.position,
                            "error": cut(message, MESSAGE_CHARS)[0]})

    def skip(self, kind, reason):
        if all(n["kind"] != kind for n in self.not_checked):
            self.not_checked.append({"kind": kind, "reason": cut(reason, MESSAGE_CHARS)[0]})

    def finish(self, max_findings, write_fix):
        """(the first ``max_findings`` findings in order, each with its fix written by
        ``write_fix(fix)`` -> (code, note); how many were cut; counts by severity).  A
        fix is written only for a finding listed: the cut ones cost nothing more."""
        ordered = sorted(self.found, key=lambda f: (
            _RANK[f[0]["severity"]], min(f[0]["positions"] or [-1]), _KIND_RANK[f[0]["kind"]]))
        kept = ordered[:max_findings]
        severities = {s: 0 for s in SEVERITIES}
        for entry, _fix, _note in ordered:
            severities[entry["severity"]] += 1
        out = []
        for entry, fix, note in kept:
            if fix is not None:
                entry["fix"], note = write_fix(fix)
            entry["fix_note"] = None if entry["fix"] is not None else note
            out.append(entry)
        return out, len(ordered) - len(kept), severities


def _within_view(view_filter, node):
    """A finding's filter inside the view's (``and``), when the two fit the filter's
    limits; else its own, and why."""
    both = {"and": [view_filter.to_json(), node]}
    if _conditions(both) <= MAX_FILTER_CONDITIONS and _depth(both) <= MAX_FILTER_DEPTH:
        return both, None
    return node, "the rows of the whole table: with the view's filter it passes the filter's limits"


def _conditions(node):
    for join in ("and", "or"):
        if join in node:
            return sum(_conditions(n) for n in node[join])
    return 1


def _depth(node):
    for join in ("and", "or"):
        if join in node:
            return 1 + max(_depth(n) for n in node[join])
    return 0


def write_fixes(source, name, syntax, names, note, session):
    """``write_fix(fix)`` for :meth:`FindingList.finish`: the fix's code in ``syntax``
    (``code.fix_code``, which reads the value's labels and dtypes: under the call's
    guard), or None and why (``note``: why no fix is written for this value at all)."""

    def write(fix):
        if note is not None:
            return None, note
        try:
            return session.run(code.fix_code, source, fix, name, syntax, names), None
        except NoCode as exc:
            return None, str(exc)
        except (guard.ProbeTimeout, guard.BudgetExhausted):
            return None, "no fix code: writing it ran out of time"
        except ValueError as exc:
            return None, "no fix code: {}".format(exc)

    return write


# --- the rules -------------------------------------------------------------------------------


class Rules:
    """Each rule of the module docstring, from a column's numbers: used alike by a table
    in memory (:class:`Finder`) and by an engine's (``backends.engine``).  ``out``: the
    :class:`FindingList`; ``approximate``: counts from a sample (or an engine's estimate);
    ``sample``: the sample's size, said in messages (None: every row read); ``first``:
    the sample is the first rows (an engine's fallback), not a random one."""

    def __init__(self, out, approximate=False, sample=None, first=False):
        self.out = out
        self.approximate = approximate
        self.sample = sample
        self.first = first

    def _tail(self, lower_bound=False):
        if self.sample is None:
            return ""
        return " ({} {} {:,} rows)".format(
            "found in" if lower_bound else "estimated from",
            "the first" if self.first else "a sample of", self.sample)

    def missing(self, col, rows, nulls):
        """``empty_column`` or ``missing``; whether every value is missing."""
        isnull = {"column": col.ref, "op": "isnull"}
        if nulls >= rows:
            message = "{}: every value is missing ({})".format(
                _short(col.name, NAME_CHARS), _many(rows, "row"))
            self.out.add(finding("empty_column", "error", [col], message, rows, self.approximate,
                                 isnull),
                         code.Fix(code.DROP_COLUMNS, (col.position,), None))
            return True
        share = nulls / rows
        severity = "warning" if share >= MISSING_WARNING else "info"
        self.out.add(finding(
            "missing", severity, [col], "{}: {} ({}){}".format(
                _short(col.name, NAME_CHARS), _many(nulls, "missing value"),
                _share(nulls, rows), self._tail()),
            nulls, self.approximate, isnull, details={"share": round(share, 6)}),
            code.Fix(code.DROP_MISSING, (col.position,), None))
        return False

    def constant(self, col, rows, value):
        self.out.add(finding(
            "constant", "info", [col], "{}: one value throughout ({})".format(
                _short(col.name, NAME_CHARS), _quoted(value)), rows, self.approximate,
            filter_note="every row: a finding about the column"),
            code.Fix(code.DROP_COLUMNS, (col.position,), None))

    def key(self, col, present, distinct, repeated_rows, keys, repeated_keys, rows=None):
        """``id_like`` (and ``duplicate_keys`` when values repeat) when ``distinct`` of
        the ``present`` values read are distinct enough (``rows``: the column's present
        values, when more were not read); whether it is a key."""
        if not present or distinct / present < ID_DISTINCT:
            return False
        name = _short(col.name, NAME_CHARS)
        self.out.add(finding(
            "id_like", "info", [col], "{}: looks like an ID ({} of {:,} values distinct){}".format(
                name, _share(distinct, present), present, self._tail()),
            present if rows is None else rows, self.approximate,
            filter_note="every row: a finding about the column",
            details={"distinct": int(distinct)}),
            None, "no fix: an ID is a fact about the table, not a problem")
        if repeated_rows:
            row_filter, note = None, None
            listed = [k for k in keys if _filter_value(k)]
            if repeated_keys <= MAX_FILTER_ITEMS and len(listed) == repeated_keys:
                row_filter = {"column": col.ref, "op": "in", "value": listed}
            else:
                note = "no filter: {:,} keys repeat (a filter lists at most {:,})".format(
                    repeated_keys, MAX_FILTER_ITEMS)
            self.out.add(finding(
                "duplicate_keys", "error", [col],
                "{}: looks like a key but {} repeat ({}){}".format(
                    name, _many(repeated_keys, "value"), _many(repeated_rows, "row"),
                    self._tail(True)),
                repeated_rows, self.approximate, row_filter, note,
                details={"keys": int(repeated_keys),
                         "examples": [_quoted(k) for k in keys[:LABELS_SHOWN]]}),
                code.Fix(code.DROP_DUPLICATES, (col.position,), None))
        return True

    def outliers(self, col, quartiles, deviation, whole, count_outside):
        """``outliers`` by the IQR rule (MAD when the IQR is 0): ``quartiles`` [Q1,
        median, Q3]; ``deviation()`` the MAD; ``count_outside(low, high)`` how many
        values lie outside."""
        q1, median, q3 = quartiles
        iqr = q3 - q1
        if iqr > 0:
            rule, low, high = "IQR", q1 - IQR_FACTOR * iqr, q3 + IQR_FACTOR * iqr
        else:
            mad = deviation(median)
            if not mad > 0:
                return
            spread = MAD_Z * mad / MAD_SCALE
            rule, low, high = "MAD", median - spread, median + spread
        if not (math.isfinite(low) and math.isfinite(high)):
            return
        if whole:
            low, high = math.ceil(low), math.floor(high)
        else:
            low, high = rounded(low, math.floor), rounded(high, math.ceil)
        n = count_outside(low, high)
        if not n:
            return
        self.out.add(finding(
            "outliers", "warning", [col], "{}: {} ({} rule: outside [{}, {}]){}".format(
                _short(col.name, NAME_CHARS), _many(n, "outlier"), rule, number_text(low),
                number_text(high),
                self._tail()), n, self.approximate,
            {"or": [{"column": col.ref, "op": "lt", "value": low},
                    {"column": col.ref, "op": "gt", "value": high}]},
            details={"rule": rule.lower(), "low": low, "high": high, "q1": q1, "median": median,
                     "q3": q3}),
            code.Fix(code.CLIP, (col.position,), (low, high)))

    def text(self, col, numbers, dates, nonblank, date_kind, partial):
        """``numbers_as_text`` or ``dates_as_text``: rows of ``nonblank`` text that read as
        numbers, as dates (``date_kind``: "date", "datetime", "utc"); ``partial``: judged
        on the first distinct values only."""
        if not nonblank:
            return
        approximate = self.approximate or partial
        name = _short(col.name, NAME_CHARS)
        for kind, n, pattern, what, fix in (
                ("numbers_as_text", numbers, NUMBER_PATTERN, "numbers",
                 code.Fix(code.TO_NUMBER, (col.position,), None)),
                ("dates_as_text", dates, DATE_PATTERN, "ISO dates",
                 code.Fix(code.TO_DATE, (col.position,), date_kind))):
            if n and n / nonblank >= TEXT_SHARE:
                self.out.add(finding(
                    kind, "warning", [col], "{}: {} stored as text ({} of its values read as "
                    "{}){}".format(name, what.replace("ISO ", ""), _share(n, nonblank), what,
                                   self._tail()), n, approximate,
                    {"column": col.ref, "op": "regex", "value": pattern, "case": True},
                    details={"share": round(n / nonblank, 6)}), fix)

    def near_duplicates(self, col, groups):
        """``near_duplicate_labels`` from groups of [(label, rows)] equal once stripped
        and case-folded."""
        if not groups:
            return
        replacements, rows = [], 0
        for group in groups:
            best = max(range(len(group)), key=lambda i: (group[i][1], -i))  # most frequent, first
            for i, (label, n) in enumerate(group):
                if i != best:
                    replacements.append((label, group[best][0]))
                    rows += n
        shown = ", ".join("{} → {}".format(_quoted(a), _quoted(b))
                          for a, b in replacements[:LABELS_SHOWN])
        more = ", …" if len(replacements) > LABELS_SHOWN else ""
        variants = [a for a, _ in replacements]
        row_filter, note = None, None
        if len(variants) <= MAX_FILTER_ITEMS and all(len(v) <= MAX_FILTER_VALUE for v in variants):
            row_filter = {"column": col.ref, "op": "in", "value": variants}
        else:
            note = "no filter: {:,} labels (a filter lists at most {:,})".format(
                len(variants), MAX_FILTER_ITEMS)
        fix, fix_note = None, None
        if len(replacements) <= MAX_RELABELS:
            fix = code.Fix(code.RELABEL, (col.position,), tuple(replacements))
        else:
            fix_note = "no fix: {:,} labels to replace (one fix replaces at most {:,})".format(
                len(replacements), MAX_RELABELS)
        self.out.add(finding(
            "near_duplicate_labels", "warning", [col],
            "{}: {} only in case or spaces ({}{}){}".format(
                _short(col.name, NAME_CHARS), "1 label differs" if len(replacements) == 1
                else "{:,} labels differ".format(len(replacements)), shown, more, self._tail()),
            rows, self.approximate, row_filter, note,
            details={"groups": len(groups), "labels": len(replacements)}), fix, fix_note)

    def mixed(self, col, counts):
        """``mixed_types`` from {kind of value: rows}."""
        if len(counts) < 2:
            return
        ranked = sorted(counts.items(), key=lambda kv: -kv[1])
        main = ranked[0][0]
        rows = sum(n for _, n in ranked[1:])
        shown = ", ".join("{} {:,}".format(_short(k, 20), n) for k, n in ranked[:4])
        self.out.add(finding(
            "mixed_types", "error", [col], "{}: mixed types ({}{}){}".format(
                _short(col.name, NAME_CHARS), shown, ", …" if len(ranked) > 4 else "",
                self._tail()), rows, self.approximate,
            filter_note="no filter: a filter does not test a value's type",
            details={"types": {_short(k, 40): int(n) for k, n in ranked[:10]}}),
            code.Fix(code.TO_NUMBER if main == "number" else code.TO_TEXT, (col.position,), None))

    def duplicate_rows(self, extra, rows):
        if not extra:
            return
        lower = self.sample is not None
        self.out.add(finding(
            "duplicate_rows", "warning", [], "{}{} ({}): each equal to an earlier row{}".format(
                "at least " if lower else "", _many(extra, "duplicate row"),
                _share(extra, rows), self._tail(True)), extra, self.approximate,
            filter_note="no filter: a filter cannot say a row equals another"),
            code.Fix(code.DROP_DUPLICATES, (), None))

    def correlated(self, a, b, r, n, partial=False):
        self.out.add(finding(
            "correlated", "info", [a, b], "{} and {}: strongly correlated (r = {:.3f}){}".format(
                _short(a.name, NAME_CHARS), _short(b.name, NAME_CHARS), r, self._tail()),
            n, self.approximate or partial,
            filter_note="no filter: a correlation concerns every row",
            details={"r": round(r, 6)}),
            None, "no fix: keep both, drop one or combine them, as the analysis needs")


def _filter_value(x):
    """Whether ``x`` can be a filter's value (text, a finite number, a bool)."""
    t = type(x)
    if t is str:
        return len(x) <= MAX_FILTER_VALUE
    if t is bool or t is int:
        return True
    return t is float and math.isfinite(x)


# --- text columns ----------------------------------------------------------------------------


def text_counts(pairs):
    """(rows reading as numbers, as ISO dates, non-blank rows, the dates' kind) of
    [(label, rows)]: "date" (no time), "datetime", "utc" (some with an offset)."""
    numbers = dates = nonblank = 0
    times = offsets = False
    for label, n in pairs:
        if not isinstance(label, str):
            nonblank += n
            continue
        text = str.__str__(label)
        if not text.strip():
            continue
        nonblank += n
        if _NUMBER.match(text):
            numbers += n
        elif _DATE.match(text):
            dates += n
            times = times or _TIME.search(text) is not None
            offsets = offsets or _OFFSET.search(text) is not None
    kind = "utc" if offsets else "datetime" if times else "date"
    return numbers, dates, nonblank, kind


def near_duplicate_groups(pairs):
    """Groups (≥ 2) of [(label, rows)] whose labels are equal once stripped and
    case-folded, in the order the labels first appear."""
    groups = {}
    for label, n in pairs:
        if isinstance(label, str):
            text = str.__str__(label)
            groups.setdefault(str.casefold(str.strip(text)), []).append((text, n))
    return [g for g in groups.values() if len(g) > 1]


def short_labels(pairs):
    return all(not isinstance(k, str) or len(k) <= ID_CHARS for k, _ in pairs)


def type_groups(values):
    """{kind of value: count} of present values (a class of its own by its name)."""
    counts = collections.Counter(map(type, values))
    out = {}
    for t, n in counts.items():
        kind = _kind_of(t)
        out[kind] = out.get(kind, 0) + n
    return out


def _kind_of(t):
    if t is bool or getattr(t, "__name__", "") == "bool_":
        return "boolean"
    if issubclass(t, str):
        return "text"
    if issubclass(t, bytes):
        return "bytes"
    name = getattr(t, "__name__", "?")
    module = (getattr(t, "__module__", "") or "").split(".")[0]
    if issubclass(t, (int, float)) or (module == "numpy" and name.startswith(
            ("int", "uint", "float"))) or name == "Decimal":
        return "number"
    if name in ("datetime", "Timestamp", "datetime64"):
        return "datetime"
    if name == "date":
        return "date"
    return name
