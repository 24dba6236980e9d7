"""Versions kept on request (the ``keep``, ``kept`` and ``drop_kept`` ops, and ``compare``
with ``with_execution``) on a stand-in shell, without a server: the caps at and one past
their bounds, replacement, eviction named, the version unchanged by later changes to
the table, drops when the name goes, and what is refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

from jupyter_kernel_state.probe import entry

from ..helpers import validate
from ..stand_in import DELETE
from .cases import LIBRARIES, SERVER, table


def call(op: str, **fields: Any) -> dict[str, Any]:
    return entry.dispatch({"op": op, **fields})  # the shell's namespace


def kept(op: str = "kept", **fields: Any) -> dict[str, Any]:
    reply = call(op, **fields)
    assert "kept" in reply, reply
    validate({**reply["kept"], **SERVER}, "KeptVersions")
    return reply["kept"]  # type: ignore[no-any-return]


def frame(rows: int) -> pd.DataFrame:
    """A frame of ``rows`` one-byte values: one more row is one more byte."""
    return pd.DataFrame({"x": np.zeros(rows, np.uint8)})


def nbytes(value: pd.DataFrame) -> int:
    return int(value.memory_usage(index=True, deep=False).sum())


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_version_is_the_table_as_it_was(shell, library: str) -> None:  # type: ignore[no-untyped-def]
    at = shell.run(t=table({"id": [1, 2, 3], "v": [1.0, 2.0, 3.0]}, library))
    got = kept("keep", name="t")
    assert got["kept"]["execution_count"] == at and got["kept"]["library"] == library
    assert got["kept"]["bytes"] == got["bytes_total"] > 0
    changed = table({"id": [1, 2, 4], "v": [1.0, 5.0, 3.0]}, library)
    if library == "pandas":  # in place: the copy must not follow
        shell.user_ns["t"].loc[1, "v"] = 5.0
        shell.user_ns["t"].loc[2, "id"] = 4
        shell.run()
    else:
        shell.run(t=changed)
    reply = call("compare", name="t", key=["id"], **{"with": "t", "with_execution": at})
    compared = reply["comparison"]
    assert (compared["added"], compared["removed"], compared["changed"]) == (1, 1, 1)
    assert compared["with_execution"] == at and compared["with"] == "t"
    assert compared["code"]["code"].startswith(f"# t_at_{at} is t as of [{at}]")


def test_the_byte_cap_at_and_one_past(shell) -> None:  # type: ignore[no-untyped-def]
    shell.run(a=frame(1000), b=frame(1001), c=frame(1))
    cap = nbytes(frame(1000))
    refused = call("keep", name="b", max_kept_bytes=cap)
    assert refused.get("unprocessable") and f"{cap + 1:,} bytes, past the {cap:,}" in refused["error"]
    assert kept(name="b", max_kept_bytes=cap)["kept_total"] == 0
    assert kept("keep", name="a", max_kept_bytes=cap)["bytes_total"] == cap
    full = call("keep", name="c", max_kept_bytes=cap)
    assert full.get("full") and "a as of [" in full["error"]
    evicted = kept("keep", name="c", max_kept_bytes=cap, evict=True)
    assert [v["name"] for v in evicted["dropped"]] == ["a"]
    assert evicted["bytes_total"] == nbytes(frame(1))


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_the_count_cap_minus_one_at_and_plus_one(shell, cap: int) -> None:  # type: ignore[no-untyped-def]
    names = ["t0", "t1", "t2"]
    shell.run(**{n: frame(3) for n in names})
    for i, name in enumerate(names):
        reply = call("keep", name=name, max_kept=cap)
        if i < cap:
            assert reply["kept"]["kept_total"] == i + 1
        else:
            assert reply.get("full") and f"{cap} of {cap} versions" in reply["error"]
    # Kept again at the same execution: replaced, whatever the cap.
    again = kept("keep", name="t0", max_kept=cap)
    assert again["replaced"] and again["dropped"] == [] and again["kept_total"] == min(cap, 3)


def test_zero_one_and_unknown_versions(shell) -> None:  # type: ignore[no-untyped-def]
    at = shell.run(t=frame(2))
    assert kept(name="t")["versions"] == []
    missing = call("compare", name="t", **{"with": "t", "with_execution": at})
    assert missing.get("not_found") and "none is kept" in missing["error"]
    kept("keep", name="t")
    other = call("compare", name="t", **{"with": "t", "with_execution": at + 5})
    assert other.get("not_found") and f"kept: [{at}]" in other["error"]
    dropped = kept("drop_kept", name="t", execution=at)
    assert [v["execution_count"] for v in dropped["dropped"]] == [at] and not dropped["versions"]
    again = call("drop_kept", name="t", execution=at)
    assert again.get("not_found") and "none is kept" in again["error"]


def test_a_name_gone_takes_its_versions(shell) -> None:  # type: ignore[no-untyped-def]
    shell.run(a=frame(2), b=frame(2), c=frame(2))
    for name in "abc":
        kept("keep", name=name)
    shell.run(b=DELETE)  # a cell's ``del b``: the hook drops them
    assert call("kept", name="b").get("not_found")
    assert kept(name="a")["kept_total"] == 2
    call("delete", name="a")  # the API's DELETE
    assert kept(name="c")["kept_total"] == 1
    shell.run(c=frame(5))  # rebound: still the same name, its version stays
    assert kept(name="c")["versions"][0]["rows"] == 2


def test_what_is_never_kept(shell) -> None:  # type: ignore[no-untyped-def]
    shell.run(arr=np.zeros((2, 2)), n=1, lazy=pl.DataFrame({"a": [1]}).lazy(),
              s=pd.Series([1, 2]), it=iter([1]))
    for name, kind, words in (("arr", "bad_request", "ndarray: versions are kept of"),
                              ("n", "bad_request", "versions are kept of"),
                              ("lazy", "bad_request", "never collected from an engine"),
                              ("s", "bad_request", "Series: versions are kept of"),
                              ("it", "lazy", "it is"),
                              ("nope", "not_found", "Variable not found: nope")):
        reply = call("keep", name=name)
        assert reply.get(kind) and words in reply["error"], (name, reply)
    assert call("keep", name="n", max_kept=0).get("bad_request")  # what it is comes first
    shell.run(t=frame(1))
    off = call("keep", name="t", max_kept=0)
    assert off.get("unprocessable") and "max_kept is 0" in off["error"]
