"""The queries about one variable's data: ``RowsOptions`` (the data explorer's windows),
``CountOptions`` (a table's rows counted), ``CodeOptions`` (the code of a view),
``ProfileOptions`` and ``TimelineOptions`` — built and checked like every query (see
queries.py); a view's sort and filter by :func:`parse_view`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidRequest
from ..probe.protocol import (
    EMPTY_VIEW,
    FILTER_OPS,
    MAX_COLUMNS,
    SORT_DIRECTIONS,
    SYNTAXES,
    BadRequest,
    View,
    parse_sort,
)
from .limits import Limits
from .queries import MAX_OFFSET, Getter, bounded, parse_int, validate_name

#: A query's ``sort`` text (10 keys of long names) and ``filter`` JSON (50 conditions,
#: lists of up to 1,000 items), at most.
MAX_SORT_CHARS = 12_000
MAX_FILTER_JSON = 200_000
# Timeline entries per answer (the probe keeps more, within its own bound).
DEFAULT_TIMELINE_ENTRIES = 20
MAX_TIMELINE_ENTRIES = 100


@dataclass(frozen=True)
class TableQuery:
    """What every query about a table's columns holds: the variable, the columns (listed
    positions, else a range) and the view (the sort and the filter)."""

    name: str
    columns: tuple[int, ...] | None = None  # listed positions, else the range below
    column_start: int = 0
    column_stop: int | None = 100  # None: to the last column
    view: View = EMPTY_VIEW

    def column_fields(self) -> dict[str, Any]:
        """The columns as the probe's request says them (``probe/protocol.py``)."""
        if self.columns is not None:
            return {"columns": list(self.columns)}
        return {"column_start": self.column_start, "column_stop": self.column_stop}

    @property
    def columns_key(self) -> tuple[object, ...]:
        return (self.name, self.columns, self.column_start, self.column_stop, self.view.key)


@dataclass(frozen=True)
class RowsOptions(TableQuery):
    """``GET variables/{name}/rows``: a window of a table or array, maybe sorted and
    filtered (its ``view``)."""

    offset: int = 0
    limit: int = 100

    @property
    def key(self) -> tuple[object, ...]:
        return ("rows", *self.columns_key, self.offset, self.limit)

    @classmethod
    def create(
        cls, limits: Limits, name: str, *, offset: int | None = None, limit: int | None = None,
        columns: str | None = None, sort: str | None = None, filter: str | None = None,
    ) -> RowsOptions:
        width = limits.rows_max_columns
        listed, start, stop = parse_columns(columns, width)
        return cls(
            name=validate_name(name),
            offset=bounded(offset, "offset", default=0, minimum=0, maximum=MAX_OFFSET ** 2),
            limit=bounded(limit, "limit", default=min(100, limits.rows_max_rows), minimum=1,
                          maximum=limits.rows_max_rows),
            columns=listed, column_start=start, column_stop=stop,
            view=parse_view(sort, filter),
        )

    @classmethod
    def from_query(cls, name: str, get: Getter, limits: Limits) -> RowsOptions:
        return cls.create(limits, name, offset=parse_int(get("offset"), "offset"),
                          limit=parse_int(get("limit"), "limit"), columns=get("columns"),
                          sort=get("sort"), filter=get("filter"))


def parse_columns(raw: str | None, width: int) -> tuple[tuple[int, ...] | None, int, int]:
    """``start:stop`` (a range of positions) or ``0,3,7`` (a list), at most ``width``
    columns; absent: the first ``width``."""
    text = (raw or "").strip()
    if not text:
        return None, 0, width
    problem = (f"columns must be a range of column positions like 0:20 or a list like 0,3,7 "
               f"(at most {width} columns), got {text[:40]!r}")
    if ":" in text:
        first, _, last = text.partition(":")
        try:
            start = int(first) if first.strip() else 0
            stop = int(last) if last.strip() else start + width
        except ValueError:
            raise InvalidRequest(problem) from None
        if start < 0 or stop < start or stop - start > width:
            raise InvalidRequest(problem)
        return None, start, stop
    try:
        listed = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise InvalidRequest(problem) from None
    if not listed or len(listed) > width or min(listed) < 0:
        raise InvalidRequest(problem)
    return listed, 0, 0


def parse_view(sort: str | None, filter: str | None) -> View:
    """The sort (:func:`parse_sort_keys`) and the filter (:func:`parse_filter`) as one
    ``View``, checked by the protocol's own rules (``probe/protocol.py``); the probe
    reads each value of the filter as its column's type."""
    keys = parse_sort_keys(sort)
    condition = parse_filter(filter)
    try:
        return View.from_json({"sort": keys, "filter": condition})
    except BadRequest as e:
        raise InvalidRequest(str(e)) from None


