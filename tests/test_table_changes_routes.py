"""What a cell did inside a table, through a real server and a real kernel: the list's
row, the variable's timeline and the prompt's change line carry the same words (issue 29's
``sales.loc[sales.price > 100, 'price'] *= 1.1``), and a preview after ``arr[0] = 99``
shows 99."""

from __future__ import annotations

import numpy as np
import pytest

from jupyter_kernel_state.probe.changes.table_words import numbers_text

from .kernel_utils import get_json, validate

pytestmark = [pytest.mark.kernel]

SETUP = (
    "import numpy as np\nimport pandas as pd\n"
    "rng = np.random.default_rng(7)\nn = 5_000\n"
    "sales = pd.DataFrame({'price': rng.uniform(1.0, 250.0, n).round(2),\n"
    "                      'units': rng.integers(1, 50, n)})\n"
    "arr = np.arange(5)"
)
EDIT = "sales.loc[sales.price > 100, 'price'] *= 1.1\narr[0] = 99"


def expected_price_words() -> str:
    """The words, computed here from the same data (numpy's own generator)."""
    rng = np.random.default_rng(7)
    price = rng.uniform(1.0, 250.0, 5_000).round(2)
    after = np.where(price > 100, price * 1.1, price)
    count = int(np.count_nonzero(after != price))
    return f"price: {count:,} values changed, mean {numbers_text(price.mean(), after.mean())}"


async def test_an_in_place_edit_reads_the_same_everywhere(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SETUP)
    first = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    assert {v["name"]: v["preview"] for v in first["variables"]}["arr"] == "[0, 1, 2, 3, 4]"
    await kernel.run(EDIT)
    words = expected_price_words()
    listed = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                            params={"since": str(first["generation"])})
    validate(listed, "Snapshot")
    by_name = {v["name"]: v for v in listed["variables"]}
    assert by_name["sales"]["change"] == "modified"
    assert by_name["sales"]["changes"] == [words]
    assert by_name["arr"]["preview"] == "[99, 1, 2, 3, 4]"  # never the preview from before
    assert by_name["arr"]["changes"] == ["1 value changed at [0], mean 2 → 21.8"]
    timeline = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "sales", "timeline")
    validate(timeline, "Timeline")
    assert timeline["entries"][-1]["changes"] == [words]
    response = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "prompt",
                              params={"since": str(first["generation"])})
    lines = response.body.decode().splitlines()
    changed = next(x for x in lines if x.startswith("Changed since execution"))
    assert f"sales ({words})" in changed
    assert "- arr: ndarray int64 (5,), 40 B — [99, 1, 2, 3, 4]" in lines
    detail = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "arr")
    assert detail["preview"] == "[99, 1, 2, 3, 4]" and detail["changes"] == by_name["arr"]["changes"]


async def test_a_table_past_the_size_threshold_says_so(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """The probe's own threshold, lowered in the kernel (the probe lives in sys.modules)."""
    kernel = await new_kernel()
    await kernel.run(SETUP)
    await kernel.run("import sys\nsys.modules['_jupyter_kernel_state_probe.changes.contents']"
                     ".MAX_COMPARED = 1_000")
    first = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    await kernel.run("sales = sales * 2")
    listed = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                            params={"since": str(first["generation"])})
    sales = {v["name"]: v for v in listed["variables"]}["sales"]
    assert sales["changes"] == ["changed (not compared: 5,000 rows)"]
