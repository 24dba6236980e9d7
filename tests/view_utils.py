"""A view's parts as the REST contract and the probe take them (``protocol.View``)."""

from __future__ import annotations

from typing import Any


def condition(column: Any, op: str, value: Any = None, case: bool | None = None) -> dict[str, Any]:
    """A filter condition ``{"column", "op", "value"?, "case"?}``: ``value`` left out when
    None (the ops that take none), ``case`` when not given; ``column`` a name or a
    position."""
    out: dict[str, Any] = {"column": column, "op": op}
    if value is not None:
        out["value"] = value
    if case is not None:
        out["case"] = case
    return out
