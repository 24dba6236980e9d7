"""The extension in a single-user server behind a real JupyterHub.

A real hub, a real configurable-http-proxy, a real single-user server (spawned by the hub's
SimpleLocalProcessSpawner) and a real ipykernel; every request goes through the hub's
public proxy URL with a hub API token, as a remote client would send it.

Scopes (JupyterHub 6.1): a token owned by the server's user with only
``access:servers!user=<name>`` (or ``access:servers!server=<name>/``) can create a kernel,
use its websocket and call every kernel-state route. jupyterhub-singleuser's authorizer
checks only the ``access:servers`` scope, so jupyter_server's ``execute`` on ``kernels``
(which our probe routes require) comes with it. Tokens without that scope for this server
are refused with 403, as are requests without a token.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from urllib.parse import quote

import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from .hub.hub import Hub, request

pytestmark = [pytest.mark.hub, pytest.mark.timeout(300)]

USER = "alice"
OTHER = "bob"

CELL = """\
import pandas as pd
hub_frame = pd.DataFrame({"a": [1, 2, 3], "b": [4.0, 5.0, 6.0]})
hub_answer = 42
hub_text = "through the hub"
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with Hub(tmp_path_factory.mktemp("hub"), users=(USER, OTHER)) as running:
        running.start_server(USER)
        yield running


@pytest.fixture(scope="module")
def user_token(hub: Hub) -> str:
    """The narrowest token that works: owned by the user, only access to their servers."""
    return hub.token(USER, [f"access:servers!user={USER}"])


@pytest.fixture(scope="module")
def kernel_id(hub: Hub, user_token: str) -> str:
    status, _, body = request(
        "POST", f"{hub.url}/user/{USER}/api/kernels", token=user_token, body={"name": "python3"}
    )
    assert status == 201, (body, hub.log_tail())
    return str(json.loads(body)["id"])


async def execute(hub: Hub, token: str, kernel_id: str, code: str) -> dict:
    """Run ``code`` as a notebook would: an execute_request over the kernel's websocket."""
    url = f"{hub.url.replace('http', 'ws', 1)}/user/{USER}/api/kernels/{kernel_id}/channels"
    ws = await websocket_connect(
        HTTPRequest(
            url,
            headers={"Authorization": f"token {token}"},
            connect_timeout=60,
            request_timeout=60,
        )
    )
    try:
        msg_id = uuid.uuid4().hex
        await ws.write_message(
            json.dumps(
                {
                    "header": {
                        "msg_id": msg_id,
                        "msg_type": "execute_request",
                        "username": USER,
                        "session": uuid.uuid4().hex,
                        "date": datetime.now(timezone.utc).isoformat(),
                        "version": "5.3",
                    },
                    "parent_header": {},
                    "metadata": {},
                    "content": {
                        "code": code,
                        "silent": False,
                        "store_history": True,
                        "user_expressions": {},
                        "allow_stdin": False,
                        "stop_on_error": True,
                    },
                    "channel": "shell",
                    "buffers": [],
                }
            )
        )
        reply = None
        idle = False
        while reply is None or not idle:
            raw = await asyncio.wait_for(ws.read_message(), timeout=120)
            assert raw is not None, "kernel websocket closed before the cell finished"
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if msg["channel"] == "shell" and msg["msg_type"] == "execute_reply":
                reply = msg["content"]
            elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                idle = True
        return reply
    finally:
        ws.close()


def get(hub: Hub, token: str | None, path: str) -> tuple[int, bytes]:
    status, _, body = request("GET", f"{hub.url}/user/{USER}/api/kernel-state/{path}", token=token)
    return status, body


def current_snapshot(hub: Hub, token: str, kernel_id: str, timeout: float = 60) -> dict:
    """The variables once the server has seen the kernel go idle.

    The contract lets a GET that arrives while the server still believes the kernel busy
    answer 503 (no snapshot yet) or the last snapshot marked stale: a client asks again.
    """
    deadline = time.monotonic() + timeout
    while True:
        status, body = get(hub, token, f"kernels/{kernel_id}/variables")
        assert status in (200, 503), (status, body, hub.log_tail())
        if status == 200 and not json.loads(body)["stale"]:
            return dict(json.loads(body))
        assert time.monotonic() < deadline, f"still busy or stale after {timeout} s: {body!r}"
        time.sleep(0.2)


