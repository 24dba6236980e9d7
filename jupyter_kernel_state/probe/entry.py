"""The probe's entry points: ``install``, ``call`` (the server's one expression),
``snapshot``/``detail`` (also usable with an explicit namespace), ``summarize`` and
``format_card`` (for REPL-style agents outside Jupyter)."""

import base64
import json
import sys
import time
import uuid

from . import guard, quiet
from .backends import dask, duckdb, ibis, polars_lazy, spark  # noqa: F401 (register engines)
from .changes.tracker import ChangeTracker, register, unregister_all
from .inspect import containers, objects, summary, third_party  # noqa: F401 (register inspectors)
from .inspect.base import MISSING
from .inspect.cache import SummaryCache
from .namespace import visibility
from .namespace.ordering import Sorter
from .ops import code as code_op
from .ops import compare as compare_op
from .ops import count as count_op
from .ops import detail as detail_op
from .ops import digest, rows, variables
from .ops import findings as findings_op
from .ops import kept as kept_op
from .ops import profile as profile_op
from .ops import snapshot as snapshot_op
from .protocol import (
    DEFAULT_BUDGET_MS,
    DEFAULT_GUARD_MS,
    DEFAULT_PREVIEW,
    BadRequest,
    declaration,
    refusal,
    with_defaults,
)
from .protocol import check as check_request
from .windows.kept import KeptVersions
from .windows.order import RowOrders
from .wire import dumps, dumps_lines


class ProbeState:
    """What the probe keeps between calls (a new one at each ``install``)."""

    def __init__(self, shell=None):
        self.probe_id = uuid.uuid4().hex
        self.shell = shell
        self.cache = SummaryCache()
        self.sorter = Sorter()
        self.visibility = visibility.Visibility()
        self.row_orders = RowOrders()
        self.kept = KeptVersions()
        self.tracker = None
        self.hook = None

    def execution_count(self):
        shell = self.shell
        ec = getattr(shell, "execution_count", None) if shell is not None else None
        return ec if type(ec) is int else None


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
        state.tracker = ChangeTracker(shell, on_change=_on_change(state, shell.user_ns))
        if getattr(shell, "events", None) is not None:
            state.hook = register(shell, state.tracker)
    _state = state
    return state.probe_id


def _on_change(state, ns):
    """What the hook tells of names changed or gone: their summaries are dropped, and the
    kept versions of a name deleted go with it."""
    discard, kept = state.cache.discard_many, state.kept

    def changed(names):
        discard(names)
        if kept:
            kept.forget_gone(names, ns)

    return changed


def uninstall():
    shell = _state.shell
    if shell is not None and getattr(shell, "events", None) is not None:
        unregister_all(shell)
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
    fields = {}
    muted = quiet.Quiet(_state.shell)
    try:
        muted.__enter__()
    except BaseException:
        muted = None
    try:
        try:
            request = json.loads(base64.urlsafe_b64decode(encoded.encode("ascii")))
            op, fields = check_request(request)
        except BadRequest as exc:
            reply = refusal("bad_request", str(exc))
        except BaseException as exc:
            reply = _failed(exc)
        else:
            try:
                reply = run(op, fields)
            except BaseException as exc:
                reply = _failed(exc)
        reply.setdefault("ok", True)
        reply["probe_id"] = _state.probe_id
        reply["execution_count"] = _state.execution_count()
        reply["duration_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
        if fields.get("framing") == "lines":
            return Reply(dumps_lines(reply))
        return Reply(dumps(reply))
    except BaseException as exc:
        return Reply('{"ok":false,"failed":true,"error":"probe error: %s"}' % type(exc).__name__)
    finally:
        if muted is not None:
            muted.__exit__(None, None, None)


def _failed(exc):
    """The reply to a request that raised: a real interrupt (the stop button, see ``guard``:
    a ProbeInterrupted, or a KeyboardInterrupt outside any guard session) ends it."""
    kind = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
    return refusal(kind, "probe error: " + type(exc).__name__)


def ping(state, fields, ns, hidden, tracker):
    """The ``ping`` op: what this probe can do, declared (the server installs the probe on
    the way, and reads the declaration once per probe): every operation it handles with
    the optional fields it applies, from the spec itself."""
    return {"operations": declaration(HANDLERS)}


#: Every operation of ``protocol.OPERATIONS`` and its handler, all of one signature:
#: ``handler(state, fields, ns, hidden, tracker) -> reply`` (fields checked and filled).
HANDLERS = {
    "ping": ping,
    "snapshot": snapshot_op.take,
    "digest": digest.take,
    "detail": detail_op.take,
    "rows": rows.take,
    "profile": profile_op.take,
    "findings": findings_op.take,
    "code": code_op.take,
    "compare": compare_op.take,
    "count": count_op.take,
    "keep": kept_op.keep,
    "kept": kept_op.listing,
    "drop_kept": kept_op.drop,
    "delete": variables.delete,
    "timeline": variables.timeline,
}


def run(op, fields, ns=None):
    """The reply of operation ``op`` on checked ``fields`` (see ``protocol.check``)."""
    ns, hidden, tracker = _namespace(ns)
    return HANDLERS[op](_state, fields, ns, hidden, tracker)


def dispatch(request, ns=None):
    """The reply to ``request`` (a dict) on ``ns`` (None: the shell's namespace)."""
    try:
        op, fields = check_request(request)
    except BadRequest as exc:
        return refusal("bad_request", str(exc))
    return run(op, fields, ns)


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


# --- with an explicit namespace (tests, REPLs) ----------------------------------------


def snapshot(request, namespace=None):
    """The ``snapshot`` op's reply as plain JSON values (``op`` may be left out), each
    variable with every field (the wire leaves out those at their defaults)."""
    reply = json.loads(dumps(dispatch(dict(request, op="snapshot"), namespace)))
    for variable in reply.get("variables") or ():
        with_defaults(variable)
    return reply


def detail(request, namespace=None):
    """The ``detail`` op: ``{"variable": VariableDetail}`` or a refusal."""
    return dispatch(dict(request, op="detail"), namespace)


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
