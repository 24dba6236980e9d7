"""Measurements, their statistics, and the tables printed and written to the report."""

from __future__ import annotations

import math
import statistics
import sys
import time
from dataclasses import dataclass, field


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Measure:
    """Repeated timings (seconds) and peak-RSS growths (MB) of one approach on one state."""

    state: str
    approach: str
    seconds: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    note: str = ""
    floor: Measure | None = None
    #: When set, the case did not complete (e.g. "hang: no reply in 10 s").
    failure: str = ""

    def add(self, seconds: float, rss_mb: float | None = None) -> None:
        self.seconds.append(seconds)
        if rss_mb is not None:
            self.rss_mb.append(rss_mb)

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.seconds) * 1e3 if self.seconds else None

    @property
    def p90_ms(self) -> float | None:
        return percentile(self.seconds, 90) * 1e3 if self.seconds else None

    @property
    def ratio(self) -> float | None:
        if self.floor is None or not self.seconds or not self.floor.seconds:
            return None
        return statistics.median(self.seconds) / statistics.median(self.floor.seconds)

    @property
    def peak_rss_mb(self) -> float | None:
        return max(self.rss_mb) if self.rss_mb else None


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_ratio(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}×" if value >= 100 else f"{value:.1f}×"


def fmt_mb(value: float | None) -> str:
    return "—" if value is None else f"{value:+.1f}"


KERNEL_HEADER = ("state", "approach", "n", "median ms", "p90 ms", "× floor", "peak RSS MB",
                 "note")


def kernel_rows(measures: list[Measure]) -> list[tuple[str, ...]]:
    rows = []
    for m in measures:
        if m.failure:
            rows.append((m.state, m.approach, str(len(m.seconds) or 1), m.failure, "—", "—",
                         fmt_mb(m.peak_rss_mb), m.note))
            continue
        rows.append((m.state, m.approach, str(len(m.seconds)), fmt_ms(m.median_ms),
                     fmt_ms(m.p90_ms), fmt_ratio(m.ratio), fmt_mb(m.peak_rss_mb), m.note))
    return rows


def text_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    return "\n".join(out)


def markdown_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(out)


@dataclass
class Check:
    """One DESIGN §5 target and whether this run met it."""

    target: str
    measured: str
    met: bool | None  # None: not measurable in this run

    def row(self) -> tuple[str, str, str]:
        verdict = "n/a" if self.met is None else ("met" if self.met else "MISSED")
        return (self.target, self.measured, verdict)


CHECK_HEADER = ("target (DESIGN §5)", "measured", "verdict")


def log_line(message: str) -> None:
    """A timestamped progress line on stderr (the tables go to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def print_tables(header: tuple[str, ...], cells: list[tuple[str, ...]],
                 verdicts: list[tuple[str, str, bool]]) -> int:
    """The rows as a text and a Markdown table, then each verdict; 0 when all pass."""
    print(text_table(header, cells))
    print()
    print(markdown_table(header, cells))
    print()
    for name, value, ok in verdicts:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value}")
    return 0 if all(ok for _, _, ok in verdicts) else 1

