"""The comparison's code (Convert to Code), run: pandas and polars code executed on the
same tables binds ``a_vs_b`` to as many added, removed and changed rows as the reply
counts — by a key, by the index, by position, on the seeded pairs of the property test
and on odd names; dplyr's code run by R when R and dplyr are installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from jupyter_kernel_state.probe.windows.code import r_string

from ..findings.test_fixes import _r_has_dplyr
from .cases import LIBRARIES, compare, refused, table
from .test_property import SEEDS, pair

STATUSES = ("added", "removed", "changed")


def run_code(code: str, after: Any, before: Any) -> dict[str, int]:
    """The statuses of ``a_vs_b`` after running ``code`` where ``a`` and ``b`` live; the
    code leaves no name of its own behind."""
    ns: dict[str, Any] = {"a": after, "b": before}
    exec(compile(code, "<comparison code>", "exec"), ns)  # the code under test
    out = ns["a_vs_b"]
    assert not {k for k in ns if not k.startswith("__")} - {"a", "b", "a_vs_b", "np", "pl"}
    column = "status"  # another name when a table has a column of that name
    while column in list(after.columns) + list(before.columns):
        column += "_"
    values = out[column].to_list()
    return {s: values.count(s) for s in STATUSES}


def counted(reply: dict[str, Any]) -> dict[str, int]:
    return {s: reply[s] for s in STATUSES}


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_code_finds_what_the_comparison_found(library: str, seed: int) -> None:
    after, before = pair(seed)
    a, b = table(after, library), table(before, library)
    for key in (["key"], None):
        reply = compare(a, b, key=key)
        assert reply["code"]["syntax"] == library
        assert run_code(reply["code"]["code"], a, b) == counted(reply), reply["code"]["code"]


def test_pandas_code_by_the_index() -> None:
    before = pd.DataFrame({"v": [1.0, 2.0, None, 4.0]}, index=["w", "x", "y", "z"])
    after = before.drop(index="x").assign(v=[1.0, None, 40.0])
    after.loc["new"] = 5.0
    reply = compare(after, before)
    assert reply["by"] == "index" and counted(reply) == {"added": 1, "removed": 1, "changed": 1}
    assert run_code(reply["code"]["code"], after, before) == counted(reply)


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_code_of_odd_names_and_dtypes_runs(library: str) -> None:
    names = ["order id", 'say "hi"', "status", "_merge", "v_b", "v"]
    before = table({**{n: [1, 2, 3] for n in names}, "f": [1.0, None, 3.0]}, library)
    after = table({**{n: [1, 2, 4] if n == "v" else [1, 2, 3] for n in names},
                   "f": [1, 2, 3]}, library)
    reply = compare(after, before, key=["order id"])
    code = reply["code"]["code"]
    assert "status_" in code
    assert run_code(code, after, before) == counted(reply) == {"added": 0, "removed": 0,
                                                              "changed": 2}


def test_no_dplyr_code_by_an_index_an_r_data_frame_lacks() -> None:
    frame = pd.DataFrame({"v": [1]}, index=["x"])
    assert compare(frame, frame.copy())["code"]["syntax"] == "pandas"
    assert "R data frame does not have" in refused(frame, frame.copy(), syntax="dplyr")["error"]


# --- dplyr, run by R -------------------------------------------------------------------------


def _r_frame(name: str, columns: dict[str, list[Any]]) -> str:
    vectors = []
    for values in columns.values():
        if any(isinstance(v, str) for v in values):
            items = ["NA" if v is None else r_string(v) for v in values]
        else:
            items = ["NA" if v is None else repr(float(v)) for v in values]
        vectors.append("c(" + ", ".join(items) + ")" if items else "logical(0)")
    return "{} <- data.frame({}, stringsAsFactors = FALSE)\nnames({}) <- c({})\n".format(
        name, ", ".join(vectors), name, ", ".join(r_string(k) for k in columns))


@pytest.mark.skipif(not _r_has_dplyr(), reason="R with dplyr and jsonlite is not installed")
def test_dplyr_code_run_by_r_finds_the_same_rows(tmp_path: Path) -> None:
    blocks, checks = [], []
    for seed in range(1, 8):
        after, before = pair(seed)
        for key in (["key"], None):
            reply = compare(table(after, "pandas"), table(before, "pandas"), key=key,
                            syntax="dplyr")
            out = tmp_path / f"{len(checks)}.json"
            blocks.append("local({{\n{}{}{}writeLines(toJSON(as.list(table(a_vs_b$status)), "
                          "auto_unbox = TRUE), {})\n}})\n".format(
                              _r_frame("a", after), _r_frame("b", before),
                              reply["code"]["code"], r_string(str(out))))
            checks.append((out, reply))
    script = tmp_path / "compare.R"
    script.write_text("suppressMessages({library(dplyr); library(jsonlite)})\n" + "".join(blocks))
    done = subprocess.run(["Rscript", str(script)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    for out, reply in checks:
        got = json.loads(out.read_text()) if out.read_text().strip() not in ("", "[]") else {}
        assert {s: int(got.get(s, 0)) for s in STATUSES} == counted(reply), reply["code"]
