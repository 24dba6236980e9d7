"""Run every benchmark side by side and write the report.

    python benchmarks/run.py [--quick] [--out docs/performance.md]

Real ipykernel kernels, a real jupyter_server subprocess on 127.0.0.1, the product's
probe next to two naive peers written here. ``--quick`` runs fewer repetitions (a smoke
test, about 2 minutes); the full run takes about 5–8 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gateway_cases
import image_cases
import kernel_cases
import profile_cases
import report
import rest_cases
import scale_cases

FULL = dict(plan=kernel_cases.Plan(reps_small=15, reps_heavy=9, reps_peer_heavy=3,
                                   reps_hostile=5, peer_timeout_s=10.0),
            rest_reps=200, rest_rounds=5, micro_passes=200, flood_s=5.0, flood_rounds=2,
            gateway_reps=15, scale_reps=9, profile_reps=9)
QUICK = dict(plan=kernel_cases.Plan(reps_small=3, reps_heavy=2, reps_peer_heavy=1,
                                    reps_hostile=2, peer_timeout_s=7.0),
             rest_reps=30, rest_rounds=2, micro_passes=30, flood_s=2.0, flood_rounds=1,
             gateway_reps=3, scale_reps=2, profile_reps=2)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


async def main(quick: bool, out: Path | None) -> int:
    settings = QUICK if quick else FULL
    started = time.monotonic()
    kernel = await kernel_cases.run_all(settings["plan"], log)
    log("kernel: profiling the probe on 10,000 small variables")
    phases, hotspots, hook = await kernel_cases.profile_probe(10_000)
    rest = await rest_cases.run_rest(settings["rest_reps"], settings["rest_rounds"], log)
    log("images: replaying captured IOPub messages")
    micro = await image_cases.micro(settings["micro_passes"])
    flood = await image_cases.flood(settings["flood_s"], settings["flood_rounds"], log)
    log("gateway: the same cases on a local kernel and behind a Kernel Gateway")
    gateway = await asyncio.to_thread(gateway_cases.run, settings["gateway_reps"], log)
    log("scale: 10 to 1,000,000 names through REST")
    scale = await asyncio.to_thread(scale_cases.run, settings["scale_reps"], log)
    log("profile: column statistics of a 1,000,000-row table through REST")
    profile = await asyncio.to_thread(profile_cases.run, settings["profile_reps"], log)
    elapsed = time.monotonic() - started
    result = report.Report(kernel=kernel, phases=phases, hotspots=hotspots, hook=hook, rest=rest,
                           micro=micro, flood=flood, gateway=gateway, scale=scale, quick=quick,
                           elapsed_s=elapsed,
                           command=" ".join(["python", "benchmarks/run.py", *sys.argv[1:]]))
    print(result.text())
    print(f"\n== Profiles of a {profile_cases.ROWS:,}-row table ==")
    print(profile_cases.tables(profile, markdown=False))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        text = result.markdown().replace(profile_cases.REPORT_MARK,
                                         profile_cases.tables(profile, markdown=True))
        out.write_text(text, encoding="utf-8")
        log(f"wrote {out}")
    log(f"done in {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (smoke test)")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the Markdown report here (e.g. docs/performance.md)")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.quick, args.out)))
