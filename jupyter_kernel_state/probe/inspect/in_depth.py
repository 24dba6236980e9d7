"""One value (or a child reached by access keys) in depth: the ``VariableDetail`` dict.

Each part (repr, attributes, children, table, keys, signature, llm repr) runs under its
own time guard, so one slow part marks its error and the others are still filled.
"""

from .. import guard
from ..guard import BudgetExhausted, GuardUnavailable, ProbeTimeout
from . import summary
from .base import (
    MISSING,
    inspector_for,
    instance_dict,
    lookup_static,
    preview_of,
    type_name,
)
from .display import cut

#: The longest access key (longer ones name no child).
MAX_KEY = 2000
MAX_ATTRIBUTES = 100
MAX_CHILDREN = 100
MAX_KEYS = 100
CHILD_PREVIEW = 100

DETAIL_KEYS = (
    "repr",
    "repr_truncated",
    "attributes",
    "attributes_total",
    "children",
    "children_total",
    "columns",
    "columns_total",
    "head",
    "keys",
    "keys_total",
    "signature",
    "doc",
    "llm_repr",
)


class ChildNotFound(Exception):
    """No child of the value answers to this access key (the first argument)."""


def resolve_path(value, path, session):
    """The child reached from ``value`` by the access keys of ``path``, each read under
    the time guard; :class:`ChildNotFound` names the first key that reaches nothing."""
    for key in path:
        if type(key) is not str or len(key) > MAX_KEY:
            raise ChildNotFound(key if type(key) is str else "?")
        insp = inspector_for(type(value))
        try:
            value = session.run(insp.child, value, key)
        except (ProbeTimeout, BudgetExhausted, GuardUnavailable):
            raise ChildNotFound(key) from None
        except BaseException as exc:
            guard.check(exc)
            raise ChildNotFound(key) from None
    return value


def build(name, value, max_chars, preview_chars, session):
    """VariableDetail of ``value`` (a dict; the caller sets change fields)."""
    out = summary.complete(summary.build(name, value, preview_chars, session))
    errors = [out["error"]] if out["error"] else []
    for key in DETAIL_KEYS:
        out[key] = None
    out["repr"], out["repr_truncated"] = "", False
    out["attributes"], out["attributes_total"] = [], 0
    out["children"], out["children_total"] = [], 0
    insp = inspector_for(type(value))

    def part(label, fn, *args):
        try:
            return session.run(fn, *args)
        except ProbeTimeout:
            errors.append(label + " timed out")
        except BudgetExhausted:
            errors.append(label + " skipped: probe time budget exhausted")
        except GuardUnavailable:
            pass  # said once, by the summary's error
        except BaseException as exc:
            errors.append(guard.user_error(label, exc))
        return None

    llm = summary.llm_method(type(value))
    if llm is not None:
        result = part("llm repr", summary.call_llm_repr, llm, value, max_chars)
        out["llm_repr"] = result[0] if result else None
    result = part("repr", insp.detail_repr, value, max_chars)
    if result is None:
        result = ("" if not session.active else summary.fallback_text(value, max_chars)), False
    out["repr"], out["repr_truncated"] = result
    result = part("attributes", attributes, value)
    if result is not None:
        out["attributes"], out["attributes_total"] = result
    result = part("children", insp.children, value)
    if result is not None:
        out["children"], out["children_total"] = collect_children(result, session, errors)
    table = part("columns", insp.table, value)
    if table is not None:
        out.update(table)
    keys = part("keys", insp.keys, value)
    if keys is not None:
        out["keys"], out["keys_total"] = keys
    if hasattr(insp, "signature"):
        try:
            out["signature"] = session.run(insp.signature, value)
        except (ValueError, TypeError):
            pass  # builtins without a signature: not an error
        except ProbeTimeout:
            errors.append("signature timed out")
        except BudgetExhausted:
            errors.append("signature skipped: probe time budget exhausted")
        except GuardUnavailable:
            pass
        except BaseException as exc:
            errors.append(guard.user_error("signature", exc))
        out["doc"] = part("doc", insp.doc, value)
    out["error"] = "; ".join(errors) if errors else None
    return out


def collect_children(result, session, errors):
    iterator, total = result
    children = []
    for _ in range(MAX_CHILDREN):
        try:
            item = session.run(next, iterator, None)
        except (ProbeTimeout, BudgetExhausted):
            errors.append("children timed out")
            break
        except GuardUnavailable:
            break
        except BaseException as exc:
            errors.append(guard.user_error("children", exc))
            break
        if item is None:
            break
        key, label, child = item
        try:
            preview = session.run(preview_of, child, CHILD_PREVIEW)[0]
        except ProbeTimeout:
            preview = "<repr timed out>"
        except (BudgetExhausted, GuardUnavailable):
            preview = "<not inspected>"
        except BaseException as exc:
            preview = "<" + guard.user_error("repr", exc) + ">"
        children.append(
            {
                "access_key": key,
                "label": cut(label, 200)[0],
                "type": type_name(type(child)),
                "preview": preview,
            }
        )
    return children, total if type(total) is int else len(children)


def attributes(value):
    """Public attribute names with their static type (properties are not evaluated)."""
    names = set()
    d = instance_dict(value)
    if d is not None:
        names.update(k for k in d if type(k) is str)
    class_names = dir(type(value))
    names.update(n for n in class_names if type(n) is str)
    public = sorted(n for n in names if not n.startswith("_"))
    out = []
    for name in public[:MAX_ATTRIBUTES]:
        out.append({"name": name, "type": attribute_type(value, d, name)})
    return out, len(public)


def attribute_type(value, d, name):
    if d is not None and name in d:
        return type_name(type(d[name]))
    attr = lookup_static(type(value), name)
    if attr is MISSING:
        return "unknown"
    t = type(attr)
    if t is property:
        return "property"
    if type_name(t) in (
        "function",
        "method_descriptor",
        "wrapper_descriptor",
        "builtin_function_or_method",
    ):
        return "method"
    if t in (staticmethod, classmethod):
        return type_name(t)
    if lookup_static(t, "__get__", None) is not None and t is not type:
        return "property" if lookup_static(t, "__set__", None) is not None else type_name(t)
    return type_name(t)
