"""The route table: every route of the REST API declared once.

A route says its method and path (under ``{base_url}api/kernel-state/``), who may call it
(:class:`Permission`), its parameters (``params.py``; the kernel edge's own fields reused
from ``probe/protocol.py``), its reply (a schema of ``schema/rest-v1.json``, served by one
of a few generic handlers) and the service call it makes. Everything else is read from
here: :func:`parse` (the one reading of a request, for REST, MCP and, through REST, the
CLI), the handlers (``handlers.py``), the OpenAPI document (``openapi.py``) and the
frontend's route map and query types (``typescript.py``).

A route marked ``large`` also takes its query parameters as a JSON body on ``POST`` (a
filter of up to 200,000 characters does not fit in a URL: the HTTP server cuts a request
line past 64 KiB before any handler runs).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRequest
from ..probe import protocol
from ..service import queries, variable_queries
from ..service.limits import Limits
from .bounds import Setting, setting
from .kinds import (
    BOOLEAN,
    CHOICE,
    CHOICES,
    COLUMNS,
    FILTER,
    FLAG,
    INTEGER,
    NAME,
    NOTE,
    OPAQUE,
    SORT_KEYS,
    TEXT,
    Columns,
    Text,
    VariableName,
)
from .params import Param, field_param

if TYPE_CHECKING:
    from ..service import KernelStateService

NAMESPACE = "api/kernel-state"


@dataclass(frozen=True)
class Permission:
    """``action`` on jupyter_server's ``kernels`` resource; ``xsrf``: a GET checks the
    XSRF token when cookie-authenticated (other verbs always do)."""

    action: str
    xsrf: bool = False
    resource: str = "kernels"


#: Reading a value runs probe code: as strong as executing code, even for GET.
RUNS_PROBE = Permission("execute", xsrf=True)
#: Images, history and the kernel list come from what the server holds.
READS_SERVER = Permission("read")

#: How a reply is written (``handlers.py``): JSON; a snapshot with its ETag (304 when
#: unchanged); image bytes; the prompt as text or JSON (``format``); nothing (204).
JSON, SNAPSHOT, IMAGE, PROMPT, EMPTY = "json", "snapshot", "image", "prompt", "empty"


@dataclass(frozen=True)
class Route:
    name: str
    method: str
    path: str
    permission: Permission
    summary: str
    description: str
    params: tuple[Param, ...]
    #: The service's query from the parameters' values (None: the route takes none).
    build: Callable[[dict[str, Any], Limits], Any]
    #: The service call: (service, kernel_id, query) → the reply's payload.
    call: Callable[[KernelStateService, str, Any], Any]
    #: The reply's schema in ``rest-v1.json`` ("" for none) and how it is written.
    reply: str = ""
    serve: str = JSON
    #: Statuses besides 200, 400, 403 and 404, with what they mean here.
    errors: Mapping[int, str] = field(default_factory=dict)
    large: bool = False
    #: A JSON request body of its own (``PUT annotation``), with its schema.
    body: Param | None = None

    @property
    def status(self) -> int:
        return 204 if self.serve == EMPTY else 200

    @property
    def query_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.where == "query")

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)


def parse(route: Route | str, args: Mapping[str, Any], limits: Limits) -> Any:
    """The service's query for ``route`` from ``args`` (parameter name → text or typed
    value; absent: the default): every parameter read by its declaration, then the
    route's own rules. ``InvalidRequest`` names the first value refused."""
    chosen = ROUTES[route] if isinstance(route, str) else route
    values = {p.name: p.read(args.get(p.name), limits) for p in chosen.params}
    if chosen.body is not None:
        values[chosen.body.name] = chosen.body.read(args.get(chosen.body.name), limits)
    return chosen.build(values, limits)


def view(values: Mapping[str, Any]) -> protocol.View:
    """The sort keys and the filter of ``values`` as one view, checked by the protocol's
    own rules; the probe reads each value of the filter as its column's type."""
    try:
        return protocol.View.from_json({"sort": values.get("sort"),
                                        "filter": values.get("filter")})
    except protocol.BadRequest as e:
        raise InvalidRequest(str(e)) from None


# --- parameters several routes share --------------------------------------------------

KERNEL_ID = Param("kernel_id", OPAQUE, "A running kernel's id.", where="path")
VARIABLE = Param("name", NAME, "A Python identifier (not a keyword) or an R name, at most "
                 "256 characters, looked up as an exact namespace key.", where="path")
SINCE_GENERATION = Param("since", INTEGER, "Generation to compute `change` against (default: "
                         "the previous execution).", min=0)
#: A table's columns: at most the server's width for a window or a profile.
ROWS_COLUMNS = Param("columns", COLUMNS, "Column positions: a range `start:stop` or a list "
                     "`0,3,7`; default the first ones, as many as allowed.",
                     max=setting("rows_max_columns"))
SORT = Param("sort", SORT_KEYS, "Sort keys: `price:desc,region:asc` (comma-separated, each "
             "split at its last colon, `:asc` by default), or a JSON list "
             f'`[{{"column": "a,b", "desc": true}}]` for names with commas or colons; at most '
             f"{protocol.MAX_SORT_KEYS}. Stable; missing values last in both directions.",
             max=12_000)
FILTER_TREE = Param("filter", FILTER, "JSON: one condition "
                    '`{"column": "price", "op": "gt", "value": 10}` or a tree '
                    '`{"or": [<node>, ...]}` / `{"and": [...]}` (at most '
                    f"{protocol.MAX_FILTER_CONDITIONS} conditions, "
                    f"{protocol.MAX_FILTER_DEPTH} deep); see FilterCondition for the ops and "
                    "their values. Each value is read as its column's type (400 naming the "
                    "column and its dtype when it does not fit). Missing values match only "
                    "isnull. `filtered_rows` counts the rows kept.", max=200_000)

