"""The queries about one variable's data: ``RowsOptions`` (the data explorer's windows),
``CountOptions`` (a table's rows counted), ``CodeOptions`` (the code of a view),
``FindingsOptions`` (data-quality findings with their fix code), ``KeptOptions``
(versions of a table kept on request),
``ProfileOptions`` and ``TimelineOptions`` — built like every query (see queries.py); a
view's sort and filter are one ``protocol.View``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..probe.protocol import (
    DEFAULT_COMPARE_STATUSES,
    DEFAULT_ENTRIES,
    DEFAULT_LINEAGE,
    EMPTY_VIEW,
    View,
)


@dataclass(frozen=True)
class TableQuery:
    """What every query about a table's columns holds: the variable, the columns (listed
    positions, else a range) and the view (the sort and the filter)."""

    name: str
    columns: tuple[int, ...] | None = None  # listed positions, else the range below
    column_start: int = 0
    column_stop: int | None = 100  # None: to the last column
    view: View = EMPTY_VIEW
    #: The time (ms) the caller gives this request in the kernel (None: the server's
    #: guards); at most ``max_request_budget_ms``, checked by the route.
    budget_ms: int | None = None

    def column_fields(self) -> dict[str, Any]:
        """The columns as the probe's request says them (``probe/protocol.py``)."""
        if self.columns is not None:
            return {"columns": list(self.columns)}
        return {"column_start": self.column_start, "column_stop": self.column_stop}

    @property
    def columns_key(self) -> tuple[object, ...]:
        return (self.name, self.columns, self.column_start, self.column_stop, self.view.key,
                self.budget_ms)


@dataclass(frozen=True)
class RowsOptions(TableQuery):
    """``GET variables/{name}/rows``: a window of a table or array, maybe sorted and
    filtered (its ``view``)."""

    offset: int = 0
    limit: int = 100

    @property
    def key(self) -> tuple[object, ...]:
        return ("rows", *self.columns_key, self.offset, self.limit)


@dataclass(frozen=True)
class CodeOptions(TableQuery):
    """``GET variables/{name}/code``: the code of a view (filter, sort, the columns
    shown) in ``syntax`` (None: the value's own library)."""

    column_stop: int | None = None  # None: to the last column
    syntax: str | None = None

    @property
    def key(self) -> tuple[object, ...]:
        return ("code", *self.columns_key, self.syntax)


@dataclass(frozen=True)
class ProfileOptions(TableQuery):
    """``GET variables/{name}/profile``: the statistics of some columns (positions as for
    rows, at most ``profile_max_columns``), of the rows the ``view``'s filter keeps."""

    @property
    def key(self) -> tuple[object, ...]:
        return ("profile", *self.columns_key)


@dataclass(frozen=True)
class FindingsOptions(TableQuery):
    """``GET variables/{name}/findings``: the data-quality findings of some columns
    (positions as for a profile) of the rows the ``view``'s filter keeps, at most
    ``max_findings``, each with fix code in ``syntax`` (None: the value's own library)."""

    column_stop: int | None = None  # None: to the last column
    max_findings: int = 100
    syntax: str | None = None

    @property
    def key(self) -> tuple[object, ...]:
        return ("findings", *self.columns_key, self.max_findings, self.syntax)


@dataclass(frozen=True)
class CountOptions(TableQuery):
    """``POST variables/{name}/count``: the rows of a table that the ``view``'s filter
    keeps (every row without one), counted in the kernel — by its engine for an engine's
    table (where a window said "not counted")."""

    def column_fields(self) -> dict[str, Any]:
        return {}  # a count names no columns

    @property
    def key(self) -> tuple[object, ...]:
        return ("count", self.name, self.view.key, self.budget_ms)


@dataclass(frozen=True)
class TimelineOptions:
    """``GET variables/{name}/timeline``: the last ``limit`` changes of one name."""

    name: str
    limit: int = DEFAULT_ENTRIES
    lineage_limit: int = DEFAULT_LINEAGE

    @property
    def key(self) -> tuple[object, ...]:
        return ("timeline", self.name, self.limit, self.lineage_limit)


@dataclass(frozen=True)
class CompareOptions(TableQuery):
    """``GET variables/{name}/compare``: the table ``name`` (the after) compared with the
    table ``other`` (the ``with`` parameter, the before; None: not given, a 400 once the
    kernel is found) by ``key_columns`` (None: the index when meaningful, else the
    position); a window (``offset``, ``limit``, the ``view``'s filter and sort, the
    compared columns at ``columns``) of the rows of ``statuses``; the comparison's code in
    ``syntax`` (None: the tables' own library)."""

    other: str | None = None
    #: Compare with the version of ``other`` kept as of this execution (``with=@12``).
    with_execution: int | None = None
    key_columns: tuple[str, ...] | None = None
    statuses: tuple[str, ...] = DEFAULT_COMPARE_STATUSES
    offset: int = 0
    limit: int = 100
    syntax: str | None = None

    @property
    def key(self) -> tuple[object, ...]:
        return ("compare", *self.columns_key, self.other, self.with_execution,
                self.key_columns, self.statuses, self.offset, self.limit, self.syntax)


@dataclass(frozen=True)
class KeptOptions:
    """``variables/{name}/kept``: keep a version of ``name`` (POST; ``evict`` drops the
    oldest versions to make room), list its versions (GET), or drop the version of
    ``execution`` (DELETE …/kept/{execution}; None: every version of ``name``)."""

    name: str
    evict: bool = False
    execution: int | None = None
