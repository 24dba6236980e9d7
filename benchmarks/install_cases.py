"""What installing the probe costs a real kernel, as the server sends it, in one run: the
compressed ``user_expressions`` entry (``probe_loader.install_expression``, what the
server sends) against the megabyte cell it sent before (``install_code`` as a silent
cell's code), interleaved rep by rep, and the floor (an empty silent request). Paid once
per kernel process: at kernel start, after a restart.

    python benchmarks/install_cases.py [--reps 9]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels import BenchKernel

from jupyter_kernel_state.service import probe_loader


async def main(reps: int) -> None:
    kernel = await BenchKernel.start()
    expression, cell = probe_loader.install_expression(), probe_loader.install_code()
    times: dict[str, list[float]] = {"expression": [], "cell": [], "floor": []}
    try:
        for _ in range(reps):
            content, took = await kernel.silent("", {"r": expression})
            entry = content["user_expressions"]["r"]
            if probe_loader.install_error(entry) is not None:
                raise RuntimeError(probe_loader.install_error(entry))
            times["expression"].append(took)
            content, took = await kernel.silent(cell)
            if content["status"] != "ok":
                raise RuntimeError(f"{content.get('ename')}: {content.get('evalue')}")
            times["cell"].append(took)
            times["floor"].append((await kernel.silent(""))[1])
    finally:
        await kernel.shutdown()
    median = {k: statistics.median(v) * 1000 for k, v in times.items()}
    print(f"probe install, {reps} reps, a real ipykernel (median ms; the request's size):")
    print(f"  user_expressions entry (sent now)  {median['expression']:8.1f}   "
          f"{len(expression):,} characters")
    print(f"  silent cell (sent before)          {median['cell']:8.1f}   {len(cell):,} characters")
    print(f"  floor (an empty silent request)    {median['floor']:8.1f}")
    print(f"  cell / entry: {median['cell'] / median['expression']:.1f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9)
    asyncio.run(main(parser.parse_args().reps))
