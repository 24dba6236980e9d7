"""Changes inside nested containers (two levels down and deeper), told from the tracker's
sampled fingerprints (``probe/changes/samples``), and where a change is missed — past
the sampled width or depth — exactly as docs/rest-api.md says."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from jupyter_kernel_state.probe import entry
from jupyter_kernel_state.probe.changes import samples

from .test_content_budget import RecordingSpy


def changes_after(shell: Any, code: str) -> tuple[str, list[str]]:
    exec(code, {"ns": shell.user_ns, "np": np})  # the user's cell
    ec = shell.run(code)
    v = {x["name"]: x for x in entry.snapshot({"since_ec": ec - 1})["variables"]}["v"]
    return v["change"], v["changes"]


class Run:
    """A class of the notebook's own (its attributes are the user's state)."""

    def __init__(self) -> None:
        self.params = {"lr": 0.1, "layers": [64, 32]}


Run.__module__ = "__main__"


CASES: list[tuple[str, Any, str, tuple[str, list[str]]]] = [
    ("two-levels", lambda: {"db": {"host": "h", "port": 1}}, "ns['v']['db']['host'] = 'k'",
     ("modified", ["db.host 'h' → 'k'"])),
    ("three-levels", lambda: {"a": {"b": {"c": 1}}}, "ns['v']['a']['b']['c'] = 2",
     ("modified", ["a.b.c 1 → 2"])),
    ("list-of-lists", lambda: [[1, 2], [3, 4]], "ns['v'][1][0] = 9", ("modified", ["[1][0] 3 → 9"])),
    ("nested-key-added", lambda: {"db": {"host": "h"}}, "ns['v']['db']['port'] = 5432",
     ("modified", ["db.port added"])),
    ("nested-key-removed", lambda: {"db": {"host": "h", "port": 1}}, "del ns['v']['db']['port']",
     ("modified", ["db.port removed"])),
    ("nested-array", lambda: {"w": np.zeros(3)}, "ns['v']['w'][0] = 1", ("modified", ["w values changed"])),
    ("a-nested-secret", lambda: {"db": {"password": "a"}}, "ns['v']['db']['password'] = 'b'",
     ("modified", ["db.password [masked] → [masked]"])),
    ("replaced-inner", lambda: {"db": {"host": "h"}}, "ns['v']['db'] = {'host': 'k'}",
     ("modified", ["db changed"])),  # a new object: its own change, not what is inside
    ("own-object", Run, "ns['v'].params['lr'] = 0.2", ("modified", ["params.lr 0.1 → 0.2"])),
    ("many", lambda: {"a": {str(i): i for i in range(10)}}, "ns['v']['a'].update({str(i): -i for i in range(1, 6)})",
     ("modified", ["a['1'] 1 → -1", "a['2'] 2 → -2", "a['3'] 3 → -3", "2 more nested values changed"])),
    # where a change is missed
    ("past-the-width", lambda: {"a": list(range(30))}, f"ns['v']['a'][{samples.SAMPLE_WIDTH + 2}] = -1",
     ("unchanged", [])),
    ("past-the-depth", lambda: {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}},
     "ns['v']['a']['b']['c']['d']['e']['f'] = 2", ("unchanged", [])),
    ("library-object", lambda: {"x": np.random.default_rng(0)}, "ns['v']['x'].random()", ("unchanged", [])),
]


@pytest.mark.parametrize(("make", "code", "expected"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_nested_changes(shell, make, code, expected):  # type: ignore[no-untyped-def]
    shell.run("v = ...", v=make())
    assert changes_after(shell, code) == expected


def test_a_sample_is_bounded():  # type: ignore[no-untyped-def]
    wide = {str(i): [list(range(50)) for _ in range(50)] for i in range(50)}
    entries = samples.sample(wide, dict)
    assert entries is not None and len(entries) <= samples.SAMPLE_NODES
    assert max(len(path) for path, _ in entries) <= samples.SAMPLE_DEPTH
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(100):
        inner["x"] = {}
        inner = inner["x"]
    assert max(len(p) for p, _ in samples.sample(deep, dict)) == samples.SAMPLE_DEPTH
    cycle: list[Any] = [1]
    cycle.append(cycle)
    assert samples.sample(cycle, list) is not None  # no endless walk


def test_flat_containers_need_no_sample():  # type: ignore[no-untyped-def]
    assert samples.sample([1, 2, 3], list) is None
    assert samples.sample({"a": 1, "b": "x"}, dict) is None
    assert samples.sample([1, [2]], list) is not None


def test_sampling_runs_no_user_code():  # type: ignore[no-untyped-def]
    RecordingSpy.calls.clear()

    class Weird(dict):  # type: ignore[type-arg]
        def items(self):  # type: ignore[no-untyped-def]
            RecordingSpy.calls.append("items")
            return super().items()

        def __iter__(self):  # type: ignore[no-untyped-def]
            RecordingSpy.calls.append("iter")
            return super().__iter__()

    value = Weird(a={"b": RecordingSpy(), "c": [RecordingSpy()]})
    first, second = samples.sample(value, Weird), samples.sample(value, Weird)
    assert first == second and RecordingSpy.calls == []
