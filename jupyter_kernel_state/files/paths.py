"""Which file a request names, and whether it may be read: under the server's root only.

A path is an API path (``data/sales.parquet``, as the file browser says it), relative to
the contents manager's ``root_dir`` (a leading ``/`` is the root). The real path — every
symlink resolved — must lie inside the root's real path, as jupyter_server's
``FileContentsManager`` requires; a hidden segment (``.cache/x.csv``) is refused unless
``allow_hidden``; glob characters are refused (DuckDB would expand them into other files);
the file must be a regular file of a known format, no larger than ``max_bytes``.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

from ..errors import Forbidden, InvalidRequest, NotFound, TooLarge
from .formats import FORMATS, Format, format_for

#: Characters of an API path at most.
MAX_PATH = 4096
#: DuckDB expands these in a file name (``*``, ``?``, ``[…]``, ``{…}``): never passed on.
_GLOB = re.compile(r"[*?\[\]{}]")


@dataclass(frozen=True)
class TableFile:
    """A file checked for reading: its API path, real path, format, size and stamp."""

    api_path: str
    real_path: str
    format: Format
    size: int
    mtime_ns: int

    @property
    def stamp(self) -> tuple[int, int]:
        """What changes when the file does: its size and modification time."""
        return (self.size, self.mtime_ns)


@dataclass(frozen=True)
class Root:
    """The server's root (``ContentsManager.root_dir``) and its ``allow_hidden``."""

    root_dir: str
    allow_hidden: bool = False

    @classmethod
    def of(cls, contents_manager: object) -> Root | None:
        """The root of a contents manager that keeps files on this disk, else None."""
        root = getattr(contents_manager, "root_dir", None)
        if not isinstance(root, str) or not os.path.isdir(root):
            return None
        return cls(os.path.realpath(root), bool(getattr(contents_manager, "allow_hidden",
                                                         False)))

    def resolve(self, api_path: str, max_bytes: int) -> TableFile:
        """The file ``api_path`` names, checked; else the error that says why (400 a
        malformed path or an unknown format, 403 outside the root, 404 missing or
        hidden, 413 too large)."""
        path = _clean(api_path)
        fmt = format_for(path)
        if fmt is None:
            raise InvalidRequest(f"{_shown(path)} is not a table file: the formats read are "
                                 + ", ".join(f".{ext}" for ext in FORMATS))
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if not self.allow_hidden and any(p.startswith(".") and p != ".." for p in parts):
            raise NotFound(f"File not found: {_shown(path)} (hidden files are not read: "
                           "the server's ContentsManager.allow_hidden is false)")
        real = os.path.realpath(os.path.join(self.root_dir, *parts))
        if os.path.commonpath([self.root_dir, real]) != self.root_dir:
            raise Forbidden(f"{_shown(path)} is outside the server's root directory")
        if not self.allow_hidden and any(
                p.startswith(".") for p in os.path.relpath(real, self.root_dir).split(os.sep)):
            raise NotFound(f"File not found: {_shown(path)} (it leads to a hidden file)")
        try:
            info = os.stat(real)
        except OSError:
            raise NotFound(f"File not found: {_shown(path)}") from None
        if not stat.S_ISREG(info.st_mode):
            raise InvalidRequest(f"{_shown(path)} is not a file")
        if _GLOB.search(real):
            raise InvalidRequest(f"{_shown(path)}: file names with * ? [ ] {{ }} are not read "
                                 "(DuckDB would read them as patterns)")
        if info.st_size > max_bytes:
            raise TooLarge(f"{_shown(path)} is {info.st_size:,} bytes: larger than the "
                           f"server's files_max_bytes ({max_bytes:,})")
        return TableFile(path, real, fmt, info.st_size, info.st_mtime_ns)


def _clean(api_path: str) -> str:
    if not isinstance(api_path, str) or not api_path.strip():
        raise InvalidRequest("path is required: a file's path under the server's root")
    if len(api_path) > MAX_PATH or "\x00" in api_path or "\\" in api_path:
        raise InvalidRequest(f"path must be an API path of at most {MAX_PATH:,} characters, "
                             "with / between its parts")
    return api_path.strip().lstrip("/")


def _shown(path: str) -> str:
    return repr(path if len(path) <= 200 else path[:200] + "…")
