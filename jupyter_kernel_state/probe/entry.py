"""The probe's entry points: ``install``, ``call`` (the server's one expression),
``snapshot``/``detail`` (also usable with an explicit namespace), ``summarize`` and
``format_card`` (for REPL-style agents outside Jupyter)."""

import base64
import fnmatch
import json
import re
import sys
import time
import uuid

from . import builtin_types, guard, objects, quiet, summary, tables, third_party, tracking  # noqa: F401 (register inspectors)
from . import detail as detail_mod
from . import namespace as visibility
from .inspectors import MISSING

DEFAULT_LIMIT = 500
MAX_LIMIT = 10_000
DEFAULT_PREVIEW = 200
MAX_PREVIEW = 10_000
DEFAULT_GUARD_MS = 100
MAX_GUARD_MS = 5_000
#: Total time for user code in one call: the server's deadline is 5 s.
DEFAULT_BUDGET_MS = 2_000
MAX_REMOVED = tracking.MAX_REMOVED
INCLUDE_GROUPS = frozenset(("private", "modules", "callables", "classes"))
SORTS = frozenset(("name", "type", "size", "changed"))


class ProbeState:
    def __init__(self, shell=None):
        self.probe_id = uuid.uuid4().hex
        self.shell = shell
        self.cache = summary.SummaryCache()
        self.sorter = visibility.Sorter()
        self.visibility = visibility.Visibility()
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


MAX_FILTER_CHARS = 200


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
        return Reply(dumps(reply))
    except BaseException as exc:
        return Reply('{"ok":false,"error":"probe error: %s"}' % type(exc).__name__)
    finally:
        if muted is not None:
            muted.__exit__(None, None, None)


def dispatch(request, ns=None):
    op = request.get("op")
    if op == "ping":
        return {}
    if op == "snapshot":
        return _snapshot(request, ns)
    if op == "detail":
        return detail(request, ns)
    return {"ok": False, "error": "unknown op"}


def dumps(reply):
    variables = reply.get("variables") if type(reply) is dict else None
    if type(variables) is Fragments:
        rest = dict(reply)
        rest["variables"] = []
        text = dumps(rest)
        marker = '"variables":[]'
        at = text.index(marker) + len(marker) - 1
        return text[:at] + ",".join(variables) + text[at:]
    try:
        return json.dumps(
            reply, ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=_opaque
        )
    except ValueError:
        return json.dumps(
            _finite(reply),
            ensure_ascii=True,
            allow_nan=False,
            separators=(",", ":"),
            default=_opaque,
        )


def _opaque(o):
    return "<" + type(o).__name__ + ">"


def _finite(x):
    if type(x) is float and (x != x or x in (float("inf"), float("-inf"))):
        return None
    if type(x) is dict:
        return {k: _finite(v) for k, v in x.items()}
    if type(x) in (list, tuple):
        return [_finite(v) for v in x]
    return x


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


def _int(request, key, default, low, high):
    value = request.get(key, default)
    if value is None:
        value = default
    if type(value) is not int:
        raise ValueError(key)
    return max(low, min(high, value))


# --- ops ------------------------------------------------------------------------------


def snapshot(request, namespace=None):
    """The ``snapshot`` op as a dict; ``namespace`` may be given explicitly (tests, REPLs)."""
    return json.loads(dumps(_snapshot(request, namespace)))


class Fragments(list):
    """Variables already encoded as JSON objects (spliced into the reply by ``dumps``)."""


_UNCHANGED_TAIL = ',"change":"unchanged","changed_at":null,"changes":[]}'


