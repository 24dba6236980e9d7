"""The probe's entry points: ``install``, ``call`` (the server's one expression),
``snapshot``/``detail`` (also usable with an explicit namespace), ``summarize`` and
``format_card`` (for REPL-style agents outside Jupyter)."""

import base64
import json
import sys
import time
import uuid

from . import (  # noqa: F401 (register inspectors)
    builtin_types,
    guard,
    objects,
    ordering,
    quiet,
    summary,
    tables,
    third_party,
    tracking,
    variable_ops,
)
from . import detail as detail_mod
from . import digest as digest_op
from . import namespace as visibility
from . import rows as rows_op
from . import snapshot as snapshot_op
from .inspectors import MISSING
from .snapshot import (  # noqa: F401 (the request limits, re-exported)
    DEFAULT_BUDGET_MS,
    DEFAULT_GUARD_MS,
    DEFAULT_LIMIT,
    DEFAULT_PREVIEW,
    INCLUDE_GROUPS,
    MAX_FILTER_CHARS,
    MAX_GUARD_MS,
    MAX_LIMIT,
    MAX_PREVIEW,
    SORTS,
    Fragments,
    dumps,
)
from .snapshot import int_field as _int

MAX_REMOVED = tracking.MAX_REMOVED


class ProbeState:
    def __init__(self, shell=None):
        self.probe_id = uuid.uuid4().hex
        self.shell = shell
        self.cache = summary.SummaryCache()
        self.sorter = ordering.Sorter()
        self.visibility = visibility.Visibility()
        self.sorts = rows_op.Sorts()
        self.tracker = None
        self.hook = None


_state = ProbeState()


def find_shell():
    ipython = sys.modules.get("IPython")
    try:
        return ipython.get_ipython() if ipython is not None else None
    except Exception:
        return None


def install(shell=MISSING):
    """(Re)start the probe: new probe_id, fresh caches, change-tracking hook."""
    global _state
    uninstall()
    if shell is MISSING:
        shell = find_shell()
    visibility.reset_caches()
    state = ProbeState(shell)
    if shell is not None and getattr(shell, "user_ns", None) is not None:
        state.tracker = tracking.Tracker(shell, on_change=state.cache.discard_many)
        if getattr(shell, "events", None) is not None:
            state.hook = tracking.register(shell, state.tracker)
    _state = state
    return state.probe_id


def uninstall():
    shell = _state.shell
    if shell is not None and getattr(shell, "events", None) is not None:
        tracking.unregister_all(shell)
    _state.hook = None


def probe_id():
    return _state.probe_id


# --- the server's entry point ---------------------------------------------------------



class Reply:
    """What ``call`` returns: its repr is the JSON reply on one line."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)


def call(encoded):
    """Decode a request, run it, return a :class:`Reply`.  Never raises."""
    t0 = time.perf_counter()
    request = None
    muted = quiet.Quiet(_state.shell)
    try:
        muted.__enter__()
    except BaseException:
        muted = None
    try:
        try:
            request = json.loads(base64.urlsafe_b64decode(encoded.encode("ascii")))
            if type(request) is not dict:
                raise ValueError("request is not an object")
            reply = dispatch(request)
        except BaseException as exc:
            # A real interrupt (the stop button, see guard.py) is a ProbeInterrupted, or
            # a KeyboardInterrupt outside any guard session: the request ends.
            reply = {"ok": False, "error": "probe error: " + type(exc).__name__}
            if isinstance(exc, KeyboardInterrupt):
                reply["interrupted"] = True
        reply.setdefault("ok", True)
        reply["probe_id"] = _state.probe_id
        reply["execution_count"] = _execution_count()
        reply["duration_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
        if request_framing(request) == "lines":
            return Reply(snapshot_op.dumps_lines(reply))
        return Reply(dumps(reply))
    except BaseException as exc:
        return Reply('{"ok":false,"error":"probe error: %s"}' % type(exc).__name__)
    finally:
        if muted is not None:
            muted.__exit__(None, None, None)


def request_framing(request):
    """``"lines"`` when the server asked for each variable's JSON on a line of its own."""
    try:
        return request.get("framing")
    except BaseException:
        return None


def dispatch(request, ns=None):
    op = request.get("op")
    if op == "ping":
        return {}
    if op == "snapshot":
        return _snapshot(request, ns)
    if op == "detail":
        return detail(request, ns)
    if op == "rows":
        ns, hidden, tracker = _namespace(ns)
        return rows_op.take(_state, request, ns, hidden, tracker, _execution_count())
    if op == "delete":
        ns, hidden, tracker = _namespace(ns)
        return variable_ops.delete(request, ns, hidden, tracker)
    if op == "timeline":
        ns, hidden, tracker = _namespace(ns)
        return variable_ops.timeline(request, ns, hidden, tracker)
    if op == "digest":
        return digest_op.take(_state, request, *_namespace(ns), MAX_REMOVED)
    return {"ok": False, "error": "unknown op"}


