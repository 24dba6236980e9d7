"""The probe's replies as the server reads them, one ``TypedDict`` per operation of
``probe/protocol.py``. Every reply also carries what ``ProbeReply`` lists; a refusal never
reaches these types (``ProbeClient.call`` raises it as its domain error)."""

from __future__ import annotations

from typing import Any, TypedDict


class ProbeReply(TypedDict, total=False):
    ok: bool
    probe_id: str
    #: The kernel's next execution count when the probe answered.
    execution_count: int | None
    duration_ms: float


class EngineInfo(TypedDict):
    """What a reply says of an engine's table (``engine`` of rows, profile and count; the
    server sets null for a table in memory)."""

    name: str
    title: str
    lazy: bool
    #: The rows counted (of the view's filter, if any); None: not counted.
    rows: int | None
    location: str | None
    cost_ms: int | None


class SnapshotReply(ProbeReply, total=False):
    #: The visible names (with ``include``) ...
    total: int
    #: ... and those ``filter`` and ``changed_in`` keep (absent: ``total`` counted these).
    matched: int
    #: The ``changed_in`` the probe applied (said back only then).
    changed_in: int
    #: Each variable's JSON text (``framing: "lines"``), passed through undecoded ...
    fragments: list[str]
    #: ... or the variables decoded (probes that answer in one JSON text: R).
    variables: list[dict[str, Any]]
    removed: list[str]
    removed_total: int
    delta: bool
    #: Tables' first columns by variable name (``schema: true``).
    schema: dict[str, dict[str, Any]]


class DigestReply(ProbeReply, total=False):
    total: int
    variables: list[dict[str, Any]]
    changed: dict[str, Any]
    runs: list[dict[str, Any]]
    timelines: dict[str, Any]
    #: name → the findings of a table in one short clause, where the probe knows them.
    findings: dict[str, str]


class DetailReply(ProbeReply):
    #: ``VariableDetail``; an engine's table adds ``engine``: ``EngineInfo`` without
    #: ``cost_ms``, with ``plan`` (text, bounded) and ``plan_truncated``.
    variable: dict[str, Any]


class RowsReply(ProbeReply):
    #: ``RowsWindow`` without the server's fields; for an engine's table ``total_rows`` and
    #: ``filtered_rows`` may be None (not counted within ``count_ms``) and ``engine`` is an
    #: ``EngineInfo`` (absent for a table in memory: the server sets None).
    rows: dict[str, Any]


class ProfileReply(ProbeReply):
    #: The statistics of a table's columns (``TableProfile`` without the server's fields;
    #: ``engine`` as for rows).
    profile: dict[str, Any]


class CountResult(TypedDict):
    """``CountReply.count``: the rows of a table (those the filter keeps)."""

    name: str
    type: str
    rows: int
    #: The count is of the rows a filter keeps.
    filtered: bool
    cost_ms: int
    engine: EngineInfo | None


class CountReply(ProbeReply):
    count: CountResult


class CodeReply(ProbeReply):
    #: ``{"syntax", "code", "name", "view"}``: the code of a view.
    code: dict[str, Any]


class TimelineReply(ProbeReply):
    timeline: dict[str, Any]
