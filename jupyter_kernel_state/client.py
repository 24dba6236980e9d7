"""A small Python client of the kernel-state REST API of a running Jupyter server.

Standard library only (``urllib``), so it works from any environment that has the
package — an agent's process, a script, the ``jupyter kernel-state`` CLI::

    from jupyter_kernel_state.client import KernelStateClient

    client = KernelStateClient("http://127.0.0.1:8888/")  # token: $JUPYTER_TOKEN
    kernel = client.latest_kernel()
    names = client.variables(kernel, detail="names")["variables"]
    print(client.prompt(kernel, budget=2000, format="text"))

Every method returns the route's JSON payload (see ``docs/rest-api.md``) and raises
:class:`KernelStateClientError` with the server's status and ``message`` otherwise.
Names and ids are URL-quoted; every request has a timeout and a bounded response size.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Seconds before a request is abandoned.
TIMEOUT_S = 30.0
#: Bytes read from one response at most (images are capped lower by the server).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
API = "api/kernel-state/"
DETAILS = ("names", "schema", "full")
PROMPT_FORMATS = ("json", "text")


class KernelStateClientError(Exception):
    """A request that failed: ``status`` (None when the server was not reached), the
    server's ``message``, and ``retry_after`` seconds when the server said (503)."""

    def __init__(self, message: str, status: int | None = None, *, url: str = "",
                 retry_after: float | None = None) -> None:
        super().__init__(f"{status}: {message}" if status is not None else message)
        self.status = status
        self.message = message
        self.url = url
        self.retry_after = retry_after


@dataclass(frozen=True)
class Response:
    """A successful response: status, body and headers."""

    status: int
    body: bytes
    content_type: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


def _columns(columns: str | range | Iterable[int] | None) -> str | None:
    """``columns`` as the route takes it: ``"start:stop"`` or ``"0,3,7"``."""
    if columns is None or isinstance(columns, str):
        return columns
    if isinstance(columns, range) and columns.step == 1:
        return f"{columns.start}:{columns.stop}"
    return ",".join(str(int(c)) for c in columns)


def _quote(part: str) -> str:
    return urllib.parse.quote(str(part), safe="")


