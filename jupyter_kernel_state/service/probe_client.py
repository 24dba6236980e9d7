"""The one path to a kernel's probe: its language, its installation, its calls.

Which probe a kernel gets is decided once per language by ``languages.for_language``: the
support says how to install the probe, how to call it and where its reply comes back
(``user_expressions`` for IPython, the request's own output for IRkernel). Everything
else here is language-neutral: the one lock (at most one probe request in a kernel),
deadlines, liveness, shutdowns, the probe id, what the probe declared it can do
(``capabilities``: read from its ``ping`` once per probe id), and turning every failure
into the domain error that says it (``errors.py`` maps each to its HTTP status).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from jupyter_core.utils import ensure_async

from ..errors import (
    Conflict,
    InspectionInterrupted,
    InvalidRequest,
    KernelNotFound,
    KernelStateError,
    KernelUnavailable,
    KernelUnreachable,
    NotFound,
    NotSupported,
    ProbeFailed,
    ProbeMissing,
    Unprocessable,
)
from ..probe import protocol
from .answers import Moment
from .capabilities import Capabilities
from .channels import is_remote
from .connection import KernelConnection, KernelDied, KernelGone, LinkDown, RequestTimeout
from .languages import LanguageSupport, ProbeCall, for_language
from .limits import Limits

# How long an interrupted probe request waits to learn whether a shutdown follows.
INTERRUPT_GRACE_S = 1.0

#: A probe's refusal (protocol.refusal's kind) and the domain error that says it.
_REFUSALS: dict[str, type[KernelStateError]] = {
    "not_found": NotFound,
    "bad_request": InvalidRequest,
    "lazy": Conflict,
    "unprocessable": Unprocessable,
    "unsupported": NotSupported,
    "full": Conflict,
}


def normal_language(name: str) -> str:
    """A language as reported: the support's own spelling ("R"), else lower case."""
    support = for_language(name)
    return support.display_name if support is not None else name.lower()


class ProbeHost(Protocol):
    """What the probe client needs of the kernel it calls (``KernelState``)."""

    kernel_id: str
    #: The probe the last reply came from (None: none since the kernel (re)started).
    probe_id: str | None

    def connection(self) -> KernelConnection: ...

    async def now(self) -> Moment:
        """The kernel as of now (IOPub taken in): whether a cell is running."""

    @property
    def gone(self) -> bool: ...

    @property
    def removed(self) -> bool: ...

    @property
    def execution_count(self) -> int | None: ...

    def new_probe(self, probe_id: object) -> None:
        """A reply came from probe ``probe_id`` (a new one: a process we did not see start)."""


