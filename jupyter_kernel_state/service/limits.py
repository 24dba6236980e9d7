"""The limits the service works within; filled from the ExtensionApp's traits."""

from __future__ import annotations

from dataclasses import dataclass, field

from .history import HistoryLimits
from .images import ImageLimits


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
    images: ImageLimits = field(default_factory=ImageLimits)
    history: HistoryLimits = field(default_factory=HistoryLimits)
