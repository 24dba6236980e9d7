"""Every malformed request is a 4xx naming the problem, on every route of the route table.

The bad values are generated from the table itself (``rest/table.py``): for each parameter
of each route, values of the wrong type, just past its bounds, too deep, too long, badly
encoded or empty, in the query, in a large view's JSON body and in the path; against a
real server with a real kernel. No answer may be a 5xx, and the server's log may hold no
traceback. Values a parameter clamps (a page size past its maximum) must be answered.
"""

from __future__ import annotations

import json
import logging
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.rest.kinds import (
    AccessPath,
    Boolean,
    Choice,
    Choices,
    ColumnRange,
    FilterTree,
    Flag,
    Integer,
    Opaque,
    Order,
    SortKeys,
    Text,
    VariableName,
)
from jupyter_kernel_state.rest.params import Param
from jupyter_kernel_state.rest.table import ROUTES, Route
from jupyter_kernel_state.service import Limits

from ..kernel_utils import start_kernel

pytestmark = pytest.mark.kernel

SETUP = """
import pandas as pd
df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None]})
nested = {"k": [1, 2]}
x = 1
"""
#: Valid path values (the variable exists; an image id of the right shape; an execution).
PATH = {"name": "df", "image_id": "0" * 16, "execution": "1"}
#: A table file in the server's root like ``df``, the file routes' valid ``path``.
TABLE_FILE = ("df.csv", "a,b\n1,x\n2,y\n3,\n")


def _valid_query(route: Route) -> dict[str, str]:
    """The query values a route needs besides the one tested: a file route's ``path``."""
    return {"path": TABLE_FILE[0]} if route.path.startswith("files/") else {}


def _condition(**extra: Any) -> str:
    return json.dumps({"column": "a", "op": "eq", "value": 1, **extra})


def _deep(levels: int) -> str:
    return '{"and": [' * levels + _condition() + "]}" * levels


def bad_values(p: Param, limits: Limits) -> Iterator[str]:
    """Text a query string may carry for ``p`` that must be refused (a 4xx)."""
    low, high = (b(limits) if callable(b) else b for b in (p.min, p.max))
    kind = p.kind
    if isinstance(kind, Flag):
        return  # any value is a flag's
    if not isinstance(kind, Text):
        yield "é" * 3
    if isinstance(kind, Integer):
        yield from ("abc", "1.5", "1e3", "0x10", "true", "9" * 5000, "--1", "1 2")
        if low is not None:
            yield str(low - 1)
            yield str(-(10**30))
        if high is not None and not p.clamp:
            yield str(high + 1)
    elif isinstance(kind, Boolean):
        yield from ("maybe", "2", "tru", "yess")
    elif isinstance(kind, Text):
        yield "x" * (int(high) + 1)
        yield "é" * (int(high) + 1)
    elif isinstance(kind, (Choice, Order)):
        yield from ("evil", p.choices[0].upper(), p.choices[0] + ":sideways", ":", "[]")
    elif isinstance(kind, Choices):
        yield from (p.choices[0] + ",secrets", "[1]")
    elif isinstance(kind, AccessPath):
        yield from ("{", "[1]", '"k"', "{}", "[" * 100_000 + "]" * 100_000,
                    json.dumps(["k"] * (int(high) + 1)),
                    json.dumps(["k" * 1025]))
    elif isinstance(kind, ColumnRange):
        width = int(high)
        yield from ("x", "-1", "0:-1", "5:2", f"0:{width + 1}", "1,a", ",",
                    ",".join(str(i) for i in range(width + 1)), "1:2:3", "0:" + "9" * 5000)
    elif isinstance(kind, SortKeys):
        yield from ("a:desc,", ":desc", "[", '{"column": "a"}', '[{"column": "a", "desc": 1}]',
                    '[{"column": ""}]', '[{"column": -1}]', '[{"column": "a", "x": 1}]', "[5]",
                    ",".join(["a"] * (protocol.MAX_SORT_KEYS + 1)), "x" * (int(high) + 1),
                    "[" * 5000 + "]" * 5000)
    elif isinstance(kind, FilterTree):
        items = json.dumps(list(range(protocol.MAX_FILTER_ITEMS + 1)))
        yield from (
            "a>3", "[", "5", '"text"', "[]", "{}", "true", '{"and": []}', '{"or": {}}',
            '{"and": [1]}', _deep(protocol.MAX_FILTER_DEPTH + 1),
            json.dumps({"or": [json.loads(_condition())] * (protocol.MAX_FILTER_CONDITIONS + 1)}),
            _condition(op="like"), _condition(op=[]), _condition(op=None),
            _condition(column=""), _condition(column=-1), _condition(column={"a": 1}),
            _condition(column=True), _condition(value={"x": 1}), _condition(value=[1, 2]),
            _condition(value="x" * (protocol.MAX_FILTER_VALUE + 1)), _condition(case=True),
            _condition(extra=1), '{"column": "a", "op": "eq", "value": NaN}',
            '{"column": "a", "op": "eq", "value": 1e999}',
            json.dumps({"column": "a", "op": "between", "value": [1]}),
            json.dumps({"column": "a", "op": "between", "value": 1}),
            '{"column": "a", "op": "in", "value": ' + items + "}",
            json.dumps({"column": "a", "op": "in", "value": []}),
            json.dumps({"column": "b", "op": "contains", "value": 1}),
            json.dumps({"column": "b", "op": "contains", "value": "x", "case": "yes"}),
            json.dumps({"and": [json.loads(_condition())], "or": []}),
            json.dumps({"column": "zz_missing", "op": "eq", "value": 1}),
            json.dumps({"column": 10**30, "op": "eq", "value": 1}),
            json.dumps({"column": "a", "op": "eq", "value": "not a number"}),
            json.dumps({"column": "b", "op": "regex", "value": "("}),
            "x" * (int(high) + 1), "[" * 50_000 + "]" * 50_000,
        )
    elif isinstance(kind, VariableName):
        yield from ("1x", "a-b", "x" * 257, "a b", "..", ".2x", "if", "zz_missing", "class")
    elif isinstance(kind, Opaque):
        yield from ("nope", "0" * 36, "x" * 2000, "..")


