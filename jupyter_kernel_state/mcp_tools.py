"""MCP tools for jupyter-server-mcp (the MCP server Jupyter AI v3 uses).

Registered through the ``jupyter_server_mcp.tools`` entry point (``mcp_server``, which
serves them only behind our authentication); jupyter-server-mcp runs them inside the
Jupyter server process, so they use the same service (and the same caches and limits) as
the REST routes. Every tool defaults to the kernel the user most recently ran a cell in,
accepts a unique prefix of a kernel id, and names the kernel it read (id and notebook path)
in its result, so an agent is never misled about which kernel answered.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from . import mcp_auth
from .client import comparison_notes
from .errors import KernelStateError, NotFound
from .rest import ROUTES, parse
from .service import KernelStateService

# Images one get_images call returns at most (each can be up to the per-image cap).
MAX_IMAGES_PER_CALL = 10
# Rows and columns one get_rows call returns at most (an agent's context is small).
MAX_ROWS_PER_CALL = 200
MAX_COLUMNS_PER_CALL = 50
# Columns one describe_table call profiles at most, and the most frequent values it lists
# per column (the profile has up to 10; the rest are counted in `other`).
MAX_PROFILE_COLUMNS_PER_CALL = 50
#: Data-quality findings describe_table lists (the most severe first).
MAX_FINDINGS_PER_CALL = 20
MAX_TOP_PER_CALL = 5
# Rows one compare_tables call lists at most, and compared columns it names in its summary.
MAX_COMPARED_ROWS_PER_CALL = 50
MAX_SUMMARY_COLUMNS = 5
# A notebook path in a tool's text is cut to its last this many characters.
MAX_PATH_CHARS = 120
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
    """The service, for a request our MCP authentication let through (else a tool error)."""
    from fastmcp.exceptions import ToolError

    try:
        mcp_auth.require_authenticated()
    except mcp_auth.Refused as e:
        raise ToolError(e.message) from None
    if _service is None:
        raise ToolError("jupyter_kernel_state is not running in this Jupyter server")
    return _service


async def _kernel(service: KernelStateService, kernel_id: str | None) -> dict[str, Any]:
    """The kernel a tool reads, ``{kernel_id, kernel_path}``: the given id or a unique prefix
    of one, else the kernel the user most recently ran a cell in."""
    kid = await _run(service.resolve_kernel_id, kernel_id) if kernel_id else None
    if kid is None:
        kid = await _run(service.most_recent_kernel)
    await _run(service.state, kid)  # KernelNotFound for a kernel gone meanwhile
    return {"kernel_id": kid, "kernel_path": await service.kernel_path(kid)}


def _named(kernel: dict[str, Any]) -> str:
    path = kernel.get("kernel_path")
    if path and len(path) > MAX_PATH_CHARS:
        path = "…" + path[-(MAX_PATH_CHARS - 1):]
    return f"kernel {kernel['kernel_id']}" + (f" ({path})" if path else "")


async def _run(fn: Callable[..., Any], *args: Any, kernel: dict[str, Any] | None = None,
               **kwargs: Any) -> Any:
    """Call a service method; its domain errors become tool errors the model can read (one
    log line each, no traceback). A missing variable's error names the kernel searched."""
    from fastmcp.exceptions import ToolError

    try:
        result = fn(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result
    except KernelStateError as e:
        message = e.message
        if kernel is not None and isinstance(e, NotFound):
            message = f"{message} in {_named(kernel)}"
        raise ToolError(message) from None


def _compact(variable: dict[str, Any]) -> dict[str, Any]:
    keep = ("name", "type", "kind", "size", "shape", "dtype", "preview", "truncated", "error",
            "change", "changed_at", "changes", "description", "constraints")
    out = {k: variable.get(k) for k in keep if variable.get(k) not in (None, [], False)}
    if variable.get("likely_secret"):
        out["preview"] = "masked (looks like a credential)"
    return out


async def list_kernels() -> dict[str, Any]:
    """List the running Jupyter kernels: id, the notebook or console path it belongs to,
    language, state, execution count, and how many variables (the whole namespace, null
    until first read) and images each has. Pass a kernel_id from here (or a unique prefix of
    one) to the other tools; without one they read the kernel the user last ran a cell in."""
    service = _get_service()
    kernels = await _run(service.list_kernels)
    paths = await service.session_paths()
    return {"kernels": [{**k, "path": paths.get(k["kernel_id"])} for k in kernels]}


async def list_variables(
    kernel_id: str | None = None,
    detail: str = "full",
    include: str = "",
    limit: int = 100,
    offset: int = 0,
    sort: str = "name",
    filter: str | None = None,
    changed_in: int | None = None,
) -> dict[str, Any]:
    """List the variables defined in a kernel. Reuse these instead of recreating data.

    detail — ask for as little as answers your question, then more:
    - "names": name, type and kind only (a few tokens per variable): to learn what exists
      in a large namespace.
    - "schema": adds size, shape, dtype, memory, whether it changed, and for tables their
      columns with dtypes (up to 50): to write code against the data without seeing it.
    - "full" (default): adds a short preview of each value, the structural changes of the
      last execution and the user's descriptions: when values matter.
    For one variable in depth use inspect_variable; for a table's rows, get_rows; for its
    columns' statistics, describe_table; for its history, variable_timeline.

    include: comma list of private, modules, callables, classes (hidden by default).
    sort: name, type, size, memory or changed, optionally with :asc or :desc.
    filter: only names or type names matching this glob (e.g. "df_*" or "DataFrame").
    changed_in: only the variables bound or changed in this execution (an execution count,
    like `changed_at` and `execution_count`): what one cell did, however large the
    namespace.
    `total` is always the namespace's count; `matched` counts what filter and changed_in
    select (offset and limit page through those).
    kernel_id: a kernel id or a unique prefix; defaults to the most recently used kernel.
    """
    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    kid = kernel["kernel_id"]
    options = await _run(parse, "variables", {
        "include": include, "limit": limit, "offset": offset, "sort": sort, "filter": filter,
        "detail": detail, "changed_in": changed_in}, service.limits)
    snapshot = await _run(service.snapshot, kid, options, kernel=kernel)
    if options.detail == "full":
        variables = [_compact(v) for v in snapshot["variables"] if not v["hidden_from_prompt"]]
    else:  # brief entries carry no value; the user's hidden variables are still left out
        hidden = await _run(service.hidden_names, kid)
        variables = [{k: x for k, x in v.items() if x not in (None, [], False)}
                     for v in snapshot["variables"] if v["name"] not in hidden]
    return {
        **kernel,
        "detail": options.detail,
        "execution_count": snapshot["execution_count"],
        "stale": snapshot["stale"],
        "total": snapshot["total"],
        "matched": snapshot.get("matched", snapshot["total"]),
        "offset": snapshot["offset"],
        "variables": variables,
        "removed": snapshot["removed"],
    }


async def _visible(service: KernelStateService, kernel: dict[str, Any], name: str) -> None:
    """A tool error when the user hid ``name`` from assistants."""
    from fastmcp.exceptions import ToolError

    if name in await _run(service.hidden_names, kernel["kernel_id"]):
        raise ToolError(f"The user hid this variable from assistants: {name}")


#: Attribute types an agent rarely needs (listed only with ``attributes=True``).
METHOD_TYPES = frozenset(("method", "classmethod", "staticmethod"))


async def inspect_variable(
    name: str,
    kernel_id: str | None = None,
    path: list[str] | None = None,
    max_chars: int = 4000,
    attributes: bool = False,
) -> dict[str, Any]:
    """Inspect one variable in depth: type, bounded repr, DataFrame columns with dtypes and
    first rows, dict keys, len, signature and doc for callables, its last change
    (`changes`, e.g. "depth 6 → 8"), and children you can drill into by passing their
    access_key values as `path`.

    attributes: also list methods (a str has 47); by default only data attributes and
    properties are listed and `attributes_omitted` counts what was left out."""
    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    options = await _run(parse, "variable", {"name": name, "path": path,
                                             "max_chars": max_chars}, service.limits)
    await _visible(service, kernel, name)
    detail = await _run(service.detail, kernel["kernel_id"], options, kernel=kernel)
    if detail.get("likely_secret"):
        for field in ("preview", "repr", "llm_repr"):
            if detail.get(field):
                detail[field] = "masked (looks like a credential)"
        detail["children"] = []
    if not attributes:
        listed = detail.get("attributes") or []
        kept = [a for a in listed if a.get("type") not in METHOD_TYPES]
        detail["attributes"] = kept
        # methods, and whatever was beyond the listed ones (the probe lists data first)
        detail["attributes_omitted"] = max(0, int(detail.get("attributes_total") or 0)
                                           - len(kept))
    return {**kernel, **detail}


async def get_rows(
    name: str,
    kernel_id: str | None = None,
    offset: int = 0,
    limit: int = 20,
    columns: str | None = None,
    sort: str | list[dict[str, Any]] | None = None,
    filter: dict[str, Any] | None = None,
    budget_ms: int | None = None,
) -> dict[str, Any]:
    """Read rows of a table (pandas or polars DataFrame, numpy array, list of records, R
    data.frame) without running code in the user's kernel: a window of `limit` rows (at
    most 200) from `offset`, filtered and sorted in the kernel. `filtered_rows` is the
    exact number of matching rows (offset and limit page through them).
    A lazy table that lives in an engine (DuckDB relation, polars LazyFrame, Ibis table,
    Spark or dask DataFrame) is read in its engine, never collected: the window is one
    query there; `total_rows` and `filtered_rows` may be null (not counted in time:
    count_rows counts them); `note` says so.

    columns: positions, as a range "0:8" or a list "0,3,7" (at most 50 columns).
    sort: one or more keys, "price:desc,region:asc" (":asc" by default), or a list
    [{"column": "a,b", "desc": true}] for names holding commas or colons; at most 10 keys;
    stable, missing values last.
    filter: one condition {"column": "<name>", "op": "<op>", "value": ...} or a tree
    {"and": [...]} / {"or": [...]} of them (nested; at most 50 conditions, 5 deep). Ops:
    eq ne lt le gt ge (value: text or a number, read as the column's type); between,
    not_between (value [low, high], both included); in, not_in (value a list); contains,
    not_contains, starts_with, ends_with, regex (text; "case": true to match case);
    isnull, notnull, empty, not_empty, is_true, is_false (no value). Missing values match
    only isnull. Example: {"or": [{"column": "region", "op": "in", "value": ["north",
    "east"]}, {"column": "price", "op": "between", "value": [10, 20]}]}.
    Cells are text, cut at a bounded length (`cells_truncated` counts the cut ones).
    budget_ms: time (ms) this call may spend in the kernel when the server's guards are
    too short (a sort or a profile of a huge engine table was cancelled: the error says
    so); at most the server's max_request_budget_ms (60,000 by default)."""
    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    listed = columns if columns is not None else f"0:{MAX_COLUMNS_PER_CALL}"
    options = await _run(parse, "rows", {
        "name": name, "offset": offset, "limit": max(1, min(limit, MAX_ROWS_PER_CALL)),
        "columns": listed, "sort": sort, "filter": filter, "budget_ms": budget_ms},
        service.limits)
    _at_most_columns(options, MAX_COLUMNS_PER_CALL)
    await _visible(service, kernel, name)
    window = await _run(service.rows, kernel["kernel_id"], options, kernel=kernel)
    out = {**kernel, **window}
    if window.get("engine"):
        out["note"] = _window_note(name, window)
    return out


async def describe_table(
    name: str,
    kernel_id: str | None = None,
    columns: str | None = None,
    filter: dict[str, Any] | None = None,
    budget_ms: int | None = None,
    findings: bool = True,
) -> dict[str, Any]:
    """Describe a table's columns without running code in the user's kernel (pandas or
    polars DataFrame or Series, numpy array, list of records): for each column its dtype,
    `family`, `count` of values present and `null_count`; numbers: min, max, mean, median,
    std, quantiles (5, 25, 75, 95 %) and a histogram; text and categories: distinct, empty
    strings, the 5 most frequent values (`top`) and how many others (`other`); booleans:
    true, false; dates: min, max, median. Use it before writing analysis code.
    With `findings` (default), also its data-quality findings, the most severe first:
    missing values and empty columns, duplicate rows and keys, ID-like and constant
    columns, outliers (IQR rule), mixed types, numbers or dates stored as text, labels
    differing only in case or spaces, correlated pairs — each with its severity, the rows
    it concerns as a filter (for get_rows) and `fix`: code that rebinds the variable to
    the fixed table, to show the user (never run it without asking).

    columns: positions, as a range "0:50" or a list "0,3,7" (at most 50 per call; default
    the first 50).
    filter: describe only the rows that match, as get_rows takes it: one condition
    {"column": "<name>", "op": "<op>", "value": ...} or a tree {"and": [...]} /
    {"or": [...]}; `filtered_rows` counts them.
    Past 1,000,000 rows the statistics come from a fixed sample (`sampled`; columns
    `approximate`). `cut` says what the answer leaves out and how to ask for it.
    A lazy table in an engine (DuckDB, polars LazyFrame, Ibis, Spark, dask) is described
    by the engine's own aggregates, never collected; `note` says which engine, what is
    approximate and what was computed on a sample.
    budget_ms: time (ms) this call may spend in the kernel when the server's guards are
    too short (a sort or a profile of a huge engine table was cancelled: the error says
    so); at most the server's max_request_budget_ms (60,000 by default)."""
    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    width = min(MAX_PROFILE_COLUMNS_PER_CALL, service.limits.profile_max_columns)
    listed = columns if columns is not None else f"0:{width}"
    options = await _run(parse, "profile", {"name": name, "columns": listed, "filter": filter,
                                            "budget_ms": budget_ms}, service.limits)
    _at_most_columns(options, width)
    await _visible(service, kernel, name)
    profile = await _run(service.profile, kernel["kernel_id"], options, kernel=kernel)
    out = {**kernel, **{k: v for k, v in profile.items() if k not in ("epoch", "generation")}}
    out["columns"], top_cut = _fewer_values(profile["columns"])
    out["cut"] = _what_was_cut(profile, top_cut)
    if profile.get("engine"):
        out["note"] = _profile_note(name, profile)
    if findings:
        out["findings"] = await _findings_of(service, kernel, name, listed, filter, budget_ms)
    return out


async def _findings_of(service: Any, kernel: dict[str, Any], name: str, columns: str,
                       filter: dict[str, Any] | None, budget_ms: int | None
                       ) -> dict[str, Any]:
    """The table's findings as describe_table lists them: each one's severity, message,
    rows, filter and fix, at most ``MAX_FINDINGS_PER_CALL``; an error in words rather than
    the description lost (a kernel without findings, a check that ran out of time)."""
    try:
        options = parse("findings", {"name": name, "columns": columns, "filter": filter,
                                     "max_findings": MAX_FINDINGS_PER_CALL,
                                     "budget_ms": budget_ms}, service.limits)
        found = await service.findings(kernel["kernel_id"], options)
    except KernelStateError as e:
        return {"error": e.message}
    keep = ("kind", "severity", "columns", "message", "count", "approximate", "filter", "fix")
    return {
        "listed": [{k: f[k] for k in keep} for f in found["findings"]],
        "total": found["findings_total"], "cut": found["findings_cut"],
        "severities": found["severities"], "syntax": found["syntax"],
        "not_checked": found["not_checked"], "errors": found["errors"],
    }


async def count_rows(
    name: str,
    kernel_id: str | None = None,
    filter: dict[str, Any] | None = None,
    budget_ms: int | None = None,
) -> dict[str, Any]:
    """Count the rows of a table, or those a filter keeps, without running code in the
    user's kernel: for a lazy table in an engine (DuckDB relation, polars LazyFrame, Ibis
    table, Spark or dask DataFrame) the engine counts, never collecting it — what
    get_rows and describe_table leave "not counted" (`total_rows` null). A count past its
    time guard is cancelled in the engine and says so (ask a narrower filter). Tables in
    memory are counted too.

    filter: as get_rows takes it: one condition {"column": "<name>", "op": "<op>",
    "value": ...} or a tree {"and": [...]} / {"or": [...]}; without it, every row.
    budget_ms: time (ms) this call may spend in the kernel when the server's guards are
    too short (a sort or a profile of a huge engine table was cancelled: the error says
    so); at most the server's max_request_budget_ms (60,000 by default)."""
    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    options = await _run(parse, "count", {"name": name, "filter": filter,
                                          "budget_ms": budget_ms}, service.limits)
    await _visible(service, kernel, name)
    counted = await _run(service.count, kernel["kernel_id"], options, kernel=kernel)
    out = {**kernel, **{k: v for k, v in counted.items() if k not in ("epoch", "generation")}}
    engine = counted.get("engine")
    what = "rows kept by the filter" if counted["filtered"] else "rows"
    where = (f"counted in {engine['title']} (lazy: not collected)" if engine
             else "counted in the kernel")
    out["note"] = f"{counted['rows']:,} {what} of {name}, {where}, in {counted['cost_ms']:,} ms"
    return out


async def compare_tables(
    name: str,
    other: str,
    kernel_id: str | None = None,
    key: str | list[str] | None = None,
    status: str | list[str] | None = None,
    offset: int = 0,
    limit: int = 20,
    sort: str | list[dict[str, Any]] | None = None,
    filter: dict[str, Any] | None = None,
    budget_ms: int | None = None,
) -> dict[str, Any]:
    """Compare two tables row by row without running code in the user's kernel: `name`
    (the after) against `other` (the before), two pandas or two polars DataFrames — a
    table before and after a cleaning step, train and test, yesterday's and today's
    extract. Answers how many rows were added (only in `name`), removed (only in `other`),
    changed (a cell differs) and unchanged; for each compared column (both have it) its
    changed cells and its mean and missing values before and after (`columns`), the
    columns only one table has, and a window of the rows that differ: each with its
    `status`, its `key` and, when changed, the cells that changed (`changes`: before →
    after). `summary` says it in one line. Missing values equal each other; 1 equals 1.0;
    a number never equals text.

    other: a variable's name, or a version of a table the user kept (Keep this version
    in the explorer): "@12" for `name` as of execution 12, "raw@12" for raw's; a version
    not kept is an error that lists those kept.
    key: the columns that identify a row in both, "id" or "region,day" (or a list);
    default the index when it says something, else the position (`by` and `key_note`
    say which). A key whose values repeat is refused, quoting them: pick another.
    status: the rows listed, "added,removed,changed" (default) or some of them, or
    "unchanged" too. offset, limit: page through them (at most 50 rows per call).
    sort, filter: as get_rows takes them, on the values shown (the key's and the compared
    columns'; the before's values for a removed row).
    `code` (when written) is pandas, polars or dplyr code that builds the same diff as a
    table: show it to the user, never run it without asking.
    budget_ms: time (ms) this call may spend in the kernel when two large tables were
    refused for time or size; at most the server's max_request_budget_ms."""
    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    options = await _run(parse, "compare", {
        "name": name, "with": other, "key": key, "status": status, "offset": offset,
        "limit": max(1, min(limit, MAX_COMPARED_ROWS_PER_CALL)),
        "columns": f"0:{MAX_COLUMNS_PER_CALL}", "sort": sort, "filter": filter,
        "budget_ms": budget_ms}, service.limits)
    for shown in (name, options.other or other):  # "@12": name's own kept version
        await _visible(service, kernel, shown)
    compared = await _run(service.compare, kernel["kernel_id"], options, kernel=kernel)
    skip = ("epoch", "generation", "view", "reused", "compare_ms", "cells_unread")
    out = {**kernel, **{k: v for k, v in compared.items() if k not in skip}}
    out["summary"] = "; ".join(comparison_notes(compared, MAX_SUMMARY_COLUMNS))
    return out


def _window_note(name: str, window: dict[str, Any]) -> str:
    """One line: a window of an engine's table, where it was computed, what was not
    counted."""
    engine = window["engine"]
    parts = [f"{name} is a lazy {engine['title']} table: this window was computed in "
             f"{engine['title']} (not collected)"
             + (f" in {engine['cost_ms']:,} ms" if engine.get("cost_ms") is not None else "")]
    if window.get("total_rows") is None:
        parts.append("its rows were not counted in time (total_rows null): count_rows "
                     "counts them")
    if window.get("filter") is not None and window.get("filtered_rows") is None:
        parts.append("the rows the filter keeps were not counted (filtered_rows null): "
                     "count_rows with the same filter counts them")
    return "; ".join(parts)


def _profile_note(name: str, profile: dict[str, Any]) -> str:
    """One line: a profile of an engine's table, where it was computed, what is
    approximate, sampled or not counted."""
    title = profile["engine"]["title"]
    parts = [f"{name} is a lazy {title} table: these statistics are {title}'s own "
             "aggregates (not collected)"]
    approximate = [c["name"] for c in profile["columns"] if c.get("approximate")]
    if profile.get("sampled"):
        parts.append(f"columns whose full aggregate ran out of time were computed on the "
                     f"first {int(profile.get('sample_rows') or 0):,} rows of the view")
    if approximate:
        shown = ", ".join(approximate[:10]) + (" …" if len(approximate) > 10 else "")
        parts.append(f"approximate (engine estimates or that sample): {shown}")
    if profile.get("total_rows") is None:
        parts.append("its rows were not counted (total_rows null): count_rows counts them")
    if profile.get("view", {}).get("filter") is not None and \
            profile.get("filtered_rows") is None:
        parts.append("the rows the filter keeps were not counted: count_rows with the same "
                     "filter counts them")
    return "; ".join(parts)


def _at_most_columns(options: Any, most: int) -> None:
    """A tool error when ``options`` (RowsOptions, ProfileOptions: their ranges always
    end) asks for more than ``most`` columns."""
    asked = (len(options.columns) if options.columns is not None
             else options.column_stop - options.column_start)
    if asked > most:
        from fastmcp.exceptions import ToolError

        raise ToolError(f"at most {most} columns per call")


def _fewer_values(columns: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Each column's ``top`` cut to MAX_TOP_PER_CALL (the values left out counted in
    ``other``), and how many columns were cut so."""
    out, cut = [], 0
    for column in columns:
        top = column.get("top")
        if top is not None and len(top) > MAX_TOP_PER_CALL:
            dropped = sum(int(e["count"]) for e in top[MAX_TOP_PER_CALL:])
            column = {**column, "top": top[:MAX_TOP_PER_CALL],
                      "other": int(column.get("other") or 0) + dropped}
            cut += 1
        out.append(column)
    return out, cut


def _what_was_cut(profile: dict[str, Any], top_cut: int) -> str:
    """One line: the columns and values this answer leaves out, and how to ask for them."""
    parts = []
    shown = [c["position"] for c in profile["columns"]]
    asked = list((profile.get("view") or {}).get("columns") or shown)
    unreached = asked[len(shown):]
    if unreached:
        parts.append(f"{len(unreached)} column(s) not described within the time budget "
                     f"({_positions(unreached)}): ask for them again")
    total = int(profile["columns_total"])
    if asked and asked == list(range(asked[0], asked[-1] + 1)) and asked[-1] + 1 < total:
        start = asked[-1] + 1
        parts.append(f"columns {start}-{total - 1} of {total} not asked: columns="
                     f"\"{start}:{min(total, start + MAX_PROFILE_COLUMNS_PER_CALL)}\" for the next")
    elif len(asked) < total:
        parts.append(f"{total - len(asked)} of {total} columns not asked")
    if top_cut:
        parts.append(f"top values: the first {MAX_TOP_PER_CALL} listed per column, the "
                     f"others counted in `other` ({top_cut} column(s))")
    if profile.get("values_truncated"):
        parts.append(f"{profile['values_truncated']} long value(s) cut")
    return "; ".join(parts) if parts else "nothing"


def _positions(positions: list[int]) -> str:
    if positions == list(range(positions[0], positions[-1] + 1)):
        return f"columns=\"{positions[0]}:{positions[-1] + 1}\""
    return "columns=\"" + ",".join(str(p) for p in positions) + "\""


async def variable_timeline(
    name: str,
    kernel_id: str | None = None,
    limit: int = 20,
    lineage_limit: int = 20,
) -> dict[str, Any]:
    """When a variable was created, changed or deleted, and how: the executions (cell
    numbers) with structural changes such as "rows 100,000 → 95,991" or "column revenue
    added". Use it to find which cell changed a variable instead of re-running cells.
    Entries are oldest first (the last `limit`, at most 100). Its lineage too (Python
    kernels), read from the code of each executed cell: `defined_in` (the executions
    that bound or changed it: execution_count, cell_id, code, kind bound|changed|deleted),
    `used_in` (those that read it; in_function: only inside a function the cell defined)
    and `unknown` (executions whose dynamic access - globals(), exec, star imports,
    %store -r - may have touched any name), the last `lineage_limit` of each."""
    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    options = await _run(parse, "timeline", {"name": name, "limit": limit,
                                             "lineage_limit": lineage_limit}, service.limits)
    await _visible(service, kernel, name)
    timeline = await _run(service.timeline, kernel["kernel_id"], options, kernel=kernel)
    return {**kernel, **timeline}


async def get_images(
    kernel_id: str | None = None,
    since: int | None = None,
    limit: int = 4,
) -> Any:  # a ToolResult: content blocks, no structured output (fastmcp 3 and 4 alike)
    """Images (plots) the kernel produced since your last call (or since `since`), newest
    last. Each is numbered (`seq`: its ordinal in the kernel, 1-based, never reused) and
    tagged with the execution count of the cell that drew it; `cells` gives each such
    cell's code once (cut at 2,000 characters, `code_truncated`). PNG and JPEG come back as
    images; other formats are described. `dropped` counts images the kernel's store let go
    (it keeps the first ones and the latest ones)."""
    # Present wherever jupyter-server-mcp is (it depends on fastmcp and the MCP SDK).
    from fastmcp.tools import ToolResult
    from fastmcp.utilities.types import Image
    from mcp.types import TextContent

    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    kid = kernel["kernel_id"]
    cursor = since if since is not None else _image_cursors.get(kid, 0)
    options = await _run(parse, "images", {"since": cursor,
                                           "limit": min(limit, MAX_IMAGES_PER_CALL)},
                         service.limits)
    listing = await _run(service.images, kid, options)
    _image_cursors[kid] = listing["next_since"]
    content: list[Any] = [TextContent(type="text", text=json.dumps({
        **kernel,
        "images": [{k: i[k] for k in ("id", "seq", "mime", "width", "height",
                                      "execution_count")} for i in listing["images"]],
        "cells": _cells(listing["images"]),
        "next_since": listing["next_since"],
        "more": listing["more"],
        "dropped": listing["dropped"],
    }))]
    for meta in listing["images"]:
        image = await _run(service.image, kid, meta["id"])
        fmt = _MCP_IMAGE_FORMATS.get(image.mime)
        if fmt is not None:
            content.append(Image(data=image.data, format=fmt).to_image_content())
    return ToolResult(content=content)


def _cells(images: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cells that drew ``images``, each once (a loop's sixty plots name one cell)."""
    cells: dict[tuple[Any, str], dict[str, Any]] = {}
    for image in images:
        code = image.get("code")
        if code is not None:
            cells.setdefault((image["execution_count"], code), {
                "execution_count": image["execution_count"], "code": code,
                "code_truncated": bool(image.get("code_truncated"))})
    return list(cells.values())


async def kernel_state_prompt(
    kernel_id: str | None = None,
    budget: int = ROUTES["prompt"].param("budget").default,
    since: int | None = None,
    history: int = 0,
    images: bool = True,
) -> str:
    """A compact, budgeted summary of the kernel for your context: the variables you can
    reuse (with shapes, columns and previews), what changed, images produced, and optionally
    the last `history` steps. Never longer than `budget` characters (the first line, which
    names the kernel, included); secrets are masked."""
    service = _get_service()
    kernel = await _kernel(service, kernel_id)
    header = f"[{_named(kernel)}]\n"
    options = await _run(parse, "prompt", {"budget": budget, "since": since,
                                           "history": history, "images": images},
                         service.limits)
    # The header counts against the budget (a path is cut at MAX_PATH_CHARS).
    options = replace(options, budget=max(1, options.budget - len(header)))
    result = await _run(service.prompt, kernel["kernel_id"], options, kernel=kernel)
    return header + str(result.text)
