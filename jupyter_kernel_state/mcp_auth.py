"""Only a caller holding a credential the Jupyter server accepts may use its MCP server.

jupyter-server-mcp serves MCP on its own loopback port, outside the Jupyter server's
authentication: on a machine with several users, any local process could otherwise list
and call the tools and read what REST only gives to a token holder. This module is a
FastMCP middleware that runs before every MCP message (``initialize``, listings, tool
calls, notifications) and refuses it unless the HTTP request carries
``Authorization: token <t>`` (or ``Bearer <t>``) with a credential the Jupyter server itself
accepts, or the per-process credential this extension hands to Jupyter AI's agents.
``mcp_server`` attaches it to jupyter-server-mcp's server object (any version) before that
server serves anything; our tools refuse to run in a request it did not let through.

A server credential is not checked here: it is shown to the Jupyter server over loopback, as
``GET {base_url}api/me?permissions={"kernels": ["execute"]}``, and accepted only when the
server answers 200 and grants ``execute`` on ``kernels`` (reading variables is as strong as
running code). So whatever the server's identity provider and authorizer accept works -- its
own token, a JupyterHub token with the right scopes -- and nothing else. Verdicts are cached
per credential (a keyed hash, never the token itself) for a short TTL in a bounded cache.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
import secrets
import socket
import ssl
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from tornado.httpclient import HTTPRequest
from tornado.netutil import Resolver
from tornado.simple_httpclient import SimpleAsyncHTTPClient
from traitlets import Float, Int
from traitlets.config import LoggingConfigurable

if TYPE_CHECKING:
    from fastmcp.server.middleware import Middleware

# What a credential must be granted: reading a kernel's variables is as strong as executing.
REQUIRED_PERMISSIONS: dict[str, list[str]] = {"kernels": ["execute"]}
# JSON-RPC error code of a refusal (the MCP spec leaves authentication to HTTP; -32001 is in
# the range JSON-RPC reserves for implementation-defined server errors).
UNAUTHORIZED = -32001
TOKEN_REQUIRED = (
    "This MCP server requires a Jupyter server token: send the HTTP header "
    "'Authorization: token <token>' (or 'Bearer <token>'); "
    "`jupyter kernel-state mcp-config` prints a ready-to-use client configuration."
)
# The schemes jupyter_server's IdentityProvider accepts in the Authorization header.
_AUTH_HEADER = re.compile(r"\s*(token|bearer)\s+(\S+)\s*\Z", re.IGNORECASE)
_WILDCARD_HOSTS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "*": "127.0.0.1",
                   "::": "::1", "::0": "::1"}
_MAX_TOKEN_CHARS = 4096
# Loopback validation calls in flight at once (a flood of distinct tokens waits its turn).
_MAX_CONCURRENT_VALIDATIONS = 8


class _UnixSocketResolver(Resolver):
    """Sends every connection of one client to the server's unix socket."""

    def initialize(self, path: str) -> None:
        self.path = path

    async def resolve(self, host: str, port: int, family: socket.AddressFamily = socket.AF_UNSPEC
                      ) -> list[tuple[int, Any]]:
        return [(socket.AF_UNIX, self.path)]


