"""The R probe on the protocol's own spec, its timelines, its previews, and 501s logged as
answers: real IRkernel and ipykernel kernels behind a real server.

The R probe validates every request with one validator driven by ``protocol.OPERATIONS``
(shipped as JSON at install, ``languages/r.spec_json``); here every bounded field of
every operation R supports is sent below, at and above each bound, raw (past the
server's own ``protocol.request``, which would clamp or refuse first) through the probe
channel of both kernels, and the answers compared: refused by both with the same words,
or accepted by both with the same value (clamped where the spec says so).
"""

from __future__ import annotations

import base64
import json
import logging
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_kernel_state.errors import ProbeMissing
from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.service.languages import r

from .kernel_utils import UserClient, get_json, validate
from .test_r_kernel import IR_SPEC_DIR, ir_kernelspec  # noqa: F401 (autouse: the `ir` kernelspec)

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(IR_SPEC_DIR is None,
                       reason="no IRkernel kernelspec `ir` (run scripts/setup.sh)"),
]


# -- the spec, bound by bound ---------------------------------------------------------------

#: JSON integers past 2**53 are doubles in R: high + 1 is high there, so "above" such a
#: bound is sent as twice the bound (still above it for both).
EXACT = 2 ** 53
LIST_ITEMS = {protocol.CHOICES: None, protocol.PATH: "i:1", protocol.POSITIONS: 0}


def r_operations() -> list[str]:
    """The operations of the spec the R probe answers (the others: ``unsupported``)."""
    return sorted(op for op in protocol.OPERATIONS
                  if op in r.SUPPORT.operations or op in ("ping", "snapshot", "detail"))


def _bound(bound: int | str | None, operation: protocol.Operation) -> int | None:
    """A bound, a field's name read as that field's default (what the request leaves)."""
    if isinstance(bound, str):
        return int(operation.field(bound).default)
    return bound


def _values(f: protocol.Field, low: int | None, high: int | None) -> list[tuple[str, int]]:
    out = []
    if low is not None:
        if low > 0 or f.type == protocol.INT:
            out.append(("below", low - 1))
        out.append(("at low", low))
    if high is not None:
        out.append(("at high", high))
        out.append(("above", high + 1 if high < EXACT else 2 * high))
    return out


def _sized(f: protocol.Field, n: int) -> Any:
    if f.type in (protocol.TEXT, protocol.NAME):
        return "x" * n
    item = LIST_ITEMS[f.type]
    if f.type == protocol.CHOICES:
        return [f.choices[i % len(f.choices)] for i in range(n)]
    return [item] * n


def bound_cases() -> list[dict[str, Any]]:
    """Every bounded field of every operation R supports, below, at and above its bounds:
    ``{"request", "field", "kind", "label"}``."""
    cases = []
    for op in r_operations():
        operation = protocol.OPERATIONS[op]
        for f in operation.fields:
            if f.min is None and f.max is None:
                continue
            low, high = _bound(f.min, operation), _bound(f.max, operation)
            for label, n in _values(f, low, high):
                request: dict[str, Any] = {"op": op}
                if "name" in operation.by_name and f.name != "name":
                    request["name"] = "df"
                if f.type == protocol.INT:
                    request[f.name] = n
                    kind = "int"
                else:
                    request[f.name] = _sized(f, n)
                    kind = "size"
                cases.append({"request": request, "field": f.name, "kind": kind,
                              "label": label, "type": f.type})
    return cases


def python_outcome(case: dict[str, Any]) -> dict[str, Any]:
    """What the Python probe's validator (``protocol.check``) makes of a case."""
    try:
        _op, fields = protocol.check(case["request"])
    except protocol.BadRequest as e:
        return {"refused": str(e)}
    value = fields[case["field"]]
    return {"value": value if case["kind"] == "int" else len(value)}


CHECK_CELL = """
base::local({{
  p <- base::getOption("jupyter_kernel_state.probe")
  cases <- jsonlite::fromJSON(base::rawToChar(jsonlite::base64_dec("{payload}")),
                              simplifyVector = FALSE)
  out <- base::lapply(cases, function(case) base::tryCatch({{
    v <- p$check_request(case$request)$fields[[case$field]]
    base::list(value = if (case$kind == "int") v
                       else if (case$type %in% base::c("text", "name")) base::nchar(v)
                       else base::length(v))
  }}, ks_bad_request = function(e) base::list(refused = base::conditionMessage(e))))
  base::cat(p$to_json(out))
}})
"""


