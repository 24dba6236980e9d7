"""One Variable dict per value, each field filled independently under the time guard."""

import sys
import types

from .. import guard
from ..guard import BudgetExhausted, ProbeTimeout
from . import display, static
from .base import (
    GENERIC,
    GenericInspector,
    Inspector,
    SubclassInspector,
    error_name,
    inspector_for,
    lookup_static,
    qualname,
    secret_attributes,
    shallow_memory,
    type_name,
)
from .display import cut
from .secrets import INSIDE


def own_repr(insp):
    """Whether ``insp`` previews a value by its own repr (the user's code)."""
    t = type(insp)
    return t is GenericInspector or (t is SubclassInspector and insp.own_repr)


#: Exact builtin containers summarised without a time guard when their first items are
#: plain scalars (nothing of the user's runs: base methods, builtin reprs).
PLAIN_CONTAINERS = frozenset((list, tuple, dict, set, frozenset))
LLM_METHODS = ("_repr_llm_", "_ai_repr_")
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
        "memory": None,
        "preview": "",
        "truncated": False,
        "error": None,
        "secret_reason": None,
    }


def complete(out):
    """``out`` with the Variable fields a snapshot leaves to the request (change) and to
    the server (annotations) at their defaults: the full ``VARIABLE_KEYS``."""
    out["change"], out["changed_at"], out["changes"] = "unchanged", None, []
    out["description"], out["constraints"], out["hidden_from_prompt"] = None, None, False
    return out


def _fill(insp, v, out, errors, limit, ctx):
    """Every field of a value whose summary runs no user code (``safe``/``safe_for``)."""
    step = "len"
    try:
        out["size"] = _int_or_none(insp.size(v))
        step = "shape"
        out["shape"] = insp.shape(v)
        step = "dtype"
        out["dtype"] = insp.dtype(v)
        step = "nbytes"
        out["nbytes"] = _int_or_none(insp.nbytes(v))
    except Exception as exc:
        errors.append(step + " raised " + error_name(exc))
    try:
        out["preview"], out["truncated"] = insp.preview(v, limit, 0, ctx)
    except Exception as exc:
        errors.append("repr raised " + error_name(exc))


#: Optional fields, each computed under its own timer: one that raises or times out
#: leaves the others (and the preview) standing.
_FIELD_STEPS = (("size", "len"), ("shape", "shape"), ("dtype", "dtype"), ("nbytes", "nbytes"))
_BASE_METHODS = {f: getattr(Inspector, f) for f, _ in _FIELD_STEPS}
_own_steps = {}


def _steps_of(insp):
    """The field steps ``insp`` overrides (the base ones return None: nothing to run)."""
    key = type(insp)
    steps = _own_steps.get(key)
    if steps is None:
        steps = _own_steps[key] = tuple(
            (f, label) for f, label in _FIELD_STEPS if getattr(key, f) is not _BASE_METHODS[f]
        )
    return steps


def _fill_guarded(insp, v, out, errors, limit, llm, session, ctx):
    t = type(v)
    for field, label in _steps_of(insp):
        if field == "size":
            if insp.size_safe:  # a base C method: no user code, no timer
                out["size"] = insp.size(v)
                continue
            if insp is GENERIC and lookup_static(t, "__len__", None) is None:
                continue
        result = _step(session, errors, label, getattr(insp, field), v)
        if result is _FAILED:
            if errors[-1] is _EXHAUSTED:
                return
            continue
        try:
            out[field] = result if field in ("shape", "dtype") else _int_or_none(result)
        except Exception as exc:  # a lying __len__ (exact int checked first: no user code)
            errors.append(label + " raised " + error_name(exc))
    if llm is not None and own_repr(insp) and secret_attributes(v):
        # its llm repr may show an attribute named like a credential: the preview instead
        # (its attributes, that one masked) unless revealed
        ctx.secrets += 1
        llm = llm if ctx.reveal else None
    if llm is not None:
        result = _step(session, errors, "llm repr", call_llm_repr, llm, v, limit)
        if result is not _FAILED:
            out["preview"], out["truncated"] = result
            return
        if errors[-1] is _EXHAUSTED:
            return
    result = _step(session, errors, "repr", insp.preview, v, limit, 0, ctx)
    if result is not _FAILED:
        out["preview"], out["truncated"] = result


_FAILED = object()
_EXHAUSTED = "not inspected: probe time budget exhausted"


def _step(session, errors, label, fn, *args):
    """``session.run(fn, *args)``, or ``_FAILED`` with the reason in ``errors``."""
    try:
        return session.run(fn, *args)
    except ProbeTimeout:
        errors.append(label + " timed out")
    except BudgetExhausted:
        errors.append(_EXHAUSTED)
    except BaseException as exc:  # SystemExit, a user's KeyboardInterrupt …: marked
        errors.append(guard.user_error(label, exc))
    return _FAILED


def _int_or_none(x):
    if x is None or type(x) is int:
        return x
    return int(x)


def build(name, v, limit, session=None, reveal=False):
    """The snapshot fields (``FRAGMENT_KEYS``) of ``v``; never raises for a hostile value
    (only for the probe's own interrupt).  ``complete`` adds the rest of the fields.

    Values under credential-like keys inside ``v`` are masked in its preview unless
    ``reveal``; either way ``secret_reason`` says they are there (``secrets.INSIDE``)."""
    t = type(v)
    insp = inspector_for(t)
    out = base_fields(name, v, insp)
    scalar = _SCALAR_PREVIEW.get(t)
    if scalar is not None:  # exact builtin scalars and text: builtin code only
        if t is str:
            out["size"] = len(v)
        out["preview"], out["truncated"] = scalar(v, limit)
        out["memory"] = sys.getsizeof(v)
        return out
    ctx = display.Ctx(reveal=reveal)
    if t in PLAIN_CONTAINERS:
        fast = (insp.plain_preview(v, limit, ctx=ctx) if t is dict
                else insp.plain_preview(v, limit))
        if fast is not None:  # no user code ran and none will: no guard, no timer
            out["size"] = insp.size(v)
            out["preview"], out["truncated"] = fast
            out["memory"] = sys.getsizeof(v)
            if ctx.secrets:
                out["secret_reason"] = INSIDE
            return out
    errors = []
    llm = llm_method(t)
    if llm is None and (insp.safe or insp.safe_for(v)):
        _fill(insp, v, out, errors, limit, ctx)
        if not out["preview"]:
            out["preview"] = fallback_text(v, limit)
    else:
        session = session or guard.current()
        if session is None or not session.active:
            # No time guard: nothing of the user's is called (see ``static``).
            static.fill(v, out, errors, limit)
            errors.append(session.unavailable if session is not None else guard.UNAVAILABLE)
        else:
            _fill_guarded(insp, v, out, errors, limit, llm, session, ctx)
            if not out["preview"]:
                out["preview"] = fallback_text(v, limit)
    if errors:
        out["error"] = "; ".join(errors)
    if ctx.secrets:
        out["secret_reason"] = INSIDE
    out["memory"] = out["nbytes"] if out["nbytes"] is not None else shallow_memory(v)
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