#: The time a request on a table gives itself in the kernel (the protocol's whole-call
#: budget), up to what the server allows; every guard of the request is raised to it.
BUDGET = field_param("rows", "budget_ms", "Time (ms) this request may spend in the kernel, "
                     "when the server's guards are too short for it (a sort of a billion rows "
                     "in an engine): every guard of the request (reads, sort, filter, count, "
                     "each profile column) is set to it and the reply is awaited that long. "
                     "Default: the server's guards. A request past it is cancelled as at the "
                     "defaults (422).", default=None, max=setting("max_request_budget_ms"),
                     clamp=False)

HISTORY_ENTRIES = Setting("history_entries", lambda limits: limits.history.max_entries)
#: Everything the image store holds: the first images and the latest ones.
IMAGES_HELD = Setting("keep_first_images + max_images", lambda limits: (
    limits.images.max_images + max(0, limits.images.keep_first)))

# --- the documented replies -----------------------------------------------------------

BUSY = ("Kernel busy with no snapshot yet, starting, dead or restarting; see "
        "`Retry-After`.")
NOT_PYTHON = "The kernel's language has no probe (only Python and R kernels)."
LAZY = ("A lazy value that is not an engine's table (a generator, an iterator, a dask "
        "Array, Series or Bag, an xarray DataArray on dask): reading would compute or "
        "consume it.")
ENGINES = ("Engine tables (a DuckDB relation, a polars LazyFrame, an Ibis table, a PySpark "
           "DataFrame, classic or Spark Connect, a dask DataFrame) are computed in their "
           "engine, never collected: `engine` says which (null for a table in memory).")
READ_RAISED = ("The value's own code raised or ran out of time while its rows were read; an "
               "engine's error (its first line), or its query cancelled in the engine past "
               "its time guard (the message says so, and the guard).")
LARGE = ("Also answered to POST with the same parameters as a JSON object body (a view too "
         "long for a URL: a request line past 64 KiB is cut by the HTTP server).")


# --- the routes -----------------------------------------------------------------------


def _snapshot(v: dict[str, Any], limits: Limits) -> queries.SnapshotOptions:
    if v["changed_in"] is not None and v["delta"]:
        raise InvalidRequest("changed_in lists one execution's variables as a page; it "
                             "cannot be combined with delta=true")
    if v["used_by_cell"] is not None and v["delta"]:
        raise InvalidRequest("used_by_cell lists one cell's variables as a page; it "
                             "cannot be combined with delta=true")
    return queries.SnapshotOptions(
        include=v["include"] or frozenset(), limit=v["limit"], offset=v["offset"],
        sort=v["sort"], since=v["since"], preview_chars=limits.preview_chars,
        filter=v["filter"], delta=v["delta"], detail=v["detail"], changed_in=v["changed_in"],
        used_by_cell=v["used_by_cell"])


def _columns(v: dict[str, Any]) -> dict[str, Any]:
    chosen: Columns = v["columns"]
    return {"columns": chosen.listed, "column_start": chosen.start,
            "column_stop": chosen.stop}


def _compare(v: dict[str, Any]) -> variable_queries.CompareOptions:
    chosen = v["status"] or frozenset(protocol.DEFAULT_COMPARE_STATUSES)
    other, execution = v["with"] or (None, None)
    return variable_queries.CompareOptions(
        name=v["name"], other=v["name"] if other is None and execution is not None else other,
        with_execution=execution, key_columns=v["key"],
        statuses=tuple(s for s in protocol.COMPARE_STATUSES if s in chosen),
        offset=v["offset"], limit=v["limit"], view=view(v), syntax=v["syntax"],
        budget_ms=v["budget_ms"], **_columns(v))


class ComparedWith(VariableName):
    """``compare``'s ``with``: another variable's name, or a kept version — ``@12`` (or
    ``12``: the variable's own, as of execution 12) or ``raw@12`` (another's) — read as
    ``(name or None, execution or None)``; refusals say which parameter."""

    query_schema = {"type": "string", "maxLength": protocol.MAX_NAME + 21}

    def read(  # type: ignore[override]
            self, p: Param, value: Any, limits: Limits) -> tuple[str | None, int | None]:
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)  # a JSON body's execution count
        if isinstance(value, str):
            before, at, execution = value.rpartition("@")
            if not at:
                before, execution = ("", value) if value.isdecimal() else (value, "")
            if execution or at:
                if not (execution.isascii() and execution.isdecimal()) or len(execution) > 18:
                    raise InvalidRequest(f"{p.name}: a kept version is @<execution count>, "
                                         f"like @12 or raw@12; got {value[:40]!r}")
                return self._name(p, before or None, limits), int(execution)
        return self._name(p, value, limits), None

    def _name(self, p: Param, value: Any, limits: Limits) -> Any:
        if value is None:
            return None
        try:
            return super().read(p, value, limits)
        except InvalidRequest as e:
            raise InvalidRequest(f"{p.name}: {e.message}") from None

    def body_schema(self, p: Param) -> dict[str, Any]:
        return {"anyOf": [dict(self.query_schema), {"type": "integer", "minimum": 0}]}


