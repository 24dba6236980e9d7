"""The protocol between the server and the probe: every operation as data.

Shipped with the probe (standard library only, Python 3.8+) and imported by the server as
``jupyter_kernel_state.probe.protocol``: both sides read the one spec.  The server builds
requests with :func:`request`; the probe checks each one with :func:`check` (its only
validator) and hands its handler the fields, every one filled.  A refusal has one shape,
:func:`refusal`.

The rules, one for every field:

* An unknown operation, an unknown field or a value of the wrong type is refused
  (:class:`BadRequest`: its message is the user's 400).
* ``null`` is taken for a field marked ``nullable``, and means its default.
* Bounds (``min``/``max``: the value of an integer, the length of text and lists) are
  numbers or the name of an earlier field of the request (``limit`` up to ``max_rows``).
  Out of bounds, **settings clamp and questions refuse**: a field that says how long or
  how much the probe may work or write (time guards and budgets, character caps, the row
  and column caps: the server's settings) is marked ``clamp`` and brought within its
  bounds, the probe's ceilings whatever was configured; any other field (which variable,
  where, how many entries) is refused with its bounds in the message, since clamping it
  would answer another question.
* Names: :func:`request` takes any name of 1 to 256 characters (what a name may be in a
  kernel's language is the server's ``check_name``); the Python probe's :func:`check`
  also wants a Python identifier that is not a keyword.
* Windows of a table (and the code of one) take a :class:`View`: the sort and the filter
  as one structure, ``{"sort": [{"column", "desc"}], "filter": node or null}``, echoed by
  the reply.  At most ``MAX_SORT_KEYS`` keys.  A filter node is a :class:`Condition`
  ``{"column", "op", "value"?, "case"?}`` or a :class:`Tree` ``{"and": [node, ...]}`` /
  ``{"or": [...]}``, at most ``MAX_FILTER_CONDITIONS`` conditions in all and trees
  ``MAX_FILTER_DEPTH`` deep.  Checked here: the structure, the op, the value's shape
  (``COMPARE_OPS`` one scalar, ``RANGE_OPS`` ``[low, high]``, ``LIST_OPS`` 1 to
  ``MAX_FILTER_ITEMS`` scalars, ``CASE_OPS`` text and an optional ``case``,
  ``NO_VALUE_OPS`` none); the probe reads each value as its column's type.  Missing values
  match only ``isnull``: every other condition is false on them.

The server's ``Limits`` defaults lie within these bounds (tests/probe/test_protocol.py).
"""

from __future__ import annotations

import dataclasses
import json
import keyword
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

# --- bounds ---------------------------------------------------------------------------

#: Names: at most this long (the REST contract caps names at 256 characters).
MAX_NAME = 256
#: ``snapshot``/``digest``: entries per page, and a digest's default.
DEFAULT_LIMIT = 500
MAX_LIMIT = 10_000
DIGEST_LIMIT = 200
MAX_OFFSET = 1 << 62
#: Characters of a variable's preview.
DEFAULT_PREVIEW = 200
MIN_PREVIEW = 10
MAX_PREVIEW = 10_000
#: Time for one value's user code, and for all the user code of one call.
DEFAULT_GUARD_MS = 100
MAX_GUARD_MS = 5_000
DEFAULT_BUDGET_MS = 2_000  # the server's deadline is 5 s
MAX_BUDGET_MS = 60_000
#: A snapshot's name filter (a glob, or text found anywhere).
MAX_FILTER_CHARS = 200
INCLUDE_GROUPS = ("private", "modules", "callables", "classes")
#: A snapshot's orders, each optionally followed by ``:asc`` or ``:desc``.
SORTS = ("name", "type", "size", "changed", "memory")
SORT_DIRECTIONS = ("asc", "desc")
FRAMINGS = ("json", "lines")
#: ``detail``: characters of the repr, access keys in a path.
DEFAULT_DETAIL_CHARS = 10_000
MIN_DETAIL_CHARS = 100
MAX_DETAIL_CHARS = 65_536
MAX_PATH = 32
#: ``rows``: the window, its caps and its time guards.
DEFAULT_ROWS = 100
DEFAULT_MAX_ROWS = 1_000
MAX_ROWS = 100_000
DEFAULT_MAX_COLUMNS = 100
MAX_COLUMNS = 10_000
MAX_ROWS_OFFSET = 10**15
MAX_COLUMN_POSITION = 10**12
DEFAULT_CELL_CHARS = 200
MIN_CELL_CHARS = 10
MAX_CELL_CHARS = 10_000
DEFAULT_READ_MS = 1_000
DEFAULT_SORT_MS = 2_000
DEFAULT_CELL_MS = 100
MAX_MS = 60_000
DEFAULT_ROWS_BUDGET_MS = DEFAULT_SORT_MS + 4 * DEFAULT_READ_MS
MAX_ROWS_BUDGET_MS = 4 * MAX_MS
#: ``profile``: columns per call, values listed per column, the sample and time guards.
DEFAULT_PROFILE_COLUMNS = 100
MAX_TOP = 10
DEFAULT_SAMPLE_ROWS = 1_000_000
MIN_SAMPLE_ROWS = 1_000
MAX_SAMPLE_ROWS = 100_000_000
DEFAULT_COLUMN_MS = 1_000
#: ``timeline``: entries per answer.
DEFAULT_ENTRIES = 20
MAX_ENTRIES = 100
#: ``timeline``: executions per lineage list (``defined_in``, ``used_in``, ``unknown``).
DEFAULT_LINEAGE = 20
MAX_LINEAGE = 100
#: A notebook cell's id (``snapshot``'s ``used_by_cell``; lineage keeps ids up to this).
MAX_CELL_ID = 256
#: Views: sort keys, and the filter's grammar (see the module docstring).
MAX_SORT_KEYS = 10
COMPARE_OPS = ("eq", "ne", "lt", "le", "gt", "ge")
RANGE_OPS = ("between", "not_between")
LIST_OPS = ("in", "not_in")
#: Text operators, which take ``case`` (default false: case-insensitive).
CASE_OPS = ("contains", "not_contains", "starts_with", "ends_with", "regex")
NO_VALUE_OPS = ("isnull", "notnull", "empty", "not_empty", "is_true", "is_false")
FILTER_OPS = COMPARE_OPS + RANGE_OPS + LIST_OPS + CASE_OPS + NO_VALUE_OPS
FILTER_COMBINATORS = ("and", "or")
MAX_FILTER_CONDITIONS = 50
MAX_FILTER_DEPTH = 5
#: Items of an ``in``/``not_in`` list.
MAX_FILTER_ITEMS = 1_000
MAX_COLUMN_NAME = 1_000
#: Characters of one text value of a condition.
MAX_FILTER_VALUE = 1_000
#: ``code``: the languages of a view's code (null: the value's own library).
SYNTAXES = ("pandas", "polars", "dplyr", "polars_lazy", "duckdb", "sql", "ibis", "pyspark",
            "dask")
