"""Fixtures: a real jupyter_server with the extension enabled, real ipykernel kernels."""

from __future__ import annotations

import contextlib
import json
import re
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_server.gateway.gateway_client import GatewayClient
from tornado.simple_httpclient import HTTPTimeoutError
from traitlets.config import Config

from .gateway_utils import GATEWAY_TOKEN, EnterpriseGatewayProcess, KernelGatewayProcess
from .kernel_utils import UserClient, start_kernel

pytest_plugins = ["pytest_jupyter.jupyter_server"]

# Route tests that take `kernel_backend` (`pytestmark = BOTH_BACKENDS`) run against local
# kernels and behind one of two real, token-protected gateways: a Kernel Gateway or an
# Enterprise Gateway, picked per test by a stable hash of its id, so each gateway carries
# about half of every file's cases (the route's meaning is the same above the wire). The
# tests of the wire itself — faults, gateways, images and IOPub, R — run behind both:
# `pytestmark = [..., BOTH_BACKENDS, EVERY_GATEWAY]`.
BACKENDS = ["local", "gateway", "enterprise"]
GATEWAYS = ("gateway", "enterprise")
BOTH_BACKENDS = pytest.mark.parametrize("kernel_backend", BACKENDS, indirect=True)
EVERY_GATEWAY = pytest.mark.every_gateway


def gateway_for(nodeid: str, backend: str) -> str:
    """The gateway a route test runs behind: by a stable hash of its id without the
    backend's own name."""
    base = re.sub(rf"(?<=[\[-]){backend}(?=[\]-])", "", nodeid)
    return GATEWAYS[zlib.crc32(base.encode()) % len(GATEWAYS)]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    dropped = []
    kept = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("kernel_backend") if callspec is not None else None
        if (backend in GATEWAYS and item.get_closest_marker("every_gateway") is None
                and gateway_for(item.nodeid, backend) != backend):
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(scope="session")
def kernel_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelGatewayProcess]:
    """One real Kernel Gateway for the whole run, started on first use."""
    gateway = KernelGatewayProcess(tmp_path_factory.mktemp("gateway")).start()
    yield gateway
    gateway.stop()


@pytest.fixture(scope="session")
def enterprise_gateway(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[EnterpriseGatewayProcess]:
    """One real Enterprise Gateway for the whole run, started on first use (its own venv,
    made by scripts/setup.sh)."""
    if not EnterpriseGatewayProcess.available():
        pytest.fail(f"Enterprise Gateway is not installed: {EnterpriseGatewayProcess.PYTHON} "
                    "(bash scripts/setup.sh installs it)")
    gateway = EnterpriseGatewayProcess(tmp_path_factory.mktemp("enterprise")).start()
    yield gateway
    gateway.stop()


@pytest.fixture
def gateway_process(request: pytest.FixtureRequest, kernel_backend: str,
                    monkeypatch: pytest.MonkeyPatch) -> KernelGatewayProcess | None:
    """The gateway kernels run behind, or None for local kernels."""
    if kernel_backend == "local":
        return None
    if kernel_backend == "enterprise":
        # Whose kernels they are: Enterprise Gateway refuses root's (as a hub sets it per
        # user, jupyter_server sends it from the environment).
        monkeypatch.setenv("KERNEL_USERNAME", "kernel-state-user")
    name = "kernel_gateway" if kernel_backend == "gateway" else "enterprise_gateway"
    process: KernelGatewayProcess = request.getfixturevalue(name)
    return process


@pytest.fixture
def kernels_data_dir(jp_data_dir: Path, gateway_process: KernelGatewayProcess | None) -> Path:
    """Where a kernelspec must go for the kernels a test starts: this server's data dir,
    or its gateway's."""
    return jp_data_dir if gateway_process is None else gateway_process.data_dir


@pytest.fixture
def kernel_backend(request: pytest.FixtureRequest) -> str:
    """Where kernels run: "local" unless a test is parametrized over BACKENDS."""
    return str(getattr(request, "param", "local"))


@pytest.fixture
def gateway_url(gateway_process: KernelGatewayProcess | None) -> str | None:
    """The gateway the server is pointed at, or None for local kernels."""
    return None if gateway_process is None else gateway_process.url


@pytest.fixture(autouse=True)
def _fresh_gateway_client() -> Iterator[None]:
    """GatewayClient is a process-wide singleton: never let one test's gateway leak. It is
    cleared before each test, not after: the server's own cleanup (shutting its kernels
    down through the gateway, with the gateway's token) runs after the test's fixtures."""
    GatewayClient.clear_instance()
    yield


def server_config(gateway_url: str | None, **apps: dict[str, Any]) -> Config:
    """The test server's config, pointed at a gateway when one is given."""
    config: dict[str, Any] = {
        "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True}},
        "KernelStateApp": {"probe_timeout": 5.0},
    }
    if gateway_url is not None:
        config["GatewayClient"] = {"url": gateway_url, "request_timeout": 20.0,
                                   "connect_timeout": 10.0, "auth_token": GATEWAY_TOKEN}
    for name, values in apps.items():
        config.setdefault(name, {}).update(values)
    return Config(config)


@pytest.fixture
def jp_server_config(gateway_url: str | None) -> Config:
    return server_config(gateway_url)


@pytest.fixture
def service(jp_serverapp):  # type: ignore[no-untyped-def]
    return jp_serverapp.web_app.settings["jupyter_kernel_state"]


@pytest.fixture
def user_client(jp_serverapp, jp_ws_fetch):  # type: ignore[no-untyped-def]
    """Connects a notebook-like client (the server's kernel websocket) to a kernel:
    ``client = await user_client(kernel_id)``."""
    clients: list[UserClient] = []

    async def connect(kernel_id: str) -> UserClient:
        client = await UserClient(jp_serverapp, kernel_id, jp_ws_fetch).connect()
        clients.append(client)
        await client.ready()
        return client

    yield connect
    for client in clients:
        client.stop()


@pytest.fixture
def new_kernel(jp_fetch, user_client):  # type: ignore[no-untyped-def]
    """Starts a python3 kernel with a client that plays the notebook's part.

    A factory (``kernel = await new_kernel()``) because the test server's plugin runs
    async tests, not async fixtures.
    """

    async def start(name: str = "python3") -> UserClient:
        kernel_id = await start_kernel(jp_fetch, name)
        try:
            return await user_client(kernel_id)  # type: ignore[no-any-return]
        except (HTTPTimeoutError, AssertionError):
            # A kernel that never came up: jupyter_client picks a kernel's free ports
            # before the kernel binds them, and another process (the other test worker's
            # kernels, a gateway's) can take one first ("Address already in use"). Not
            # ours to test here: one more kernel, once.
            with contextlib.suppress(Exception):
                await jp_fetch("api", "kernels", kernel_id, method="DELETE")
            return await user_client(await start_kernel(jp_fetch, name))  # type: ignore[no-any-return]

    return start


@pytest.fixture
def other_language_kernelspec(kernels_data_dir: Path) -> str:
    """A kernelspec that runs a real ipykernel but declares another language (where the
    kernels run: this server's data dir, or the gateway's)."""
    spec_dir = kernels_data_dir / "kernels" / "otherlang"
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Other language",
        "language": "otherlang",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return "otherlang"
