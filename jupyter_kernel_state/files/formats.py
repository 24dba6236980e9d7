"""The file formats read as tables, by extension, and the code that loads each one.

DuckDB reads CSV, TSV, Parquet and JSON Lines itself (in the worker, ``worker.py``);
Excel is read by openpyxl there (DuckDB's excel extension is a download), within
``excel_max_bytes`` and ``excel_max_rows``. The loading code (``code`` with a view) is
each library's own reader, then the view's code the probe writes for that library.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    name: str
    title: str
    #: Readers: pandas (``pd.…``), polars (``pl.…``, lazy where polars scans), DuckDB's
    #: Python API (``duckdb.…``) and R (its package and call); ``{path}`` is a literal.
    pandas: str
    polars: str
    polars_lazy: bool
    duckdb: str
    r_library: str
    r_read: str


FORMATS: dict[str, Format] = {
    "csv": Format("csv", "CSV", "pd.read_csv({path})", "pl.scan_csv({path})", True,
                  "duckdb.read_csv({path})", "readr", "readr::read_csv({path})"),
    "tsv": Format("tsv", "TSV", 'pd.read_csv({path}, sep="\\t")',
                  'pl.scan_csv({path}, separator="\\t")', True,
                  'duckdb.read_csv({path}, sep="\\t")', "readr", "readr::read_tsv({path})"),
    "parquet": Format("parquet", "Parquet", "pd.read_parquet({path})",
                      "pl.scan_parquet({path})", True, "duckdb.read_parquet({path})",
                      "arrow", "arrow::read_parquet({path})"),
    "jsonl": Format("jsonl", "JSON Lines", "pd.read_json({path}, lines=True)",
                    "pl.scan_ndjson({path})", True,
                    'duckdb.read_json({path}, format="newline_delimited")', "jsonlite",
                    "jsonlite::stream_in(file({path}), verbose = FALSE)"),
    "xlsx": Format("xlsx", "Excel", "pd.read_excel({path})", "pl.read_excel({path})", False,
                   "duckdb.from_df(pd.read_excel({path}))", "readxl",
                   "readxl::read_excel({path})"),
}
#: Other extensions read as one of the formats above.
ALIASES = {"ndjson": "jsonl", "pq": "parquet"}

#: The languages of the loading code (``code?syntax=``).
SYNTAXES = ("pandas", "polars", "duckdb", "dplyr")


def format_for(path: str) -> Format | None:
    ext = path.rsplit("/", 1)[-1].rpartition(".")[2].lower() if "." in path else ""
    return FORMATS.get(ALIASES.get(ext, ext))


def python_string(text: str) -> str:
    """A Python string literal of ``text`` (double quotes, escapes as JSON writes them,
    which Python reads alike)."""
    return json.dumps(text, ensure_ascii=False)


def r_string(text: str) -> str:
    """An R string literal of ``text``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def loading_code(fmt: Format, syntax: str, path: str, name: str, view_code: str) -> str:
    """The code that loads the file at ``path`` (as the kernel will see it) into
    ``name``, followed by ``view_code`` (the probe's code of the view, which binds
    ``{name}_view`` from ``name``)."""
    if syntax == "dplyr":
        read = fmt.r_read.format(path=r_string(path))
        return f"{name} <- {read}\n{view_code}"
    literal = python_string(path)
    if syntax == "pandas":
        head = ["import pandas as pd", f"{name} = {fmt.pandas.format(path=literal)}"]
    elif syntax == "polars":
        head = ["import polars as pl", f"{name} = {fmt.polars.format(path=literal)}"]
    else:
        head = ["import duckdb"] + (["import pandas as pd"] if fmt.name == "xlsx" else [])
        head.append(f"{name} = {fmt.duckdb.format(path=literal)}")
    body = _without_imports(view_code, head)
    tail = []
    if syntax == "polars" and fmt.polars_lazy:
        tail.append(f"{name}_view = {name}_view.collect()")
    return "\n".join([*head, body.rstrip("\n"), *tail]) + "\n"


def _without_imports(code: str, head: list[str]) -> str:
    """``code`` with the import lines ``head`` already has moved up into it."""
    lines = code.splitlines()
    imports = [line for line in lines if line.startswith("import ")]
    for line in imports:
        if line not in head:
            head.insert(0, line)
    return "\n".join(line for line in lines if not line.startswith("import "))