def parse_sort_keys(text: str | None) -> list[dict[str, Any]]:
    """``price:desc,region:asc`` (keys split at commas, each at its last colon; ``:asc``
    by default), or the JSON list ``[{"column": "a,b", "desc": true}]`` for names that
    hold commas or colons; at most ``MAX_SORT_KEYS`` keys."""
    if not text or not text.strip():
        return []
    if len(text) > MAX_SORT_CHARS:
        raise InvalidRequest(f"sort must be at most {MAX_SORT_CHARS:,} characters")
    if text.lstrip().startswith("["):
        try:
            keys = json.loads(text)
        except (ValueError, RecursionError):
            raise InvalidRequest('sort must be a list of columns like price:desc,region:asc or '
                                 'a JSON list like [{"column": "price", "desc": true}]') from None
        if not isinstance(keys, list):
            raise InvalidRequest('sort as JSON is a list of {"column", "desc"}')
        return keys
    keys = []
    for part in text.split(","):
        key = parse_sort(part.strip())
        column, _, direction = part.strip().rpartition(":")
        if not part.strip() or (not column and direction in SORT_DIRECTIONS):
            raise InvalidRequest(f"sort must name a column in each key, like price:desc,"
                                 f"region:asc (got {text[:60]!r})")
        keys.append(key.to_json())
    return keys


def parse_filter(text: str | None) -> Any:
    """The filter as JSON: one condition ``{"column", "op", "value"?, "case"?}`` or a tree
    ``{"and": [...]}`` / ``{"or": [...]}`` (checked by ``View.from_json``); None when
    empty."""
    if text is None or not text.strip():
        return None
    problem = ('filter must be JSON: a condition like {"column": "price", "op": "gt", '
               '"value": 10} or a tree like {"or": [<condition>, ...]}; ops: '
               + ", ".join(FILTER_OPS))
    if len(text) > MAX_FILTER_JSON:
        raise InvalidRequest(f"filter must be at most {MAX_FILTER_JSON:,} characters of JSON")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit
        raise InvalidRequest(problem) from None


@dataclass(frozen=True)
class CodeOptions(TableQuery):
    """``GET variables/{name}/code``: the code of a view (filter, sort, the columns
    shown) in ``syntax`` (None: the value's own library)."""

    column_stop: int | None = None  # None: to the last column
    syntax: str | None = None

    @property
    def key(self) -> tuple[object, ...]:
        return ("code", *self.columns_key, self.syntax)

    @classmethod
    def create(
        cls, limits: Limits, name: str, *, columns: str | None = None, sort: str | None = None,
        filter: str | None = None, syntax: str | None = None,
    ) -> CodeOptions:
        listed, start, stop = (None, 0, None) if not (columns or "").strip() else \
            parse_columns(columns, MAX_COLUMNS)
        chosen = (syntax or "").strip() or None
        if chosen is not None and chosen not in SYNTAXES:
            raise InvalidRequest(f"syntax must be one of {', '.join(SYNTAXES)} (default: the "
                                 "value's own library)")
        return cls(name=validate_name(name), view=parse_view(sort, filter), columns=listed,
                   column_start=start, column_stop=stop, syntax=chosen)

    @classmethod
    def from_query(cls, name: str, get: Getter, limits: Limits) -> CodeOptions:
        return cls.create(limits, name, columns=get("columns"), sort=get("sort"),
                          filter=get("filter"), syntax=get("syntax"))


@dataclass(frozen=True)
class ProfileOptions(TableQuery):
    """``GET variables/{name}/profile``: the statistics of some columns (positions as for
    rows, at most ``profile_max_columns``), of the rows the ``view``'s filter keeps."""

    @property
    def key(self) -> tuple[object, ...]:
        return ("profile", *self.columns_key)

    @classmethod
    def create(cls, limits: Limits, name: str, *, columns: str | None = None,
               filter: str | None = None) -> ProfileOptions:
        listed, start, stop = parse_columns(columns, limits.profile_max_columns)
        return cls(name=validate_name(name), columns=listed, column_start=start,
                   column_stop=stop, view=parse_view(None, filter))

    @classmethod
    def from_query(cls, name: str, get: Getter, limits: Limits) -> ProfileOptions:
        return cls.create(limits, name, columns=get("columns"), filter=get("filter"))


@dataclass(frozen=True)
class CountOptions(TableQuery):
    """``POST variables/{name}/count``: the rows of a table that the ``view``'s filter
    keeps (every row without one), counted in the kernel — by its engine for an engine's
    table (where a window said "not counted")."""

    def column_fields(self) -> dict[str, Any]:
        return {}  # a count names no columns

    @property
    def key(self) -> tuple[object, ...]:
        return ("count", self.name, self.view.key)

    @classmethod
    def create(cls, limits: Limits, name: str, *, filter: str | None = None) -> CountOptions:
        return cls(name=validate_name(name), view=parse_view(None, filter))

    @classmethod
    def from_query(cls, name: str, get: Getter, limits: Limits) -> CountOptions:
        return cls.create(limits, name, filter=get("filter"))


@dataclass(frozen=True)
class TimelineOptions:
    """``GET variables/{name}/timeline``: the last ``limit`` changes of one name."""

    name: str
    limit: int = DEFAULT_TIMELINE_ENTRIES

    @property
    def key(self) -> tuple[object, ...]:
        return ("timeline", self.name, self.limit)

    @classmethod
    def create(cls, limits: Limits, name: str, *, limit: int | None = None) -> TimelineOptions:
        return cls(name=validate_name(name),
                   limit=bounded(limit, "limit", default=DEFAULT_TIMELINE_ENTRIES, minimum=1,
                                 maximum=MAX_TIMELINE_ENTRIES))

    @classmethod
    def from_query(cls, name: str, get: Getter, limits: Limits) -> TimelineOptions:
        return cls.create(limits, name, limit=parse_int(get("limit"), "limit"))