class KernelStateClient:
    """The kernel-state routes of the server at ``url`` (its base URL, e.g.
    ``http://127.0.0.1:8888/`` or ``https://hub.example/user/ada/``).

    ``token`` defaults to ``$JUPYTER_TOKEN``; it is sent as ``Authorization: token …``.
    """

    def __init__(self, url: str, token: str | None = None, *,
                 timeout: float = TIMEOUT_S) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"not an http(s) server URL: {url!r}")
        self.url = url if url.endswith("/") else url + "/"
        self.base = self.url + API
        self.token = token if token is not None else os.environ.get("JUPYTER_TOKEN") or None
        self.timeout = timeout

    def __repr__(self) -> str:  # never the token
        return f"KernelStateClient({self.url!r})"

    # --- transport --------------------------------------------------------------------

    def request(self, method: str, path: str,
                params: Mapping[str, Any] | None = None) -> Response:
        """``method`` on ``api/kernel-state/<path>`` with the query ``params`` (None values
        left out, booleans as ``true``/``false``)."""
        query = urllib.parse.urlencode({
            k: ("true" if v else "false") if isinstance(v, bool) else v
            for k, v in (params or {}).items() if v is not None})
        url = self.base + path + (f"?{query}" if query else "")
        request = urllib.request.Request(url, method=method)
        request.add_header("Accept", "application/json")
        if self.token:
            request.add_header("Authorization", f"token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read(MAX_RESPONSE_BYTES + 1)
                if len(body) > MAX_RESPONSE_BYTES:
                    raise KernelStateClientError(
                        f"response larger than {MAX_RESPONSE_BYTES:,} bytes", url=url)
                return Response(response.status, body,
                                response.headers.get("Content-Type", ""),
                                dict(response.headers.items()))
        except urllib.error.HTTPError as e:
            raise self._error(e, url) from None
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, TimeoutError):
                reason = f"no answer within {self.timeout:g} s"
            raise KernelStateClientError(f"cannot reach {self.url}: {reason}",
                                         url=url) from None
        except TimeoutError:
            raise KernelStateClientError(
                f"{self.url} did not answer within {self.timeout:g} s", url=url) from None
        except (ConnectionError, http.client.HTTPException) as e:
            raise KernelStateClientError(f"cannot reach {self.url}: {type(e).__name__}",
                                         url=url) from None

    @staticmethod
    def _error(e: urllib.error.HTTPError, url: str) -> KernelStateClientError:
        message = str(e.reason or "")
        try:
            payload = json.loads(e.read(1_000_000))
            if isinstance(payload, dict) and payload.get("message"):
                message = str(payload["message"])
        except (ValueError, OSError):
            pass
        retry = e.headers.get("Retry-After") if e.headers else None
        try:
            retry_after = float(retry) if retry else None
        except ValueError:
            retry_after = None
        return KernelStateClientError(message, e.code, url=url, retry_after=retry_after)

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """The JSON payload of ``GET api/kernel-state/<path>``."""
        return self.request("GET", path, params).json()

    def _variable_path(self, kernel_id: str, name: str, *rest: str) -> str:
        return "/".join(("kernels", _quote(kernel_id), "variables", _quote(name), *rest))

    # --- routes -----------------------------------------------------------------------

    def kernels(self) -> list[dict[str, Any]]:
        """The running kernels (``KernelSummary`` dicts)."""
        return list(self.get("kernels")["kernels"])

    def latest_kernel(self) -> str:
        """The id of the kernel a cell last ran in (as the MCP tools pick it)."""
        kernels = self.kernels()
        if not kernels:
            raise KernelStateClientError("no kernel is running")
        return str(max(kernels, key=lambda k: k.get("last_execution_at") or "")["kernel_id"])

    def variables(self, kernel_id: str, *, detail: str = "full", limit: int | None = None,
                  offset: int | None = None, sort: str | None = None,
                  filter: str | None = None, include: str | Iterable[str] | None = None,
                  since: int | None = None) -> dict[str, Any]:
        """A page of the kernel's variables (``Snapshot``). ``detail``: ``names`` (name,
        type, kind), ``schema`` (+ shape, dtype, sizes, columns) or ``full`` (+ previews);
        ``sort``: ``name|type|size|changed|memory`` optionally with ``:asc``/``:desc``;
        ``filter``: a name pattern; ``include``: private, modules, callables, classes."""
        if detail not in DETAILS:
            raise ValueError(f"detail must be one of {', '.join(DETAILS)}")
        if include is not None and not isinstance(include, str):
            include = ",".join(include)
        return dict(self.get(f"kernels/{_quote(kernel_id)}/variables", {
            "detail": None if detail == "full" else detail, "limit": limit,
            "offset": offset, "sort": sort, "filter": filter, "include": include,
            "since": since,
        }))

    def variable(self, kernel_id: str, name: str, *, reveal: bool = False,
                 path: Iterable[str] | None = None,
                 max_chars: int | None = None) -> dict[str, Any]:
        """One variable in detail (``VariableDetail``), or a child reached by the access
        keys in ``path``. Likely secrets come masked unless ``reveal``."""
        return dict(self.get(self._variable_path(kernel_id, name), {
            "reveal": True if reveal else None,
            "path": None if path is None else json.dumps(list(path)),
            "max_chars": max_chars,
        }))

    def rows(self, kernel_id: str, name: str, offset: int = 0, limit: int = 100,
             columns: str | range | Iterable[int] | None = None,
             sort: str | None = None) -> dict[str, Any]:
        """A window of a table or array: ``limit`` rows from ``offset``, the columns at
        the positions ``columns`` (``"0:20"``, ``range(0, 20)``, ``[0, 3, 7]``), sorted
        by ``sort`` (``"price:desc"``)."""
        return dict(self.get(self._variable_path(kernel_id, name, "rows"), {
            "offset": offset, "limit": limit, "columns": _columns(columns), "sort": sort,
        }))

    def timeline(self, kernel_id: str, name: str, limit: int | None = None) -> dict[str, Any]:
        """When ``name`` was bound, changed or removed, and how (oldest first)."""
        return dict(self.get(self._variable_path(kernel_id, name, "timeline"),
                             {"limit": limit}))

    def prompt(self, kernel_id: str, budget: int | None = None, format: str = "json", *,
               since: int | None = None, history: int | None = None,
               images: bool | None = None) -> Any:
        """The assistant's text of the kernel's state within ``budget`` characters:
        the ``PromptResult`` dict (``format="json"``) or the text itself (``"text"``)."""
        if format not in PROMPT_FORMATS:
            raise ValueError("format must be json or text")
        response = self.request("GET", f"kernels/{_quote(kernel_id)}/prompt", {
            "budget": budget, "format": format, "since": since, "history": history,
            "images": images,
        })
        return response.json() if format == "json" else response.body.decode("utf-8")

    def images(self, kernel_id: str, since: int | None = None,
               limit: int | None = None) -> dict[str, Any]:
        """The images the kernel produced after the ``since`` cursor (``ImageList``)."""
        return dict(self.get(f"kernels/{_quote(kernel_id)}/images",
                             {"since": since, "limit": limit}))

    def image(self, kernel_id: str, image_id: str) -> bytes:
        """The bytes of one image."""
        return self.request("GET", f"kernels/{_quote(kernel_id)}/images/{_quote(image_id)}").body

    def history(self, kernel_id: str, limit: int | None = None) -> dict[str, Any]:
        """The kernel's last steps (cells run, their outputs, the names they changed)."""
        return dict(self.get(f"kernels/{_quote(kernel_id)}/history", {"limit": limit}))

    def delete_variable(self, kernel_id: str, name: str) -> None:
        """Delete ``name`` from the kernel's namespace (404 missing, 409 kernel busy)."""
        self.request("DELETE", self._variable_path(kernel_id, name))
