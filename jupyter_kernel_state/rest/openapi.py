"""The OpenAPI 3.1 document of the REST API, from the route table and the JSON Schema.

`python -m jupyter_kernel_state.rest.openapi > docs/openapi.json`; a test checks that the
committed document is what this prints, so the two never drift apart.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from .params import Param
from .table import EMPTY, IMAGE, NAMESPACE, PROMPT, ROUTES, SNAPSHOT, Route

BASE = f"/{NAMESPACE}"
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml")


def schemas() -> dict[str, Any]:
    """The reply schemas (``$defs`` of ``schema/rest-v1.json``)."""
    raw = resources.files("jupyter_kernel_state").joinpath("schema/rest-v1.json").read_text()
    return json.loads(raw)["$defs"]  # type: ignore[no-any-return]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(name: str, description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": _ref(name)}}}


ERRORS = {
    400: "Invalid input (name, query value, body): the message says what.",
    403: "Not authenticated, not authorized, or missing XSRF token.",
    404: "`Kernel does not exist: <id>`, `Variable not found: <name>`, ...",
}


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", ")")) else ".")


def _parameter(p: Param) -> dict[str, Any]:
    return {"name": p.name, "in": p.where, "required": p.where == "path",
            "description": _sentence(p.description()), "schema": p.schema()}


def _body(route: Route) -> dict[str, Any]:
    """The JSON object body of a large view: its query parameters, typed."""
    properties = {p.name: {**p.kind.body_schema(p), "description": _sentence(p.description())}
                  for p in route.query_params}
    return {"required": False, "content": {"application/json": {"schema": {
        "type": "object", "additionalProperties": False, "properties": properties}}}}


def _responses(route: Route) -> dict[str, Any]:
    if route.serve == EMPTY:
        ok: dict[str, Any] = {"204": {"description": "Done."}}
    elif route.serve == IMAGE:
        ok = {"200": {"description": "The image.", "content": {
            mime: {"schema": {"type": "string", "format": "binary"}} for mime in IMAGE_TYPES}}}
    elif route.serve == PROMPT:
        ok = {"200": {"description": "The prompt: the text itself, or PromptResult with "
                      "`format=json`.", "content": {
                          "text/plain": {"schema": {"type": "string"}},
                          "application/json": {"schema": _ref(route.reply)}}}}
    else:
        ok = {"200": _json(route.reply, f"The {route.reply}.")}
    if route.serve == SNAPSHOT:
        ok["200"]["headers"] = {"ETag": {"schema": {"type": "string"}}}
        ok["304"] = {"description": "Not modified since the given ETag."}
    statuses = (403,) if not route.params else (400, 403, 404)
    errors = {**{code: ERRORS[code] for code in statuses}, **route.errors}
    for code, text in sorted(errors.items()):
        ok[str(code)] = _json("Error", text)
        if code == 503:
            ok[str(code)]["headers"] = {"Retry-After": {"schema": {"type": "integer"}}}
    return ok


def _operation(route: Route, method: str) -> dict[str, Any]:
    permission = f"Needs `{route.permission.action}` on `{route.permission.resource}`"
    if route.permission.xsrf or method != "GET":
        permission += " (and the XSRF token when cookie-authenticated)"
    shown = route.params if method == route.method else [
        p for p in route.params if p.where == "path"]  # a POST twin: the rest in its body
    parameters = [_parameter(p) for p in shown]
    if route.serve == SNAPSHOT:
        parameters.append({"name": "If-None-Match", "in": "header", "required": False,
                           "description": "An ETag from an earlier answer.",
                           "schema": {"type": "string"}})
    operation: dict[str, Any] = {
        "operationId": route.name + ("_post" if method != route.method else ""),
        "summary": route.summary,
        "description": (permission + ". " + route.description).strip(),
        "parameters": parameters,
        "responses": _responses(route),
    }
    if route.body is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": route.body.kind.body_schema(route.body)}}}
    elif route.large and method == "POST":
        operation["requestBody"] = _body(route)
    return operation


def build_openapi() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for route in ROUTES.values():
        item = paths.setdefault(f"{BASE}/{route.path}", {})
        item[route.method.lower()] = _operation(route, route.method)
        if route.large and route.method == "GET":
            item["post"] = _operation(route, "POST")
    text = json.dumps(schemas()).replace("#/$defs/", "#/components/schemas/")
    return {
        "openapi": "3.1.0",
        "info": {"title": "jupyter_kernel_state REST API", "version": "1",
                 "description": "Variables, images and recent steps of running Jupyter "
                 "kernels. Paths are relative to the server's base URL. Authenticate as for "
                 "any Jupyter server API (token header or cookie + X-XSRFToken)."},
        "paths": paths,
        "components": {"schemas": json.loads(text)},
    }


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(build_openapi(), indent=1, ensure_ascii=False))