def edge_values(p: Param, limits: Limits) -> Iterator[str]:
    """Text that is valid however odd (bounds, clamped values): answered, never a 5xx."""
    low, high = (b(limits) if callable(b) else b for b in (p.min, p.max))
    yield from ("\u0000", "\t", "\u202e", "\U0001f600", "é" * 3)  # control characters read as empty
    if isinstance(p.kind, Integer):
        yield from (str(v) for v in (low, high) if v is not None)
        if high is not None and p.clamp:
            yield str(high + 1)
            yield "9" * 30
        yield " 7 "
    elif isinstance(p.kind, (Boolean, Flag)):
        yield from ("1", "OFF", " yes ")


def typed_bad_values(p: Param) -> Iterator[Any]:
    """Typed values (a JSON body, an MCP argument) of the wrong type for ``p``."""
    yield from (1.5, {"a": 1}, [[[]]], "\u0000")
    if not isinstance(p.kind, (Boolean, Flag)):
        yield True
    if not isinstance(p.kind, Flag):
        yield -1


def _routes() -> list[Route]:
    return list(ROUTES.values())


async def test_every_malformed_query_is_a_4xx_naming_it(  # type: ignore[no-untyped-def]
        jp_fetch, jp_serverapp, http_server_client, jp_auth_header, jp_base_url, new_kernel):
    kernel = await new_kernel()
    await kernel.run(SETUP)
    (Path(jp_serverapp.root_dir) / TABLE_FILE[0]).write_text(TABLE_FILE[1])
    limits = jp_serverapp.web_app.settings["jupyter_kernel_state"].limits
    errors: list[logging.LogRecord] = []
    watch = _Errors(errors)
    loggers = [logging.getLogger(), logging.getLogger("tornado.application"), jp_serverapp.log]
    for logger in loggers:
        logger.addHandler(watch)
    seen: list[str] = []

    async def send(route: Route, path: dict[str, str], query: str = "",
                   body: bytes | None = None, method: str | None = None) -> tuple[int, str]:
        segments = {k: urllib.parse.quote(v, safe="") for k, v in path.items()}
        url = (f"{jp_base_url.rstrip('/')}/api/kernel-state/"
               + route.path.format(**segments) + (f"?{query}" if query else ""))
        verb = method or route.method
        if body is None and verb in ("POST", "PUT"):
            body = b""
        try:
            response = await http_server_client.fetch(
                url, method=verb, body=body, headers=dict(jp_auth_header), request_timeout=60)
            code, text = response.code, response.body.decode("utf-8", "replace")
        except HTTPClientError as e:
            code = e.code
            text = e.response.body.decode("utf-8", "replace") if e.response else ""
        seen.append(f"{verb} {route.path} {query[:80]} {(body or b'')[:80]!r} → {code}")
        return code, text

    try:
        for route in _routes():
            path = {"kernel_id": kernel.kernel_id, **PATH}
            if route.method == "DELETE":
                path["name"] = "zz_missing"  # never delete what the other cases read
            valid = _valid_query(route)
            for p in route.params:
                for value in bad_values(p, limits):
                    if p.where == "path":
                        code, text = await send(route, {**path, p.name: value})
                        _refused(code, text, route, p, seen)
                        continue
                    query = urllib.parse.urlencode({**valid, p.name: value})
                    if len(query) < 60_000:
                        code, text = await send(route, path, query)
                        _refused(code, text, route, p, seen)
                    if route.large:  # the same value in a JSON body
                        body = json.dumps({**valid, p.name: value}).encode()
                        code, text = await send(route, path, body=body, method="POST")
                        _refused(code, text, route, p, seen)
                for value in edge_values(p, limits):
                    code, _ = await send(route, path,
                                         urllib.parse.urlencode({**valid, p.name: value}))
                    assert code < 500, seen[-1]
            await _bad_encodings(send, route, path, seen)
            if route.large:
                await _bad_bodies(send, route, path, seen)
            if route.body is not None:
                await _bad_notes(send, route, path, seen)
    finally:
        for logger in loggers:
            logger.removeHandler(watch)
    assert not errors, [f"{r.getMessage()[:300]} ({r.exc_info})" for r in errors[:5]]
    assert len(seen) > 500


