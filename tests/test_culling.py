"""Idle kernels are culled as they would be without us, by a real culler, locally and on a
Kernel Gateway.

jupyter_server's culler (``MappingKernelManager.cull_idle_timeout``) culls a kernel whose
last activity is older than the timeout and that has no connection. Our probe requests are
silent executes, which its activity watcher stamps as activity: here they must not be. Two
kernels run a cell and lose their notebook at the same moment; one is then read through
REST again and again (a sidebar left open, an agent asking), the other is left alone; both
must be culled at the same culler tick, and what was captured before is served until then.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from tornado.httpclient import HTTPClientError

from .conftest import server_config
from .gateway_utils import EnterpriseGatewayProcess, KernelGatewayProcess
from .kernel_utils import get_json

pytestmark = pytest.mark.kernel

IDLE_TIMEOUT_S = 4
CULL_INTERVAL_S = 1
RELEASE_INTERVAL_S = 1.0
PLOT = (
    "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
    "import matplotlib.pyplot as plt\n"
    "plt.figure(figsize=(2, 2), dpi=40); plt.plot([1, 3, 2]); plt.show()"
)


@pytest.fixture
def jp_server_config():  # type: ignore[no-untyped-def]
    return server_config(None, MappingKernelManager={
        "cull_idle_timeout": IDLE_TIMEOUT_S, "cull_interval": CULL_INTERVAL_S,
        "cull_connected": False})


async def test_our_requests_do_not_keep_a_local_kernel_alive(
    jp_serverapp, jp_fetch, new_kernel
):  # type: ignore[no-untyped-def]
    manager = jp_serverapp.kernel_manager
    read, alone = await new_kernel(), await new_kernel()
    await asyncio.gather(read.run("import pandas as pd\nframe = pd.DataFrame({'a': range(1000)})\n"
                                  + PLOT), alone.run("y = 2"))
    read.stop()  # the notebooks are closed
    alone.stop()
    closed_at = time.monotonic()
    service = jp_serverapp.web_app.settings["jupyter_kernel_state"]
    connection = service.state(read.kernel_id).connection()

    culled: dict[str, float] = {}
    probes = 0
    deadline = closed_at + IDLE_TIMEOUT_S * 10
    while len(culled) < 2 and time.monotonic() < deadline:
        for kernel in (read, alone):
            if kernel.kernel_id not in culled and kernel.kernel_id not in manager:
                culled[kernel.kernel_id] = time.monotonic() - closed_at
        if read.kernel_id not in culled:
            try:  # a new window each time: a probe request each time
                await get_json(jp_fetch, "kernels", read.kernel_id, "variables", "frame",
                               "rows", params={"offset": str(probes % 900), "limit": "3"})
                probes += 1
                # What was captured before is served until the cull.
                images = await get_json(jp_fetch, "kernels", read.kernel_id, "images")
                assert images["total"] == 1
            except HTTPClientError as e:
                assert e.code in (404, 503), e  # culled between two checks
        await asyncio.sleep(1.0)  # an agent asking every second

    assert set(culled) == {read.kernel_id, alone.kernel_id}, (
        f"not culled in {IDLE_TIMEOUT_S * 10} s: {probes} probe requests")
    assert probes >= IDLE_TIMEOUT_S  # it was read throughout its idle time
    assert connection.quiet is not None and connection.quiet.restored >= 1
    # About the same culler tick: one that falls while one of our requests runs (or within
    # moments of its reply) waits for the next; a loaded machine adds its seconds. Without
    # the stamps put back it is never culled while read.
    assert abs(culled[read.kernel_id] - culled[alone.kernel_id]) <= IDLE_TIMEOUT_S * 2

    # After the cull: 404 for everything of that kernel.
    for parts in (("variables",), ("images",), ("history",)):
        with pytest.raises(HTTPClientError) as gone:
            await jp_fetch("api", "kernel-state", "kernels", read.kernel_id, *parts)
        assert gone.value.code == 404
        assert json.loads(gone.value.response.body)["message"] == (
            f"Kernel does not exist: {read.kernel_id}")


class TestGatewayKernels:
    """A token-protected gateway (Kernel Gateway, Enterprise Gateway) with its culler on.
    Our websocket to a kernel counts as a connection there, and the culler skips connected
    kernels: the server must let it go once the notebook is closed."""

    @pytest.fixture(params=["kernel-gateway", "enterprise-gateway"])
    def culling_gateway(self, request, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
        kind, app = KernelGatewayProcess, "MappingKernelManager"
        if request.param == "enterprise-gateway":
            kind, app = EnterpriseGatewayProcess, "RemoteMappingKernelManager"
            monkeypatch.setenv("KERNEL_USERNAME", "kernel-state-user")  # EG refuses root's
        gateway = kind(
            tmp_path / "gateway", None,
            f"--{app}.cull_idle_timeout={IDLE_TIMEOUT_S}",
            f"--{app}.cull_interval={CULL_INTERVAL_S}",
        ).start()
        yield gateway
        gateway.stop()

    @pytest.fixture
    def jp_server_config(self, culling_gateway):  # type: ignore[no-untyped-def]
        return server_config(culling_gateway.url,
                             KernelStateApp={"gateway_release_interval": RELEASE_INTERVAL_S})

    async def test_a_closed_notebooks_kernel_is_culled_as_without_us(
        self, jp_serverapp, jp_fetch, new_kernel, culling_gateway
    ):  # type: ignore[no-untyped-def]
        read, alone = await new_kernel(), await new_kernel()
        await asyncio.gather(read.run("x = 41\n" + PLOT), alone.run("y = 2"))
        listed = await get_json(jp_fetch, "kernels", read.kernel_id, "variables")
        assert [v["name"] for v in listed["variables"]] == ["x"]
        state = jp_serverapp.web_app.settings["jupyter_kernel_state"].state(read.kernel_id)

        # While the notebook is open, our wire stays (two connections on the gateway).
        await asyncio.sleep(RELEASE_INTERVAL_S * 3)
        assert not state.released and state.connection().is_open

        read.stop()  # the notebooks are closed
        alone.stop()
        closed_at = time.monotonic()
        culled: dict[str, float] = {}
        while len(culled) < 2 and time.monotonic() < closed_at + IDLE_TIMEOUT_S * 10:
            for kernel in (read, alone):
                if kernel.kernel_id not in culled and not culling_gateway.has_kernel(
                        kernel.kernel_id):
                    culled[kernel.kernel_id] = time.monotonic() - closed_at
            if read.kernel_id not in culled:  # captured before: served until the cull
                images = await get_json(jp_fetch, "kernels", read.kernel_id, "images")
                assert images["total"] == 1
            await asyncio.sleep(0.3)
        assert set(culled) == {read.kernel_id, alone.kernel_id}, "not culled"
        # Ours may wait for the release check, then the same culler tick.
        assert culled[read.kernel_id] - culled[alone.kernel_id] <= (
            RELEASE_INTERVAL_S + CULL_INTERVAL_S * 2 + 1)

        async def gone():  # type: ignore[no-untyped-def]
            try:
                await jp_fetch("api", "kernel-state", "kernels", read.kernel_id, "images")
            except HTTPClientError as e:
                return e.code == 404
            return False
        deadline = time.monotonic() + 30
        while not await gone():
            assert time.monotonic() < deadline, "still served after the cull"
            await asyncio.sleep(0.5)


class TestGatewayWireComesBack:
    """Released, then the notebook comes back: the wire reopens by itself, and a cell run
    then is seen (its plot captured) without any request of ours."""

    @pytest.fixture
    def jp_server_config(self, gateway_url):  # type: ignore[no-untyped-def]
        return server_config(gateway_url,
                             KernelStateApp={"gateway_release_interval": RELEASE_INTERVAL_S})

    @pytest.fixture
    def kernel_backend(self) -> str:
        return "gateway"

    async def test_released_then_reopened(
        self, jp_serverapp, jp_fetch, jp_ws_fetch, new_kernel
    ):  # type: ignore[no-untyped-def]
        from .kernel_utils import UserClient

        notebook = await new_kernel()
        await notebook.run("x = 1")
        state = jp_serverapp.web_app.settings["jupyter_kernel_state"].state(notebook.kernel_id)
        notebook.stop()
        deadline = time.monotonic() + RELEASE_INTERVAL_S * 20
        while not state.released:
            assert time.monotonic() < deadline, "never released"
            await asyncio.sleep(0.2)

        again = await UserClient(jp_serverapp, notebook.kernel_id, jp_ws_fetch).connect()
        try:
            await again.ready()
            deadline = time.monotonic() + RELEASE_INTERVAL_S * 20
            while state.released or not state.connection().is_open:
                assert time.monotonic() < deadline, "never reopened"
                await asyncio.sleep(0.2)
            await again.run(PLOT)
            images = await get_json(jp_fetch, "kernels", notebook.kernel_id, "images")
            assert images["total"] == 1  # seen: the wire was back before the cell ran
            listed = await get_json(jp_fetch, "kernels", notebook.kernel_id, "variables")
            assert "x" in [v["name"] for v in listed["variables"]] and not listed["stale"]
        finally:
            again.stop()
