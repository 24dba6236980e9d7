"""Variables of R kernels: a real IRkernel behind a real server, the same REST contract.

Needs Debian's r-base-core and r-cran-irkernel and the `ir` kernelspec in the venv
(scripts/setup.sh installs them); skipped with that reason when they are missing.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from jupyter_client.kernelspec import KernelSpecManager
from tornado.httpclient import HTTPClientError

from .conftest import BOTH_BACKENDS, EVERY_GATEWAY
from .kernel_utils import UserClient, get_json, validate

# Found before the test server isolates its Jupyter paths (the venv's share/jupyter).
IR_SPEC_DIR = KernelSpecManager().find_kernel_specs().get("ir")
pytestmark = [
    pytest.mark.kernel,
    EVERY_GATEWAY,
    pytest.mark.skipif(IR_SPEC_DIR is None,
                       reason="no IRkernel kernelspec `ir` (run scripts/setup.sh)"),
]
EVERYTHING = "private,modules,callables,classes"

FAMILIES = """
n <- 42
s <- "hello"
flag <- TRUE
v <- c(1.5, 2.5, 3.5)
f <- factor(c("lo", "hi", "lo"), levels = c("lo", "hi"))
l <- list(a = 1, b = "x", inner = list(p = 1:3, q = "deep"))
u <- list(1, "two")
df <- data.frame(a = 1:3, b = c("x", "y", "z"), stringsAsFactors = FALSE)
m <- matrix(1:6, nrow = 2)
arr <- array(0, dim = c(2, 3, 4))
fn <- function(a, b = 2) a + b
e <- new.env()
.hidden <- 1
"""


@pytest.fixture(autouse=True)
def ir_kernelspec(kernels_data_dir: Path) -> None:
    """The `ir` kernelspec where the kernels run: this server's data dir, or the gateway's."""
    target = kernels_data_dir / "kernels" / "ir"
    if not target.exists() and IR_SPEC_DIR is not None:
        shutil.copytree(IR_SPEC_DIR, target)


async def r_kernel(new_kernel) -> UserClient:  # type: ignore[no-untyped-def]
    kernel: UserClient = await new_kernel("ir")
    return kernel


async def variables(jp_fetch, kernel, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", params=params)
    validate(payload, "Snapshot")
    return payload


async def detail(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                             params=params)
    validate(payload, "VariableDetail")
    return payload


def by_name(snapshot):  # type: ignore[no-untyped-def]
    return {v["name"]: v for v in snapshot["variables"]}


async def user_output(kernel: UserClient, code: str) -> str:
    """What a user cell printed (its stream output)."""
    reply = await kernel.run(code)
    assert reply["status"] == "ok", reply
    return "".join(m["content"].get("text", "") for m in kernel.outputs
                   if m["msg_type"] == "stream")


@BOTH_BACKENDS
async def test_snapshot_families(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run(FAMILIES)
    snapshot = await variables(jp_fetch, kernel)
    assert snapshot["language"] == "R"
    names = by_name(snapshot)
    assert set(names) == {"n", "s", "flag", "v", "f", "l", "u", "df", "m", "arr"}
    assert snapshot["total"] == 10 and snapshot["execution_count"] == 1
    assert names["n"]["kind"] == "number" and names["n"]["preview"] == "42"
    assert names["s"]["kind"] == "string" and names["s"]["size"] == 5
    assert names["flag"]["kind"] == "boolean" and names["flag"]["preview"] == "TRUE"
    assert names["v"]["kind"] == "series" and names["v"]["dtype"] == "double"
    assert names["v"]["shape"] == [3] and names["v"]["preview"] == "1.5 2.5 3.5"
    assert isinstance(names["v"]["nbytes"], int)
    assert names["f"]["type"] == "factor" and names["f"]["dtype"] == "factor"
    assert names["f"]["preview"].startswith('Factor w/ 2 levels "lo","hi":')
    assert names["l"]["kind"] == "mapping" and names["l"]["size"] == 3
    assert names["l"]["nbytes"] is None  # object.size is O(n) for lists of lists
    assert names["u"]["kind"] == "sequence"
    assert names["df"]["kind"] == "dataframe" and names["df"]["shape"] == [3, 2]
    assert names["df"]["preview"] == "3×2 — a:integer, b:character"
    assert names["m"]["kind"] == "array" and names["m"]["shape"] == [2, 3]
    assert names["m"]["type"] == "matrix" and names["m"]["dtype"] == "integer"
    assert names["arr"]["shape"] == [2, 3, 4] and names["arr"]["dtype"] == "double"
    assert all(v["change"] == "new" and v["changed_at"] == 1 for v in snapshot["variables"])

    everything = by_name(await variables(jp_fetch, kernel, include=EVERYTHING))
    assert everything["fn"]["kind"] == "callable"
    assert everything["fn"]["preview"] == "function (a, b = 2)"
    assert everything["e"]["kind"] == "module" and everything[".hidden"]["kind"] == "number"
    only = by_name(await variables(jp_fetch, kernel, filter="data.frame"))
    assert set(only) == {"df"}
    page = await variables(jp_fetch, kernel, sort="size", limit=2)
    assert [v["name"] for v in page["variables"]] == ["arr", "m"] and page["total"] == 10

    kernels = await get_json(jp_fetch, "kernels")
    validate(kernels, "KernelList")
    entry = next(k for k in kernels["kernels"] if k["kernel_id"] == kernel.kernel_id)
    assert entry["language"] == "R" and entry["variables_total"] == 10


async def test_tibble(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    have = await user_output(kernel, 'cat(requireNamespace("tibble", quietly = TRUE))')
    if have.strip() != "TRUE":
        pytest.skip("r-cran-tibble is not installed")
    await kernel.run('tb <- tibble::tibble(x = 1:4, y = letters[1:4], when = Sys.Date() + 0:3)')
    tb = by_name(await variables(jp_fetch, kernel))["tb"]
    assert tb["type"] == "tbl_df" and tb["kind"] == "dataframe" and tb["shape"] == [4, 3]
    assert tb["preview"] == "4×3 — x:integer, y:character, when:Date"
    body = await detail(jp_fetch, kernel, "tb")
    assert [c["dtype"] for c in body["columns"]] == ["integer", "character", "Date"]
    assert body["head"]["rows"][0][:2] == ["1", '"a"'] and len(body["head"]["rows"]) == 4
    assert "tibble" in body["repr"] or "A tibble" in body["repr"]


async def test_detail_and_drill_down(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run(FAMILIES)
    frame = await detail(jp_fetch, kernel, "df")
    assert frame["columns"] == [{"name": "a", "dtype": "integer"},
                                {"name": "b", "dtype": "character"}]
    assert frame["columns_total"] == 2 and frame["head"]["index"] == ["1", "2", "3"]
    assert frame["head"]["rows"] == [["1", '"x"'], ["2", '"y"'], ["3", '"z"']]
    assert "a b" in frame["repr"].replace("  ", " ")

    listing = await detail(jp_fetch, kernel, "l")
    assert listing["keys"] == ["a", "b", "inner"] and listing["children_total"] == 3
    inner = next(c for c in listing["children"] if c["label"] == "inner")
    child = await detail(jp_fetch, kernel, "l", path=json.dumps([inner["access_key"]]))
    assert child["kind"] == "mapping" and child["keys"] == ["p", "q"]
    deeper = next(c for c in child["children"] if c["label"] == "p")
    leaf = await detail(jp_fetch, kernel, "l",
                        path=json.dumps([inner["access_key"], deeper["access_key"]]))
    assert leaf["preview"] == "1 2 3" and leaf["dtype"] == "integer"

    factor = await detail(jp_fetch, kernel, "f")
    assert factor["keys"] == ["lo", "hi"] and factor["keys_total"] == 2
    fn = await detail(jp_fetch, kernel, "fn")
    assert fn["signature"] == "function (a, b = 2)" and "a + b" in fn["repr"]
    matrix = await detail(jp_fetch, kernel, "m")
    assert matrix["head"]["rows"][0] == ["1", "3", "5"]

    for name, path, code, message in [
        ("nope", None, 404, "Variable not found: nope"),
        ("l", '["i:99"]', 404, "Child not found"),
        ("l", '["x:1"]', 404, "Child not found"),
        ("if", None, 400, "R name"),
        ("_x", None, 400, "not an R name"),
        ("a b", None, 400, "Invalid variable name"),
    ]:
        params = {"path": path} if path else {}
        with pytest.raises(HTTPClientError) as info:
            await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                           params=params)
        assert info.value.code == code, (name, path)
        assert message in json.loads(info.value.response.body)["message"]


async def test_change_tracking(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run('a <- 1:3\nb <- "text"\ntmp <- 1\nd <- data.frame(x = 1:5)')
    first = await variables(jp_fetch, kernel)
    await kernel.run("a <- c(a, 4L)\nc2 <- 3.5\nrm(tmp)\nd$y <- 2\nd <- d[-1, ]")
    second = await variables(jp_fetch, kernel)
    names = by_name(second)
    assert names["a"]["change"] == "modified" and names["a"]["changed_at"] == 2
    assert "len 3 → 4" in names["a"]["changes"]
    assert names["d"]["change"] == "modified"
    assert {"rows 5 → 4", "column y added"} <= set(names["d"]["changes"])
    assert names["c2"]["change"] == "new" and names["b"]["change"] == "unchanged"
    assert names["b"]["changed_at"] == 1
    assert second["removed"] == ["tmp"]
    touched = await variables(jp_fetch, kernel, changed_in="2")
    assert sorted(by_name(touched)) == ["a", "c2", "d"]
    assert touched["matched"] == 3 and touched["total"] == len(second["variables"])
    await kernel.run("z <- 1")
    since_first = by_name(await variables(jp_fetch, kernel, since=first["generation"]))
    assert since_first["a"]["change"] == "modified" and since_first["z"]["change"] == "new"
    assert since_first["b"]["change"] == "unchanged"


async def test_prompt_lists_r_variables(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run(FAMILIES)
    response = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "prompt")
    text = response.body.decode()
    assert text.startswith("Kernel state — R.") and "As of execution 1: " in text
    assert "- df: data.frame 3×2 — a:integer, b:character" in text
    assert "- f: factor[factor] len 3" in text and "- n: numeric" in text


@pytest.mark.slow
async def test_hostile_objects(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run(
        'ev <- structure(list(1), class = "evil")\n'
        "format.evil <- function(x, ...) repeat {}\n"
        "print.evil <- function(x, ...) repeat {}\n"
        'setClass("Bad", representation(v = "numeric"))\n'
        'setMethod("show", "Bad", function(object) stop("no show for you"))\n'
        'bad <- new("Bad", v = 1)\n'
        'huge <- rep(strrep("x", 50), 1e7)\n'
        "ok <- 1\n"
    )
    started = time.monotonic()
    snapshot = await variables(jp_fetch, kernel)
    elapsed = time.monotonic() - started
    names = by_name(snapshot)
    assert names["ev"]["error"] == "format timed out" and names["ev"]["preview"] == "<evil object>"
    assert names["bad"]["error"].startswith("show() raised simpleError: no show for you")
    assert names["bad"]["preview"] == '<S4 object of class "Bad">'
    assert names["huge"]["size"] == 10**7 and names["huge"]["truncated"]
    assert len(names["huge"]["preview"]) <= 200 and names["huge"]["nbytes"] is None
    assert names["ok"]["preview"] == "1"
    assert elapsed < 3, elapsed
    shown = await detail(jp_fetch, kernel, "bad")
    assert "show" in shown["repr"] and shown["children"][0]["label"] == "@v"
    evil = await detail(jp_fetch, kernel, "ev")
    assert "timed out" in evil["repr"]
    big = await detail(jp_fetch, kernel, "huge", max_chars="5000")
    assert len(big["repr"]) <= 5000 and big["repr_truncated"]
    assert (await user_output(kernel, "cat(ok + 1)")) == "2"  # the kernel is still usable


@BOTH_BACKENDS
async def test_no_side_effects(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run(FAMILIES + "42")  # a visible value: .Last.value is 42
    before = await user_output(kernel, "cat(ls(all.names = TRUE), sep = ',')")
    # ls() ran as a cell: .Last.value is now the NULL of cat(); set it again.
    await kernel.run("42")
    history = await get_json(jp_fetch, "kernels", kernel.kernel_id, "history")
    generation = kernel.state.tracker.generation
    await kernel.drain_iopub()

    await variables(jp_fetch, kernel, include=EVERYTHING)
    await variables(jp_fetch, kernel, sort="type")
    await detail(jp_fetch, kernel, "df")
    await detail(jp_fetch, kernel, "l", path='["i:3"]')
    assert kernel.state.probe_requests >= 4
    seen = await kernel.drain_iopub()
    # The notebook's client receives our requests' messages (IOPub is a broadcast), but
    # every one of them has our request as its parent, never one of the user's.
    assert seen and all(m["parent_header"].get("username") == "jupyter_kernel_state"
                        for m in seen)
    assert not [m for m in seen if m["msg_type"] == "stream"]

    assert (await user_output(kernel, "cat(deparse(.Last.value))")) == "42"
    after = await user_output(kernel, "cat(ls(all.names = TRUE), sep = ',')")
    assert after == before
    assert kernel.state.tracker.generation == generation + 2  # the two cells above only
    later = await get_json(jp_fetch, "kernels", kernel.kernel_id, "history")
    assert later["total"] == history["total"] + 2
    assert not any("jupyter_kernel_state" in e["code"] for e in later["entries"])


async def test_restart_reinstalls_probe(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run("x <- 1")
    first = await variables(jp_fetch, kernel)
    await kernel.restart(jp_fetch)
    await kernel.run("y <- 2")
    second = await variables(jp_fetch, kernel)
    assert second["epoch"] > first["epoch"]
    assert set(by_name(second)) == {"y"}


ROWS_R = """
n_rows <- 100000L
sales <- data.frame(price = (seq_len(n_rows) %% 997) / 10, region = factor(c("north", "south",
  "east", "west")[(seq_len(n_rows) - 1L) %% 4L + 1L]),
  day = as.Date("2024-10-02") + (seq_len(n_rows) %% 30L), stringsAsFactors = FALSE)
