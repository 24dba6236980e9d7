"""`jupyter kernel-state` run as a separate process against a running server."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

pytestmark = pytest.mark.kernel


@pytest.fixture
def cli(jp_serverapp, jp_http_port, jp_base_url):  # type: ignore[no-untyped-def]
    async def run(*args: str, token: str | None = None) -> tuple[int, str, str]:
        url = f"http://127.0.0.1:{jp_http_port}{jp_base_url}"
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "jupyter_kernel_state.cli", "--url", url,
            "--token", token if token is not None else jp_serverapp.identity_provider.token,
            *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        return process.returncode or 0, out.decode(), err.decode()

    return run


async def test_cli_commands(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})\nx = 42\n"
                     "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                     "plt.figure(figsize=(1, 1), dpi=30); plt.plot([1]); plt.show()")
    code, out, _ = await cli("kernels")
    assert code == 0 and kernel.kernel_id in out and "python" in out

    code, out, _ = await cli("variables")
    assert code == 0
    assert any(line.split()[:3] == ["df", "DataFrame", "2×1"] for line in out.splitlines())
    assert "1-2 of 2 variables, execution 1" in out

    code, out, _ = await cli("--json", "variables", kernel.kernel_id)
    assert json.loads(out)["total"] == 2

    code, out, _ = await cli("inspect", "df")
    assert code == 0 and "columns: a:int64" in out

    code, out, _ = await cli("images")
    assert code == 0 and "image/png" in out

    code, out, _ = await cli("prompt", "--budget", "500")
    assert code == 0 and out.startswith("Kernel state — python, execution 1.")
    assert len(out.rstrip("\n")) <= 500


async def test_cli_errors_are_clear(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    code, _, err = await cli("inspect", "missing", "--kernel", kernel.kernel_id)
    assert code == 1 and "404: Variable not found: missing" in err
    code, _, err = await cli("kernels", token="wrong")
    assert code == 1 and "403" in err


async def test_cli_mcp_config_without_a_running_server_says_so(tmp_path):  # type: ignore[no-untyped-def]
    # Runtime files left by a server that is gone are not servers.
    gone = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await gone.wait()
    (tmp_path / f"jpserver-{gone.pid}.json").write_text(json.dumps(
        {"pid": gone.pid, "url": "http://localhost:8888/", "base_url": "/", "port": 8888,
         "token": "t"}))
    (tmp_path / f"jpserver-mcp-{gone.pid}.json").write_text(json.dumps(
        {"pid": gone.pid, "url": "http://127.0.0.1:3001/mcp", "port": 3001}))
    env = {k: v for k, v in os.environ.items()
           if k not in ("JUPYTER_TOKEN", "JUPYTER_SERVER_URL")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "jupyter_kernel_state.cli", "mcp-config",
        env={**env, "JUPYTER_RUNTIME_DIR": str(tmp_path)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1 and not out
    assert "no running Jupyter server with an MCP server found" in err.decode()
