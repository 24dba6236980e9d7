"""Column profiles through REST end to end: a 1,000,000-row × 20-column DataFrame (16
number columns, 4 text columns), against ``df.describe()`` (+ ``value_counts()`` for
the text columns) run in the same kernel through the same kind of request, and the
kernel's floor, in one run.

    python benchmarks/profile_cases.py [--reps N] [--rows 1000000]

What a caller waits for: the client's wall time of ``GET variables/{name}/profile`` on a
real jupyter_server whose profile cache keeps one answer (``profile_cache_size=1``): each
request asks another query than the one before (another column, or the same columns in
another order), so the probe runs every time; a repeated identical request would be
served from the server's cache. The floor is a silent ``execute_request`` with a
constant ``user_expressions`` over ZMQ. The peers are what an assistant runs in the
user's kernel today: ``describe()`` of the number columns, and ``describe()`` plus each
text column's ``value_counts()``, each as JSON text through ``user_expressions``.

Targets (DESIGN §5): each column's profile within its time budget (``profile_column_ms``,
1 s); the whole table's numbers no slower than ``describe()`` of them, and every column no
slower than ``describe()`` + ``value_counts()``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import fmt_ms, fmt_ratio, markdown_table, text_table
from scale_cases import Row, _timed_get
from server import Server
from table_harness import HEADER, command_line, run_on_server, table_kernel

ROWS = 1_000_000
NUMBERS = 16
TEXTS = ("region", "city", "sku", "status")
COLUMN_MS = 1_000  # the server's default profile_column_ms
SETUP = """
import numpy as np, pandas as pd
_rng = np.random.default_rng(0)
_n = {rows}
table = pd.DataFrame({{f"n{{i}}": _rng.random(_n) * 100 if i % 2 else _rng.integers(0, 10**6, _n)
                       for i in range({numbers})}})
table.loc[::97, "n1"] = np.nan
_words = np.array([f"w{{i}}" for i in range(100_000)])
table["region"] = np.array(["north", "south", "east", "west", ""])[np.arange(_n) % 5]
table["city"] = _words[_rng.integers(0, 1_000, _n)]
table["sku"] = _words[_rng.integers(0, 100_000, _n)]
table["status"] = np.array(["new", "paid", "sent", None], dtype=object)[np.arange(_n) % 4]
del _rng, _n, _words
"""
DESCRIBE = "table.iloc[:, :{numbers}].describe().to_json()"
DESCRIBE_ALL = ("[table.iloc[:, :{numbers}].describe().to_json()] + "
                "[table[c].value_counts().head(10).to_json() for c in {texts!r}]")


def measure(server: Server, rows: int, reps: int, log: Callable[[str], None]) -> list[Row]:
    width = NUMBERS + len(TEXTS)
    with table_kernel(server, rows, reps, log,
                      f"profile: a {rows:,}-row × {width}-column DataFrame",
                      SETUP.format(rows=rows, numbers=NUMBERS), "table/profile",
                      "columns=0,1") as kernel:
        one_number = Row(rows, "profile: one number column")
        one_text = Row(rows, "profile: one text column")
        numbers = Row(rows, f"profile: the {NUMBERS} number columns")
        everything = Row(rows, f"profile: all {width} columns")
        slowest: dict[str, float] = {}
        for rep in range(reps):
            rotated = [*range(rep % NUMBERS, NUMBERS), *range(rep % NUMBERS)]
            for row, query in [
                (one_number, f"columns={rep % NUMBERS}"),
                (one_text, f"columns={NUMBERS + rep % len(TEXTS)}"),
                (numbers, "columns=" + ",".join(map(str, rotated))),
                (everything, "columns=" + ",".join(map(str, [*rotated,
                                                               *range(NUMBERS, width)]))),
            ]:
                took, payload = _timed_get(server, f"{kernel.base}?{query}")
                assert isinstance(payload, dict) and payload["stale"] is False, payload
                assert payload["columns_cut"] == 0, payload["columns_cut"]
                assert all(c["error"] is None for c in payload["columns"]), payload
                row.seconds.append(took)
                row.reply_bytes = len(str(payload).encode())
                if row is one_number or row is one_text:
                    name = payload["columns"][0]["name"]
                    slowest[name] = max(slowest.get(name, 0.0), took)
        describe = Row(rows, f"peer: describe() of the {NUMBERS} number columns, as JSON")
        describe_all = Row(rows, "peer: describe() + value_counts() of the text columns")
        for _ in range(max(3, reps // 2)):
            took, size = kernel.floor_client.timed_expression(DESCRIBE.format(numbers=NUMBERS))
            describe.seconds.append(took)
            describe.reply_bytes = size
            took, size = kernel.floor_client.timed_expression(
                DESCRIBE_ALL.format(numbers=NUMBERS, texts=TEXTS))
            describe_all.seconds.append(took)
            describe_all.reply_bytes = size
        out = kernel.against_floor(one_number, one_text, numbers, everything, describe,
                                   describe_all)
        log("profile: slowest single column (wall ms, with the round trip): " + ", ".join(
            f"{name} {fmt_ms(s * 1e3)}" for name, s in sorted(slowest.items(),
                                                               key=lambda kv: -kv[1])[:3]))
        return out


def checks(rows: list[Row]) -> list[tuple[str, str, bool]]:
    """DESIGN §5: each column within its time budget; the table ≤ describe() (+ counts)."""
    one = [r for r in rows if r.case.startswith("profile: one ")]
    numbers = next(r for r in rows if r.case.startswith(f"profile: the {NUMBERS}"))
    everything = next(r for r in rows if r.case.startswith("profile: all"))
    describe = next(r for r in rows if r.case.startswith("peer: describe() of"))
    describe_all = next(r for r in rows if r.case.startswith("peer: describe() +"))
    out = [(f"{r.case}, slowest request within profile_column_ms",
            f"{fmt_ms(max(r.seconds) * 1e3)} ms ≤ {COLUMN_MS:,} ms",
            max(r.seconds) * 1e3 <= COLUMN_MS) for r in one]
    out.append((f"the {NUMBERS} number columns ≤ describe() of them",
                f"{fmt_ratio(numbers.median_ms / describe.median_ms)} describe()",
                numbers.median_ms <= describe.median_ms))
    out.append(("every column ≤ describe() + value_counts()",
                f"{fmt_ratio(everything.median_ms / describe_all.median_ms)} the peer",
                everything.median_ms <= describe_all.median_ms))
    return out


#: Where ``run.py`` writes this benchmark's table into the report (report_template.md).
REPORT_MARK = "<!-- profile_cases -->"


def tables(rows: list[Row], markdown: bool) -> str:
    """The table and the verdicts, as the full report shows them."""
    table = (markdown_table if markdown else text_table)(HEADER, [r.cells() for r in rows])
    verdicts = [f"- {'met' if ok else 'MISSED'}: {name} ({value})"
                for name, value, ok in checks(rows)]
    return table + "\n\n" + "\n".join(verdicts)


def run(reps: int, log: Callable[[str], None], rows: int = ROWS) -> list[Row]:
    return run_on_server(measure, rows, reps, log, ["--KernelStateApp.profile_cache_size=1"])


def main() -> int:
    return command_line(__doc__, "profile", ROWS, run, checks)


if __name__ == "__main__":
    sys.exit(main())
