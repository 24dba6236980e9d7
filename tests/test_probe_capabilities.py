"""What a kernel's probe can do comes from its own declaration (its ``ping`` lists its
operations and the optional fields it applies), read once per probe: real servers, real
ipykernels. The probe in the kernel is changed by a user cell, as an earlier version of
the extension would have left it, and reinstalled (a new probe id) to show that a 501
comes from the declaration, not from the language, and that a probe that declares
nothing still works as before."""

from __future__ import annotations

import pytest

from jupyter_kernel_state.probe import protocol

from .kernel_utils import UserClient, get_json, status_of

pytestmark = pytest.mark.kernel

#: The probe's entry module in the kernel (never in the user namespace).
ENTRY = "__import__('sys').modules['_jupyter_kernel_state_probe.entry']"


async def reinstall(jp_fetch, kernel: UserClient, change: str) -> None:  # type: ignore[no-untyped-def]
    """Change the probe's entry module in the kernel (``change`` uses ``entry``), then
    reinstall it (a new probe id), leaving nothing in the user namespace; the server
    notices the new probe at its next reply."""
    cell = (f"def _change(entry):\n    {change}\n    entry.install()\n"
            f"_change({ENTRY}); del _change")
    reply = await kernel.run(cell)
    assert reply["status"] == "ok", reply
    before = kernel.state.probe_id
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert kernel.state.probe_id not in (None, before)


async def kernel_with(jp_fetch, new_kernel) -> UserClient:  # type: ignore[no-untyped-def]
    kernel: UserClient = await new_kernel()
    await kernel.ready()
    return kernel


async def test_the_declaration_is_read_once_per_probe(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await kernel_with(jp_fetch, new_kernel)
    state = kernel.state
    # The early install's ping declared it: nothing more to ask.
    declared = state.probe.declared()
    assert declared is not None and declared.declared
    assert declared.operations == frozenset(protocol.OPERATIONS)
    assert declared.applies("snapshot", "changed_in") is True
    await kernel.run("x = [1, 2]")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "x", "timeline")
    # A warm request is one probe request, its own: no ping rides along.
    await kernel.run("x.append(3)")
    before = state.probe_requests
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "x", "timeline")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                   params={"changed_in": "2"})
    assert state.probe_requests == before + 2
    # After a restart the new probe is asked again, once.
    old = state.probe_id
    await kernel.restart(jp_fetch)
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert state.probe_id not in (None, old)
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                   params={"changed_in": "1"})
    again = state.probe.declared()
    assert again is not None and again.declared
    before = state.probe_requests
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                   params={"changed_in": "0"})
    assert state.probe_requests == before + 1


async def test_a_501_comes_from_the_declaration(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """A probe that does not declare ``timeline`` (Python's language set has it) gets a
    501 without being asked to run it: the one probe request is the ping."""
    kernel = await kernel_with(jp_fetch, new_kernel)
    await kernel.run("x = 1")
    await reinstall(jp_fetch, kernel, 'entry.HANDLERS.pop("timeline")')
    before = kernel.state.probe_requests
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "x",
                                    "timeline")
    assert code == 501 and "has no timeline operation" in message, message
    assert kernel.state.probe_requests == before + 1  # the ping
    declared = kernel.state.probe.declared()
    assert declared is not None and not declared.has("timeline") and declared.has("rows")
    # Asked once: the next refusal costs nothing in the kernel.
    code, _ = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables", "x",
                              "timeline")
    assert code == 501 and kernel.state.probe_requests == before + 1


async def test_changed_in_is_refused_when_not_declared(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """This probe still applies changed_in and says so in its reply (the old proof would
    pass it), but it does not declare it: 501 before any snapshot is asked."""
    kernel = await kernel_with(jp_fetch, new_kernel)
    await kernel.run("a = 1")
    await reinstall(jp_fetch, kernel, (
        "ping = entry.HANDLERS['ping']\n"
        "    def without(*args):\n"
        "        reply = ping(*args)\n"
        "        reply['operations']['snapshot'].remove('changed_in')\n"
        "        return reply\n"
        "    entry.HANDLERS['ping'] = without"))
    before = kernel.state.probe_requests
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables",
                                    changed_in="1")
    assert code == 501 and "does not apply it" in message, message
    assert kernel.state.probe_requests == before + 1  # the ping, no snapshot
    assert (await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables"))[0] == 200


async def test_a_probe_that_declares_nothing_works_as_before(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """A probe installed by an earlier version (its ping says nothing): the language's
    operations stand, changed_in is proven by the reply, and it is asked only once."""
    kernel = await kernel_with(jp_fetch, new_kernel)
    await reinstall(jp_fetch, kernel, "entry.HANDLERS['ping'] = lambda *args: {}")
    await kernel.run("a = 1\nb = [1]")
    await kernel.run("b.append(2)")
    page = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    listed = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                            params={"changed_in": str(page["execution_count"])})
    declared = kernel.state.probe.declared()
    assert declared is not None and not declared.declared  # asked, and it said nothing
    assert [v["name"] for v in listed["variables"]] == ["b"]  # the reply said it applied it
    timeline = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "b",
                              "timeline")
    assert [e["change"] for e in timeline["entries"]] == ["new", "modified"]
    before = kernel.state.probe_requests
    await kernel.run("c = 3")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "b", "timeline")
    assert kernel.state.probe_requests == before + 1  # not asked again
    # One that neither declares nor says it applied changed_in listed every name: 501.
    await reinstall(jp_fetch, kernel, (
        "snapshot = entry.HANDLERS['snapshot']\n"
        "    def unsaid(*args):\n"
        "        reply = snapshot(*args)\n"
        "        reply.pop('changed_in', None)\n"
        "        return reply\n"
        "    entry.HANDLERS['snapshot'] = unsaid"))
    code, message = await status_of(jp_fetch, "kernels", kernel.kernel_id, "variables",
                                    changed_in="3")
    assert code == 501 and "changed_in is not available" in message, message
