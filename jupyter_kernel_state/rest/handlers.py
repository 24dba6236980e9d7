"""The handlers of the route table: one class per path, its verbs generated from the routes.

Each verb is authenticated (``@web.authenticated`` outermost) and authorized with its
route's permission; a GET that runs probe code checks the XSRF token when the request is
cookie-authenticated (tornado checks every other verb). Then it parses (``table.parse``),
calls one service method and writes the reply with one of a few writers: JSON, a snapshot
with its ETag (304 when unchanged), image bytes, the prompt, or nothing (204).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web

from ..errors import InvalidRequest, KernelStateError
from ..service import KernelStateService
from .table import EMPTY, IMAGE, NAMESPACE, PROMPT, ROUTES, SNAPSHOT, Route, parse

SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
#: A view's JSON body at most: a filter of 200,000 characters and a sort of 12,000, twice
#: over for the whitespace a person may write.
MAX_BODY_BYTES = 1 << 20
_SEGMENTS = {"kernel_id": r"(?P<kernel_id>[^/]+)", "name": r"(?P<name>[^/]+)",
             "image_id": r"(?P<image_id>[^/]+)", "execution": r"(?P<execution>[^/]+)"}


class KernelStateHandler(APIHandler):
    """The routes of one path: a verb method per route (``build_handlers``)."""

    auth_resource = "kernels"

    @property
    def service(self) -> KernelStateService:
        return self.settings["jupyter_kernel_state"]  # type: ignore[no-any-return]

    async def serve(self, route: Route, path_args: dict[str, str]) -> None:
        if route.permission.xsrf and self.request.method == "GET":
            self.check_xsrf_cookie()
        args: dict[str, Any] = {p.name: self.get_query_argument(p.name, None)
                                for p in route.query_params}
        if self.request.method in ("POST", "PUT") and (route.large or route.body):
            args.update(self._body(route, args))
        args.update(path_args)
        query = self._answer(parse, route, args, self.service.limits)
        result = self._answer(route.call, self.service, path_args.get("kernel_id", ""), query)
        if inspect.isawaitable(result):
            try:
                result = await result
            except KernelStateError as e:
                self._raise(e)
        await _WRITERS.get(route.serve, _write_json)(self, query, result)

    def _body(self, route: Route, query: dict[str, Any]) -> dict[str, Any]:
        """The request body's values: the body itself for a route with one, else the
        query parameters of a large view as a JSON object (each given once)."""
        if len(self.request.body) > MAX_BODY_BYTES:
            raise web.HTTPError(413, f"The body is larger than {MAX_BODY_BYTES:,} bytes")
        if route.body is not None:
            return {route.body.name: self.request.body}
        if not self.request.body.strip():
            return {}
        try:
            body = json.loads(self.request.body)
        except (ValueError, RecursionError):
            body = None
        names = [p.name for p in route.query_params]
        if not isinstance(body, dict):
            self._raise(InvalidRequest(f"The body must be a JSON object of the query "
                                       f"parameters ({', '.join(names)})"))
        unknown = sorted(str(k)[:40] for k in body if k not in names)
        twice = sorted(k for k in body if query.get(k) is not None)
        if unknown or twice:
            self._raise(InvalidRequest(
                f"The body has no parameter {unknown[0]!r} ({', '.join(names)})" if unknown
                else f"{twice[0]} is given twice: in the query and in the body"))
        return dict(body)

    def _answer(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` with its domain errors turned into JSON HTTP errors."""
        try:
            return fn(*args)
        except KernelStateError as e:
            self._raise(e)

    def _raise(self, e: KernelStateError) -> Any:
        self._retry_after = e.retry_after
        self._error_message = e.message
        raise web.HTTPError(e.status, e.message) from e  # tornado escapes % for its log

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        # send_error() clears headers before calling us: set Retry-After here.
        retry_after = getattr(self, "_retry_after", None)
        if retry_after is not None:
            self.set_header("Retry-After", str(retry_after))
        message = getattr(self, "_error_message", None)
        if message is None:
            super().write_error(status_code, **kwargs)
            return
        # Our own message as written (jupyter_server would show tornado's %-escaped copy).
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"message": message, "reason": None}))

    def _log(self) -> None:
        """A 501 is an answer (this kernel's language has no probe, or its probe not that
        operation yet), not a fault of the server: one info line, without the request's
        headers that jupyter_server logs at error level for a 5xx (tornado's warning with
        the message stays). Every other status is logged as usual."""
        if self.get_status() != 501:
            super()._log()
            return
        self.log.info("501 %s %s %.2fms", self.request.method, self.request.path,
                      1000.0 * self.request.request_time())
        # The request metric jupyter_server's log function records (when it is asked to).
        log_function = self.settings.get("log_function")
        if getattr(log_function, "keywords", {}).get("record_prometheus_metrics", False):
            from jupyter_server.prometheus.log_functions import prometheus_log_method

            prometheus_log_method(self)  # type: ignore[no-untyped-call]

    def write_json(self, payload: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))