#: An engine's count, asked for on its own (``count``) and inside a window (``rows``).
DEFAULT_COUNT_MS = 10_000
DEFAULT_WINDOW_COUNT_MS = 1_000
#: ``findings``: findings listed per call; the languages of their fixes (null: the
#: value's own library).
DEFAULT_MAX_FINDINGS = 100
MAX_FINDINGS = 1_000
FIX_SYNTAXES = ("pandas", "polars", "dplyr", "duckdb")


class BadRequest(ValueError):
    """A request the protocol refuses; the message is user-facing (a 400)."""


# --- refusals -------------------------------------------------------------------------

#: Every refusal's kind and the HTTP status the server answers it with.
REFUSALS: dict[str, int] = {
    "not_found": 404,
    "bad_request": 400,
    "lazy": 409,  # reading the value would compute or consume it
    "unprocessable": 422,  # the value's own code raised or ran out of time
    "interrupted": 503,  # a real interrupt (the stop button) ended the request
    "unsupported": 501,
    "failed": 502,  # a bug of the probe's, not of the caller's
    "full": 409,  # no room under a cap for what was asked to be kept (nothing kept)
}


def refusal(kind: str, message: str, **extra: Any) -> dict[str, Any]:
    """The one refusal shape: ``{"ok": false, <kind>: true, "error": message, ...}``."""
    if kind not in REFUSALS:
        raise ValueError("unknown refusal kind: " + kind)
    out: dict[str, Any] = {"ok": False, kind: True, "error": message}
    out.update(extra)
    return out


# --- views ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SortKey:
    """Rows ordered by ``column`` (its name as listed, or its position), missing last."""

    column: str | int
    desc: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"column": self.column, "desc": self.desc}

    def text(self) -> str:
        """``price:desc``: how the REST reply's ``sort`` says it."""
        return "{}:{}".format(self.column, "desc" if self.desc else "asc")


@dataclasses.dataclass(frozen=True)
class Condition:
    """Rows kept where ``column op value`` holds: ``value`` is None (``NO_VALUE_OPS``), a
    scalar (text, a number, true/false; read as the column's type by the probe) or a
    tuple of scalars (``RANGE_OPS``: low and high, ``LIST_OPS``: the items); ``case`` for
    the text operators (``CASE_OPS``)."""

    column: str | int
    op: str
    value: Any = None
    case: bool = False

    def to_json(self) -> dict[str, Any]:
        value = list(self.value) if type(self.value) is tuple else self.value
        out: dict[str, Any] = {"column": self.column, "op": self.op, "value": value}
        if self.op in CASE_OPS:
            out["case"] = self.case
        return out

    def conditions(self) -> int:
        return 1


@dataclasses.dataclass(frozen=True)
class Tree:
    """Rows kept where every node (``join`` "and") or some node ("or") holds."""

    join: str
    nodes: tuple[Condition | Tree, ...]

    def to_json(self) -> dict[str, Any]:
        return {self.join: [node.to_json() for node in self.nodes]}

    def conditions(self) -> int:
        return sum(node.conditions() for node in self.nodes)


@dataclasses.dataclass(frozen=True)
class View:
    """How a window's rows are chosen: the sort and the filter, one structure."""

    sort: tuple[SortKey, ...] = ()
    filter: Condition | Tree | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "sort": [key.to_json() for key in self.sort],
            "filter": None if self.filter is None else self.filter.to_json(),
        }

    @classmethod
    def from_json(cls, obj: object) -> View:
        """The view of ``{"sort": [...], "filter": ...}`` (:class:`BadRequest` otherwise)."""
        if obj is None:
            return EMPTY_VIEW
        if type(obj) is not dict:
            raise BadRequest('view must be an object {"sort": [...], "filter": ...}')
        unknown = sorted(str(k) for k in obj if k not in ("sort", "filter"))
        if unknown:
            raise BadRequest("view has no field " + repr(unknown[0]) + " (sort, filter)")
        node = _node(obj.get("filter"), 0)
        if node is not None and node.conditions() > MAX_FILTER_CONDITIONS:
            raise BadRequest(
                "filter: at most {} conditions in all, not {:,}".format(
                    MAX_FILTER_CONDITIONS, node.conditions()
                )
            )
        return cls(_sort_keys(obj.get("sort")), node)

    def sort_text(self) -> str | None:
        """The REST reply's ``sort`` (``price:desc,region:asc``), or None when unsorted."""
        return ",".join(key.text() for key in self.sort) or None

    @property
    def key(self) -> str:
        """The view as a cache key: its JSON (where ``1``, ``1.0`` and ``true`` differ,
        unlike the dataclasses' equality)."""
        return json.dumps(self.to_json(), sort_keys=True)


