"""The demo notebook, run cell by cell in a real kernel, read back as an assistant would."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from .kernel_utils import get_json, validate

pytestmark = pytest.mark.kernel
ROOT = Path(__file__).parent.parent
DEMO = ROOT / "examples" / "demo.ipynb"


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
    changed = [line for line in text.splitlines() if line.startswith("Changed in execution")]
    # Only config changed (the line may say how: "config (depth 6 → 8).").
    assert len(changed) == 1 and changed[0].startswith(
        f"Changed in execution {len(code_cells())}: config"), changed
    assert "- api_key: str, 28 chars — masked" in text and "sk-demo" not in text
    assert "repr timed out" in text  # the hostile object is reported, not waited for
    # The snapshot is complete and every hostile field is marked.
    snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    names = {v["name"]: v for v in snapshot["variables"]}
    assert names["broken"]["error"] == "repr raised ValueError"
    assert names["api_key"]["likely_secret"]


def demo_copy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(ROOT / "scripts" / "demo-copy.sh"), *args],
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_demo_runs_from_a_copy_and_the_tracked_notebook_stays_clean(tmp_path: Path) -> None:
    tracked = DEMO.read_bytes()
    made = demo_copy(str(tmp_path / "work"))
    assert made.returncode == 0, made.stderr
    copy = Path(made.stdout.strip())
    assert copy == tmp_path / "work" / "demo.ipynb" and copy.read_bytes() == tracked
    # Run every cell of the copy and save it, as a user of scripts/start.sh does.
    notebook = nbformat.read(copy, as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(copy.parent)}}).execute()
    nbformat.write(notebook, copy)
    saved = json.loads(copy.read_text())
    assert any(cell.get("outputs") for cell in saved["cells"] if cell["cell_type"] == "code")
    # The tracked notebook is untouched: byte for byte, and for git.
    assert DEMO.read_bytes() == tracked
    diff = subprocess.run(["git", "diff", "--quiet", "--", "examples/demo.ipynb"], cwd=ROOT,
                          capture_output=True, timeout=60, check=False)
    assert diff.returncode == 0, "examples/demo.ipynb differs from the committed one"
    # Launched again, the copy holding the user's runs is kept.
    again = demo_copy(str(tmp_path / "work"))
    assert again.returncode == 0 and Path(again.stdout.strip()) == copy
    assert json.loads(copy.read_text()) == saved


def test_the_demo_copy_never_goes_into_examples() -> None:
    refused = demo_copy(str(ROOT / "examples" / "scratch"))
    assert refused.returncode == 2 and "inside examples/" in refused.stderr
    assert not (ROOT / "examples" / "scratch").exists()