class ColumnNames(Text):
    """Column names: ``a,b`` (split at commas, each stripped), or a JSON list (text or a
    list) for names that hold commas; at most ``protocol.MAX_COMPARE_KEYS``, each once."""

    # Text's length bound and refusals, read into names (not one text).
    def read(  # type: ignore[override]
            self, p: Param, value: Any, limits: Limits) -> tuple[str, ...]:
        if isinstance(value, str):
            super().read(p, value, limits)  # its length
            if not value.lstrip().startswith("["):
                value = [part.strip() for part in value.split(",")]
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except (ValueError, RecursionError):
                raise InvalidRequest(f"{p.name} must be column names like id,day or a JSON "
                                     'list like ["id", "day"]') from None
        names = value
        if not isinstance(names, (list, tuple)) or not names or not all(
                isinstance(x, str) and 0 < len(x) <= protocol.MAX_COLUMN_NAME for x in names):
            raise InvalidRequest(f"{p.name} must name columns: text like id,day or a list of "
                                 f"names of 1 to {protocol.MAX_COLUMN_NAME:,} characters")
        if len(names) > protocol.MAX_COMPARE_KEYS or len(set(names)) != len(names):
            raise InvalidRequest(f"{p.name} must name 1 to {protocol.MAX_COMPARE_KEYS} "
                                 "different columns")
        return tuple(names)

    def body_schema(self, p: Param) -> dict[str, Any]:
        return {"anyOf": [{"type": "string", "maxLength": p.max},
                          {"type": "array", "maxItems": protocol.MAX_COMPARE_KEYS,
                           "items": {"type": "string", "minLength": 1,
                                     "maxLength": protocol.MAX_COLUMN_NAME}}]}

    def encode(self, value: Any) -> str | None:
        return value if value is None or isinstance(value, str) else json.dumps(list(value))


COMPARED_WITH, COLUMN_NAMES = ComparedWith(), ColumnNames()


async def _kernels(service: KernelStateService, _kernel_id: str, _query: Any) -> Any:
    return {"kernels": await service.list_kernels()}


