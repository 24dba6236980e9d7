"""Thin REST handlers: parse, authorize, call one service method, serialize.

Every verb is authenticated (``@web.authenticated`` outermost) and authorized; routes that
may run probe code need ``execute`` on ``kernels`` even for GET, and check the XSRF token
when the request is cookie-authenticated.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any, TypeVar

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web

from .errors import KernelStateError
from .service import (
    AnnotationUpdate,
    CodeOptions,
    CountOptions,
    DetailOptions,
    HistoryOptions,
    ImagesOptions,
    KernelStateService,
    ProfileOptions,
    PromptOptions,
    RowsOptions,
    SnapshotOptions,
    TimelineOptions,
)

T = TypeVar("T")

NAMESPACE = "api/kernel-state"
_KERNEL = r"(?P<kernel_id>[^/]+)"
_NAME = r"(?P<name>[^/]+)"
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


class KernelStateHandler(APIHandler):
    auth_resource = "kernels"

    @property
    def service(self) -> KernelStateService:
        return self.settings["jupyter_kernel_state"]  # type: ignore[no-any-return]

    def query(self, name: str) -> str | None:
        value = self.get_query_argument(name, None)
        return value

    def parse(self, parser: Any, *args: Any) -> Any:
        """A typed query from this request's query string (400 when a value is bad)."""
        return self.sync(parser, *args, self.query, self.service.limits)

    async def call(self, awaitable: Awaitable[T]) -> T:
        """Await a service call, turning domain errors into JSON HTTP errors."""
        try:
            return await awaitable
        except KernelStateError as e:
            self._raise(e)
            raise  # pragma: no cover - _raise always raises

    def _raise(self, e: KernelStateError) -> None:
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

    def sync(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except KernelStateError as e:
            self._raise(e)

    def write_json(self, payload: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))

def _etags(header: str) -> set[str]:
    return {part.strip().removeprefix("W/") for part in header.split(",") if part.strip()}


class KernelsHandler(KernelStateHandler):
    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        self.write_json({"kernels": await self.call(self.service.list_kernels())})


class VariablesHandler(KernelStateHandler):
    @web.authenticated
    @authorized("execute")
    async def get(self, kernel_id: str) -> None:
        self.check_xsrf_cookie()
        options = self.parse(SnapshotOptions.from_query)
        response = await self.call(self.service.snapshot_response(kernel_id, options))
        self.set_header("ETag", response.etag)
        self.set_header("Cache-Control", "no-cache")  # revalidate with If-None-Match
        if response.etag in _etags(self.request.headers.get("If-None-Match", "")):
            self.set_status(304)
            self.finish()
            return
        self.finish(response.body(), set_content_type="application/json; charset=UTF-8")


class VariableHandler(KernelStateHandler):
    @web.authenticated
    @authorized("execute")
    async def get(self, kernel_id: str, name: str) -> None:
        self.check_xsrf_cookie()
        options = self.parse(DetailOptions.from_query, name)
        detail = await self.call(self.service.detail(kernel_id, options))
        self.write_json(detail)

    @web.authenticated
    @authorized("execute")
    async def delete(self, kernel_id: str, name: str) -> None:
        await self.call(self.service.delete_variable(kernel_id, name))
        self.set_status(204)
        self.finish()


class RowsHandler(KernelStateHandler):
    @web.authenticated
    @authorized("execute")
    async def get(self, kernel_id: str, name: str) -> None:
        self.check_xsrf_cookie()
        options = self.parse(RowsOptions.from_query, name)
        self.write_json(await self.call(self.service.rows(kernel_id, options)))


class CountHandler(KernelStateHandler):
    """A table's rows counted in the kernel (by its engine for an engine's table): a POST,
    since counting may run long and costs the engine; tornado checks its XSRF token."""

    @web.authenticated
    @authorized("execute")
    async def post(self, kernel_id: str, name: str) -> None:
        options = self.parse(CountOptions.from_query, name)
        self.write_json(await self.call(self.service.count(kernel_id, options)))


class CodeHandler(KernelStateHandler):
    @web.authenticated
    @authorized("execute")
    async def get(self, kernel_id: str, name: str) -> None:
        self.check_xsrf_cookie()
        options = self.parse(CodeOptions.from_query, name)
        self.write_json(await self.call(self.service.code(kernel_id, options)))


