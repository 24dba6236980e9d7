"""What value-level changes cost: the post_run_cell hook with and without the tracker's
bounded copies, and the memory the copies hold.

    git archive <commit before the copies> jupyter_kernel_state/probe | tar -x -C /tmp/old
    python benchmarks/value_changes.py /tmp/old/jupyter_kernel_state/probe [--names 10000]

In process, no kernel: the namespace of ``kernel_side.states.make_small`` (ints, short
texts, 3-item lists in turn) on the stand-in shell the probe tests use; the hook of the
given older probe and of this one scan the same cells, interleaved rep by rep, and the
median of the paired differences is what the copies add (``tracker.last_hook_ms``, the
figure the kernel benchmark reads). The real-kernel rows are ``benchmarks/run.py``'s
"probe hook" rows. Then the copies' memory (tracemalloc) at their cap, worst case and
typical.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from kernel_side import states  # noqa: E402

from jupyter_kernel_state.probe.changes import copies  # noqa: E402
from jupyter_kernel_state.probe.changes import tracker as new_tracker  # noqa: E402
from tests.probe.stand_in import Shell  # noqa: E402


def load_probe(path: Path, name: str = "older_probe") -> Any:
    """The older probe's package, imported under another name (it imports itself
    relatively)."""
    spec = importlib.util.spec_from_file_location(name, path / "__init__.py",
                                                  submodule_search_locations=[str(path)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return importlib.import_module(name + ".changes.tracker")


def hook(older: Any, names: int, reps: int) -> None:
    def setup(module: Any) -> tuple[Shell, Any]:
        shell = Shell()
        tracker = module.ChangeTracker(shell)
        states.make_small(shell.user_ns, names, 0)
        tracker.scan(1)
        return shell, tracker

    runs = {"older": setup(older), "this": setup(new_tracker)}
    times: dict[str, dict[str, list[float]]] = {k: {"one": [], "all": []} for k in runs}
    for rep in range(reps):
        for label, (shell, tracker) in runs.items():
            ec = 2 + 2 * rep
            states.make_small(shell.user_ns, names, rep + 1)
            tracker.scan(ec)
            times[label]["all"].append(tracker.last_hook_ms)
            shell.user_ns["v0"] = -rep - 5
            tracker.scan(ec + 1)
            times[label]["one"].append(tracker.last_hook_ms)
    print(f"hook at {names:,} names, {reps} interleaved reps (median ms):")
    for case, label in (("one", "after `v0 = -1`"), ("all", "after a cell rebinding all")):
        old, new = times["older"][case], times["this"][case]
        added = statistics.median(b - a for a, b in zip(old, new, strict=True))
        print(f"  {label}: older {statistics.median(old):.3f}, this {statistics.median(new):.3f},"
              f" added {added:.3f}")
    store = runs["this"][1].records.copies
    print(f"  copies kept {len(store.by_name):,}, refused {store.refused:,}")


def memory() -> None:
    cases = [
        ("dicts of 32 entries, 64-character texts their dicts dropped (worst)", False,
         lambda i: {f"k{j:02d}{i}": f"{i:08d}{j:02d}".ljust(copies.COPY_TEXT, "x")
                    for j in range(copies.COPY_ITEMS)}),
        ("dicts of 32 entries, still alive", True,
         lambda i: {f"k{j:02d}{i}": f"{i:08d}{j:02d}".ljust(copies.COPY_TEXT, "x")
                    for j in range(copies.COPY_ITEMS)}),
        ("config dicts of 5 entries, alive", True,
         lambda i: {"model": "gbm", "depth": i, "lr": 0.05, "features": [1, 2], "seed": 42}),
        ("lists of 3 ints, alive", True, lambda i: [i, 0, i + 1]),
        ("lists of 10,000 ints, alive", True, lambda i: list(range(i, i + 10_000))),
    ]
    print(f"memory of {copies.MAX_COPIES:,} copies (the cap):")
    for label, alive, make in cases:
        store, kept = copies.Copies(), []
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(copies.MAX_COPIES):
            value = make(i)
            store.retake(f"n{i}", value, type(value))
            if alive:
                kept.append(value)
        held = tracemalloc.get_traced_memory()[0] - before
        if alive:  # the values' own memory is not the copies'
            start = tracemalloc.get_traced_memory()[0]
            again = [make(i) for i in range(copies.MAX_COPIES)]
            held -= tracemalloc.get_traced_memory()[0] - start
            del again
        tracemalloc.stop()
        print(f"  {label}: {held / 2**20:.2f} MiB, {held / copies.MAX_COPIES:,.0f} bytes a copy")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("older", type=Path, help="an older probe's package directory")
    parser.add_argument("--names", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=80)
    args = parser.parse_args()
    hook(load_probe(args.older), args.names, args.reps)
    memory()
