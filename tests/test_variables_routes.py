"""The variables routes against a real server and real ipykernel kernels."""

from __future__ import annotations

import asyncio
import json

import pytest
from tornado.httpclient import HTTPClientError

from .conftest import BOTH_BACKENDS
from .kernel_utils import get_json, start_kernel, validate

pytestmark = [pytest.mark.kernel, BOTH_BACKENDS]


async def variables(jp_fetch, kernel, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", params=params)
    validate(payload, "Snapshot")
    return payload


def by_name(snapshot):  # type: ignore[no-untyped-def]
    return {v["name"]: v for v in snapshot["variables"]}


async def test_kernels_list(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    payload = await get_json(jp_fetch, "kernels")
    validate(payload, "KernelList")
    ids = [k["kernel_id"] for k in payload["kernels"]]
    assert kernel.kernel_id in ids
    entry = payload["kernels"][ids.index(kernel.kernel_id)]
    assert entry["language"] == "python"


async def test_snapshot_lists_user_variables(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "import os\nimport pandas as pd\nimport numpy as np\n"
        "df = pd.DataFrame({'a': [1, 2, 3], 'b': ['x', 'y', 'z']})\n"
        "arr = np.zeros((4, 5), dtype='float32')\nx = 42\n_private = 1\n"
        "def f(a, b=2): return a\n"
        "class C: pass\n"
    )
    snapshot = await variables(jp_fetch, kernel)
    names = by_name(snapshot)
    assert set(names) == {"df", "arr", "x"}
    assert snapshot["total"] == 3
    assert names["df"]["kind"] == "dataframe" and names["df"]["shape"] == [3, 2]
    assert names["arr"]["kind"] == "array" and names["arr"]["dtype"] == "float32"
    assert names["arr"]["shape"] == [4, 5] and names["arr"]["nbytes"] == 80
    assert names["x"]["kind"] == "number" and names["x"]["preview"] == "42"
    assert snapshot["execution_count"] == 1
    assert all(v["change"] == "new" for v in snapshot["variables"])
    assert all(v["changed_at"] == 1 for v in snapshot["variables"])

    everything = await variables(
        jp_fetch, kernel, include="private,modules,callables,classes"
    )
    assert {"_private", "os", "pd", "np", "f", "C"} <= set(by_name(everything))
    assert not {"In", "Out", "get_ipython", "exit", "quit"} & set(by_name(everything))


async def test_change_tracking_and_since(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("a = [1, 2, 3]\nb = 'text'\ntmp = 1")
    first = await variables(jp_fetch, kernel)
    await kernel.run("a.append(4)\nc = 3.5\ndel tmp")
    second = await variables(jp_fetch, kernel)
    names = by_name(second)
    assert names["a"]["change"] == "modified"
    assert names["a"]["changed_at"] == 2
    assert "len 3 → 4" in names["a"]["changes"]
    assert names["c"]["change"] == "new"
    assert names["b"]["change"] == "unchanged"
    assert second["removed"] == ["tmp"]
    # Relative to an explicit generation: everything since the first snapshot.
    await kernel.run("d = 1")
    since_first = by_name(await variables(jp_fetch, kernel, since=first["generation"]))
    assert since_first["c"]["change"] == "new" and since_first["d"]["change"] == "new"
    assert since_first["a"]["change"] == "modified"
    assert since_first["b"]["change"] == "unchanged"


async def test_paging_and_sorting_keep_total_exact(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("for i in range(250): globals()[f'v{i:03d}'] = i\ndel i")
    page = await variables(jp_fetch, kernel, limit="100", offset="200")
    assert page["total"] == 250 and page["limit"] == 100 and page["offset"] == 200
    assert [v["name"] for v in page["variables"]] == [f"v{i:03d}" for i in range(200, 250)]
    by_size = await variables(jp_fetch, kernel, sort="type", limit="5")
    assert len(by_size["variables"]) == 5


async def test_etag_and_cache_send_no_kernel_message(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    response = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables")
    etag = response.headers["ETag"]
    requests_before = kernel.state.probe_requests
    for _ in range(5):
        again = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables")
        assert again.headers["ETag"] == etag
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables",
                       headers={"If-None-Match": etag})
    assert e.value.code == 304
    assert kernel.state.probe_requests == requests_before
    await kernel.run("x = 2")
    fresh = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables",
                           headers={"If-None-Match": etag})
    assert fresh.code == 200 and fresh.headers["ETag"] != etag


async def test_concurrent_gets_share_one_probe_request(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("y = list(range(10))")
    before = kernel.state.probe_requests
    results = await asyncio.gather(*[
        # queued ten at a time by the test's HTTP client: a loaded machine waits long
        get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", request_timeout=120)
        for _ in range(50)
    ])
    assert kernel.state.probe_requests - before == 1
    assert len({r["taken_at"] for r in results}) == 1


async def test_detail_of_a_dataframe_and_drill_down(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "import pandas as pd\n"
        "df = pd.DataFrame({'region': ['n', 's'], 'units': [1, 2]})\n"
        "nested = {'a': [10, 20, {'deep': 'value'}], 'b': 2}"
    )
    detail = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "df")
    validate(detail, "VariableDetail")
    assert [c["name"] for c in detail["columns"]] == ["region", "units"]
    assert detail["columns_total"] == 2
    assert detail["head"]["rows"][0][:2] == ["n", "1"] or "n" in json.dumps(detail["head"])

    top = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "nested")
    validate(top, "VariableDetail")
    assert top["keys_total"] == 2
    child = next(c for c in top["children"] if c["label"].strip("'\"") == "a")
    path = [child["access_key"]]
    inner = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "nested",
                           params={"path": json.dumps(path)})
    assert inner["kind"] == "sequence" and inner["size"] == 3
    third = inner["children"][2]["access_key"]
    deep = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "nested",
                          params={"path": json.dumps([*path, third])})
    assert deep["kind"] == "mapping" and "deep" in deep["preview"]


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("missing_name", 404),
        ("In", 404),  # hidden IPython internals are not found
        ("ｘ", 404),  # NFKC alias of an existing `x` is not `x`
        ("1abc", 400),
        ("a.b", 400),
        ("__import__('os').system('true')", 400),
        ("x y", 400),
        ("class", 400),
        ("a" * 300, 400),
    ],
)
async def test_detail_rejects_bad_or_missing_names(jp_fetch, new_kernel, name, status):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    before = await kernel.inspect_kernel()
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables", name)
    assert e.value.code == status
    body = json.loads(e.value.response.body)
    assert body["message"]
    assert "Traceback" not in body["message"]
    if status == 404:
        assert body["message"] == f"Variable not found: {name}"
    assert await kernel.inspect_kernel() == before


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"limit": "abc"}, "limit must be an integer"),
        ({"limit": "-1"}, "limit must be"),
        ({"limit": "0"}, "limit must be"),
        ({"offset": "-5"}, "offset must be"),
        ({"sort": "evil"}, "sort must be one of"),
        ({"include": "private,secrets"}, "include accepts"),
        ({"since": "yesterday"}, "since must be an integer"),
        ({"changed_in": "last"}, "changed_in must be an integer"),
        ({"changed_in": "-1"}, "changed_in must be"),
        ({"changed_in": "2", "since": "1", "delta": "true"}, "cannot be combined with delta"),
    ],
)
async def test_bad_query_values_get_400(jp_fetch, new_kernel, params, fragment):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables",
                       params=params)
    assert e.value.code == 400
    assert fragment in json.loads(e.value.response.body)["message"]