def _refused(code: int, text: str, route: Route, p: Param, seen: list[str]) -> None:
    """A 4xx whose message names the parameter (a path's kernel: the kernel; a view's
    column the kernel does not have: the column)."""
    assert 400 <= code < 500, seen[-1] + " " + text[:300]
    message = json.loads(text)["message"] if text.startswith("{") else text
    words = {"kernel_id": "Kernel", "image_id": "Image", "name": "name"}
    named = words.get(p.name, p.name)
    assert named in message or (p.name == "name" and code == 404 and "ariable" in message) \
        or (p.name in ("sort", "filter") and "column" in message.lower()), \
        f"{seen[-1]}: {message[:300]}"


async def _bad_encodings(send: Any, route: Route, path: dict[str, str],
                         seen: list[str]) -> None:
    """Invalid UTF-8 and stray escapes in the query string: a 400 or the value left out."""
    for p in route.query_params:
        for raw in ("%ff%fe", "%ED%A0%80", "%", "%zz", "%C0%AF"):
            code, text = await send(route, path, f"{p.name}={raw}")
            assert code < 500, seen[-1] + " " + text[:200]


async def _bad_bodies(send: Any, route: Route, path: dict[str, str], seen: list[str]) -> None:
    """A large view's body: not JSON, not an object, unknown or repeated parameters, typed
    values of the wrong type, not UTF-8, too large."""
    names = [p.name for p in route.query_params]
    cases: list[tuple[bytes, str]] = [
        (b"{", "body"), (b"[1]", "body"), (b'"x"', "body"), (b"\xff\xfe", "body"),
        (b'{"zz_unknown": 1}', "zz_unknown"), (b"[" * 100_000 + b"]" * 100_000, "body"),
        (b" " * (2 << 20), "body"),
    ]
    valid = _valid_query(route)
    for p in route.query_params:
        for value in typed_bad_values(p):
            cases.append((json.dumps({**valid, p.name: value}).encode(), p.name))
    for body, named in cases:
        code, text = await send(route, path, body=body, method="POST")
        assert 400 <= code < 500, seen[-1] + " " + text[:200]
        assert code == 413 or named in text or "column" in text, seen[-1] + " " + text[:200]
    if names:  # given twice: in the query and in the body
        query = urllib.parse.urlencode({names[-1]: "1"})
        code, text = await send(route, path, query, body=json.dumps({names[-1]: 1}).encode(),
                                method="POST")
        assert code == 400 and "twice" in text, seen[-1] + " " + text[:200]


async def _bad_notes(send: Any, route: Route, path: dict[str, str], seen: list[str]) -> None:
    for body in (b"{", b"[1]", b"\xff", b'{"description": 5}', b'{"colour": 1}',
                 b'{"hidden_from_prompt": "yes"}', b'{"description": "' + b"d" * 2001 + b'"}',
                 b"[" * 100_000 + b"]" * 100_000):
        code, text = await send(route, path, body=body, method="PUT")
        assert 400 <= code < 500, seen[-1] + " " + text[:200]


class _Errors(logging.Handler):
    """Collects the log records that carry a traceback or report an unhandled error."""

    def __init__(self, out: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info or "Traceback" in text or "Uncaught exception" in text \
                or "Unhandled error" in text:
            self.out.append(record)


async def test_a_kernel_id_that_is_no_kernel_is_404_on_every_route(jp_fetch):  # type: ignore[no-untyped-def]
    """Not a 500 and not a 400: whichever shape the id has (SECURITY.md rule 5)."""
    await start_kernel(jp_fetch)
    for route in _routes():
        if not any(p.name == "kernel_id" for p in route.params):
            continue
        parts = route.path.format(kernel_id="00000000-0000-0000-0000-000000000000",
                                  name="x", image_id="0" * 16, execution="1").split("/")
        with pytest.raises(HTTPClientError) as e:
            await jp_fetch("api", "kernel-state", *parts, method=route.method,
                           body=b"{}" if route.method in ("POST", "PUT") else None)
        assert e.value.code == 404, f"{route.method} {route.path}: {e.value.code}"
