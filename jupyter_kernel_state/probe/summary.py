"""One Variable dict per value, each field filled independently under the time guard."""

import collections
import itertools
import json
import types
import weakref

from . import display, guard
from .display import cut
from .guard import BudgetExhausted, ProbeTimeout
from .inspectors import error_name, inspector_for, lookup_static, qualname, type_name

#: Variable keys, in order (the REST contract).
VARIABLE_KEYS = (
    "name",
    "type",
    "qualname",
    "kind",
    "size",
    "shape",
    "dtype",
    "nbytes",
    "preview",
    "truncated",
    "error",
    "change",
    "changed_at",
    "changes",
    "description",
    "constraints",
    "hidden_from_prompt",
)
#: Keys the server always sets (from the user's annotations): a snapshot's variables
#: leave them out of the probe's reply (``summarize`` and ``detail`` still have them).
SERVER_KEYS = ("description", "constraints", "hidden_from_prompt")
#: Exact builtin containers summarised without a time guard when their first items are
#: plain scalars (nothing of the user's runs: base methods, builtin reprs).
PLAIN_CONTAINERS = frozenset((list, tuple, dict, set, frozenset))
LLM_METHODS = ("_repr_llm_", "_ai_repr_")
MAX_CACHE = 20_000
_llm_by_type = {}


def llm_method(t):
    """The type's own ``_repr_llm_``/``_ai_repr_`` (looked up statically), or None."""
    try:
        return _llm_by_type[t]
    except KeyError:
        pass
    except Exception:
        return None
    found = None
    for name in LLM_METHODS:
        attr = lookup_static(t, name, None)
        if attr is not None:
            found = attr
            break
    if len(_llm_by_type) > 4096:
        _llm_by_type.clear()
    _llm_by_type[t] = found
    return found


def call_llm_repr(method, v, limit):
    """Run the object's own description; returns ``(text, truncated)``; raises TypeError
    when it is not text."""
    if type(method) is types.FunctionType:
        result = method(v)
    elif type(method) in (staticmethod, classmethod):
        result = method.__get__(v, type(v))()
    else:
        result = (
            method.__get__(v, type(v))()
            if lookup_static(type(method), "__get__", None)
            else method(v)
        )
    if type(result) is dict:
        result = result.get("text/plain")
    if not isinstance_str(result):
        raise TypeError("llm repr returned " + type_name(type(result)))
    return cut(display.as_str(result), limit)


def isinstance_str(x):
    return type(x) is str or str in type(x).__mro__


def fallback_text(v, limit):
    return cut(object.__repr__(v), limit)[0]


#: type → (type name, qualname) for builtin types (whose names cannot be reassigned).
_BUILTIN_NAMES = {
    t: (t.__name__, t.__qualname__)
    for t in (
        int,
        float,
        complex,
        bool,
        type(None),
        str,
        bytes,
        bytearray,
        list,
        tuple,
        dict,
        set,
        frozenset,
        range,
    )
}


def base_fields(name, v, insp):
    """The snapshot fields (``FRAGMENT_KEYS``) at their defaults."""
    t = type(v)
    names = _BUILTIN_NAMES.get(t)
    type_text, qual = names if names is not None else (type_name(t), qualname(t))
    return {
        "name": name,
        "type": type_text,
        "qualname": qual,
        "kind": insp.kind,
        "size": None,
        "shape": None,
        "dtype": None,
        "nbytes": None,
        "preview": "",
        "truncated": False,
        "error": None,
    }


def complete(out):
    """``out`` with the Variable fields a snapshot leaves to the request (change) and to
    the server (annotations) at their defaults: the full ``VARIABLE_KEYS``."""
    out["change"], out["changed_at"], out["changes"] = "unchanged", None, []
    out["description"], out["constraints"], out["hidden_from_prompt"] = None, None, False
    return out


