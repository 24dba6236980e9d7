"""changed_in on an R kernel: its probe does not apply it yet (it would list every name),
so the answer is a 501 saying so, never a list that only looks filtered."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from .test_r_kernel import IR_SPEC_DIR, ir_kernelspec, r_kernel, variables  # noqa: F401

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(IR_SPEC_DIR is None,
                       reason="no IRkernel kernelspec `ir` (run scripts/setup.sh)"),
]


async def test_changed_in_on_r_is_refused_not_ignored(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run("a <- 1\nb <- 2")
    await kernel.run("b <- 3")
    listed = await variables(jp_fetch, kernel)
    assert {v["name"] for v in listed["variables"]} == {"a", "b"}
    assert listed["matched"] == listed["total"] == 2
    with pytest.raises(HTTPClientError) as refused:
        await variables(jp_fetch, kernel, changed_in="2")
    assert refused.value.code == 501
    assert "changed_in is not available for R kernels" in json.loads(
        refused.value.response.body)["message"]
