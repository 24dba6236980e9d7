"""Deleting a variable, its timeline, masked secrets and the memory column, through REST
against a real server and real kernels (local and behind a Kernel Gateway)."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from .conftest import BOTH_BACKENDS
from .kernel_utils import get_json, validate

pytestmark = [pytest.mark.kernel, BOTH_BACKENDS]


async def snapshot(jp_fetch, kernel, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", params=params)
    validate(payload, "Snapshot")
    return payload


async def delete(jp_fetch, kernel, name):  # type: ignore[no-untyped-def]
    return await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables", name,
                          method="DELETE")


async def error_of(awaitable):  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as info:
        await awaitable
    return info.value.code, json.loads(info.value.response.body)["message"]


async def test_delete_keeps_list_delta_prompt_and_timeline_consistent(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("n = 5\nkeep = [1, 2]")
    first = await snapshot(jp_fetch, kernel)
    assert {v["name"] for v in first["variables"]} == {"n", "keep"}

    response = await delete(jp_fetch, kernel, "n")
    assert response.code == 204
    after = await snapshot(jp_fetch, kernel)
    assert {v["name"] for v in after["variables"]} == {"keep"} and after["total"] == 1
    assert after["removed"] == ["n"] and after["generation"] > first["generation"]
    # A delta from before the delete cannot be told from execution counts: a full page.
    delta = await snapshot(jp_fetch, kernel, since=first["generation"], delta="true")
    assert delta["delta"] is False and {v["name"] for v in delta["variables"]} == {"keep"}
    prompt = await get_json(jp_fetch, "kernels", kernel.kernel_id, "prompt",
                            params={"format": "json"})
    assert "- n:" not in prompt["text"] and "keep" in prompt["text"]
    timeline = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "n",
                              "timeline")
    validate(timeline, "Timeline")
    assert [(e["execution_count"], e["change"]) for e in timeline["entries"]] == [
        (1, "new"), (1, "removed")]
    assert timeline["exists"] is False
    # The kernel agrees, and nothing else changed.
    reply = await kernel.run("assert 'n' not in globals() and keep == [1, 2]")
    assert reply["status"] == "ok"

    assert await error_of(delete(jp_fetch, kernel, "n")) == (404, "Variable not found: n")
    assert await error_of(delete(jp_fetch, kernel, "In")) == (404, "Variable not found: In")
    code, message = await error_of(delete(jp_fetch, kernel, "not-a-name"))
    assert code == 400 and "Invalid variable name" in message


async def test_delete_refuses_a_busy_kernel(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    kernel.submit("import time; time.sleep(2)")
    await kernel.wait_busy()
    code, message = await error_of(delete(jp_fetch, kernel, "x"))
    assert code == 409 and "x was not deleted" in message
    await kernel.wait_idle(timeout=10)
    assert (await kernel.run("assert x == 1"))["status"] == "ok"
    # A cell finishing as the user confirms: the delete waits for it (up to 1 s).
    kernel.submit("import time; time.sleep(0.3)")
    await kernel.wait_busy()
    assert (await delete(jp_fetch, kernel, "x")).code == 204


async def test_timeline_after_a_scripted_session(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    cells = [
        "import numpy as np, pandas as pd\n"
        "sales = pd.DataFrame({'price': np.arange(100000) * 1.0, 'units': np.arange(100000)})",
        "sales = sales[sales.price > 4008]",
        "sales['revenue'] = sales.price * sales.units",
        "sales['units'] = sales['units'].astype('float64')",
        "other = 1",
        "sales = 'gone soon'",
        "del sales",
    ]
    for cell in cells:
        assert (await kernel.run(cell))["status"] == "ok"
    timeline = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "sales",
                              "timeline")
    validate(timeline, "Timeline")
    assert [(e["execution_count"], e["change"], e["changes"]) for e in timeline["entries"]] == [
        (1, "new", []),
        (2, "modified", ["rows 100,000 → 95,991"]),
        (3, "modified", ["column revenue added"]),
        (4, "modified", ["column units dtype int64 → float64"]),
        (6, "modified", ["type DataFrame → str"]),
        (7, "removed", []),
    ]
    assert timeline["total"] == 6 and timeline["complete_after"] is None
    short = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "sales",
                           "timeline", params={"limit": "2"})
    assert [e["execution_count"] for e in short["entries"]] == [6, 7] and short["total"] == 6
    code, message = await error_of(get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                                            "never", "timeline"))
    assert (code, message) == (404, "Variable not found: never")


SECRETS = (
    "api_key = 'sk-demo-1234567890abcdef'\n"
    "config = {'model': 'gbm', 'url': 'postgres://u:hunter2@db/x'}\n"
    "credentials = {'user': 'ann', 'pw': 'x'}\n"
    "plain = 'hello'\n"
)


async def test_secrets_are_masked_until_revealed(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SECRETS)
    listed = {v["name"]: v for v in (await snapshot(jp_fetch, kernel))["variables"]}
    assert listed["api_key"]["masked"] is True and listed["api_key"]["preview"] == "[masked]"
    assert listed["api_key"]["likely_secret"] is True
    assert "hunter2" not in listed["config"]["preview"] and "gbm" in listed["config"]["preview"]
    assert listed["plain"]["masked"] is False and listed["plain"]["preview"] == "'hello'"

    async def detail(name, **params):  # type: ignore[no-untyped-def]
        payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                                 params=params)
        validate(payload, "VariableDetail")
        return payload

    masked = await detail("api_key")
    assert masked["masked"] is True and "sk-demo" not in json.dumps(masked)
    shown = await detail("api_key", reveal="true")
    assert shown["masked"] is False and "sk-demo-1234567890abcdef" in shown["repr"]
    creds = await detail("credentials")
    assert all(c["preview"] == "[masked]" for c in creds["children"])
    child = await detail("credentials", path=json.dumps([creds["children"][1]["access_key"]]))
    assert child["masked"] is True and "'x'" not in json.dumps(child)
    code, _message = await error_of(detail("api_key", reveal="maybe"))
    assert code == 400


async def test_memory_column_and_reversible_sorts(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "import numpy as np, pandas as pd\n"
        "big = np.zeros(1_000_000)\nsmall = 1\nmid = list(range(1000))\n"
        "df = pd.DataFrame({'a': np.arange(1000)})\n"
        "class Odd:\n    def __sizeof__(self): raise RuntimeError\n"
        "odd = Odd()\n"
    )
    payload = await snapshot(jp_fetch, kernel, sort="memory")
    names = [v["name"] for v in payload["variables"]]
    memory = {v["name"]: v["memory"] for v in payload["variables"]}
    assert memory["big"] == 8_000_000 and memory["df"] >= 8000
    assert memory["odd"] is None  # user code is never run for it
    assert names[0] == "big" and names[-1] == "odd"  # largest first, unknown last
    ascending = [v["name"] for v in (await snapshot(jp_fetch, kernel, sort="memory:asc"))[
        "variables"]]
    assert ascending[0] == "small" and ascending[-1] == "odd"
    by_name_desc = [v["name"] for v in (await snapshot(jp_fetch, kernel, sort="name:desc"))[
        "variables"]]
    assert by_name_desc == sorted(names, reverse=True)
    code, message = await error_of(snapshot(jp_fetch, kernel, sort="memory:up"))
    assert code == 400 and "optionally followed by :asc or :desc" in message


async def test_the_prompt_says_when_a_changed_variable_lost_rows(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    for cell in [
        "import numpy as np, pandas as pd\n"
        "sales = pd.DataFrame({'price': np.arange(100000) * 1.0, 'units': np.arange(100000)})",
        "sales = sales[sales.price > 4008]",
        "sales['revenue'] = sales.price * sales.units",
    ]:
        await kernel.run(cell)
    prompt = await get_json(jp_fetch, "kernels", kernel.kernel_id, "prompt",
                            params={"format": "json"})
    assert "rows 100,000 → 95,991 at [2]" in prompt["text"], prompt["text"]
    assert "column revenue added at [3]" in prompt["text"]


async def test_detail_levels(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "import numpy as np, pandas as pd\n"
        "wide = pd.DataFrame({f'c{i}': np.arange(3) for i in range(60)})\n"
        "sales = pd.DataFrame({'price': [1.5], 'when': pd.to_datetime(['2024-10-02'])})\n"
        "api_key = 'sk-demo-1234567890abcdef'\nn = 5\n"
    )
    full = await snapshot(jp_fetch, kernel)
    names = await snapshot(jp_fetch, kernel, detail="names")
    schema = await snapshot(jp_fetch, kernel, detail="schema")
    assert names["detail"] == "names" and schema["detail"] == "schema" and full["detail"] == "full"
    assert names["total"] == schema["total"] == full["total"] == 4
    assert names["variables"][0] == {"name": "api_key", "type": "str", "kind": "string"}
    by_name = {v["name"]: v for v in schema["variables"]}
    assert by_name["sales"]["columns"][0] == {"name": "price", "dtype": "float64"}
    assert by_name["sales"]["columns"][1]["dtype"].startswith("datetime64")
    assert len(by_name["wide"]["columns"]) == 50 and by_name["wide"]["columns_total"] == 60
    # a brief leaves out the fields at their defaults (size null), like the full list
    assert "size" not in by_name["n"] and "preview" not in by_name["n"]
    assert "sk-demo" not in json.dumps(schema) and "sk-demo" not in json.dumps(names)
    sizes = [len(json.dumps(p)) for p in (names, schema, full)]
    assert sizes[0] < min(sizes[1:]), sizes  # schema adds up to 50 columns a table
    code, message = await error_of(snapshot(jp_fetch, kernel, detail="everything"))
    assert code == 400 and "detail must be one of names, schema, full" in message
