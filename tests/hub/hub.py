"""Start and stop a real JupyterHub (hub, configurable-http-proxy, single-user servers).

Used by ``tests/test_hub.py`` (``Hub`` as a context manager) and, as a script, by the
Playwright hub spec's ``webServer`` (``python tests/hub/hub.py``: runs until SIGTERM/SIGINT).

Every process of the hub carries ``KERNEL_STATE_HUB_MARKER=<random>`` in its environment:
the hub and the proxy inherit it, the single-user servers get it from the spawner's
``environment`` and their kernels inherit it. ``Hub.stop`` asks the hub to shut down (which
stops the servers and the proxy), then kills whatever still carries the marker, by pid.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CONFIG = HERE / "jupyterhub_config.py"
MARKER = "KERNEL_STATE_HUB_MARKER"
DEFAULT_PASSWORD = "kernel-state-hub-test"


def free_port() -> int:
    """A free loopback port (bound with port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def proxy_path() -> str:
    """PATH with the project's node_modules/.bin (configurable-http-proxy) first."""
    bin_dir = REPO / "node_modules" / ".bin"
    if not (bin_dir / "configurable-http-proxy").exists() and not shutil.which(
        "configurable-http-proxy"
    ):
        raise RuntimeError(
            "configurable-http-proxy is not installed: run `jlpm install` in the repository "
            "(it is a devDependency of package.json)"
        )
    return os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def request(
    method: str,
    url: str,
    token: str | None = None,
    body: Any = None,
    timeout: float = 30,
) -> tuple[int, Message, bytes]:
    """One HTTP request, no redirects followed, errors returned rather than raised.

    The headers are case-insensitive (``headers.get("location")``).
    """
    headers = {}
    data = None
    if token is not None:
        headers["Authorization"] = f"token {token}"
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with _opener.open(req, timeout=timeout) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.headers, err.read()


def marked_pids(marker: str) -> list[int]:
    """Pids of the processes whose environment holds ``KERNEL_STATE_HUB_MARKER=marker``."""
    needle = f"{MARKER}={marker}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            pids.append(int(entry.name))
    return pids


class Hub:
    """A JupyterHub on free loopback ports, everything it writes under ``workdir``."""

    def __init__(
        self,
        workdir: Path,
        port: int | None = None,
        users: tuple[str, ...] = ("alice", "bob"),
        password: str = DEFAULT_PASSWORD,
        spawner_args: tuple[str, ...] = (),
    ) -> None:
        self.workdir = Path(workdir)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.users = users
        self.password = password
        self.spawner_args = spawner_args
        self.service_token = secrets.token_hex(16)
        self.marker = secrets.token_hex(8)
        self.log_path = self.workdir / "jupyterhub.log"
        self.proc: subprocess.Popen[bytes] | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def start(self, timeout: float = 90) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "PATH": proxy_path(),
            "KERNEL_STATE_HUB_DIR": str(self.workdir),
            "KERNEL_STATE_HUB_PORT": str(self.port),
            "KERNEL_STATE_HUB_API_PORT": str(free_port()),
            "KERNEL_STATE_HUB_PROXY_API_PORT": str(free_port()),
            "KERNEL_STATE_HUB_USERS": ",".join(self.users),
            "KERNEL_STATE_HUB_PASSWORD": self.password,
            "KERNEL_STATE_HUB_SERVICE_TOKEN": self.service_token,
            "KERNEL_STATE_HUB_SPAWNER_ARGS": json.dumps(list(self.spawner_args)),
            MARKER: self.marker,
        }
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "jupyterhub", "-f", str(CONFIG)],
                cwd=self.workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"jupyterhub exited with {self.proc.returncode}\n{self.log_tail()}"
                )
            try:
                status, _, _ = request("GET", f"{self.url}/hub/health", timeout=5)
            except OSError:
                status = 0
            if status == 200:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"jupyterhub not up after {timeout} s\n{self.log_tail()}")
            time.sleep(0.2)

    def stop(self, timeout: float = 30) -> None:
        """Shut the hub down (servers and proxy with it), then end anything left over."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        deadline = time.monotonic() + 10
        while pids := marked_pids(self.marker):
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                raise RuntimeError(f"processes of the test hub survive SIGKILL: {pids}")
            time.sleep(0.1)

    def __enter__(self) -> Hub:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log_tail(self, chars: int = 6000) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return text[-chars:]

    # -- hub REST API, with the tests' service token ----------------------------------------

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        status, _, data = request(
            method, f"{self.url}/hub/api/{path}", token=self.service_token, body=body
        )
        return status, json.loads(data) if data else None

    def start_server(self, user: str, timeout: float = 150) -> None:
        """Start ``user``'s default server and wait until the hub says it is ready."""
        status, body = self.api("POST", f"users/{user}/server")
        if status not in (201, 202, 400):  # 400: already running
            raise RuntimeError(f"starting {user}'s server: {status} {body}\n{self.log_tail()}")
        deadline = time.monotonic() + timeout
        while True:
            status, model = self.api("GET", f"users/{user}")
            server = (model or {}).get("servers", {}).get("")
            if server and server.get("ready"):
                return
            if status != 200 or (server is None and model and not model.get("pending")):
                raise RuntimeError(f"{user}'s server is gone: {status} {model}\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{user}'s server not ready after {timeout} s\n{self.log_tail()}"
                )
            time.sleep(0.25)

    def token(self, user: str, scopes: list[str]) -> str:
        """A new API token owned by ``user``, limited to ``scopes``."""
        status, body = self.api(
            "POST",
            f"users/{user}/tokens",
            {"scopes": scopes, "note": "kernel-state hub test", "expires_in": 3600},
        )
        if status != 201:
            raise RuntimeError(f"token for {user} with {scopes}: {status} {body}")
        return str(body["token"])


def main() -> None:
    """Run a hub in the foreground until SIGTERM or SIGINT (the Playwright hub spec)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--port", type=int, default=int(os.environ.get("KERNEL_STATE_HUB_UI_PORT", "8897"))
    )
    parser.add_argument("--user", default=os.environ.get("KERNEL_STATE_HUB_UI_USER", "alice"))
    parser.add_argument(
        "--password", default=os.environ.get("KERNEL_STATE_HUB_UI_PASSWORD", DEFAULT_PASSWORD)
    )
    args = parser.parse_args()

    stopping = False

    def request_stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    workdir = Path(tempfile.mkdtemp(prefix="kernel-state-hub-ui-"))
    hub = Hub(workdir, port=args.port, users=(args.user,), password=args.password)
    try:
        hub.start()
        print(f"JupyterHub at {hub.url} (log: {hub.log_path})", flush=True)
        while not stopping and hub.proc is not None and hub.proc.poll() is None:
            time.sleep(0.2)
        if not stopping:
            print(f"jupyterhub exited\n{hub.log_tail()}", flush=True)
    finally:
        hub.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