class Refused(Exception):
    """The request may not use the MCP server; the message says why (never the token)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str
    # False when the server could not be asked (timeout, error): says nothing about the token.
    cacheable: bool = True


_UNCHECKED = Verdict(False, "Could not validate the credential with the Jupyter server.",
                     cacheable=False)


@dataclass(frozen=True)
class ServerEndpoint:
    """Where the Jupyter server itself can be asked about a credential, over loopback."""

    base_url: str  # scheme://host:port{base_url}, ends with "/"
    uds: str | None = None  # unix socket the server listens on instead of TCP
    cafile: str | None = None  # the server's own certificate, trusted for the loopback call

    @classmethod
    def of(cls, serverapp: Any) -> ServerEndpoint:
        base = str(serverapp.base_url or "/")
        base = ("/" + base.lstrip("/")).rstrip("/") + "/"
        if serverapp.sock:
            # The client dials the socket; the host in the URL only fills the Host header.
            return cls(f"http://localhost{base}", uds=str(serverapp.sock))
        ip = str(serverapp.ip or "")
        host = _WILDCARD_HOSTS.get(ip, ip)
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        scheme = "https" if serverapp.certfile else "http"
        return cls(f"{scheme}://{host}:{int(serverapp.port)}{base}",
                   cafile=str(serverapp.certfile) if serverapp.certfile else None)


class KernelStateMCPAuth(LoggingConfigurable):
    """Validates MCP callers against the Jupyter server (configure as ``KernelStateMCPAuth``)."""

    cache_ttl = Float(
        30.0, min=0.0, config=True,
        help="Seconds a verdict on a credential is reused before the server is asked again "
        "(so a revoked token keeps working at most this long; 0 asks on every request).",
    )
    cache_size = Int(
        256, min=1, config=True, help="Credentials whose verdicts are remembered (least "
        "recently used first out).",
    )
    validation_timeout = Float(
        5.0, min=0.1, config=True,
        help="Seconds the loopback call that validates a credential may take; past it the "
        "request is refused (and nothing is cached).",
    )

    def __init__(self, serverapp: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.serverapp = serverapp
        self._key = secrets.token_bytes(32)  # per process: hashes are useless elsewhere
        # digest -> (time.monotonic() when validated, verdict), least recently used first.
        self._cache: OrderedDict[str, tuple[float, Verdict]] = OrderedDict()
        self._pending: dict[str, asyncio.Future[Verdict]] = {}
        self._slots = asyncio.Semaphore(_MAX_CONCURRENT_VALIDATIONS)
        self.validations = 0  # loopback calls made (the rest were answered from the cache)
        # Handed to Jupyter AI's agents (jupyter_ai.py): valid for MCP only, for the life of
        # this process, kept in memory only (never in runtime files, logs or URLs).
        self._agent_credential = secrets.token_urlsafe(32)

    @property
    def agent_credential(self) -> str:
        return self._agent_credential

    @property
    def cached_verdicts(self) -> int:
        return len(self._cache)

    def _digest(self, token: str) -> str:
        return hmac.new(self._key, token.encode("utf-8", "surrogatepass"),
                        hashlib.sha256).hexdigest()

    async def check(self, authorization: str | None) -> None:
        """Return if ``authorization`` (an HTTP header value) may use MCP, else raise Refused."""
        match = _AUTH_HEADER.match(authorization or "")
        if match is None or len(match.group(2)) > _MAX_TOKEN_CHARS:
            raise Refused(f"Unauthorized: no credentials. {TOKEN_REQUIRED}")
        if hmac.compare_digest(match.group(2).encode("utf-8", "surrogatepass"),
                               self._agent_credential.encode()):
            return
        verdict = await self.verdict(match.group(2))
        if not verdict.allowed:
            raise Refused(f"Unauthorized: {verdict.reason} {TOKEN_REQUIRED}")

    async def verdict(self, token: str) -> Verdict:
        key = self._digest(token)
        cached = self._cache.get(key)
        if cached is not None:
            if time.monotonic() - cached[0] < self.cache_ttl:
                self._cache.move_to_end(key)
                return cached[1]
            del self._cache[key]
        pending = self._pending.get(key)
        if pending is None:
            # One loopback call per credential at a time; concurrent requests share it.
            pending = asyncio.ensure_future(self._validate_and_remember(key, token))
            self._pending[key] = pending
        return await asyncio.shield(pending)

    async def _validate_and_remember(self, key: str, token: str) -> Verdict:
        try:
            verdict = await self._validate(token)
            # Remembered before this task ends, so no request in between asks again.
            if verdict.cacheable and self.cache_ttl > 0:
                self._cache[key] = (time.monotonic(), verdict)
                self._cache.move_to_end(key)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            return verdict
        finally:
            self._pending.pop(key, None)

    async def _validate(self, token: str) -> Verdict:
        try:
            async with self._slots:
                self.validations += 1
                return await self._ask_server(token)
        except Exception as e:  # fail closed, whatever went wrong
            self.log.warning("MCP: could not validate a credential with the Jupyter server: "
                             "%s", type(e).__name__)
            return _UNCHECKED

    async def _ask_server(self, token: str) -> Verdict:
        endpoint = ServerEndpoint.of(self.serverapp)
        query = urllib.parse.urlencode({"permissions": json.dumps(REQUIRED_PERMISSIONS)})
        ssl_options = None
        if endpoint.base_url.startswith("https:"):
            # The loopback address is not in the certificate: trust the server's own one
            # (and the system's), without the host name check.
            ssl_options = ssl.create_default_context()
            if endpoint.cafile:
                ssl_options.load_verify_locations(cafile=endpoint.cafile)
                # A self-signed certificate (the usual case) may lack what strict mode wants.
                ssl_options.verify_flags &= ~getattr(ssl, "VERIFY_X509_STRICT", 0)
            ssl_options.check_hostname = False
        request = HTTPRequest(
            f"{endpoint.base_url}api/me?{query}",
            headers={"Authorization": f"token {token}"},
            follow_redirects=False,
            connect_timeout=self.validation_timeout,
            request_timeout=self.validation_timeout,
            ssl_options=ssl_options,
        )
        # Our own client instance: no shared configuration, no proxy from the environment
        # (the credential never leaves loopback), a unix socket when the server listens on one.
        client = SimpleAsyncHTTPClient(
            force_instance=True,
            resolver=_UnixSocketResolver(endpoint.uds) if endpoint.uds else None,
        )
        try:
            response = await asyncio.wait_for(client.fetch(request, raise_error=False),
                                              self.validation_timeout + 1)
        except (OSError, asyncio.TimeoutError) as e:
            self.log.warning("MCP: could not validate a credential with the Jupyter server "
                             "at %s: %s", endpoint.base_url, type(e).__name__)
            return _UNCHECKED
        finally:
            client.close()
        if response.code == 599:  # tornado's code for a connection error or timeout
            self.log.warning("MCP: could not validate a credential with the Jupyter server "
                             "at %s: %s", endpoint.base_url, type(response.error).__name__)
            return _UNCHECKED
        if response.code in (401, 403):
            self.log.info("MCP: refused a credential the Jupyter server does not accept")
            return Verdict(False, "The Jupyter server does not accept this credential.")
        if response.code != 200:
            self.log.warning("MCP: the Jupyter server answered %s to a credential check",
                             response.code)
            return _UNCHECKED
        try:
            granted = json.loads(response.body)["permissions"]
            allowed = all(
                isinstance(granted.get(resource), list) and action in granted[resource]
                for resource, actions in REQUIRED_PERMISSIONS.items() for action in actions
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return _UNCHECKED
        if not allowed:
            self.log.info("MCP: refused a credential without execute permission on kernels")
            return Verdict(False, "This credential is not allowed to execute code in kernels "
                           "(permission 'execute' on 'kernels'), which reading kernel state "
                           "requires.")
        return Verdict(True, "")


_auth: KernelStateMCPAuth | None = None
# True while a request our middleware let through is being answered (tools check it).
_let_through: ContextVar[bool] = ContextVar("jupyter_kernel_state_mcp_auth", default=False)


def bind(app: Any | None) -> None:
    """Called by the server extension with itself when it starts (None when it stops):
    validation reads the server's address and the ``KernelStateMCPAuth`` config from it."""
    global _auth
    _auth = None if app is None else KernelStateMCPAuth(app.serverapp, parent=app)
    if app is not None:
        configure_mcp_server(app.serverapp, app.log)


