"""The demo notebook, run cell by cell in a real kernel, read back as an assistant would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .kernel_utils import get_json, validate

pytestmark = pytest.mark.kernel
DEMO = Path(__file__).parent.parent / "examples" / "demo.ipynb"


def code_cells() -> list[str]:
    notebook = json.loads(DEMO.read_text())
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


async def test_demo_prompt_under_2000_characters(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    for source in code_cells():
        reply = await kernel.run(source)
        assert reply["status"] == "ok", source
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "prompt",
                             params={"budget": "2000", "format": "json"})
    validate(payload, "PromptResult")
    text = payload["text"]
    print(text)  # docs/prompt-format.md shows this output
    assert payload["chars"] <= 2000
    assert ("- sales: DataFrame 100,000×8 — region:") in text
    for column in ("units:int64", "price:float64", "date:datetime64", "customer_id:int64",
                   "channel:", "discount:float64", "returned:bool"):
        assert column in text, column
    assert "- monthly: Series[int64] len 12" in text
    assert "- weights: ndarray float32 (512, 256), 512.0 KiB" in text
    assert f"Changed in execution {len(code_cells())}: config." in text.splitlines()
    assert "- api_key: str, 28 chars — masked" in text and "sk-demo" not in text
    assert "repr timed out" in text  # the hostile object is reported, not waited for
    # The snapshot is complete and every hostile field is marked.
    snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    names = {v["name"]: v for v in snapshot["variables"]}
    assert names["broken"]["error"] == "repr raised ValueError"
    assert names["api_key"]["likely_secret"]
