"""Many users behind one JupyterHub, their kernels on one gateway on another host.

A real JupyterHub with ``users`` users, whose single-user servers (this extension enabled,
as installed) all use one token-protected Kernel Gateway in a network namespace of its own
(``netns.py``), with its idle culler on. Spawns are staggered. Each user, with a hub token
of their own, starts ``kernels`` kernels through their server, runs cells in them over the
kernel websocket (as a notebook does) and, for ``duration_s``, keeps running cells and
reading variables, rows and the prompt. Every answer is checked for other users' data:
each user's values carry the user's name, and no answer may name another user. Then the
users leave (their websockets close) and every kernel must be culled by the gateway's
culler. Memory of each single-user server and p50/p95 latencies are recorded.

Used by ``tests/test_multiuser.py`` (short) and ``benchmarks/multiuser.py`` (the figures).
The load is bounded: ``duration_s`` and a fixed number of users, all on this machine.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from .hub.hub import Hub, marked_pids
from .netns import Namespace, NamespacedGateway

ROUTES = ("variables", "rows", "prompt", "cell")


@dataclass
class Report:
    users: int
    kernels_per_user: int
    duration_s: float
    spawn_s: float = 0.0
    requests: dict[str, list[float]] = field(default_factory=lambda: {r: [] for r in ROUTES})
    foreign: list[str] = field(default_factory=list)  # answers that named another user
    errors: list[str] = field(default_factory=list)
    server_rss_mb: dict[str, float] = field(default_factory=dict)
    culled_after_s: float | None = None
    kernels_left: int = -1
    kernel_ids: list[str] = field(default_factory=list)  # every kernel the users started
    retries: int = 0  # 503 "busy" answers asked again (the latency includes them)

    def percentiles(self) -> dict[str, tuple[float, float, int]]:
        """Per route: p50 and p95 in ms, and the count."""
        out = {}
        for route, times in self.requests.items():
            if times:
                ordered = sorted(times)
                p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
                out[route] = (statistics.median(ordered) * 1000, p95 * 1000, len(ordered))
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "users": self.users, "kernels_per_user": self.kernels_per_user,
            "duration_s": self.duration_s, "spawn_s": round(self.spawn_s, 1),
            "latency_ms": {r: {"p50": round(p50, 1), "p95": round(p95, 1), "n": n}
                           for r, (p50, p95, n) in self.percentiles().items()},
            "foreign_answers": len(self.foreign), "errors": self.errors[:10],
            "busy_retries": self.retries,
            "server_rss_mb": {"mean": round(statistics.mean(self.server_rss_mb.values()), 1)
                              if self.server_rss_mb else None,
                              "max": round(max(self.server_rss_mb.values()), 1)
                              if self.server_rss_mb else None},
            "culled_after_s": None if self.culled_after_s is None
            else round(self.culled_after_s, 1),
            "kernels_left": self.kernels_left,
        }


class KernelSocket:
    """A notebook's kernel websocket through the hub's proxy."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self.session = Session(username="multiuser-test")
        self.ws: Any = None

    async def open(self) -> KernelSocket:
        self.ws = await websocket_connect(HTTPRequest(
            self.url, headers={"Authorization": f"token {self.token}"},
            connect_timeout=60, request_timeout=60))
        return self

    async def run(self, code: str, timeout: float = 120) -> dict[str, Any]:
        msg = self.session.msg("execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": True})
        msg["channel"] = "shell"
        self.ws.write_message(json.dumps(msg, default=json_default))
        deadline = time.monotonic() + timeout
        while True:
            raw = await asyncio.wait_for(self.ws.read_message(),
                                         max(0.1, deadline - time.monotonic()))
            if raw is None:
                raise ConnectionError("kernel websocket closed")
            if isinstance(raw, bytes):
                continue
            reply = json.loads(raw)
            if (reply.get("channel") == "shell"
                    and reply.get("parent_header", {}).get("msg_id") == msg["header"]["msg_id"]):
                content: dict[str, Any] = reply["content"]
                return content

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()


async def _get(client: AsyncHTTPClient, url: str, token: str) -> tuple[int, str]:
    try:
        response = await client.fetch(HTTPRequest(
            url, headers={"Authorization": f"token {token}"}, request_timeout=120))
        return response.code, response.body.decode()
    except HTTPClientError as e:
        body = e.response.body.decode() if e.response is not None else ""
        return e.code, body


def _user_names(users: int) -> list[str]:
    return [f"ksuser{i:02d}" for i in range(1, users + 1)]


