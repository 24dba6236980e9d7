"""The prompt's line for a table carries its findings in one short clause, where the probe
knows them: a small table checked by the digest itself, a large one only once it was
checked whole (the findings route, the explorer, describe_table) and only while it is
unchanged; the stable prefix is kept byte for byte when a clause appears (pure cases
on crafted digests, then a real server and kernel)."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_kernel_state.prompt_lines import variable_line

from .kernel_utils import get_json
from .test_prompt_prefix import common_prefix, demo_like

SETUP = """
import numpy as np, pandas as pd
rng = np.random.default_rng(1)
small = pd.DataFrame({"id": np.arange(300), "price": rng.normal(100, 5, 300),
                      "flag": 1})
small.loc[:11, "price"] = np.nan
big = pd.DataFrame({"id": np.arange(20_000), "price": rng.normal(100, 5, 20_000),
                    "flag": 1})
big.loc[:99, "price"] = np.nan
"""


def test_the_clause_ends_the_line_escaped_and_bounded() -> None:
    table = {"name": "sales", "kind": "dataframe", "type": "DataFrame", "shape": [9, 2],
             "preview": "9×2 — a:int64, b:str", "findings": "3 missing in b\x1b[31m, " + "x" * 400}
    line = variable_line(table)
    assert line.startswith("- sales: DataFrame 9×2 — a:int64, b:str; findings: 3 missing in b")
    assert "\x1b" not in line and len(line) < 300
    assert "findings" not in variable_line({**table, "findings": None})


def test_a_clause_that_appears_keeps_the_stable_prefix() -> None:
    session = demo_like()
    first = session.prompt()
    assert first.stable is not None
    sales = session.vars["sales"]
    session.vars["sales"] = {**sales, "findings": "512 missing in price, 3 duplicate rows"}
    session.run_cell()
    second = session.prompt(stable=first.stable)
    assert second.text.startswith(first.stable.text)  # byte for byte
    tail = second.text[len(first.stable.text):]
    assert "Lines that replace or add to the list above:" in tail
    assert "- sales: DataFrame 100,000×8" in tail and "; findings: 512 missing in price" in tail
    assert common_prefix(first.text, second.text) >= len(first.stable.text)


async def _line(jp_fetch: Any, kernel_id: str, name: str) -> str:  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel_id, "prompt",
                             params={"budget": "6000", "format": "json"})
    lines = [line for line in payload["text"].splitlines() if line.startswith(f"- {name}: ")]
    assert lines, payload["text"]
    return lines[-1]  # the latest (an update line replaces the stable one)


@pytest.mark.kernel
async def test_the_prompt_says_known_findings_only(jp_fetch, new_kernel) -> None:  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    assert (await kernel.run(SETUP))["status"] == "ok"
    small = await _line(jp_fetch, kernel.kernel_id, "small")
    assert "; findings: " in small and "12 missing in price" in small
    assert "flag constant" in small
    assert "findings" not in await _line(jp_fetch, kernel.kernel_id, "big")
    checked = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "big",
                             "findings")
    assert checked["findings_total"] >= 2
    assert (await kernel.run("pass"))["status"] == "ok"
    big = await _line(jp_fetch, kernel.kernel_id, "big")
    assert "; findings: " in big and "100 missing in price" in big
    # Changed in place: what was checked no longer holds, so nothing is said.
    assert (await kernel.run("big.loc[:, 'flag'] = np.arange(20_000)"))["status"] == "ok"
    assert "findings" not in await _line(jp_fetch, kernel.kernel_id, "big")
