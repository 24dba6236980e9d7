"""A Kernel Gateway over mutual TLS and a token, as a locked-down deployment runs one: its
certificate is signed by a CA the test makes, which the server trusts only through
``GatewayClient.ca_certs``, and it requires a client certificate (``client_cert``,
``client_key``) from the same CA.

(jupyter_server 2.x passes ``ca_certs`` to its own REST calls only together with a client
certificate; our websocket passes each TLS option it is given.)

A notebook's variables, a DataFrame's rows, the prompt and a plot in the image strip work
as they do locally.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import server_config
from .gateway_utils import GatewayCertificates, KernelGatewayProcess
from .kernel_utils import get_json, validate

pytestmark = pytest.mark.kernel

PLOT = (
    "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
    "import matplotlib.pyplot as plt\n"
    "plt.figure(figsize=(2, 2), dpi=40); plt.plot([1, 3, 2]); plt.show()"
)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> GatewayCertificates:
    return GatewayCertificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def tls_gateway(tmp_path_factory: pytest.TempPathFactory,
                certificates: GatewayCertificates) -> Iterator[KernelGatewayProcess]:
    gateway = KernelGatewayProcess(tmp_path_factory.mktemp("tls-gateway"),
                                   tls=certificates).start()
    yield gateway
    gateway.stop()


@pytest.fixture
def jp_server_config(tls_gateway, certificates):  # type: ignore[no-untyped-def]
    assert tls_gateway.url.startswith("https://")
    return server_config(tls_gateway.url, GatewayClient={
        "ca_certs": str(certificates.ca), "client_cert": str(certificates.client_cert),
        "client_key": str(certificates.client_key)})


async def test_a_tls_gateway_with_a_token_works_as_local_kernels_do(
    jp_fetch, new_kernel
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\n"
                     "sales = pd.DataFrame({'region': list('nsew') * 250, 'units': range(1000)})\n"
                     + PLOT)
    kid = kernel.kernel_id
    snapshot = await get_json(jp_fetch, "kernels", kid, "variables")
    validate(snapshot, "Snapshot")
    sales = {v["name"]: v for v in snapshot["variables"]}["sales"]
    assert sales["shape"] == [1000, 2] and not snapshot["stale"]

    rows = await get_json(jp_fetch, "kernels", kid, "variables", "sales", "rows",
                          params={"offset": "998", "limit": "5"})
    assert [r[1] for r in rows["rows"]] == ["998", "999"]

    prompt = await jp_fetch("api", "kernel-state", "kernels", kid, "prompt")
    assert "- sales: DataFrame 1,000×2" in prompt.body.decode()

    images = await get_json(jp_fetch, "kernels", kid, "images")
    assert images["total"] == 1 and images["images"][0]["mime"] == "image/png"
    picture = await jp_fetch("api", "kernel-state", "kernels", kid, "images",
                             images["images"][0]["id"])
    assert picture.body.startswith(b"\x89PNG")
