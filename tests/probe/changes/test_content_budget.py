"""The content fingerprints' bounds: the hook's time budget (what does not fit waits for
a snapshot, and a table rebound in the cell says so), the memory caps (value words for the
most recently changed tables only, names past the cap refused), polars without numpy, and
no user code — counted, never timed (a time bound only guards against a hang)."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import numpy as np
import pandas as pd
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes import contents
from jupyter_kernel_state.probe.changes import tracker as tracking


def records() -> Any:
    return entry._state.tracker.records


def words_at(name: str, ec: int) -> tuple[str, ...] | None:
    r = records()
    return r.changes.get(name, ()) if r.changed_at.get(name) == ec else None


def test_no_time_in_the_hook_leaves_the_comparison_to_the_snapshot(shell, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(tracking, "CONTENT_MS", 1e-6)
    frame = pd.DataFrame({"a": np.arange(1_000.0)})
    shell.run("df = ...", df=frame)
    entry.snapshot({"limit": 100})  # the baseline
    frame.loc[frame.a > 900, "a"] = 0.0
    ec = shell.run("df.loc[df.a > 900, 'a'] = 0")
    assert words_at("df", ec) is None  # the hook did not compare it
    assert entry._state.tracker.content_checks == 0
    listed = {v["name"]: v for v in entry.snapshot({"since_ec": ec - 1})["variables"]}["df"]
    assert (listed["changed_at"], listed["changes"]) == (ec, ["a: 99 values changed, mean 499.5 → 405.4"])


def test_a_rebound_table_not_compared_in_time_says_so(shell, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(tracking, "CONTENT_MS", 1e-6)
    shell.run("df = ...", df=pd.DataFrame({"a": np.arange(1_000.0)}))
    entry.snapshot({"limit": 100})
    ec = shell.run("df = df * 2", df=shell.user_ns["df"] * 2)
    assert words_at("df", ec) == ("changed (not compared in time: 1,000 rows)",)
    # the snapshot after the cell compares it, in place of the words above
    listed = {v["name"]: v for v in entry.snapshot({"since_ec": ec - 1})["variables"]}["df"]
    assert listed["changes"] == ["a: 999 values changed, mean 499.5 → 999"]
    timeline = records().timeline.of("df")[0]
    assert timeline[-1]["changes"] == ["a: 999 values changed, mean 499.5 → 999"]
    # without a snapshot before the next cell the words stay: the comparison did not fit
    ec = shell.run("df = df * 2", df=shell.user_ns["df"] * 2)
    shell.run("pass")
    assert records().timeline.of("df")[0][-1]["changes"] == ["changed (not compared in time: 1,000 rows)"]


def test_the_hook_compares_within_its_budget(shell):  # type: ignore[no-untyped-def]
    """Twenty tables of 50,000 rows and an edit: the hook's content work stays near its
    budget (a bound against a stall, not a measure: benchmarks/table_changes.py measures)."""
    tables = {f"t{i}": pd.DataFrame({"a": np.arange(50_000.0), "b": np.arange(50_000)}) for i in range(20)}
    shell.run("tables", **tables)
    entry.snapshot({"limit": 100})
    slowest = 0.0
    for i in range(10):
        tables["t0"].loc[tables["t0"].b % 7 == i % 7, "a"] += 1
        started = time.perf_counter()
        shell.run("t0.loc[t0.b % 7 == i, 'a'] += 1")
        slowest = max(slowest, time.perf_counter() - started)
    assert slowest < 0.25


def test_value_words_go_to_the_most_recently_changed(shell, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(contents, "DETAIL_BYTES", 3 * 4 * 10_000 + 1)  # three tables' words
    tables = {f"t{i}": pd.DataFrame({"a": np.arange(10_000.0)}) for i in range(6)}
    shell.run("tables", **tables)
    entry.snapshot({"limit": 100})
    store = records().contents
    assert len(store.detailed) == 3 and store.detail_bytes <= contents.DETAIL_BYTES
    kept = set(store.detailed)
    cold = sorted(set(tables) - kept)[0]
    tables[cold].loc[0, "a"] = -1.0
    ec = shell.run(f"{cold}.loc[0, 'a'] = -1")
    entry.snapshot({"since_ec": ec - 1})
    assert words_at(cold, ec) == ("a: values changed in 1 of 10 blocks, mean 5,000 → 4,999",)  # blocks only
    tables[cold].loc[1, "a"] = -1.0
    ec = shell.run(f"{cold}.loc[1, 'a'] = -1")
    entry.snapshot({"since_ec": ec - 1})
    tables[cold].loc[2, "a"] = -1.0
    ec = shell.run(f"{cold}.loc[2, 'a'] = -1")
    entry.snapshot({"since_ec": ec - 1})
    assert words_at(cold, ec) == ("a: 1 value changed, mean 4,999.4997 → 4,999.4994",)  # exact
    assert cold in store.detailed and len(store.detailed) <= 3
    assert store.detail_bytes <= contents.DETAIL_BYTES


def test_names_past_the_cap_are_refused(shell, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(contents, "MAX_CONTENTS", 4)
    shell.run("arrays", **{f"a{i}": np.arange(10) for i in range(6)})
    entry.snapshot({"limit": 100})
    store = records().contents
    assert len(store.facts) == 4 and store.refused >= 2


def test_columns_past_the_cap_are_refused(shell, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(contents, "MAX_KEPT_COLUMNS", 25)
    shell.run("frames", **{f"f{i}": pd.DataFrame({f"c{j}": [j] for j in range(10)}) for i in range(4)})
    entry.snapshot({"limit": 100})
    store = records().contents
    assert len(store.facts) == 2 and store.kept_columns == 20 and store.refused >= 2
    shell.run("del f0", f0=1)  # its columns go with it: another frame may have them
    entry.snapshot({"limit": 100})
    assert len(store.facts) == 2 and store.kept_columns == 20


def test_the_facts_are_forgotten_with_their_names(shell):  # type: ignore[no-untyped-def]
    from tests.probe.stand_in import DELETE

    shell.run("a = ...", a=np.arange(10), b=pd.DataFrame({"x": [1]}))
    entry.snapshot({"limit": 100})
    store = records().contents
    assert set(store.facts) == {"a", "b"}
    shell.run("del a; b = 1", a=DELETE, b=1)
    assert store.facts == {} and store.names == {} and store.detail_bytes == 0


class RecordingSpy:
    """Records every special method the probe could be tempted to call (none may be)."""

    calls: list[str] = []

    def __eq__(self, other: object) -> bool:
        RecordingSpy.calls.append("eq")
        return False

    def __hash__(self) -> int:
        RecordingSpy.calls.append("hash")
        return 0

    def __repr__(self) -> str:
        RecordingSpy.calls.append("repr")
        return "spy"

    def __str__(self) -> str:
        RecordingSpy.calls.append("str")
        return "spy"

    def __len__(self) -> int:
        RecordingSpy.calls.append("len")
        return 0


def test_no_user_code_runs(shell):  # type: ignore[no-untyped-def]
    RecordingSpy.calls.clear()
    spies = [RecordingSpy() for _ in range(5)]
    frame = pd.DataFrame({"o": pd.Series(spies, dtype=object), "n": range(5)})
    frame.index = pd.Index(spies, dtype=object)
    shell.run("df = ...", df=frame, arr=np.array(spies, dtype=object))
    for step in range(3):
        frame.iat[step, 0] = RecordingSpy()
        shell.user_ns["arr"][step] = RecordingSpy()
        ec = shell.run("df.iat[step, 0] = Spy()")
        records().contents.check("df", frame, ec, contents.TimeBudget(10.0))
        records().contents.check("arr", shell.user_ns["arr"], ec, contents.TimeBudget(10.0))
    assert RecordingSpy.calls == []
    assert words_at("df", ec) == ("o: 1 object replaced",)


class SubFrame(pd.DataFrame):
    pass


def test_subclasses_are_not_compared(shell):  # type: ignore[no-untyped-def]
    shell.run("g = ...", g=SubFrame({"a": [1, 2]}), m=np.ma.masked_array([1, 2]))
    entry.snapshot({"limit": 100})
    assert records().contents.facts == {}


def test_polars_without_numpy():  # type: ignore[no-untyped-def]
    """polars does not import numpy, and the probe never does: polars' own operations."""
    script = "\n".join([
        "import sys, polars as pl",
        "from tests.probe.stand_in import Shell",
        "from jupyter_kernel_state.probe import entry",
        "sh = Shell(); entry.install(shell=sh)",
        "df = pl.DataFrame({'id': [1, 2, 3, 4], 'a': [1.0, None, 3.0, 4.0], 'b': ['x', 'y', 'z', 'w']})",
        "sh.run('df = ...', df=df); entry.snapshot({'limit': 10})",
        "df[1, 'a'] = 2.0",
        "ec = sh.run('df[1, \"a\"] = 2.0')",
        "print([v['changes'] for v in entry.snapshot({'since_ec': ec - 1})['variables'] if v['name'] == 'df'][0])",
        "sh.run('df = ...', df=df.filter(pl.col('id') != 2).with_columns(b=pl.lit('q')))",
        "print([v['changes'] for v in entry.snapshot({'since_ec': ec})['variables'] if v['name'] == 'df'][0])",
        "print('numpy' in sys.modules)",
    ])
    out = subprocess.run([sys.executable, "-W", "error", "-c", script], capture_output=True, text=True,
                         timeout=120, check=True, cwd=str(__import__("pathlib").Path(__file__).parents[3]))
    lines = out.stdout.splitlines()
    assert lines == [
        "['a: 1 value changed, mean 2.667 → 2.5, nulls 1 → 0']",
        "['rows 4 → 3', 'rows by key id: 1 removed, 3 changed', 'a: mean 2.5 → 2.667', "
        "'b: 3 values changed']",
        "False",
    ]


@pytest.mark.parametrize("library", ["numpy", "pandas"])
def test_the_probe_imports_nothing(library):  # type: ignore[no-untyped-def]
    script = ("import sys; from jupyter_kernel_state.probe.changes import tracker, contents, samples; "
              f"print({library!r} in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"
