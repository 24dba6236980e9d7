"""The parameters of the REST routes: what each value may be, read the same whoever sent it.

A parameter has a kind (``kinds.py``: how text and typed values are read), a default and
bounds. Absent, ``null`` and empty text all mean the default. Bounds are numbers or
:class:`~.bounds.Setting` (a server setting, named by its ``KernelStateApp`` trait); below
the minimum is refused, above the maximum is clamped when ``clamp`` (a page size, a
character cap: asking more than allowed gets what is allowed) and refused otherwise (a
position: clamping it would answer another question).

Where a parameter is the kernel edge's own field, :func:`field_param` reads its type,
choices, bounds and doc from ``probe/protocol.py`` (overrides say where REST differs).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..probe import protocol
from ..service.limits import Limits
from .bounds import Bound, Setting
from .kinds import BOOLEAN, CHOICE, CHOICES, INTEGER, NAME, ORDER, PATH, TEXT, Kind

#: The kind of each protocol field type a REST parameter can reuse.
_KINDS: dict[str, Kind] = {
    protocol.INT: INTEGER, protocol.BOOL: BOOLEAN, protocol.TEXT: TEXT,
    protocol.CHOICE: CHOICE, protocol.ORDER: ORDER, protocol.CHOICES: CHOICES,
    protocol.PATH: PATH, protocol.NAME: NAME,
}


@dataclass(frozen=True)
class Param:
    """One parameter of a route: where it travels (``path``, ``query``; a route with a
    body takes its query parameters in the body too), its kind, default and bounds."""

    name: str
    kind: Kind
    doc: str
    where: str = "query"
    default: Any = None
    min: Bound = None
    max: Bound = None
    clamp: bool = False
    choices: tuple[str, ...] = ()

    def read(self, value: Any, limits: Limits) -> Any:
        """The value of this parameter from ``value`` (text or typed; None: absent)."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return self.kind.absent(self, limits)
        return self.kind.read(self, value, limits)

    def schema(self) -> dict[str, Any]:
        """The OpenAPI schema of the value as a query string carries it."""
        return self.kind.schema(self)

    def description(self) -> str:
        """The doc, and the server settings that bound it (by their trait names)."""
        parts = [self.doc] if self.doc else []
        if isinstance(self.default, Setting):
            parts.append(f"Default: the server's {self.default}.")
        if isinstance(self.max, Setting):
            parts.append(f"{'Clamped to' if self.clamp else 'At most'} the server's "
                         f"{self.max}.")
        elif isinstance(self.max, int) and self.clamp:
            parts.append(f"Clamped to {self.max:,}.")
        return " ".join(parts)

    def typescript(self) -> str:
        return self.kind.ts


def field_param(op: str, name: str, doc: str | None = None, **changes: Any) -> Param:
    """The REST parameter of the protocol's field ``op.name`` (its type, choices, default,
    bounds and doc), with ``changes`` where the REST edge differs (a bound the server sets,
    a name the REST contract spells otherwise)."""
    f = protocol.OPERATIONS[op].field(name)
    kind = _KINDS[f.type]
    default = None if f.default in ((), protocol.EMPTY_VIEW) else f.default
    param = Param(
        name=f.name, kind=kind, doc=f.doc if doc is None else doc, default=default,
        min=f.min if isinstance(f.min, int) else None,
        max=f.max if isinstance(f.max, int) else None,
        clamp=f.clamp, choices=tuple(f.choices),
    )
    return replace(param, **changes)


def literal_union(choices: Iterable[str]) -> str:
    """``'a' | 'b'``: the TypeScript type of a choice."""
    return " | ".join(f"'{c}'" for c in choices)
