"""examples/engines.ipynb, run cell by cell in a real kernel (its Parquet file smaller and in
a temporary folder), read back as the sidebar and an assistant read it: each table listed
with its schema and nothing computed, each explored in its own engine through REST."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from traitlets.config import Config

from .conftest import server_config
from .kernel_utils import get_json, validate

pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(600)]
pytest.importorskip("duckdb")
pytest.importorskip("pyspark")

ROOT = Path(__file__).parent.parent
NOTEBOOK = ROOT / "examples" / "engines.ipynb"


@pytest.fixture
def jp_server_config(gateway_url: str | None) -> Config:
    # A fresh Spark session's first job takes seconds (its JVM warms up): the guards of a
    # user who works with Spark, raised with probe_timeout.
    return server_config(gateway_url, KernelStateApp={"probe_timeout": 20.0,
                                                      "rows_sort_ms": 15_000})


def cells(parquet: Path) -> list[str]:
    """The notebook's code cells; the 50-million-row file made smaller, written in a
    temporary folder."""
    notebook = json.loads(NOTEBOOK.read_text())
    out = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        source = source.replace("50_000_000", "500_000")
        source = source.replace(
            'os.path.join(tempfile.gettempdir(), "kernel-state-demo-trips.parquet")',
            repr(str(parquet)))
        out.append(source)
    return out


async def test_the_engines_notebook_lists_and_explores_each_table(  # type: ignore[no-untyped-def]
        jp_fetch, new_kernel, tmp_path: Path):
    kernel = await new_kernel()
    try:
        for source in cells(tmp_path / "trips.parquet"):
            reply = await kernel.run(source, timeout=300)
            assert reply["status"] == "ok", source
        snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
        validate(snapshot, "Snapshot")
        by_name = {v["name"]: v for v in snapshot["variables"]}
        assert by_name["events"]["preview"].startswith(
            "lazy · DuckDB · not counted · 5 columns — id:BIGINT, amount:DECIMAL")
        assert by_name["trips"]["preview"].startswith(
            "lazy · polars · not counted · 4 columns — trip:Int64, fare:Float64")
        assert by_name["orders"]["preview"].startswith("lazy · Spark")
        assert "price:" in by_name["orders"]["preview"]

        expectations: dict[str, dict[str, Any]] = {
            "events": {"engine": "duckdb", "rows": 1_000_000_000, "syntax": "duckdb"},
            "trips": {"engine": "polars", "rows": 500_000, "syntax": "polars_lazy"},
            "orders": {"engine": "spark", "rows": None, "syntax": "pyspark"},
        }
        for name, want in expectations.items():
            window = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                                    "rows", params={"limit": "5"})
            validate(window, "RowsWindow")
            assert window["engine"]["name"] == want["engine"], window["engine"]
            assert len(window["rows"]) == 5 and window["index"][0] == "0"
            if want["rows"] is not None and window["total_rows"] is not None:
                assert window["total_rows"] == want["rows"]
            code = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                                  "code")
            assert code["syntax"] == want["syntax"] and f"{name}_view" in code["code"]
        prompt = await get_json(jp_fetch, "kernels", kernel.kernel_id, "prompt",
                                params={"format": "json"})
        for name in expectations:
            line = next(x for x in prompt["text"].splitlines() if x.startswith(f"- {name}:"))
            assert "never collect it" in line, line
    finally:
        await kernel.run("spark.stop()", timeout=120)
