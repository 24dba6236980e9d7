"""Lineage in ``GET variables/{name}/timeline`` (``defined_in``, ``used_in``, ``unknown``)
against a real server and real kernels: cells sent with their notebook cell ids as
JupyterLab sends them, local and behind a Kernel Gateway; an R kernel answers without
the fields."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import BOTH_BACKENDS
from .kernel_utils import get_json, status_of, validate
from .test_r_kernel import IR_SPEC_DIR, ir_kernelspec  # noqa: F401 (the `ir` kernelspec)

pytestmark = [pytest.mark.kernel]


async def timeline(jp_fetch, kernel, name: str, **params: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                             "timeline", params=params)
    validate(payload, "Timeline")
    return payload  # type: ignore[no-any-return]


def cells(entries: list[dict[str, Any]], *keys: str) -> list[tuple[Any, ...]]:
    return [tuple(e[k] for k in ("cell_id", *keys)) for e in entries]


@BOTH_BACKENDS
async def test_lineage_of_a_notebook_session(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    session = [
        ("load", "import json\nraw = '[1, 2, 3]'\ndata = json.loads(raw)"),
        ("grow", "data += [4]"),
        ("fn", "def total():\n    return sum(data)\n"),
        ("use", "answer = total() + len(data)"),
        ("broken", "oops = ("),
        ("dyn", "globals()['made'] = data[0]"),
        ("comp", "doubled = [item * 2 for item in data]"),
    ]
    for cell_id, code in session:
        reply = await kernel.run(code, cell_id=cell_id)
        assert reply["status"] == ("error" if cell_id == "broken" else "ok"), reply
    data = await timeline(jp_fetch, kernel, "data")
    assert cells(data["defined_in"], "execution_count", "kind") == [
        ("load", 1, "bound"), ("grow", 2, "changed")]
    assert data["defined_in"][0]["code"].startswith("import json\n")
    assert cells(data["used_in"], "in_function") == [
        ("grow", False), ("fn", True), ("use", False), ("dyn", False), ("comp", False)]
    assert cells(data["unknown"], "reasons") == [("dyn", ["globals()"])]
    assert cells(data["not_analysed"]) == [("broken",)]
    assert data["not_analysed"][0]["reason"].startswith("not analysed: invalid syntax")
    assert data["lineage_totals"] == {"defined_in": 2, "used_in": 5, "unknown": 1,
                                      "not_analysed": 1}
    assert data["lineage_complete_after"] is None
    # the change timeline is unchanged beside it
    assert [e["execution_count"] for e in data["entries"]] == [1, 2]
    # comprehension variables are local: never recorded
    assert await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "item",
                           "timeline") == (404, "Variable not found: item")
    # a name bound dynamically is still told where the dynamic access was
    made = await timeline(jp_fetch, kernel, "made")
    assert made["defined_in"] == [] and cells(made["unknown"]) == [("dyn",)]
    # the latest lineage_limit of each list; the totals count them all
    short = await timeline(jp_fetch, kernel, "data", lineage_limit="2")
    assert cells(short["used_in"]) == [("dyn",), ("comp",)]
    assert short["lineage_totals"]["used_in"] == 5
    # the list of what one cell bound or read (the sidebar's "used by the active cell")
    used = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                          params={"used_by_cell": "use"})
    assert [v["name"] for v in used["variables"]] == ["answer", "data"]
    assert used["matched"] == 2 and used["total"] == 5  # raw, data, answer, made, doubled
    with_functions = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                                    params={"used_by_cell": "use", "include": "callables"})
    assert [v["name"] for v in with_functions["variables"]] == ["answer", "data", "total"]
    page = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                          params={"used_by_cell": "use", "limit": "1", "offset": "1"})
    assert [v["name"] for v in page["variables"]] == ["data"] and page["matched"] == 2
    for cell_id in ("broken", "never-ran"):
        none = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                              params={"used_by_cell": cell_id})
        assert none["variables"] == [] and none["matched"] == 0
    assert (await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables",
                            used_by_cell="use", delta="true", since="1"))[0] == 400
    assert (await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables",
                            used_by_cell="x" * 257))[0] == 400


async def test_lineage_limit_bounds(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    for i in range(3):
        await kernel.run(f"a = {i}")
    assert len((await timeline(jp_fetch, kernel, "a", lineage_limit="1"))["defined_in"]) == 1
    clamped = await timeline(jp_fetch, kernel, "a", lineage_limit="101")  # clamps, as limit
    assert len(clamped["defined_in"]) == 3
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "a",
                                    "timeline", lineage_limit="0")
    assert code == 400 and "lineage_limit" in message, message


@pytest.mark.skipif(IR_SPEC_DIR is None, reason="no IRkernel kernelspec `ir`")
async def test_an_r_timeline_has_no_lineage_fields(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel("ir")
    await kernel.run("a <- 1")
    answer = await timeline(jp_fetch, kernel, "a")
    assert answer["entries"] and "defined_in" not in answer and "used_in" not in answer
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables",
                                    used_by_cell="c1")
    assert code == 501 and "used_by_cell" in message, message