def configure_mcp_server(serverapp: Any, log: Any) -> None:
    """Give jupyter-server-mcp, when it runs in this server, safe defaults for what the user
    has not configured: an ephemeral port (``MCPExtensionApp.mcp_port = 0``: two servers on one
    machine never collide, and no other user can squat a well-known port to collect tokens),
    published in its runtime file, on ``127.0.0.1`` (``MCPServer.host``: with ``localhost``
    an ephemeral port can differ between the IPv4 and IPv6 sockets, and only one is published).

    Runs while extensions load, before jupyter-server-mcp starts its server. The
    ``jupyter_server_config.d`` JSON files cannot do this: jupyter_server reads only
    ``jpserver_extensions`` from them.
    """
    try:
        from jupyter_server_mcp.extension import MCPExtensionApp
    except ImportError:
        return
    from traitlets.config import Config

    manager = getattr(serverapp, "extension_manager", None)
    apps = getattr(manager, "extension_apps", {}) or {}
    for mcp_app in [a for group in apps.values() for a in group]:
        if not isinstance(mcp_app, MCPExtensionApp):
            continue
        configured = mcp_app.config
        defaults = Config()
        if "mcp_port" not in configured.get("MCPExtensionApp", {}):
            defaults.MCPExtensionApp.mcp_port = 0
        if "host" not in configured.get("MCPServer", {}):
            defaults.MCPServer.host = "127.0.0.1"
        if defaults:
            mcp_app.update_config(defaults)
        host = mcp_app.config.MCPServer.get("host", "127.0.0.1")
        if host not in ("127.0.0.1", "::1", "localhost"):
            log.warning("jupyter-server-mcp listens on %r, not on loopback: MCP clients on "
                        "other machines can reach it and tokens cross the network in clear.",
                        host)


