"""Server-side logic (no tornado.web): kernel connections, snapshots, IOPub data."""

from .limits import Limits
from .options import DetailOptions, SnapshotOptions
from .service import KernelStateService

__all__ = ["DetailOptions", "KernelStateService", "Limits", "SnapshotOptions"]
