"""Idle kernels are culled as they would be without us, by a real culler.

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
from .kernel_utils import get_json

pytestmark = pytest.mark.kernel

IDLE_TIMEOUT_S = 4
CULL_INTERVAL_S = 1
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
    # The same culler tick, give or take: a tick that falls while one of our requests runs
    # (or within moments of its reply) waits for the next (and a loaded machine's second).
    assert abs(culled[read.kernel_id] - culled[alone.kernel_id]) <= CULL_INTERVAL_S * 3 + 1

    # After the cull: 404 for everything of that kernel.
    for parts in (("variables",), ("images",), ("history",)):
        with pytest.raises(HTTPClientError) as gone:
            await jp_fetch("api", "kernel-state", "kernels", read.kernel_id, *parts)
        assert gone.value.code == 404
        assert json.loads(gone.value.response.body)["message"] == (
            f"Kernel does not exist: {read.kernel_id}")
