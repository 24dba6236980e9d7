"""Data-quality findings against the profile of the same table, in one process: the
1,000,000-row × 20-column DataFrame of ``profile_cases`` (16 number columns, 4 text
columns; ``n1`` with missing values, ``status`` a quarter missing), and the same table as
a polars DataFrame.

    python benchmarks/findings_cases.py [--reps 7] [--rows 1000000]

What is timed: the probe's own entry point, ``entry.call`` with the base64 request the
server sends through ``user_expressions`` (decoding, checking, the op, the reply's JSON),
``findings`` and ``profile`` with the server's defaults for every column, interleaved rep
by rep in the same process, medians compared.  This is a probe-level first figure: the
REST route (and the kernel round trip, the same for both ops) is not wired yet.

Target (DESIGN §5, issue 29): findings for 1e6 × 20 ≤ 1.3× the profile of the same table.
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
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from profile_cases import NUMBERS, SETUP  # noqa: E402

from jupyter_kernel_state.probe import entry  # noqa: E402

TARGET = 1.3
#: The server's defaults for both ops (every column: 20 ≤ max_columns), a budget that
#: lets every column finish on a loaded machine.
FIELDS = {"budget_ms": 60_000}


def _encoded(request: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(request).encode("ascii")).decode("ascii")


def timed(op: str, name: str) -> tuple[float, dict[str, Any]]:
    encoded = _encoded({"op": op, "name": name, **FIELDS})
    started = time.perf_counter()
    reply = entry.call(encoded)
    took = time.perf_counter() - started
    payload = json.loads(reply.text)
    assert payload.get("ok") is True, payload
    return took, payload


def measure(rows: int, reps: int) -> list[tuple[str, float, float, str]]:
    ns: dict[str, Any] = {}
    exec(SETUP.format(rows=rows, numbers=NUMBERS), ns)
    ns = {"table": ns["table"]}
    try:
        import polars as pl

        ns["polars_table"] = pl.from_pandas(ns["table"])
    except ImportError:
        pass
    main = sys.modules["__main__"]
    saved = dict(vars(main))
    vars(main).update(ns)  # the probe reads the __main__ namespace outside a kernel
    out = []
    try:
        for name in ns:
            profile_s, findings_s = [], []
            timed("findings", name)  # warm: imports, caches of the libraries
            for _ in range(reps):
                took, payload = timed("profile", name)
                assert payload["profile"]["columns_cut"] == 0
                assert all(c["error"] is None for c in payload["profile"]["columns"])
                profile_s.append(took)
                took, payload = timed("findings", name)
                found = payload["findings"]
                assert found["columns_cut"] == 0 and found["errors"] == [], found["errors"]
                findings_s.append(took)
            listed = ", ".join(f["kind"] + ":" + ",".join(f["columns"])
                               for f in found["findings"])
            out.append((name, statistics.median(profile_s), statistics.median(findings_s),
                        listed))
    finally:
        vars(main).clear()
        vars(main).update(saved)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    results = measure(args.rows, args.reps)
    print(f"{args.rows:,} rows × {NUMBERS + 4} columns, median of {args.reps} interleaved reps "
          f"(entry.call in process)")
    print(f"{'table':<14} {'profile ms':>11} {'findings ms':>12} {'ratio':>6}  target ≤ {TARGET}×")
    ok = True
    for name, profile, found, listed in results:
        ratio = found / profile
        print(f"{name:<14} {profile * 1e3:>11,.0f} {found * 1e3:>12,.0f} {ratio:>5.2f}×  "
              f"{'met' if ratio <= TARGET else 'MISSED'}")
        print(f"{'':<14} findings: {listed}")
        ok = ok and (name != "table" or ratio <= TARGET)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
