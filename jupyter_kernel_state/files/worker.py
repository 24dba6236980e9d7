"""The worker process that reads table files with DuckDB, outside the server's event loop.

Run as ``python -m jupyter_kernel_state.files.worker '<settings JSON>'`` by
``files/reader.py``: one JSON request a line on stdin, one JSON reply a line on stdout,
one request at a time. Each file is opened as a DuckDB relation (kept, at most
``open_files``, while its size and modification time stay the same) and put in a
namespace of its own under the handle the server chose; the request is then one of the
probe's own operations (``probe.entry.dispatch``: rows, profile, findings, code, count)
on that namespace — the same windows, sort, filter trees, profiles, findings and code as
a DuckDB relation in a kernel, under the probe's time guards (SIGALRM on this process's
main thread, DuckDB's ``interrupt`` past a guard). The code of a view for pandas or
polars is written on a stand-in with the file's schema and no rows.

Nothing here reads a path the server did not check (``paths.py``), and nothing of a
file is executed. The server kills this process past its deadline and starts another.
"""

from __future__ import annotations

import collections
import datetime
import json
import os
import sys
from typing import Any

from ..probe import entry, protocol
from ..probe.wire import dumps


class Opened:
    """The files open in DuckDB: ``(path, stamp) → relation``, the oldest closed first."""

    def __init__(self, settings: dict[str, Any]) -> None:
        import duckdb

        self.settings = settings
        self.con = duckdb.connect(config={
            "memory_limit": "{}MB".format(int(settings["memory_mb"])),
            "threads": int(settings["threads"]),
        })
        self.con.execute("SET enable_progress_bar = false")
        self.relations: collections.OrderedDict[tuple[Any, ...], Any] = (
            collections.OrderedDict())

    def relation(self, file: dict[str, Any]) -> Any:
        key = (file["path"], file["format"], *file["stamp"])
        rel = self.relations.get(key)
        if rel is None:
            rel = self._open(file["path"], file["format"])
            self.relations[key] = rel
            while len(self.relations) > int(self.settings["open_files"]):
                self.relations.popitem(last=False)
        self.relations.move_to_end(key)
        return rel

    def _open(self, path: str, fmt: str) -> Any:
        if os.path.realpath(path) != path:  # moved or relinked since the server checked it
            raise Unreadable("it changed since it was checked; try again")
        con = self.con
        if fmt == "parquet":
            return con.read_parquet(path)
        if fmt == "csv":
            return con.read_csv(path)
        if fmt == "tsv":
            return con.read_csv(path, sep="\t")
        if fmt == "jsonl":
            return con.read_json(path, format="newline_delimited")
        if fmt == "xlsx":
            return con.from_df(excel_frame(path, self.settings))
        raise Unreadable("no reader for " + fmt)


#: Cells of a workbook read at most, whatever its rows (openpyxl holds them as objects).
MAX_EXCEL_CELLS = 20_000_000


class Unreadable(Exception):
    """The file is not what its extension says, or past a bound: a 422 with this text."""