def _fill(insp, v, out, errors, limit, step, llm):
    step[0] = "len"
    try:
        out["size"] = _int_or_none(insp.size(v))
    except Exception as exc:
        errors.append("len raised " + error_name(exc))
    step[0] = "shape"
    try:
        out["shape"] = insp.shape(v)
        step[0] = "dtype"
        out["dtype"] = insp.dtype(v)
        step[0] = "nbytes"
        out["nbytes"] = _int_or_none(insp.nbytes(v))
    except Exception as exc:
        errors.append(step[0] + " raised " + error_name(exc))
    if llm is not None:
        step[0] = "llm repr"
        try:
            out["preview"], out["truncated"] = call_llm_repr(llm, v, limit)
            return
        except Exception as exc:
            errors.append("llm repr raised " + error_name(exc))
    step[0] = "repr"
    try:
        out["preview"], out["truncated"] = insp.preview(v, limit, 0, display.Ctx())
    except Exception as exc:
        errors.append("repr raised " + error_name(exc))
        out["preview"] = fallback_text(v, limit)


def _int_or_none(x):
    if x is None or type(x) is int:
        return x
    return int(x)


def build(name, v, limit, session=None):
    """The snapshot fields (``FRAGMENT_KEYS``) of ``v``; never raises for a hostile value.
    ``complete`` adds the rest of the Variable fields."""
    t = type(v)
    insp = inspector_for(t)
    out = base_fields(name, v, insp)
    scalar = _SCALAR_PREVIEW.get(t)
    if scalar is not None:  # exact builtin scalars and text: builtin code only
        if t is str:
            out["size"] = len(v)
        out["preview"], out["truncated"] = scalar(v, limit)
        return out
    if t in PLAIN_CONTAINERS:
        fast = insp.plain_preview(v, limit)
        if fast is not None:  # no user code ran and none will: no guard, no timer
            out["size"] = insp.size(v)
            out["preview"], out["truncated"] = fast
            return out
    errors = []
    llm = llm_method(t)
    step = ["len"]
    if llm is None and (insp.safe or insp.safe_for(v)):
        _fill(insp, v, out, errors, limit, step, None)
    else:
        session = session or guard.current()
        try:
            if session is None:
                _fill(insp, v, out, errors, limit, step, llm)
            else:
                session.run(_fill, insp, v, out, errors, limit, step, llm)
        except ProbeTimeout:
            errors.append(step[0] + " timed out")
        except BudgetExhausted:
            errors.append("not inspected: probe time budget exhausted")
        if not out["preview"]:
            out["preview"] = fallback_text(v, limit)
    if errors:
        out["error"] = "; ".join(errors)
    return out


def _repr_cut(v, limit):
    return cut(repr(v), limit)


def _none_cut(v, limit):
    return cut("None", limit)


#: What the inspectors of these exact types would produce, without the dispatch.
_SCALAR_PREVIEW = {
    int: display.int_repr,
    bool: _repr_cut,
    float: _repr_cut,
    complex: _repr_cut,
    type(None): _none_cut,
    str: display.text_repr,
}

CHANGE_KEYS = ("change", "changed_at", "changes")
#: What a snapshot fragment holds: the summary without change fields (added per
#: request) and without the fields the server fills.
FRAGMENT_KEYS = tuple(k for k in VARIABLE_KEYS if k not in CHANGE_KEYS and k not in SERVER_KEYS)


def _opaque(o):
    return "<" + type_name(type(o)) + ">"


_encoder = json.JSONEncoder(
    ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=_opaque
)


def encode_fragments(summaries):
    """JSON objects of ``FRAGMENT_KEYS`` without the closing brace.

    Filled into one template per summary (the same text ``json`` would write, at twice
    its speed); anything unusual (a NaN, an odd type) goes through the encoder.
    """
    out = []
    append = out.append
    enc, value = _enc_str, _json_value
    for s in summaries:
        try:
            append(
                _TEMPLATE
                % (
                    enc(s["name"]),
                    enc(s["type"]),
                    enc(s["qualname"]),
                    enc(s["kind"]),
                    value(s["size"]),
                    value(s["shape"]),
                    value(s["dtype"]),
                    value(s["nbytes"]),
                    enc(s["preview"]),
                    value(s["truncated"]),
                    value(s["error"]),
                )
            )
        except (TypeError, ValueError):
            append(_encode_one(s))
    return out


_enc_str = json.encoder.encode_basestring_ascii
_TEMPLATE = "{" + ",".join('"%s":%%s' % k for k in FRAGMENT_KEYS)
_LITERALS = {None: "null", True: "true", False: "false"}


def _json_value(x):
    t = type(x)
    if x is None or t is bool:
        return _LITERALS[x]
    if t is str:
        return _enc_str(x)
    if t is int:
        return int.__repr__(x)
    return _encoder.encode(x)  # lists (shape) and anything else; ValueError on NaN


