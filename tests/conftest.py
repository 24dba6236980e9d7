"""Fixtures: a real jupyter_server with the extension enabled, real ipykernel kernels."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from traitlets.config import Config

from .kernel_utils import UserClient, start_kernel

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def jp_server_config() -> Config:
    return Config(
        {
            "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True}},
            "KernelStateApp": {"probe_timeout": 5.0},
        }
    )


@pytest.fixture
def service(jp_serverapp):  # type: ignore[no-untyped-def]
    return jp_serverapp.web_app.settings["jupyter_kernel_state"]


@pytest.fixture
def new_kernel(jp_fetch, jp_serverapp):  # type: ignore[no-untyped-def]
    """Starts a python3 kernel with a client that plays the notebook's part.

    A factory (``kernel = await new_kernel()``) because the test server's plugin runs
    async tests, not async fixtures.
    """
    clients: list[UserClient] = []

    async def start(name: str = "python3") -> UserClient:
        kernel_id = await start_kernel(jp_fetch, name)
        client = UserClient(jp_serverapp, kernel_id)
        clients.append(client)
        await client.ready()
        return client

    yield start
    for client in clients:
        client.stop()


@pytest.fixture
def other_language_kernelspec(jp_data_dir: Path) -> str:
    """A kernelspec that runs a real ipykernel but declares another language."""
    spec_dir = jp_data_dir / "kernels" / "otherlang"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Other language",
        "language": "otherlang",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return "otherlang"
