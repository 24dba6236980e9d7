"""The ``@var:`` cards of Notebook Intelligence's chat (``nbi/cards.py``) against the case
table that the jupyterlab-chat cards (``src/chat/cards.ts``) are checked against too
(``src/__tests__/chatCards.spec.ts``): one expected text for both implementations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_kernel_state.nbi import cards

CASES = json.loads((Path(__file__).parent / "chat_card_cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["case"])
def test_the_card_is_the_one_both_chats_attach(case: dict[str, Any]) -> None:
    assert cards.variable_card(case["name"], case["detail"], case["kernel"]) == case["card"]


@pytest.mark.parametrize("case", CASES["fences"], ids=lambda c: c["text"])
def test_the_fence_is_the_one_both_chats_attach(case: dict[str, Any]) -> None:
    assert cards.fence(case["text"]) == case["block"]


def test_the_table_covers_what_differs_between_values() -> None:
    kinds = {case["detail"]["kind"] for case in CASES["cases"]}
    assert {"dataframe", "string", "array", "mapping"} <= kinds
    assert any(None in (case["detail"]["shape"] or ()) for case in CASES["cases"])
    assert any(case["detail"]["hidden_from_prompt"] for case in CASES["cases"])
    assert any(case["detail"]["masked"] for case in CASES["cases"])
