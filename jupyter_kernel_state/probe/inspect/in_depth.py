"""One value (or a child reached by access keys) in depth: the ``VariableDetail`` dict.

Each part (repr, attributes, children, table, keys, signature, llm repr) runs under its
own time guard, so one slow part marks its error and the others are still filled.

Secrets: a value under a credential-like key, attribute or field reads ``[masked]`` in
the repr, the preview and the children (unless ``reveal``), and ``secret_reason`` says
so (``secrets.INSIDE``); a child reached through such a key is masked whole
(``secrets.UNDER``).  Attributes list data before methods (``METHOD_TYPES``), so the cap
keeps what a reader wants first.
"""

import json

from .. import guard
from ..guard import BudgetExhausted, GuardUnavailable, ProbeTimeout
from . import display, summary
from .base import (
    MISSING,
    Inspector,
    inspector_for,
    instance_dict,
    lookup_static,
    preview_of,
    secret_attributes,
    type_name,
)
from .display import cut
from .objects import FieldsInspector
from .secrets import INSIDE, MASK, UNDER, secret_key

#: The longest access key (longer ones name no child).
MAX_KEY = 2000
MAX_ATTRIBUTES = 100
MAX_CHILDREN = 100
MAX_KEYS = 100
CHILD_PREVIEW = 100
#: Public attribute names typed and ordered (data before methods) at most; past it the
#: rest are counted in ``attributes_total`` only.
MAX_TYPED_ATTRIBUTES = 1000
#: The attribute types that are methods (a reader's second interest).
METHOD_TYPES = frozenset(("method", "classmethod", "staticmethod"))
#: How a type stores the callables it defines, by the descriptor's type name, and the
#: attribute type each is listed as. The rule is the same for every type, builtin
#: containers included: a callable of the class (``dict.fromkeys``, a
#: ``classmethod_descriptor``; ``int.from_bytes``; ``str.maketrans``, a staticmethod; a
#: ``functools.partialmethod``) is a method, never the value's data.
METHOD_DESCRIPTORS = {
    "function": "method",
    "method_descriptor": "method",
    "wrapper_descriptor": "method",
    "builtin_function_or_method": "method",
    "partialmethod": "method",
    "singledispatchmethod": "method",
    "classmethod_descriptor": "classmethod",
    "classmethod": "classmethod",
    "staticmethod": "staticmethod",
}

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
    """``(child, under_secret)``: the child reached from ``value`` by the access keys of
    ``path``, each read under the time guard, and whether one of the keys looks like a
    credential's; :class:`ChildNotFound` names the first key that reaches nothing."""
    under_secret = False
    for key in path:
        if type(key) is not str or len(key) > MAX_KEY:
            raise ChildNotFound(key if type(key) is str else "?")
        insp = inspector_for(type(value))
        under_secret = under_secret or secret_access(insp, key)
        try:
            value = session.run(insp.child, value, key)
        except (ProbeTimeout, BudgetExhausted, GuardUnavailable):
            raise ChildNotFound(key) from None
        except BaseException as exc:
            guard.check(exc)
            raise ChildNotFound(key) from None
    return value, under_secret


def secret_access(insp, key):
    """Whether the access key ``key`` (of a value ``insp`` inspects) goes through a key,
    attribute or field whose name looks like a credential's."""
    kind, rest = key[:2], key[2:]
    if kind == "a:":
        return secret_key(rest)
    if kind == "k:":
        try:
            return secret_key(json.loads(rest))
        except ValueError:
            return False
    if kind == "i:" and type(insp) is FieldsInspector and insp.tuple_based:
        index = int(rest) if rest.isdigit() and len(rest) < 6 else -1
        return 0 <= index < len(insp.fields) and secret_key(insp.fields[index])
    return False


