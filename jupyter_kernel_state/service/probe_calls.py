"""The kernel's language and the round trips to its probe, for ``KernelState``.

Which probe a kernel gets is decided once per language by ``languages.for_language``: the
support says how to install the probe, how to call it and where its reply comes back
(``user_expressions`` for IPython, the request's own output for IRkernel). Everything
else here is language-neutral: deadlines, liveness, shutdowns, the probe id.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

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
    Unprocessable,
)
from .channels import is_remote
from .connection import KernelConnection, KernelDied, KernelGone, LinkDown, RequestTimeout
from .languages import LanguageSupport, ProbeCall, ProbeError, ProbeMissing, for_language
from .limits import Limits
from .tracker import ExecutionTracker

# How long an interrupted probe request waits to learn whether a shutdown follows.
INTERRUPT_GRACE_S = 1.0


def normal_language(name: str) -> str:
    """A language as reported: the support's own spelling ("R"), else lower case."""
    support = for_language(name)
    return support.display_name if support is not None else name.lower()


def _raise_refusal(reply: dict[str, Any], name: str) -> None:
    """Turn a probe's refusal into the matching domain error."""
    if reply.get("ok", True):
        return
    message = str(reply.get("error") or "")
    if reply.get("not_found"):
        raise NotFound(message or f"Variable not found: {name}")
    if reply.get("bad_request"):
        raise InvalidRequest(message or "Invalid request")
    if reply.get("lazy"):
        raise Conflict(message)
    if reply.get("unprocessable"):
        raise Unprocessable(message)
    if reply.get("interrupted"):
        raise InspectionInterrupted()
    raise ProbeFailed(f"Probe error: {message or 'unknown'}")


class ProbeCalls:
    """Mixed into KernelState: the attributes below are KernelState's."""

    kernel_id: str
    language: str
    probe_id: str | None
    probe_requests: int
    tracker: ExecutionTracker
    _km: Any
    _kernel_specs: Any
    _limits: Limits
    _fresh_epoch: bool

    def connection(self) -> KernelConnection:
        raise NotImplementedError

    def restarted(self, *, reconnect: bool = False) -> None:
        raise NotImplementedError

    def _overdue_message(self) -> str | None:
        raise NotImplementedError

    @property
    def gone(self) -> bool:
        raise NotImplementedError

    @property
    def removed(self) -> bool:
        raise NotImplementedError

    # -- the kernel's language ---------------------------------------------------------

    def _language(self) -> str:
        """The kernelspec's language for a local kernel; "" (ask the kernel) otherwise."""
        if is_remote(self._km):  # its spec lives on the gateway, not here
            return ""
        try:
            spec = self._km.kernel_spec
            return normal_language(str(spec.language or "")) if spec is not None else ""
        except Exception:
            return ""

    def _on_reply(self, msg: dict[str, Any]) -> None:
        """Our own kernel_info replies tell the kernel's language when its spec did not."""
        if not self.language and msg.get("header", {}).get("msg_type") == "kernel_info_reply":
            name = ((msg.get("content") or {}).get("language_info") or {}).get("name")
            if isinstance(name, str) and name:
                self.language = normal_language(name)

    @property
    def is_python(self) -> bool:
        return self.language == "python"

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
                content = await self.connection().request(
                    "kernel_info_request", {}, timeout=self._limits.probe_timeout)
            except RequestTimeout:
                raise KernelUnavailable("Kernel did not say its language in time",
                                        retry_after=2) from None
            except (KernelDied, LinkDown, KernelGone) as e:
                raise self._unavailable(e) from None
            self._on_reply({"header": {"msg_type": "kernel_info_reply"}, "content": content})
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

    # -- probe round trips -------------------------------------------------------------

    async def _execute(self, call: ProbeCall) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        connection = self.connection()
        overdue = self._overdue_message()
        if overdue is not None:  # never queue a second request behind our own
            raise KernelUnavailable(overdue, retry_after=2)
        timeout = self._limits.probe_timeout
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
                raise KernelNotFound(self.kernel_id) from None
            raise self._unavailable(e) from None
        except (LinkDown, KernelGone) as e:
            raise self._unavailable(e) from None
        self.probe_requests += 1
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

    async def _raise_for_reply(self, reply: dict[str, Any], name: str) -> None:
        """A probe's refusal as a domain error. An interruption may be a shutdown on its way
        (jupyter_server and gateways interrupt a kernel before shutting it down): give it a
        moment, and answer that the kernel is gone (404) if it was."""
        try:
            _raise_refusal(reply, name)
        except InspectionInterrupted:
            if await self._ended_by_shutdown(grace_s=INTERRUPT_GRACE_S):
                raise KernelNotFound(self.kernel_id) from None
            raise

    async def _ended_by_shutdown(self, *, grace_s: float) -> bool:
        """Whether the kernel turns out to be gone: waits ``grace_s``, and for as long as a
        shutdown is in progress (within the probe deadline), for it to be removed."""
        grace = time.monotonic() + grace_s
        deadline = time.monotonic() + self._limits.probe_timeout
        while not self.gone and time.monotonic() < deadline and (
                time.monotonic() < grace or getattr(self._km, "shutting_down", False)):
            await asyncio.sleep(0.02)
        return self.gone

    def _unavailable(self, error: Exception) -> KernelStateError:
        """The domain error for a kernel we cannot reach."""
        if isinstance(error, KernelGone) or self.removed:
            return KernelNotFound(self.kernel_id)
        if isinstance(error, LinkDown):
            return KernelUnreachable(f"{error}; try again", retry_after=2)
        return KernelUnavailable("Kernel is not running (it died or restarted)", retry_after=2)

    async def install_probe(self) -> None:
        support = await self.support()
        content, _outputs = await self._execute(support.install_call())
        if content.get("status") != "ok":  # pragma: no cover - _execute raised already
            raise ProbeFailed("Probe could not be installed")

    async def call_probe(self, request: dict[str, Any]) -> dict[str, Any]:
        """One probe call; installs the probe first when the kernel has none."""
        support = await self.support()
        if support.needs_execution_count:  # the probe cannot read it (R): it dates changes
            request = {**request, "ec": self.tracker.execution_count}
        call = support.probe_call(request)
        for _attempt in range(2):
            content, outputs = await self._execute(call)
            try:
                reply = support.parse_reply(content, outputs)
            except ProbeMissing:
                await self.install_probe()
                continue
            except ProbeError as e:
                raise ProbeFailed(f"Probe error: {e}") from None
            self._check_probe_id(reply.get("probe_id"))
            return reply
        raise ProbeFailed("Probe could not be installed in the kernel")

    def _check_probe_id(self, probe_id: Any) -> None:
        if self.probe_id is not None and probe_id != self.probe_id:
            # A new probe instance means a new kernel process that we did not see restart.
            self.restarted()
        self.probe_id = probe_id
        self._fresh_epoch = False
