"""The limits the service works within; filled from the ExtensionApp's traits."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..files.limits import FileLimits
from .history import HistoryLimits
from .images import MESSAGE_MARGIN_BYTES, ImageLimits


@dataclass(frozen=True)
class Limits:
    probe_timeout: float = 5.0
    time_guard_ms: int = 100
    probe_budget_ms: int = 2000
    preview_chars: int = 200
    detail_chars: int = 10_000
    max_detail_chars: int = 65_536
    page_size: int = 500
    max_page_size: int = 10_000
    snapshot_cache_size: int = 32
    detail_cache_size: int = 64
    # Presented variables (JSON fragments) kept server-wide, to serve unchanged ones again.
    presented_fragments: int = 50_000
    # The data explorer's windows (``variables/{name}/rows``).
    rows_max_rows: int = 1_000
    rows_max_columns: int = 100
    rows_cell_chars: int = 200
    rows_read_ms: int = 1_000
    rows_sort_ms: int = 2_000
    rows_cache_size: int = 16
    # Engine tables (a DuckDB relation, a polars LazyFrame …): the count a window asks its
    # engine for (past it: "not counted"), and the count asked on its own
    # (``variables/{name}/count``); both within the reply deadline (``table_budget_ms``).
    rows_count_ms: int = 1_000
    engine_count_ms: int = 10_000
    # The most a request may ask for itself (``budget_ms`` on rows, count, profile, code):
    # every guard of that request raised to it, and its reply awaited that long.
    max_request_budget_ms: int = 60_000
    # Column profiles (``variables/{name}/profile``): columns per call, each column's time
    # guard, the rows past which statistics come from a fixed-seed sample, answers kept.
    profile_max_columns: int = 100
    profile_column_ms: int = 1_000
    profile_sample_rows: int = 1_000_000
    profile_cache_size: int = 8
    # Versions of tables kept on request (``variables/{name}/kept``): every name's, at most
    # this many and this many bytes in a kernel (the probe's defaults).
    max_kept: int = 5
    max_kept_bytes: int = 512 * 1024 * 1024
    images: ImageLimits = field(default_factory=ImageLimits)
    history: HistoryLimits = field(default_factory=HistoryLimits)
    # Tables read from files (``files/…``), in a worker process.
    files: FileLimits = field(default_factory=FileLimits)
    # IOPub content (plus buffers) past which a message is not decoded; 0: derived.
    max_iopub_message_bytes: int = 0
    # Seconds between checks that release our wire to a gateway kernel nobody else is
    # connected to (and reopen it when someone is again); 0: never release.
    gateway_release_interval: float = 30.0

    @property
    def table_budget_ms(self) -> int:
        """What one table operation (rows, count, profile, code) may spend in the kernel:
        80 % of the reply deadline, leaving the answer room to travel back. Every guard of
        the operation is cut to it (the probe's timer stops at whichever comes first)."""
        return max(1, int(self.probe_timeout * 1000 * 0.8))

    @staticmethod
    def deadline_for(budget_ms: int) -> float:
        """The reply deadline (s) of a request given ``budget_ms`` in the kernel: the same
        20 % beyond it for the answer to travel back as ``table_budget_ms`` leaves."""
        return budget_ms / 1000 / 0.8

    def iopub_message_bytes(self) -> int:
        """The size past which an IOPub message's content is dropped undecoded.

        Nothing can keep more: the image store keeps images of at most ``max_image_bytes``
        (4/3 of that as base64, plus a margin for the rest of the bundle), and the history
        keeps ``max_output_chars`` of output (≤ 4 bytes a character in UTF-8)."""
        if self.max_iopub_message_bytes > 0:
            return self.max_iopub_message_bytes
        return max(self.images.largest_message(),
                   self.history.max_output_chars * 4 + MESSAGE_MARGIN_BYTES)
