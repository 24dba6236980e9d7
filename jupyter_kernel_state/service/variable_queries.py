"""The queries about one variable's data: ``RowsOptions`` (the data explorer's windows)
and ``TimelineOptions`` — built and checked like every query (see queries.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..errors import InvalidRequest
from ..probe.protocol import EMPTY_VIEW, FILTER_OPS, BadRequest, View, parse_sort
from .limits import Limits
from .queries import MAX_OFFSET, Getter, bounded, parse_int, validate_name

# Timeline entries per answer (the probe keeps more, within its own bound).
DEFAULT_TIMELINE_ENTRIES = 20
MAX_TIMELINE_ENTRIES = 100


@dataclass(frozen=True)
class RowsOptions:
    """``GET variables/{name}/rows``: a window of a table or array, maybe sorted and
    filtered (its ``view``)."""

    name: str
    offset: int = 0
    limit: int = 100
    columns: tuple[int, ...] | None = None  # listed positions, else the range below
    column_start: int = 0
    column_stop: int = 100
    view: View = EMPTY_VIEW

    @property
    def key(self) -> tuple[object, ...]:
        return ("rows", self.name, self.offset, self.limit, self.columns, self.column_start,
                self.column_stop, self.view)

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
    """The sort (``<column>:asc|desc``) and the filter (JSON: one condition
    ``{"column", "op", "value"}``) as one ``View``, checked by the protocol's own rules
    (``probe/protocol.py``); the probe reads the filter's value as the column's type."""
    keys = []
    if sort:
        if len(sort) > 1000:
            raise InvalidRequest("sort must be <column name>:asc or :desc, at most 1,000 "
                                 "characters")
        key = parse_sort(sort)
        if sort.rpartition(":")[0] == "" and sort.rpartition(":")[2] in ("asc", "desc"):
            raise InvalidRequest("sort must name a column, e.g. price:desc")
        keys.append(key.to_json())
    condition = None
    if filter is not None and filter.strip():
        problem = ('filter must be JSON like {"column": "price", "op": "gt", "value": "10"} '
                   f"with op one of {', '.join(FILTER_OPS)}")
        if len(filter) > 3000:
            raise InvalidRequest(problem)
        try:
            condition = json.loads(filter)
        except ValueError:
            raise InvalidRequest(problem) from None
        if not isinstance(condition, dict) or condition.get("op") not in FILTER_OPS:
            raise InvalidRequest(problem)
    try:
        return View.from_json({"sort": keys, "filter": condition})
    except BadRequest as e:
        raise InvalidRequest(str(e)) from None


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