def _encode_one(s):
    fixed = {k: s[k] for k in FRAGMENT_KEYS}
    try:
        return _encoder.encode(fixed)[:-1]
    except ValueError:  # NaN somewhere: sanitised
        return _encoder.encode(_finite(fixed))[:-1]


def _finite(d):
    return {
        k: (None if (type(v) is float and v != v) or v in (float("inf"), float("-inf")) else v)
        for k, v in d.items()
    }


#: Small immutable values: the cache holds them, so "the same object" is exact and cheap.
HELD_TYPES = frozenset((int, float, complex, bool, type(None)))
HELD_TEXT = frozenset((str, bytes))
MAX_HELD_TEXT = 4096
_NOT_HELD = object()
#: Types whose instances cannot be weakly referenced (list, dict, tuple …), learnt once.
_NO_WEAKREF = {}
# entry slots
# entry slots: weak reference, id, type, fingerprint, preview limit, summary, its JSON
# fragment, the value itself when held; then the change and changed_at last sent and
# the whole JSON object sent with them (filled by entry._snapshot)
_REF, _ID, _TYPE, _FP, _LIMIT, _SUMMARY, _FRAGMENT, _HELD, _SENT_CHANGE, _SENT_AT, _SENT = range(11)


class SummaryCache:
    """name → summary, reused while (the object, its cheap fingerprint, preview size) are
    unchanged.  Small immutable values are held by the entry, so an identical object is
    the same value and nothing else is checked.  Other objects are held weakly when their
    type allows; otherwise their id plus a value-aware fingerprint (ints, strs … include
    their value) guards against id reuse."""

    def __init__(self, max_entries=MAX_CACHE):
        self.max_entries = max_entries
        self.entries = {}
        self.hits = 0
        self.misses = 0

    def get(self, name, v, limit, session):
        return self.entry(name, v, limit, session)[_SUMMARY]

    def fragments(self, entries):
        """Fill in the JSON fragments of ``entries`` (cached with them)."""
        todo = [e for e in entries if e[_FRAGMENT] is None]
        if todo:
            for entry, fragment in zip(todo, encode_fragments([e[_SUMMARY] for e in todo])):
                entry[_FRAGMENT] = fragment
        return [e[_FRAGMENT] for e in entries]

    def entry(self, name, v, limit, session, observe=None):
        """The cache entry of ``name`` bound to ``v``; ``observe(name, v, type, fp)``
        receives the fingerprint of every value that needs one (the change tracker)."""
        entry = self.entries.get(name)
        if entry is not None and entry[_HELD] is v and entry[_LIMIT] == limit:
            self.hits += 1
            return entry
        t = type(v)
        if t in HELD_TYPES or (t in HELD_TEXT and len(v) <= MAX_HELD_TEXT):
            fp = None
            held = v
        else:
            held = _NOT_HELD
            try:
                fp = inspector_for(t).fingerprint(v)
            except Exception:
                fp = ("error",)
            if observe is not None:
                observe(name, v, t, fp)
            if entry is not None:
                ref, ident, et, efp, elimit = entry[:5]
                if (
                    ident == id(v)
                    and et is t
                    and elimit == limit
                    and efp == fp
                    and (ref is None or ref() is v)
                ):
                    self.hits += 1
                    return entry
        self.misses += 1
        summary = build(name, v, limit, session)
        ref = None
        if held is _NOT_HELD and _NO_WEAKREF.get(t) is None:
            try:
                ref = weakref.ref(v)
            except TypeError:
                if len(_NO_WEAKREF) < 4096:
                    _NO_WEAKREF[t] = True
        if len(self.entries) >= self.max_entries:
            self.entries.clear()
        entry = [ref, id(v), t, fp, limit, summary, None, held, None, None, None]
        self.entries[name] = entry
        return entry

    def discard(self, name):
        self.entries.pop(name, None)

    def discard_many(self, names):
        """Forget ``names`` (the change tracker calls this with what changed)."""
        entries = self.entries
        if entries and names:
            collections.deque(map(entries.pop, names, itertools.repeat(None)), maxlen=0)

    def prune(self, ns):
        """Drop entries for names that are gone."""
        if len(self.entries) > 0:
            gone = [n for n in self.entries if n not in ns]
            for n in gone:
                del self.entries[n]