async def test_huge_limit_is_clamped(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    snapshot = await variables(jp_fetch, kernel, limit="99999999")
    assert snapshot["limit"] == 10_000


@pytest.mark.parametrize(
    ("path", "status"),
    [("not json", 400), ('{"a": 1}', 400), ('["k:\\"nope\\""]', 404), ('["zz:1"]', 404)],
)
async def test_bad_paths(jp_fetch, new_kernel, path, status):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("d = {'a': 1}")
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables", "d",
                       params={"path": path})
    assert e.value.code == status


@pytest.mark.parametrize(
    "kernel_id",
    ["not-a-kernel", "00000000-0000-0000-0000-000000000000", "..%2F..%2Fetc", "x" * 500],
)
async def test_unknown_or_malformed_kernel_ids_get_404(jp_fetch, jp_serverapp, kernel_id):  # type: ignore[no-untyped-def]
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel_id, "variables")
    assert e.value.code == 404
    assert json.loads(e.value.response.body)["message"].startswith("Kernel does not exist")


async def test_non_python_kernel_gets_501(jp_fetch, other_language_kernelspec):  # type: ignore[no-untyped-def]
    kernel_id = await start_kernel(jp_fetch, other_language_kernelspec)
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel_id, "variables")
    assert e.value.code == 501
    assert "otherlang" in json.loads(e.value.response.body)["message"]
    listing = await get_json(jp_fetch, "kernels")
    assert {k["kernel_id"]: k["language"] for k in listing["kernels"]}[kernel_id] == "otherlang"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [("sales", ["sales", "sales_2024"]), ("SALES_*", ["sales_2024"]), ("dataframe", ["sales"]),
     ("*_202?", ["sales_2024"]), ("int", ["count"]), ("[", []), ("nothing", [])],
)
async def test_filter_by_name_or_type(jp_fetch, new_kernel, pattern, expected):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\nsales = pd.DataFrame({'a': [1]})\n"
                     "sales_2024 = [1, 2]\ncount = 3")
    snapshot = await variables(jp_fetch, kernel, filter=pattern)
    assert sorted(v["name"] for v in snapshot["variables"]) == expected
    # The filter's count apart; the total stays the namespace's.
    assert (snapshot["matched"], snapshot["total"]) == (len(expected), 3)
    kernels = await get_json(jp_fetch, "kernels")
    summary = next(k for k in kernels["kernels"] if k["kernel_id"] == kernel.kernel_id)
    assert summary["variables_total"] == 3


