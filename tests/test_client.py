"""KernelStateClient against a real jupyter_server with real kernels, over real HTTP.

The client is synchronous (urllib): each call runs in a thread so that the test server,
which shares this event loop, can answer it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_kernel_state.client import (
    KernelChoiceError,
    KernelStateClient,
    KernelStateClientError,
    pick_kernel,
)

from .kernel_utils import validate

pytestmark = pytest.mark.kernel


@pytest.fixture
def server_url(jp_serverapp, jp_fetch, jp_http_port, jp_base_url) -> str:  # type: ignore[no-untyped-def]
    # (jp_fetch: the test server listens once its HTTP client fixture is up)
    return f"http://127.0.0.1:{jp_http_port}{jp_base_url}"


@pytest.fixture
def client(jp_serverapp, server_url) -> KernelStateClient:  # type: ignore[no-untyped-def]
    return KernelStateClient(server_url, jp_serverapp.identity_provider.token, timeout=30)


async def call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    return await asyncio.to_thread(fn, *args, **kwargs)


async def failure(fn: Any, *args: Any, **kwargs: Any) -> KernelStateClientError:
    with pytest.raises(KernelStateClientError) as info:
        await call(fn, *args, **kwargs)
    return info.value


async def test_kernels_variables_detail_prompt(client, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\nsales = pd.DataFrame({'price': [1.5, 2.5]})\n"
                     "n = 42\nlabel = 'hello'")
    kid = kernel.kernel_id

    kernels = await call(client.kernels)
    assert [k["kernel_id"] for k in kernels] == [kid]
    assert await call(client.latest_kernel) == kid

    page = await call(client.variables, kid)
    validate(page, "Snapshot")
    assert [v["name"] for v in page["variables"]] == ["label", "n", "sales"]
    page = await call(client.variables, kid, limit=1, offset=1, sort="name")
    assert [v["name"] for v in page["variables"]] == ["n"] and page["total"] == 3
    assert [v["name"] for v in (await call(client.variables, kid, filter="sal"))["variables"]] \
        == ["sales"]

    detail = await call(client.variable, kid, "sales")
    validate(detail, "VariableDetail")
    assert [c["name"] for c in detail["columns"]] == ["price"]

    result = await call(client.prompt, kid, budget=800)
    validate(result, "PromptResult")
    text = await call(client.prompt, kid, budget=800, format="text")
    assert text.startswith("Kernel state — python") and len(text) <= 800 and "sales" in text


async def test_images_and_image_bytes(client, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                     "plt.figure(figsize=(1, 1), dpi=30); plt.plot([1]); plt.show()")
    listing = await call(client.images, kernel.kernel_id)
    validate(listing, "ImageList")
    [image] = listing["images"]
    body = await call(client.image, kernel.kernel_id, image["id"])
    assert body.startswith(b"\x89PNG") and len(body) == image["bytes"]
    assert (await call(client.images, kernel.kernel_id, since=listing["next_since"]))[
        "images"] == []


async def test_history(client, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("a = 1")
    await kernel.run("print(a + 1)")
    history = await call(client.history, kernel.kernel_id, limit=1)
    validate(history, "History")
    assert history["total"] == 2
    assert [e["code"] for e in history["entries"]] == ["print(a + 1)"]
    assert history["entries"][0]["output"] == "2\n"


@pytest.mark.parametrize(("name", "status", "message"), [
    ("missing", 404, "Variable not found: missing"),
    ("a/b", 400, "Invalid variable name: 'a/b'"),  # quoted: one segment, not a route
    ("not an identifier", 400, ""),
    ("x?limit=1", 400, ""),
    ("../../kernels", 400, ""),
])
async def test_errors_carry_the_status_and_the_servers_message(  # type: ignore[no-untyped-def]
        client, new_kernel, name, status, message):
    kernel = await new_kernel()
    error = await failure(client.variable, kernel.kernel_id, name)
    assert error.status == status
    assert error.message and message in error.message
    assert str(error).startswith(f"{status}: ")


async def test_a_missing_kernel_is_404(client, jp_serverapp):  # type: ignore[no-untyped-def]
    error = await failure(client.variables, "00000000-0000-0000-0000-000000000000")
    assert error.status == 404 and "Kernel does not exist" in error.message
    error = await failure(client.variables, "no/such kernel")
    assert error.status == 404


async def test_bad_query_values_are_400_with_a_message(client, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    error = await failure(client.variables, kernel.kernel_id, sort="shoe size")
    assert error.status == 400 and "sort" in error.message
    error = await failure(client.prompt, kernel.kernel_id, budget=-1)
    assert error.status == 400 and "budget" in error.message
    with pytest.raises(ValueError, match="detail"):
        client.variables(kernel.kernel_id, detail="everything")


async def test_the_token(server_url, jp_serverapp, monkeypatch):  # type: ignore[no-untyped-def]
    token = jp_serverapp.identity_provider.token
    assert (await failure(KernelStateClient(server_url, "wrong").kernels)).status == 403
    monkeypatch.setenv("JUPYTER_TOKEN", token)
    from_env = KernelStateClient(server_url)
    assert from_env.token == token and token not in repr(from_env)
    assert await call(from_env.kernels) == []
    monkeypatch.delenv("JUPYTER_TOKEN")
    assert (await failure(KernelStateClient(server_url).kernels)).status == 403


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A socket that accepts connections and never answers (not a kernel-state server:
    what the client does when the other end hangs)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    listener.close()


def test_a_server_that_never_answers_times_out(silent_server: str) -> None:
    client = KernelStateClient(silent_server, "t", timeout=0.5)
    with pytest.raises(KernelStateClientError, match=r"within 0\.5 s") as info:
        client.kernels()
    assert info.value.status is None


def test_nothing_listening_is_a_clear_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(KernelStateClientError, match="cannot reach"):
        KernelStateClient(f"http://127.0.0.1:{port}/", "t", timeout=5).kernels()


def test_only_http_urls() -> None:
    with pytest.raises(ValueError, match="not an http"):
        KernelStateClient("file:///etc/passwd")


def test_columns_and_booleans_in_queries() -> None:
    from jupyter_kernel_state.rest import ROUTES

    _columns = ROUTES["rows"].param("columns").kind.encode  # how the client writes them
    assert _columns(range(0, 20)) == "0:20"
    assert _columns([0, 3, 7]) == "0,3,7"
    assert _columns("5:9") == "5:9" and _columns(None) is None
    assert json.loads(json.dumps(_columns(range(0, 10, 2)))) == "0,2,4,6,8"


async def test_rows_windows_sorting_and_refusals(client, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\nimport numpy as np\n"
                     "sales = pd.DataFrame({'price': [3.5, 1.25, 2.0, None], "
                     "'units': [1, 2, 3, 4], 'odd/name': list('abcd')})\n"
                     "gen = (i for i in range(3))\nx = 5")
    kid = kernel.kernel_id
    window = await call(client.rows, kid, "sales")
    validate(window, "RowsWindow")
    assert window["total_rows"] == 4 and window["offset"] == 0
    assert [c["name"] for c in window["columns"]] == ["price", "units", "odd/name"]
    assert window["rows"][3][0] is None  # a missing value is null

    window = await call(client.rows, kid, "sales", offset=1, limit=2, columns=range(1, 3))
    assert [c["name"] for c in window["columns"]] == ["units", "odd/name"]
    assert window["rows"] == [["2", "b"], ["3", "c"]]
    window = await call(client.rows, kid, "sales", columns=[0, 2], sort="price:desc", limit=2)
    assert [c["position"] for c in window["columns"]] == [0, 2]
    assert window["sort"] == "price:desc" and window["rows"] == [["3.5", "a"], ["2.0", "c"]]
    window = await call(client.rows, kid, "sales", columns=[2], sort="odd/name:desc", limit=1)
    assert window["rows"] == [["d"]]  # the column name is quoted in the query

    error = await failure(client.rows, kid, "x")
    assert error.status == 400 and error.message
    error = await failure(client.rows, kid, "gen")
    assert error.status in (400, 409) and error.message
    error = await failure(client.rows, kid, "missing")
    assert error.status == 404
    error = await failure(client.rows, kid, "sales", limit=0)
    assert error.status == 400 and "limit" in error.message


async def test_detail_levels(client, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\n"
                     "sales = pd.DataFrame({'price': [1.5, 2.5], 'units': [1, 2]})\nn = 42")
    kid = kernel.kernel_id
    names = await call(client.variables, kid, detail="names")
    validate(names, "Snapshot")
    assert names["variables"] == [{"name": "n", "type": "int", "kind": "number"},
                                  {"name": "sales", "type": "DataFrame", "kind": "dataframe"}]
    schema = await call(client.variables, kid, detail="schema")
    validate(schema, "Snapshot")
    sales = schema["variables"][1]
    assert sales["shape"] == [2, 2] and "preview" not in sales
    assert sales["columns"] == [{"name": "price", "dtype": "float64"},
                                {"name": "units", "dtype": "int64"}]
    full = await call(client.variables, kid)
    assert "preview" in full["variables"][1]
    assert len(json.dumps(names)) < len(json.dumps(schema)) < len(json.dumps(full))


async def test_secrets_are_masked_unless_revealed(client, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("api_key = 'abc-not-a-pattern-123'\nn = 1")
    kid = kernel.kernel_id
    [listed] = [v for v in (await call(client.variables, kid))["variables"]
                if v["name"] == "api_key"]
    assert listed["likely_secret"] and listed["masked"] and listed["preview"] == "[masked]"
    detail = await call(client.variable, kid, "api_key")
    assert detail["masked"] and "abc-not-a-pattern" not in json.dumps(detail)
    revealed = await call(client.variable, kid, "api_key", reveal=True)
    assert not revealed["masked"] and "abc-not-a-pattern-123" in revealed["repr"]


async def test_timeline_and_delete(client, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    kid = kernel.kernel_id
    await kernel.run("import pandas as pd\nsales = pd.DataFrame({'price': range(100)})")
    await kernel.run("sales = sales[sales.price < 90]")
    await kernel.run("sales['revenue'] = sales.price * 2")
    timeline = await call(client.timeline, kid, "sales")
    validate(timeline, "Timeline")
    assert timeline["name"] == "sales" and timeline["exists"] and timeline["total"] == 3
    changes = [(e["execution_count"], e["change"]) for e in timeline["entries"]]
    assert changes == [(1, "new"), (2, "modified"), (3, "modified")]
    assert any("100 → 90" in c for c in timeline["entries"][1]["changes"])
    assert any("revenue" in c for c in timeline["entries"][2]["changes"])
    assert len((await call(client.timeline, kid, "sales", limit=1))["entries"]) == 1

    assert await call(client.delete_variable, kid, "sales") is None
    assert [v["name"] for v in (await call(client.variables, kid))["variables"]] == []
    after = await call(client.timeline, kid, "sales")
    assert not after["exists"] and after["entries"][-1]["change"] == "removed"
    error = await failure(client.delete_variable, kid, "sales")
    assert error.status == 404 and "sales" in error.message
    error = await failure(client.delete_variable, kid, "not a name")
    assert error.status == 400


async def test_cards_of_a_running_kernels_variables(client, new_kernel):  # type: ignore[no-untyped-def]
    from jupyter_kernel_state.repl import VariableCard, format_cards

    kernel = await new_kernel()
    await kernel.run("import pandas as pd\nsales = pd.DataFrame({'price': [1.5, 2.5]})\n"
                     "password = 'hunter2-but-longer'\ntext = 'abc' * 1000")
    page = await call(client.variables, kernel.kernel_id)
    made = {v["name"]: VariableCard.from_summary(v) for v in page["variables"]}
    assert made["sales"].shape == (2, 1) and made["sales"].kind == "dataframe"
    assert made["text"].total_length == 3000 and made["text"].length_unit == "characters"
    assert made["password"].masked and made["password"].preview == "[masked]"
    assert "hunter2" not in format_cards(made.values())


async def test_kernels_carry_their_notebook_path(  # type: ignore[no-untyped-def]
        client, jp_fetch, new_kernel):
    created = json.loads((await jp_fetch("api", "sessions", method="POST", body=json.dumps({
        "path": "reports/q3.ipynb", "type": "notebook", "name": "q3.ipynb",
        "kernel": {"name": "python3"}}))).body)
    with_session = created["kernel"]["id"]
    without = (await new_kernel()).kernel_id  # a kernel started alone has no path
    listing = await call(client.get, "kernels")
    validate(listing, "KernelList")
    paths = {k["kernel_id"]: k["path"] for k in listing["kernels"]}
    assert paths == {with_session: "reports/q3.ipynb", without: None}
    assert (await call(client.find_kernel, "q3.ipynb"))["kernel_id"] == with_session
    assert (await call(client.find_kernel, "reports/q3.ipynb"))["kernel_id"] == with_session
    assert (await call(client.find_kernel, without))["kernel_id"] == without
    with pytest.raises(KernelChoiceError, match="no running kernel has"):
        await call(client.find_kernel, "q4.ipynb")


def _kernel(kernel_id: str, path: str | None, ran: str | None = None) -> dict[str, Any]:
    return {"kernel_id": kernel_id, "path": path, "last_execution_at": ran}


def test_a_kernel_is_picked_by_id_prefix_or_path() -> None:
    a = _kernel("aa11aa11-0000-4000-8000-000000000001", "reports/sales.ipynb",
                "2026-01-01T10:00:00+00:00")
    b = _kernel("aa22bb22-0000-4000-8000-000000000002", "drafts/sales.ipynb",
                "2026-01-01T11:00:00+00:00")
    c = _kernel("cc33cc33-0000-4000-8000-000000000003", None)
    kernels = [a, b, c]
    assert pick_kernel(kernels, None) is b  # a cell ran there last
    assert pick_kernel([c, a], None) is a
    assert pick_kernel([c], None) is c  # no cell anywhere: the first listed
    for which, kernel in ((a["kernel_id"], a), ("aa1", a), ("AA2", b), ("c", c),
                          ("reports/sales.ipynb", a), ("/drafts/sales.ipynb", b),
                          (" drafts/sales.ipynb ", b)):
        assert pick_kernel(kernels, which) is kernel, which
    for which, rule in (("aa", "id prefix"), ("sales.ipynb", "notebook name")):
        with pytest.raises(KernelChoiceError) as info:
            pick_kernel(kernels, which)
        assert f"{which!r} is the {rule} of 2 kernels: " in str(info.value)
        assert info.value.candidates == [a, b]
        assert "reports/sales.ipynb" in str(info.value) and c["kernel_id"] not in str(info.value)
    for which in ("sales", "ales.ipynb", "", "x" * 100):
        with pytest.raises(KernelChoiceError, match="no running kernel has") as info:
            pick_kernel(kernels, which)
        assert info.value.candidates == kernels
    # A path that looks like an id prefix is still a path.
    d = _kernel("dd44dd44-0000-4000-8000-000000000004", "abc")
    assert pick_kernel([a, d], "abc") is d
    with pytest.raises(KernelChoiceError, match="no kernel is running"):
        pick_kernel([], None)
    many = [_kernel(f"ee{i:06d}-0000-4000-8000-000000000000", None) for i in range(30)]
    with pytest.raises(KernelChoiceError) as info:
        pick_kernel(many, "ee")
    assert str(info.value).count("ee0000") == 10 and "and 20 more" in str(info.value)


async def test_discover_finds_the_running_server_and_its_token(  # type: ignore[no-untyped-def]
        jp_serverapp, server_url, jp_http_port, jp_base_url, tmp_path, monkeypatch):
    import os

    token = jp_serverapp.identity_provider.token
    monkeypatch.delenv("JUPYTER_TOKEN", raising=False)
    monkeypatch.delenv("JUPYTER_SERVER_URL", raising=False)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path))
    with pytest.raises(KernelStateClientError, match="no running Jupyter server found"):
        KernelStateClient.discover()
    # This process stands for the server (a runtime file of a dead pid is not one).
    (tmp_path / f"jpserver-{os.getpid()}.json").write_text(json.dumps({
        "pid": os.getpid(), "url": server_url, "token": token, "port": jp_http_port,
        "base_url": jp_base_url, "root_dir": "/srv/notes"}))
    found = KernelStateClient.discover()
    assert found.url == server_url and found.token == token
    assert found.found_by == (f"found running server, pid {os.getpid()}, serving /srv/notes; "
                              "its token from its runtime file")
    assert await call(found.kernels) == []
    monkeypatch.setenv("JUPYTER_TOKEN", "from-env")
    assert KernelStateClient.discover().token == "from-env"
    assert KernelStateClient.discover(server_url, "given").token == "given"
