"""Validated request options, shared by the REST routes, the MCP tools and the CLI.

Every parser takes plain strings (as they come from a query string) and raises
``InvalidRequest`` with a message that says what was wrong. Numbers are clamped to the
configured maxima, never trusted.
"""

from __future__ import annotations

import json
import keyword
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InvalidRequest

INCLUDE_CHOICES = ("private", "modules", "callables", "classes")
SORT_CHOICES = ("name", "type", "size", "changed")
MAX_NAME_LENGTH = 256
MAX_PATH_DEPTH = 32
MAX_ACCESS_KEY_LENGTH = 1024
MAX_OFFSET = 1_000_000_000
MAX_FILTER_CHARS = 200

Getter = Callable[[str], "str | None"]


def parse_int(
    raw: str | None, name: str, *, default: int, minimum: int, maximum: int | None = None
) -> int:
    """An integer query value: 400 when not an integer or below ``minimum``; clamped to max."""
    if raw is None or raw == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise InvalidRequest(f"{name} must be an integer, got {raw[:40]!r}") from None
    if value < minimum:
        raise InvalidRequest(f"{name} must be ≥ {minimum}, got {value}")
    if maximum is not None:
        value = min(value, maximum)
    return value


def parse_bool(raw: str | None, name: str, *, default: bool) -> bool:
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise InvalidRequest(f"{name} must be true or false, got {raw[:40]!r}")


def validate_name(name: str) -> str:
    """A variable name: an identifier, not a keyword, at most 256 characters.

    The name is later looked up as an exact namespace key; it never becomes source code.
    """
    if not name or len(name) > MAX_NAME_LENGTH:
        raise InvalidRequest(f"Invalid variable name: must be 1 to {MAX_NAME_LENGTH} characters")
    if not name.isidentifier() or keyword.iskeyword(name):
        raise InvalidRequest(f"Invalid variable name: {name[:80]!r} is not a Python identifier")
    return name


def parse_path(raw: str | None) -> tuple[str, ...]:
    """``path``: a JSON array of access keys that the probe produced in ``children``."""
    if raw is None or raw == "":
        return ()
    try:
        value = json.loads(raw)
    except ValueError:
        raise InvalidRequest("path must be a JSON array of access keys") from None
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise InvalidRequest("path must be a JSON array of access keys (strings)")
    if len(value) > MAX_PATH_DEPTH:
        raise InvalidRequest(f"path is deeper than {MAX_PATH_DEPTH} levels")
    if any(len(k) > MAX_ACCESS_KEY_LENGTH for k in value):
        raise InvalidRequest(f"an access key is longer than {MAX_ACCESS_KEY_LENGTH} characters")
    return tuple(value)


@dataclass(frozen=True)
class SnapshotOptions:
    include: frozenset[str] = frozenset()
    limit: int = 500
    offset: int = 0
    sort: str = "name"
    since: int | None = None
    preview_chars: int = 200
    filter: str | None = None

    @property
    def key(self) -> tuple[object, ...]:
        """What makes two snapshots differ, besides the kernel's generation."""
        return (tuple(sorted(self.include)), self.limit, self.offset, self.sort, self.since,
                self.preview_chars, self.filter)

    @classmethod
    def parse(
        cls, get: Getter, *, default_limit: int, max_limit: int, preview_chars: int
    ) -> SnapshotOptions:
        include_raw = get("include") or ""
        include = frozenset(part.strip() for part in include_raw.split(",") if part.strip())
        unknown = include - set(INCLUDE_CHOICES)
        if unknown:
            raise InvalidRequest(
                f"include accepts {', '.join(INCLUDE_CHOICES)}; got {sorted(unknown)[0][:40]!r}"
            )
        sort = (get("sort") or "name").strip()
        if sort not in SORT_CHOICES:
            raise InvalidRequest(f"sort must be one of {', '.join(SORT_CHOICES)}")
        since_raw = get("since")
        since = None if since_raw in (None, "") else parse_int(since_raw, "since", default=0,
                                                                 minimum=0)
        pattern = get("filter") or None
        if pattern is not None and len(pattern) > MAX_FILTER_CHARS:
            raise InvalidRequest(f"filter is longer than {MAX_FILTER_CHARS} characters")
        return cls(
            filter=pattern,
            include=include,
            limit=parse_int(get("limit"), "limit", default=default_limit, minimum=1,
                            maximum=max_limit),
            offset=parse_int(get("offset"), "offset", default=0, minimum=0, maximum=MAX_OFFSET),
            sort=sort,
            since=since,
            preview_chars=preview_chars,
        )


@dataclass(frozen=True)
class DetailOptions:
    name: str
    path: tuple[str, ...] = ()
    max_chars: int = 10_000

    @property
    def key(self) -> tuple[object, ...]:
        return (self.name, self.path, self.max_chars)

    @classmethod
    def parse(cls, name: str, get: Getter, *, default_chars: int, max_chars: int) -> DetailOptions:
        return cls(
            name=validate_name(name),
            path=parse_path(get("path")),
            max_chars=parse_int(get("max_chars"), "max_chars", default=default_chars, minimum=1,
                                maximum=max_chars),
        )