async def test_changed_in_lists_one_executions_variables_whatever_the_page_and_sort(
    jp_fetch, new_kernel
):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("a = 1\nb = 2\nc = 3\nzz = [1]")
    await kernel.run("b = 20\nyy = 'new'\nzz.append(2)")
    await kernel.run("c = 30")
    snapshot = await variables(jp_fetch, kernel, changed_in="2")
    assert sorted(v["name"] for v in snapshot["variables"]) == ["b", "yy", "zz"]
    assert {v["changed_at"] for v in snapshot["variables"]} == {2}
    assert (snapshot["matched"], snapshot["total"]) == (3, 5)
    # Paged and sorted like any list: the pages go through the matches only.
    first = await variables(jp_fetch, kernel, changed_in="2", sort="name:desc", limit="2")
    rest = await variables(jp_fetch, kernel, changed_in="2", sort="name:desc", limit="2",
                           offset="2")
    assert [v["name"] for v in first["variables"] + rest["variables"]] == ["zz", "yy", "b"]
    assert first["matched"] == rest["matched"] == 3
    assert [v["name"] for v in (await variables(jp_fetch, kernel, changed_in="3"))[
        "variables"]] == ["c"]
    assert (await variables(jp_fetch, kernel, changed_in="99"))["variables"] == []
    # With a filter too: both select.
    both = await variables(jp_fetch, kernel, changed_in="2", filter="y*")
    assert [v["name"] for v in both["variables"]] == ["yy"]
    assert (both["matched"], both["total"]) == (1, 5)


