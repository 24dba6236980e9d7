"""A seeded property test: for random pairs of tables (rows dropped, added, edited and
shuffled; missing values, a text and a float column), the comparison of pandas and of
polars agrees with an independent evaluation in plain Python — a dict by key, each cell
compared with missing values equal — on every count, every column's changed cells and
every row's status."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from .cases import LIBRARIES, compare, table

SEEDS = range(25)
COLUMNS = ("price", "label", "units")


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _same(x: Any, y: Any) -> bool:
    return (_missing(x) and _missing(y)) or (not _missing(x) and not _missing(y) and x == y)


def _value(rng: random.Random, column: str) -> Any:
    if rng.random() < 0.1:
        return None
    if column == "price":
        return float(rng.choice([0.5, 1.0, 2.25, 7.0, 100.0]))
    if column == "label":
        return rng.choice(["a", "b", "c", "A"])
    return rng.randint(0, 3)


def pair(seed: int) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(after, before): the before's rows by a unique key, then some dropped, some added
    (new keys), some cells edited, the rows shuffled."""
    rng = random.Random(seed)
    n = rng.randint(0, 60)
    keys = rng.sample(range(1000), n)
    before = {"key": keys, **{c: [_value(rng, c) for _ in keys] for c in COLUMNS}}
    rows = [{c: before[c][i] for c in before} for i in range(n)]
    kept = [r for r in rows if rng.random() > 0.2]
    for r in kept:
        for c in COLUMNS:
            if rng.random() < 0.15:
                r[c] = _value(rng, c)
    fresh = rng.sample(sorted(set(range(1000, 2000))), rng.randint(0, 8))
    kept += [{"key": k, **{c: _value(rng, c) for c in COLUMNS}} for k in fresh]
    rng.shuffle(kept)
    after = {c: [r[c] for r in kept] for c in before}
    return after, before


def independent(after: dict[str, list[Any]], before: dict[str, list[Any]]
                ) -> tuple[dict[str, int], dict[str, int], dict[int, str]]:
    """Counts, changed cells by column and each key's status, by a dict by key."""
    old = {k: i for i, k in enumerate(before["key"])}
    new = {k: i for i, k in enumerate(after["key"])}
    counts = {"added": 0, "removed": 0, "changed": 0, "unchanged": 0}
    cells = dict.fromkeys(COLUMNS, 0)
    status: dict[int, str] = {}
    for k, i in new.items():
        if k not in old:
            status[k] = "added"
        else:
            j = old[k]
            differ = [c for c in COLUMNS if not _same(after[c][i], before[c][j])]
            for c in differ:
                cells[c] += 1
            status[k] = "changed" if differ else "unchanged"
        counts[status[k]] += 1
    for k in old:
        if k not in new:
            status[k] = "removed"
            counts["removed"] += 1
    return counts, cells, status


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_comparison_agrees_with_a_dict_by_key(library: str, seed: int) -> None:
    after, before = pair(seed)
    want_counts, want_cells, want_status = independent(after, before)
    got = compare(table(after, library), table(before, library), key=["key"],
                  statuses=["added", "removed", "changed", "unchanged"], limit=1000)
    assert {s: got[s] for s in want_counts} == want_counts
    assert {c["name"]: c["changed"] for c in got["columns"]} == want_cells
    assert {int(float(r["key"][0])): r["status"] for r in got["rows"]} == want_status
    for row in got["rows"]:
        assert row["changed_cells"] == len(row["changes"])  # every column is shown here
        for change in row["changes"]:
            assert change["before"] != change["after"] or change["before"] is None
