"""One typed, validated query per operation, built once at the edge.

REST handlers build them from query strings (``from_query``), MCP tools from typed
arguments (``create``); both go through the same checks, so a value means the same thing
whoever sent it. Bad values raise ``InvalidRequest`` saying what was wrong; numbers are
clamped to the configured maxima (``Limits``), never trusted.
"""

from __future__ import annotations

import json
import keyword
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InvalidRequest
from .annotations import parse_annotation
from .languages.r import is_r_name
from .limits import Limits

INCLUDE_CHOICES = ("private", "modules", "callables", "classes")
SORT_CHOICES = ("name", "type", "size", "changed", "memory")
SORT_DIRECTIONS = ("asc", "desc")
DETAIL_LEVELS = ("names", "schema", "full")
PROMPT_FORMATS = ("text", "json")
MAX_NAME_LENGTH = 256
MAX_PATH_DEPTH = 32
MAX_ACCESS_KEY_LENGTH = 1024
MAX_OFFSET = 1_000_000_000
MAX_FILTER_CHARS = 200
# Prompt budgets, in characters (below the minimum: 400; above the maximum: clamped).
DEFAULT_BUDGET = 6000
MIN_BUDGET = 200
MAX_BUDGET = 200_000
DEFAULT_HISTORY_STEPS = 10

Getter = Callable[[str], "str | None"]


def parse_int(raw: str | None, name: str) -> int | None:
    """An integer from a query string (None when absent); 400 when not an integer."""
    if raw is None or raw.strip() == "":
        return None
    try:
        return int(raw.strip())
    except ValueError:
        raise InvalidRequest(f"{name} must be an integer, got {raw[:40]!r}") from None


def parse_bool(raw: str | None, name: str) -> bool | None:
    if raw is None or raw.strip() == "":
        return None
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise InvalidRequest(f"{name} must be true or false, got {raw[:40]!r}")