EMPTY_VIEW = View()


def parse_sort(text: str) -> SortKey:
    """``price:desc``, ``price:asc`` or ``price`` (the last colon splits)."""
    column, colon, direction = text.rpartition(":")
    if colon and direction in SORT_DIRECTIONS and column:
        return SortKey(column, direction == "desc")
    return SortKey(text)


def _sort_keys(obj: object) -> tuple[SortKey, ...]:
    if obj is None:
        return ()
    if type(obj) not in (list, tuple):
        raise BadRequest('view sort must be a list of {"column", "desc"}')
    if len(obj) > MAX_SORT_KEYS:
        raise BadRequest(
            "sorting by {:,} columns is not supported: at most {} sort keys".format(
                len(obj), MAX_SORT_KEYS
            )
        )
    keys = []
    for item in obj:
        if isinstance(item, SortKey):
            keys.append(item)
            continue
        if type(item) is not dict or not set(item) <= {"column", "desc"}:
            raise BadRequest('a sort key is an object {"column": <name or position>, "desc": bool}')
        desc = item.get("desc", False)
        if type(desc) is not bool:
            raise BadRequest("sort desc must be true or false")
        keys.append(SortKey(_column(item.get("column"), "sort"), desc))
    return tuple(keys)


def _node(obj: object, depth: int) -> Condition | Tree | None:
    """A filter node at ``depth`` (the number of trees around it)."""
    if obj is None and depth == 0:
        return None
    if isinstance(obj, (Condition, Tree)):
        obj = obj.to_json()
    if type(obj) is not dict:
        raise BadRequest(
            'filter must be an object: a condition {"column", "op", "value"} or a tree '
            '{"and": [...]} / {"or": [...]}'
        )
    joins = [k for k in FILTER_COMBINATORS if k in obj]
    if joins:
        join = joins[0]
        if len(obj) != 1:
            raise BadRequest('a filter tree is {"and": [...]} or {"or": [...]}, nothing else')
        if depth + 1 > MAX_FILTER_DEPTH:
            raise BadRequest("filter: trees at most {} deep".format(MAX_FILTER_DEPTH))
        items = obj[join]
        if type(items) not in (list, tuple) or not items:
            raise BadRequest('filter: "{}" takes a non-empty list of conditions'.format(join))
        if len(items) > MAX_FILTER_CONDITIONS:
            raise BadRequest("filter: at most {} conditions in all".format(MAX_FILTER_CONDITIONS))
        nodes = tuple(_node(item, depth + 1) for item in items)
        return Tree(join, nodes)  # type: ignore[arg-type]
    return _condition(obj)


def _condition(obj: dict[Any, Any]) -> Condition:
    unknown = sorted(str(k) for k in obj if k not in ("column", "op", "value", "case"))
    if unknown:
        raise BadRequest(
            "filter condition has no field {} (column, op, value, case; trees: and, or)".format(
                repr(unknown[0])[:60]
            )
        )
    op = obj.get("op")
    if op not in FILTER_OPS:
        raise BadRequest("filter op must be one of " + ", ".join(FILTER_OPS))
    column = _column(obj.get("column"), "filter")
    case = obj.get("case", False)
    if "case" in obj and op not in CASE_OPS:
        raise BadRequest(
            "filter case applies to the text operators ({}), not to {}".format(
                ", ".join(CASE_OPS), op
            )
        )
    if type(case) is not bool:
        raise BadRequest("filter case must be true or false")
    if op in NO_VALUE_OPS:
        return Condition(column, op)  # a value given is ignored
    value = obj.get("value")
    if op in RANGE_OPS:
        if type(value) not in (list, tuple) or len(value) != 2:
            raise BadRequest("filter {} needs a value [low, high] (both included)".format(op))
        return Condition(column, op, tuple(_scalar(op, x) for x in value))
    if op in LIST_OPS:
        if type(value) not in (list, tuple) or not 0 < len(value) <= MAX_FILTER_ITEMS:
            raise BadRequest(
                "filter {} needs a value: a list of 1 to {:,} items".format(op, MAX_FILTER_ITEMS)
            )
        return Condition(column, op, tuple(_scalar(op, x) for x in value))
    if op in CASE_OPS:
        if type(value) is not str or len(value) > MAX_FILTER_VALUE:
            raise BadRequest(
                "filter {} needs a value (text, at most {:,} characters)".format(
                    op, MAX_FILTER_VALUE
                )
            )
        return Condition(column, op, value, case)
    return Condition(column, op, _scalar(op, value))


def _scalar(op: str, value: object) -> str | int | float | bool:
    """One value of a condition: text, a finite number or true/false."""
    if type(value) is str and len(value) <= MAX_FILTER_VALUE:
        return value
    if type(value) in (int, bool):
        return value  # type: ignore[return-value]
    if type(value) is float and value - value == 0:  # finite
        return value
    raise BadRequest(
        "filter {} needs a value (text of at most {:,} characters, a finite number, or "
        "true/false)".format(op, MAX_FILTER_VALUE)
    )


