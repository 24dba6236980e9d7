"""Server-side logic (no tornado.web): kernel connections, snapshots, IOPub data."""

from .limits import Limits
from .queries import (
    AnnotationUpdate,
    DetailOptions,
    HistoryOptions,
    ImagesOptions,
    PromptOptions,
    SnapshotOptions,
)
from .service import KernelStateService
from .variable_queries import (
    CodeOptions,
    CountOptions,
    FindingsOptions,
    ProfileOptions,
    RowsOptions,
    TimelineOptions,
)

__all__ = [
    "AnnotationUpdate",
    "CodeOptions",
    "CountOptions",
    "DetailOptions",
    "FindingsOptions",
    "HistoryOptions",
    "ImagesOptions",
    "KernelStateService",
    "Limits",
    "ProfileOptions",
    "PromptOptions",
    "RowsOptions",
    "SnapshotOptions",
    "TimelineOptions",
]
