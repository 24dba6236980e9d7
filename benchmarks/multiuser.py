"""Many users behind one JupyterHub, their kernels on one gateway on another host.

    sudo python benchmarks/multiuser.py [--users 12] [--kernels 3] [--duration 180]

A real JupyterHub and 8–12 single-user servers with this extension, one token-protected
Kernel Gateway in a network namespace of its own (a real other address), staggered spawns,
and a bounded load: every user runs cells and reads variables, rows and the prompt for
``--duration`` seconds (tests/multiuser.py has the scenario). Prints p50/p95 latencies per
route, each single-user server's memory, whether any answer carried another user's data,
and how long the gateway's culler took to cull every kernel once the users left. Needs
root (network namespaces) and the project's venv (``bash scripts/setup.sh``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.multiuser import run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=12, help="users (8–12)")
    parser.add_argument("--kernels", type=int, default=3, help="kernels per user (2–3)")
    parser.add_argument("--duration", type=float, default=180.0, help="seconds of load")
    parser.add_argument("--cull-idle", type=int, default=10,
                        help="the gateway's cull_idle_timeout, seconds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ks-multiuser-") as workdir:
        report = asyncio.run(run(Path(workdir), users=args.users, kernels=args.kernels,
                                 duration_s=args.duration, cull_idle_s=args.cull_idle))
    summary = report.summary()
    print(json.dumps(summary, indent=1))
    print("\n| route | p50 ms | p95 ms | requests |\n| --- | --- | --- | --- |")
    for route, values in summary["latency_ms"].items():
        print(f"| {route} | {values['p50']} | {values['p95']} | {values['n']:,} |")
    ok = not report.foreign and not report.errors and report.kernels_left == 0
    print(f"\ncross-user answers: {len(report.foreign)}; errors: {len(report.errors)}; "
          f"every kernel culled: {report.kernels_left == 0} "
          f"({summary['culled_after_s']} s after the users left)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
