"""What lineage costs: the probe's post_run_cell hook with and without it, per cell.

    python benchmarks/lineage.py [--names 10000] [--reps 60]

In process, on IPython's own shell (``InteractiveShell``, cells run by ``run_cell`` as a
kernel runs them, the probe installed by ``entry.install`` as in a kernel), with the
namespace of ``kernel_side.states.make_small`` (10,000 names: ints, short texts, 3-item
lists). Each cell runs twice per rep, lineage off then on (the order alternating), and
the whole hook (``ChangeTracker.post_run_cell``: the change scan plus the lineage
analysis) is timed around the call; the median of the paired differences is what
lineage adds (DESIGN §5: ≤ 0.5 ms per cell at 10,000 names).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from kernel_side import states  # noqa: E402

from jupyter_kernel_state.probe import entry  # noqa: E402

#: Cells of the kinds notebooks hold: one line, a function, a magic, a loop, a long cell.
CELLS = {
    "one line": "w = v1 + v4",
    "a function and a call": (
        "def scale(values, k=2):\n"
        "    out = [x * k for x in values]\n"
        "    return out + [v7]\n"
        "scaled = scale(v2)\n"
    ),
    "%time magic": "%time t = v1 * 3",
    "20-line cell": "\n".join(f"r{i} = v{i} if v{i + 3} else v{i + 6}" for i in range(20)),
    "200-line cell": "\n".join(
        f"for j in range(2):\n    acc{i} = v{i % 50} if j else [v{i + 1}, v{i + 2}]"
        for i in range(100)),
}


def run(names: int, reps: int) -> dict[str, dict[str, list[float]]]:
    ip = InteractiveShell.instance()
    states.make_small(ip.user_ns, names, 0)
    entry.install(shell=ip)
    tracker = entry._state.tracker
    timed: list[float] = []
    hook = tracker.post_run_cell

    def timed_hook(result: Any = None) -> None:
        t0 = time.perf_counter()
        hook(result)
        timed.append((time.perf_counter() - t0) * 1000.0)

    tracker.post_run_cell = timed_hook  # the registered hook calls it by attribute
    times: dict[str, dict[str, list[float]]] = {c: {"off": [], "on": [], "in": []}
                                                 for c in CELLS}
    for _ in range(3):  # warm up: first-time imports and caches
        for code in CELLS.values():
            ip.run_cell(code, store_history=True)
    for rep in range(reps):
        order = ("off", "on") if rep % 2 == 0 else ("on", "off")
        for cell, code in CELLS.items():
            for mode in order:
                tracker.lineage_enabled = mode == "on"
                with contextlib.redirect_stdout(io.StringIO()):  # %time prints
                    ip.run_cell(code, store_history=True, cell_id=f"{cell}-{rep}")
                times[cell][mode].append(timed[-1])
                if mode == "on":
                    times[cell]["in"].append(tracker.last_lineage_ms)
    entry.install(shell=None)
    InteractiveShell.clear_instance()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=60)
    args = parser.parse_args()
    times = run(args.names, args.reps)
    print(f"post_run_cell hook at {args.names:,} names, {args.reps} paired reps (ms, median):")
    print("| cell (characters) | hook without lineage | with lineage | ratio | added "
          "(median of paired differences) | lineage alone, median / p90 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for cell, t in times.items():
        off, on, alone = t["off"], t["on"], sorted(t["in"])
        added = statistics.median(b - a for a, b in zip(off, on, strict=True))
        p90 = alone[int(0.9 * (len(alone) - 1))]
        print(f"| {cell} ({len(CELLS[cell]):,}) | {statistics.median(off):.3f} | "
              f"{statistics.median(on):.3f} | {statistics.median(on) / statistics.median(off):.2f} "
              f"| {added:.3f} | {statistics.median(alone):.3f} / {p90:.3f} |")


if __name__ == "__main__":
    main()
