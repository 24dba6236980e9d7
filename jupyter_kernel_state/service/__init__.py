"""Server-side logic (no tornado.web): kernel connections, snapshots, IOPub data."""

from .limits import Limits
from .queries import (
    DetailOptions,
    HistoryOptions,
    ImagesOptions,
    PromptOptions,
    SnapshotOptions,
)
from .service import KernelStateService

__all__ = [
    "DetailOptions",
    "HistoryOptions",
    "ImagesOptions",
    "KernelStateService",
    "Limits",
    "PromptOptions",
    "SnapshotOptions",
]
