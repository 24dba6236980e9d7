"""How much of the previous prompt a new one starts with, after one change (providers
cache a prompt's unchanged prefix), on a real server and kernel.

    python benchmarks/prompt_prefix.py [--turns N]

Cases: the demo notebook (examples/demo.ipynb) run up to its last cell, then
``config["depth"] = 8``; a 300-variable session (200 names of several kinds, a run of 100
like names), then one variable changed per turn for N turns. Each prompt is fetched the
way an assistant fetches it (``GET prompt?budget=…``), and the ratio printed is the
previous prompt's longest common prefix with the new one, over the previous prompt's
length. "stable order alone" is where the changed variable's line started in the previous
prompt: what the layout keeps without the stable part the server holds between prompts
("not listed": the variable was not in the previous list, which was full).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import Server, Watcher

DEMO = Path(__file__).resolve().parent.parent / "examples" / "demo.ipynb"
SESSION_300 = (
    "import numpy as np\n"
    "words = ['sales', 'orders', 'users', 'events', 'prices', 'costs', 'visits']\n"
    "for _i in range(200):\n"
    "    _w = words[_i % 7]\n"
    "    _k = _i % 4\n"
    "    globals()[f'{_w}_{chr(97 + _i // 26)}{chr(97 + _i % 26)}'] = (\n"
    "        np.arange(_i + 3) if _k == 0 else {'alpha': _i, 'name': _w} if _k == 1\n"
    "        else [_i] * 4 if _k == 2 else _i * 1.5)\n"
    "for _i in range(100):\n"
    "    globals()[f'x{_i}'] = _i\n"
    "del _i, _w, _k, words"
)


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def ratio(before: str, after: str) -> float:
    return common_prefix(before, after) / len(before)


def line_start(text: str, name: str) -> int | None:
    """Where the line of ``name`` starts in ``text`` (None when it is not listed)."""
    at = text.find(f"\n- {name}: ")
    return at + 1 if at >= 0 else None


def share(at: int | None, text: str) -> float | None:
    return None if at is None else at / len(text)


class Bench:
    def __init__(self, server: Server, kernel_id: str, watcher: Watcher) -> None:
        self.server, self.kernel_id, self.watcher = server, kernel_id, watcher

    def generation(self) -> tuple[int, str]:
        kernels = self.server.get_json("/api/kernel-state/kernels")["kernels"]
        entry = next(k for k in kernels if k["kernel_id"] == self.kernel_id)
        return int(entry["generation"]), str(entry["execution_state"])

    async def cell(self, code: str) -> None:
        """A user cell, then until the server has seen it finish (a new generation)."""
        before = self.generation()[0]
        reply = await self.watcher.cell(code)
        if reply.get("status") != "ok":
            raise RuntimeError(f"cell failed: {reply.get('ename')}: {reply.get('evalue')}")
        for _ in range(3000):
            now, state = self.generation()
            if now > before and state == "idle":
                return
            await asyncio.sleep(0.01)
        raise RuntimeError("the server never saw the cell finish")

    def prompt(self, budget: int) -> str:
        query = urllib.parse.urlencode({"budget": budget, "format": "json"})
        payload = self.server.get_json(
            f"/api/kernel-state/kernels/{self.kernel_id}/prompt?{query}")
        assert payload["chars"] <= budget
        return str(payload["text"])


async def open_kernel(server: Server) -> Bench:
    kernel_id = server.start_kernel()
    watcher = Watcher(server, kernel_id)
    await watcher.start()
    return Bench(server, kernel_id, watcher)


Row = tuple[str, float, float | None, int]


async def demo(server: Server) -> list[Row]:
    cells = ["".join(c["source"]) for c in json.loads(DEMO.read_text())["cells"]
             if c["cell_type"] == "code"]
    *first, last = cells
    rows = []
    for budget in (2000, 6000):
        bench = await open_kernel(server)
        try:
            for source in first:
                await bench.cell(source)
            before = bench.prompt(budget)
            await bench.cell(last)
            after = bench.prompt(budget)
            rows.append((f"demo notebook, budget {budget:,}", ratio(before, after),
                         share(line_start(before, "config"), before), len(before)))
        finally:
            await bench.watcher.stop()
    return rows


async def three_hundred(server: Server, turns: int) -> list[Row]:
    bench = await open_kernel(server)
    try:
        await bench.cell(SESSION_300)
        await bench.cell("costs_af = {'alpha': -1}")
        names = [v["name"] for v in server.get_json(
            f"/api/kernel-state/kernels/{bench.kernel_id}/variables?limit=1000")["variables"]]
        assert len(names) == 300, len(names)
        rows = []
        before = bench.prompt(6000)
        picked = [n for n in names if not n.startswith("x")][::7][:turns]
        for turn, name in enumerate(picked, 1):
            await bench.cell(f"{name} = 'changed at turn {turn}'")
            after = bench.prompt(6000)
            renewed = "" if "the list above is as of" in after else " (new stable part)"
            rows.append((f"300 variables, turn {turn}: {name}{renewed}", ratio(before, after),
                         share(line_start(before, name), before), len(before)))
            before = after
        return rows
    finally:
        await bench.watcher.stop()


async def main_async(turns: int) -> int:
    server = Server(debug_log=False)
    try:
        await server.wait_ready()
        rows = await demo(server) + await three_hundred(server, turns)
    finally:
        server.stop()
    print(f"{'case':<62} {'prefix kept':>11} {'stable order alone':>19} {'previous chars':>15}")
    for case, kept, alone, chars in rows:
        shown = "not listed" if alone is None else f"{alone:.1%}"
        print(f"{case:<62} {kept:>11.1%} {shown:>19} {chars:>15,}")
    session = [(kept, chars) for case, kept, _, chars in rows if case.startswith("300")]
    if session:
        ratios = [kept for kept, _ in session]
        overall = sum(kept * chars for kept, chars in session) / sum(c for _, c in session)
        print(f"300 variables over {len(session)} turns: min {min(ratios):.1%}, "
              f"median {statistics.median(ratios):.1%}, all turns together {overall:.1%} "
              "(characters of the previous prompts that start the new ones)")
    return 0 if all(kept >= 0.8 for _, kept, _, _ in rows[:3]) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="turns of the 300-variable case")
    args = parser.parse_args()
    return asyncio.run(main_async(args.turns))


if __name__ == "__main__":
    sys.exit(main())
