"""The server-wide service: one KernelState per running kernel, built on demand.

Kernels are attached when they start (through jupyter_server's kernel action events) so
that IOPub is followed from the first execution; any kernel asked about later is attached
then. Handlers, MCP tools and the CLI all go through this class.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import logging
import re
import time
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRequest, KernelNotFound, KernelUnavailable, NotFound
from ..prompt import build_prompt
from ..prompt_model import PromptInput, PromptResult
from .annotations import AnnotationStore
from .channels import is_remote
from .images import StoredImage
from .kernel_state import KernelState
from .languages import for_language
from .limits import Limits
from .presenter import FragmentPresenter, SnapshotResponse, present, project
from .prompt_stable import StableParts, changes_since
from .queries import (
    AnnotationUpdate,
    DetailOptions,
    HistoryOptions,
    ImagesOptions,
    PromptOptions,
    SnapshotOptions,
    validate_name,
)
from .variable_queries import (
    CodeOptions,
    CompareOptions,
    CountOptions,
    FindingsOptions,
    KeptOptions,
    ProfileOptions,
    RowsOptions,
    TimelineOptions,
)

if TYPE_CHECKING:
    from ..files.tables import FileTables

KERNEL_ACTIONS_SCHEMA = "https://events.jupyter.org/jupyter_server/kernel_actions/v1"
# How long to wait for a started kernel to be listed (steps × step).
START_WAIT_STEPS = 600
START_WAIT_STEP_S = 0.05
# Presented snapshots kept server-wide (each with its encoded body), and how long a
# kernel's notebook path is trusted before the session list is asked again.
PRESENTED_CACHE_SIZE = 64
SCOPE_TTL_S = 5.0
#: Variables and runs a prompt asks the probe for: about one line per 24 characters of
#: budget, at most PROMPT_MAX_VARIABLES (the cost of a 500-name page, whatever the budget).
PROMPT_MAX_VARIABLES = 500
PROMPT_MIN_VARIABLES = 20
PROMPT_CHARS_PER_LINE = 24
_IMAGE_ID_RE = re.compile(r"^[0-9a-f]{16}$")
_KERNEL_ID_RE = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                           r"[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_KERNEL_PREFIX_RE = re.compile(r"^[0-9a-fA-F-]+$")


def prompt_limit(budget: int) -> int:
    """How many variables (and runs) a prompt of ``budget`` characters asks the probe for."""
    return max(PROMPT_MIN_VARIABLES, min(PROMPT_MAX_VARIABLES, budget // PROMPT_CHARS_PER_LINE))


class KernelStateService:
    def __init__(
        self,
        kernel_manager: Any,
        limits: Limits,
        log: logging.Logger | None = None,
        *,
        annotations: AnnotationStore | None = None,
        session_manager: Any = None,
    ) -> None:
        self._multi = kernel_manager
        self.limits = limits
        self.log = log or logging.getLogger("jupyter_kernel_state")
        self.annotations = annotations or AnnotationStore(None, self.log)
        self._sessions = session_manager
        self._states: dict[str, KernelState] = {}
        self._presented: collections.OrderedDict[tuple[object, ...], SnapshotResponse] = (
            collections.OrderedDict()
        )
        self._fragments = FragmentPresenter(limits.presented_fragments)
        self._scopes: dict[str, tuple[float, str]] = {}
        self._stable_parts = StableParts()  # the cache-friendly prompt's stable parts
        self._tasks: set[asyncio.Task[None]] = set()
        self._wire_keeper: asyncio.Future[None] | None = None
        #: Tables read from files (``files/…``), set by the extension app.
        self.files: FileTables | None = None

    # -- kernels -----------------------------------------------------------------------

    def state(self, kernel_id: str) -> KernelState:
        """The KernelState of a running kernel; KernelNotFound for anything else."""
        if not _KERNEL_ID_RE.match(kernel_id) or kernel_id not in self._multi:
            raise KernelNotFound(kernel_id[:100])
        state = self._states.get(kernel_id)
        if state is None:
            state = self._attach(kernel_id)
        elif state.gone:  # its gateway said so; the server's own list may lag behind
            raise KernelNotFound(kernel_id)
        return state

    def _attach(self, kernel_id: str) -> KernelState:
        km = self._multi.get_kernel(kernel_id)
        state = KernelState(kernel_id, km, self.limits, self.log,
                            getattr(self._multi, "kernel_spec_manager", None))
        self._states[kernel_id] = state
        state.connection()  # follow IOPub from now on
        if (is_remote(km) and self.limits.gateway_release_interval > 0
                and (self._wire_keeper is None or self._wire_keeper.done())):
            self._wire_keeper = asyncio.ensure_future(self._mind_gateway_wires())
        return state

    async def _mind_gateway_wires(self) -> None:
        """Gateway kernels: our websocket counts as a connection there, and a gateway's
        culler skips connected kernels. Let it go when it is the kernel's only one, take it
        back when another client connects (KernelState.release_if_alone)."""
        interval = self.limits.gateway_release_interval
        while True:
            await asyncio.sleep(interval)
            for state in list(self._states.values()):
                if state.gone:
                    continue
                try:
                    if not await state.release_if_alone(interval):
                        await state.reopen_if_joined(interval)
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # the gateway is slow or away: next time
                    self.log.debug("jupyter_kernel_state: checking the gateway's clients "
                                   "of %s failed: %s", state.kernel_id, e)

    def kernel_ids(self) -> list[str]:
        return [kernel_id for kernel_id in self._multi.list_kernel_ids()
                if not (kernel_id in self._states and self._states[kernel_id].gone)]

    async def list_kernels(self) -> list[dict[str, Any]]:
        """Each running kernel's summary, with the notebook or console ``path`` its session
        names (None for a kernel without a session)."""
        paths = await self.session_paths()
        summaries = []
        for kernel_id in self.kernel_ids():
            try:
                summaries.append({**self.state(kernel_id).summary(),
                                  "path": paths.get(kernel_id)})
            except KernelNotFound:  # gone between the listing and now
                continue
        return summaries

    def most_recent_kernel(self) -> str:
        """The kernel whose user last ran something (else the newest); 404 when none."""
        ids = self.kernel_ids()
        if not ids:
            raise NotFound("No kernel is running")

        def recency(kernel_id: str) -> tuple[float, float]:
            state = self.state(kernel_id)
            state.sync()
            ran = state.tracker.last_execution_at or 0.0
            activity = getattr(self._multi.get_kernel(kernel_id), "last_activity", None)
            return (ran, activity.timestamp() if activity is not None else 0.0)

        return max(ids, key=recency)

    # -- variables ---------------------------------------------------------------------

    async def scope(self, kernel_id: str) -> str:
        """Where annotations of this kernel live: its notebook's path, else its id."""
        cached = self._scopes.get(kernel_id)
        if cached is not None and cached[0] > time.monotonic():
            return cached[1]
        scope = await self._lookup_scope(kernel_id)
        self._scopes[kernel_id] = (time.monotonic() + SCOPE_TTL_S, scope)
        return scope

    async def _lookup_scope(self, kernel_id: str) -> str:
        path = await self.kernel_path(kernel_id)
        return f"path:{path}" if path else f"kernel:{kernel_id}"

    async def session_paths(self) -> dict[str, str]:
        """Each kernel's notebook or console path, from the server's sessions (a kernel
        without a session has none)."""
        paths: dict[str, str] = {}
        if self._sessions is not None:
            try:
                for session in await self._sessions.list_sessions():
                    kernel_id = (session.get("kernel") or {}).get("id")
                    if kernel_id and session.get("path"):
                        paths.setdefault(kernel_id, str(session["path"]))
            except Exception:  # sessions are a nicety; never fail a request on them
                self.log.debug("jupyter_kernel_state: listing sessions failed", exc_info=True)
        return paths

    async def kernel_path(self, kernel_id: str) -> str | None:
        return (await self.session_paths()).get(kernel_id)

    def resolve_kernel_id(self, id_or_prefix: str) -> str:
        """A running kernel's id from the id itself or a prefix only it has; KernelNotFound
        when none has it, InvalidRequest (naming them) when several do."""
        if id_or_prefix in self._multi:
            return id_or_prefix
        if not id_or_prefix or len(id_or_prefix) > 36 or not _KERNEL_PREFIX_RE.match(
                id_or_prefix):
            raise KernelNotFound(id_or_prefix[:100])
        matches = [k for k in self.kernel_ids() if k.startswith(id_or_prefix)]
        if not matches:
            raise KernelNotFound(id_or_prefix)
        if len(matches) > 1:
            raise InvalidRequest(f"Kernel id prefix {id_or_prefix!r} matches "
                                 f"{len(matches)} kernels: {', '.join(sorted(matches)[:10])}")
        return matches[0]

    async def snapshot(self, kernel_id: str, options: SnapshotOptions) -> dict[str, Any]:
        return (await self.snapshot_response(kernel_id, options)).payload

    async def snapshot_response(
        self, kernel_id: str, options: SnapshotOptions
    ) -> SnapshotResponse:
        """The served form of a snapshot, built once per (snapshot, annotations)."""
        state = self.state(kernel_id)
        raw = await state.snapshot(options)
        scope = await self.scope(kernel_id)
        key = (kernel_id, raw["epoch"], raw["generation"], raw["taken_at"], options.key,
               raw["stale"], raw["kernel_busy"], scope, self.annotations.version)
        response = self._presented.get(key)
        if response is None:
            notes = self.annotations.for_scope(scope)
            header = {k: v for k, v in raw.items() if k not in ("fragments", "schema")}
            header["detail"] = options.detail
            variables = self._fragments.present_all(
                raw["fragments"], notes, (scope, self.annotations.version))
            if options.detail != "full":
                variables = project(variables, options.detail, raw.get("schema") or {})
            etag = '"' + hashlib.sha1(repr(key).encode(), usedforsecurity=False).hexdigest() + '"'
            response = SnapshotResponse(header, variables, etag)
            self._presented[key] = response
            while len(self._presented) > PRESENTED_CACHE_SIZE:
                self._presented.popitem(last=False)
        else:
            self._presented.move_to_end(key)
        return response

    async def detail(self, kernel_id: str, options: DetailOptions) -> dict[str, Any]:
        detail = await self.state(kernel_id).detail(options)
        detail.setdefault("memory", detail.get("nbytes"))  # R's detail sends no memory
        notes = self.annotations.for_scope(await self.scope(kernel_id))
        if options.path:
            return present(detail, {}, reveal=options.reveal, within=options.name)
        return present(detail, notes, reveal=options.reveal)

    async def rows(self, kernel_id: str, options: RowsOptions) -> dict[str, Any]:
        return await self.state(kernel_id).rows(options)

    async def count(self, kernel_id: str, options: CountOptions) -> dict[str, Any]:
        return await self.state(kernel_id).count(options)

    async def profile(self, kernel_id: str, options: ProfileOptions) -> dict[str, Any]:
        return await self.state(kernel_id).profile(options)

    async def findings(self, kernel_id: str, options: FindingsOptions) -> dict[str, Any]:
        return await self.state(kernel_id).findings(options)

    async def code(self, kernel_id: str, options: CodeOptions) -> dict[str, Any]:
        return await self.state(kernel_id).code(options)

    async def compare(self, kernel_id: str, options: CompareOptions) -> dict[str, Any]:
        return await self.state(kernel_id).compare(options)

    async def keep(self, kernel_id: str, options: KeptOptions) -> dict[str, Any]:
        return await self.state(kernel_id).keep(options)

    async def kept(self, kernel_id: str, options: KeptOptions) -> dict[str, Any]:
        return await self.state(kernel_id).kept(options)

    async def drop_kept(self, kernel_id: str, options: KeptOptions) -> dict[str, Any]:
        return await self.state(kernel_id).drop_kept(options)

    async def hidden_names(self, kernel_id: str) -> set[str]:
        """The variables the user hid from assistants in this kernel's notebook."""
        notes = self.annotations.for_scope(await self.scope(kernel_id))
        return {name for name, note in notes.items() if note.get("hidden_from_prompt")}

    async def delete_variable(self, kernel_id: str, name: str) -> None:
        await self.state(kernel_id).delete_variable(validate_name(name))

    async def timeline(self, kernel_id: str, options: TimelineOptions) -> dict[str, Any]:
        return await self.state(kernel_id).timeline(options)

    # -- annotations -------------------------------------------------------------------

    async def put_annotation(self, kernel_id: str, update: AnnotationUpdate) -> dict[str, Any]:
        state = self.state(kernel_id)
        # Only variables that exist (and are not hidden internals) can be annotated.
        await state.detail(DetailOptions(name=update.name, max_chars=1))
        return self.annotations.put(await self.scope(kernel_id), update.name, update.note)

    async def delete_annotation(self, kernel_id: str, name: str) -> None:
        validate_name(name)
        self.state(kernel_id)
        if not self.annotations.delete(await self.scope(kernel_id), name):
            raise NotFound(f"No annotation for variable: {name}")

    # -- images and history ------------------------------------------------------------

    def images(self, kernel_id: str, options: ImagesOptions) -> dict[str, Any]:
        state = self.state(kernel_id)
        state.sync()
        return state.images.listing(since=options.since, limit=options.limit)

    def image(self, kernel_id: str, image_id: str) -> StoredImage:
        state = self.state(kernel_id)
        state.sync()
        image = state.images.get(image_id) if _IMAGE_ID_RE.match(image_id) else None
        if image is None:
            raise NotFound(f"Image not found: {image_id[:40]}")
        return image

    def history(self, kernel_id: str, options: HistoryOptions) -> dict[str, Any]:
        state = self.state(kernel_id)
        state.sync()
        return state.history.listing(options.limit)

    # -- the assistant's prompt --------------------------------------------------------

    async def prompt(self, kernel_id: str, options: PromptOptions) -> PromptResult:
        started = time.perf_counter()
        state = self.state(kernel_id)
        steps = options.history
        state.sync()
        generation = state.tracker.generation
        since = None if options.since is None else min(options.since, generation)  # future → now
        stable_key = (kernel_id, state.epoch, options.budget, self.annotations.version)
        stable = self._stable_parts.get(stable_key)
        # Changes since the stable part at the latest: the lines after it bring it up to date.
        changes_from = changes_since(stable, since, generation)
        try:
            support = for_language(await state.know_language())
        except KernelUnavailable:
            support = None
        digest: dict[str, Any] | None = None
        variables: list[dict[str, Any]] = []
        if support is not None:
            notes = self.annotations.for_scope(await self.scope(kernel_id))
            # Annotated variables are ranked high: the probe sends them whatever their kind.
            pinned = tuple(sorted(name for name, note in notes.items()
                                  if note.get("description") or note.get("constraints")))
            try:
                if (await state.probe.capabilities()).has("digest"):
                    digest = await state.digest(
                        since=changes_from, limit=prompt_limit(options.budget),
                        preview_chars=self.limits.preview_chars,
                        pinned=pinned[:PROMPT_MAX_VARIABLES])
                else:  # a probe without the digest op: the most recently changed page
                    digest = await self._digest_of_page(kernel_id, changes_from)
            except KernelUnavailable:
                digest = None
            if digest is not None:
                variables = [present(v, notes) for v in digest.get("variables") or []]
                # A table's findings, when the probe knows them (one short clause).
                known = digest.get("findings") or {}
                for v in variables:
                    if v.get("name") in known and v.get("kind") == "dataframe":
                        v["findings"] = known[v["name"]]
        counts = (digest or {}).get("changed") or {}
        image_from = since if since is not None else max(0, generation - 1)
        data = PromptInput(
            language=state.language,
            execution_count=(digest or {}).get("execution_count",
                                                state.tracker.execution_count),
            variables=variables,
            total=(digest or {}).get("total", 0),
            removed=list(counts.get("removed_names") or []),
            generation=generation,
            since_label=(f"execution {state.tracker.execution_count_at(changes_from) or 0}"
                         if changes_from is not None else None),
            since_execution=(state.tracker.execution_count_at(changes_from) or 0
                             if changes_from is not None else None),
            restarted=since is not None and state.epoch > 0 and since < state.epoch_started_at,
            stale=bool(digest and digest.get("stale")),
            images=state.images.since_generation(image_from) if options.images else [],
            history=state.history.listing(steps) if steps else None,
            history_steps=steps,
            changed_counts={k: int(counts.get(k) or 0) for k in ("new", "modified", "removed")},
            runs=list((digest or {}).get("runs") or []),
            timelines=(digest or {}).get("timelines") or None,
            stable=stable,
        )
        result = build_prompt(data, options.budget)
        self._stable_parts.put(stable_key, result.stable)
        self.log.debug("jupyter_kernel_state: prompt for %s in %.1f ms", kernel_id,
                       (time.perf_counter() - started) * 1000)
        return result

    async def _digest_of_page(self, kernel_id: str, since: int | None) -> dict[str, Any]:
        """What the prompt needs, from one snapshot page sorted by change (for probes
        without a digest op; their namespaces are listed up to ``max_page_size``)."""
        snapshot = await self.snapshot(kernel_id, SnapshotOptions(
            limit=self.limits.max_page_size, sort="changed", since=since,
            preview_chars=self.limits.preview_chars))
        variables = snapshot.get("variables") or []
        removed = list(snapshot.get("removed") or [])
        return {
            "execution_count": snapshot.get("execution_count"),
            "total": snapshot.get("total", 0),
            "variables": variables,
            "stale": snapshot.get("stale"),
            "changed": {
                "new": sum(1 for v in variables if v.get("change") == "new"),
                "modified": sum(1 for v in variables if v.get("change") == "modified"),
                "removed": len(removed),
                "removed_names": removed,
            },
        }

    # -- lifecycle ---------------------------------------------------------------------

    async def on_kernel_action(self, logger: Any, schema_id: str, data: dict[str, Any]) -> None:
        """Listener for jupyter_server's kernel action events."""
        if data.get("status") != "success":
            return
        kernel_id = data.get("kernel_id")
        action = data.get("action")
        if not isinstance(kernel_id, str):
            return
        if action == "shutdown":
            self.forget(kernel_id)
        elif action == "start":
            self._spawn(self._attach_when_ready(kernel_id))
        elif action == "restart" and kernel_id in self._states:
            state = self._states[kernel_id]
            state.restarted(reconnect=True)
            state.connection()
            self._spawn(state.prepare())

    async def _attach_when_ready(self, kernel_id: str) -> None:
        # The event fires before the multi-kernel manager lists the kernel.
        for _ in range(START_WAIT_STEPS):
            if kernel_id in self._multi:
                break
            await asyncio.sleep(START_WAIT_STEP_S)
        else:
            return
        state = self._states.get(kernel_id) or self._attach(kernel_id)
        await state.prepare()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def forget(self, kernel_id: str) -> None:
        self._scopes.pop(kernel_id, None)
        self._stable_parts.forget(kernel_id)
        for key in [k for k in self._presented if k[0] == kernel_id]:
            del self._presented[key]
        state = self._states.pop(kernel_id, None)
        if state is not None:
            state.remove()

    async def stop(self) -> None:
        if self.files is not None:
            await self.files.stop()
        if self._wire_keeper is not None:
            self._wire_keeper.cancel()
        for task in list(self._tasks):
            task.cancel()
        for kernel_id in list(self._states):
            self.forget(kernel_id)
        # Let the cancelled readers and reconnect loops finish before the loop closes.
        for _ in range(3):
            await asyncio.sleep(0)
