"""Seeded property test: the counts, means and nulls the tracker says a cell changed in a
table or an array equal an independent evaluation of the same two states (pandas'
``DataFrame.compare``, numpy's ``!=``), over random in-place edits (NaN written over NaN,
-0.0 over 0.0, a value over itself included)."""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pandas as pd
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes.table_words import numbers_text

WORDS = re.compile(r"^(?:(?P<label>\w+): )?(?:(?P<count>[\d,]+) values? changed)?(?:, )?(?P<rest>.*)$")


def listed(shell: Any, name: str) -> list[str]:
    ec = shell.execution_count - 1
    v = {x["name"]: x for x in entry.snapshot({"since_ec": ec - 1})["variables"]}[name]
    return v["changes"] if v["change"] == "modified" else []  # type: ignore[no-any-return]


def expected_words(old: pd.Series, new: pd.Series) -> tuple[int, str | None, str | None]:
    """An independent count (``DataFrame.compare``), mean and nulls of one column."""
    compared = old.to_frame("x").compare(new.to_frame("x"), keep_shape=True)
    changed = int((compared[("x", "self")].notna() | compared[("x", "other")].notna()).sum())
    means = None
    a, b = old.mean(), new.mean()
    if not (np.isclose(a, b, rtol=1e-12, atol=0) or (np.isnan(a) and np.isnan(b))):
        means = "mean " + numbers_text(None if np.isnan(a) else float(a), None if np.isnan(b) else float(b))
    nulls = None
    if old.isna().sum() != new.isna().sum():
        nulls = f"nulls {old.isna().sum():,} → {new.isna().sum():,}"
    return changed, means, nulls


def edit(rng: random.Random, frame: pd.DataFrame) -> None:
    rows = len(frame)
    for _ in range(rng.randint(1, 12)):
        r, c = rng.randrange(rows), rng.randrange(frame.shape[1])
        column = frame.columns[c]
        if column == "units":
            frame.iloc[r, c] = rng.choice([frame.iloc[r, c], rng.randint(0, 9)])
        else:
            old = frame.iloc[r, c]
            frame.iloc[r, c] = rng.choice([np.nan, -0.0 if old == 0 else old, rng.random(), old])
    if rng.random() < 0.3:
        frame.loc[frame["units"] > 5, "price"] *= 1.5


@pytest.mark.parametrize("seed", range(12))
def test_table_counts_equal_pandas_compare(shell, seed):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    n = rng.choice([1, 7, 300, 2_000])
    data = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "price": np.where(data.random(n) < 0.1, np.nan, data.random(n).round(2)),
        "units": data.integers(0, 10, n),
        "ratio": np.where(data.random(n) < 0.5, 0.0, data.random(n)),
    })
    shell.run("df = ...", df=frame)
    entry.snapshot({"limit": 100})
    for step in range(6):
        before = frame.copy()
        edit(rng, frame)
        shell.run(f"edit {step}")
        said = {}
        for text in listed(shell, "df"):
            match = WORDS.match(text)
            assert match is not None, text
            if match["label"]:
                said[match["label"]] = text
        for column in frame.columns:
            count, means, nulls = expected_words(before[column], frame[column])
            parts = [f"{count:,} value{'' if count == 1 else 's'} changed"] if count else []
            parts += [p for p in (means, nulls) if p]
            if parts:
                assert said.get(column) == f"{column}: " + ", ".join(parts), (seed, step, column)
            else:
                assert column not in said, (seed, step, column)


@pytest.mark.parametrize("seed", range(8))
def test_array_counts_equal_numpy(shell, seed):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    shape = [(1,), (5,), (40, 30), (3_000,)][seed % 4]
    arr = rng.random(shape)
    arr[rng.random(shape) < 0.1] = np.nan
    shell.run("a = ...", a=arr)
    entry.snapshot({"limit": 100})
    for step in range(5):
        before = arr.copy()
        picks = rng.random(shape) < rng.choice([0.0, 0.001, 0.2])
        arr[picks] = rng.choice([np.nan, 0.5, -0.0])
        shell.run(f"a[picks] = … {step}")
        expected = int(np.count_nonzero(~((before == arr) | (np.isnan(before) & np.isnan(arr)))))
        words = listed(shell, "a")
        if expected == 0:
            assert words == [], (seed, step)
            continue
        head = words[0]
        assert head.startswith(f"{expected:,} value{'' if expected == 1 else 's'} changed"), (seed, step, head)
        if expected <= 3:
            places = [np.unravel_index(i, shape) for i in np.flatnonzero(before.ravel() != arr.ravel())
                      if not (np.isnan(before.ravel()[i]) and np.isnan(arr.ravel()[i]))]
            named = ", ".join("[" + ", ".join(str(int(x)) for x in p) + "]" for p in places)
            assert f" at {named}" in head