def build(name, value, max_chars, preview_chars, session, reveal=False, under_secret=False):
    """VariableDetail of ``value`` (a dict; the caller sets change fields).  Values under
    credential-like keys are masked unless ``reveal``; ``under_secret``: ``value`` was
    reached through such a key, and is masked whole."""
    out = summary.complete(summary.build(name, value, preview_chars, session, reveal))
    errors = [out["error"]] if out["error"] else []
    secrets = display.Ctx(reveal=reveal)  # counts what the repr meets
    child_secrets = display.Ctx(reveal=reveal)  # and what the children do
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
    if llm is not None and not reveal and summary.own_repr(insp) and secret_attributes(value):
        llm = None  # it may show an attribute named like a credential (the repr will not)
    if llm is not None:
        result = part("llm repr", summary.call_llm_repr, llm, value, max_chars)
        out["llm_repr"] = result[0] if result else None
    if type(insp).detail_repr is Inspector.detail_repr:
        result = part("repr", insp.detail_repr, value, max_chars, secrets)
    else:
        result = part("repr", insp.detail_repr, value, max_chars)
    if result is None:
        result = ("" if not session.active else summary.fallback_text(value, max_chars)), False
    out["repr"], out["repr_truncated"] = result
    result = part("attributes", attributes, value)
    if result is not None:
        out["attributes"], out["attributes_total"] = result
    result = part("children", insp.children, value)
    if result is not None:
        out["children"], out["children_total"] = collect_children(
            result, session, errors, insp, child_secrets)
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
    if (secrets.secrets or child_secrets.secrets) and out["secret_reason"] is None:
        out["secret_reason"] = INSIDE
    if under_secret:
        out["secret_reason"] = UNDER
        if not reveal:
            mask_whole(out)
    return out


def mask_whole(out):
    """A detail's value fields masked, in place (its type, size, keys and errors stay)."""
    out["preview"], out["truncated"] = MASK, False
    out["repr"], out["repr_truncated"] = MASK, False
    if out["llm_repr"] is not None:
        out["llm_repr"] = MASK
    out["head"] = None
    for child in out["children"]:
        child["preview"] = MASK


def collect_children(result, session, errors, insp=None, secrets=None):
    """The first ``MAX_CHILDREN`` children, each with a bounded preview; one under a
    credential-like key reads ``[masked]`` unless ``secrets.reveal`` (counted there)."""
    if secrets is None:
        secrets = display.Ctx()
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
        masked = insp is not None and secret_access(insp, key)
        if masked:
            secrets.secrets += 1
        hide = masked and not secrets.reveal
        preview = MASK if hide else child_preview(child, session, secrets)
        children.append(
            {
                "access_key": key,
                "label": cut(label, 200)[0],
                "type": type_name(type(child)),
                "preview": preview,
            }
        )
    return children, total if type(total) is int else len(children)


def child_preview(child, session, ctx):
    """A child's bounded preview under the time guard, or what stopped it."""
    try:
        return session.run(preview_of, child, CHILD_PREVIEW, 0, ctx)[0]
    except ProbeTimeout:
        return "<repr timed out>"
    except (BudgetExhausted, GuardUnavailable):
        return "<not inspected>"
    except BaseException as exc:
        return "<" + guard.user_error("repr", exc) + ">"


def attributes(value):
    """Public attribute names with their static type (properties are not evaluated):
    data first, then methods (``METHOD_TYPES``), each by name; at most ``MAX_ATTRIBUTES``
    of them, and how many there are."""
    names = set()
    d = instance_dict(value)
    if d is not None:
        names.update(k for k in d if type(k) is str)
    class_names = dir(type(value))
    names.update(n for n in class_names if type(n) is str)
    public = sorted(n for n in names if not n.startswith("_"))
    typed = [(name, attribute_type(value, d, name)) for name in public[:MAX_TYPED_ATTRIBUTES]]
    typed.sort(key=lambda pair: pair[1] in METHOD_TYPES)  # stable: by name within each
    out = [{"name": name, "type": kind} for name, kind in typed[:MAX_ATTRIBUTES]]
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
    method = METHOD_DESCRIPTORS.get(type_name(t))
    if method is not None:
        return method
    if lookup_static(t, "__get__", None) is not None and t is not type:
        return "property" if lookup_static(t, "__set__", None) is not None else type_name(t)
    return type_name(t)
