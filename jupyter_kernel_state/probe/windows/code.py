"""The code of a view (the ``code`` op) of a table in memory: Python that binds
``<name>_view`` to exactly the rows, order and columns the explorer shows.

The filter is the very expression the explorer's rows were kept by (``filters``: one
tree, evaluated for the rows, rendered for the code), the sort the library's own
(``sort_values`` with ``kind="stable", na_position="last"``; polars ``sort`` with
``nulls_last=True, maintain_order=True`` and a float column's NaN as null), in that
order: filter, sort, columns.  Values appear as literals of their column's type; names
are quoted as Python string literals.  pandas code for pandas values (and for numpy
arrays and lists of records, through ``pd.DataFrame``), polars code for polars values:
each library's table writes its own (``sources.Table.code``); here, which code a value
gets, or why none.

The same generator writes the fix of a data-quality finding (the ``findings`` op,
``windows.findings``): a :class:`Fix` says what to do as data (drop duplicate rows, a
column, the rows missing a value; read text as numbers or dates; replace labels; clip
values), each library's table writes it in its own calls (``fix`` of
``backends.pandas.PandasTable``, ``backends.polars.PolarsTable``, the engines') with
the same expression nodes as a view's code, and :func:`dplyr_fix` writes it for R.  A
fix binds the variable itself to a new table (``sales = sales.drop_duplicates()``):
never ``inplace=True``, never an assignment into the value, which another name may hold
too.
"""

import collections
import re

from .columns import checked_positions
from .expressions import AND, Binary, Imports, Lit, literal

#: A filter longer than this is written one condition a line.
LINE_CHARS = 72


class NoCode(Exception):
    """No code in that syntax for that value (the message says why: a 400)."""


def view_code(table, columns, view, name, syntax, selected, what):
    """``(syntax, code)`` for ``view`` of variable ``name`` (``what``: its type, for
    messages), a table in memory (``backends.memory.MemoryTable``); ``selected``: the
    column positions shown, in order (None: every column); ``columns``
    (``columns.ViewColumns``) has found the columns the view names."""
    source = table.table(columns)
    own = source.library
    if syntax is None:
        syntax = own
    if syntax == "dplyr":
        raise NoCode("dplyr code is for R data.frames; {} is a {}".format(name, what))
    if own == "plain" or getattr(source, "setup", None) is False:
        if own == "plain" and table.kind in ("array", "records"):
            raise NoCode("code for {} (a {}) is pandas code: import pandas in the kernel "
                         "first".format(name, what))
        raise NoCode("no code is written for {} (a {}): it is shown through neither pandas "
                     "nor polars".format(name, what))
    if syntax not in ("pandas", "polars"):  # an engine's syntax
        raise NoCode("{} code is for tables that live in an engine; {} is a {}: ask for {} "
                     "code".format(syntax, name, what, own))
    if syntax != own:
        raise NoCode("{} code is for {} values; {} is a {}: ask for {} code".format(
            syntax, syntax, name, what, own))
    return syntax, source.code(view, name, selected)


class Steps:
    """The lines of a view's code, each binding ``<name>_view`` (``out``: another name,
    the variable itself for a fix) to the one before (the variable ``name`` first):
    :meth:`bind` a step's expression of :attr:`current`."""

    def __init__(self, name, out=None):
        self.name, self.out, self.current = name, name + "_view" if out is None else out, name
        self.imports = Imports()
        self.lines = []

    def bind(self, expression):
        self.lines.append("{} = {}".format(self.out, expression))
        self.current = self.out

    def text(self):
        """The code: its imports, its steps (at least ``<name>_view = <name>``)."""
        if not self.lines:
            self.bind(self.name)
        return "\n".join(self.imports.header() + self.lines) + "\n"


def wrapped(node, imports):
    """The filter's text; a long and/or, one item a line (inside the brackets)."""
    text = node.render(imports)
    if len(text) <= LINE_CHARS or not (type(node) is Binary and node.op in ("&", "|")):
        return text
    inside = AND if node.op == "|" else node.strength
    items = [item.code(imports, inside) for item in node.items]
    return "\n    " + ("\n    " + node.op + " ").join(items) + "\n"


def positions_of(fields, columns_total):
    """The column positions the code selects, in order (None: every column); listed ones
    must exist."""
    listed = fields["columns"]
    if listed is not None:
        return checked_positions(listed, columns_total)
    start, stop = fields["column_start"], fields["column_stop"]
    if start == 0 and (stop is None or stop >= columns_total):
        return None
    stop = columns_total if stop is None else min(stop, columns_total)
    return list(range(min(start, stop), stop))


# --- fixes: the code of a data-quality finding's fix (the ``findings`` op) -------------

#: What a fix does (:class:`Fix`'s ``action``): ``positions`` () for every column, or
#: (key,) keeping each key's first row.
DROP_DUPLICATES = "drop_duplicates"
#: The columns at ``positions``.
DROP_COLUMNS = "drop_columns"
#: The rows where the column is missing (null, NaN, NaT, None).
DROP_MISSING = "drop_missing"
#: Text (or mixed values) read as numbers; what does not read becomes missing.
TO_NUMBER = "to_number"
#: ISO text read as dates; ``value``: "date", "datetime" or "utc" (some with an offset).
TO_DATE = "to_date"
#: ``value``: ((label, replacement), ...).
RELABEL = "relabel"
#: ``value``: (low, high): values below ``low`` become ``low``, above ``high`` ``high``.
CLIP = "clip"
#: Mixed values as text (missing ones stay missing).
TO_TEXT = "to_text"

#: One fix as data: its action, the column positions it acts on, its values.
Fix = collections.namedtuple("Fix", "action positions value")

#: The syntaxes a table in memory's fixes are written in (the engines': their own).
FIX_LIBRARIES = ("pandas", "polars")


