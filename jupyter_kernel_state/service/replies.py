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


class DetailReply(ProbeReply):
    variable: dict[str, Any]


class RowsReply(ProbeReply):
    rows: dict[str, Any]


class ProfileReply(ProbeReply):
    #: The statistics of a table's columns (``TableProfile`` without the server's fields).
    profile: dict[str, Any]


class CodeReply(ProbeReply):
    #: ``{"syntax", "code", "name", "view"}``: the code of a view.
    code: dict[str, Any]


class TimelineReply(ProbeReply):
    timeline: dict[str, Any]
