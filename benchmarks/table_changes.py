"""What table and array change tracking costs: the post_run_cell hook with and without the
content fingerprints, and the memory the kept facts hold.

    git archive <commit before content fingerprints> jupyter_kernel_state/probe | tar -x -C /tmp/old
    python benchmarks/table_changes.py /tmp/old/jupyter_kernel_state/probe [--reps 40]

In process, no kernel, on the stand-in shell the probe tests use: the namespace of
``kernel_side.states.make_small`` (10,000 names: ints, short texts, 3-item lists) plus 20
DataFrames of 100,000 rows (a float, an int, a text, a date and a category column) whose
content facts a snapshot has taken (``ChangeTracker.observe``, as the sidebar's list does
after a cell).  The older probe's hook and this one's scan the same cells, interleaved rep
by rep; the median of the paired differences is what the content fingerprints add
(``tracker.last_hook_ms``, the figure the kernel benchmark reads).  Cells: ``v0 = -1``;
an in-place edit of one table named by the cell (``t0.loc[mask, 'price'] += 0.01``); and,
this probe only, a 1,000,000 × 20 frame edited in place among the 10,000 names (issue
29's case).  Then the memory (tracemalloc) of the kept facts at 20 tables of 100,000 rows
and at 1,000 tables of 1,000 rows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from kernel_side import states  # noqa: E402
from value_changes import load_probe  # noqa: E402

from jupyter_kernel_state.probe.changes import contents as content_facts  # noqa: E402
from jupyter_kernel_state.probe.changes import tracker as new_tracker  # noqa: E402
from jupyter_kernel_state.probe.changes.fingerprints import fingerprint  # noqa: E402
from tests.probe.stand_in import Shell  # noqa: E402

EDIT = "t0.loc[t0.units > 25, 'price'] += 0.01"


def table(rows: int, seed: int, width: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    columns: dict[str, Any] = {
        "price": rng.uniform(1, 250, rows).round(2),
        "units": rng.integers(1, 50, rows),
        "region": rng.choice(["north", "south", "east", "west"], rows),
        "date": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, rows), unit="D"),
        "channel": pd.Categorical(rng.choice(["web", "store", "phone"], rows)),
    }
    for i in range(5, width):
        columns[f"x{i}"] = rng.standard_normal(rows)
    return pd.DataFrame(columns)


def observe_all(tracker: Any, ns: dict[str, Any], names: list[str]) -> None:
    """What a snapshot showing ``names`` does: each value's fingerprint to ``observe``."""
    for name in names:
        value = ns[name]
        tracker.observe(name, value, type(value), fingerprint(value, type(value)))


def setup(module: Any, names: int, tables: dict[str, pd.DataFrame]) -> tuple[Shell, Any]:
    shell = Shell()
    tracker = module.ChangeTracker(shell)
    states.make_small(shell.user_ns, names, 0)
    shell.user_ns.update(tables)
    tracker.scan(1)
    if module is new_tracker:
        for _ in range(3):  # the snapshots after the first cells take the tables' facts
            observe_all(tracker, shell.user_ns, list(tables))
            tracker.scan(tracker.last_ec + 1)
    return shell, tracker


def scan(tracker: Any, ec: int, code: str) -> None:
    """The hook after a cell with ``code`` (the older probe did not read the code)."""
    if tracker.__class__ is new_tracker.ChangeTracker:
        tracker.scan(ec, code)
    else:
        tracker.scan(ec)


