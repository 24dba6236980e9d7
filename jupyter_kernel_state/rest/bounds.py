"""Bounds and defaults a route's parameter takes from the server's configuration."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..service.limits import Limits


@dataclass(frozen=True)
class Setting:
    """A bound or default the server's configuration sets: the ``KernelStateApp`` trait
    ``name``, read from the service's ``Limits``."""

    name: str
    read: Callable[[Limits], int] = field(compare=False)

    def __call__(self, limits: Limits) -> int:
        return self.read(limits)

    def __str__(self) -> str:
        return f"`{self.name}` ({self.read(Limits()):,})"


def setting(name: str) -> Setting:
    """The trait ``name``, a field of ``Limits`` of the same name."""
    return Setting(name, lambda limits: int(getattr(limits, name)))


Bound = int | Setting | None


def resolve(bound: Any, limits: Limits) -> Any:
    """A bound's value: a number as it is, a setting read from ``limits``."""
    return bound(limits) if isinstance(bound, Setting) else bound