_ROUTES = (
    Route(
        "kernels", "GET", "kernels", READS_SERVER,
        "Running kernels with their state counters and notebook paths",
        "`path` is the notebook or console each kernel belongs to, from the server's "
        "sessions (null without a session).",
        params=(), build=lambda v, limits: None, call=_kernels, reply="KernelList"),
    Route(
        "variables", "GET", "kernels/{kernel_id}/variables", RUNS_PROBE,
        "A snapshot of the kernel's variables (one page, exact counts)",
        "Unchanged state is answered from cache without a kernel message; a busy kernel "
        "gets the last snapshot with `stale: true, kernel_busy: true`.",
        params=(
            KERNEL_ID,
            field_param("snapshot", "include", "Comma list of the groups of names shown "
                        "besides the public ones."),
            field_param("snapshot", "limit", "Page size.", min=1,
                        default=setting("page_size"), max=setting("max_page_size"),
                        clamp=True),
            field_param("snapshot", "offset", "Page start.", clamp=True),
            field_param("snapshot", "sort", "Order: name, type (A to Z), size, memory, "
                        "changed (largest or latest first), each optionally with `:asc` or "
                        "`:desc` (`memory:asc`); unknown values last either way."),
            SINCE_GENERATION,
            field_param("snapshot", "filter", "Only names or type names matching this "
                        "case-insensitive glob (`*` and `?`); plain text matches anywhere. "
                        "`matched` counts the matches; `total` stays the namespace's count."),
            field_param("snapshot", "changed_in", "Only the variables last bound or changed "
                        "in this execution (an execution count, as in `changed_at`), "
                        "whatever the page and sort: `matched` counts them, `offset` and "
                        "`limit` page through them. Not with `delta`. Python and R kernels "
                        "(501 from a probe that cannot apply it).", clamp=True),
            field_param("snapshot", "used_by_cell", "Only the variables the last execution "
                        "of this notebook cell (its id, as JupyterLab sends it) bound or "
                        "read, from the lineage (see the timeline), whatever the page and "
                        "sort: `matched` counts them. None for a cell not run (or not "
                        "analysed). Not with `delta`. Python kernels (R: 501)."),
            field_param("snapshot", "delta", "With `since`: only what changed since that "
                        "generation — every new or modified entry (not paged, at most "
                        "`limit`) and the removed names, with `delta: true` and the exact "
                        "`matched`. When that cannot be told exactly (a restart since, a "
                        "generation too old or unknown, more changes than `limit`) the answer "
                        "is a normal page with `delta: false`."),
            Param("detail", CHOICE, "`names` (name, type, kind), `schema` (+ size, shape, "
                  "dtype, nbytes, memory, and for tables `columns` with dtypes, at most 50, "
                  "and `columns_total`) or `full` (every field).", default="full",
                  choices=("names", "schema", "full")),
        ),
        build=_snapshot,
        call=lambda service, kid, query: service.snapshot_response(kid, query),
        reply="Snapshot", serve=SNAPSHOT, errors={501: NOT_PYTHON, 503: BUSY}),
    Route(
        "variable", "GET", "kernels/{kernel_id}/variables/{name}", RUNS_PROBE,
        "One variable in depth, or one of its children", LARGE,
        params=(
            KERNEL_ID, VARIABLE,
            field_param("detail", "path", "JSON array of `access_key` values from "
                        "`children`."),
            field_param("detail", "max_chars", "Characters of the repr.", min=1,
                        default=setting("detail_chars"), max=setting("max_detail_chars")),
            field_param("detail", "reveal", "Show a likely secret's value (`masked: false`). "
                        "Without it, `preview`, `repr`, `llm_repr` and children previews of a "
                        "likely secret are masked, here and in every other response."),
        ),
        build=lambda v, limits: queries.DetailOptions(
            name=v["name"], path=v["path"] or (), max_chars=v["max_chars"], reveal=v["reveal"]),
        call=lambda service, kid, query: service.detail(kid, query),
        reply="VariableDetail", errors={501: NOT_PYTHON, 503: BUSY}, large=True),
    Route(
        "delete_variable", "DELETE", "kernels/{kernel_id}/variables/{name}", RUNS_PROBE,
        "Delete a variable from the kernel's namespace",
        "Removes the exact namespace key, never runs source code built from the name; the "
        "next snapshot lists it as removed. Python kernels.",
        params=(KERNEL_ID, VARIABLE), build=lambda v, limits: v["name"],
        call=lambda service, kid, name: service.delete_variable(kid, name), serve=EMPTY,
        errors={409: "The kernel is busy: nothing was deleted.", 501: NOT_PYTHON, 503: BUSY}),
    Route(
        "rows", "GET", "kernels/{kernel_id}/variables/{name}/rows", RUNS_PROBE,
        "A window of a table or array (the data explorer)",
        "pandas and polars DataFrames and Series, numpy 1-D/2-D arrays, xarray DataArrays "
        "in memory, lists of records. Only the window is read; a view's filter and sort are "
        "computed in the kernel by the value's own library under their own time guard "
        "(`rows_sort_ms`), and the order is kept for paging. Cells are text (dates compact, "
        "floats shortest, null for missing values), at most `rows_cell_chars` each. A busy "
        "kernel gets the last window of the same query with `stale: true`. Python and R "
        "kernels. " + ENGINES + " The window is one query in the engine (filter, sort, "
        "offset and limit pushed down); its count runs under `rows_count_ms`, and past it "
        "`total_rows` (and `filtered_rows`) is null: not counted (POST …/count counts it). "
        + LARGE,
        params=(
            KERNEL_ID, VARIABLE,
            field_param("rows", "offset", "First row."),
            field_param("rows", "limit", "Rows.", max=setting("rows_max_rows"), clamp=True),
            ROWS_COLUMNS, SORT, FILTER_TREE, BUDGET,
        ),
        build=lambda v, limits: variable_queries.RowsOptions(
            name=v["name"], offset=v["offset"], limit=v["limit"], view=view(v),
            budget_ms=v["budget_ms"], **_columns(v)),
        call=lambda service, kid, query: service.rows(kid, query),
        reply="RowsWindow", large=True,
        errors={409: LAZY, 422: READ_RAISED, 501: NOT_PYTHON, 503: BUSY}),
    Route(
        "count", "POST", "kernels/{kernel_id}/variables/{name}/count", RUNS_PROBE,
        "Count a table's rows (those a filter keeps), in its engine",
        "What a window of an engine's table leaves \"not counted\": the rows counted by the "
        "engine, under `engine_count_ms` (10 s; like every guard, within 80 % of "
        "`probe_timeout`: raise both for longer counts); past it the count is cancelled in "
        "the engine (422). Tables in memory are counted too (by their own library). Cached "
        "by (epoch, generation, filter): asking again before a cell runs sends the kernel "
        "nothing; a busy kernel gets the last count of the same query with `stale: true`. "
        "Python kernels (R: 501). The filter may come in the query or in a JSON object "
        "body.",
        params=(KERNEL_ID, VARIABLE, FILTER_TREE, BUDGET),
        build=lambda v, limits: variable_queries.CountOptions(
            name=v["name"], view=view(v), budget_ms=v["budget_ms"]),
        call=lambda service, kid, query: service.count(kid, query),
        reply="CountResult", large=True,
        errors={409: LAZY, 422: "The engine's error (its first line), or the count "
                "cancelled in the engine past its time guard (the message says so, and the "
                "guard).", 501: "The kernel's language has no probe, or its probe no count "
                "yet (R).", 503: BUSY}),
    Route(
        "code", "GET", "kernels/{kernel_id}/variables/{name}/code", RUNS_PROBE,
        "The code of a view: the rows, order and columns the explorer shows",
        "Code that, run in the kernel where `name` lives, binds `{name}_view` to exactly the "
        "rows (the filter, missing values matching only isnull, written out), their order "
        "(the library's stable sort, missing values last) and the columns of the view. "
        "Written in the kernel from the columns' dtypes (values as literals of each "
        "column's type); nothing the caller sent is executed. pandas code for pandas "
        "values, numpy arrays and lists of records (through `pd.DataFrame`), polars code "
        "for polars values, dplyr for R data.frames; an engine's table gets its engine's "
        "own code (DuckDB `duckdb` or `sql`, a polars LazyFrame `polars_lazy` or `polars`, "
        "Ibis `ibis`, Spark `pyspark`, dask `dask`), which stays lazy. " + LARGE,
        params=(
            KERNEL_ID, VARIABLE,
            Param("columns", COLUMNS, "The columns shown, in order: a range `start:stop` or "
                  "a list `0,3,7` of positions; default every column.",
                  max=protocol.MAX_COLUMNS, default=Columns()),
            SORT, FILTER_TREE,
            field_param("code", "syntax", "The code's language; default the value's own "
                        "library, or its engine's (400 for a syntax that does not fit the "
                        "value, listing those that do)."),
            BUDGET,
        ),
        build=lambda v, limits: variable_queries.CodeOptions(
            name=v["name"], view=view(v), syntax=v["syntax"], budget_ms=v["budget_ms"],
            **_columns(v)),
        call=lambda service, kid, query: service.code(kid, query),
        reply="ViewCode", large=True,
        errors={409: "A lazy value that is not an engine's table (a generator, an "
                "iterator): no code is written for it.",
                422: "The value's own code raised or ran out of time while its columns "
                "were read.", 501: NOT_PYTHON, 503: BUSY}),
    Route(
        "profile", "GET", "kernels/{kernel_id}/variables/{name}/profile", RUNS_PROBE,
        "The statistics of a table's columns (of the rows a filter keeps)",
        "The values rows reads. Computed in the kernel a column at a time with the "
        "column's own library (pandas, polars, numpy; Python for lists of records), each "
        "under `profile_column_ms` (a column past it is listed with its `error`); the "
        "columns the request's time does not reach are counted in `columns_cut`. Past "
        "`profile_sample_rows` rows (1,000,000) the statistics come from a fixed-seed "
        "sample of that many (`sampled`, each column `approximate`; `count` and "
        "`null_count` stay exact). Lazy values are never computed. A busy kernel gets the "
        "last profile of the same query with `stale: true`. Python kernels (R: 501 for "
        "now). " + ENGINES + " Each column is one aggregate query in the engine "
        "(approximate quantiles and distinct counts where the engine has them: "
        "`approximate`); a column cancelled past `profile_column_ms` is computed again on "
        "the view's first `sample_rows` rows (`sampled`). " + LARGE,
        params=(KERNEL_ID, VARIABLE,
                Param("columns", COLUMNS, ROWS_COLUMNS.doc,
                      max=setting("profile_max_columns")),
                FILTER_TREE, BUDGET),
        build=lambda v, limits: variable_queries.ProfileOptions(
            name=v["name"], view=view(v), budget_ms=v["budget_ms"], **_columns(v)),
        call=lambda service, kid, query: service.profile(kid, query),
        reply="TableProfile", large=True,
        errors={409: LAZY, 422: "The value's own code raised or ran out of time while it "
                "was read; an engine's error (its first line).",
                501: "The kernel's language has no probe, or its probe no profile yet (R).",
                503: BUSY}),
    Route(
        "findings", "GET", "kernels/{kernel_id}/variables/{name}/findings", RUNS_PROBE,
        "Data-quality findings of a table, each with its rows and fix code",
        "Missing values and empty columns, duplicate rows and keys, ID-like and constant "
        "columns, outliers (IQR rule; MAD when the IQR is 0), mixed types, numbers and "
        "dates stored as text, labels that differ only in case or spaces, strongly "
        "correlated numeric pairs — of the rows the filter keeps. Each finding has a "
        "severity, the rows it concerns as a filter tree the explorer can open, and fix "
        "code from the Convert to Code generator in `syntax` that rebinds the variable to "
        "the fixed table (never edits it in place). Computed in the kernel under the "
        "profile's guards (`profile_column_ms` each column's checks, `profile_sample_rows` "
        "past which a fixed-seed sample is read and counts are `approximate`). " + ENGINES
        + " Engines compute the findings as aggregates (DuckDB, polars LazyFrame; others "
        "list them in `not_checked`). Python kernels (R: 501). " + LARGE,
        params=(
            KERNEL_ID, VARIABLE,
            Param("columns", COLUMNS, ROWS_COLUMNS.doc, max=setting("profile_max_columns"),
                  default=Columns()),
            FILTER_TREE,
            field_param("findings", "max_findings", "Findings listed, the most severe first "
                        "(`findings_cut` counts the rest)."),
            field_param("findings", "syntax", "The fix code's language: pandas, polars, "
                        "dplyr or duckdb; default the value's own library (400 for one that "
                        "does not fit the value)."),
            BUDGET,
        ),
        build=lambda v, limits: variable_queries.FindingsOptions(
            name=v["name"], view=view(v), max_findings=v["max_findings"], syntax=v["syntax"],
            budget_ms=v["budget_ms"], **_columns(v)),
        call=lambda service, kid, query: service.findings(kid, query),
        reply="TableFindings", large=True,
        errors={409: LAZY, 422: "The value's own code raised or ran out of time while it "
                "was read; an engine's error (its first line).",
                501: "The kernel's language has no probe, or its probe no findings yet (R).",
                503: BUSY}),
    Route(
        "compare", "GET", "kernels/{kernel_id}/variables/{name}/compare", RUNS_PROBE,
        "Two tables compared row by row: rows added, removed and changed, the changed cells",
        "`name` (the after) against `with` (the before), two pandas or two polars "
        "DataFrames, in the kernel by their own library: rows matched by `key` (its "
        "columns must identify a row in both: a key whose values repeat is a 400 quoting "
        "them), else by the index when either table's is not the default 0 … n-1 (and "
        "unique), else by position (`by` and `key_note` say which, and why). A row only in "
        "`name` is added, only in `with` removed, in both changed when a cell of a compared "
        "column differs (missing values equal each other; 1 equals 1.0, a number never "
        "equals text). The compared columns are those both have, the key's excepted; the "
        "others are listed. Each compared column has its changed cells and its mean and "
        "missing values on both sides. The window lists the rows of `status` (added, "
        "removed, changed; unchanged when asked) in `name`'s order, the removed ones last, "
        "or in the order of `sort`, kept by `filter` — both on the values shown (`with`'s "
        "for a removed row): the key's and the compared columns'. A changed row lists its "
        "shown cells that differ, before → after. The comparison is kept in the kernel "
        "until the next cell (paging costs a window); past 50,000,000 rows × columns "
        "(raised in proportion by `budget_ms`) or past the table budget it is refused "
        "(422). `code`: pandas (`merge(indicator=...)`), polars (`join(how=\"anti\")`) or "
        "dplyr (`anti_join`) that binds `{name}_vs_{with}` to the rows that differ. A busy "
        "kernel gets the last window of the same query with `stale: true`. Python kernels "
        "(R: 501). " + LARGE,
        params=(
            KERNEL_ID, VARIABLE,
            Param("with", COMPARED_WITH, "The table compared against (the before; `name` "
                  "is the after): a variable's name, or a version kept on request (POST "
                  "…/kept): `@12` (or `12`) for `name` as of execution 12, `raw@12` for "
                  "another's. Required (a 400 without it); a version not kept is a 404 "
                  "listing those that are."),
            Param("key", COLUMN_NAMES, "The columns that identify a row in both tables, by "
                  "name: `id` or `region,day` (comma-separated), or a JSON list "
                  '`["a,b", "c"]` for names with commas; at most '
                  f"{protocol.MAX_COMPARE_KEYS}. Default: the index when meaningful, else "
                  "the position.", max=12_000),
            Param("status", CHOICES, "The rows the window lists, comma-separated (default "
                  "added,removed,changed).", choices=protocol.COMPARE_STATUSES),
            field_param("compare", "offset", "First listed row."),
            field_param("compare", "limit", "Rows.", max=setting("rows_max_rows"), clamp=True),
            Param("columns", COLUMNS, "The compared columns shown, as positions in the "
                  "reply's `columns` list: a range `start:stop` or a list `0,3,7`; default "
                  "the first ones, as many as allowed.", max=setting("rows_max_columns")),
            SORT, FILTER_TREE,
            field_param("compare", "syntax", "The code's language: pandas, polars or dplyr; "
                        "default the tables' own library (400 for one that does not fit)."),
            BUDGET,
        ),
        build=lambda v, limits: _compare(v),
        call=lambda service, kid, query: service.compare(kid, query),
        reply="TableComparison", large=True,
        errors={409: LAZY, 422: "Past the cells a comparison reads, past the table budget, "
                "or the tables' own code raised.",
                501: "The kernel's language has no probe, or its probe no comparison yet (R).",
                503: BUSY}),
    Route(
        "keep", "POST", "kernels/{kernel_id}/variables/{name}/kept", RUNS_PROBE,
        "Keep this version of a table, to compare the table with it later",
        "A copy of the table as it is now (pandas `copy(deep=True)`, polars `clone()`), "
        "tagged with the last execution count and held by the extension in the kernel — "
        "never in the user's namespace — until it is dropped (DELETE …/kept/{execution}), "
        "the variable is deleted, or the kernel restarts. Compare with it through "
        "`compare?with=@<execution>`. Made only on this request. The kernel's kept versions "
        "(every name's) hold at most `max_kept` versions and `max_kept_bytes` bytes, a copy "
        "measured as the list's `memory` measures its table, before it is made: one that "
        "would pass a cap is refused (nothing else dropped) unless `evict` drops the oldest "
        "(named in `dropped`). Keeping a name again at the same execution replaces that "
        "version (`replaced`). Pandas and polars DataFrames (an engine's table, an array, "
        "anything else: 400). Python kernels (R: 501).",
        params=(KERNEL_ID, VARIABLE,
                field_param("keep", "evict", "Drop the oldest kept versions (every name's) "
                            "to make room under the caps, instead of refusing (409).")),
        build=lambda v, limits: variable_queries.KeptOptions(name=v["name"],
                                                             evict=v["evict"]),
        call=lambda service, kid, query: service.keep(kid, query),
        reply="KeptVersions",
        errors={409: "The kept versions leave no room under `max_kept` or `max_kept_bytes` "
                "(the message lists them; nothing was kept: drop one, or ask with "
                "`evict=true`); the kernel is busy; a lazy value.",
                422: "The copy alone is past `max_kept_bytes` (or keeping is off: "
                "`max_kept` 0), or the table's own code raised while it was copied.",
                501: "The kernel's language has no probe, or its probe keeps no versions "
                "(R).", 503: BUSY}),
    Route(
        "kept", "GET", "kernels/{kernel_id}/variables/{name}/kept", RUNS_PROBE,
        "The versions of a table kept, and how much of the caps the kernel's use",
        "Oldest first, each with the execution count it was kept at, its shape and bytes; "
        "`kept_total` and `bytes_total` count every name's against `max_kept` and "
        "`max_kept_bytes`. None kept is an empty list; a variable that does not exist is a "
        "404 (its versions went with it). "
        "Python kernels (R: 501).",
        params=(KERNEL_ID, VARIABLE),
        build=lambda v, limits: variable_queries.KeptOptions(name=v["name"]),
        call=lambda service, kid, query: service.kept(kid, query),
        reply="KeptVersions",
        errors={501: "The kernel's language has no probe, or its probe keeps no versions "
                "(R).", 503: BUSY}),
    Route(
        "drop_kept", "DELETE", "kernels/{kernel_id}/variables/{name}/kept/{execution}",
        RUNS_PROBE, "Drop a kept version of a table",
        "The version kept as of `execution`: its memory is given back to the kernel. A "
        "version that is not kept is a 404 listing those that are. Python kernels (R: 501).",
        params=(KERNEL_ID, VARIABLE,
                Param("execution", INTEGER, "The execution count the version was kept at.",
                      where="path", min=0, max=protocol.MAX_OFFSET)),
        build=lambda v, limits: variable_queries.KeptOptions(name=v["name"],
                                                             execution=v["execution"]),
        call=lambda service, kid, query: service.drop_kept(kid, query),
        reply="KeptVersions",
        errors={409: "The kernel is busy: nothing was dropped.",
                501: "The kernel's language has no probe, or its probe keeps no versions "
                "(R).", 503: BUSY}),
    Route(
        "timeline", "GET", "kernels/{kernel_id}/variables/{name}/timeline", RUNS_PROBE,
        "When a variable was bound, changed or removed, and how",
        "The probe keeps, per name, the last executions at which it was new, modified or "
        "removed, with the structural changes read from fingerprints (never copies of "
        "data), within a fixed memory bound; and its lineage, from a static analysis of "
        "each executed cell: the executions (with their cell id and the head of their "
        "code) that bound it (`defined_in`) or read it (`used_in`), and those whose "
        "dynamic access cannot be told by name (`unknown`). Python kernels (R: no "
        "lineage fields).",
        params=(KERNEL_ID, VARIABLE,
                field_param("timeline", "limit", "Entries, the latest.", clamp=True),
                field_param("timeline", "lineage_limit",
                            "Executions per lineage list, the latest.", clamp=True)),
        build=lambda v, limits: variable_queries.TimelineOptions(
            name=v["name"], limit=v["limit"], lineage_limit=v["lineage_limit"]),
        call=lambda service, kid, query: service.timeline(kid, query),
        reply="Timeline", errors={501: NOT_PYTHON, 503: BUSY}),
    Route(
        "annotate", "PUT", "kernels/{kernel_id}/variables/{name}/annotation", RUNS_PROBE,
        "Describe a variable, state its constraints, or hide it from assistants",
        "Needs the variable to exist (checking it runs probe code). Kept across server "
        "restarts, keyed by the session's notebook path.",
        params=(KERNEL_ID, VARIABLE),
        body=Param("annotation", NOTE, "The note (replaces the previous one; a missing "
                   "field is stored as null or false).", where="body"),
        build=lambda v, limits: queries.AnnotationUpdate(name=v["name"], **v["annotation"]),
        call=lambda service, kid, update: service.put_annotation(kid, update),
        reply="Annotation", errors={503: BUSY}),
    Route(
        "clear_annotation", "DELETE", "kernels/{kernel_id}/variables/{name}/annotation",
        RUNS_PROBE, "Remove a variable's annotation", "The same permission that can "
        "write one.",
        params=(KERNEL_ID, VARIABLE), build=lambda v, limits: v["name"],
        call=lambda service, kid, name: service.delete_annotation(kid, name), serve=EMPTY),
    Route(
        "images", "GET", "kernels/{kernel_id}/images", READS_SERVER,
        "Images the kernel produced (captured from IOPub)",
        "Each image has its ordinal in the kernel (`seq`, 1-based, never reused), the "
        "execution count and the code of the cell that displayed it. The store keeps the "
        "first `keep_first_images` (10) and the latest `max_images` (50); `dropped` counts "
        "the images dropped in between.",
        params=(KERNEL_ID,
                Param("since", INTEGER, "Only images with `seq` greater than this.",
                      default=0, min=0),
                Param("limit", INTEGER, "At most this many.",
                      default=IMAGES_HELD, min=1, max=IMAGES_HELD, clamp=True)),
        build=lambda v, limits: queries.ImagesOptions(since=v["since"], limit=v["limit"]),
        call=lambda service, kid, query: service.images(kid, query), reply="ImageList"),
    Route(
        "image", "GET", "kernels/{kernel_id}/images/{image_id}", READS_SERVER,
        "The bytes of one image",
        "Served with `X-Content-Type-Options: nosniff`; SVG also with "
        "`Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; sandbox`.",
        params=(KERNEL_ID, Param("image_id", OPAQUE, "An image id.", where="path"),
                Param("download", FLAG, "Adds `Content-Disposition: attachment` (any value "
                      "but 0 or false).")),
        build=lambda v, limits: v,
        call=lambda service, kid, v: service.image(kid, v["image_id"]), serve=IMAGE),
    Route(
        "history", "GET", "kernels/{kernel_id}/history", READS_SERVER,
        "Recent user executions rebuilt from IOPub", "",
        params=(KERNEL_ID,
                Param("limit", INTEGER, "Entries, the latest.", default=10, min=0,
                      max=HISTORY_ENTRIES, clamp=True)),
        build=lambda v, limits: queries.HistoryOptions(limit=v["limit"]),
        call=lambda service, kid, query: service.history(kid, query), reply="History"),
    Route(
        "prompt", "GET", "kernels/{kernel_id}/prompt", RUNS_PROBE,
        "The token-budgeted text an assistant receives", "See docs/prompt-format.md.",
        params=(
            KERNEL_ID,
            Param("budget", INTEGER, "Characters of the text.", default=6000, min=200,
                  max=200_000, clamp=True),
            Param("since", INTEGER, "Generation of the assistant's last look.", min=0),
            Param("history", INTEGER, "Recent steps to include.", default=0, min=0,
                  max=HISTORY_ENTRIES, clamp=True),
            Param("images", BOOLEAN, "Mention images produced since.", default=True),
            Param("format", CHOICE, "The reply: the text itself, or PromptResult.",
                  default="text", choices=("text", "json")),
        ),
        build=lambda v, limits: queries.PromptOptions(
            budget=v["budget"], since=v["since"], history=v["history"], images=v["images"],
            format=v["format"]),
        call=lambda service, kid, query: service.prompt(kid, query), reply="PromptResult",
        serve=PROMPT),
)

