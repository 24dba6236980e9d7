"""Execution results by their handle (``_<n>``, IPython's ``Out[n]``): the table ops reach
them, other underscore internals stay unreachable, a missing result says it is gone."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.namespace.visibility import is_internal, is_output

frame = pd.DataFrame({"price": [3.0, 9.0, 1.0]})
NS = {"_3": frame, "_i3": "frame", "_0": frame, "_03": frame, "_": frame, "Out": {3: frame}}


@pytest.mark.parametrize(("name", "output"), [
    ("_3", True), ("_12", True), ("_999999999", True), ("_1000000000", False),
    ("_0", False), ("_03", False), ("_i3", False), ("_", False), ("__3", False),
    ("_3a", False), ("x_3", False),
])
def test_output_handles(name: str, output: bool) -> None:
    assert is_output(name) is output
    if output:
        assert is_internal(name)  # still hidden from the list


def op(name: str, which: str = "rows", **fields: Any) -> dict[str, Any]:
    return entry.dispatch({"op": which, "name": name, **fields}, NS)


def test_a_result_is_read_sorted_by_its_handle() -> None:
    reply = op("_3", view={"sort": [{"column": "price", "desc": True}]})
    assert [row[0] for row in reply["rows"]["rows"]] == ["9.0", "3.0", "1.0"]
    assert "profile" in op("_3", "profile")


@pytest.mark.parametrize(("name", "message"), [
    ("_5", "The output _5 is gone: deleted, or past IPython's output cache"),
    ("_i3", "Variable not found: _i3"),
    ("_0", "Variable not found: _0"),
    ("_", "Variable not found: _"),
])
def test_what_is_not_a_live_result_is_not_found(name: str, message: str) -> None:
    reply = op(name)
    assert reply == {"ok": False, "not_found": True, "error": message}