# --- the writers ----------------------------------------------------------------------


async def _write_json(handler: KernelStateHandler, query: Any, payload: Any) -> None:
    handler.write_json(payload)


async def _write_empty(handler: KernelStateHandler, query: Any, result: Any) -> None:
    handler.set_status(204)
    handler.finish()


def _etags(header: str) -> set[str]:
    return {part.strip().removeprefix("W/") for part in header.split(",") if part.strip()}


async def _write_snapshot(handler: KernelStateHandler, query: Any, response: Any) -> None:
    handler.set_header("ETag", response.etag)
    handler.set_header("Cache-Control", "no-cache")  # revalidate with If-None-Match
    if response.etag in _etags(handler.request.headers.get("If-None-Match", "")):
        handler.set_status(304)
        handler.finish()
        return
    handler.finish(response.body(), set_content_type="application/json; charset=UTF-8")


async def _write_image(handler: KernelStateHandler, query: Any, image: Any) -> None:
    """Raw image bytes. Kernel SVG is untrusted: sandboxed and never sniffed."""
    handler.set_header("Content-Type", image.mime)
    handler.set_header("X-Content-Type-Options", "nosniff")
    handler.set_header("Cache-Control", "private, max-age=3600")
    handler.set_header("ETag", f'"{image.sha256}"')
    if image.mime == "image/svg+xml":
        handler.set_header("Content-Security-Policy", SVG_CSP)
    if query["download"]:
        extension = image.mime.split("/")[1].split("+")[0].replace("jpeg", "jpg")
        handler.set_header(
            "Content-Disposition",
            f'attachment; filename="kernel-image-{image.execution_count or 0}-'
            f'{image.id}.{extension}"',
        )
    handler.finish(image.data, set_content_type=image.mime)


async def _write_prompt(handler: KernelStateHandler, query: Any, result: Any) -> None:
    if query.format == "json":
        handler.write_json(result.as_json())
        return
    handler.set_header("Cache-Control", "no-store")
    handler.finish(result.text.encode("utf-8"), set_content_type="text/plain; charset=UTF-8")


_WRITERS = {SNAPSHOT: _write_snapshot, IMAGE: _write_image, PROMPT: _write_prompt,
            EMPTY: _write_empty}


# --- the handler classes --------------------------------------------------------------


def _verb(method: str, route: Route) -> Callable[..., Any]:
    async def verb(self: KernelStateHandler, **path_args: str) -> None:
        await self.serve(route, path_args)

    verb.__name__ = method.lower()
    verb.__doc__ = route.summary
    return web.authenticated(authorized(route.permission.action)(verb))


def pattern(path: str) -> str:
    """The URL pattern of a route's path (its ``{segment}`` s as named groups)."""
    out = f"/{NAMESPACE}/{path}"
    for name, group in _SEGMENTS.items():
        out = out.replace("{" + name + "}", group)
    return out


def build_handlers() -> list[tuple[str, type[APIHandler]]]:
    """One handler class per path of the route table, a verb per route (and POST for a
    large view's GET)."""
    by_path: dict[str, dict[str, Route]] = {}
    for route in ROUTES.values():
        verbs = by_path.setdefault(route.path, {})
        verbs[route.method] = route
        if route.large and route.method == "GET":
            verbs["POST"] = route
    handlers: list[tuple[str, type[APIHandler]]] = []
    for path, verbs in by_path.items():
        members: dict[str, Any] = {method.lower(): _verb(method, route)
                                   for method, route in verbs.items()}
        resources = {route.permission.resource for route in verbs.values()}
        assert len(resources) == 1, f"one permission resource per path: {path}"
        members["auth_resource"] = resources.pop()
        name = "".join(part.title() for part in verbs[next(iter(verbs))].name.split("_"))
        handlers.append((pattern(path), type(f"{name}Handler", (KernelStateHandler,),
                                             members)))
    return handlers
