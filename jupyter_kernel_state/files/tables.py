"""Tables read from files: the ``files/…`` routes' service.

Each call checks the path (``paths.Root``: under the server's root, not hidden, a known
format, within the size bounds), then asks the worker (``reader.FileReader``) for one of
the probe's own table operations on the file opened by DuckDB, under the same guards as
a variable's (``rows_read_ms``, ``rows_sort_ms``, ``rows_count_ms``, the profile's), with
the whole call within ``files_timeout``. The answers have the variable routes' shapes
(``RowsWindow``, ``TableProfile``, ``TableFindings``, ``ViewCode``), so the explorer reads
them unchanged; ``generation`` and ``epoch`` are 0 (a file has no kernel), ``name`` is the
handle the loading code binds (the file's stem as an identifier).
"""

from __future__ import annotations

import keyword
import logging
import posixpath
import re
from dataclasses import dataclass
from typing import Any

from ..errors import (
    Conflict,
    InvalidRequest,
    KernelStateError,
    NotFound,
    NotSupported,
    ProbeFailed,
    TooLarge,
    Unprocessable,
)
from ..probe import protocol
from ..service.limits import Limits
from ..service.variable_queries import (
    CodeOptions,
    FindingsOptions,
    ProfileOptions,
    RowsOptions,
    TableQuery,
)
from .formats import loading_code
from .paths import Root, TableFile
from .reader import FileReader

_REFUSALS: dict[str, type[KernelStateError]] = {
    "not_found": NotFound, "bad_request": InvalidRequest, "lazy": Conflict,
    "unprocessable": Unprocessable, "unsupported": NotSupported,
}


@dataclass(frozen=True)
class FileQuery:
    """A table operation on the file at ``path`` (an API path); ``relative_to``: the
    directory (an API path) the loading code's path is written from (None: the root)."""

    path: str
    options: TableQuery
    relative_to: str | None = None


