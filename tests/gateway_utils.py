"""A real Jupyter Kernel Gateway on loopback, and a TCP relay to put faults between it and
the server (slow links, dropped websockets, a gateway that disappears)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

GATEWAY_START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class GatewayCertificates:
    """A CA made for the test and a server certificate it signed for 127.0.0.1."""

    def __init__(self, directory: Path) -> None:
        import datetime
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        directory.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now(datetime.timezone.utc)
        valid = (now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=1))

        def name(common: str) -> x509.Name:
            return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])

        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca = (x509.CertificateBuilder().subject_name(name("jupyter_kernel_state test CA"))
              .issuer_name(name("jupyter_kernel_state test CA"))
              .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(valid[0]).not_valid_after(valid[1])
              .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
              .add_extension(x509.KeyUsage(
                  digital_signature=True, key_cert_sign=True, crl_sign=True,
                  content_commitment=False, key_encipherment=False, data_encipherment=False,
                  key_agreement=False, encipher_only=False, decipher_only=False),
                  critical=True)
              .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                             critical=False)
              .sign(ca_key, hashes.SHA256()))
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(name("127.0.0.1")).issuer_name(ca.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(valid[0]).not_valid_after(valid[1])
                .add_extension(x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]),
                               critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                    ca_key.public_key()), critical=False)
                .sign(ca_key, hashes.SHA256()))
        client_key = ec.generate_private_key(ec.SECP256R1())
        client = (x509.CertificateBuilder().subject_name(name("jupyter server"))
                  .issuer_name(ca.subject).public_key(client_key.public_key())
                  .serial_number(x509.random_serial_number())
                  .not_valid_before(valid[0]).not_valid_after(valid[1])
                  .add_extension(x509.ExtendedKeyUsage(
                      [x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
                  .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                      ca_key.public_key()), critical=False)
                  .sign(ca_key, hashes.SHA256()))
        self.ca = directory / "ca.pem"
        self.cert, self.key = directory / "server.pem", directory / "server-key.pem"
        self.client_cert = directory / "client.pem"
        self.client_key = directory / "client-key.pem"
        self.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
        for path, certificate in ((self.cert, cert), (self.client_cert, client)):
            path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        for path, private in ((self.key, key), (self.client_key, client_key)):
            path.write_bytes(private.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption()))

    def client_context(self) -> ssl.SSLContext:
        """Trusts the CA and presents the client certificate (the gateway requires one)."""
        context = ssl.create_default_context(cafile=str(self.ca))
        context.load_cert_chain(str(self.client_cert), str(self.client_key))
        return context


# Every test gateway is protected by a token, as deployed gateways are: the server gets it
# through ``GatewayClient.auth_token`` (conftest.server_config).
GATEWAY_TOKEN = secrets.token_hex(16)


class KernelGatewayProcess:
    """``jupyter kernelgateway`` as a subprocess with its own runtime and config dirs,
    requiring ``GATEWAY_TOKEN``."""

    def __init__(self, root: Path, port: int | None = None, *extra: str,
                 tls: GatewayCertificates | None = None) -> None:
        self.token = GATEWAY_TOKEN
        self.root = root
        self.port = port or free_port()
        self.tls = tls
        if tls is not None:
            extra = (*extra, f"--KernelGatewayApp.certfile={tls.cert}",
                     f"--KernelGatewayApp.keyfile={tls.key}",
                     f"--KernelGatewayApp.client_ca={tls.ca}")  # client certificates required
        self.extra = extra
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = root / f"gateway-{self.port}.log"

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def start(self) -> KernelGatewayProcess:
        self.root.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "JUPYTER_RUNTIME_DIR": str(self.root / "runtime"),
            "JUPYTER_CONFIG_DIR": str(self.root / "config"),
            "JUPYTER_DATA_DIR": str(self.data_dir),
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        }
        if not self._shares_our_python:
            # pytest-jupyter points PYTHONPATH at this venv: not for another venv's process.
            env.pop("PYTHONPATH", None)
        self._prepare()
        argv = self._argv()
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + GATEWAY_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gateway exited: {self.log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self._request("/api"), timeout=2,
                                            context=self._ssl_context()):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"gateway did not start: {self.log_path.read_text()[-2000:]}")

    def stop(self) -> None:
        """Ends the gateway and every kernel it started (its process group)."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def delete_kernel(self, kernel_id: str) -> None:
        """What a gateway's culler does: the kernel ends behind the server's back."""
        with urllib.request.urlopen(self._request(f"/api/kernels/{kernel_id}", "DELETE"),
                                    timeout=30, context=self._ssl_context()):
            pass

    def _ssl_context(self) -> ssl.SSLContext | None:
        return None if self.tls is None else self.tls.client_context()

    _shares_our_python = True  # runs with this venv's python

    def _prepare(self) -> None:
        """Anything the gateway needs on disk before it starts."""

    def _argv(self) -> list[str]:
        return [
            sys.executable, "-m", "kernel_gateway",
            "--KernelGatewayApp.ip=127.0.0.1", f"--KernelGatewayApp.port={self.port}",
            "--KernelGatewayApp.port_retries=0", f"--KernelGatewayApp.auth_token={self.token}",
            *self.extra,
        ]

    def has_kernel(self, kernel_id: str) -> bool:
        """Whether the gateway still has the kernel (its culler may have culled it)."""
        try:
            with urllib.request.urlopen(self._request(f"/api/kernels/{kernel_id}"), timeout=30,
                                        context=self._ssl_context()):
                return True
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return False
            raise

    def _request(self, path: str, method: str = "GET") -> urllib.request.Request:
        return urllib.request.Request(f"{self.url}{path}", method=method,
                                      headers={"Authorization": f"token {self.token}"})