async def raw_call(kernel: UserClient, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` as it is, through the kernel's probe channel (installing the probe when
    it is missing) -- past the server's ``protocol.request``, which checks first."""
    state = kernel.state
    support = await state.probe.support()
    if support.needs_execution_count:
        request = {**request, "ec": state.execution_count}
    async with state.probe.lock:
        for _attempt in range(2):
            content, outputs = await state.probe._execute(support.probe_call(request))
            try:
                return support.parse_reply(content, outputs)
            except ProbeMissing:
                await state.probe.install()
    raise AssertionError("the probe could not be installed")


def validator_refusal(op: str, reply: dict[str, Any]) -> str | None:
    """The validator's refusal message (None: the validator accepted the request; a
    handler may still refuse it, which is not the validator's business)."""
    message = str(reply.get("error") or "")
    if reply.get("bad_request") and (message.startswith(("Invalid " + op + " request:",
                                                         "Invalid variable name",
                                                         "Unknown operation"))):
        return message
    return None


async def test_bounds_as_the_python_probe(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    cases = bound_cases()
    ops = {c["request"]["op"] for c in cases}
    assert {"rows", "timeline", "snapshot", "detail"} <= ops and len(cases) > 100
    rk: UserClient = await new_kernel("ir")
    pk: UserClient = await new_kernel("python3")
    await rk.run('df <- data.frame(a = 1:3, b = c("x", "y", "z"))')
    await pk.run('df = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]')

    # The R validator's filled values, all cases in one cell of the R kernel.
    await get_json(jp_fetch, "kernels", rk.kernel_id, "variables")  # the probe installed
    payload = base64.b64encode(json.dumps(cases).encode()).decode()
    await rk.run(CHECK_CELL.format(payload=payload))
    text = "".join(m["content"].get("text", "") for m in rk.outputs
                   if m["msg_type"] == "stream")
    r_outcomes = json.loads(text)
    assert len(r_outcomes) == len(cases)
    clamped = refused = 0
    for case, r_outcome in zip(cases, r_outcomes, strict=True):
        expected = python_outcome(case)
        where = (case["request"]["op"], case["field"], case["label"])
        if case["type"] == protocol.NAME and "refused" in expected:
            # What a name may be differs by language (the server's check_name says it).
            assert "refused" in r_outcome, where
            continue
        if "value" in expected and isinstance(expected["value"], int) \
                and expected["value"] >= EXACT:
            assert float(r_outcome.get("value", -1)) == float(expected["value"]), where
            continue
        assert r_outcome == expected, where
        refused += "refused" in expected
        clamped += "value" in expected and case["kind"] == "int" \
            and expected["value"] != case["request"][case["field"]]
    assert refused > 20 and clamped > 10  # both rules are exercised

    # Through the probe channel of both kernels: refused alike, with the same words.
    for case in cases:
        op = case["request"]["op"]
        where = (op, case["field"], case["label"])
        r_reply = await raw_call(rk, case["request"])
        p_reply = await raw_call(pk, case["request"])
        r_refusal, p_refusal = validator_refusal(op, r_reply), validator_refusal(op, p_reply)
        assert (r_refusal is None) == (p_refusal is None), (where, r_reply, p_reply)
        if case["type"] != protocol.NAME:
            assert r_refusal == p_refusal, where
        assert set(r_reply) >= {"ok", "probe_id"}
        if not r_reply["ok"]:  # one refusal shape: ok false, its kind true, an error
            kinds = [k for k in protocol.REFUSALS if r_reply.get(k) is True]
            assert len(kinds) == 1 and isinstance(r_reply["error"], str), r_reply


async def test_unknown_fields_and_ops_refused_alike(new_kernel):  # type: ignore[no-untyped-def]
    rk: UserClient = await new_kernel("ir")
    requests: list[Any] = [
        {"op": "rows", "name": "df", "bogus": 1},
        {"op": "nope"},
        {"op": "snapshot", "limit": 1.5},
        {"op": "snapshot", "limit": True},
        {"op": "snapshot", "delta": 1},
        {"op": "snapshot", "include": ["private", "nope"]},
        {"op": "snapshot", "sort": "size:up"},
        {"op": "detail", "name": "df", "path": [1]},
        {"op": "rows", "name": "df", "columns": [-1]},
        {"op": "rows", "name": "df", "view": {"sort": [{"column": "a", "desc": "yes"}]}},
        {"op": "rows", "name": "df", "view": {"filter": {"column": "a", "op": "like"}}},
        {"op": "rows", "name": "df", "view": {"filter": {"and": []}}},
        {"op": "rows", "name": "df", "view": {"filter": {"column": "a", "op": "eq",
                                                         "case": True, "value": 1}}},
        {"op": "rows", "name": "df", "view": {"filter": {"column": "a", "op": "in",
                                                         "value": []}}},
        {"op": "rows", "name": "df", "view": {"filter": {"column": "a", "op": "between",
                                                         "value": [1]}}},
        {"op": "rows", "name": "df", "view": {"filter": {"column": "a", "op": "gt",
                                                         "value": {"x": 1}}}},
        {"op": "rows", "name": "df", "view": {"filter": deep_tree(6)}},
        {"op": "rows", "name": "df", "view": {"filter": {"or": [
            {"column": "a", "op": "isnull"}] * (protocol.MAX_FILTER_CONDITIONS + 1)}}},
        {"op": "rows", "name": "df", "view": {"sort": [{"column": "a"}] * (
            protocol.MAX_SORT_KEYS + 1)}},
    ]
    for request in requests:
        reply = await raw_call(rk, request)
        try:
            protocol.check(request)
        except protocol.BadRequest as e:
            assert reply.get("bad_request") is True and reply["error"] == str(e), request
        else:
            raise AssertionError(f"protocol.check accepted {request}")


def deep_tree(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"column": "a", "op": "isnull"}
    for _ in range(depth):
        node = {"and": [node]}
    return node


async def test_an_operation_r_lacks_is_unsupported(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    rk: UserClient = await new_kernel("ir")
    missing = sorted(set(protocol.OPERATIONS) - set(r_operations()))
    assert "digest" in missing
    for op in missing:
        # The names an operation requires (a compare's other table too), so that the R
        # probe's refusal is of the operation, not of a missing field.
        fields = {n: "x" for n in ("name", "with") if n in protocol.OPERATIONS[op].by_name}
        reply = await raw_call(rk, {"op": op, **fields})
        assert reply.get("unsupported") is True and reply["ok"] is False, (op, reply)


# -- timelines --------------------------------------------------------------------------------


async def timeline(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", name,
                             "timeline", params=params)
    validate(payload, "Timeline")
    return payload


async def test_timelines(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel: UserClient = await new_kernel("ir")
    await kernel.run("sales <- data.frame(x = 1:5)\ntmp <- 1")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")  # seen at 1
    await kernel.run("sales$y <- 2")
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    await kernel.run("sales <- sales[-1, ]\nrm(tmp)")
    answer = await timeline(jp_fetch, kernel, "sales")
    assert answer["exists"] is True and answer["complete_after"] is None
    assert [(e["execution_count"], e["change"]) for e in answer["entries"]] == [
        (1, "new"), (2, "modified"), (3, "modified")]
    assert answer["entries"][1]["changes"] == ["column y added"]
    assert answer["entries"][2]["changes"] == ["rows 5 \u2192 4"]
    assert answer["total"] == 3 and answer["limit"] == 20
    last = await timeline(jp_fetch, kernel, "sales", limit="1")
    assert [e["execution_count"] for e in last["entries"]] == [3] and last["total"] == 3
    gone = await timeline(jp_fetch, kernel, "tmp")
    assert gone["exists"] is False
    assert [e["change"] for e in gone["entries"]] == ["new", "removed"]

    response = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables",
                              "sales", method="DELETE")
    assert response.code == 204
    deleted = await timeline(jp_fetch, kernel, "sales")
    assert deleted["exists"] is False and deleted["entries"][-1]["change"] == "removed"
    for name, code in (("never", 404), ("_x", 400)):
        with pytest.raises(HTTPClientError) as info:
            await timeline(jp_fetch, kernel, name)
        assert info.value.code == code
    assert (await timeline(jp_fetch, kernel, "sales", limit="101"))["limit"] == 100  # clamped
    with pytest.raises(HTTPClientError) as info:
        await timeline(jp_fetch, kernel, "sales", limit="0")
    assert info.value.code == 400


def test_timeline_bounds_in_the_probe(tmp_path: Path) -> None:
    """The timeline keeps at most TIMELINE_CELLS executions and says from when it is
    complete (the probe's own functions in Rscript: no kernel needed for the
    bookkeeping). ``b`` comes and goes at every execution."""
    steps = "\n".join(f'  p$observe(c("a", if ({i} %% 2 == 0) "b"), {i}L, 100L)'
                      for i in range(1, 1006))
    script = tmp_path / "timeline.R"
    script.write_text(r.install_code() + "a <- 1\nb <- 2\n"
                      "p <- getOption('jupyter_kernel_state.probe')\n"
                      "local({\n" + steps + "\n  cat(p$to_json(p$timeline_of('b', 3L)))\n})\n")
    out = json.loads(subprocess.run(["Rscript", str(script)], capture_output=True, text=True,
                                    timeout=120, check=True).stdout)
    # 1,005 executions seen, the first 5 dropped: complete after execution 5.
    assert out["complete_after"] == 5
    assert [e["execution_count"] for e in out["entries"]] == [1003, 1004, 1005]
    assert [e["change"] for e in out["entries"]] == ["removed", "new", "removed"]
    assert out["total"] == 1000


# -- previews --------------------------------------------------------------------------------


async def test_previews(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel: UserClient = await new_kernel("ir")
    await kernel.run(
        'big <- strrep("x", 1e7)\n'
        'short <- "abc"\n'
        'l <- list(a = 1, b = "two")\n'
        'u <- list(1, "two", TRUE)\n'
        'mixed <- list(a = 1, 2)\n'
        'long <- as.list(1:20)\n'
        'inner <- list(s = strrep("y", 100))\n'
        'lv <- c("a", strrep("z", 500))\n'
        'fl <- factor(c(strrep("w", 100), "b"))\n')
    payload = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    names = {v["name"]: v for v in payload["variables"]}
    assert names["big"]["truncated"] is True and names["big"]["size"] == 10**7
    assert len(names["big"]["preview"]) <= 200
    assert names["short"]["truncated"] is False and names["short"]["preview"] == '"abc"'
    assert names["l"]["preview"] == 'list(a = 1, b = "two")' and not names["l"]["truncated"]
    assert names["u"]["preview"] == 'list(1, "two", TRUE)' and not names["u"]["truncated"]
    assert names["mixed"]["preview"] == "list(a = 1, 2)"
    assert names["long"]["preview"] == "list(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, \u2026)"
    assert names["long"]["truncated"] is True
    assert names["inner"]["truncated"] is True  # the element was cut
    assert names["lv"]["truncated"] is True and names["fl"]["truncated"] is True
    detail = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", "l")
    assert detail["preview"] == 'list(a = 1, b = "two")'


# -- 501s are answers ----------------------------------------------------------------------


async def test_501_logged_without_headers(jp_fetch, other_language_kernelspec, caplog):  # type: ignore[no-untyped-def]
    from .kernel_utils import start_kernel

    kernel_id = await start_kernel(jp_fetch, other_language_kernelspec)
    caplog.set_level(logging.DEBUG)
    caplog.clear()
    with pytest.raises(HTTPClientError) as info:
        await get_json(jp_fetch, "kernels", kernel_id, "variables")
    assert info.value.code == 501
    records = [rec for rec in caplog.records if "501" in rec.getMessage()
               or "User-Agent" in rec.getMessage()]
    assert records, "the 501 is logged"
    assert not [rec for rec in caplog.records if "User-Agent" in rec.getMessage()]
    assert all(rec.levelno < logging.ERROR and rec.exc_info is None for rec in records)
    access = [rec for rec in records if rec.levelno == logging.INFO]
    assert len(access) == 1 and access[0].getMessage().startswith("501 GET /")
    assert "token" not in access[0].getMessage()
