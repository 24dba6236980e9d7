"""verify_* helpers for the probe case tables."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any

import jsonschema

from jupyter_kernel_state.probe import summarize
from jupyter_kernel_state.probe.inspect.fragments import SERVER_KEYS, VARIABLE_KEYS

_SCHEMA = json.loads(
    resources.files("jupyter_kernel_state").joinpath("schema/rest-v1.json").read_text()
)


def _probe_defs() -> dict[str, Any]:
    """The REST schema's definitions, requiring only the fields the probe produces (the
    server adds its own, e.g. secret masking, and always sets the annotation fields
    ``SERVER_KEYS``, which a snapshot's variables leave out)."""
    defs = json.loads(json.dumps(_SCHEMA["$defs"]))
    variable = defs["Variable"]
    variable["required"] = [k for k in variable["required"] if k in VARIABLE_KEYS and k not in SERVER_KEYS]
    return defs


_DEFS = _probe_defs()


def validate(payload: Any, definition: str) -> None:
    jsonschema.validate(payload, {"$ref": f"#/$defs/{definition}", "$defs": _DEFS})


def check_fields(summary: dict[str, Any], expected: dict[str, Any]) -> None:
    for key, want in expected.items():
        got = summary[key]
        if callable(want):
            assert want(got), f"{key}: {got!r}"
        else:
            assert got == want, f"{key}: {got!r} != {want!r}"


def verify_summary(
    value: Any, expected: dict[str, Any], *, preview_chars: int = 200, time_guard_ms: int = 100
) -> dict[str, Any]:
    """Summarize ``value`` and check the contract plus the ``expected`` fields
    (a value, or a predicate on the field)."""
    s = summarize("v", value, preview_chars=preview_chars, time_guard_ms=time_guard_ms)
    assert tuple(s) == VARIABLE_KEYS
    validate(s, "Variable")
    assert len(s["preview"]) <= preview_chars
    json.dumps(s, allow_nan=False)
    check_fields(s, expected)
    return s


def contains(text: str) -> Callable[[Any], bool]:
    return lambda got: isinstance(got, str) and text in got


def startswith(text: str) -> Callable[[Any], bool]:
    return lambda got: isinstance(got, str) and got.startswith(text)


def at_most(n: int) -> Callable[[Any], bool]:
    return lambda got: isinstance(got, str) and len(got) <= n
