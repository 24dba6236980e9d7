"""The limits of the tables read from files (``files/…`` routes); ``KernelStateApp``'s
``files_*`` traits fill them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileLimits:
    #: Seconds the server waits for the worker's answer; past it the worker is killed
    #: (and started again at the next request) and the request is answered 503.
    timeout: float = 15.0
    #: Files larger than this are refused (413) before anything is read.
    max_bytes: int = 64 * 1024**3
    #: Excel workbooks are read whole by openpyxl (DuckDB's excel extension needs a
    #: download): at most this many bytes and rows.
    excel_max_bytes: int = 20 * 1024**2
    excel_max_rows: int = 200_000
    #: DuckDB's memory limit and threads in the worker process.
    memory_mb: int = 1024
    threads: int = 2
    #: One answer of the worker at most (a window is bounded by rows × cells already).
    max_reply_bytes: int = 32 * 1024**2
    #: Files kept open (their DuckDB relations) in the worker.
    open_files: int = 8

    @property
    def budget_ms(self) -> int:
        """What one request may spend in the worker: 80 % of ``timeout``."""
        return max(1, int(self.timeout * 1000 * 0.8))