class FileTables:
    def __init__(self, contents_manager: Any, limits: Limits, log: logging.Logger) -> None:
        self._root = Root.of(contents_manager)
        self._limits = limits
        self._log = log
        self.reader = FileReader(limits.files, log)

    async def rows(self, query: FileQuery) -> dict[str, Any]:
        options, limits = query.options, self._limits
        assert isinstance(options, RowsOptions)
        reply = await self._ask(query, "rows", offset=options.offset, limit=options.limit,
                                max_rows=limits.rows_max_rows,
                                max_columns=limits.rows_max_columns,
                                cell_chars=limits.rows_cell_chars,
                                cell_guard_ms=limits.time_guard_ms,
                                count_ms=limits.rows_count_ms)
        return _served(reply["rows"])

    async def profile(self, query: FileQuery) -> dict[str, Any]:
        assert isinstance(query.options, ProfileOptions)
        limits = self._limits
        reply = await self._ask(query, "profile", sort_ms=None, filter_ms=limits.rows_sort_ms,
                                max_columns=limits.profile_max_columns,
                                value_chars=limits.rows_cell_chars,
                                sample_rows=limits.profile_sample_rows,
                                column_ms=limits.profile_column_ms)
        return _served(reply["profile"])

    async def findings(self, query: FileQuery) -> dict[str, Any]:
        options, limits = query.options, self._limits
        assert isinstance(options, FindingsOptions)
        reply = await self._ask(query, "findings", sort_ms=None, filter_ms=limits.rows_sort_ms,
                                max_columns=limits.profile_max_columns,
                                sample_rows=limits.profile_sample_rows,
                                column_ms=limits.profile_column_ms,
                                max_findings=options.max_findings, syntax=options.syntax)
        return _served(reply["findings"])

    async def code(self, query: FileQuery) -> dict[str, Any]:
        """The code that loads the file with the view applied, in ``syntax`` (pandas by
        default; polars, duckdb, dplyr)."""
        options = query.options
        assert isinstance(options, CodeOptions)
        syntax = options.syntax or "pandas"
        file = self._file(query.path)
        name = handle(file.api_path)
        reply = await self._ask(query, "code", file=file, name=name, worker_syntax=syntax)
        code = reply["code"]
        path = file.api_path
        if query.relative_to is not None:
            base = query.relative_to.strip().strip("/")
            if "\x00" in base or "\\" in base or ".." in base.split("/"):
                raise InvalidRequest("relative_to must be a directory's API path under the "
                                     "server's root (like analysis/2024), without .. or \\")
            path = posixpath.relpath(file.api_path, base or ".")
        code["code"] = loading_code(file.format, syntax, path, name, code["code"])
        code["syntax"] = syntax
        return dict(code)

    async def stop(self) -> None:
        await self.reader.stop()

    # --- one request to the worker ------------------------------------------------------

    def _file(self, api_path: str) -> TableFile:
        if self._root is None:
            raise NotSupported("Files are read only from a contents manager that keeps them "
                               "on this server's disk (root_dir)")
        file = self._root.resolve(api_path, self._limits.files.max_bytes)
        cap = self._limits.files.excel_max_bytes
        if file.format.name == "xlsx" and file.size > cap:
            raise TooLarge(f"{file.api_path!r} is {file.size:,} bytes: Excel workbooks are "
                           f"read whole, at most the server's files_excel_max_bytes "
                           f"({cap:,})")
        return file

    async def _ask(self, query: FileQuery, op: str, *, file: TableFile | None = None,
                   name: str | None = None, worker_syntax: str | None = None,
                   **fields: Any) -> dict[str, Any]:
        """The probe operation ``op`` on the file, as the variable routes ask a kernel
        (``KernelState._call_on_table``), within the files' budget."""
        limits = self._limits
        file = file or self._file(query.path)
        name = name or handle(file.api_path)
        options = query.options
        _check_patterns(options.view.filter)
        budget = limits.files.budget_ms
        guards: dict[str, Any] = {"time_guard_ms": limits.rows_read_ms,
                                  "sort_ms": limits.rows_sort_ms, "budget_ms": budget}
        guards.update(fields)
        if options.budget_ms is not None:
            budget = min(options.budget_ms, limits.files.budget_ms)
            guards.update({k: budget for k, v in guards.items()
                           if k in _RAISED and v is not None})
        if guards.get("count_ms") is not None:
            guards["count_ms"] = min(guards["count_ms"], budget)
        try:
            request = protocol.request(op, name=name, view=options.view,
                                       **options.column_fields(),
                                       **{k: v for k, v in guards.items() if v is not None})
        except protocol.BadRequest as e:
            raise InvalidRequest(str(e)) from None
        message = {"file": {"path": file.real_path, "format": file.format.name,
                            "stamp": list(file.stamp)},
                   "name": name, "request": request, "shown": repr(file.api_path),
                   "api_path": file.api_path,
                   "title": file.format.title, "syntax": worker_syntax}
        reply = await self.reader.ask(message)
        if reply.get("ok", True):
            return reply
        text = str(reply.get("error") or "")
        for kind, error in _REFUSALS.items():
            if reply.get(kind):
                raise error(text or "Invalid request")
        raise ProbeFailed(f"File reader error: {text or 'unknown'}")


_RAISED = frozenset(("time_guard_ms", "sort_ms", "count_ms", "filter_ms", "column_ms",
                     "budget_ms"))


def handle(api_path: str) -> str:
    """The name the file's table goes by: its stem as a Python identifier (``sales`` of
    ``data/sales.parquet``; ``df`` when nothing of it is one)."""
    stem = posixpath.basename(api_path).split(".")[0]
    name = re.sub(r"\W+", "_", stem).strip("_").lower()[:64]
    if not name or not name.isidentifier() or keyword.iskeyword(name):
        name = ("df_" + name) if name and ("df_" + name).isidentifier() else "df"
    return name


def _check_patterns(node: protocol.Condition | protocol.Tree | None) -> None:
    """A filter's regular expressions compile (a 400 naming the filter before DuckDB's
    422; DuckDB's RE2 also refuses some that Python takes: those are its 422)."""
    if isinstance(node, protocol.Tree):
        for child in node.nodes:
            _check_patterns(child)
    elif node is not None and node.op == "regex":
        try:
            re.compile(str(node.value))
        except (re.error, OverflowError, RecursionError) as e:
            raise InvalidRequest(f"filter regex {str(node.value)[:60]!r} is not a valid "
                                 f"regular expression: {e}") from None


def _served(answer: dict[str, Any]) -> dict[str, Any]:
    """A table answer as the variable routes serve it: never stale (a file is read as it
    is now), no kernel generation."""
    return {**answer, "engine": answer.get("engine"), "generation": 0, "epoch": 0,
            "stale": False, "kernel_busy": False}
