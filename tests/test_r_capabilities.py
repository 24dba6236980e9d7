"""The R probe's declaration at ``ping`` (written out in ``probe_r/entry.R``) matches what
it answers, and the server acts on it: real IRkernel kernels behind a real server."""

from __future__ import annotations

import re

import pytest

from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.service.languages import r

from .conftest import server_config
from .kernel_utils import UserClient, get_json, status_of
from .test_r_kernel import IR_SPEC_DIR, ir_kernelspec  # noqa: F401 (autouse: the `ir` kernelspec)
from .test_r_protocol import raw_call

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(IR_SPEC_DIR is None,
                       reason="no IRkernel kernelspec `ir` (run scripts/setup.sh)"),
]

#: The R probe's environment in the kernel (never in the user's).
PROBE = 'base::getOption("jupyter_kernel_state.probe")'


@pytest.fixture
def jp_server_config(gateway_url):  # type: ignore[no-untyped-def]
    # These tests change the probe and count its requests: on a loaded machine the early
    # install (an R kernel starting) must not run past its deadline and be answered late.
    return server_config(gateway_url, KernelStateApp={"probe_timeout": 30.0})


async def change_probe(jp_fetch, kernel: UserClient, change: str) -> None:  # type: ignore[no-untyped-def]
    """Change the probe in the kernel (``change`` uses ``p``), give it a new probe id, and
    let the server notice it (its next reply)."""
    reply = await kernel.run(f"base::local({{ p <- {PROBE}; {change}; "
                             'p$state$probe_id <- base::paste0(p$state$probe_id, "+") })')
    assert reply["status"] == "ok", reply
    before = kernel.state.probe_id
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert kernel.state.probe_id not in (None, before)


async def test_r_declares_exactly_what_it_answers(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    rk: UserClient = await new_kernel("ir")
    declared = (await raw_call(rk, {"op": "ping"}))["operations"]
    assert {"ping", "snapshot", "detail", "rows"} <= set(declared) <= set(protocol.OPERATIONS)
    assert "digest" not in declared
    for op in protocol.OPERATIONS:
        fields = {n: "x" for n in ("name", "with") if n in protocol.OPERATIONS[op].by_name}
        reply = await raw_call(rk, {"op": op, **fields})
        assert (reply.get("unsupported") is True) is (op not in declared), (op, reply)
    # Each declared field is an optional field of the operation that the R source reads,
    # or one that bounds a field it reads (check.R applies it: rows' max_rows).
    source = r.probe_source()
    read = set(re.findall(r"fields\$(\w+)", source))
    for op, names in declared.items():
        operation = protocol.OPERATIONS[op]
        bounds = {f.max for f in operation.fields} | {f.min for f in operation.fields}
        for name in names:
            assert name in operation.by_name and not operation.field(name).required, (op, name)
            assert name in read or name in bounds, (op, name)
    assert "changed_in" in declared["snapshot"] and "delta" not in declared["snapshot"]


async def test_the_server_takes_r_at_its_word(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """Declared: what it says. A probe that stops declaring timeline and changed_in (R
    still has both) gets 501s for them without being asked to run them."""
    kernel: UserClient = await new_kernel("ir")
    await kernel.ready()
    # The early install's ping has told (or, on a loaded machine past its deadline, the
    # first request asks): either way what the probe declared.
    await kernel.state.probe.capabilities()
    declared = kernel.state.probe.declared()
    assert declared is not None and declared.declared
    assert declared.has("timeline") and not declared.has("digest")
    assert declared.applies("snapshot", "changed_in") is True
    await kernel.run("a <- 1")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "a",
                                    "kept")
    assert code == 501 and "has no kept operation" in message, message
    assert (await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "a",
                            "timeline"))[0] == 200
    await change_probe(jp_fetch, kernel, "p$DECLARED$timeline <- NULL; "
                       'p$DECLARED$snapshot <- p$DECLARED$snapshot[p$DECLARED$snapshot != '
                       '"changed_in"]')
    before = kernel.state.probe_requests
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "a",
                                    "timeline")
    assert code == 501 and "has no timeline operation" in message, message
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables",
                                    changed_in="1")
    assert code == 501 and "does not apply it" in message, message
    assert kernel.state.probe_requests == before + 1  # the one ping


async def test_an_r_probe_that_declares_nothing_works_as_before(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel: UserClient = await new_kernel("ir")
    await kernel.ready()
    await change_probe(jp_fetch, kernel, "p$HANDLERS$ping <- function(fields, ec) list()")
    await kernel.run("a <- 1\nb <- 2")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    await kernel.run("b <- 3")
    page = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    listed = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                            params={"changed_in": str(page["execution_count"])})
    declared = kernel.state.probe.declared()
    assert declared is not None and not declared.declared
    assert [v["name"] for v in listed["variables"]] == ["b"]  # proven by its reply
    assert declared.operations == r.SUPPORT.operations | {"ping", "snapshot", "detail"}
    assert (await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "b",
                            "timeline"))[0] == 200
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "a",
                                    "kept")
    assert code == 501 and "not available for R kernels" in message, message
