"""The contract stays one: OpenAPI built from the route table and the schema, every route
documented and authenticated."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_kernel_state.rest.handlers import build_handlers
from jupyter_kernel_state.rest.openapi import build_openapi

from .kernel_utils import start_kernel

DOCS = Path(__file__).parent.parent / "docs" / "openapi.json"
VERBS = ("get", "put", "post", "delete", "patch")


def _openapi_path(pattern: str) -> str:
    return re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", pattern)


def test_committed_openapi_is_current() -> None:
    assert json.loads(DOCS.read_text()) == build_openapi(), (
        "run: python -m jupyter_kernel_state.rest.openapi > docs/openapi.json"
    )


def test_every_route_and_verb_is_documented() -> None:
    paths = build_openapi()["paths"]
    for pattern, handler in build_handlers():
        documented = paths[_openapi_path(pattern)]
        for verb in VERBS:
            if verb in vars(handler):
                assert verb in documented, f"{verb.upper()} {pattern} is not documented"


@pytest.mark.kernel
async def test_every_route_and_verb_refuses_unauthenticated_calls(jp_fetch):  # type: ignore[no-untyped-def]
    kernel_id = await start_kernel(jp_fetch)
    values = {"kernel_id": kernel_id, "name": "x", "image_id": "0" * 16, "execution": "1"}
    for pattern, handler in build_handlers():
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: values[m.group(1)], pattern)
        for verb in VERBS:
            if verb not in vars(handler):
                continue
            body = "{}" if verb in ("put", "post", "patch") else None
            with pytest.raises(HTTPClientError) as e:
                await jp_fetch(path.lstrip("/"), method=verb.upper(), body=body,
                               headers={"Authorization": ""})
            assert e.value.code == 403, f"{verb.upper()} {pattern} answered {e.value.code}"