def bounded(
    value: int | None, name: str, *, default: int, minimum: int, maximum: int | None = None
) -> int:
    """``value`` or ``default``: 400 below ``minimum``, clamped to ``maximum``."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequest(f"{name} must be an integer")
    if value < minimum:
        raise InvalidRequest(f"{name} must be ≥ {minimum}, got {value}")
    return value if maximum is None else min(value, maximum)


def validate_name(name: str) -> str:
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


def parse_path(raw: str | None) -> tuple[str, ...]:
    """``path``: a JSON array of access keys that the probe produced in ``children``."""
    if raw is None or raw == "":
        return ()
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        raise InvalidRequest("path must be a JSON array of access keys") from None
    return validate_path(value)


def validate_path(value: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(k, str) for k in value):
        raise InvalidRequest("path must be a JSON array of access keys (strings)")
    if len(value) > MAX_PATH_DEPTH:
        raise InvalidRequest(f"path is deeper than {MAX_PATH_DEPTH} levels")
    if any(len(k) > MAX_ACCESS_KEY_LENGTH for k in value):
        raise InvalidRequest(f"an access key is longer than {MAX_ACCESS_KEY_LENGTH} characters")
    return tuple(value)


def _include(value: str | Iterable[str] | None) -> frozenset[str]:
    parts = value.split(",") if isinstance(value, str) else (value or ())
    include = frozenset(part.strip() for part in parts if part.strip())
    unknown = include - set(INCLUDE_CHOICES)
    if unknown:
        raise InvalidRequest(
            f"include accepts {', '.join(INCLUDE_CHOICES)}; got {sorted(unknown)[0][:40]!r}"
        )
    return include


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
                self.preview_chars, self.filter, self.delta, self.detail, self.changed_in)

    def as_page(self) -> SnapshotOptions:
        """The same request as a normal page (when a delta cannot be given)."""
        return replace(self, delta=False)

    @classmethod
    def create(
        cls, limits: Limits, *, include: str | Iterable[str] | None = None,
        limit: int | None = None, offset: int | None = None, sort: str | None = None,
        since: int | None = None, filter: str | None = None, delta: bool | None = None,
        detail: str | None = None, changed_in: int | None = None,
    ) -> SnapshotOptions:
        level = (detail or "full").strip()
        if level not in DETAIL_LEVELS:
            raise InvalidRequest(f"detail must be one of {', '.join(DETAIL_LEVELS)}")
        sort = (sort or "name").strip()
        key, colon, direction = sort.partition(":")
        if key not in SORT_CHOICES or (colon and direction not in SORT_DIRECTIONS):
            raise InvalidRequest(f"sort must be one of {', '.join(SORT_CHOICES)}, optionally "
                                 "followed by :asc or :desc")
        if filter is not None and len(filter) > MAX_FILTER_CHARS:
            raise InvalidRequest(f"filter is longer than {MAX_FILTER_CHARS} characters")
        if changed_in is not None and delta:
            raise InvalidRequest("changed_in lists one execution's variables as a page; it "
                                 "cannot be combined with delta=true")
        return cls(
            include=_include(include),
            limit=bounded(limit, "limit", default=limits.page_size, minimum=1,
                          maximum=limits.max_page_size),
            offset=bounded(offset, "offset", default=0, minimum=0, maximum=MAX_OFFSET),
            sort=sort,
            since=None if since is None else bounded(since, "since", default=0, minimum=0),
            preview_chars=limits.preview_chars,
            filter=filter or None,
            delta=bool(delta),
            detail=level,
            changed_in=None if changed_in is None else bounded(
                changed_in, "changed_in", default=0, minimum=0, maximum=MAX_OFFSET),
        )

    @classmethod
    def from_query(cls, get: Getter, limits: Limits) -> SnapshotOptions:
        return cls.create(
            limits, include=get("include"), limit=parse_int(get("limit"), "limit"),
            offset=parse_int(get("offset"), "offset"), sort=get("sort"),
            since=parse_int(get("since"), "since"), filter=get("filter"),
            delta=parse_bool(get("delta"), "delta"), detail=get("detail"),
            changed_in=parse_int(get("changed_in"), "changed_in"),
        )


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

    @classmethod
    def create(
        cls, limits: Limits, name: str, *, path: Iterable[str] | None = None,
        max_chars: int | None = None, reveal: bool | None = None,
    ) -> DetailOptions:
        return cls(
            name=validate_name(name),
            path=validate_path(list(path)) if path else (),
            max_chars=bounded(max_chars, "max_chars", default=limits.detail_chars, minimum=1,
                              maximum=limits.max_detail_chars),
            reveal=bool(reveal),
        )

    @classmethod
    def from_query(cls, name: str, get: Getter, limits: Limits) -> DetailOptions:
        return cls.create(limits, name, path=parse_path(get("path")),
                          max_chars=parse_int(get("max_chars"), "max_chars"),
                          reveal=parse_bool(get("reveal"), "reveal"))


@dataclass(frozen=True)
class PromptOptions:
    """``GET prompt``: the budget, what to compare with, and what to add."""

    budget: int = DEFAULT_BUDGET
    since: int | None = None
    history: int = 0
    images: bool = True
    format: str = "text"

    @classmethod
    def create(
        cls, limits: Limits, *, budget: int | None = None, since: int | None = None,
        history: int | None = None, images: bool | None = None, format: str | None = None,
    ) -> PromptOptions:
        output = format or "text"
        if output not in PROMPT_FORMATS:
            raise InvalidRequest(f"format must be {' or '.join(PROMPT_FORMATS)}")
        return cls(
            budget=bounded(budget, "budget", default=DEFAULT_BUDGET, minimum=MIN_BUDGET,
                           maximum=MAX_BUDGET),
            since=None if since is None else bounded(since, "since", default=0, minimum=0),
            history=bounded(history, "history", default=0, minimum=0,
                            maximum=limits.history.max_entries),
            images=True if images is None else bool(images),
            format=output,
        )

    @classmethod
    def from_query(cls, get: Getter, limits: Limits) -> PromptOptions:
        return cls.create(
            limits, budget=parse_int(get("budget"), "budget"),
            since=parse_int(get("since"), "since"), history=parse_int(get("history"), "history"),
            images=parse_bool(get("images"), "images"), format=get("format"),
        )


@dataclass(frozen=True)
class ImagesOptions:
    """``GET images``: images after the ``since`` cursor, at most ``limit``."""

    since: int = 0
    limit: int = 50

    @classmethod
    def create(cls, limits: Limits, *, since: int | None = None,
               limit: int | None = None) -> ImagesOptions:
        cap = limits.images.max_images + max(0, limits.images.keep_first)  # all it holds
        return cls(since=bounded(since, "since", default=0, minimum=0),
                   limit=bounded(limit, "limit", default=cap, minimum=1, maximum=cap))

    @classmethod
    def from_query(cls, get: Getter, limits: Limits) -> ImagesOptions:
        return cls.create(limits, since=parse_int(get("since"), "since"),
                          limit=parse_int(get("limit"), "limit"))


@dataclass(frozen=True)
class HistoryOptions:
    """``GET history``: the last ``limit`` steps."""

    limit: int = DEFAULT_HISTORY_STEPS

    @classmethod
    def create(cls, limits: Limits, *, limit: int | None = None) -> HistoryOptions:
        return cls(limit=bounded(limit, "limit", default=DEFAULT_HISTORY_STEPS, minimum=0,
                                 maximum=limits.history.max_entries))

    @classmethod
    def from_query(cls, get: Getter, limits: Limits) -> HistoryOptions:
        return cls.create(limits, limit=parse_int(get("limit"), "limit"))