def fix_syntax(source, syntax, name, what):
    """``(syntax, note)``: the syntax the fixes of variable ``name`` (``what``: its type)
    are written in (None asked: the value's own library's) and, when none is written,
    why (each finding's ``fix`` is then null); ``source``: its library's table
    (``sources.Table``), None for the values no fix is written for (arrays, records).
    :class:`NoCode` for a syntax that does not fit the value (a 400)."""
    own = None if source is None else source.library
    if syntax is None:
        syntax = own if own in FIX_LIBRARIES else "pandas"
    if syntax not in FIX_LIBRARIES and syntax != "dplyr":
        raise NoCode("{} fixes are for tables that live in an engine; {} is a {}".format(
            syntax, name, what))
    if source is None or own not in FIX_LIBRARIES:
        return syntax, ("no fix code for {} (a {}): fixes are written for pandas and polars "
                        "tables and R data frames".format(name, what))
    if syntax == "dplyr":
        if source.series:
            return syntax, "dplyr fixes are written for data frames; {} is a {}".format(
                name, what)
        return syntax, None
    if syntax != own:
        raise NoCode("{} fixes are for {} values; {} is a {}: ask for {} or dplyr fixes".format(
            syntax, syntax, name, what, own))
    return syntax, None


def fix_code(source, fix, name, syntax, names):
    """The code of ``fix`` (a :class:`Fix`) in ``syntax`` that binds ``name`` to the
    fixed table: the library's own (``source``: its table, whose ``fix(fix, steps)``
    writes the steps) or dplyr (``names``: the columns' names by position).
    :class:`NoCode` (or ValueError for a value no literal writes) when there is none."""
    if syntax == "dplyr":
        return dplyr_fix(fix, name, names)
    steps = Steps(name, out=name)
    source.fix(fix, steps)
    return steps.text()


class Replacements(Lit):
    """A dict literal of (label, replacement) pairs: ``{"north ": "North"}``."""

    def render(self, imports):
        items = ["{}: {}".format(literal(a, imports), literal(b, imports)) for a, b in self.value]
        return "{" + ", ".join(items) + "}"

    def evaluate(self):
        return dict(self.value)


# --- dplyr ---------------------------------------------------------------------------------

#: R's reserved words (never a bare name).
_R_RESERVED = frozenset((
    "if", "else", "repeat", "while", "function", "for", "next", "break", "TRUE", "FALSE",
    "NULL", "Inf", "NaN", "NA", "NA_integer_", "NA_real_", "NA_character_", "NA_complex_",
    "in"))
_R_NAME = re.compile(r"(?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*\Z|\.\Z")


def r_name(name):
    """A column or variable name as R reads it: bare when it is a syntactic name (as
    the R probe's ``column_ref``), else in backticks."""
    text = str(name)
    if _R_NAME.match(text) and text not in _R_RESERVED and not re.match(r"\.\.[0-9]", text):
        return text
    return "`" + text.replace("\\", "\\\\").replace("`", "\\`") + "`"


def r_literal(value):
    """A value as an R literal (numbers as doubles)."""
    t = type(value)
    if value is None:
        return "NA"
    if t is bool:
        return "TRUE" if value else "FALSE"
    if t is int:
        return str(value)
    if t is float:
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Inf" if value > 0 else "-Inf"
        return repr(value)
    if t is str:
        return r_string(value)
    raise ValueError("no R literal for a " + t.__name__)


_R_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def r_string(text):
    """A double-quoted R string (R refuses a NUL character: ValueError)."""
    out = []
    for ch in text:
        if ch in _R_ESCAPES:
            out.append(_R_ESCAPES[ch])
        elif ch == "\0":
            raise ValueError("R strings cannot hold a NUL character")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append("\\x{:02x}".format(ord(ch)))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def dplyr_fix(fix, name, names):
    """``fix`` as dplyr code: ``sales <- sales %>% distinct()`` (text for R users: the
    same table as an R data frame; ``names``: the columns' names by position)."""
    target = r_name(name)
    cols = [r_name(names[p]) for p in fix.positions]
    action = fix.action
    if action == DROP_DUPLICATES:
        step = "distinct({}, .keep_all = TRUE)".format(", ".join(cols)) if cols else "distinct()"
    elif action == DROP_COLUMNS:
        step = "select(-{})".format(cols[0] if len(cols) == 1 else "c(" + ", ".join(cols) + ")")
    elif action == DROP_MISSING:
        step = "filter(!is.na({}))".format(cols[0])
    else:
        step = "mutate({} = {})".format(cols[0], _dplyr_value(fix, cols[0]))
    return "library(dplyr)\n{0} <- {0} %>% {1}\n".format(target, step)


def _dplyr_value(fix, c):
    action = fix.action
    if action == TO_NUMBER:
        return "suppressWarnings(as.numeric({}))".format(c)
    if action == TO_DATE:
        if fix.value == "date":
            return 'as.Date(trimws({}), format = "%Y-%m-%d")'.format(c)
        text = 'sub("T", " ", trimws({}))'.format(c)
        return ('coalesce(as.POSIXct({0}, format = "%Y-%m-%d %H:%M:%OS", tz = "UTC"), '
                'as.POSIXct({0}, format = "%Y-%m-%d", tz = "UTC"))'.format(text))
    if action == RELABEL:
        pairs = ", ".join("{} = {}".format(r_string(a), r_string(b)) for a, b in fix.value)
        return "recode({}, {})".format(c, pairs)
    if action == CLIP:
        low, high = fix.value
        return "pmin(pmax({}, {}), {})".format(c, r_literal(low), r_literal(high))
    if action == TO_TEXT:
        return "as.character({})".format(c)
    raise NoCode("no dplyr code for " + action)
