"""Build the OpenAPI 3.1 document of the REST API from the package's JSON Schema.

`python -m jupyter_kernel_state.schema.openapi > docs/openapi.json`; a test checks that the
committed document is what this prints, so the two never drift apart.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ..probe.protocol import SYNTAXES

BASE = "/api/kernel-state"


def _schemas() -> dict[str, Any]:
    raw = resources.files("jupyter_kernel_state").joinpath("schema/rest-v1.json").read_text()
    text = raw.replace("#/$defs/", "#/components/schemas/")
    return json.loads(text)["$defs"]  # type: ignore[no-any-return]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(name: str, description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": _ref(name)}}}


def _param(name: str, where: str, description: str, schema: dict[str, Any],
           required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": where, "required": required or where == "path",
            "description": description, "schema": schema}


ERRORS = {
    "400": _json("Error", "Invalid input (name, query value, body): the message says what."),
    "403": _json("Error", "Not authenticated, not authorized, or missing XSRF token."),
    "404": _json("Error", "`Kernel does not exist: <id>`, `Variable not found: <name>`, ..."),
}
KERNEL = _param("kernel_id", "path", "A running kernel's id.", {"type": "string"})
SORT = _param("sort", "query", "Sort keys: `price:desc,region:asc` (comma-separated, each "
              "split at its last colon, `:asc` by default), or a JSON list "
              '`[{"column": "a,b", "desc": true}]` for names with commas or colons; at most 10. '
              "Stable; missing values last in both directions.",
              {"type": "string", "maxLength": 12000})
FILTER = _param("filter", "query", "JSON: one condition "
                '`{"column": "price", "op": "gt", "value": 10}` or a tree '
                '`{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5 deep); see '
                "FilterCondition for the ops and their values. Each value is read as its "
                "column's type (400 naming the column and its dtype when it does not fit). "
                "Missing values match only isnull. `filtered_rows` counts the rows kept.",
                {"type": "string", "maxLength": 200000})
LAZY = _json("Error", "A lazy value that is not an engine's table (a generator, an "
             "iterator, a dask Array, Series or Bag, an xarray DataArray on dask): reading would "
             "compute or consume it.")
ENGINES = ("Engine tables (a DuckDB relation, a polars LazyFrame, an Ibis table, a PySpark "
           "DataFrame, classic or Spark Connect, a dask DataFrame) are computed in their "
           "engine, never collected: `engine` says which (null for a table in memory).")
NAME = _param("name", "path", "A Python identifier (not a keyword), at most 256 characters, "
              "looked up as an exact namespace key.", {"type": "string", "maxLength": 256})


def build_openapi() -> dict[str, Any]:
    busy = {"description": "Kernel busy with no snapshot yet, starting, dead or restarting; "
            "see `Retry-After`.",
            "headers": {"Retry-After": {"schema": {"type": "integer"}}},
            "content": {"application/json": {"schema": _ref("Error")}}}
    not_python = _json("Error", "The kernel's language has no probe (only Python and R kernels).")
    paths: dict[str, Any] = {
        f"{BASE}/kernels": {"get": {
            "summary": "Running kernels with their state counters and notebook paths",
            "description": "Needs `read` on `kernels`. `path` is the notebook or console "
            "each kernel belongs to, from the server's sessions (null without a session).",
            "responses": {"200": _json("KernelList", "The kernels."), "403": ERRORS["403"]},
        }},
        f"{BASE}/kernels/{{kernel_id}}/variables": {"get": {
            "summary": "A snapshot of the kernel's variables (one page, exact counts)",
            "description": "Needs `execute` on `kernels`. Unchanged state is answered from "
            "cache without a kernel message; a busy kernel gets the last snapshot with "
            "`stale: true, kernel_busy: true`.",
            "parameters": [
                KERNEL,
                _param("include", "query", "Comma list of private, modules, callables, classes.",
                       {"type": "string"}),
                _param("limit", "query", "Page size (default 500, clamped to 10,000).",
                       {"type": "integer", "minimum": 1}),
                _param("offset", "query", "Page start.", {"type": "integer", "minimum": 0}),
                _param("sort", "query", "Order: name, type (A to Z), size, memory, changed "
                       "(largest or latest first), each optionally with `:asc` or `:desc` "
                       "(`memory:asc`); unknown values last either way.",
                       {"type": "string",
                        "pattern": "^(name|type|size|changed|memory)(:(asc|desc))?$"}),
                _param("detail", "query", "`names` (name, type, kind), `schema` (+ size, "
                       "shape, dtype, nbytes, memory, and for tables `columns` with dtypes, at "
                       "most 50, and `columns_total`) or `full` (the default: every field).",
                       {"enum": ["names", "schema", "full"]}),
                _param("since", "query", "Generation to compute `change` against (default: "
                       "the previous execution).", {"type": "integer", "minimum": 0}),
                _param("filter", "query", "Only names or type names matching this "
                       "case-insensitive glob (`*` and `?`); plain text matches anywhere. "
                       "`matched` counts the matches; `total` stays the namespace's count.",
                       {"type": "string", "maxLength": 200}),
                _param("changed_in", "query", "Only the variables last bound or changed in "
                       "this execution (an execution count, as in `changed_at`), whatever the "
                       "page and sort: `matched` counts them, `offset` and `limit` page through "
                       "them. Not with `delta`. Python and R kernels (501 from a probe that cannot "
                       "apply it).",
                       {"type": "integer", "minimum": 0}),
                _param("delta", "query", "With `since`: only what changed since that "
                       "generation — every new or modified entry (not paged, at most `limit`) "
                       "and the removed names, with `delta: true` and the exact `matched`. When "
                       "that cannot be told exactly (a restart since, a generation too old or "
                       "unknown, more changes than `limit`) the answer is a normal page with "
                       "`delta: false`.", {"type": "boolean"}),
                _param("If-None-Match", "header", "An ETag from an earlier answer.",
                       {"type": "string"}),
            ],
            "responses": {"200": {**_json("Snapshot", "The snapshot."),
                                  "headers": {"ETag": {"schema": {"type": "string"}}}},
                          "304": {"description": "Not modified since the given ETag."},
                          **ERRORS, "501": not_python, "503": busy},
        }},
        f"{BASE}/kernels/{{kernel_id}}/variables/{{name}}": {"get": {
            "summary": "One variable in depth, or one of its children",
            "description": "Needs `execute` on `kernels`.",
            "parameters": [
                KERNEL, NAME,
                _param("path", "query", "JSON array of `access_key` values from `children`.",
                       {"type": "string"}),
                _param("max_chars", "query", "Repr size (default 10,000, clamped to 65,536).",
                       {"type": "integer", "minimum": 1}),
                _param("reveal", "query", "Show a likely secret's value (`masked: false`). "
                       "Without it, `preview`, `repr`, `llm_repr` and children previews of a "
                       "likely secret are masked, here and in every other response.",
                       {"type": "boolean"}),
            ],
            "responses": {"200": _json("VariableDetail", "The variable."), **ERRORS,
                          "501": not_python, "503": busy},
        }, "delete": {
            "summary": "Delete a variable from the kernel's namespace",
            "description": "Needs `execute` on `kernels` (and the XSRF token with cookies). "
            "Removes the exact namespace key, never runs source code built from the name; "
            "the next snapshot lists it as removed. Python kernels.",
            "parameters": [KERNEL, NAME],
            "responses": {"204": {"description": "Deleted."}, **ERRORS,
                          "409": _json("Error", "The kernel is busy: nothing was deleted."),
                          "501": not_python, "503": busy},
        }},
        f"{BASE}/kernels/{{kernel_id}}/variables/{{name}}/rows": {"get": {
            "summary": "A window of a table or array (the data explorer)",
            "description": "Needs `execute` on `kernels`. pandas and polars DataFrames and "
            "Series, numpy 1-D/2-D arrays, xarray DataArrays in memory, lists of records. Only "
            "the window is read; a view's filter and sort are computed in the kernel by the "
            "value's own library under their own time guard (`rows_sort_ms`), and the order is "
            "kept for paging. Cells are text (dates compact, floats shortest, null for missing "
            "values), at most `rows_cell_chars` each. A busy kernel gets the last window of the "
            "same query with `stale: true`. Python and R kernels. " + ENGINES + " The window "
            "is one query in the engine (filter, sort, offset and limit pushed down); its "
            "count runs under `rows_count_ms`, and past it `total_rows` (and `filtered_rows`) "
            "is null: not counted (POST …/count counts it).",
            "parameters": [
                KERNEL, NAME,
                _param("offset", "query", "First row (default 0).",
                       {"type": "integer", "minimum": 0}),
                _param("limit", "query", "Rows (default 100, clamped to `rows_max_rows`, "
                       "1,000).", {"type": "integer", "minimum": 1}),
                _param("columns", "query", "Column positions: a range `start:stop` or a list "
                       "`0,3,7`, at most `rows_max_columns` (100); default the first 100.",
                       {"type": "string"}),
                SORT,
                FILTER,
            ],
            "responses": {"200": _json("RowsWindow", "The window."), **ERRORS,
                          "409": LAZY,
                          "422": _json("Error", "The value's own code raised or ran out of "
                                       "time while its rows were read; an engine's error (its "
                                       "first line), or its query cancelled in the engine past "
                                       "its time guard (the message says so, and the guard)."),
                          "501": not_python, "503": busy},
        }},
        f"{BASE}/kernels/{{kernel_id}}/variables/{{name}}/count": {"post": {
            "summary": "Count a table's rows (those a filter keeps), in its engine",
            "description": "Needs `execute` on `kernels` (and the XSRF token with cookies). "
            "What a window of an engine's table leaves \"not counted\": the rows counted by "
            "the engine, under `engine_count_ms` (10 s; like every guard, within 80 % of "
            "`probe_timeout`: raise both for longer counts); past it the count is cancelled in "
            "the engine (422). Tables in memory are counted too (by their own library). "
            "Cached by (epoch, generation, filter): asking again before a cell runs sends the "
            "kernel nothing; a busy kernel gets the last count of the same query with `stale: "
            "true`. Python kernels (R: 501).",
            "parameters": [KERNEL, NAME, FILTER],
            "responses": {"200": _json("CountResult", "The count."), **ERRORS,
                          "409": LAZY,
                          "422": _json("Error", "The engine's error (its first line), or the "
                                       "count cancelled in the engine past its time guard (the "
                                       "message says so, and the guard)."),
                          "501": _json("Error", "The kernel's language has no probe, or its "
                                       "probe no count yet (R)."),
                          "503": busy},
        }},
        f"{BASE}/kernels/{{kernel_id}}/variables/{{name}}/code": {"get": {
            "summary": "The code of a view: the rows, order and columns the explorer shows",
            "description": "Needs `execute` on `kernels`. Code that, run in the kernel where "
            "`name` lives, binds `{name}_view` to exactly the rows (the filter, missing values "
            "matching only isnull, written out), their order (the library's stable sort, "
            "missing values last) and the columns of the view. Written in the kernel from the "
            "columns' dtypes (values as literals of each column's type); nothing the caller "
            "sent is executed. pandas code for pandas values, numpy arrays and lists of "
            "records (through `pd.DataFrame`), polars code for polars values, dplyr for R "
            "data.frames; an engine's table gets its engine's own code (DuckDB `duckdb` or "
            "`sql`, a polars LazyFrame `polars_lazy` or `polars`, Ibis `ibis`, Spark "
            "`pyspark`, dask `dask`), which stays lazy.",
            "parameters": [
                KERNEL, NAME,
                _param("columns", "query", "The columns shown, in order: a range `start:stop` "
                       "or a list `0,3,7` of positions; default every column.",
                       {"type": "string"}),
                SORT,
                FILTER,
                _param("syntax", "query", "The code's language; default the value's own "
                       "library, or its engine's (400 for a syntax that does not fit the value, "
                       "listing those that do).",
                       {"type": "string", "enum": list(SYNTAXES)}),
            ],
            "responses": {"200": _json("ViewCode", "The code."), **ERRORS,
                          "409": _json("Error", "A lazy value that is not an engine's table "
                                       "(a generator, an iterator): no code is written for it."),
                          "422": _json("Error", "The value's own code raised or ran out of "
                                       "time while its columns were read."),
                          "501": not_python, "503": busy},
        }},
        f"{BASE}/kernels/{{kernel_id}}/variables/{{name}}/profile": {"get": {
            "summary": "The statistics of a table's columns (of the rows a filter keeps)",
            "description": "Needs `execute` on `kernels`. The values rows reads. Computed in "
            "the kernel a column at a time with the column's own library (pandas, polars, "
            "numpy; Python for lists of records), each under `profile_column_ms` (a column past "
            "it is listed with its `error`); the columns the request's time does not reach are "
            "counted in `columns_cut`. Past `profile_sample_rows` rows (1,000,000) the "
            "statistics come from a fixed-seed sample of that many (`sampled`, each column "
            "`approximate`; `count` and `null_count` stay exact). Lazy values are never "
            "computed. A busy kernel gets the last profile of the same query with `stale: "
            "true`. Python kernels (R: 501 for now). " + ENGINES + " Each column is one "
            "aggregate query in the engine (approximate quantiles and distinct counts where "
            "the engine has them: `approximate`); a column cancelled past `profile_column_ms` "
            "is computed again on the view's first `sample_rows` rows (`sampled`).",
            "parameters": [
                KERNEL, NAME,
                _param("columns", "query", "Column positions: a range `start:stop` or a list "
                       "`0,3,7`, at most `profile_max_columns` (100); default the first 100.",
                       {"type": "string"}),
                FILTER,
            ],
            "responses": {"200": _json("TableProfile", "The profile."), **ERRORS,
                          "409": LAZY,
                          "422": _json("Error", "The value's own code raised or ran out of "
                                       "time while it was read; an engine's error (its first "
                                       "line)."),
                          "501": _json("Error", "The kernel's language has no probe, or its "
                                       "probe no profile yet (R)."),
                          "503": busy},
        }},
        f"{BASE}/kernels/{{kernel_id}}/variables/{{name}}/timeline": {"get": {
            "summary": "When a variable was bound, changed or removed, and how",
            "description": "Needs `execute` on `kernels`. The probe keeps, per name, the last "
            "executions at which it was new, modified or removed, with the structural changes "
            "read from fingerprints (never copies of data), within a fixed memory bound. "
            "Python kernels.",
            "parameters": [
                KERNEL, NAME,
                _param("limit", "query", "Entries (default 20, clamped to 100).",
                       {"type": "integer", "minimum": 1}),
            ],
            "responses": {"200": _json("Timeline", "The timeline, oldest first."), **ERRORS,
                          "501": not_python, "503": busy},
        }},
        f"{BASE}/kernels/{{kernel_id}}/variables/{{name}}/annotation": {
            "put": {
                "summary": "Describe a variable, state its constraints, or hide it from assistants",
                "description": "Needs `execute` on `kernels` (the variable must exist). Kept "
                "across server restarts, keyed by the session's notebook path.",
                "parameters": [KERNEL, NAME],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "additionalProperties": False, "properties": {
                        "description": {"type": ["string", "null"], "maxLength": 2000},
                        "constraints": {"type": ["string", "null"], "maxLength": 2000},
                        "hidden_from_prompt": {"type": "boolean"}}}}}},
                "responses": {"200": _json("Annotation", "The stored annotation."), **ERRORS,
                              "503": busy},
            },
            "delete": {
                "summary": "Remove a variable's annotation",
                "description": "Needs `execute` on `kernels`, like PUT.",
                "parameters": [KERNEL, NAME],
                "responses": {"204": {"description": "Removed."}, **ERRORS},
            },
        },
        f"{BASE}/kernels/{{kernel_id}}/images": {"get": {
            "summary": "Images the kernel produced (captured from IOPub)",
            "description": "Needs `read` on `kernels`. Each image has its ordinal in the "
            "kernel (`seq`, 1-based, never reused), the execution count and the code of the "
            "cell that displayed it. The store keeps the first `keep_first_images` (10) and "
            "the latest `max_images` (50); `dropped` counts the images dropped in between.",
            "parameters": [
                KERNEL,
                _param("since", "query", "Only images with `seq` greater than this.",
                       {"type": "integer", "minimum": 0}),
                _param("limit", "query", "At most this many (default and max: all the store "
                       "holds, `keep_first_images` + `max_images`, 60).",
                       {"type": "integer", "minimum": 1}),
            ],
            "responses": {"200": _json("ImageList", "Images, oldest first."), **ERRORS},
        }},
        f"{BASE}/kernels/{{kernel_id}}/images/{{image_id}}": {"get": {
            "summary": "The bytes of one image",
            "description": "Needs `read` on `kernels`. Served with `X-Content-Type-Options: "
            "nosniff`; SVG also with `Content-Security-Policy: default-src 'none'; "
            "style-src 'unsafe-inline'; sandbox`. `?download=1` adds Content-Disposition.",
            "parameters": [KERNEL, _param("image_id", "path", "An image id.",
                                          {"type": "string"})],
            "responses": {"200": {"description": "The image.", "content": {
                mime: {"schema": {"type": "string", "format": "binary"}}
                for mime in ("image/png", "image/jpeg", "image/gif", "image/webp",
                             "image/svg+xml")}}, **ERRORS},
        }},
        f"{BASE}/kernels/{{kernel_id}}/history": {"get": {
            "summary": "Recent user executions rebuilt from IOPub",
            "description": "Needs `read` on `kernels`.",
            "parameters": [KERNEL, _param("limit", "query", "Entries (default 10, max 100).",
                                          {"type": "integer", "minimum": 0})],
            "responses": {"200": _json("History", "Oldest first."), **ERRORS},
        }},
        f"{BASE}/kernels/{{kernel_id}}/prompt": {"get": {
            "summary": "The token-budgeted text an assistant receives",
            "description": "Needs `execute` on `kernels`. See docs/prompt-format.md.",
            "parameters": [
                KERNEL,
                _param("budget", "query", "Characters (default 6,000; 200 to 200,000).",
                       {"type": "integer", "minimum": 200}),
                _param("since", "query", "Generation of the assistant's last look.",
                       {"type": "integer", "minimum": 0}),
                _param("history", "query", "Recent steps to include (default 0).",
                       {"type": "integer", "minimum": 0}),
                _param("images", "query", "Mention images produced since (default true).",
                       {"type": "boolean"}),
                _param("format", "query", "text (default) or json.", {"enum": ["text", "json"]}),
            ],
            "responses": {"200": {"description": "The prompt.", "content": {
                "text/plain": {"schema": {"type": "string"}},
                "application/json": {"schema": _ref("PromptResult")}}}, **ERRORS},
        }},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "jupyter_kernel_state REST API", "version": "1",
                 "description": "Variables, images and recent steps of running Jupyter "
                 "kernels. Paths are relative to the server's base URL. Authenticate as for "
                 "any Jupyter server API (token header or cookie + X-XSRFToken)."},
        "paths": paths,
        "components": {"schemas": _schemas()},
    }


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(build_openapi(), indent=1, ensure_ascii=False))