class EnterpriseGatewayProcess(KernelGatewayProcess):
    """Jupyter Enterprise Gateway 3.3 from its own venv (``.venv-eg``: it pins
    jupyter_server < 2), with a token, local kernels through its default process proxy.

    Its ``python3`` kernelspec runs that venv's python (ipykernel 6); other kernelspecs put
    in ``data_dir/kernels`` run as written. ``GET /api/kernels`` stays refused, as by
    default. ``extra`` are ``EnterpriseGatewayApp`` options (e.g. the culler's)."""

    PYTHON = Path(__file__).resolve().parent.parent / ".venv-eg" / "bin" / "python"
    _shares_our_python = False

    @classmethod
    def available(cls) -> bool:
        return cls.PYTHON.exists()

    def _prepare(self) -> None:
        spec = self.data_dir / "kernels" / "python3"
        spec.mkdir(parents=True, exist_ok=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [str(self.PYTHON), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (Enterprise Gateway)", "language": "python",
        }))

    def _argv(self) -> list[str]:
        return [
            str(self.PYTHON), "-m", "enterprise_gateway",
            "--EnterpriseGatewayApp.ip=127.0.0.1", f"--EnterpriseGatewayApp.port={self.port}",
            "--EnterpriseGatewayApp.port_retries=0",
            f"--EnterpriseGatewayApp.auth_token={self.token}", *self.extra,
        ]


class Relay:
    """A TCP relay on loopback that can slow every chunk, or cut every connection."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.delay_s = 0.0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> Relay:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer),
                             return_exceptions=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while chunk := await reader.read(65536):
                if self.delay_s:
                    await asyncio.sleep(self.delay_s)
                writer.write(chunk)
                await writer.drain()
        finally:
            self._writers.discard(writer)
            writer.close()

    def cut(self) -> None:
        """Drop every open connection (a websocket dropped mid-request)."""
        for writer in list(self._writers):
            transport: Any = writer.transport
            transport.abort()
        self._writers.clear()

    async def close(self) -> None:
        self.cut()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None
