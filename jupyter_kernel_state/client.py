"""A small Python client of the kernel-state REST API of a running Jupyter server.

Standard library only (``urllib``), so it works from any environment that has the
package — an agent's process, a script, the ``jupyter kernel-state`` CLI::

    from jupyter_kernel_state.client import KernelStateClient

    client = KernelStateClient.discover()  # or KernelStateClient(url, token)
    kernel = client.find_kernel("analysis.ipynb")["kernel_id"]  # or an id, or a prefix
    names = client.variables(kernel, detail="names")["variables"]
    print(client.prompt(kernel, budget=2000, format="text"))

Every method returns the route's JSON payload (see ``docs/rest-api.md``) and raises
:class:`KernelStateClientError` with the server's status and ``message`` otherwise.
Names and ids are URL-quoted; every request has a timeout and a bounded response size.
:meth:`KernelStateClient.discover` finds a running server as ``jupyter kernel-state``
does (``$JUPYTER_SERVER_URL``, else Jupyter's runtime directory, which needs jupyter_core).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .probe.protocol import with_defaults
from .rest.table import NAMESPACE, ROUTES

#: Seconds before a request is abandoned.
TIMEOUT_S = 30.0
#: Bytes read from one response at most (images are capped lower by the server).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
#: A query longer than this goes in a JSON body (routes that take one): proxies and
#: servers cut long request lines (jupyter_server's at 64 KiB).
MAX_QUERY_CHARS = 8_000
API = NAMESPACE + "/"
DETAILS = ROUTES["variables"].param("detail").choices
PROMPT_FORMATS = ROUTES["prompt"].param("format").choices


class KernelStateClientError(Exception):
    """A request that failed: ``status`` (None when the server was not reached, or for the
    client's own errors), the server's ``message``, and ``retry_after`` seconds when the
    server said (503)."""

    def __init__(self, message: str, status: int | None = None, *, url: str = "",
                 retry_after: float | None = None) -> None:
        super().__init__(f"{status}: {message}" if status is not None else message)
        self.status = status
        self.message = message
        self.url = url
        self.retry_after = retry_after


class KernelChoiceError(KernelStateClientError):
    """No running kernel, or none or several, answer to the given id, id prefix or path;
    ``candidates`` are the kernels it could mean (all the running ones when none does)."""

    def __init__(self, message: str, candidates: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.candidates = candidates


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


def _quote(part: str) -> str:
    return urllib.parse.quote(str(part), safe="")


#: Kernels named in a "which kernel?" error at most.
MAX_CANDIDATES_SHOWN = 10
#: Characters of a notebook path in a kernel's name (the end is kept).
MAX_PATH_CHARS = 60
_ID_PREFIX_RE = re.compile(r"[0-9a-fA-F-]{1,36}")


def kernel_label(kernel: Mapping[str, Any]) -> str:
    """A kernel as people tell it apart: its id and, when it has one, its notebook path."""
    path = kernel.get("path")
    if path and len(path) > MAX_PATH_CHARS:
        path = "…" + path[-(MAX_PATH_CHARS - 1):]
    return str(kernel["kernel_id"]) + (f" ({path})" if path else "")


def most_recent(kernels: list[dict[str, Any]]) -> dict[str, Any]:
    """The kernel a cell last ran in (as the MCP tools pick it); the first listed when no
    cell has run in any."""
    return max(kernels, key=lambda k: k.get("last_execution_at") or "")


def pick_kernel(kernels: list[dict[str, Any]], which: str | None) -> dict[str, Any]:
    """The kernel of ``kernels`` (``KernelSummary`` dicts) that ``which`` names: its id, its
    notebook or console path (whole, or its last components: ``sales.ipynb`` for
    ``reports/sales.ipynb``), or a prefix of ids only it has. None: the most recently used.
    Raises :class:`KernelChoiceError` naming the candidates when none or several match.
    """
    if not kernels:
        raise KernelChoiceError("no kernel is running", [])
    if which is None:
        return most_recent(kernels)
    wanted = which.strip().strip("/")
    paths = [(k, str(k.get("path") or "").strip("/")) for k in kernels]
    is_prefix = _ID_PREFIX_RE.fullmatch(wanted) is not None
    rules: list[tuple[str, list[dict[str, Any]]]] = [
        ("id", [k for k in kernels if k["kernel_id"] == wanted]),
        ("notebook path", [k for k, path in paths if path and path == wanted]),
        ("id prefix", [k for k in kernels
                       if is_prefix and k["kernel_id"].startswith(wanted.lower())]),
        ("notebook name", [k for k, path in paths if path.endswith("/" + wanted)]),
    ]
    for rule, matches in rules:
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise KernelChoiceError(
                f"{which!r} is the {rule} of {len(matches)} kernels: {_listing(matches)}; "
                "pass one kernel's id (or a prefix only it has)", matches)
    raise KernelChoiceError(
        f"no running kernel has the id, id prefix or notebook path {which!r}; running: "
        + _listing(kernels), kernels)


def _listing(kernels: list[dict[str, Any]]) -> str:
    shown = [kernel_label(k) for k in kernels[:MAX_CANDIDATES_SHOWN]]
    more = len(kernels) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def comparison_notes(compared: Mapping[str, Any], most_columns: int | None = None
                     ) -> list[str]:
    """A comparison (``TableComparison``) in words: how its rows were matched and the
    counts, why no key was used, each column with changed cells (its mean and missing
    values before → after; at most ``most_columns``, the others counted) or not compared,
    and the columns only one table has."""
    by = compared["by"]
    how = f"by key {', '.join(compared['key'] or ())}" if by == "key" else f"by {by}"
    if compared.get("with_execution") is not None:  # a version kept on request
        compared = {**compared, "with": f"{compared['with']} as of "
                    f"[{compared['with_execution']}]"}
    notes = [f"{compared['name']} vs {compared['with']} {how}: {compared['added']:,} added, "
             f"{compared['removed']:,} removed, {compared['changed']:,} changed, "
             f"{compared['unchanged']:,} unchanged"]
    if compared.get("key_note"):
        notes.append(str(compared["key_note"]))
    said = [c for c in compared["columns"] if c.get("error") or c.get("changed")]
    for column in said[:most_columns]:
        if column.get("error"):
            notes.append(f"{column['name']}: not compared ({column['error']})")
            continue
        words = [f"{column['name']}: {column['changed']:,} cells changed"]
        if column.get("mean") is not None and column.get("with_mean") is not None \
                and column["mean"] != column["with_mean"]:
            words.append(f"mean {column['with_mean']:.6g} → {column['mean']:.6g}")
        if column["nulls"] != column["with_nulls"]:
            words.append(f"missing {column['with_nulls']:,} → {column['nulls']:,}")
        notes.append(", ".join(words))
    if most_columns is not None and len(said) > most_columns:
        notes.append(f"{len(said) - most_columns} more columns changed")
    for side in ("name", "with"):
        listed, total = compared[f"only_in_{side}"], compared[f"only_in_{side}_total"]
        if total:
            notes.append(f"only in {compared[side]}: {', '.join(listed)}"
                         + (" …" if total > len(listed) else ""))
    return notes


def runtime_files(pattern: str) -> list[dict[str, Any]]:
    """The JSON runtime files of live processes in Jupyter's runtime directory whose name
    matches ``pattern`` (with the pid as its group). Read directly: importing
    jupyter_server.serverapp or jupyter_server_mcp (for their listing functions) takes seconds.
    """
    from jupyter_core.paths import jupyter_runtime_dir
    from jupyter_server.utils import check_pid

    found = []
    directory = Path(jupyter_runtime_dir())
    for path in sorted(directory.glob("jpserver-*.json")) if directory.is_dir() else []:
        match = re.fullmatch(pattern, path.name)
        if match is None:
            continue
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(info, dict) and info.get("pid") == int(match.group(1)) \
                and check_pid(info["pid"]):
            found.append(info)
    return found


def running_servers() -> list[dict[str, Any]]:
    """Jupyter servers running as this user (``jpserver-<pid>.json``; jupyter-server-mcp's
    ``jpserver-mcp-<pid>.json`` files match jupyter_server's own ``jpserver-*`` listing too,
    and are not servers)."""
    return runtime_files(r"jpserver-(\d+)\.json")


def same_server(url: str, info: Mapping[str, Any]) -> bool:
    """Whether ``url`` points at the server a runtime file describes."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    base = str(info.get("base_url") or "/")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return port == info.get("port") and path.startswith(base)


def discover_server(url: str | None = None,
                    token: str | None = None) -> tuple[str, str | None, str]:
    """The server's URL, the token to send, and how both were found: ``url`` or
    ``$JUPYTER_SERVER_URL``, else the first running server in Jupyter's runtime directory;
    ``token`` or ``$JUPYTER_TOKEN``, else that server's own token from its runtime file."""
    token_from = ""
    if token:
        token_from = "token from --token"
    elif os.environ.get("JUPYTER_TOKEN"):
        token, token_from = os.environ["JUPYTER_TOKEN"], "token from $JUPYTER_TOKEN"
    if url or os.environ.get("JUPYTER_SERVER_URL"):
        how = "from --url" if url else "from $JUPYTER_SERVER_URL"
        url = url or os.environ["JUPYTER_SERVER_URL"]
        if not token:  # the token of the running server at that URL, if it is one
            server = next((s for s in running_servers() if same_server(url, s)), None)
            if server is not None and server.get("token"):
                token = str(server["token"])
                token_from = f"the token of server pid {server.get('pid')} from its runtime file"
    else:
        server = next(iter(running_servers()), None)
        if server is None:
            raise KernelStateClientError(
                "no running Jupyter server found: pass --url and --token (or set "
                "$JUPYTER_SERVER_URL and $JUPYTER_TOKEN)")
        url = str(server["url"])
        how = f"found running server, pid {server.get('pid')}"
        if server.get("root_dir"):
            how += f", serving {server['root_dir']}"
        if not token and server.get("token"):
            token, token_from = str(server["token"]), "its token from its runtime file"
    return url, token or None, how + (f"; {token_from}" if token_from else "; no token")


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
        #: How the server and the token were found (set by :meth:`discover`).
        self.found_by = ""

    @classmethod
    def discover(cls, url: str | None = None, token: str | None = None, *,
                 timeout: float = TIMEOUT_S) -> KernelStateClient:
        """A client of the server ``jupyter kernel-state`` would use: ``url`` or
        ``$JUPYTER_SERVER_URL``, else the first Jupyter server running as this user (from
        Jupyter's runtime directory); the token given, or ``$JUPYTER_TOKEN``, or that
        server's own. ``found_by`` says which."""
        url, found_token, how = discover_server(url, token)
        client = cls(url, found_token or "", timeout=timeout)  # "": not $JUPYTER_TOKEN again
        client.found_by = how
        return client

    def __repr__(self) -> str:  # never the token
        return f"KernelStateClient({self.url!r})"

    # --- transport --------------------------------------------------------------------

    def request(self, method: str, path: str,
                params: Mapping[str, Any] | None = None, *,
                body: Mapping[str, Any] | None = None) -> Response:
        """``method`` on ``api/kernel-state/<path>`` with the query ``params`` (None values
        left out, booleans as ``true``/``false``) and ``body`` as JSON."""
        query = urllib.parse.urlencode({
            k: ("true" if v else "false") if isinstance(v, bool) else v
            for k, v in (params or {}).items() if v is not None})
        url = self.base + path + (f"?{query}" if query else "")
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = response.read(MAX_RESPONSE_BYTES + 1)
                if len(answer) > MAX_RESPONSE_BYTES:
                    raise KernelStateClientError(
                        f"response larger than {MAX_RESPONSE_BYTES:,} bytes", url=url)
                return Response(response.status, answer,
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

    def call(self, route: str, **values: Any) -> Response:
        """The route ``route`` of the route table (``rest/table.py``) with ``values``: its
        path's segments quoted, its parameters written as the route reads them (None left
        out); a large view goes in a JSON body (``POST``) when too long for a URL."""
        spec = ROUTES[route]
        path = spec.path.format(**{p.name: _quote(values[p.name])
                                   for p in spec.params if p.where == "path"})
        params = {p.name: p.kind.encode(values.get(p.name)) for p in spec.query_params}
        if spec.large and len(urllib.parse.urlencode(
                {k: v for k, v in params.items() if v is not None})) > MAX_QUERY_CHARS:
            body = {k: v for k, v in params.items() if v is not None}
            return self.request("POST", path, body=body)
        return self.request(spec.method, path, params)

    # --- routes -----------------------------------------------------------------------

    def kernels(self) -> list[dict[str, Any]]:
        """The running kernels (``KernelSummary`` dicts, each with its notebook ``path``)."""
        return list(self.call("kernels").json()["kernels"])

    def find_kernel(self, which: str | None = None) -> dict[str, Any]:
        """The running kernel (``KernelSummary``) whose id, unique id prefix or notebook
        path is ``which`` (see :func:`pick_kernel`); None: the one a cell last ran in.
        :class:`KernelChoiceError` names the candidates when none or several match."""
        return pick_kernel(self.kernels(), which)

    def latest_kernel(self) -> str:
        """The id of the kernel a cell last ran in (as the MCP tools pick it)."""
        return str(self.find_kernel()["kernel_id"])

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
        snapshot = dict(self.call(
            "variables", kernel_id=kernel_id, detail=None if detail == "full" else detail,
            limit=limit, offset=offset, sort=sort, filter=filter, include=include,
            since=since).json())
        if detail == "full":  # the list travels lean: each variable made whole
            for variable in snapshot.get("variables") or ():
                with_defaults(variable)
        return snapshot

    def variable(self, kernel_id: str, name: str, *, reveal: bool = False,
                 path: Iterable[str] | None = None,
                 max_chars: int | None = None) -> dict[str, Any]:
        """One variable in detail (``VariableDetail``), or a child reached by the access
        keys in ``path``. Likely secrets come masked unless ``reveal``."""
        return dict(self.call("variable", kernel_id=kernel_id, name=name,
                              reveal=True if reveal else None, path=path,
                              max_chars=max_chars).json())

    def rows(self, kernel_id: str, name: str, offset: int = 0, limit: int = 100,
             columns: str | range | Iterable[int] | None = None,
             sort: str | None = None,
             filter: str | Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A window of a table or array: ``limit`` rows from ``offset``, the columns at
        the positions ``columns`` (``"0:20"``, ``range(0, 20)``, ``[0, 3, 7]``), sorted
        by ``sort`` (``"price:desc"``), of the rows ``filter`` keeps (a condition or an
        and/or tree, as a dict or its JSON). An engine's table (a DuckDB relation, a polars
        LazyFrame …) may answer ``total_rows`` None: not counted (:meth:`count`)."""
        return dict(self.call("rows", kernel_id=kernel_id, name=name, offset=offset,
                              limit=limit, columns=columns, sort=sort, filter=filter).json())

    def count(self, kernel_id: str, name: str,
              filter: str | Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The rows of a table, or those ``filter`` keeps (``CountResult``): counted by its
        engine for an engine's table, which cancels it past ``engine_count_ms`` (422)."""
        return dict(self.call("count", kernel_id=kernel_id, name=name, filter=filter).json())

    def profile(self, kernel_id: str, name: str,
                columns: str | range | Iterable[int] | None = None,
                filter: str | Mapping[str, Any] | None = None,
                budget_ms: int | None = None) -> dict[str, Any]:
        """The statistics of a table's columns (``TableProfile``), of the rows ``filter``
        keeps: the columns at the positions ``columns`` (default the first ones, as many as
        the server profiles), each computed under the server's per-column guard."""
        return dict(self.call("profile", kernel_id=kernel_id, name=name, columns=columns,
                              filter=filter, budget_ms=budget_ms).json())

    def code(self, kernel_id: str, name: str,
             columns: str | range | Iterable[int] | None = None,
             sort: str | None = None, filter: str | Mapping[str, Any] | None = None,
             syntax: str | None = None, budget_ms: int | None = None) -> dict[str, Any]:
        """The code of a view (``ViewCode``): run where ``name`` lives, it binds
        ``<name>_view`` to the rows ``filter`` keeps, in the order ``sort`` gives, with the
        columns at ``columns`` (default every column), written in ``syntax`` (default the
        value's own library or engine)."""
        return dict(self.call("code", kernel_id=kernel_id, name=name, columns=columns,
                              sort=sort, filter=filter, syntax=syntax,
                              budget_ms=budget_ms).json())

    def compare(self, kernel_id: str, name: str, other: str, *,
                key: str | Iterable[str] | None = None,
                status: str | Iterable[str] | None = None, offset: int = 0,
                limit: int = 100, columns: str | range | Iterable[int] | None = None,
                sort: str | None = None, filter: str | Mapping[str, Any] | None = None,
                syntax: str | None = None) -> dict[str, Any]:
        """The table ``name`` (the after) compared with ``other`` (the before) row by row
        (``TableComparison``): by ``key`` (column names: ``"id"``, ``["region", "day"]``;
        None: the index when meaningful, else the position), a window of the rows of
        ``status`` (``"added,removed,changed"`` by default; ``"unchanged"`` too), sorted
        and filtered on the values shown; its ``code`` in ``syntax``."""
        return dict(self.call("compare", kernel_id=kernel_id, name=name, key=key,
                              status=status, offset=offset, limit=limit, columns=columns,
                              sort=sort, filter=filter, syntax=syntax,
                              **{"with": other}).json())

    def timeline(self, kernel_id: str, name: str, limit: int | None = None) -> dict[str, Any]:
        """When ``name`` was bound, changed or removed, and how (oldest first)."""
        return dict(self.call("timeline", kernel_id=kernel_id, name=name, limit=limit).json())

    def prompt(self, kernel_id: str, budget: int | None = None, format: str = "json", *,
               since: int | None = None, history: int | None = None,
               images: bool | None = None) -> Any:
        """The assistant's text of the kernel's state within ``budget`` characters:
        the ``PromptResult`` dict (``format="json"``) or the text itself (``"text"``)."""
        if format not in PROMPT_FORMATS:
            raise ValueError("format must be json or text")
        response = self.call("prompt", kernel_id=kernel_id, budget=budget, format=format,
                             since=since, history=history, images=images)
        return response.json() if format == "json" else response.body.decode("utf-8")

    def images(self, kernel_id: str, since: int | None = None,
               limit: int | None = None) -> dict[str, Any]:
        """The images the kernel produced after the ``since`` cursor (``ImageList``)."""
        return dict(self.call("images", kernel_id=kernel_id, since=since, limit=limit).json())

    def image(self, kernel_id: str, image_id: str) -> bytes:
        """The bytes of one image."""
        return self.call("image", kernel_id=kernel_id, image_id=image_id).body

    def history(self, kernel_id: str, limit: int | None = None) -> dict[str, Any]:
        """The kernel's last steps (cells run, their outputs, the names they changed)."""
        return dict(self.call("history", kernel_id=kernel_id, limit=limit).json())

    def delete_variable(self, kernel_id: str, name: str) -> None:
        """Delete ``name`` from the kernel's namespace (404 missing, 409 kernel busy)."""
        self.call("delete_variable", kernel_id=kernel_id, name=name)
