"""How a parameter's value is read, whoever sent it: a query string's text (REST), a JSON
body's typed value (a large view, ``POST``) or a typed argument (MCP, the client).

Text is read as the type (``"20"`` as 20, ``"true"``, a JSON filter); a typed value is
checked as it is. Every refusal is an ``InvalidRequest`` naming the parameter and what it
takes. Each kind also says how OpenAPI describes the value, its TypeScript type and how the
client writes it back into a query string.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRequest
from ..probe import protocol
from ..service.annotations import MAX_FIELD_CHARS, parse_annotation
from ..service.limits import Limits
from ..service.queries import MAX_ACCESS_KEY_LENGTH, validate_name
from .bounds import resolve as _resolve

if TYPE_CHECKING:
    from .params import Param


class Kind:
    """How a parameter's value is read (from text or typed), described (OpenAPI, the
    TypeScript type the frontend sends) and written back as query text (the client)."""

    #: The OpenAPI schema of the value in a query string.
    query_schema: dict[str, Any] = {"type": "string"}
    #: Its TypeScript type in the frontend.
    ts = "string"
    #: ``max`` bounds the text's length (else the number of items, or nothing in the query).
    length = False

    def read(self, p: Param, value: Any, limits: Limits) -> Any:
        raise NotImplementedError

    def absent(self, p: Param, limits: Limits) -> Any:
        """The value when none is given."""
        return _resolve(p.default, limits)

    def schema(self, p: Param) -> dict[str, Any]:
        """The OpenAPI schema of the value as a query string carries it."""
        out = dict(self.query_schema)
        if p.choices and isinstance(self, Choice):
            out["enum"] = list(p.choices)
        if isinstance(p.min, int) and out.get("type") == "integer":
            out["minimum"] = p.min
        if isinstance(p.max, int) and not p.clamp and out.get("type") == "integer":
            out["maximum"] = p.max
        elif isinstance(p.max, int) and self.length:
            out["maxLength"] = p.max
        if isinstance(p.default, (bool, int, str)) and p.default != "":
            out["default"] = p.default
        return out

    def body_schema(self, p: Param) -> dict[str, Any]:
        """The schema of the value in a JSON body (the typed form)."""
        return p.schema()

    def encode(self, value: Any) -> str | None:
        """``value`` as query text (None: left out)."""
        return None if value is None else str(value)


def _got(value: Any) -> str:
    return repr(value if not isinstance(value, str) else value[:40])


class Integer(Kind):
    query_schema = {"type": "integer"}
    ts = "number"

    def absent(self, p: Param, limits: Limits) -> int | None:
        value: int | None = _resolve(p.default, limits)
        high: int | None = _resolve(p.max, limits)
        if p.clamp and value is not None and high is not None:
            return min(value, high)
        return value

    def read(self, p: Param, value: Any, limits: Limits) -> int:
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise InvalidRequest(f"{p.name} must be an integer, got {_got(value)}") from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidRequest(f"{p.name} must be an integer, got {_got(value)}")
        low, high = _resolve(p.min, limits), _resolve(p.max, limits)
        if low is not None and value < low:
            raise InvalidRequest(f"{p.name} must be ≥ {low:,}, got {value:,}")
        if high is not None and value > high:
            if not p.clamp:
                raise InvalidRequest(f"{p.name} must be ≤ {high:,}, got {value:,}")
            return int(high)
        return value


class Boolean(Kind):
    query_schema = {"type": "boolean"}
    ts = "boolean"
    TRUE = ("1", "true", "yes", "on")
    FALSE = ("0", "false", "no", "off")

    def read(self, p: Param, value: Any, limits: Limits) -> bool:
        if isinstance(value, bool):
            return value
        lowered = value.strip().lower() if isinstance(value, str) else None
        if lowered in self.TRUE or lowered in self.FALSE:
            return lowered in self.TRUE
        raise InvalidRequest(f"{p.name} must be true or false, got {_got(value)}")

    def encode(self, value: Any) -> str | None:
        return None if value is None else ("true" if value else "false")


class Flag(Boolean):
    """A switch any value but an empty one, 0 or false turns on (``?download=1``)."""

    def read(self, p: Param, value: Any, limits: Limits) -> bool:
        if isinstance(value, str):
            return value.strip().lower() not in ("0", "false")
        return bool(value)


class Text(Kind):
    length = True
    def read(self, p: Param, value: Any, limits: Limits) -> str:
        if not isinstance(value, str):
            raise InvalidRequest(f"{p.name} must be text, got {_got(value)}")
        high = _resolve(p.max, limits)
        if high is not None and len(value) > high:
            raise InvalidRequest(f"{p.name} is longer than {high:,} characters")
        return value


class Choice(Kind):
    """One of ``choices``."""

    def read(self, p: Param, value: Any, limits: Limits) -> str:
        chosen = value.strip() if isinstance(value, str) else value
        if chosen not in p.choices:
            raise InvalidRequest(f"{p.name} must be one of {', '.join(p.choices)}")
        return str(chosen)


class Order(Kind):
    """One of ``choices``, optionally followed by ``:asc`` or ``:desc``."""

    def schema(self, p: Param) -> dict[str, Any]:
        directions = "|".join(protocol.SORT_DIRECTIONS)
        return {**super().schema(p), "pattern": f"^({'|'.join(p.choices)})(:({directions}))?$"}

    def read(self, p: Param, value: Any, limits: Limits) -> str:
        text = value.strip() if isinstance(value, str) else ""
        key, colon, direction = text.partition(":")
        if key not in p.choices or (colon and direction not in protocol.SORT_DIRECTIONS):
            raise InvalidRequest(f"{p.name} must be one of {', '.join(p.choices)}, optionally "
                                 "followed by :asc or :desc")
        return text


class Choices(Kind):
    """Some of ``choices``: a comma list in text, or a list."""

    def read(self, p: Param, value: Any, limits: Limits) -> frozenset[str]:
        parts = value.split(",") if isinstance(value, str) else value
        if not isinstance(parts, (list, tuple, set, frozenset)) \
                or not all(isinstance(x, str) for x in parts):
            raise InvalidRequest(f"{p.name} accepts a comma list of {', '.join(p.choices)}")
        chosen = frozenset(x.strip() for x in parts if x.strip())
        unknown = sorted(chosen - set(p.choices))
        if unknown:
            raise InvalidRequest(f"{p.name} accepts {', '.join(p.choices)}; got "
                                 f"{unknown[0][:40]!r}")
        return chosen

    def encode(self, value: Any) -> str | None:
        if value is None or isinstance(value, str):
            return value or None
        return ",".join(sorted(value)) or None


def _json(p: Param, value: Any, problem: str) -> Any:
    """JSON text read (a typed value as it is); nested past Python's limit is refused too."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        raise InvalidRequest(problem) from None