async def test_a_new_name_is_reachable_among_100000(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("globals().update({f'v{i}': i for i in range(100_000)})")
    await kernel.run("wide = list(range(10))")
    # By name it sorts after the first 2,000: the first page does not show it ...
    page = await variables(jp_fetch, kernel, limit="2000")
    assert "wide" not in by_name(page) and page["total"] == page["matched"] == 100_001
    # ... the execution that bound it does, and the last page of the list too.
    changed = await variables(jp_fetch, kernel, changed_in=str(page["execution_count"]))
    assert [v["name"] for v in changed["variables"]] == ["wide"]
    assert changed["variables"][0]["change"] == "new"
    assert (changed["matched"], changed["total"]) == (1, 100_001)
    last = await variables(jp_fetch, kernel, limit="2000", offset="99001")
    assert [v["name"] for v in last["variables"]][-1] == "wide"
    filtered = await variables(jp_fetch, kernel, filter="wid*")
    assert (filtered["matched"], filtered["total"]) == (1, 100_001)
    kernels = await get_json(jp_fetch, "kernels")
    summary = next(k for k in kernels["kernels"] if k["kernel_id"] == kernel.kernel_id)
    assert summary["variables_total"] == 100_001


# -- secrets inside containers ---------------------------------------------------------

NESTED_SECRETS = (
    "from collections import namedtuple\n"
    "from dataclasses import dataclass\n"
    "@dataclass\n"
    "class Db:\n    host: str\n    password: str\n"
    "class Client:\n    def __init__(self):\n        self.url = 'https://x'\n"
    "        self.api_token = 'swordfish'\n"
    "Login = namedtuple('Login', 'user secret')\n"
    "cfg = {'password': 'swordfish', 'depth': 6}\n"
    "deep = {'db': {'conn': {'auth': {'token': 'swordfish'}}}, 'ok': 1}\n"
    "rows = [{'user': 'ann', 'passwd': 'swordfish'}]\n"
    "db = Db('h', 'swordfish')\n"
    "login = Login('ann', 'swordfish')\n"
    "client = Client()\n"
)

#: name → (its list preview, the access keys to the secret in a detail)
NESTED_CASES = {
    "cfg": ("{'password': [masked], 'depth': 6}", ['k:"password"']),
    "deep": ("{'db': {'conn': {'auth': {'token': [masked]}}}, 'ok': 1}",
             ['k:"db"', 'k:"conn"', 'k:"auth"', 'k:"token"']),
    "rows": ("[{'user': 'ann', 'passwd': [masked]}]", ["i:0", 'k:"passwd"']),
    "db": ("Db(host='h', password=[masked])", ["a:password"]),
    "login": ("Login(user='ann', secret=[masked])", ["i:1"]),
    "client": ("Client(url='https://x', api_token=[masked])", ["a:api_token"]),
}


@pytest.mark.parametrize("reveal", [False, True])
async def test_secrets_inside_containers_are_masked_until_revealed(  # type: ignore[no-untyped-def]
        jp_fetch, new_kernel, reveal):
    kernel = await new_kernel()
    await kernel.run(NESTED_SECRETS)
    listed = by_name(await variables(jp_fetch, kernel))
    for name, (preview, path) in NESTED_CASES.items():
        v = listed[name]
        assert "swordfish" not in json.dumps(v), name
        if preview is not None:
            assert v["preview"] == preview and v["masked"] is True, name
            assert v["likely_secret"] and v["secret_reason"] == "a key inside looks like a credential"
        params = {"reveal": "true"} if reveal else {}
        detail = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                                params=params)
        validate(detail, "VariableDetail")
        assert detail["likely_secret"] is True, name
        assert ("swordfish" in json.dumps(detail)) is reveal, name
        assert detail["masked"] is (not reveal), name
        # the secret itself, reached by its access keys: masked whole unless revealed
        child = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                               params={**params, "path": json.dumps(path)})
        validate(child, "VariableDetail")
        assert child["secret_reason"] == "its key looks like a credential", name
        assert child["repr"] == ("'swordfish'" if reveal else "[masked]"), name
    prompt = await get_json(jp_fetch, "kernels", kernel.kernel_id, "prompt",
                            params={"format": "json"})
    assert "swordfish" not in prompt["text"]
    assert "- cfg: dict, 2 keys — masked (a key inside looks like a credential)" in prompt["text"]