class ProfileHandler(KernelStateHandler):
    @web.authenticated
    @authorized("execute")
    async def get(self, kernel_id: str, name: str) -> None:
        self.check_xsrf_cookie()
        options = self.parse(ProfileOptions.from_query, name)
        self.write_json(await self.call(self.service.profile(kernel_id, options)))


class TimelineHandler(KernelStateHandler):
    @web.authenticated
    @authorized("execute")
    async def get(self, kernel_id: str, name: str) -> None:
        self.check_xsrf_cookie()
        options = self.parse(TimelineOptions.from_query, name)
        self.write_json(await self.call(self.service.timeline(kernel_id, options)))


class AnnotationHandler(KernelStateHandler):
    @web.authenticated
    @authorized("execute")  # checking that the variable exists runs probe code
    async def put(self, kernel_id: str, name: str) -> None:
        update = self.sync(AnnotationUpdate.from_body, name, self.request.body)
        note = await self.call(self.service.put_annotation(kernel_id, update))
        self.write_json(note)

    @web.authenticated
    @authorized("execute")  # the same permission that can write one
    async def delete(self, kernel_id: str, name: str) -> None:
        await self.call(self.service.delete_annotation(kernel_id, name))
        self.set_status(204)
        self.finish()


class PromptHandler(KernelStateHandler):
    @web.authenticated
    @authorized("execute")
    async def get(self, kernel_id: str) -> None:
        self.check_xsrf_cookie()
        options = self.parse(PromptOptions.from_query)
        result = await self.call(self.service.prompt(kernel_id, options))
        if options.format == "json":
            self.write_json(result.as_json())
            return
        self.set_header("Cache-Control", "no-store")
        self.finish(result.text.encode("utf-8"), set_content_type="text/plain; charset=UTF-8")


class ImagesHandler(KernelStateHandler):
    @web.authenticated
    @authorized("read")
    async def get(self, kernel_id: str) -> None:
        options = self.parse(ImagesOptions.from_query)
        self.write_json(self.sync(self.service.images, kernel_id, options))


class ImageHandler(KernelStateHandler):
    """Raw image bytes. Kernel SVG is untrusted: sandboxed and never sniffed."""

    @web.authenticated
    @authorized("read")
    async def get(self, kernel_id: str, image_id: str) -> None:
        image = self.sync(self.service.image, kernel_id, image_id)
        self.set_header("Content-Type", image.mime)
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Cache-Control", "private, max-age=3600")
        self.set_header("ETag", f'"{image.sha256}"')
        if image.mime == "image/svg+xml":
            self.set_header("Content-Security-Policy", SVG_CSP)
        if self.query("download") not in (None, "", "0", "false"):
            extension = image.mime.split("/")[1].split("+")[0].replace("jpeg", "jpg")
            self.set_header(
                "Content-Disposition",
                f'attachment; filename="kernel-image-{image.execution_count or 0}-'
                f'{image.id}.{extension}"',
            )
        self.finish(image.data, set_content_type=image.mime)


class HistoryHandler(KernelStateHandler):
    @web.authenticated
    @authorized("read")
    async def get(self, kernel_id: str) -> None:
        options = self.parse(HistoryOptions.from_query)
        self.write_json(self.sync(self.service.history, kernel_id, options))


def build_handlers() -> list[tuple[str, type[APIHandler]]]:
    base = f"/{NAMESPACE}/kernels"
    return [
        (base, KernelsHandler),
        (rf"{base}/{_KERNEL}/variables", VariablesHandler),
        (rf"{base}/{_KERNEL}/variables/{_NAME}", VariableHandler),
        (rf"{base}/{_KERNEL}/variables/{_NAME}/annotation", AnnotationHandler),
        (rf"{base}/{_KERNEL}/variables/{_NAME}/rows", RowsHandler),
        (rf"{base}/{_KERNEL}/variables/{_NAME}/count", CountHandler),
        (rf"{base}/{_KERNEL}/variables/{_NAME}/profile", ProfileHandler),
        (rf"{base}/{_KERNEL}/variables/{_NAME}/code", CodeHandler),
        (rf"{base}/{_KERNEL}/variables/{_NAME}/timeline", TimelineHandler),
        (rf"{base}/{_KERNEL}/prompt", PromptHandler),
        (rf"{base}/{_KERNEL}/images", ImagesHandler),
        (rf"{base}/{_KERNEL}/images/(?P<image_id>[^/]+)", ImageHandler),
        (rf"{base}/{_KERNEL}/history", HistoryHandler),
    ]
