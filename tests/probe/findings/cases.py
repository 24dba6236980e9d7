"""What the findings tests share: the op called on one value, a finding looked up, the
same columns made into each library's table, and a finding's filter checked against the
``count`` op (the grid opens the filter: it must keep the rows the finding counts)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.protocol import View

LIBRARIES = ("pandas", "polars", "records")


def findings(value: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": "findings", "name": "t", **request}, {"t": value})
    json.dumps(reply, allow_nan=False)
    assert "findings" in reply, reply
    out: dict[str, Any] = reply["findings"]
    for f in out["findings"]:
        assert len(f["message"]) <= 300, f["message"]
        if f["filter"] is not None:
            View.from_json({"filter": f["filter"]})  # the grid's own format
        assert f["filter"] is not None or f["filter_note"], f
        assert (f["fix"] is None) == (f["fix_note"] is not None), f
    return out


def refused(value: Any, **request: Any) -> dict[str, Any]:
    reply = entry.dispatch({"op": "findings", "name": "t", **request}, {"t": value})
    assert reply.get("ok") is False, reply
    return reply


def of(reply: dict[str, Any], kind: str, column: str | None = None) -> list[dict[str, Any]]:
    return [f for f in reply["findings"] if f["kind"] == kind
            and (column is None or column in f["columns"])]


def one(reply: dict[str, Any], kind: str, column: str | None = None) -> dict[str, Any]:
    found = of(reply, kind, column)
    assert len(found) == 1, (kind, column, [f["message"] for f in reply["findings"]])
    return found[0]


def kinds(reply: dict[str, Any]) -> set[tuple[str, str]]:
    return {(f["kind"], ",".join(f["columns"])) for f in reply["findings"]}


def table(columns: dict[str, list[Any]], library: str) -> Any:
    """The same columns as a pandas or polars DataFrame, or a list of records (a missing
    value: None; polars reads a float column's None as null)."""
    if library == "pandas":
        return pd.DataFrame(columns)
    if library == "polars":
        return pl.DataFrame(columns, strict=False)
    if library == "records":
        names = list(columns)
        n = len(columns[names[0]]) if names else 0
        return [{k: columns[k][i] for k in names} for i in range(n)]
    if library == "numpy":
        return np.array([[np.nan if x is None else x for x in col] for col in columns.values()],
                        dtype=float).T
    raise AssertionError(library)


def counted(value: Any, row_filter: dict[str, Any]) -> int:
    reply = entry.dispatch({"op": "count", "name": "t", "view": {"filter": row_filter}},
                           {"t": value})
    assert "count" in reply, reply
    return int(reply["count"]["rows"])


def check_filters(value: Any, reply: dict[str, Any]) -> None:
    """Every exact finding's filter keeps as many rows as it counts."""
    for f in reply["findings"]:
        if f["filter"] is not None and not f["approximate"]:
            assert counted(value, f["filter"]) == f["count"], f