def _snapshot(request, namespace=None):
    ns, hidden, tracker = _namespace(namespace)
    try:
        include = request.get("include") or ()
        if type(include) not in (list, tuple) or not INCLUDE_GROUPS.issuperset(include):
            raise ValueError("include")
        offset = _int(request, "offset", 0, 0, 1 << 62)
        limit = _int(request, "limit", DEFAULT_LIMIT, 0, MAX_LIMIT)
        preview = _int(request, "preview_chars", DEFAULT_PREVIEW, 10, MAX_PREVIEW)
        guard_ms = _int(request, "time_guard_ms", DEFAULT_GUARD_MS, 1, MAX_GUARD_MS)
        budget_ms = _int(request, "budget_ms", DEFAULT_BUDGET_MS, 1, 60_000)
        sort = request.get("sort") or "name"
        if sort not in SORTS:
            raise ValueError("sort")
        since = request.get("since_ec")
        if since is not None and type(since) is not int:
            raise ValueError("since_ec")
        matches = _name_filter(request.get("filter"))
    except ValueError as exc:
        return {
            "ok": False,
            "bad_request": True,
            "error": "Invalid snapshot request: {}".format(exc),
        }
    state = _state
    names = state.visibility.names(ns, include, hidden, tracker)
    if matches is not None:
        # type() of a value runs no user code; the pattern is data, matched as a glob.
        names = [n for n in names if matches(n.lower()) or matches(type(ns[n]).__name__.lower())]
    changed_at = tracker.changed_at if tracker is not None else None
    order = state.sorter.sort(names, sort, ns, changed_at)
    page = order[offset : offset + limit]
    since = tracker.resolve_since(since) if tracker is not None else since
    cache = state.cache
    entry, cached = cache.entry, cache.entries.get
    observe = tracker.observe if tracker is not None else None
    fragments = Fragments()
    append = fragments.append
    # Parallel lists, no tuple per variable: fewer new objects for the garbage collector.
    shown, values, entries = [], [], []
    # The cache entries' slots, as locals (read once per variable in the loops below).
    held, limit_slot = summary.HELD, summary.LIMIT
    sent_change, sent_at, sent = summary.SENT_CHANGE, summary.SENT_AT, summary.SENT
    with guard.session(guard_ms, budget_ms) as session:
        for name in page:
            value = ns.get(name, MISSING)
            if value is MISSING:
                continue
            e = cached(name)
            if e is None or e[held] is not value or e[limit_slot] != preview:
                e = entry(name, value, preview, session, observe)  # else: held, the same
            shown.append(name)
            values.append(value)
            entries.append(e)
    done = cache.fragments(entries)
    if tracker is None:
        fragments.extend(fragment + _UNCHANGED_TAIL for fragment in done)
    else:
        tails = {}  # (change, changed_at) -> the fragment's end, when there are no changes
        kinds, ats, described = tracker.change_of_many(shown, values, since)
        for e, fragment, change, at, changes in zip(entries, done, kinds, ats, described):
            if changes:
                append(
                    fragment
                    + ',"change":"{}","changed_at":{},"changes":{}}}'.format(
                        change, "null" if at is None else int(at), dumps(list(changes))
                    )
                )
                continue
            if e[sent_change] is change and e[sent_at] == at:  # as last sent, same change
                append(e[sent])
                continue
            tail = tails.get((change, at))
            if tail is None:
                tail = tails[(change, at)] = ',"change":"{}","changed_at":{},"changes":[]}}'.format(
                    change, "null" if at is None else int(at)
                )
            e[sent_change], e[sent_at], e[sent] = change, at, fragment + tail
            append(e[sent])
    if len(cache.entries) > len(names) + 1000:
        cache.prune(ns)
    removed, removed_total = (
        tracker.removed_since(since, MAX_REMOVED) if tracker is not None else ([], 0)
    )
    return {
        "total": len(names),
        "variables": fragments,
        "removed": removed,
        "removed_total": removed_total,
    }


def _name_filter(pattern):
    """A case-insensitive glob on names or type names; plain text matches anywhere."""
    if pattern is None or pattern == "":
        return None
    if type(pattern) is not str or len(pattern) > MAX_FILTER_CHARS:
        raise ValueError("filter")
    if not any(c in pattern for c in "*?["):
        pattern = "*" + pattern + "*"
    return re.compile(fnmatch.translate(pattern.lower())).match


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
