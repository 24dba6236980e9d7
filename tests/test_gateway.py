"""Faults between the server and a real gateway (Kernel Gateway, and Enterprise Gateway): a
gateway that goes away, comes back without the kernel, culls it, a websocket cut
mid-request, a slow link, a refused credential.

Each test gets a gateway of its own (it is killed or restarted here) behind a TCP relay
that can slow or cut every connection. The ordinary route tests run against the shared
gateway in the other modules (``BOTH_BACKENDS``).
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from tornado.httpclient import HTTPClientError

from .conftest import server_config
from .gateway_utils import EnterpriseGatewayProcess, KernelGatewayProcess, Relay
from .kernel_utils import get_json, validate

pytestmark = pytest.mark.kernel

# A probe deadline short enough that slow-link cases finish quickly.
PROBE_TIMEOUT_S = 2.0
PLOT = (
    "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
    "import matplotlib.pyplot as plt\n"
    "plt.figure(figsize=(2, 2), dpi=40); plt.plot([1, 3, 2]); plt.show()"
)


@pytest.fixture(params=["kernel-gateway", "enterprise-gateway"])
def own_gateway(request, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """Each fault on Kernel Gateway and on Enterprise Gateway (both with a token)."""
    kind = KernelGatewayProcess
    if request.param == "enterprise-gateway":
        kind = EnterpriseGatewayProcess
        monkeypatch.setenv("KERNEL_USERNAME", "kernel-state-user")  # EG refuses root's
    gateway = kind(tmp_path / "gateway").start()
    yield gateway
    gateway.stop()


@pytest.fixture
def relay(own_gateway, jp_asyncio_loop):  # type: ignore[no-untyped-def]
    relay = Relay(own_gateway.port)
    jp_asyncio_loop.run_until_complete(relay.start())
    yield relay
    jp_asyncio_loop.run_until_complete(relay.close())


@pytest.fixture
def jp_server_config(relay):  # type: ignore[no-untyped-def]
    return server_config(relay.url, KernelStateApp={"probe_timeout": PROBE_TIMEOUT_S})


@pytest.fixture(autouse=True)
def forget_kernels_before_the_gateway_goes(jp_serverapp, relay, jp_asyncio_loop):  # type: ignore[no-untyped-def]
    """Shut kernels down while the gateway may still answer, and forget them whatever it
    says: the server's own cleanup runs after this module's gateway is gone."""
    yield
    manager = jp_serverapp.kernel_manager

    async def shutdown() -> None:
        for kernel_id in list(manager.list_kernel_ids()):
            try:
                await asyncio.wait_for(manager.shutdown_kernel(kernel_id), 10)
            except Exception:
                manager.remove_kernel(kernel_id)

    jp_asyncio_loop.run_until_complete(shutdown())


async def error_of(jp_fetch, *parts: str) -> tuple[int, str, float]:  # type: ignore[no-untyped-def]
    """Status, message and seconds taken by a request that must fail."""
    started = time.monotonic()
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", *parts)
    body = json.loads(e.value.response.body)
    return e.value.code, body["message"], time.monotonic() - started


async def until(check, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    """Poll ``check`` (an async callable) until it returns a truthy value."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = await check()
        except HTTPClientError:
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.2)


async def test_gateway_down_then_back_without_the_kernel(jp_fetch, new_kernel, own_gateway):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 41\n" + PLOT)
    kid = kernel.kernel_id
    assert {v["name"] for v in (await get_json(jp_fetch, "kernels", kid, "variables"))["variables"]} >= {"x"}
    captured = await get_json(jp_fetch, "kernels", kid, "images")
    assert captured["total"] == 1

    own_gateway.stop()  # the gateway and its kernels are gone; nothing answers the port
    connection = kernel.state.connection()
    await until(lambda: asyncio.sleep(0, not connection.is_open))  # the drop is noticed
    status, message, took = await error_of(jp_fetch, "kernels", kid, "variables")
    assert status == 503 and "gateway" in message.lower()
    assert took < PROBE_TIMEOUT_S + 1
    # What was captured before stays served.
    kept = await get_json(jp_fetch, "kernels", kid, "images")
    assert [i["id"] for i in kept["images"]] == [i["id"] for i in captured["images"]]
    assert (await get_json(jp_fetch, "kernels", kid, "history"))["total"] >= 1

    own_gateway.start()  # back on the same port, but a new gateway: the kernel is gone
    async def gone():  # type: ignore[no-untyped-def]
        status, message, _ = await error_of(jp_fetch, "kernels", kid, "variables")
        return status == 404 and message == f"Kernel does not exist: {kid}"
    await until(gone)
    listed = await get_json(jp_fetch, "kernels")
    assert kid not in [k["kernel_id"] for k in listed["kernels"]]