def _column(column: object, where: str) -> str | int:
    if type(column) is str and 0 < len(column) <= MAX_COLUMN_NAME:
        return column
    if type(column) is int and column >= 0:
        return column
    raise BadRequest(
        "{} needs a column: its name (at most {:,} characters) or its position".format(
            where, MAX_COLUMN_NAME
        )
    )


# --- fields and operations ------------------------------------------------------------

#: Field types: what a value must be (bounds: the number for INT, the length otherwise).
INT = "int"  # an integer (never a bool)
BOOL = "bool"
TEXT = "text"
CHOICE = "choice"  # one of ``choices``
ORDER = "order"  # one of ``choices``, optionally followed by ``:asc`` or ``:desc``
CHOICES = "choices"  # a list of ``choices``
NAME = "name"  # a variable's name (see the module docstring)
NAMES = "names"  # a list of names (those that are no variable, or no text, are skipped)
PATH = "path"  # access keys, from a detail's children
POSITIONS = "positions"  # column positions (integers from 0)
VIEW = "view"  # a :class:`View`


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a request: its type, default and bounds (see the module docstring)."""

    name: str
    type: str
    default: Any = None
    required: bool = False
    nullable: bool = False
    min: int | str | None = None
    max: int | str | None = None
    clamp: bool = False
    choices: tuple[str, ...] = ()
    doc: str = ""


@dataclasses.dataclass(frozen=True)
class Operation:
    """One operation of the probe: its fields, in the order they are checked."""

    name: str
    fields: tuple[Field, ...]
    doc: str = ""
    by_name: dict[str, Field] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {f.name: f for f in self.fields})

    def field(self, name: str) -> Field:
        return self.by_name[name]


def _ms(name: str, default: int, high: int, doc: str) -> Field:
    return Field(name, INT, default, nullable=True, min=1, max=high, clamp=True, doc=doc)


_GUARD = _ms("time_guard_ms", DEFAULT_GUARD_MS, MAX_GUARD_MS, "each value's user code")
_BUDGET = _ms("budget_ms", DEFAULT_BUDGET_MS, MAX_BUDGET_MS, "all the user code of the call")
_PREVIEW = Field(
    "preview_chars",
    INT,
    DEFAULT_PREVIEW,
    nullable=True,
    min=MIN_PREVIEW,
    max=MAX_PREVIEW,
    clamp=True,
    doc="characters of each preview",
)
_INCLUDE = Field(
    "include",
    CHOICES,
    (),
    nullable=True,
    max=len(INCLUDE_GROUPS),
    choices=INCLUDE_GROUPS,
    doc="groups of names shown besides the public ones",
)
_SINCE = Field(
    "since_ec",
    INT,
    None,
    nullable=True,
    min=0,
    max=MAX_OFFSET,
    doc="changes are relative to this execution count (null: the last cell's)",
)
_NAME = Field("name", NAME, required=True, min=1, max=MAX_NAME, doc="the variable")


# The table ops' (rows, code, profile) fields.


def _max_columns(default: int) -> Field:
    return Field("max_columns", INT, default, nullable=True, min=1, max=MAX_COLUMNS, clamp=True)


def _columns(most: int | str, doc: str, stop_doc: str) -> tuple[Field, ...]:
    """``columns`` (listed positions, at most ``most``), else ``column_start`` to
    ``column_stop``."""
    return (
        Field("columns", POSITIONS, None, nullable=True, min=1, max=most, doc=doc),
        Field("column_start", INT, 0, nullable=True, min=0, max=MAX_COLUMN_POSITION),
        Field(
            "column_stop",
            INT,
            None,
            nullable=True,
            min="column_start",
            max=MAX_COLUMN_POSITION,
            doc=stop_doc,
        ),
    )


def _view(doc: str) -> Field:
    return Field("view", VIEW, EMPTY_VIEW, nullable=True, doc=doc)


def _chars(name: str, doc: str = "") -> Field:
    return Field(
        name,
        INT,
        DEFAULT_CELL_CHARS,
        nullable=True,
        min=MIN_CELL_CHARS,
        max=MAX_CELL_CHARS,
        clamp=True,
        doc=doc,
    )


#: Rows and profiles: listed columns up to ``max_columns``, a range of as many at most.
_WINDOW_COLUMNS = _columns(
    "max_columns",
    "column positions (else column_start to column_stop)",
    "null: column_start + max_columns",
)
_SORTED_VIEW = _view("the sort and the filter")
_READ_GUARD = _ms("time_guard_ms", DEFAULT_READ_MS, MAX_MS, "each read of the value")
_TABLE_BUDGET = _ms("budget_ms", DEFAULT_ROWS_BUDGET_MS, MAX_ROWS_BUDGET_MS, "the whole call")

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation("ping", (), "nothing: the probe is there (installs it on the way)"),
        Operation(
            "snapshot",
            (
                _INCLUDE,
                Field("offset", INT, 0, nullable=True, min=0, max=MAX_OFFSET),
                Field("limit", INT, DEFAULT_LIMIT, nullable=True, min=0, max=MAX_LIMIT),
                Field("sort", ORDER, "name", nullable=True, choices=SORTS),
                _SINCE,
                Field(
                    "filter",
                    TEXT,
                    None,
                    nullable=True,
                    max=MAX_FILTER_CHARS,
                    doc="a case-insensitive glob on names or type names",
                ),
                Field(
                    "changed_in",
                    INT,
                    None,
                    nullable=True,
                    min=0,
                    max=MAX_OFFSET,
                    doc="only the names last bound or changed in this execution count",
                ),
                Field(
                    "used_by_cell",
                    TEXT,
                    None,
                    nullable=True,
                    min=1,
                    max=MAX_CELL_ID,
                    doc="only the names the last execution of this notebook cell (its id) "
                    "bound or read (its lineage)",
                ),
                Field("delta", BOOL, False, doc="only what changed since since_ec"),
                Field("schema", BOOL, False, doc="tables' first columns with their dtypes"),
                Field("framing", CHOICE, "json", nullable=True, choices=FRAMINGS),
                _PREVIEW,
                _GUARD,
                _BUDGET,
            ),
            "a page of visible variables, or what changed since an execution",
        ),
        Operation(
            "digest",
            (
                _INCLUDE,
                Field("limit", INT, DIGEST_LIMIT, nullable=True, min=0, max=MAX_LIMIT),
                _SINCE,
                Field(
                    "pinned",
                    NAMES,
                    (),
                    nullable=True,
                    max=MAX_LIMIT,
                    doc="names listed whatever changed (the user's annotated variables)",
                ),
                _PREVIEW,
                _GUARD,
                _BUDGET,
            ),
            "what a prompt needs of a namespace of any size",
        ),
        Operation(
            "detail",
            (
                _NAME,
                Field("path", PATH, (), nullable=True, max=MAX_PATH, doc="access keys"),
                Field(
                    "max_chars",
                    INT,
                    DEFAULT_DETAIL_CHARS,
                    nullable=True,
                    min=MIN_DETAIL_CHARS,
                    max=MAX_DETAIL_CHARS,
                    clamp=True,
                ),
                Field(
                    "reveal",
                    BOOL,
                    False,
                    doc="show the values under credential-like keys (masked by default)",
                ),
                _SINCE,
                _PREVIEW,
                _GUARD,
                _BUDGET,
            ),
            "one variable (or a child of it) in depth",
        ),
        Operation(
            "rows",
            (
                _NAME,
                Field(
                    "max_rows",
                    INT,
                    DEFAULT_MAX_ROWS,
                    nullable=True,
                    min=1,
                    max=MAX_ROWS,
                    clamp=True,
                ),
                _max_columns(DEFAULT_MAX_COLUMNS),
                Field("offset", INT, 0, nullable=True, min=0, max=MAX_ROWS_OFFSET),
                Field("limit", INT, DEFAULT_ROWS, nullable=True, min=1, max="max_rows"),
                *_WINDOW_COLUMNS,
                _SORTED_VIEW,
                _chars("cell_chars"),
                _READ_GUARD,
                _ms("sort_ms", DEFAULT_SORT_MS, MAX_MS, "the sort and the filter"),
                _ms("cell_guard_ms", DEFAULT_CELL_MS, MAX_MS, "each cell's own repr"),
                _ms("count_ms", DEFAULT_WINDOW_COUNT_MS, MAX_MS,
                    "an engine's count of the rows (past it: not counted)"),
                _TABLE_BUDGET,
            ),
            "a window of a table or an array, maybe sorted and filtered",
        ),
        Operation(
            "count",
            (
                _NAME,
                _view("its filter: the rows counted"),
                _READ_GUARD,
                _ms("count_ms", DEFAULT_COUNT_MS, MAX_MS, "the count"),
                _TABLE_BUDGET,
            ),
            "the rows of a table (those a filter keeps), counted by its engine",
        ),
        Operation(
            "code",
            (
                _NAME,
                _SORTED_VIEW,
                *_columns(
                    MAX_COLUMNS,
                    "column positions, in the order shown (else column_start to column_stop)",
                    "null: to the last column",
                ),
                Field(
                    "syntax",
                    CHOICE,
                    None,
                    nullable=True,
                    choices=SYNTAXES,
                    doc="null: the value's own library",
                ),
                _READ_GUARD,
                _ms("sort_ms", DEFAULT_SORT_MS, MAX_MS, "reading the columns the view names"),
                _TABLE_BUDGET,
            ),
            "code that binds <name>_view to the rows, order and columns of a view",
        ),
        Operation(
            "profile",
            (
                _NAME,
                _max_columns(DEFAULT_PROFILE_COLUMNS),
                *_WINDOW_COLUMNS,
                _view("its filter: the rows profiled"),
                Field(
                    "top",
                    INT,
                    MAX_TOP,
                    nullable=True,
                    min=0,
                    max=MAX_TOP,
                    clamp=True,
                    doc="most frequent values listed per column",
                ),
                _chars("value_chars", "characters of a listed value"),
                Field(
                    "sample_rows",
                    INT,
                    DEFAULT_SAMPLE_ROWS,
                    nullable=True,
                    min=MIN_SAMPLE_ROWS,
                    max=MAX_SAMPLE_ROWS,
                    clamp=True,
                    doc="past this many rows, statistics of a fixed-seed sample of as many",
                ),
                _READ_GUARD,
                _ms("filter_ms", DEFAULT_SORT_MS, MAX_MS, "the filter"),
                _ms("column_ms", DEFAULT_COLUMN_MS, MAX_MS, "each column's statistics"),
                _TABLE_BUDGET,
            ),
            "the statistics of a table's columns, maybe of the rows a filter keeps",
        ),
        Operation(
            "findings",
            (
                _NAME,
                _max_columns(DEFAULT_PROFILE_COLUMNS),
                *_WINDOW_COLUMNS,
                _view("its filter: the rows checked"),
                Field(
                    "max_findings",
                    INT,
                    DEFAULT_MAX_FINDINGS,
                    nullable=True,
                    min=1,
                    max=MAX_FINDINGS,
                    clamp=True,
                    doc="findings listed at most (findings_cut counts the rest)",
                ),
                Field(
                    "syntax",
                    CHOICE,
                    None,
                    nullable=True,
                    choices=FIX_SYNTAXES,
                    doc="the fixes' code (null: the value's own library)",
                ),
                Field(
                    "sample_rows",
                    INT,
                    DEFAULT_SAMPLE_ROWS,
                    nullable=True,
                    min=MIN_SAMPLE_ROWS,
                    max=MAX_SAMPLE_ROWS,
                    clamp=True,
                    doc="past this many rows, findings of a fixed-seed sample of as many",
                ),
                _READ_GUARD,
                _ms("filter_ms", DEFAULT_SORT_MS, MAX_MS, "the filter"),
                _ms("column_ms", DEFAULT_COLUMN_MS, MAX_MS,
                    "each column's checks, the duplicate rows, the correlations"),
                _TABLE_BUDGET,
            ),
            "data-quality findings of a table's columns, each with its rows and its fix",
        ),
        Operation("delete", (_NAME,), "remove a variable from the user namespace"),
        Operation(
            "timeline",
            (_NAME, Field("limit", INT, DEFAULT_ENTRIES, nullable=True, min=1, max=MAX_ENTRIES),
             Field("lineage_limit", INT, DEFAULT_LINEAGE, nullable=True, min=1, max=MAX_LINEAGE,
                   doc="executions per lineage list (defined_in, used_in, unknown), the latest")),
            "when a variable was new, modified or removed, and how; which executions bound and "
            "read it",
        ),
    )
}


def declaration(operations: Iterable[str]) -> dict[str, list[str]]:
    """What a probe's ``ping`` declares it can do (the server reads it once per probe):
    each of ``operations`` (those the probe handles) with the optional fields of the spec
    it applies -- for this probe, every one the spec lists."""
    return {op: [f.name for f in OPERATIONS[op].fields if not f.required]
            for op in operations if op in OPERATIONS}


# --- checking -------------------------------------------------------------------------

_MISSING = object()


def check(request: object) -> tuple[str, dict[str, Any]]:
    """The probe's one validator: ``(op, fields)`` with every field of the operation
    filled (defaults for those absent); :class:`BadRequest` otherwise."""
    if type(request) is not dict:
        raise BadRequest("A request is a JSON object")
    operation = _operation(request.get("op"))
    fields = {k: v for k, v in request.items() if k != "op"}
    return operation.name, _fill(operation, fields, python_names=True)


def request(op: str, **fields: Any) -> dict[str, Any]:
    """The server's builder: ``{"op": op, **fields}`` checked against the spec (clamped
    where the spec says so), without the fields equal to their default; views as JSON."""
    operation = _operation(op)
    filled = _fill(operation, fields, python_names=False)
    out: dict[str, Any] = {"op": op}
    for f in operation.fields:
        value = filled[f.name]
        if f.name in fields and value != f.default:
            out[f.name] = value.to_json() if type(value) is View else _json(value)
    return out


def _json(value: Any) -> Any:
    return list(value) if type(value) is tuple else value


def _operation(op: object) -> Operation:
    operation = OPERATIONS.get(op) if type(op) is str else None
    if operation is None:
        raise BadRequest(
            "Unknown operation {}: one of {}".format(repr(op)[:40], ", ".join(OPERATIONS))
        )
    return operation


def _fill(operation: Operation, given: dict[str, Any], python_names: bool) -> dict[str, Any]:
    unknown = [k for k in given if k not in operation.by_name]
    if unknown:
        raise _bad(
            operation,
            "unknown field {} (fields: {})".format(
                repr(unknown[0])[:60], ", ".join(operation.by_name) or "none"
            ),
        )
    out: dict[str, Any] = {}
    for f in operation.fields:
        value = given.get(f.name, _MISSING)
        if value is _MISSING or (value is None and f.nullable):
            if f.required:
                raise _bad(operation, f.name + " is required")
            out[f.name] = f.default
            continue
        try:
            out[f.name] = _TYPES[f.type](f, value, out, python_names)
        except BadRequest as exc:
            message = str(exc)  # "Invalid variable name": as the server says it
            raise (exc if message.startswith("Invalid") else _bad(operation, message)) from None
    return out


def _bad(operation: Operation, problem: str) -> BadRequest:
    return BadRequest("Invalid {} request: {}".format(operation.name, problem))


def _bounds(f: Field, filled: dict[str, Any]) -> tuple[int | None, int | None]:
    """``f``'s bounds, a field's name read from the fields checked before it."""
    low = filled[f.min] if isinstance(f.min, str) else f.min
    high = filled[f.max] if isinstance(f.max, str) else f.max
    return low, high


def _range(low: int | None, high: int | None, integer: bool = True) -> str:
    """``from 1 to 1,000``; an integer ``≥ 0``, a size ``at most 200``."""
    if low is not None and high is not None:
        return "from {:,} to {:,}".format(low, high)
    if low is not None:
        return ("≥ {:,}" if integer else "at least {:,}").format(low)
    if high is not None:
        return ("≤ {:,}" if integer else "at most {:,}").format(high)
    return ""


def _int(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> int:
    low, high = _bounds(f, filled)
    if type(value) is not int:
        raise BadRequest("{} must be an integer {}".format(f.name, _range(low, high)).rstrip())
    if low is not None and value < low:
        if not f.clamp:
            raise BadRequest("{} must be an integer {}".format(f.name, _range(low, high)))
        return low
    if high is not None and value > high:
        if not f.clamp:
            raise BadRequest("{} must be an integer {}".format(f.name, _range(low, high)))
        return high
    return value


def _bool(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> bool:
    if type(value) is not bool:
        raise BadRequest(f.name + " must be true or false")
    return value


def _sized(f: Field, n: int, filled: dict[str, Any], what: str) -> None:
    low, high = _bounds(f, filled)
    if (low is not None and n < low) or (high is not None and n > high):
        raise BadRequest("{} must hold {} {}".format(f.name, _range(low, high, False), what))


def _text(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> str:
    if type(value) is not str:
        raise BadRequest(f.name + " must be text")
    _sized(f, len(value), filled, "characters")
    return value


def _choice(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> str:
    if type(value) is not str or value not in f.choices:
        raise BadRequest("{} must be one of {}".format(f.name, ", ".join(f.choices)))
    return value


def _order(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> str:
    key, colon, direction = value.partition(":") if type(value) is str else ("", "", "")
    if key not in f.choices or (colon and direction not in SORT_DIRECTIONS):
        raise BadRequest(
            "{} must be one of {}, optionally followed by :asc or :desc".format(
                f.name, ", ".join(f.choices)
            )
        )
    return str(value)


def _list(f: Field, value: Any, filled: dict[str, Any], what: str) -> tuple[Any, ...]:
    if type(value) not in (list, tuple):
        raise BadRequest("{} must be a list of {}".format(f.name, what))
    _sized(f, len(value), filled, what)
    return tuple(value)


def _choices(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> tuple[str, ...]:
    items = _list(f, value, filled, "choices")
    if not all(type(x) is str and x in f.choices for x in items):
        raise BadRequest("{} must list some of {}".format(f.name, ", ".join(f.choices)))
    return items


def is_python_name(name: object) -> bool:
    """A Python identifier of at most ``MAX_NAME`` characters that is not a keyword."""
    return (
        type(name) is str
        and 0 < len(name) <= MAX_NAME
        and name.isidentifier()
        and not keyword.iskeyword(name)
    )


def _name(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> str:
    if python_names:
        if not is_python_name(value):
            raise BadRequest(
                "Invalid variable name: {} (a Python identifier of at most {} characters, "
                "not a keyword)".format(repr(value)[:60], MAX_NAME)
            )
        return str(value)
    if type(value) is not str:
        raise BadRequest("Invalid variable name: " + repr(value)[:60])
    _sized(f, len(value), filled, "characters")
    return value


def _names(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> tuple[str, ...]:
    """Names that may be variables: anything else in the list is none, and left out."""
    return tuple(x for x in _list(f, value, filled, "names") if type(x) is str)


def _path(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> tuple[str, ...]:
    items = _list(f, value, filled, "access keys")
    if not all(type(x) is str for x in items):
        raise BadRequest(f.name + " must be a list of access keys (text)")
    return items


def _positions(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> tuple[int, ...]:
    items = _list(f, value, filled, "column positions")
    if not all(type(x) is int and 0 <= x <= MAX_COLUMN_POSITION for x in items):
        raise BadRequest(f.name + " must be a list of column positions (integers from 0)")
    return items


def _view(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> View:
    if type(value) is View:
        return View.from_json(value.to_json())
    return View.from_json(value)


_TYPES: dict[str, Callable[[Field, Any, dict[str, Any], bool], Any]] = {
    INT: _int,
    BOOL: _bool,
    TEXT: _text,
    CHOICE: _choice,
    ORDER: _order,
    CHOICES: _choices,
    NAME: _name,
    NAMES: _names,
    PATH: _path,
    POSITIONS: _positions,
    VIEW: _view,
}


# --- compare: two tables, row by row (``ops.compare``) -------------------------------

#: What a row of a comparison is: in ``name`` only (added), in ``with`` only (removed), in
#: both with a cell that differs (changed) or not (unchanged).  ``with`` is the before.
COMPARE_STATUSES = ("added", "removed", "changed", "unchanged")
DEFAULT_COMPARE_STATUSES = ("added", "removed", "changed")
#: Key columns at most.
MAX_COMPARE_KEYS = 10
#: The time guard of the comparison itself (both tables matched and every column compared).
DEFAULT_COMPARE_MS = 4_000
#: Rows × compared columns (the larger table's rows) read at most: past it, refused.
DEFAULT_COMPARE_CELLS = 50_000_000
MAX_COMPARE_CELLS = 2_000_000_000
#: The languages of a comparison's code (null: the tables' own library).
COMPARE_SYNTAXES = ("pandas", "polars", "dplyr")
LABELS = "labels"  # column names as the tables list them (text)


def _labels(f: Field, value: Any, filled: dict[str, Any], python_names: bool) -> tuple[str, ...]:
    items = _list(f, value, filled, "column names")
    if not all(type(x) is str and 0 < len(x) <= MAX_COLUMN_NAME for x in items):
        raise BadRequest("{} must be a list of column names (text of 1 to {:,} characters)".format(
            f.name, MAX_COLUMN_NAME))
    if len(set(items)) != len(items):
        raise BadRequest(f.name + " names a column twice")
    return items


_TYPES[LABELS] = _labels

OPERATIONS["compare"] = Operation(
    "compare",
    (
        _NAME,
        Field("with", NAME, required=True, min=1, max=MAX_NAME,
              doc="the table compared against (the before; name is the after)"),
        Field("key", LABELS, None, nullable=True, min=1, max=MAX_COMPARE_KEYS,
              doc="the columns that identify a row in both (null: the index when one is "
                  "meaningful, else the position)"),
        Field("statuses", CHOICES, DEFAULT_COMPARE_STATUSES, nullable=True, min=1,
              max=len(COMPARE_STATUSES), choices=COMPARE_STATUSES,
              doc="the rows the window lists"),
        Field("max_rows", INT, DEFAULT_MAX_ROWS, nullable=True, min=1, max=MAX_ROWS,
              clamp=True),
        _max_columns(DEFAULT_MAX_COLUMNS),
        Field("offset", INT, 0, nullable=True, min=0, max=MAX_ROWS_OFFSET),
        Field("limit", INT, DEFAULT_ROWS, nullable=True, min=1, max="max_rows"),
        *_columns("max_columns", "positions in the compared columns' list (else column_start "
                  "to column_stop)", "null: column_start + max_columns"),
        Field("view", VIEW, EMPTY_VIEW, nullable=True,
              doc="the filter and sort of the listed rows, on the values shown"),
        Field("syntax", CHOICE, None, nullable=True, choices=COMPARE_SYNTAXES,
              doc="the language of the comparison's code (null: the tables' own library)"),
        Field("with_execution", INT, None, nullable=True, min=0, max=MAX_OFFSET,
              doc="compare with the version of `with` kept as of this execution (keep); "
                  "null: with's current value"),
        _chars("cell_chars"),
        _READ_GUARD,
        _ms("sort_ms", DEFAULT_SORT_MS, MAX_MS, "the filter and sort of the listed rows"),
        _ms("compare_ms", DEFAULT_COMPARE_MS, MAX_MS,
            "the comparison: rows matched and every column compared"),
        Field("max_cells", INT, DEFAULT_COMPARE_CELLS, nullable=True, min=1,
              max=MAX_COMPARE_CELLS, clamp=True,
              doc="rows × columns compared at most (past it, refused)"),
        _ms("cell_guard_ms", DEFAULT_CELL_MS, MAX_MS, "each cell's own repr"),
        _TABLE_BUDGET,
    ),
    "two tables compared by a key: rows added, removed and changed, and the changed cells",
)


# --- kept versions: a table as of an execution, kept on request (``ops.kept``) ----------

#: Versions kept in a kernel at most, and the bytes they hold at most (the server's
#: ``max_kept`` and ``max_kept_bytes``; these are the defaults and the ceilings).
DEFAULT_MAX_KEPT = 5
MAX_KEPT = 100
DEFAULT_MAX_KEPT_BYTES = 512 * 1024 * 1024
MAX_KEPT_BYTES = 1 << 44
_KEPT_CAPS = (
    Field("max_kept", INT, DEFAULT_MAX_KEPT, nullable=True, min=0, max=MAX_KEPT, clamp=True,
          doc="versions kept in the kernel at most, every name's"),
    Field("max_kept_bytes", INT, DEFAULT_MAX_KEPT_BYTES, nullable=True, min=0,
          max=MAX_KEPT_BYTES, clamp=True,
          doc="bytes the kept versions hold at most, every name's"),
)

OPERATIONS["keep"] = Operation(
    "keep",
    (
        _NAME,
        Field("evict", BOOL, False,
              doc="drop the oldest versions to make room (else a version past a cap is "
                  "refused)"),
        *_KEPT_CAPS,
        _READ_GUARD,
        _TABLE_BUDGET,
    ),
    "keep a copy of a table as of the last execution, to compare with later",
)
OPERATIONS["kept"] = Operation(
    "kept", (_NAME, *_KEPT_CAPS), "the versions of a table kept, and the caps' use")
OPERATIONS["drop_kept"] = Operation(
    "drop_kept",
    (
        _NAME,
        Field("execution", INT, None, nullable=True, min=0, max=MAX_OFFSET,
              doc="the execution of the version dropped (null: every version of name)"),
        *_KEPT_CAPS,
    ),
    "drop a kept version of a table",
)


# --- the lean wire ---------------------------------------------------------------------

#: A listed variable's fields that are left out of the snapshot's JSON when they hold this
#: value (most variables hold most of them: the whole list of 10,000 ints is a fifth of
#: its full size). ``qualname`` is left out when it equals ``type``. Readers put them back
#: with :func:`with_defaults`; the REST schema and the TypeScript types say the same.
VARIABLE_DEFAULTS: dict[str, Any] = {
    "size": None,
    "shape": None,
    "dtype": None,
    "nbytes": None,
    "memory": None,
    "truncated": False,
    "error": None,
    "change": "unchanged",
    "changed_at": None,
    "changes": [],
    "description": None,
    "constraints": None,
    "hidden_from_prompt": False,
    "likely_secret": False,
    "secret_reason": None,
    "masked": False,
}


def with_defaults(variable: dict[str, Any]) -> dict[str, Any]:
    """A listed variable with every field left out at its default put back (in place)."""
    if "qualname" not in variable:
        variable["qualname"] = variable.get("type")
    for key, default in VARIABLE_DEFAULTS.items():
        if key not in variable:
            variable[key] = [] if key == "changes" else default
    return variable