def _execution_count():
    shell = _state.shell
    ec = getattr(shell, "execution_count", None) if shell is not None else None
    return ec if type(ec) is int else None


def _namespace(ns):
    """The namespace to read, the shell's hidden names, and the tracker if it applies."""
    shell = _state.shell
    if ns is None:
        if shell is not None:
            ns = shell.user_ns
        else:
            main = sys.modules.get("__main__")
            ns = getattr(main, "__dict__", {})
    hidden = None
    tracker = None
    if shell is not None and ns is getattr(shell, "user_ns", None):
        hidden = getattr(shell, "user_ns_hidden", None)
        tracker = _state.tracker
    return ns, hidden, tracker


# --- ops ------------------------------------------------------------------------------


def snapshot(request, namespace=None):
    """The ``snapshot`` op as a dict; ``namespace`` may be given explicitly (tests, REPLs)."""
    return json.loads(dumps(_snapshot(request, namespace)))


def _snapshot(request, namespace=None):
    ns, hidden, tracker = _namespace(namespace)
    return snapshot_op.take(_state, request, ns, hidden, tracker, MAX_REMOVED)


def detail(request, namespace=None):
    """The ``detail`` op: ``{"variable": VariableDetail}`` or a not-found reply."""
    ns, hidden, tracker = _namespace(namespace)
    name, path, problem = detail_mod.check_detail_request(request)
    if problem is not None:
        return {"ok": False, "bad_request": True, "error": problem}
    try:
        max_chars = detail_mod.clamp_chars(request.get("max_chars"))
        preview = _int(request, "preview_chars", DEFAULT_PREVIEW, 10, MAX_PREVIEW)
        guard_ms = _int(request, "time_guard_ms", DEFAULT_GUARD_MS, 1, MAX_GUARD_MS)
        budget_ms = _int(request, "budget_ms", DEFAULT_BUDGET_MS, 1, 60_000)
    except ValueError as exc:
        return {"ok": False, "bad_request": True, "error": "Invalid detail request: {}".format(exc)}
    value = ns.get(name, MISSING) if type(ns) is dict else _lookup(ns, name)
    if value is MISSING or visibility.is_hidden(name, value, hidden):
        return {"ok": False, "not_found": True, "error": "Variable not found: " + name}
    with guard.session(guard_ms, budget_ms) as session:
        try:
            target = detail_mod.resolve_path(value, path, session)
        except detail_mod.NotFound as exc:
            key = exc.args[0] if exc.args and type(exc.args[0]) is str else "?"
            return {"ok": False, "not_found": True, "error": "Child not found: " + key[:200]}
        out = detail_mod.build(name, target, max_chars, preview, session)
    if tracker is not None and not path:
        out["change"], out["changed_at"], out["changes"] = tracker.change_of(
            name,
            value,
            tracker.resolve_since(
                request.get("since_ec") if type(request.get("since_ec")) is int else None
            ),
        )
    return {"variable": out}


def _lookup(ns, name):
    try:
        return dict.get(ns, name, MISSING)
    except TypeError:
        return MISSING


# --- outside Jupyter ------------------------------------------------------------------


def summarize(
    name,
    value,
    *,
    description=None,
    constraints=None,
    preview_chars=DEFAULT_PREVIEW,
    time_guard_ms=DEFAULT_GUARD_MS,
):
    """The Variable dict of one value (change "unchanged"), with user metadata."""
    with guard.session(time_guard_ms, max(time_guard_ms * 4, DEFAULT_BUDGET_MS)) as session:
        limit = max(10, int(preview_chars))
        out = summary.complete(summary.build(str(name), value, limit, session))
    out["description"] = description
    out["constraints"] = constraints
    return out


def format_card(s):
    """A few lines describing a summary, for a prompt (RLM-style variable card)."""
    lines = ["Variable: {}".format(s.get("name"))]
    kind = s.get("kind")
    lines.append("Type: {} ({})".format(s.get("qualname") or s.get("type"), kind))
    if s.get("description"):
        lines.append("Description: {}".format(s["description"]))
    if s.get("constraints"):
        lines.append("Constraints: {}".format(s["constraints"]))
    size = s.get("size")
    if s.get("shape") is not None:
        shape = "×".join("{:,}".format(n) for n in s["shape"])
        extra = ", dtype {}".format(s["dtype"]) if s.get("dtype") else ""
        lines.append("Shape: {}{}".format(shape, extra))
    if size is not None and s.get("shape") is None:
        unit = {"string": "characters", "bytes": "bytes", "mapping": "keys"}.get(kind, "items")
        lines.append("Total length: {:,} {}".format(size, unit))
    if s.get("nbytes") is not None:
        lines.append("Memory: {:,} bytes".format(s["nbytes"]))
    preview = s.get("preview") or ""
    lines.append("Preview: {}{}".format(preview, " (truncated)" if s.get("truncated") else ""))
    if s.get("error"):
        lines.append("Note: {}".format(s["error"]))
    return "\n".join(lines)