# -- what changed inside a value ---------------------------------------------------------

#: (setup, change, name, changes on the row): one cell sets every case up, one changes them.
VALUE_CHANGES = [
    ("config = {'model': 'gbm', 'depth': 6}", "config['depth'] = 8", "config", ["depth 6 → 8"]),
    ("opts = {'a': 1}", "opts['lr'] = 0.1", "opts", ["len 1 → 2", "key lr added"]),
    ("gone = {'a': 1, 'tmp': 2}", "del gone['tmp']", "gone", ["len 2 → 1", "key tmp removed"]),
    ("xs = [1, 2]", "xs.append(3)", "xs", ["len 2 → 3", "appended 3"]),
    ("ys = list(range(100))", "ys.extend(range(5))", "ys", ["len 100 → 105", "5 items appended"]),
    ("zs = [1, 2, 3]", "zs.pop()", "zs", ["len 3 → 2", "1 item removed from the end"]),
    ("ws = [1, 2, 3]", "ws[0] = 9", "ws", ["[0] 1 → 9"]),
    ("tags = {'a'}", "tags.add('b')", "tags", ["len 1 → 2", "item 'b' added"]),
    ("n = 6", "n = 8", "n", ["6 → 8"]),
    ("word = 'alpha'", "word = 'beta'", "word", ["'alpha' → 'beta'"]),
    ("class Run:\n    pass\nrun = Run()\nrun.lr = 0.1", "run.lr = 0.01\nrun.epochs = 3", "run",
     ["lr 0.1 → 0.01", "attribute epochs added"]),
    ("keys = {'password': 'a', 'n': 1}", "keys['password'] = 'b'", "keys",
     ["password [masked] → [masked]"]),
    ("api_key = 'abc'", "api_key = 'xyz'", "api_key", ["[masked] → [masked]"]),
    ("import pandas as pd\ndf = pd.DataFrame({'a': range(5)})", "df = df.iloc[:3]", "df",
     ["rows 5 → 3"]),
]
#: What a table's change may also say: the rows compared within the hook's time budget
#: (issue 29), there or not by the machine's speed — never anything else.
OPTIONAL_CHANGES = {"df": {"2 rows removed from the end"}}


def without_optional(name: str, changes: list[str]) -> list[str]:
    return [c for c in changes if c not in OPTIONAL_CHANGES.get(name, set())]


async def test_value_level_changes_on_the_row_the_timeline_and_the_prompt(  # type: ignore[no-untyped-def]
        jp_fetch, new_kernel):
    kernel = await new_kernel()
    await kernel.run("\n".join(setup for setup, _change, _name, _expected in VALUE_CHANGES))
    await kernel.run("\n".join(change for _setup, change, _name, _expected in VALUE_CHANGES))
    listed = by_name(await variables(jp_fetch, kernel))
    for _setup, _change, name, expected in VALUE_CHANGES:
        assert listed[name]["change"] == "modified", name
        assert without_optional(name, listed[name]["changes"]) == expected, name
        timeline = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                                  "timeline")
        validate(timeline, "Timeline")
        assert without_optional(name, timeline["entries"][-1]["changes"]) == expected, name
    assert "abc" not in json.dumps(listed["api_key"]) and "xyz" not in json.dumps(listed["api_key"])
    prompt = await get_json(jp_fetch, "kernels", kernel.kernel_id, "prompt",
                            params={"format": "json"})
    change = next(line for line in prompt["text"].splitlines() if line.startswith("Changed"))
    assert "config (depth 6 → 8)" in change
