"""R kernels (IRkernel): the probe's R source shipped once per kernel, its reply published
as output of our own silent request.

IRkernel answers every ``user_expressions`` with ``{}`` and drops all output of a silent
request except what goes through its display function (``jupyter.base_display_func``,
which IRdisplay uses): the probe publishes its JSON reply there as one ``display_data``
of MIME type ``REPLY_MIME`` whose parent is our request. The server collects it from IOPub
(``KernelConnection.execute_collecting``); every IOPub listener ignores messages whose
parent is one of our requests, and notebooks only show outputs of their own requests.
A silent request also leaves ``.Last.value`` alone (IRkernel sets it only when not silent).
"""

from __future__ import annotations

import base64
import functools
import json
import re
from importlib import resources
from typing import Any

from ...errors import InvalidRequest, ProbeFailed, ProbeMissing
from ...probe import protocol
from . import ProbeCall

#: The probe's files, evaluated in this order into one private environment.
PROBE_FILES = ("json.R", "probe.R", "check.R", "tracking.R", "snapshot.R", "detail.R",
               "filter.R", "rows.R", "code.R", "profile.R",
               "entry.R")
OPTION = "jupyter_kernel_state.probe"
REPLY_MIME = "application/x-jupyter-kernel-state"
REPLY_MARKER = "@@jupyter_kernel_state_reply@@ "
MAX_ERROR_CHARS = 200
_MISSING = '{"missing":true}'

# Syntactic R names; reserved words are not variables.
_R_NAME = re.compile(r"(?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*\Z|\.\Z")
_RESERVED = frozenset({
    "if", "else", "repeat", "while", "function", "for", "next", "break", "in", "TRUE",
    "FALSE", "NULL", "Inf", "NaN", "NA", "NA_integer_", "NA_real_", "NA_character_",
    "NA_complex_", "...",
})


def is_r_name(name: str) -> bool:
    return bool(_R_NAME.match(name)) and name not in _RESERVED and not re.match(r"\.\.\d", name)


def probe_source() -> str:
    package = resources.files("jupyter_kernel_state.probe_r")
    return "\n".join((package / f).read_text(encoding="ascii") for f in PROBE_FILES)


def _plain(value: Any) -> Any:
    """A spec value as JSON: views as their JSON, tuples as lists."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _constant(value: Any) -> bool:
    kinds = (int, str)
    return type(value) in kinds or (
        type(value) is tuple and all(type(v) in kinds for v in value))


@functools.lru_cache(maxsize=1)
def spec_json() -> str:
    """``probe/protocol.py`` as the R probe reads it (check.R): every operation's fields
    (type, default, bounds, clamp, choices), the module's constants (its upper-case
    names: bounds, the filter's ops ...) and the refusal kinds."""
    operations = {
        op.name: [
            {"name": f.name, "type": f.type, "default": _plain(f.default),
             "required": f.required, "nullable": f.nullable, "min": f.min, "max": f.max,
             "clamp": f.clamp, "choices": list(f.choices)}
            for f in op.fields
        ]
        for op in protocol.OPERATIONS.values()
    }
    constants = {name: _plain(value) for name, value in vars(protocol).items()
                 if name.isupper() and _constant(value)}
    return json.dumps({"operations": operations, "constants": constants,
                       "refusals": list(protocol.REFUSALS)},
                      ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def _b64(text: str) -> str:
    # Standard base64: only [A-Za-z0-9+/=], safe inside a double-quoted R string.
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


@functools.lru_cache(maxsize=1)
def install_code() -> str:
    """(Re)installs the probe: a new environment (parent: base), held in an option."""
    return (
        "base::local({\n"
        f'  src <- base::rawToChar(jsonlite::base64_dec("{_b64(probe_source())}"))\n'
        "  env <- base::new.env(parent = base::baseenv())\n"
        "  base::eval(base::parse(text = src, keep.source = FALSE), envir = env)\n"
        # Byte-compiled once here rather than by the JIT during the first calls.
        "  for (f in base::ls(env)) if (base::is.function(env[[f]])) "
        "env[[f]] <- compiler::cmpfun(env[[f]])\n"
        f'  env$install(base::rawToChar(jsonlite::base64_dec("{_b64(spec_json())}")))\n'
        f"  base::options({OPTION} = env)\n"
        "  base::invisible(NULL)\n"
        "}, envir = base::new.env(parent = base::baseenv()))\n"
    )


def call_code(request: dict[str, Any]) -> str:
    """One probe call: the request travels as base64 JSON, never as code."""
    payload = json.dumps(request, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    missing = json.dumps(_MISSING)  # an R string literal too: ASCII, quotes escaped
    return (
        "base::local({\n"
        f"  p <- base::getOption({json.dumps(OPTION)})\n"
        f'  if (base::is.environment(p)) p$call("{_b64(payload)}") else {{\n'
        '    d <- base::getOption("jupyter.base_display_func")\n'
        f"    if (base::is.function(d)) d(base::list({json.dumps(REPLY_MIME)} = {missing}), NULL)\n"
        f"    else base::cat({json.dumps(REPLY_MARKER)}, {missing}, \"\\n\", sep = \"\")\n"
        "  }\n"
        "  base::invisible(NULL)\n"
        "}, envir = base::new.env(parent = base::baseenv()))\n"
    )


def reply_text(outputs: list[dict[str, Any]]) -> str | None:
    """The probe's reply among our request's outputs (a display_data, else a marked line)."""
    for msg in outputs:
        content = msg.get("content") or {}
        data = content.get("data")
        if isinstance(data, dict) and isinstance(data.get(REPLY_MIME), str):
            return str(data[REPLY_MIME])
        text = content.get("text")
        if isinstance(text, str) and REPLY_MARKER in text:
            return text.split(REPLY_MARKER, 1)[1].split("\n", 1)[0]
    return None


class RSupport:
    display_name = "R"
    needs_execution_count = True
    operations = frozenset({"rows", "delete", "timeline", "code", "profile"})

    def install_call(self) -> ProbeCall:
        return ProbeCall(install_code(), collect_output=True)

    def install_error(
        self, content: dict[str, Any], outputs: list[dict[str, Any]]
    ) -> str | None:
        return None  # IRkernel drops a silent request's error: the next call finds out

    def probe_call(self, request: dict[str, Any]) -> ProbeCall:
        return ProbeCall(call_code(request), collect_output=True)

    def parse_reply(
        self, content: dict[str, Any], outputs: list[dict[str, Any]]
    ) -> dict[str, Any]:
        text = reply_text(outputs)
        if text is None:
            # An error in a silent request is dropped by IRkernel: nothing to say but this.
            raise ProbeFailed("the R probe published no reply")
        try:
            reply = json.loads(text)
        except ValueError:
            raise ProbeFailed("probe reply is not JSON") from None
        if not isinstance(reply, dict):
            raise ProbeFailed("probe reply is not an object")
        if reply.get("missing") is True:
            raise ProbeMissing()
        return reply

    def check_name(self, name: str) -> None:
        if not is_r_name(name):
            raise InvalidRequest(f"Invalid variable name: {name[:80]!r} is not an R name")


SUPPORT = RSupport()
