"""The typed queries the service answers, one per operation.

Built at the edge by ``rest.parse`` (REST, MCP and, through REST, the CLI: one reading of
every parameter, see ``rest/table.py``) or directly by the service itself; a query here is
always valid. ``key`` says what makes two answers differ besides the kernel's generation.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InvalidRequest
from ..probe import protocol
from .annotations import parse_annotation
from .languages.r import is_r_name

MAX_NAME_LENGTH = protocol.MAX_NAME
MAX_ACCESS_KEY_LENGTH = 1024
# The protocol's own, under the names tests/probe/test_protocol.py reads them by.
INCLUDE_CHOICES = protocol.INCLUDE_GROUPS
SORT_CHOICES = protocol.SORTS
MAX_FILTER_CHARS = protocol.MAX_FILTER_CHARS


def validate_name(name: Any) -> str:
    """A variable name of a language with a probe, at most 256 characters: a Python
    identifier (not a keyword) or a syntactic R name. The kernel's own language checks it
    again (``LanguageSupport.check_name``) before anything is sent.

    The name is later looked up as an exact namespace key; it never becomes source code.
    """
    if not isinstance(name, str) or not name or len(name) > MAX_NAME_LENGTH:
        raise InvalidRequest(f"Invalid variable name: must be 1 to {MAX_NAME_LENGTH} characters")
    if not (name.isidentifier() and not keyword.iskeyword(name)) and not is_r_name(name):
        raise InvalidRequest(
            f"Invalid variable name: {name[:80]!r} is not a Python identifier or an R name")
    return name


@dataclass(frozen=True)
class SnapshotOptions:
    """``GET variables``: which names, which page, relative to which generation."""

    include: frozenset[str] = frozenset()
    limit: int = 500
    offset: int = 0
    sort: str = "name"
    since: int | None = None
    preview_chars: int = 200
    filter: str | None = None
    #: Only the variables last bound or changed in this execution count (whatever the page
    #: and sort); ``matched`` counts them.
    changed_in: int | None = None
    #: Only the variables the last execution of this notebook cell bound or read.
    used_by_cell: str | None = None
    #: Only what changed since generation ``since`` (every new or modified entry, not
    #: paged, at most ``limit``), when that can be told exactly; else a normal page.
    delta: bool = False
    #: How much of each variable: names (name, type, kind), schema (+ sizes, shapes,
    #: dtypes, table columns), full (everything).
    detail: str = "full"

    @property
    def key(self) -> tuple[object, ...]:
        """What makes two snapshots differ, besides the kernel's generation."""
        return (tuple(sorted(self.include)), self.limit, self.offset, self.sort, self.since,
                self.preview_chars, self.filter, self.delta, self.detail, self.changed_in,
                self.used_by_cell)

    def as_page(self) -> SnapshotOptions:
        """The same request as a normal page (when a delta cannot be given)."""
        return replace(self, delta=False)


@dataclass(frozen=True)
class AnnotationUpdate:
    """``PUT variables/{name}/annotation``: the user's note for one variable."""

    name: str
    description: str | None = None
    constraints: str | None = None
    hidden_from_prompt: bool = False

    @property
    def note(self) -> dict[str, Any]:
        return {"description": self.description, "constraints": self.constraints,
                "hidden_from_prompt": self.hidden_from_prompt}

    @classmethod
    def from_body(cls, name: str, body: bytes | str) -> AnnotationUpdate:
        """From a JSON body (only known fields, strings ≤ 2,000 chars or null)."""
        return cls(name=validate_name(name), **parse_annotation(body))


@dataclass(frozen=True)
class DetailOptions:
    """``GET variables/{name}``: one variable, or a child reached by access keys."""

    name: str
    path: tuple[str, ...] = ()
    max_chars: int = 10_000
    #: Show a likely secret's value (never the default): the probe then leaves the values
    #: under credential-like keys unmasked, so it is part of the request and of the key.
    reveal: bool = False

    @property
    def key(self) -> tuple[object, ...]:
        return (self.name, self.path, self.max_chars, self.reveal)


@dataclass(frozen=True)
class PromptOptions:
    """``GET prompt``: the budget, what to compare with, and what to add."""

    budget: int = 6000
    since: int | None = None
    history: int = 0
    images: bool = True
    format: str = "text"


@dataclass(frozen=True)
class ImagesOptions:
    """``GET images``: images after the ``since`` cursor, at most ``limit``."""

    since: int = 0
    limit: int = 50


@dataclass(frozen=True)
class HistoryOptions:
    """``GET history``: the last ``limit`` steps."""

    limit: int = 10
