"""changed_in on an R kernel: its probe applies it and says so, so the answer lists the
names bound or changed at that execution -- never every name looking filtered."""

from __future__ import annotations

import pytest

from .test_r_kernel import IR_SPEC_DIR, ir_kernelspec, r_kernel, variables  # noqa: F401

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(IR_SPEC_DIR is None,
                       reason="no IRkernel kernelspec `ir` (run scripts/setup.sh)"),
]


async def test_changed_in_on_r_is_applied(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run("a <- 1\nb <- 2")
    listed = await variables(jp_fetch, kernel)  # the probe sees both at execution 1
    assert {v["name"] for v in listed["variables"]} == {"a", "b"}
    assert listed["matched"] == listed["total"] == 2
    await kernel.run("b <- 3")
    await variables(jp_fetch, kernel)  # and b changed at execution 2
    second = await variables(jp_fetch, kernel, changed_in="2")
    assert [v["name"] for v in second["variables"]] == ["b"]
    assert second["matched"] == 1 and second["total"] == 2
    first = await variables(jp_fetch, kernel, changed_in="1")
    assert [v["name"] for v in first["variables"]] == ["a"]
    none = await variables(jp_fetch, kernel, changed_in="7")
    assert none["variables"] == [] and none["matched"] == 0 and none["total"] == 2