async def _one_user(hub: Hub, user: str, everyone: list[str], kernels: int,
                    until: float, report: Report, leave: asyncio.Event) -> None:
    token = hub.token(user, [f"access:servers!user={user}"])
    base = f"{hub.url}/user/{user}/"
    ws_base = base.replace("http", "ws", 1)
    client = AsyncHTTPClient(force_instance=True)
    others = [u for u in everyone if u != user]
    sockets: list[KernelSocket] = []
    ids: list[str] = []

    def check(route: str, body: str) -> None:
        named = [u for u in others if u in body]
        if named:
            report.foreign.append(f"{user} {route}: names {named[:3]}")

    try:
        for _ in range(kernels):
            response = await client.fetch(HTTPRequest(
                f"{base}api/kernels", method="POST", body="{}", request_timeout=180,
                headers={"Authorization": f"token {token}"}))
            kid = json.loads(response.body)["id"]
            ids.append(kid)
            report.kernel_ids.append(kid)
            socket = await KernelSocket(f"{ws_base}api/kernels/{kid}/channels", token).open()
            sockets.append(socket)
            reply = await socket.run(
                f"import pandas as pd, numpy as np\nowner = {user!r}\n"
                f"data = pd.DataFrame({{'owner': [{user!r}] * 2000, 'v': np.arange(2000)}})\n"
                "step = 0")
            if reply.get("status") != "ok":
                report.errors.append(f"{user}: setup cell {reply.get('ename')}")
        api = f"{base}api/kernel-state/kernels/"
        while time.monotonic() < until:
            index = random.randrange(len(ids))
            kid, socket = ids[index], sockets[index]
            started = time.monotonic()
            reply = await socket.run("step += 1\ndata.loc[0, 'v'] = step")
            report.requests["cell"].append(time.monotonic() - started)
            if reply.get("status") != "ok":
                report.errors.append(f"{user}: cell {reply.get('ename')}")
            for route, path in (
                ("variables", f"{kid}/variables"),
                ("rows", f"{kid}/variables/data/rows?limit=50&offset="
                         f"{random.randrange(1900)}&sort=v:desc"),
                ("prompt", f"{kid}/prompt?budget=2000"),
            ):
                started = time.monotonic()
                status, body = await _get(client, api + path, token)
                while status == 503 and time.monotonic() < started + 30:
                    # A 503 says "try again" (Retry-After): the server has not seen the
                    # cell's end on its own wire yet, or an earlier request of ours is
                    # still unanswered (one the kernel never answers is found out within
                    # seconds: connection.py): ask again, as the sidebar does.
                    report.retries += 1
                    await asyncio.sleep(0.1)
                    status, body = await _get(client, api + path, token)
                report.requests[route].append(time.monotonic() - started)
                if status != 200:
                    report.errors.append(f"{user} {route}: {status} {body[:200]}")
                    continue
                check(route, body)
                if route != "rows" and user not in body:
                    report.errors.append(f"{user} {route}: its own data is missing")
            await asyncio.sleep(random.uniform(0.2, 1.0))
        await leave.wait()
    finally:
        for socket in sockets:  # the user closes the notebooks
            socket.close()
        client.close()


def _server_rss_mb(marker: str) -> dict[str, float]:
    """Resident memory of each single-user server of the hub (by its user)."""
    rss = {}
    for pid in marked_pids(marker):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if not any(b"jupyterhub-singleuser" in part for part in cmdline):
                continue
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            user = next((e.split(b"=", 1)[1].decode() for e in environ
                         if e.startswith(b"JUPYTERHUB_USER=")), str(pid))
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss[user] = int(line.split()[1]) / 1024
        except OSError:
            continue
    return rss


async def _gateway_kernels(gateway: NamespacedGateway, kernel_ids: list[str]) -> int:
    """How many of ``kernel_ids`` the gateway still has (one GET each: listing every kernel
    is refused by default)."""
    client = AsyncHTTPClient(force_instance=True)
    left = 0
    try:
        for kid in kernel_ids:
            status, _ = await _get(client, f"{gateway.url}/api/kernels/{kid}", gateway.token)
            if status != 404:
                left += 1
    finally:
        client.close()
    return left


async def run(workdir: Path, *, users: int = 8, kernels: int = 2, duration_s: float = 30.0,
              stagger_s: float = 1.0, cull_idle_s: int = 10, release_s: float = 2.0,
              cull_wait_s: float = 120.0) -> Report:
    """The whole scenario; raises nothing for a failed check (the Report says)."""
    report = Report(users, kernels, duration_s)
    names = _user_names(users)
    namespace = Namespace().start()
    gateway = NamespacedGateway(
        workdir / "gateway", namespace,
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_s}",
        "--MappingKernelManager.cull_interval=1",
    )
    try:
        gateway.start()
        hub = Hub(workdir / "hub", users=tuple(names), spawner_args=(
            f"--gateway-url={gateway.url}", f"--GatewayClient.auth_token={gateway.token}",
            "--GatewayClient.request_timeout=120", "--GatewayClient.connect_timeout=60",
            f"--KernelStateApp.gateway_release_interval={release_s}",
        ))
        with hub:
            started = time.monotonic()

            async def spawn(i: int, user: str) -> None:
                await asyncio.sleep(i * stagger_s)
                await asyncio.to_thread(hub.start_server, user, 300)

            await asyncio.gather(*(spawn(i, u) for i, u in enumerate(names)))
            report.spawn_s = time.monotonic() - started
            leave = asyncio.Event()
            until = time.monotonic() + duration_s
            load = [asyncio.ensure_future(_one_user(hub, u, names, kernels, until, report,
                                                    leave)) for u in names]
            while time.monotonic() < until and not all(t.done() for t in load):
                await asyncio.sleep(0.5)
            report.server_rss_mb = _server_rss_mb(hub.marker)
            leave.set()
            for task, user in zip(load, names, strict=True):
                try:
                    await task
                except Exception as e:
                    report.errors.append(f"{user}: {type(e).__name__}: {e}"[:300])
            left_at = time.monotonic()
            while time.monotonic() < left_at + cull_wait_s:
                report.kernels_left = await _gateway_kernels(gateway, report.kernel_ids)
                if report.kernels_left == 0:
                    report.culled_after_s = time.monotonic() - left_at
                    break
                await asyncio.sleep(1.0)
    finally:
        gateway.stop()
        namespace.stop()
    return report
