"""Server-side logic (no tornado.web): kernel connections, snapshots, IOPub data."""

from .limits import Limits
from .queries import (
    AnnotationUpdate,
    DetailOptions,
    HistoryOptions,
    ImagesOptions,
    PromptOptions,
    RowsOptions,
    SnapshotOptions,
    TimelineOptions,
)
from .service import KernelStateService

__all__ = [
    "AnnotationUpdate",
    "DetailOptions",
    "HistoryOptions",
    "ImagesOptions",
    "KernelStateService",
    "Limits",
    "PromptOptions",
    "RowsOptions",
    "SnapshotOptions",
    "TimelineOptions",
]
