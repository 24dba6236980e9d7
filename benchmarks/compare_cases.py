"""Two 1,000,000-row × 20-column tables compared by key, against the library's own join,
in one process: the before (an ``id`` key, 15 number columns, 4 text columns, some
missing values) and the after (1 % of the rows dropped, 1 % added, 2 % of the rows with a
changed price, the text of one column cleaned, the rows shuffled), as pandas and as polars
DataFrames.

    python benchmarks/compare_cases.py [--reps 5] [--rows 1000000]

What is timed, interleaved rep by rep, medians compared:

* the first window: the probe's own entry point, ``entry.call`` with the base64 request
  the server sends (decoding, checking, the comparison, a 100-row window, the reply's
  JSON), the kept comparison dropped before each rep;
* the library's own: pandas ``after.merge(before, on="id", how="outer",
  indicator=True)``; polars what a polars user writes for the same answer — a full join
  on the key (``nulls_equal``) with a marker column per side for the status (polars has
  no ``indicator``) and every common column tested with ``eq_missing`` (a float's NaN as
  null) for *changed* — and, for reference, the bare ``join(how="full")``;
* paging: the next window once the comparison is kept (``reused``);
* the floors, in the same run: the probe's own trivial op (``ping``) through
  ``entry.call``, and a silent ``execute_request`` round trip to a real ipykernel (the
  floor of DESIGN §5: what every probe request pays on top of its own work).

Targets (DESIGN §5, issue 29): the first window ≤ 1.2× the library's own; paging ≤ 3× the
floor: a page through the kernel costs the kernel floor plus the page measured here, so
the verdict is ``kernel floor + page ≤ 3 × kernel floor``.
"""

from __future__ import annotations

import argparse
import base64
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from jupyter_kernel_state.probe import entry  # noqa: E402

TARGET = 1.2
PAGING_TARGET = 3.0
FLOOR_REPS = 50
FIELDS = {"budget_ms": 60_000, "compare_ms": 60_000, "max_cells": 2_000_000_000,
          "key": ["id"]}