class ProbeClient:
    def __init__(self, host: ProbeHost, km: Any, kernel_specs: Any, limits: Limits) -> None:
        self._host = host
        self._km = km
        self._kernel_specs = kernel_specs  # the server's kernelspec manager
        self._limits = limits
        #: At most one probe request is in a kernel at a time: every call holds this.
        self.lock = asyncio.Lock()
        self.requests = 0  # counted for tests and benchmarks
        self.language = self._spec_language()
        #: The last probe's declaration, by its probe id (one probe per kernel at a time).
        self._declared: tuple[str, Capabilities] | None = None

    # -- the kernel's language ---------------------------------------------------------

    def _spec_language(self) -> str:
        """The kernelspec's language for a local kernel; "" (ask the kernel) otherwise."""
        if is_remote(self._km):  # its spec lives on the gateway, not here
            return ""
        try:
            spec = self._km.kernel_spec
            return normal_language(str(spec.language or "")) if spec is not None else ""
        except Exception:
            return ""

    def on_reply(self, msg: dict[str, Any]) -> None:
        """Our own kernel_info replies tell the kernel's language when its spec did not."""
        if not self.language and msg.get("header", {}).get("msg_type") == "kernel_info_reply":
            name = ((msg.get("content") or {}).get("language_info") or {}).get("name")
            if isinstance(name, str) and name:
                self.language = normal_language(name)

    async def _remote_spec_language(self) -> str:
        """A gateway kernel's language, from the gateway's kernelspec of its name."""
        name = (getattr(self._km, "kernel", None) or {}).get("name")
        if self._kernel_specs is None or not name:
            return ""
        try:
            spec = await asyncio.wait_for(
                ensure_async(self._kernel_specs.get_kernel_spec(name)), self._limits.probe_timeout)
        except Exception:
            spec = None
        if isinstance(spec, dict) and spec.get("name") != name:
            spec = None  # not the spec asked for (see below)
        if not spec:
            # jupyter_server 2.x builds a broken URL for one spec when KERNEL_USERNAME is set
            # (Enterprise Gateway's per-user filter: ".../kernelspecs?user=u/<name>", which
            # answers the whole listing); the listing's own URL is right.
            try:
                listing = await asyncio.wait_for(
                    ensure_async(self._kernel_specs.list_kernel_specs()),
                    self._limits.probe_timeout)
                spec = ((listing or {}).get("kernelspecs") or {}).get(name)
            except Exception:  # the kernel itself will say (kernel_info)
                return ""
        spec = spec.get("spec", spec) if isinstance(spec, dict) else spec
        language = spec.get("language") if isinstance(spec, dict) else getattr(spec, "language", "")
        return normal_language(str(language or ""))

    async def know_language(self) -> str:
        """The kernel's language: its kernelspec's, else what the kernel says it runs."""
        if not self.language and is_remote(self._km):
            self.language = await self._remote_spec_language()
        if not self.language:
            try:
                content = await self._host.connection().request(
                    "kernel_info_request", {}, timeout=self._limits.probe_timeout)
            except RequestTimeout:
                raise KernelUnavailable("Kernel did not say its language in time",
                                        retry_after=2) from None
            except (KernelDied, LinkDown, KernelGone) as e:
                raise self._unavailable(e) from None
            self.on_reply({"header": {"msg_type": "kernel_info_reply"}, "content": content})
        return self.language

    async def support(self) -> LanguageSupport:
        """The probe support of the kernel's language; NotSupported (501) without one."""
        support = for_language(await self.know_language())
        if support is None:
            raise NotSupported(
                f"Kernel language {self.language or 'unknown'!r} is not supported: "
                "only Python and R kernels can be inspected"
            )
        return support

    async def require(self, operation: str, what: str, name: str | None = None) -> None:
        """501 when the kernel's probe has no ``operation``; 400 for a name its language
        cannot have."""
        support = await self.support()
        if name is not None:
            support.check_name(name)
        if not (await self.capabilities()).has(operation):
            raise NotSupported(f"{what} are not available for {self.language} kernels yet "
                               f"(the kernel's probe has no {operation} operation)")

    def declared(self) -> Capabilities | None:
        """What the current probe declared at its ping, if it has answered one."""
        known = self._declared
        probe_id = self._host.probe_id
        return known[1] if known is not None and known[0] == probe_id else None

    async def capabilities(self) -> Capabilities:
        """What the kernel's probe can do, as it declared: one ping the first time a probe
        is asked about (at kernel start the early install's ping has already told), none
        after. While the kernel is busy a ping would wait behind the cell: what the
        language's probe is expected to do stands in (the request is answered from the
        last answer anyway)."""
        support = await self.support()
        known = self.declared()
        if known is None and not (await self._host.now()).busy:
            async with self.lock:
                known = self.declared()
                if known is None:
                    await self.call("ping")
                    known = self.declared()
        return known or Capabilities.expected(support)

    # -- calls -------------------------------------------------------------------------

    async def call(self, op: str, subject: str = "", *, deadline: float | None = None,
                   **fields: Any) -> dict[str, Any]:
        """One probe operation (``protocol.OPERATIONS[op]``), the caller holding ``lock``;
        its answer awaited ``deadline`` seconds (None: ``probe_timeout``).

        A refusal or an interruption is raised as its domain error (``subject`` names what
        was asked about); no answer within the deadline is a 503. Installs the probe first
        when the kernel has none (new or restarted)."""
        try:
            request = protocol.request(op, **fields)
        except protocol.BadRequest as e:
            raise InvalidRequest(str(e)) from None
        support = await self.support()
        if support.needs_execution_count:  # the probe cannot read it (R): it dates changes
            request["ec"] = self._host.execution_count
        call = support.probe_call(request)
        timeout = self._limits.probe_timeout if deadline is None else deadline
        for _attempt in range(2):
            try:
                content, outputs = await self._execute(call, timeout)
            except RequestTimeout:
                raise KernelUnavailable(f"Kernel did not answer within {timeout:g} s",
                                        retry_after=2) from None
            try:
                reply = support.parse_reply(content, outputs)
            except ProbeMissing:
                await self.install()
                continue
            probe_id = reply.get("probe_id")
            self._host.new_probe(probe_id)
            if op == "ping" and isinstance(probe_id, str) and reply.get("ok", True):
                self._declared = (probe_id, Capabilities.from_ping(reply, support))
            await self._raise_refusal(reply, subject)
            return reply
        raise ProbeFailed("Probe could not be installed in the kernel")

    async def install(self) -> None:
        """Send the probe's code; no reply within ``probe_timeout`` (a cell or an earlier
        request still running) is a 503, as for any call."""
        support = await self.support()
        try:
            content, outputs = await self._execute(support.install_call())
        except RequestTimeout:
            raise KernelUnavailable(
                f"Kernel did not answer within {self._limits.probe_timeout:g} s (installing "
                "the probe)",
                retry_after=2) from None
        error = support.install_error(content, outputs)
        if error is not None:
            raise ProbeFailed(f"Probe could not be installed in the kernel ({error})")

    async def _execute(self, call: ProbeCall, timeout: float | None = None
                       ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        connection = self._host.connection()
        if connection.waiting_on and not (await self._host.now()).busy:
            # Still in the kernel, or lost on the way: a later request's reply tells.
            await connection.settle_overdue(self._limits.probe_timeout)
        if connection.waiting_on:  # never queue a second request behind our own
            raise KernelUnavailable(
                "An earlier inspection is still running in the kernel (no answer within "
                f"{self._limits.probe_timeout:g} s); try again later", retry_after=2)
        timeout = self._limits.probe_timeout if timeout is None else timeout
        outputs: list[dict[str, Any]] = []
        try:
            if call.collect_output:
                content, outputs = await connection.execute_collecting(call.code, timeout=timeout)
            else:
                content = await connection.execute_silently(
                    call.code, call.user_expressions, timeout=timeout)
        except KernelDied as e:
            # A process found dead may be a shutdown still finishing (its event not yet
            # seen): then the kernel is gone, not unavailable.
            if await self._ended_by_shutdown(grace_s=0.0):
                raise KernelNotFound(self._host.kernel_id) from None
            raise self._unavailable(e) from None
        except (LinkDown, KernelGone) as e:
            raise self._unavailable(e) from None
        self.requests += 1
        status = content.get("status")
        if status in ("aborted", "abort"):
            raise KernelUnavailable("Kernel aborted the request; try again", retry_after=1)
        if call.user_expressions and not isinstance(content.get("user_expressions"), dict):
            # xeus-python's raw kernel (xpython-raw) answers an error without them; Deno and
            # tslab answer ok without them: the probe cannot be called at all.
            raise NotSupported("This kernel does not evaluate user_expressions, through which "
                               "variables are read (for example xeus-python's raw kernel)")
        if status != "ok":
            raise ProbeFailed(f"Probe request failed: {content.get('ename', 'error')}")
        return content, outputs

    async def _raise_refusal(self, reply: dict[str, Any], subject: str) -> None:
        """A probe's refusal as its domain error. An interruption may be a shutdown on its
        way (jupyter_server and gateways interrupt a kernel before shutting it down): give
        it a moment, and answer that the kernel is gone (404) if it was."""
        if reply.get("ok", True):
            return
        message = str(reply.get("error") or "")
        if reply.get("interrupted"):
            if await self._ended_by_shutdown(grace_s=INTERRUPT_GRACE_S):
                raise KernelNotFound(self._host.kernel_id)
            raise InspectionInterrupted()
        for kind, error in _REFUSALS.items():
            if reply.get(kind):
                if kind == "not_found" and not message:
                    message = f"Variable not found: {subject}"
                raise error(message or "Invalid request")
        raise ProbeFailed(f"Probe error: {message or 'unknown'}")

    async def _ended_by_shutdown(self, *, grace_s: float) -> bool:
        """Whether the kernel turns out to be gone: waits ``grace_s``, and for as long as a
        shutdown is in progress (within the probe deadline), for it to be removed."""
        grace = time.monotonic() + grace_s
        deadline = time.monotonic() + self._limits.probe_timeout
        while not self._host.gone and time.monotonic() < deadline and (
                time.monotonic() < grace or getattr(self._km, "shutting_down", False)):
            await asyncio.sleep(0.02)
        return self._host.gone

    def _unavailable(self, error: Exception) -> KernelStateError:
        """The domain error for a kernel we cannot reach."""
        if isinstance(error, KernelGone) or self._host.removed:
            return KernelNotFound(self._host.kernel_id)
        if isinstance(error, LinkDown):
            return KernelUnreachable(f"{error}; try again", retry_after=2)
        return KernelUnavailable("Kernel is not running (it died or restarted)", retry_after=2)