sales$price[6] <- NA
m <- matrix(c(1.5, 2, 3, 4), nrow = 2, dimnames = list(c("r1", "r2"), c("a", "b")))
v <- c(b = 2, a = 1)
l <- list(1, 2)
"""


async def rows(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name, "rows",
                             params=params)
    validate(payload, "RowsWindow")
    return payload


@BOTH_BACKENDS
async def test_rows_and_delete(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await r_kernel(new_kernel)
    await kernel.run(ROWS_R)
    first = await rows(jp_fetch, kernel, "sales", limit=3)
    assert first["total_rows"] == 100_000 and first["shape"] == [100_000, 3]
    assert [c["name"] for c in first["columns"]] == ["price", "region", "day"]
    assert [c["dtype"] for c in first["columns"]] == ["numeric", "factor", "Date"]
    assert first["rows"][0] == ["0.1", "north", "2024-10-03"] and first["index"][0] == "1"
    last = await rows(jp_fetch, kernel, "sales", offset=99_999, limit=5)
    assert last["index"] == ["100000"] and len(last["rows"]) == 1
    assert (await rows(jp_fetch, kernel, "sales", offset=5, limit=1))["rows"][0][0] is None
    top = await rows(jp_fetch, kernel, "sales", sort="price:desc", limit=2, columns="0")
    assert top["rows"] == [["99.6"], ["99.6"]] and top["sort"] == "price:desc"
    north = await rows(jp_fetch, kernel, "sales", limit=2, columns="1", filter=json.dumps(
        {"column": "region", "op": "eq", "value": "north"}))
    assert north["filtered_rows"] == 25_000 and north["rows"] == [["north"], ["north"]]
    matrix = await rows(jp_fetch, kernel, "m")
    assert matrix["index"] == ["r1", "r2"] and matrix["rows"] == [["1.5", "3"], ["2", "4"]]
    vector = await rows(jp_fetch, kernel, "v", sort="value")
    assert vector["index"] == ["a", "b"] and vector["kind"] == "series"
    with pytest.raises(HTTPClientError) as info:
        await rows(jp_fetch, kernel, "l")
    assert info.value.code == 400
    assert "l is a list: rows show data.frames" in json.loads(info.value.response.body)["message"]

    response = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables",
                              "m", method="DELETE")
    assert response.code == 204
    listed = await variables(jp_fetch, kernel)
    assert "m" not in by_name(listed) and listed["removed"] == ["m"]
    assert "FALSE" in await user_output(kernel, "print(exists('m'))")