def current() -> KernelStateMCPAuth | None:
    """The validator of this process, once the server extension has started."""
    return _auth


def require_authenticated() -> None:
    """Raise Refused unless the current MCP request passed our middleware: our tools never
    answer on a server where it is missing (registered by hand, or attached too late)."""
    if not _let_through.get():
        raise Refused("Refused: jupyter_kernel_state's MCP tools answer only behind its "
                      "authentication, which this MCP server does not run.")


async def authenticate_request() -> None:
    """Refuse (raise Refused) unless the current MCP HTTP request carries an accepted token."""
    from fastmcp.server.dependencies import get_http_request

    try:
        authorization = get_http_request().headers.get("authorization")
    except RuntimeError:  # not over HTTP: nothing to authenticate
        raise Refused(f"Unauthorized: no credentials. {TOKEN_REQUIRED}") from None
    auth = current()
    if auth is None:
        raise Refused("Unauthorized: the Jupyter server is not ready to validate tokens.")
    await auth.check(authorization)


def _refusal_factory() -> Callable[[int, str], Exception]:
    """The MCP SDK's error for a refusal: ``MCPError(code, message)`` in mcp 2.x (fastmcp 4),
    ``McpError(ErrorData(...))`` in mcp 1.x (fastmcp 3, which Jupyter AI 3 resolves to)."""
    try:
        from mcp import MCPError  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        from mcp.shared.exceptions import McpError  # type: ignore[attr-defined,unused-ignore]
        from mcp.types import ErrorData

        return lambda code, message: McpError(ErrorData(code=code, message=message))
    return lambda code, message: MCPError(code, message)


@cache
def middleware_class() -> type[Middleware]:
    """Our FastMCP middleware class (built on first use: fastmcp is an optional dependency).
    Raises ImportError when the installed fastmcp or mcp has none of the names it needs."""
    from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

    refusal = _refusal_factory()

    class JupyterTokenMiddleware(Middleware):
        """Runs first for every inbound message (FastMCP's ``on_message``)."""

        async def on_message(self, context: MiddlewareContext[Any],
                             call_next: CallNext[Any, Any]) -> Any:
            try:
                await authenticate_request()
            except Refused as e:
                if context.type == "notification":
                    return None  # dropped: nothing to answer, and no error log per message
                raise refusal(UNAUTHORIZED, e.message) from None
            passed = _let_through.set(True)
            try:
                return await call_next(context)
            finally:
                _let_through.reset(passed)

    return JupyterTokenMiddleware


def attach(fastmcp_server: Any) -> None:
    """Put our middleware first (outermost) on a FastMCP server object, once. Raises when it
    cannot be done; the caller then serves none of our tools."""
    kind = middleware_class()
    chain = fastmcp_server.middleware
    if not isinstance(chain, list):
        raise TypeError(f"the FastMCP server's middleware is a {type(chain).__name__}, "
                        "not a list")
    chain[:] = [kind(), *(m for m in chain if not isinstance(m, kind))]
