"""A Kernel Gateway on another host: a network namespace of its own with a real other
address, reached over a veth pair, as a gateway on a cluster node is.

Made with iproute2 (``ip netns``; scripts/setup.sh installs it) and removed on ``stop``.
The addresses are link-local (169.254.0.0/16), on a link that exists only between this
machine and its namespace. Needs root (CAP_NET_ADMIN), as the test command runs.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import subprocess
from pathlib import Path

from .gateway_utils import KernelGatewayProcess

HOST_ADDRESS = "169.254.77.1"
GATEWAY_ADDRESS = "169.254.77.2"
PREFIX = 30


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Namespace:
    """A network namespace linked to this host by a veth pair."""

    def __init__(self) -> None:
        suffix = secrets.token_hex(3)
        self.name = f"ks-gw-{suffix}"
        self.host_link = f"ksh{suffix}"
        self.ns_link = f"ksn{suffix}"
        self.up = False

    @staticmethod
    def available() -> str | None:
        """Why namespaces cannot be made here, or None."""
        if shutil.which("ip") is None:
            return "iproute2's `ip` is not installed (scripts/setup.sh installs it)"
        probe = f"ks-probe-{secrets.token_hex(3)}"
        try:
            _ip("netns", "add", probe)
        except (subprocess.CalledProcessError, OSError) as e:
            return f"`ip netns add` failed: {getattr(e, 'stderr', b'') or e!r}"
        _ip("netns", "del", probe)
        return None

    @staticmethod
    def remove_stale() -> None:
        """Namespaces and links of an earlier run that was killed before its ``stop``: the
        link would hold the host address a new one needs."""
        listed = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True,
                                timeout=30).stdout
        for link in {part.split("@")[0] for part in listed.split() if part.startswith("ksh")}:
            with contextlib.suppress(subprocess.CalledProcessError, OSError):
                _ip("link", "del", link.rstrip(":"))
        spaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                                timeout=30).stdout
        for line in spaces.splitlines():
            name = line.split(" ")[0]
            if name.startswith("ks-gw-"):
                with contextlib.suppress(subprocess.CalledProcessError, OSError):
                    _ip("netns", "del", name)

    def start(self) -> Namespace:
        self.remove_stale()
        try:
            _ip("netns", "add", self.name)
            self.up = True
            _ip("link", "add", self.host_link, "type", "veth", "peer", "name", self.ns_link)
            _ip("link", "set", self.ns_link, "netns", self.name)
            _ip("addr", "add", f"{HOST_ADDRESS}/{PREFIX}", "dev", self.host_link)
            _ip("link", "set", self.host_link, "up")
            for args in (("addr", "add", f"{GATEWAY_ADDRESS}/{PREFIX}", "dev", self.ns_link),
                         ("link", "set", self.ns_link, "up"), ("link", "set", "lo", "up")):
                _ip("netns", "exec", self.name, "ip", *args)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if not self.up:
            return
        with contextlib.suppress(subprocess.CalledProcessError, OSError):
            _ip("link", "del", self.host_link)
        with contextlib.suppress(subprocess.CalledProcessError, OSError):
            _ip("netns", "del", self.name)
        self.up = False


class NamespacedGateway(KernelGatewayProcess):
    """A token-protected Kernel Gateway inside ``namespace``, listening on its address;
    its kernels run there too."""

    def __init__(self, root: Path, namespace: Namespace, *extra: str) -> None:
        super().__init__(root, 8888, *extra)
        self.namespace = namespace

    @property
    def url(self) -> str:
        return f"http://{GATEWAY_ADDRESS}:{self.port}"

    def _argv(self) -> list[str]:
        argv = super()._argv()
        argv = [a.replace("--KernelGatewayApp.ip=127.0.0.1",
                          f"--KernelGatewayApp.ip={GATEWAY_ADDRESS}") for a in argv]
        return ["ip", "netns", "exec", self.namespace.name, *argv]