# --- tables read from files (``files/``): the explorer without a kernel ---------------

#: Reading a file's data: jupyter_server's ``contents`` read, XSRF-checked like /files.
READS_FILES = Permission("read", xsrf=True, resource="contents")
FILE_PATH = Param("path", TEXT, "The file's path under the server's root, as the file "
                  "browser says it (`data/sales.parquet`): .csv, .tsv, .parquet, .jsonl, "
                  ".ndjson or .xlsx. Symlinks are resolved: a file outside the root is a 403; "
                  "a hidden file (unless `ContentsManager.allow_hidden`) a 404.",
                  max=4096)
FILES = ("Read by DuckDB in a worker process of the server (Excel by openpyxl, then "
         "DuckDB), never by a kernel; the same guards as a variable's, the whole call within "
         "`files_timeout` (past it the worker is stopped: 503). The reply has the variable "
         "route's shape; `name` is the file's stem as an identifier (the loading code binds "
         "it), `generation` and `epoch` are 0. " + LARGE)
FILE_ERRORS = {403: "The path leads outside the server's root (`..`, a symlink out).",
               413: "The file is larger than `files_max_bytes` (an Excel workbook: "
               "`files_excel_max_bytes`).",
               422: "The file is not what its extension says (DuckDB's first line of why), "
               "or a query was cancelled past its guard.",
               501: "The server has no DuckDB, or its contents are not on its disk.",
               503: "The worker ran past `files_timeout` or stopped; try again."}


