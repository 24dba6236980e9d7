"""The report: machine facts, tables, target verdicts, and what the numbers mean."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import gateway_cases
import image_cases
import rest_cases
import scale_cases
from kernel_cases import DEADLINE_S
from results import (
    CHECK_HEADER,
    KERNEL_HEADER,
    Check,
    Measure,
    fmt_ms,
    kernel_rows,
    markdown_table,
    text_table,
)

REPO = Path(__file__).resolve().parent.parent
PHASE_HEADER = ("snapshot", "total ms", "visibility.names", "sorter.sort", "cache.entry",
                "└ summary.build", "cache.fragments", "tracker.change_of_many", "dumps",
                "reply chars")
HOTSPOT_HEADER = ("function (cProfile, cold probe, limit 10,000)", "calls", "own ms",
                  "cumulative ms", "own µs/call")


def machine() -> list[tuple[str, str]]:
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def version(package: str) -> str:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return "not installed"

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"

    dirty = git("status", "--porcelain", "--", "jupyter_kernel_state")
    return [
        ("CPUs (nproc)", str(os.cpu_count())),
        ("CPU", cpu),
        ("memory", mem),
        ("OS", f"{platform.system()} {platform.release()}"),
        ("load average at report time (1/5/15 min)",
         " / ".join(f"{x:.2f}" for x in os.getloadavg())),
        ("Python", sys.version.split()[0]),
        ("ipykernel / jupyter_client / jupyter_server / tornado",
         " / ".join(version(p) for p in ("ipykernel", "jupyter_client", "jupyter_server",
                                         "tornado"))),
        ("numpy / pandas / matplotlib",
         " / ".join(version(p) for p in ("numpy", "pandas", "matplotlib"))),
        ("product commit", git("rev-parse", "--short", "HEAD")
         + (" + uncommitted changes in jupyter_kernel_state/" if dirty else "")),
    ]


def _find(measures: list[Measure], state: str, approach_start: str) -> Measure | None:
    for m in measures:
        if m.state == state and m.approach.startswith(approach_start):
            return m
    return None


@dataclass
class Report:
    kernel: list[Measure]
    phases: list[tuple[str, dict[str, Any]]]
    hotspots: list[dict[str, Any]]
    hook: list[dict[str, Any]]
    rest: list[rest_cases.RestRow]
    micro: list[image_cases.MicroRow]
    flood: list[image_cases.FloodResult]
    gateway: list[gateway_cases.Row]
    scale: list[scale_cases.Row]
    quick: bool
    elapsed_s: float
    command: str

    # -- verdicts ----------------------------------------------------------------------

    def checks(self) -> list[Check]:
        k = self.kernel
        out = []

        def ratio_check(target: str, state: str, approach: str, limit: float,
                        extra: str = "") -> None:
            m = _find(k, state, approach)
            if m is None or m.ratio is None:
                out.append(Check(target, "not measured", None))
                return
            other = _find(k, state, approach.replace("limit 500", "limit 10,000"))
            also = (f"; with limit 10,000: {other.ratio:.1f}× ({fmt_ms(other.median_ms)} ms)"
                    if other is not None and other.ratio is not None and other is not m else "")
            out.append(Check(target, f"{m.ratio:.1f}× floor ({fmt_ms(m.median_ms)} ms vs "
                                      f"{fmt_ms(m.floor.median_ms if m.floor else None)} ms), "
                                      f"default page limit 500{also}{extra}",
                             m.ratio <= limit))

        ratio_check("first snapshot, 10,000 small variables ≤ 8× floor", "10,000 small",
                    "probe, first snapshot (cold probe), limit 500", 8)
        ratio_check("snapshot after one of 10,000 variables changed ≤ 3× floor",
                    "10,000 small", "probe, after `v0 = -1`, limit 500", 3)
        heavy = _find(k, "heavy (5 objects)", "probe, first snapshot (cold probe)")
        if heavy is not None and heavy.ratio is not None:
            rss = heavy.peak_rss_mb or 0.0
            out.append(Check("heavy objects ≤ 2× floor, kernel peak RSS +≤ 1 MB",
                             f"{heavy.ratio:.1f}× floor ({fmt_ms(heavy.median_ms)} ms), "
                             f"peak RSS {rss:+.1f} MB (worst of {len(heavy.rss_mb)})",
                             heavy.ratio <= 2 and rss <= 1.0))
        for m in k:
            if m.state.startswith("hostile") and m.approach.startswith("probe"):
                worst = max(m.seconds) if m.seconds else None
                ok = (not m.failure and worst is not None and worst <= DEADLINE_S
                      and "kernel usable after" in m.note)
                out.append(Check(f"{m.state}: within the 5 s deadline, kernel usable",
                                 m.failure or f"worst {worst * 1e3:,.0f} ms; {m.note}", ok))
        not_modified = [r for r in self.rest if "(304)" in r.case]
        cached = [r for r in self.rest if "(cached 200)" in r.case]
        for r in cached + not_modified:
            cells = r.cells()
            server = cells[4]
            ok = (r.kernel_requests == 0 and bool(r.server_ms)
                  and sorted(r.server_ms)[len(r.server_ms) // 2] <= 2.0)
            out.append(Check(f"unchanged state, {r.case}: ≤ 2 ms server time, no kernel message",
                             f"server median {server} ms (p90 {cells[5]}), round trip "
                             f"{cells[2]} ms, probe requests {r.kernel_requests}, {cells[6]}", ok))
        burst = next((r for r in self.rest if "concurrent" in r.case), None)
        if burst is not None:
            out.append(Check("50 concurrent GETs on one kernel → one probe request",
                             f"{burst.note}; statuses {burst.cells()[6]}",
                             burst.kernel_requests == 1))
        for f in self.flood:
            lost = f.published - f.counted
            out.append(Check(f"images flood round {f.round}: nothing below the caps lost, "
                             "none rejected, server RSS bounded",
                             f"{f.published:,} published, lost {lost}, rejected {f.rejected}, "
                             f"server RSS {f.rss_before_mb:.0f} → {f.rss_after_mb:.0f} MB",
                             lost == 0 and f.rejected == 0))
        out += [Check(name, value, ok) for name, value, ok in gateway_cases.checks(self.gateway)]
        out += [Check(name, value, ok) for name, value, ok in scale_cases.checks(self.scale)]
        return out

    # -- tables --------------------------------------------------------------------------

    def phase_rows(self) -> list[tuple[str, ...]]:
        rows = []
        for label, value in self.phases:
            p = value.get("phases", {})

            def cell(key: str, p: dict[str, Any] = p) -> str:
                v = p.get(key)
                if not v:
                    return "—"
                per = f", {v['ms'] * 1e3 / v['calls']:.1f} µs each" if v["calls"] > 1 else ""
                return f"{v['ms']:.2f} ({v['calls']:,}{per})"

            rows.append((label, f"{value.get('total_ms', 0):.1f}", cell("visibility.names"),
                         cell("sorter.sort"), cell("cache.entry"), cell("summary.build"),
                         cell("cache.fragments"), cell("tracker.change_of_many"),
                         cell("entry.dumps"), f"{value.get('reply_chars', 0):,}"))
        return rows

    @staticmethod
    def hotspot_rows(hotspots: list[dict[str, Any]]) -> list[tuple[str, ...]]:
        return [(h["function"], f"{h['calls']:,}", f"{h['tottime_ms']:.1f}",
                 f"{h['cumtime_ms']:.1f}", f"{h['tottime_ms'] * 1e3 / max(1, h['calls']):.1f}")
                for h in hotspots]

    def sections(self, table: Any) -> list[tuple[str, str]]:
        return [
            ("Kernel: floor, probe and naive peers (same kernel, same state, interleaved)",
             table(KERNEL_HEADER, kernel_rows(self.kernel))),
            ("Targets", table(CHECK_HEADER, [c.row() for c in self.checks()])),
            ("Where the probe's time goes (10,000 small variables; in-kernel, ms)",
             table(PHASE_HEADER, self.phase_rows())),
            ("cProfile hotspots (own time; the profiler inflates small functions)",
             table(HOTSPOT_HEADER, self.hotspot_rows(self.hotspots))),
            ("cProfile of the post_run_cell hook (one scan, 10,000 variables, nothing changed)",
             table(("function (cProfile, tracker.scan)", *HOTSPOT_HEADER[1:]),
                   self.hotspot_rows(self.hook))),
            ("REST through a real jupyter_server (10,000 variables in the kernel)",
             table(rest_cases.REST_HEADER, [r.cells() for r in self.rest])),
            ("Images listener: replay of real captured IOPub messages",
             table(image_cases.MICRO_HEADER, image_cases.micro_rows(self.micro))),
            ("Images flood through a real server",
             table(image_cases.FLOOD_HEADER, image_cases.flood_rows(self.flood))),
            ("A local kernel and a kernel behind a Kernel Gateway, each against its own floor",
             table(gateway_cases.HEADER, [r.cells() for r in self.gateway])),
            ("Namespaces of 10 to 1,000,000 names through REST, against the floor and the "
             "naive approach", table(scale_cases.HEADER, [r.cells() for r in self.scale])),
        ]

    def text(self) -> str:
        parts = [f"jupyter_kernel_state benchmarks ({'quick' if self.quick else 'full'} run, "
                 f"{self.elapsed_s:.0f} s)"]
        parts += [f"{k}: {v}" for k, v in machine()]
        for title, body in self.sections(text_table):
            parts += ["", f"== {title} ==", body]
        return "\n".join(parts)

    def markdown(self) -> str:
        template = (Path(__file__).with_name("report_template.md")).read_text(encoding="utf-8")
        tables = {f"table_{i}": body for i, (_, body) in enumerate(self.sections(markdown_table))}
        return template.format(
            run="quick (smoke test: few repetitions, numbers are indicative only)"
            if self.quick else "full",
            elapsed=f"{self.elapsed_s:.0f}",
            command=self.command,
            machine="\n".join(f"| {k} | {v} |" for k, v in machine()),
            **tables,
        )
