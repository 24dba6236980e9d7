"""The R language support without a kernel: requests travel as data, replies are found."""

from __future__ import annotations

import base64
import json
import re

import pytest

from jupyter_kernel_state.errors import ProbeFailed, ProbeMissing
from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.service.languages import for_language, r


def test_names_never_become_code() -> None:
    hostile = 'x"); system("touch /tmp/pwned"); ("'
    code = r.call_code({"op": "detail", "name": hostile, "path": ["n:`rm`"]})
    assert "system" not in code and "pwned" not in code and "`" not in code
    payload = re.search(r'p\$call\("([A-Za-z0-9+/=]*)"\)', code)
    assert payload is not None
    assert json.loads(base64.b64decode(payload[1]))["name"] == hostile
    assert code.isascii() and r.install_code().isascii()
    # The probe assigns into .GlobalEnv nowhere (its own environment, an option).
    assert not re.search(r"assign\([^)]*globalenv\(\)", r.probe_source())


def test_reply_from_outputs() -> None:
    support = r.SUPPORT
    display = {"msg_type": "display_data",
               "content": {"data": {r.REPLY_MIME: '{"ok": true, "total": 3}'}}}
    assert support.parse_reply({"status": "ok"}, [display]) == {"ok": True, "total": 3}
    marked = {"msg_type": "stream", "content": {"text": r.REPLY_MARKER + '{"total": 1}\n'}}
    assert support.parse_reply({"status": "ok"}, [marked]) == {"total": 1}
    missing = {"content": {"data": {r.REPLY_MIME: '{"missing":true}'}}}
    with pytest.raises(ProbeMissing):
        support.parse_reply({"status": "ok"}, [missing])
    with pytest.raises(ProbeFailed, match="no reply"):
        support.parse_reply({"status": "ok"}, [])
    with pytest.raises(ProbeFailed, match="not JSON"):
        support.parse_reply({}, [{"content": {"data": {r.REPLY_MIME: "{"}}}])


def test_dispatch_by_language() -> None:
    assert for_language("R") is r.SUPPORT and for_language("r") is r.SUPPORT
    assert for_language("Python") is not None and for_language("julia") is None


@pytest.mark.parametrize(
    ("name", "valid"),
    [("x", True), ("my.df", True), (".x", True), (".", True), ("a_b.c", True),
     ("x\n", False), ("..1", False), (".1a", False), ("_x", False), ("if", False),
     ("x y", False), ("", False), ("TRUE", False)],
)
def test_r_names(name: str, valid: bool) -> None:
    assert r.is_r_name(name) is valid


def test_the_spec_travels_whole() -> None:
    """The R probe reads protocol.OPERATIONS itself (shipped at install): every operation,
    field, type, default, bound, clamp and choice, and the protocol's constants."""
    spec = json.loads(r.spec_json())
    assert list(spec["operations"]) == list(protocol.OPERATIONS)
    for name, operation in protocol.OPERATIONS.items():
        shipped = spec["operations"][name]
        assert [f["name"] for f in shipped] == [f.name for f in operation.fields]
        for f, s in zip(operation.fields, shipped, strict=True):
            default = f.default.to_json() if hasattr(f.default, "to_json") else f.default
            assert s == {"name": f.name, "type": f.type, "default": (
                list(default) if isinstance(default, tuple) else default),
                "required": f.required, "nullable": f.nullable, "min": f.min, "max": f.max,
                "clamp": f.clamp, "choices": list(f.choices)}
    for constant in ("MAX_SORT_KEYS", "FILTER_OPS", "NO_VALUE_OPS", "CASE_OPS", "RANGE_OPS",
                     "LIST_OPS", "MAX_FILTER_ITEMS", "MAX_FILTER_DEPTH",
                     "MAX_FILTER_CONDITIONS", "MAX_COLUMN_NAME", "MAX_FILTER_VALUE",
                     "FILTER_COMBINATORS", "SORT_DIRECTIONS", "MAX_COLUMN_POSITION"):
        value = getattr(protocol, constant)
        assert spec["constants"][constant] == (list(value) if isinstance(value, tuple)
                                              else value), constant
    assert spec["refusals"] == list(protocol.REFUSALS)
    assert base64.b64encode(r.spec_json().encode()).decode() in r.install_code()
    # No bounds of its own: the R sources check fields only through the spec.
    source = r.probe_source()
    assert not re.search(r"int_arg|MAX_LIMIT|MAX_PREVIEW|MAX_GUARD_MS|ROWS_MAX", source)
    handled = set(re.findall(r"^  (\w+) = function\(fields, ec\)", source, re.M))
    assert handled <= set(protocol.OPERATIONS)
    assert r.SUPPORT.operations <= handled
