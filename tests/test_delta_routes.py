"""``GET variables?since=G&delta=true`` against a real server, on local kernels and on
kernels behind a real Kernel Gateway: only what changed, or a full page that says so."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from .conftest import BOTH_BACKENDS
from .kernel_utils import get_json, validate

pytestmark = [pytest.mark.kernel, BOTH_BACKENDS]

_COMPARED = ("type", "kind", "size", "shape", "preview", "changed_at")


async def variables(jp_fetch, kernel, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", params=params)
    validate(payload, "Snapshot")
    return payload


def view(entries: Any) -> dict[str, tuple[Any, ...]]:
    return {v["name"]: tuple(v[k] for k in _COMPARED) for v in entries}


class HeldList:
    """What a client holds: the whole list at one generation, kept current with deltas."""

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.entries = {v["name"]: v for v in snapshot["variables"]}
        self.generation = snapshot["generation"]

    def apply(self, reply: dict[str, Any]) -> None:
        if not reply["delta"]:
            self.entries = {v["name"]: v for v in reply["variables"]}
        else:
            for name in reply["removed"]:
                self.entries.pop(name, None)
            self.entries.update((v["name"], v) for v in reply["variables"])
        self.generation = reply["generation"]


async def test_one_change_among_ten_thousand_sends_one_entry(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("for i in range(10_000): globals()['v%05d' % i] = i\ndel i")
    held = HeldList(await variables(jp_fetch, kernel, limit=10_000))
    assert len(held.entries) == 10_000
    await kernel.run("v00042 = -1")
    reply = await variables(jp_fetch, kernel, since=held.generation, delta="true", limit=10_000)
    assert reply["delta"] is True
    assert [v["name"] for v in reply["variables"]] == ["v00042"]
    changed = reply["variables"][0]
    assert (changed["change"], changed["preview"], changed["changed_at"]) == ("modified", "-1", 2)
    assert reply["total"] == 10_000 and reply["removed"] == []
    held.apply(reply)
    assert view(held.entries.values()) == view(
        (await variables(jp_fetch, kernel, limit=10_000))["variables"]
    )
    # Nothing since: an empty delta, still exact.
    again = await variables(jp_fetch, kernel, since=reply["generation"], delta="true")
    assert (again["delta"], again["variables"], again["total"]) == (True, [], 10_000)


async def test_deltas_after_random_cells_equal_a_fresh_list(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    rng = random.Random(7)
    await kernel.run("import random\nbase = 0")
    held = HeldList(await variables(jp_fetch, kernel, limit=10_000))
    for step in range(12):
        lines = []
        for _ in range(rng.randint(1, 4)):
            name = f"n{rng.randint(0, 15)}"
            lines.append(rng.choice([
                f"{name} = {rng.randint(0, 99)}",
                f"{name} = 'text {step}'",
                f"{name} = list(range({rng.randint(0, 5)}))",
                f"globals().pop('{name}', None)",
                f"{name} = {{'k': {step}}}",
            ]))
        if rng.random() < 0.3:
            lines.append("[v.append(0) for v in list(globals().values()) if type(v) is list][:0]")
        await kernel.run("\n".join(lines))
        reply = await variables(jp_fetch, kernel, since=held.generation, delta="true",
                                limit=10_000)
        assert reply["delta"] is True, lines
        held.apply(reply)
        fresh = await variables(jp_fetch, kernel, limit=10_000)
        assert reply["total"] == fresh["total"] == len(held.entries)
        assert view(held.entries.values()) == view(fresh["variables"]), lines


@pytest.mark.parametrize(
    ("case", "expect_delta"),
    [("no since", False), ("future generation", False), ("more changes than limit", False),
     ("as many changes as limit", True)],
)
async def test_a_delta_or_a_full_page(jp_fetch, new_kernel, case, expect_delta):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("for i in range(50): globals()['v%02d' % i] = i\ndel i")
    first = await variables(jp_fetch, kernel, limit=1000)
    params: dict[str, Any] = {"since": first["generation"], "delta": "true", "limit": 10}
    if case == "no since":
        del params["since"]
    elif case == "future generation":
        params["since"] = first["generation"] + 1000
    elif case == "more changes than limit":
        await kernel.run("for i in range(11): globals()['v%02d' % i] = -i - 1\ndel i")
    else:
        await kernel.run("for i in range(10): globals()['v%02d' % i] = -i - 1\ndel i")
    reply = await variables(jp_fetch, kernel, **params)
    assert reply["delta"] is expect_delta
    assert reply["total"] == 50
    assert len(reply["variables"]) == 10  # the changes, or a normal first page


async def test_a_restart_since_gives_a_full_page(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("before = 1")
    first = await variables(jp_fetch, kernel)
    await kernel.restart(jp_fetch)
    for _ in range(50):  # until the server has settled on the new process
        try:
            if (await variables(jp_fetch, kernel))["epoch"] > first["epoch"]:
                break
        except HTTPClientError as e:
            assert e.code == 503
        await asyncio.sleep(0.2)
    await kernel.run("after = 2")
    reply = await variables(jp_fetch, kernel, since=first["generation"], delta="true")
    assert reply["delta"] is False and reply["epoch"] > first["epoch"]
    assert [v["name"] for v in reply["variables"]] == ["after"]


@pytest.mark.parametrize("value", ["maybe", "2", "tru"])
async def test_delta_must_be_a_boolean(jp_fetch, new_kernel, value):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    with pytest.raises(HTTPClientError) as e:
        await variables(jp_fetch, kernel, since=0, delta=value)
    assert e.value.code == 400
    assert b"delta must be true or false" in e.value.response.body


async def test_one_change_decodes_one_variable_on_the_server(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    """Each variable's JSON passes through the server: after one change among 1,000, the
    whole list presents one new fragment (the rest come from the cache) and decodes none
    (nothing in it needs a note or a mask)."""
    kernel = await new_kernel()
    await kernel.run("for i in range(1000): globals()['v%04d' % i] = i\ndel i\nkey = 'sk-" + "a" * 30 + "'")
    presenter = kernel.serverapp.web_app.settings["jupyter_kernel_state"]._fragments
    first = await variables(jp_fetch, kernel, limit=2000)
    assert first["total"] == 1001
    assert {v["name"]: v["likely_secret"] for v in first["variables"]}["key"] is True
    await kernel.run("v0006 = -1")  # every entry goes from "new" to "unchanged"
    await variables(jp_fetch, kernel, limit=2000)
    before, decoded = presenter.presented, presenter.decoded
    await kernel.run("v0007 = -1")
    second = await variables(jp_fetch, kernel, limit=2000)
    # v0007 (modified now) and v0006 (unchanged now): two new texts, the rest cached
    assert presenter.presented - before == 2
    assert presenter.decoded == decoded  # both passed through as the probe wrote them
    assert {v["name"]: v["preview"] for v in second["variables"]}["v0007"] == "-1"
    assert [v["name"] for v in second["variables"]] == [v["name"] for v in first["variables"]]


async def test_a_busy_kernel_answers_a_delta_with_the_last_page(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    page = await variables(jp_fetch, kernel)
    kernel.submit("import time; time.sleep(3); x = 2")
    await kernel.wait_busy()
    stale = await variables(jp_fetch, kernel, since=page["generation"], delta="true")
    assert (stale["stale"], stale["kernel_busy"], stale["delta"]) == (True, True, False)
    assert [v["name"] for v in stale["variables"]] == ["x"]
    await kernel.wait_idle(timeout=10)