class AccessPath(Kind):
    """Access keys from a detail's ``children``: a JSON array in text, or a list."""

    ts = "AccessKey[]"

    def read(self, p: Param, value: Any, limits: Limits) -> tuple[str, ...]:
        keys = _json(p, value, f"{p.name} must be a JSON array of access keys")
        if not isinstance(keys, (list, tuple)) or not all(isinstance(k, str) for k in keys):
            raise InvalidRequest(f"{p.name} must be a JSON array of access keys (strings)")
        if len(keys) > _resolve(p.max, limits):
            raise InvalidRequest(f"{p.name} is deeper than {p.max} levels")
        if any(len(k) > MAX_ACCESS_KEY_LENGTH for k in keys):
            raise InvalidRequest(f"{p.name}: an access key is longer than {MAX_ACCESS_KEY_LENGTH} "
                                 "characters")
        return tuple(keys)

    def body_schema(self, p: Param) -> dict[str, Any]:
        return {"type": "array", "maxItems": p.max,
                "items": {"type": "string", "maxLength": MAX_ACCESS_KEY_LENGTH}}

    def encode(self, value: Any) -> str | None:
        return None if value is None else json.dumps(list(value))


@dataclass(frozen=True)
class Columns:
    """Column positions: ``listed``, else ``start`` to ``stop`` (None: the last)."""

    listed: tuple[int, ...] | None = None
    start: int = 0
    stop: int | None = None

    @property
    def count(self) -> int | None:
        """How many columns are asked (None: to the last)."""
        if self.listed is not None:
            return len(self.listed)
        return None if self.stop is None else self.stop - self.start


class ColumnRange(Kind):
    """``start:stop`` (a range) or ``0,3,7`` (a list) of positions, at most ``max``
    columns (a list of integers typed); absent: the first ``max``, or every column when
    the parameter's ``default`` is ``Columns()``."""

    def absent(self, p: Param, limits: Limits) -> Columns:
        if isinstance(p.default, Columns):
            return p.default
        return Columns(None, 0, int(_resolve(p.max, limits)))

    def read(self, p: Param, value: Any, limits: Limits) -> Columns:
        width = int(_resolve(p.max, limits))
        text = value.strip() if isinstance(value, str) else ""
        problem = (f"{p.name} must be a range of column positions like 0:20 or a list like "
                   f"0,3,7 (at most {width} columns), got {_got(value)}")
        if isinstance(value, (list, tuple)):
            if not value or not all(type(x) is int for x in value):
                raise InvalidRequest(problem)
            text = ",".join(str(x) for x in value)
        try:
            if ":" in text:
                first, _, last = text.partition(":")
                start = int(first) if first.strip() else 0
                stop = int(last) if last.strip() else start + width
                if start < 0 or stop < start or stop - start > width:
                    raise InvalidRequest(problem)
                return Columns(None, start, stop)
            listed = tuple(int(part) for part in text.split(","))
        except ValueError:
            raise InvalidRequest(problem) from None
        if not listed or len(listed) > width or min(listed) < 0:
            raise InvalidRequest(problem)
        return Columns(listed, 0, 0)

    def body_schema(self, p: Param) -> dict[str, Any]:
        return {"anyOf": [{"type": "string"},
                          {"type": "array", "items": {"type": "integer", "minimum": 0}}]}

    def encode(self, value: Any) -> str | None:
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, range) and value.step == 1:
            return f"{value.start}:{value.stop}"
        return ",".join(str(int(c)) for c in value)