def tables(rows: int) -> dict[str, Any]:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(29)
    before = pd.DataFrame({"id": rng.permutation(rows * 2)[:rows]})
    for i in range(15):
        before[f"n{i}"] = rng.normal(100, 20, rows).round(2)
    before.loc[rng.random(rows) < 0.05, "n1"] = np.nan
    for i, labels in enumerate((["north", "south", "east", "west"], ["web", "shop"],
                                ["a", "b", "c"], ["x", "y"])):
        before[f"t{i}"] = rng.choice(labels, rows)
    before.loc[rng.random(rows) < 0.1, "t0"] = "north "
    after = before.sample(frac=0.99, random_state=1)
    fresh = before.sample(n=rows // 100, random_state=2).assign(id=np.arange(rows // 100) - rows)
    after = pd.concat([after, fresh], ignore_index=True)
    edited = rng.random(len(after)) < 0.02
    after.loc[edited, "n0"] = after.loc[edited, "n0"] * 1.1
    after["t0"] = after["t0"].str.strip()
    out = {"after": after.sample(frac=1.0, random_state=3).reset_index(drop=True),
           "before": before}
    try:
        import polars as pl

        out["after_pl"] = pl.from_pandas(out["after"])
        out["before_pl"] = pl.from_pandas(out["before"])
    except ImportError:
        pass
    return out


def _encoded(request: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(request).encode("ascii")).decode("ascii")


def probe(name: str, other: str, offset: int = 0) -> tuple[float, dict[str, Any]]:
    encoded = _encoded({"op": "compare", "name": name, "with": other, "offset": offset,
                        **FIELDS})
    started = time.perf_counter()
    reply = entry.call(encoded)
    took = time.perf_counter() - started
    payload = json.loads(reply.text)
    assert payload.get("ok") is True, payload
    return took, payload["comparison"]


def forget() -> None:
    """The kept comparison dropped: the next request compares again."""
    kept = getattr(entry._state, "comparisons", None)
    if kept is not None:
        kept.kept.clear()


def own(ns: dict[str, Any], library: str) -> float:
    started = time.perf_counter()
    if library == "pandas":
        ns["after"].merge(ns["before"], on="id", how="outer", indicator=True)
    else:
        polars_own(ns["after_pl"], ns["before_pl"])
    return time.perf_counter() - started


def bare_join(ns: dict[str, Any]) -> float:
    started = time.perf_counter()
    ns["after_pl"].join(ns["before_pl"], on="id", how="full")
    return time.perf_counter() - started


def polars_own(after: Any, before: Any) -> Any:
    """Each row of both with its status, as a polars user writes it."""
    import polars as pl

    common = [c for c in after.columns if c != "id" and c in before.columns]
    joined = (after.lazy().with_columns(pl.lit(True).alias("_in_after"))
              .join(before.lazy().with_columns(pl.lit(True).alias("_in_before")),
                    on="id", how="full", coalesce=True, nulls_equal=True,
                    suffix="_before"))

    def same(c: str) -> Any:
        x, y = pl.col(c), pl.col(c + "_before")
        if after.schema[c].is_float():
            x, y = x.fill_nan(None), y.fill_nan(None)
        return x.eq_missing(y)

    changed = pl.any_horizontal([~same(c) for c in common])
    status = (pl.when(pl.col("_in_before").is_null()).then(pl.lit("added"))
              .when(pl.col("_in_after").is_null()).then(pl.lit("removed"))
              .when(changed).then(pl.lit("changed")).otherwise(pl.lit("unchanged")))
    return joined.with_columns(status.alias("status")).collect()


def ping_ms(reps: int) -> float:
    """The probe's own trivial op through ``entry.call``, median ms."""
    encoded = _encoded({"op": "ping"})
    took = []
    for _ in range(reps):
        started = time.perf_counter()
        entry.call(encoded)
        took.append(time.perf_counter() - started)
    return statistics.median(took) * 1e3


def kernel_floor_ms(reps: int) -> float | None:
    """A silent ``execute_request`` round trip to a real ipykernel, median ms (None
    without jupyter_client)."""
    try:
        from jupyter_client.manager import start_new_kernel
    except ImportError:
        return None
    km, kc = start_new_kernel(kernel_name="python3", startup_timeout=60)
    try:
        took = []
        for _ in range(reps + 5):
            started = time.perf_counter()
            msg_id = kc.execute("", silent=True, store_history=False,
                                user_expressions={"x": "1"})
            while kc.get_shell_msg(timeout=10)["parent_header"].get("msg_id") != msg_id:
                pass
            took.append(time.perf_counter() - started)
        return statistics.median(took[5:]) * 1e3
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def measure(rows: int, reps: int) -> list[dict[str, Any]]:
    ns = tables(rows)
    main = sys.modules["__main__"]
    saved = dict(vars(main))
    vars(main).update(ns)  # the probe reads the __main__ namespace outside a kernel
    out = []
    try:
        for library, (name, other) in (("pandas", ("after", "before")),
                                       ("polars", ("after_pl", "before_pl"))):
            if name not in ns:
                continue
            probe(name, other)  # warm: imports, the libraries' caches
            first, peer, bare, paging = [], [], [], []
            for _ in range(reps):
                forget()
                took, got = probe(name, other)
                assert not got["reused"]
                first.append(took)
                peer.append(own(ns, library))
                if library == "polars":
                    bare.append(bare_join(ns))
                for page_at in range(1, 6):  # five pages a rep
                    took, page = probe(name, other, offset=100 * page_at)
                    assert page["reused"]
                    paging.append(took)
            out.append({"library": library, "first": statistics.median(first),
                        "own": statistics.median(peer),
                        "bare": statistics.median(bare) if bare else None,
                        "paging": statistics.median(paging),
                        "counts": {s: got[s] for s in ("added", "removed", "changed",
                                                       "unchanged")},
                        "compare_ms": got["compare_ms"]})
    finally:
        vars(main).clear()
        vars(main).update(saved)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    results = measure(args.rows, args.reps)
    ping = ping_ms(FLOOR_REPS)
    floor = kernel_floor_ms(FLOOR_REPS)
    print(f"{args.rows:,} rows × 20 columns by key, median of {args.reps} interleaved reps "
          f"(entry.call in process)")
    print(f"floors: the probe's ping in process {ping:.2f} ms; a silent execute_request to "
          f"a real kernel {'n/a' if floor is None else f'{floor:.2f} ms'}")
    print(f"{'library':<8} {'own ms':>8} {'first window ms':>16} {'ratio':>6} "
          f"{'paging ms':>10}  targets: ≤ {TARGET}× own, kernel floor + paging ≤ "
          f"{PAGING_TARGET:g}× kernel floor")
    ok = True
    for r in results:
        ratio = r["first"] / r["own"]
        page = r["paging"] * 1e3
        paging_ok = floor is not None and floor + page <= PAGING_TARGET * floor
        bare = "" if r["bare"] is None else f" (bare full join {r['bare'] * 1e3:,.0f} ms)"
        print(f"{r['library']:<8} {r['own'] * 1e3:>8,.0f} {r['first'] * 1e3:>16,.0f} "
              f"{ratio:>5.2f}× {page:>10,.1f}  "
              f"{'met' if ratio <= TARGET else 'MISSED'}, paging "
              f"{'met' if paging_ok else 'MISSED'}"
              f"{'' if floor is None else f' ({(floor + page) / floor:.1f}× the floor)'}"
              f"{bare}; {r['counts']}")
        ok = ok and ratio <= TARGET and paging_ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
