"""The findings of a table in one short clause for the prompt (``windows.known_findings``,
``ops.findings.clauses``, the digest's ``findings``): bounded, remembered while the
table is unchanged (object, fingerprint, content), never from a filtered or partial
check, computed by the digest only for small tables."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.ops import findings as findings_op
from jupyter_kernel_state.probe.windows.known_findings import MAX_CLAUSE_CHARS, clause


def seeded(rows: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"id": np.arange(rows), "price": rng.normal(100, 5, rows),
                          "flag": 1, "text": [str(i) for i in range(rows)]})
    frame.loc[:9, "price"] = np.nan
    return frame


def digest_findings() -> dict[str, str]:
    reply = entry.dispatch({"op": "digest", "since_ec": 0})
    return reply["findings"]  # type: ignore[no-any-return]


def finding(kind: str, columns: list[str], count: int) -> dict[str, Any]:
    return {"kind": kind, "columns": columns, "count": count}


@pytest.mark.parametrize(("findings", "total", "sampled", "expected"), [
    ([], 0, False, "none"),
    ([finding("id_like", ["id"], 10)], 1, False, "none"),
    ([finding("missing", ["price"], 512), finding("duplicate_rows", [], 3)], 2, False,
     "512 missing in price, 3 duplicate rows"),
    ([finding("correlated", ["a", "b"], 9)], 1, True, "a ~ b correlated (sampled)"),
    ([finding("constant", ["c"], 1)], 4, False, "c constant, +3 more"),
])
def test_the_clause(findings: list[dict[str, Any]], total: int, sampled: bool,
                    expected: str) -> None:
    assert clause(findings, total, sampled) == expected


def test_the_clause_is_bounded_and_counts_the_rest() -> None:
    many = [finding("missing", ["column_" + "x" * 60 + str(i)], 10 ** 6 + i) for i in range(30)]
    text = clause(many, 40)
    assert len(text) <= MAX_CLAUSE_CHARS and text.endswith("more")
    shown = text.count(" missing in ")
    assert text.endswith(f"+{40 - shown} more")


def test_a_whole_check_is_remembered_until_the_table_changes(shell) -> None:  # type: ignore[no-untyped-def]
    big = seeded(20_000)  # past the digest's own cells: said only once checked whole
    shell.run(big=big, n=1)
    assert digest_findings() == {}
    filtered = entry.dispatch({"op": "findings", "name": "big",
                               "view": {"filter": {"column": "flag", "op": "eq", "value": 1}}})
    assert filtered["findings"]["findings"] and digest_findings() == {}
    partial = entry.dispatch({"op": "findings", "name": "big", "columns": [0, 1]})
    assert partial["findings"]["findings"] and digest_findings() == {}
    entry.dispatch({"op": "findings", "name": "big"})
    said = digest_findings()["big"]
    assert "10 missing in price" in said and "flag constant" in said
    big.loc[0, "flag"] = 2  # in place: the tracker sees the content change
    shell.run()
    assert "big" not in digest_findings()
    shell.run(big=seeded(20_000))  # rebound: another object
    assert "big" not in digest_findings()


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_the_digest_checks_one_small_table_a_call(shell, library: str) -> None:  # type: ignore[no-untyped-def]
    frames = {name: seeded(100) for name in ("a", "b")}
    if library == "polars":
        frames = {name: pl.from_pandas(f) for name, f in frames.items()}
    shell.run(**frames, arr=np.zeros((10, 10)), lazy=pl.DataFrame({"x": [1]}).lazy())
    first = digest_findings()
    assert len(first) == findings_op.DIGEST_TABLES == 1
    second = digest_findings()
    assert set(second) == {"a", "b"} and second["a"] == second["b"]
    assert "10 missing in price" in second["a"]