class SortKeys(Kind):
    """A table's sort keys: ``price:desc,region:asc`` (keys split at commas, each at its
    last colon; ``:asc`` by default), or a JSON list ``[{"column": "a,b", "desc": true}]``
    (text or a list) for names that hold commas or colons."""

    ts = "string"
    length = True

    def read(self, p: Param, value: Any, limits: Limits) -> list[Any]:
        high = int(_resolve(p.max, limits))
        if isinstance(value, str) and len(value) > high:
            raise InvalidRequest(f"{p.name} must be at most {high:,} characters")
        if isinstance(value, str) and not value.lstrip().startswith("["):
            return self._text(p, value)
        keys = _json(p, value, f'{p.name} must be a list of columns like price:desc,region:asc '
                     f'or a JSON list like [{{"column": "price", "desc": true}}]')
        if not isinstance(keys, (list, tuple)):
            raise InvalidRequest(f'{p.name} as JSON is a list of {{"column", "desc"}}')
        return list(keys)

    @staticmethod
    def _text(p: Param, text: str) -> list[Any]:
        keys = []
        for part in text.split(","):
            column, _, direction = part.strip().rpartition(":")
            if not part.strip() or (not column and direction in protocol.SORT_DIRECTIONS):
                raise InvalidRequest(f"{p.name} must name a column in each key, like "
                                     f"price:desc,region:asc (got {text[:60]!r})")
            keys.append(protocol.parse_sort(part.strip()).to_json())
        return keys

    def body_schema(self, p: Param) -> dict[str, Any]:
        return {"anyOf": [{"type": "string", "maxLength": p.max},
                          {"$ref": "#/components/schemas/View/properties/sort"}]}

    def encode(self, value: Any) -> str | None:
        return value if value is None or isinstance(value, str) else json.dumps(list(value))


class FilterTree(Kind):
    """A table's filter: one condition ``{"column", "op", "value"?, "case"?}`` or a tree
    ``{"and": [...]}`` / ``{"or": [...]}`` — JSON text, or the object — at most ``max``
    characters of JSON (checked by ``View.from_json`` with the sort)."""

    ts = "FilterNode"
    length = True

    def read(self, p: Param, value: Any, limits: Limits) -> Any:
        high = int(_resolve(p.max, limits))
        size = len(value) if isinstance(value, str) else len(_dumps(value))
        if size > high:
            raise InvalidRequest(f"{p.name} must be at most {high:,} characters of JSON")
        return _json(p, value, f'{p.name} must be JSON: a condition like {{"column": "price", '
                     f'"op": "gt", "value": 10}} or a tree like {{"or": [<condition>, ...]}}; '
                     "ops: " + ", ".join(protocol.FILTER_OPS))

    def body_schema(self, p: Param) -> dict[str, Any]:
        return {"$ref": "#/components/schemas/FilterNode"}

    def encode(self, value: Any) -> str | None:
        return value if value is None or isinstance(value, str) else json.dumps(value)


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        raise InvalidRequest("filter must be a JSON object") from None


class VariableName(Kind):
    query_schema = {"type": "string", "maxLength": protocol.MAX_NAME}

    def read(self, p: Param, value: Any, limits: Limits) -> str:
        return validate_name(value)


class Note(Kind):
    """A variable's note, the body of ``PUT annotation`` (see ``parse_annotation``)."""

    ts = "IAnnotationUpdate"

    def absent(self, p: Param, limits: Limits) -> dict[str, Any]:
        return parse_annotation(b"{}")

    def read(self, p: Param, value: Any, limits: Limits) -> dict[str, Any]:
        return parse_annotation(value if isinstance(value, (bytes, str)) else _dumps(value))

    def body_schema(self, p: Param) -> dict[str, Any]:
        text = {"type": ["string", "null"], "maxLength": MAX_FIELD_CHARS}
        return {"type": "object", "additionalProperties": False, "properties": {
            "description": text, "constraints": text, "hidden_from_prompt": {"type": "boolean"}}}


class Opaque(Kind):
    """Text taken as it is (an id the service looks up)."""

    def read(self, p: Param, value: Any, limits: Limits) -> str:
        if not isinstance(value, str):
            raise InvalidRequest(f"{p.name} must be text, got {_got(value)}")
        return value


INTEGER, BOOLEAN, FLAG, TEXT = Integer(), Boolean(), Flag(), Text()
CHOICE, ORDER, CHOICES, PATH = Choice(), Order(), Choices(), AccessPath()
COLUMNS, SORT_KEYS, FILTER = ColumnRange(), SortKeys(), FilterTree()
NAME, OPAQUE, NOTE = VariableName(), Opaque(), Note()