async def test_rest_api_through_the_hub(hub: Hub, user_token: str, kernel_id: str) -> None:
    reply = await execute(hub, user_token, kernel_id, CELL)
    assert reply["status"] == "ok", reply

    status, body = get(hub, user_token, "kernels")
    assert status == 200, (body, hub.log_tail())
    assert kernel_id in [k["kernel_id"] for k in json.loads(body)["kernels"]]

    snapshot = current_snapshot(hub, user_token, kernel_id)
    assert snapshot["kernel_id"] == kernel_id
    assert snapshot["language"] == "python"
    variables = {v["name"]: v for v in snapshot["variables"]}
    assert set(variables) == {"hub_frame", "hub_answer", "hub_text"}, variables
    assert snapshot["total"] == 3
    frame = variables["hub_frame"]
    assert (frame["type"], frame["kind"], frame["shape"]) == ("DataFrame", "dataframe", [3, 2])
    assert (variables["hub_answer"]["type"], variables["hub_answer"]["preview"]) == ("int", "42")
    assert variables["hub_text"]["type"] == "str"
    assert "through the hub" in variables["hub_text"]["preview"]

    status, body = get(hub, user_token, f"kernels/{kernel_id}/variables/hub_frame")
    assert status == 200, body
    assert [c["name"] for c in json.loads(body)["columns"]] == ["a", "b"]

    status, body = get(hub, user_token, f"kernels/{kernel_id}/prompt?budget=2000")
    assert status == 200, body
    prompt = body.decode()
    assert prompt.startswith("Kernel state — python"), prompt
    assert "- hub_frame: DataFrame 3×2" in prompt, prompt
    assert "- hub_answer: int" in prompt, prompt
    assert "- hub_text: str" in prompt, prompt

    # The CLI, pointed at the user's server through the proxy, with the same token.
    cli = subprocess.run(
        [
            *(sys.executable, "-m", "jupyter_kernel_state.cli"),
            *("--url", f"{hub.url}/user/{USER}/", "--token", user_token),
            *("variables", kernel_id),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stderr
    assert re.search(r"^hub_frame\s+DataFrame\s+3×2\s", cli.stdout, re.M), cli.stdout
    assert "1-3 of 3 variables" in cli.stdout, cli.stdout


def test_the_server_scope_alone_is_enough(hub: Hub, kernel_id: str) -> None:
    token = hub.token(USER, [f"access:servers!server={quote(USER)}/"])
    status, body = get(hub, token, f"kernels/{kernel_id}/prompt")
    assert status == 200, body
    assert body.decode().startswith("Kernel state — python")


@pytest.mark.parametrize(
    "who",
    [
        "no token",
        "another user's token",
        "a token of the user without access:servers",
        "the hub admin service's token (admin:servers, no access:servers)",
    ],
)
def test_refused_without_access_to_the_server(hub: Hub, kernel_id: str, who: str) -> None:
    token = {
        "no token": lambda: None,
        "another user's token": lambda: hub.token(OTHER, [f"access:servers!user={OTHER}"]),
        "a token of the user without access:servers": lambda: hub.token(
            USER, [f"read:servers!user={USER}"]
        ),
        "the hub admin service's token (admin:servers, no access:servers)": lambda: (
            hub.service_token
        ),
    }[who]()
    for path in ("kernels", f"kernels/{kernel_id}/variables", f"kernels/{kernel_id}/prompt"):
        status, body = get(hub, token, path)
        assert status == 403, (path, status, body)
        assert b"hub_" not in body
    # The kernels API of the same server refuses it too: the token is not let in at all.
    status, _, _ = request("GET", f"{hub.url}/user/{USER}/api/kernels", token=token)
    assert status == 403


def test_a_stopped_server_is_answered_by_the_hub(hub: Hub) -> None:
    """bob's server is not running: the proxy has no route for it, the hub redirects the
    request to /hub/user/... and answers 424 in the server's place."""
    token = hub.token(OTHER, [f"access:servers!user={OTHER}"])
    path = f"/user/{OTHER}/api/kernel-state/kernels"
    status, headers, _ = request("GET", f"{hub.url}{path}", token=token)
    assert (status, headers.get("location")) == (302, f"/hub{path}")
    status, _, body = request("GET", f"{hub.url}/hub{path}", token=token)
    assert status == 424, (status, body)
    assert b"no longer running" in body
