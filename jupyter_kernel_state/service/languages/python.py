"""Python kernels (IPython): the probe package shipped as source, called through
``user_expressions`` whose ``text/plain`` is the JSON reply (see ``probe_loader``)."""

from __future__ import annotations

import keyword
from typing import Any

from ...errors import InvalidRequest
from .. import probe_loader
from . import ProbeCall

EXPRESSION_KEY = "r"


class PythonSupport:
    display_name = "python"
    needs_execution_count = False
    operations = frozenset({"digest", "rows", "count", "profile", "findings", "compare", "code",
                            "delete", "timeline", "keep", "kept", "drop_kept"})

    def install_call(self) -> ProbeCall:
        return ProbeCall("", {EXPRESSION_KEY: probe_loader.install_expression()})

    def install_error(
        self, content: dict[str, Any], outputs: list[dict[str, Any]]
    ) -> str | None:
        return probe_loader.install_error(
            (content.get("user_expressions") or {}).get(EXPRESSION_KEY))

    def probe_call(self, request: dict[str, Any]) -> ProbeCall:
        return ProbeCall("", {EXPRESSION_KEY: probe_loader.call_expression(request)})

    def parse_reply(
        self, content: dict[str, Any], outputs: list[dict[str, Any]]
    ) -> dict[str, Any]:
        entry = (content.get("user_expressions") or {}).get(EXPRESSION_KEY)
        return probe_loader.parse_reply(entry or {})

    def check_name(self, name: str) -> None:
        if not name.isidentifier() or keyword.iskeyword(name):
            raise InvalidRequest(f"Invalid variable name: {name[:80]!r} is not a Python identifier")


SUPPORT = PythonSupport()
