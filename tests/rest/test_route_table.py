"""The route table (``rest/table.py``) and what is made from it, without a server: one
reading of every parameter whoever sends it, the protocol's own vocabulary, the server's
settings as bounds, and the frontend's generated types kept current."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from jupyter_kernel_state.errors import InvalidRequest
from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.rest import ROUTES, parse
from jupyter_kernel_state.rest.handlers import build_handlers
from jupyter_kernel_state.rest.openapi import build_openapi, schemas
from jupyter_kernel_state.rest.typescript import OUTPUT, generate
from jupyter_kernel_state.service import Limits, RowsOptions

from .test_bad_queries import bad_values, edge_values, typed_bad_values

ROOT = Path(__file__).parent.parent.parent
LIMITS = Limits()


def test_committed_typescript_is_current() -> None:
    assert (ROOT / OUTPUT).read_text(encoding="utf-8") == generate(), (
        "run: jlpm generate:rest (python -m jupyter_kernel_state.rest.typescript > "
        f"{OUTPUT})")


def test_each_route_is_declared_once_with_its_reply_and_segments() -> None:
    verbs = [(r.method, r.path) for r in ROUTES.values()]
    assert len(verbs) == len(set(verbs))
    defs = schemas()
    for route in ROUTES.values():
        assert route.reply in ("", *defs), route.name
        segments = set(re.findall(r"\{(\w+)\}", route.path))
        assert segments == {p.name for p in route.params if p.where == "path"}, route.name
        assert route.summary and route.permission.action in ("read", "execute")
        # every route that may run probe code needs execute and checks XSRF on GET; so
        # do the routes that read a file's data (as jupyter_server's /files does)
        assert route.permission.xsrf == (route.permission.action == "execute"
                                         or route.permission.resource == "contents")
    handled = {pattern for pattern, _ in build_handlers()}
    assert len(handled) == len({r.path for r in ROUTES.values()})


def test_the_protocols_fields_are_the_edges_vocabulary() -> None:
    snapshot = ROUTES["variables"]
    assert snapshot.param("include").choices == protocol.INCLUDE_GROUPS
    assert snapshot.param("sort").choices == protocol.SORTS
    assert snapshot.param("filter").max == protocol.MAX_FILTER_CHARS
    assert ROUTES["variable"].param("path").max == protocol.MAX_PATH
    assert ROUTES["code"].param("syntax").choices == protocol.SYNTAXES
    assert ROUTES["timeline"].param("limit").max == protocol.MAX_ENTRIES
    assert ROUTES["rows"].param("offset").max == protocol.MAX_ROWS_OFFSET


def test_server_settings_bound_the_values_and_are_named_in_the_docs() -> None:
    small = replace(LIMITS, max_page_size=50, page_size=20, rows_max_rows=10)
    assert parse("variables", {"limit": "100"}, small).limit == 50
    assert parse("variables", {}, small).limit == 20
    assert parse("rows", {"name": "df"}, small).limit == 10  # the default, within the cap
    parameters = build_openapi()["paths"]["/api/kernel-state/kernels/{kernel_id}/variables"][
        "get"]["parameters"]
    limit = next(p for p in parameters if p["name"] == "limit")
    assert "`max_page_size`" in limit["description"] and "`page_size`" in limit["description"]


def test_text_and_typed_values_mean_the_same() -> None:
    condition = {"column": "price", "op": "gt", "value": 10}
    as_text = parse("rows", {"name": "df", "offset": "5", "columns": "0,2",
                             "sort": "price:desc", "filter": json.dumps(condition)}, LIMITS)
    typed = parse("rows", {"name": "df", "offset": 5, "columns": [0, 2],
                           "sort": [{"column": "price", "desc": True}], "filter": condition},
                  LIMITS)
    assert as_text == typed
    assert isinstance(typed, RowsOptions) and typed.columns == (0, 2)
    assert typed.view.to_json() == {"sort": [{"column": "price", "desc": True}],
                                    "filter": condition}


CASES = [(route.name, p) for route in ROUTES.values() for p in route.params]


@pytest.mark.parametrize(("route", "param"), CASES,
                         ids=[f"{route}-{p.name}" for route, p in CASES])
def test_every_bad_value_is_an_invalid_request_and_nothing_else(route: str, param: Any) -> None:
    """What a query, a JSON body or an MCP tool may send: refused with a message, never
    another exception (the probe's own checks come later, on a real kernel)."""
    base = {"kernel_id": "k", "name": "df", "image_id": "0" * 16}
    values = [*bad_values(param, LIMITS), *typed_bad_values(param), *edge_values(param, LIMITS)]
    for value in values:
        try:
            parse(route, {**base, param.name: value}, LIMITS)
        except InvalidRequest as e:
            assert e.message and e.status == 400
