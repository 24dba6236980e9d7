"""What the comparison tests share: the op called on two values (the reply checked
against the REST schema, as the server sends it), a refusal, the same columns made into
each library's table, and the rows of a window by status."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import polars as pl

from jupyter_kernel_state.probe import entry

from ..helpers import validate

LIBRARIES = ("pandas", "polars")
#: What the server adds to the probe's reply.
SERVER = {"stale": False, "kernel_busy": False, "epoch": 0, "generation": 1}


def compare(after: Any, before: Any, **request: Any) -> dict[str, Any]:
    """``after`` (as ``a``) compared with ``before`` (as ``b``)."""
    reply = entry.dispatch({"op": "compare", "name": "a", "with": "b", **request},
                           {"a": after, "b": before})
    json.dumps(reply, allow_nan=False)
    assert "comparison" in reply, reply
    out: dict[str, Any] = reply["comparison"]
    validate({**out, **SERVER}, "TableComparison")
    assert out["listed_rows"] == sum(out[s] for s in out["statuses"])
    for row in out["rows"]:
        assert len(row["cells"]) == len(out["window_columns"])
        assert (row["status"] == "changed") == (row["changed_cells"] > 0)
    return out


def refused(after: Any, before: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": "compare", "name": "a", "with": "b", **request},
                           {"a": after, "b": before})
    assert reply.get("ok") is False, reply
    return reply


def table(columns: dict[str, list[Any]], library: str, index: list[Any] | None = None) -> Any:
    """The same columns as a pandas or polars DataFrame (a missing value: None)."""
    if library == "pandas":
        return pd.DataFrame(columns, index=index)
    return pl.DataFrame(columns, strict=False)


def by_status(reply: dict[str, Any]) -> dict[str, list[list[str | None]]]:
    """The keys of the window's rows, by status."""
    out: dict[str, list[list[str | None]]] = {}
    for row in reply["rows"]:
        out.setdefault(row["status"], []).append(row["key"])
    return out


def counts(reply: dict[str, Any]) -> tuple[int, int, int, int]:
    return reply["added"], reply["removed"], reply["changed"], reply["unchanged"]


def changed_cells(reply: dict[str, Any]) -> dict[str, int | None]:
    return {c["name"]: c["changed"] for c in reply["columns"]}