async def test_a_kernel_culled_by_the_gateway_is_404(jp_fetch, new_kernel, own_gateway):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("y = [1, 2, 3]")
    kid = kernel.kernel_id
    await get_json(jp_fetch, "kernels", kid, "variables")
    own_gateway.delete_kernel(kid)  # as the gateway's idle culler does
    started = time.monotonic()

    async def gone():  # type: ignore[no-untyped-def]
        status, _, _ = await error_of(jp_fetch, "kernels", kid, "variables", "y")
        return status == 404
    await until(gone)
    assert time.monotonic() - started < 10
    status, message, _ = await error_of(jp_fetch, "kernels", kid, "prompt")
    assert status == 404 and message.startswith("Kernel does not exist")


async def test_a_websocket_cut_mid_request_fails_fast_and_reconnects(
    jp_fetch, new_kernel, user_client, relay
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("z = 'before'")
    kid = kernel.kernel_id
    state = kernel.state
    relay.delay_s = 0.5  # every chunk waits: the next request is still in flight below
    pending = asyncio.ensure_future(get_json(jp_fetch, "kernels", kid, "variables", "z"))
    await asyncio.sleep(0.3)
    started = time.monotonic()
    relay.cut()
    relay.delay_s = 0.0
    with pytest.raises(HTTPClientError) as e:
        await pending
    assert e.value.code == 503
    # The cut is the answer, not the probe deadline running out (a bound only on a hang).
    message = json.loads(e.value.response.body)["message"]
    assert "did not answer within" not in message and message.endswith("try again"), message
    assert time.monotonic() - started < 10 * PROBE_TIMEOUT_S
    # Our connection reopens by itself, and IOPub capture resumes.
    await until(lambda: asyncio.sleep(0, state._connection.reopened >= 1))
    user = await user_client(kid)  # the notebook reconnects too
    await user.run("z = 'after'\n" + PLOT)
    detail = await until(lambda: get_json(jp_fetch, "kernels", kid, "variables", "z"))
    assert detail["preview"] == "'after'"
    images = await get_json(jp_fetch, "kernels", kid, "images")
    assert images["total"] == 1 and images["images"][0]["mime"] == "image/png"


async def test_a_slow_link_answers_within_the_deadline(jp_fetch, new_kernel, relay):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("w = 7")
    kid = kernel.kernel_id
    relay.delay_s = 0.05  # slow but workable: every chunk 50 ms late each way
    snapshot = await get_json(jp_fetch, "kernels", kid, "variables")
    validate(snapshot, "Snapshot")
    assert snapshot["stale"] is False and [v["name"] for v in snapshot["variables"]] == ["w"]

    await kernel.run("w = 8")
    relay.delay_s = 5.0  # far slower than the deadline
    requests_before = kernel.state.probe_requests
    started = time.monotonic()
    stale = await get_json(jp_fetch, "kernels", kid, "variables")
    took = time.monotonic() - started
    assert took < PROBE_TIMEOUT_S + 1.5
    assert stale["stale"] is True and stale["variables"][0]["preview"] == "7"
    assert kernel.state.probe_requests == requests_before


async def test_the_wire_sends_the_gateways_token_and_a_refusal_says_so(
    jp_fetch, new_kernel, relay
):  # type: ignore[no-untyped-def]
    """Every test gateway requires a token; our websocket carries GatewayClient's headers,
    and when the gateway refuses the credential the answer says that, not "unreachable"."""
    from jupyter_server.gateway.gateway_client import GatewayClient

    kernel = await new_kernel()
    await kernel.run("x = 41")
    kid = kernel.kernel_id
    listed = await get_json(jp_fetch, "kernels", kid, "variables")
    assert [v["name"] for v in listed["variables"]] == ["x"]  # through the protected gateway

    gateway = GatewayClient.instance()
    good = gateway.auth_token
    gateway.auth_token = "not-the-token"  # e.g. a token the gateway revoked
    try:
        relay.cut()  # our websocket reopens, with the current credential
        async def refused():  # type: ignore[no-untyped-def]
            try:  # until the drop is noticed, the cached answer may still come
                await jp_fetch("api", "kernel-state", "kernels", kid, "variables")
            except HTTPClientError as e:
                message = json.loads(e.response.body)["message"]
                return e.code == 503 and "refused the credential (HTTP 401)" in message
            return False
        await until(refused)
    finally:
        gateway.auth_token = good
    # A right token again: the wire comes back by itself.
    async def back():  # type: ignore[no-untyped-def]
        return "x" in {v["name"] for v in (
            await get_json(jp_fetch, "kernels", kid, "variables"))["variables"]}
    await until(back)
