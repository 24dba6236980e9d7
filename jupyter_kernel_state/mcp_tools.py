"""MCP tools for jupyter-server-mcp (the MCP server Jupyter AI v3 uses).

Registered through the ``jupyter_server_mcp.tools`` entry point; jupyter-server-mcp runs
them inside the Jupyter server process, so they use the same service (and the same caches
and limits) as the REST routes. Every tool defaults to the kernel the user most recently
ran a cell in.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

from . import mcp_auth
from .errors import KernelStateError
from .service import (
    DetailOptions,
    ImagesOptions,
    KernelStateService,
    PromptOptions,
    SnapshotOptions,
    TimelineOptions,
)

TOOLS = [
    "jupyter_kernel_state.mcp_tools:list_kernels",
    "jupyter_kernel_state.mcp_tools:list_variables",
    "jupyter_kernel_state.mcp_tools:inspect_variable",
    "jupyter_kernel_state.mcp_tools:variable_timeline",
    "jupyter_kernel_state.mcp_tools:get_images",
    "jupyter_kernel_state.mcp_tools:kernel_state_prompt",
]
# Images one get_images call returns at most (each can be up to the per-image cap).
MAX_IMAGES_PER_CALL = 10
_MCP_IMAGE_FORMATS = {"image/png": "png", "image/jpeg": "jpeg"}

_service: KernelStateService | None = None
# Per kernel, the image cursor of the last get_images call: "since your last turn".
_image_cursors: dict[str, int] = {}


def bind(service: KernelStateService | None, app: Any | None = None) -> None:
    """Called by the server extension when it starts, with its service and itself (and with
    None when it stops). ``app`` gives the MCP authentication (``mcp_auth``) the server's
    address and config."""
    global _service
    _service = service
    _image_cursors.clear()
    mcp_auth.bind(app if service is not None else None)


def _get_service() -> KernelStateService:
    if _service is None:
        raise RuntimeError("jupyter_kernel_state is not running in this Jupyter server")
    return _service


def _kernel(service: KernelStateService, kernel_id: str | None) -> str:
    kid = kernel_id or service.most_recent_kernel()
    service.state(kid)  # KernelNotFound for unknown ids
    return kid


async def _run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a service method; its domain errors become tool errors the model can read."""
    try:
        result = fn(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result
    except KernelStateError as e:
        raise ValueError(e.message) from None


def _compact(variable: dict[str, Any]) -> dict[str, Any]:
    keep = ("name", "type", "kind", "size", "shape", "dtype", "preview", "truncated", "error",
            "change", "changed_at", "changes", "description", "constraints")
    out = {k: variable.get(k) for k in keep if variable.get(k) not in (None, [], False)}
    if variable.get("likely_secret"):
        out["preview"] = "masked (looks like a credential)"
    return out


async def list_kernels() -> dict[str, Any]:
    """List the running Jupyter kernels: id, language, state, execution count and how many
    variables and images each has. Use a kernel_id from here in the other tools."""
    service = _get_service()
    return {"kernels": await _run(service.list_kernels)}


async def list_variables(
    kernel_id: str | None = None,
    detail: str = "full",
    include: str = "",
    limit: int = 100,
    offset: int = 0,
    sort: str = "name",
    filter: str | None = None,
) -> dict[str, Any]:
    """List the variables defined in a kernel. Reuse these instead of recreating data.

    detail — ask for as little as answers your question, then more:
    - "names": name, type and kind only (a few tokens per variable): to learn what exists
      in a large namespace.
    - "schema": adds size, shape, dtype, memory, whether it changed, and for tables their
      columns with dtypes (up to 50): to write code against the data without seeing it.
    - "full" (default): adds a short preview of each value, the structural changes of the
      last execution and the user's descriptions: when values matter.
    For one variable in depth use inspect_variable; for its history, variable_timeline.

    include: comma list of private, modules, callables, classes (hidden by default).
    sort: name, type, size, memory or changed, optionally with :asc or :desc.
    filter: only names or type names matching this glob (e.g. "df_*" or "DataFrame").
    kernel_id: defaults to the most recently used kernel.
    """
    service = _get_service()
    kid = await _run(_kernel, service, kernel_id)
    options = await _run(SnapshotOptions.create, service.limits, include=include, limit=limit,
                         offset=offset, sort=sort, filter=filter, detail=detail)
    snapshot = await _run(service.snapshot, kid, options)
    if options.detail == "full":
        variables = [_compact(v) for v in snapshot["variables"] if not v["hidden_from_prompt"]]
    else:  # brief entries carry no value; the user's hidden variables are still left out
        hidden = await _run(service.hidden_names, kid)
        variables = [{k: x for k, x in v.items() if x not in (None, [], False)}
                     for v in snapshot["variables"] if v["name"] not in hidden]
    return {
        "kernel_id": kid,
        "detail": options.detail,
        "execution_count": snapshot["execution_count"],
        "stale": snapshot["stale"],
        "total": snapshot["total"],
        "offset": snapshot["offset"],
        "variables": variables,
        "removed": snapshot["removed"],
    }


async def inspect_variable(
    name: str,
    kernel_id: str | None = None,
    path: list[str] | None = None,
    max_chars: int = 4000,
) -> dict[str, Any]:
    """Inspect one variable in depth: type, bounded repr, public attributes, DataFrame
    columns with dtypes and first rows, dict keys, len, signature and doc for callables,
    and children you can drill into by passing their access_key values as `path`."""
    service = _get_service()
    kid = await _run(_kernel, service, kernel_id)
    options = await _run(DetailOptions.create, service.limits, name, path=path,
                         max_chars=max_chars)
    detail = await _run(service.detail, kid, options)
    if detail.get("hidden_from_prompt"):
        raise ValueError(f"The user hid this variable from assistants: {name}")
    if detail.get("likely_secret"):
        for field in ("preview", "repr", "llm_repr"):
            if detail.get(field):
                detail[field] = "masked (looks like a credential)"
        detail["children"] = []
    return {"kernel_id": kid, **detail}


async def variable_timeline(
    name: str,
    kernel_id: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """When a variable was created, changed or deleted, and how: the executions (cell
    numbers) with structural changes such as "rows 100,000 → 95,991" or "column revenue
    added". Use it to find which cell changed a variable instead of re-running cells.
    Entries are oldest first (the last `limit`, at most 100)."""
    service = _get_service()
    kid = await _run(_kernel, service, kernel_id)
    options = await _run(TimelineOptions.create, service.limits, name, limit=limit)
    if name in await _run(service.hidden_names, kid):
        raise ValueError(f"The user hid this variable from assistants: {name}")
    timeline = await _run(service.timeline, kid, options)
    return {"kernel_id": kid, **timeline}


async def get_images(
    kernel_id: str | None = None,
    since: int | None = None,
    limit: int = 4,
) -> list[Any]:
    """Images (plots) the kernel produced since your last call (or since `since`), newest
    last, tagged with the execution count that drew them. PNG and JPEG come back as images;
    other formats are described."""
    # Present wherever jupyter-server-mcp is (it depends on fastmcp and the MCP SDK).
    from fastmcp.utilities.types import Image
    from mcp.types import TextContent

    service = _get_service()
    kid = await _run(_kernel, service, kernel_id)
    cursor = since if since is not None else _image_cursors.get(kid, 0)
    options = await _run(ImagesOptions.create, service.limits, since=cursor,
                         limit=min(limit, MAX_IMAGES_PER_CALL))
    listing = await _run(service.images, kid, options)
    _image_cursors[kid] = listing["next_since"]
    content: list[Any] = [TextContent(type="text", text=json.dumps({
        "kernel_id": kid,
        "images": [{k: i[k] for k in ("id", "mime", "width", "height", "execution_count")}
                   for i in listing["images"]],
        "next_since": listing["next_since"],
        "more": listing["more"],
        "dropped": listing["dropped"],
    }))]
    for meta in listing["images"]:
        image = await _run(service.image, kid, meta["id"])
        fmt = _MCP_IMAGE_FORMATS.get(image.mime)
        if fmt is not None:
            content.append(Image(data=image.data, format=fmt))
    return content


async def kernel_state_prompt(
    kernel_id: str | None = None,
    budget: int = 6000,
    since: int | None = None,
    history: int = 0,
    images: bool = True,
) -> str:
    """A compact, budgeted summary of the kernel for your context: the variables you can
    reuse (with shapes, columns and previews), what changed, images produced, and optionally
    the last `history` steps. Never longer than `budget` characters; secrets are masked."""
    service = _get_service()
    kid = await _run(_kernel, service, kernel_id)
    options = await _run(PromptOptions.create, service.limits, budget=budget, since=since,
                         history=history, images=images)
    result = await _run(service.prompt, kid, options)
    return str(result.text)