def excel_frame(path: str, settings: dict[str, Any]) -> Any:
    """The first sheet of a workbook as a pandas DataFrame (the first row names the
    columns), at most ``excel_max_rows`` rows; a column of mixed types is read as text."""
    import openpyxl
    import pandas as pd

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:
        raise Unreadable("not an Excel workbook (.xlsx): " + _first_line(exc)) from None
    try:
        sheet = book.worksheets[0]
        rows = sheet.iter_rows(values_only=True)
        header = next(rows, None) or ()
        names = _names(header)
        limit = int(settings["excel_max_rows"])
        if len(names) * limit > MAX_EXCEL_CELLS:
            limit = max(1, MAX_EXCEL_CELLS // max(1, len(names)))
        data: list[list[Any]] = []
        for row in rows:
            if len(data) >= limit:
                raise Unreadable(f"more than {limit:,} rows of {len(names):,} columns: past the "
                                 "server's files_excel_max_rows (and at most "
                                 f"{MAX_EXCEL_CELLS:,} cells)")
            data.append(list(row[:len(names)]) + [None] * (len(names) - len(row)))
    finally:
        book.close()
    columns = {name: _column([r[i] for r in data]) for i, name in enumerate(names)}
    return pd.DataFrame(columns)


def _names(header: tuple[Any, ...]) -> list[str]:
    names: list[str] = []
    for i, cell in enumerate(header):
        name = str(cell) if cell is not None and str(cell).strip() else f"column{i + 1}"
        while name in names:
            name += "_"
        names.append(name)
    return names


def _column(values: list[Any]) -> Any:
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {int, float} or (len(kinds) <= 1 and not kinds & {datetime.time}):
        return values
    if kinds <= {datetime.datetime, datetime.date}:
        return [v if not isinstance(v, datetime.date) or isinstance(v, datetime.datetime)
                else datetime.datetime(v.year, v.month, v.day) for v in values]
    return [None if v is None else str(v) for v in values]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def stand_in(rel: Any, syntax: str, fmt: str) -> tuple[Any, str]:
    """What the code of a view is written on, and in which probe syntax: the relation
    itself (DuckDB, its SQL), or a table with the file's schema and no rows."""
    if syntax == "duckdb":
        return rel, "sql"
    empty = rel.limit(0)
    if syntax == "pandas":
        return empty.df(), "pandas"
    if syntax == "polars":
        frame = empty.pl()
        return (frame.lazy(), "polars_lazy") if fmt != "xlsx" else (frame, "polars")
    raise Unreadable("no stand-in for " + syntax)


def answer(opened: Opened | None, message: dict[str, Any]) -> dict[str, Any]:
    """The reply to one request of the server."""
    if opened is None:
        return protocol.refusal("unsupported", "Files are read by DuckDB, which is not "
                                "installed on the server (pip install duckdb)")
    file, name, request = message["file"], message["name"], dict(message["request"])
    try:
        rel = opened.relation(file)
    except Unreadable as exc:
        return protocol.refusal("unprocessable", "{} cannot be read: {}".format(
            message["shown"], exc))
    except Exception as exc:
        return protocol.refusal("unprocessable", "{} cannot be read as {}: {}".format(
            message["shown"], message["title"], _first_line(exc)))
    value = rel
    syntax = message.get("syntax")
    if syntax == "dplyr":
        from .rcode import view_code

        return view_code(rel, name, request)
    if syntax is not None:
        try:
            value, request["syntax"] = stand_in(rel, syntax, file["format"])
        except Exception as exc:
            return protocol.refusal("unprocessable", "{}: {}".format(message["shown"],
                                                                     _first_line(exc)))
    reply: dict[str, Any] = entry.dispatch(  # type: ignore[no-untyped-call]
        request, {name: value})
    return reply


def _as_served(text: str, message: dict[str, Any]) -> str:
    """The reply's JSON with the file's real path (in DuckDB's errors, an engine's
    ``location``) said as its API path: nothing of the server's disk goes out."""
    real = json.dumps(message["file"]["path"])[1:-1]
    return text.replace(real, json.dumps(message["api_path"])[1:-1])


def main() -> None:
    settings = json.loads(sys.argv[1])
    try:
        opened: Opened | None = Opened(settings)
    except ImportError:
        opened = None
    # Replies go to the real stdout; anything a library prints goes to stderr.
    out, sys.stdout = sys.stdout, sys.stderr
    for line in sys.stdin:
        try:
            message = json.loads(line)
            reply = answer(opened, message)
            text = _as_served(dumps(reply), message)  # type: ignore[no-untyped-call]
        except Exception as exc:  # ours: said, never a traceback
            text = dumps(  # type: ignore[no-untyped-call]
                protocol.refusal("failed", "file reader error: " + type(exc).__name__))
        out.write(text + "\n")
        out.flush()


if __name__ == "__main__":
    main()