def hook(older: Any, names: int, reps: int) -> None:
    tables = {f"t{i}": table(100_000, i) for i in range(20)}
    runs = {"older": setup(older, names, tables), "this": setup(new_tracker, names, tables)}
    cases = ("one", "edit")
    times: dict[str, dict[str, list[float]]] = {k: {c: [] for c in cases} for k in runs}
    told = 0  # edit cells whose hook said what the edit did
    for rep in range(reps):
        for label, (shell, tracker) in runs.items():
            shell.user_ns["v0"] = -rep - 5
            scan(tracker, (tracker.last_ec or 1) + 1, "v0 = -1")
            times[label]["one"].append(tracker.last_hook_ms)
        t0 = tables["t0"]  # shared by both namespaces: one edit, then both hooks
        t0.loc[t0.units > 25, "price"] += 0.01
        for label, (_shell, tracker) in runs.items():
            scan(tracker, tracker.last_ec + 1, EDIT)
            times[label]["edit"].append(tracker.last_hook_ms)
        told += any(w.startswith("price: ") for w in words_at(runs["this"][1], "t0") or ())
    print(f"hook at {names:,} names + 20 tables of 100,000 rows, {reps} interleaved reps "
          "(median ms):")
    for case, label in (("one", "after `v0 = -1`"), ("edit", f"after `{EDIT}`")):
        old, new = times["older"][case], times["this"][case]
        added = statistics.median(b - a for a, b in zip(old, new, strict=True))
        print(f"  {label}: older {statistics.median(old):.3f}, this {statistics.median(new):.3f}"
              f" (p90 {statistics.quantiles(new, n=10)[-1]:.3f}), added {added:.3f}")
    shell, tracker = runs["this"]
    print(f"  the hook told the edit in {told} of {reps} edit cells; after the last one it said "
          f"{words_at(tracker, 't0')}", end="")
    observe_all(tracker, shell.user_ns, ["t0"])
    print(f", the snapshot after it {words_at(tracker, 't0')}")


def words_at(tracker: Any, name: str) -> Any:
    """What the last cell's changes of ``name`` read (None: not changed at that cell)."""
    records = tracker.records
    return records.changes.get(name) if records.changed_at.get(name) == tracker.last_ec else None


def big_frame(older: Any, names: int, reps: int) -> None:
    big = {"big": table(1_000_000, 99, width=20)}
    runs = {"older": setup(older, names, big), "this": setup(new_tracker, names, big)}
    times: dict[str, list[float]] = {k: [] for k in runs}
    code = "big.loc[big.units > 25, 'price'] += 0.01"
    for _ in range(reps):
        frame = big["big"]
        frame.loc[frame.units > 25, "price"] += 0.01
        for label, (_shell, tracker) in runs.items():
            scan(tracker, (tracker.last_ec or 1) + 1, code)
            times[label].append(tracker.last_hook_ms)
        shell, tracker = runs["this"]
        hook_words = words_at(tracker, "big")
        observe_all(tracker, shell.user_ns, ["big"])
    old, new = times["older"], times["this"]
    added = statistics.median(b - a for a, b in zip(old, new, strict=True))
    print(f"hook at {names:,} names + a 1,000,000 × 20 frame edited in place ({reps} reps): "
          f"older {statistics.median(old):.3f}, this {statistics.median(new):.3f} ms, added "
          f"{added:.3f}; the hook said {hook_words}, the snapshot after it "
          f"{words_at(tracker, 'big')}")


def memory() -> None:
    for count, rows in ((20, 100_000), (1_000, 1_000)):
        tables = {f"t{i}": table(rows, i) for i in range(count)}
        shell = Shell()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        tracker = new_tracker.ChangeTracker(shell)
        shell.user_ns.update(tables)
        tracker.scan(1)
        store = tracker.records.contents
        for name, value in tables.items():
            store.check(name, value, 1, content_facts.TimeBudget(60.0))
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        detailed = len(store.detailed)
        print(f"memory at {count:,} tables of {rows:,} rows × 5: {held / 2**20:.2f} MiB "
              f"({held / count / 1024:,.1f} KiB a table; {detailed} with value words, "
              f"{store.detail_bytes / 2**20:.1f} MiB of them; counted "
              f"{store.nbytes() / 2**20:.2f} MiB)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("older", type=Path, help="an older probe's package directory")
    parser.add_argument("--names", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=40)
    args = parser.parse_args()
    older = load_probe(args.older)
    hook(older, args.names, args.reps)
    big_frame(older, args.names, max(5, args.reps // 4))
    memory()
