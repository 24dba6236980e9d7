"""Another Python kernel: xeus-python 0.19 (PyPI ``xeus-python``, kernelspec ``xpython``),
and its raw kernel (``xpython-raw``), which gets a clear 501.

It runs the same probe as ipykernel (silent executes with ``user_expressions``; it has
IPython's shell, so the post-execute hook tracks changes), and the same routes answer:
variables with changes, detail, rows, timeline, delete, images and history. Nothing here
sends it a debug-protocol request (it crashes on a ``variables`` request made before a debug
session starts).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError

from .kernel_utils import get_json, validate

# Local and behind Kernel Gateway. Behind Enterprise Gateway 3.3 the xpython kernel it
# launches never answers kernel_info (not investigated further; see the closing note).
pytestmark = [pytest.mark.kernel,
              pytest.mark.parametrize("kernel_backend", ["local", "gateway"], indirect=True)]

# xeus-python lives in a venv of its own (scripts/setup.sh): installed beside JupyterLab its
# kernels would be offered to every notebook the UI tests open. Its kernelspecs name
# "python3.11" on PATH; the tests' copies name that venv's python.
XEUS_VENV = Path(__file__).resolve().parent.parent / ".venv-xeus"
XEUS_SPECS = XEUS_VENV / "share" / "jupyter" / "kernels"


@pytest.fixture(autouse=True)
def xpython_kernelspecs(kernels_data_dir: Path) -> None:
    """xpython and xpython-raw where the kernels run: this server's data dir, or the
    gateway's."""
    if not (XEUS_SPECS / "xpython").is_dir():
        pytest.fail(f"xeus-python is not installed in {XEUS_VENV} (bash scripts/setup.sh)")
    for name in ("xpython", "xpython-raw"):
        target = kernels_data_dir / "kernels" / name
        if target.exists():
            continue
        shutil.copytree(XEUS_SPECS / name, target)
        spec = json.loads((target / "kernel.json").read_text())
        spec["argv"][0] = str(XEUS_VENV / "bin" / "python")
        (target / "kernel.json").write_text(json.dumps(spec))


PLOT = (
    "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
    "import matplotlib.pyplot as plt\n"
    "plt.figure(figsize=(2, 2), dpi=40); plt.plot([1, 3, 2]); plt.show()"
)


async def test_xeus_python_answers_as_ipykernel_does(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel("xpython")
    await kernel.run("import pandas as pd\n"
                     "sales = pd.DataFrame({'region': list('nsew') * 250, 'units': range(1000)})\n"
                     "config = {'depth': 6}\nx = 41")
    kid = kernel.kernel_id

    snapshot = await get_json(jp_fetch, "kernels", kid, "variables")
    validate(snapshot, "Snapshot")
    assert snapshot["language"] == "python"
    by_name = {v["name"]: v for v in snapshot["variables"]}
    assert set(by_name) == {"sales", "config", "x"}
    assert by_name["sales"]["shape"] == [1000, 2] and by_name["x"]["preview"] == "41"

    await kernel.run("sales = sales[sales.units > 9]\nx = 42")
    changed = await get_json(jp_fetch, "kernels", kid, "variables",
                             params={"since": str(snapshot["generation"])})
    by_name = {v["name"]: v for v in changed["variables"]}
    assert by_name["sales"]["change"] == "modified"
    assert "rows 1,000 → 990" in by_name["sales"]["changes"]
    assert by_name["config"]["change"] == "unchanged"

    delta = await get_json(jp_fetch, "kernels", kid, "variables",
                           params={"since": str(snapshot["generation"]), "delta": "true"})
    assert {v["name"] for v in delta["variables"]} >= {"sales", "x"}
    prompt = await jp_fetch("api", "kernel-state", "kernels", kid, "prompt",
                            params={"budget": "2000", "history": "2"})
    assert "- sales: DataFrame 990×2" in prompt.body.decode()

    detail = await get_json(jp_fetch, "kernels", kid, "variables", "sales")
    validate(detail, "VariableDetail")
    assert [c["name"] for c in detail["columns"]] == ["region", "units"]

    rows = await get_json(jp_fetch, "kernels", kid, "variables", "sales", "rows",
                          params={"sort": "units:desc", "limit": "2"})
    assert rows["total_rows"] == 990 and [r[1] for r in rows["rows"]] == ["999", "998"]

    timeline = await get_json(jp_fetch, "kernels", kid, "variables", "sales", "timeline")
    assert [e["change"] for e in timeline["entries"]] == ["new", "modified"]

    await kernel.run(PLOT)
    images = await get_json(jp_fetch, "kernels", kid, "images")
    assert images["total"] == 1 and images["images"][0]["mime"] == "image/png"
    history = await get_json(jp_fetch, "kernels", kid, "history")
    assert history["total"] == 3 and history["entries"][-1]["image_ids"]

    await jp_fetch("api", "kernel-state", "kernels", kid, "variables", "x", method="DELETE")
    with pytest.raises(HTTPClientError) as gone:
        await jp_fetch("api", "kernel-state", "kernels", kid, "variables", "x")
    assert gone.value.code == 404
    assert json.loads(gone.value.response.body)["message"] == "Variable not found: x"

    # The kernel is left as it was: it still runs the user's cells.
    reply = await kernel.run("x = 7\ny = x * 6")
    assert reply["status"] == "ok"
    listed = await get_json(jp_fetch, "kernels", kid, "variables")
    assert {"x", "y"} <= {v["name"] for v in listed["variables"]}


async def test_the_raw_kernel_gets_a_clear_501_and_keeps_running(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """xeus-python's raw kernel (``xpython-raw``, no IPython shell) does not evaluate
    ``user_expressions``: every route that reads variables answers 501, saying why, and
    the kernel is left as it was. Images and history need no probe: they work."""
    kernel = await new_kernel("xpython-raw")
    kid = kernel.kernel_id
    reply = await kernel.run("x = 41")
    assert reply["status"] == "ok"
    for parts in (("variables",), ("variables", "x"), ("variables", "x", "rows")):
        with pytest.raises(HTTPClientError) as refused:
            await jp_fetch("api", "kernel-state", "kernels", kid, *parts)
        assert refused.value.code == 501, parts
        assert "does not evaluate user_expressions" in json.loads(
            refused.value.response.body)["message"]
    history = await get_json(jp_fetch, "kernels", kid, "history")
    assert history["total"] == 1
    assert (await kernel.run("y = x + 1"))["status"] == "ok"