def _file_query(v: dict[str, Any], options: Any) -> Any:
    from ..files.tables import FileQuery

    return FileQuery(v["path"], options, v.get("relative_to"))


def _files(service: KernelStateService) -> Any:
    from ..errors import NotSupported

    if service.files is None:
        raise NotSupported("Files are not read by this server")
    return service.files


_FILE_ROUTES = (
    Route(
        "file_rows", "GET", "files/rows", READS_FILES,
        "A window of a table file (CSV, TSV, Parquet, JSON Lines, Excel), no kernel needed",
        "As `variables/{name}/rows`, on the file: " + FILES,
        params=(FILE_PATH, field_param("rows", "offset", "First row."),
                field_param("rows", "limit", "Rows.", max=setting("rows_max_rows"),
                            clamp=True),
                ROWS_COLUMNS, SORT, FILTER_TREE, BUDGET),
        build=lambda v, limits: _file_query(v, variable_queries.RowsOptions(
            name="file", offset=v["offset"], limit=v["limit"], view=view(v),
            budget_ms=v["budget_ms"], **_columns(v))),
        call=lambda service, _kid, query: _files(service).rows(query),
        reply="RowsWindow", large=True, errors=FILE_ERRORS),
    Route(
        "file_profile", "GET", "files/profile", READS_FILES,
        "The statistics of a table file's columns",
        "As `variables/{name}/profile`, on the file: " + FILES,
        params=(FILE_PATH, Param("columns", COLUMNS, ROWS_COLUMNS.doc,
                                 max=setting("profile_max_columns")),
                FILTER_TREE, BUDGET),
        build=lambda v, limits: _file_query(v, variable_queries.ProfileOptions(
            name="file", view=view(v), budget_ms=v["budget_ms"], **_columns(v))),
        call=lambda service, _kid, query: _files(service).profile(query),
        reply="TableProfile", large=True, errors=FILE_ERRORS),
    Route(
        "file_findings", "GET", "files/findings", READS_FILES,
        "The data-quality findings of a table file",
        "As `variables/{name}/findings`, on the file (fixes in DuckDB by default): " + FILES,
        params=(FILE_PATH, Param("columns", COLUMNS, ROWS_COLUMNS.doc,
                                 max=setting("profile_max_columns"), default=Columns()),
                FILTER_TREE,
                field_param("findings", "max_findings", "Findings listed, the most severe "
                            "first (`findings_cut` counts the rest)."),
                field_param("findings", "syntax", "The fix code's language: duckdb "
                            "(default) or dplyr."),
                BUDGET),
        build=lambda v, limits: _file_query(v, variable_queries.FindingsOptions(
            name="file", view=view(v), max_findings=v["max_findings"], syntax=v["syntax"],
            budget_ms=v["budget_ms"], **_columns(v))),
        call=lambda service, _kid, query: _files(service).findings(query),
        reply="TableFindings", large=True, errors=FILE_ERRORS),
    Route(
        "file_code", "GET", "files/code", READS_FILES,
        "The code that loads a table file with a view's filter, sort and columns",
        "The library's own reader (pandas `read_csv`/`read_parquet`/`read_json(lines=True)`"
        "/`read_excel`, polars `scan_*`, DuckDB `read_*`, R readr/arrow/jsonlite/readxl) "
        "binding the file's `name`, then the view's code as the explorer's Convert to Code "
        "writes it for that library, binding `{name}_view`. Nothing is executed. " + FILES,
        params=(FILE_PATH,
                Param("columns", COLUMNS, "The columns shown, in order: a range `start:stop` "
                      "or a list `0,3,7` of positions; default every column.",
                      max=protocol.MAX_COLUMNS, default=Columns()),
                SORT, FILTER_TREE,
                Param("syntax", CHOICE, "The code's language.", default="pandas",
                      choices=("pandas", "polars", "duckdb", "dplyr")),
                Param("relative_to", TEXT, "A directory (an API path, `analysis/`) the file's "
                      "path is written from, as a kernel started there sees it; default the "
                      "server's root.", max=4096),
                BUDGET),
        build=lambda v, limits: _file_query(v, variable_queries.CodeOptions(
            name="file", view=view(v), syntax=v["syntax"], budget_ms=v["budget_ms"],
            **_columns(v))),
        call=lambda service, _kid, query: _files(service).code(query),
        reply="ViewCode", large=True, errors=FILE_ERRORS),
)

ROUTES: dict[str, Route] = {route.name: route for route in (*_ROUTES, *_FILE_ROUTES)}
