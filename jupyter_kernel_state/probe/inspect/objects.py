"""Inspectors for callables, classes, modules, dataclass instances and namedtuples."""

import functools
import inspect
import itertools
import sys
import types

from . import display
from .base import (
    BY_TYPE,
    RESOLVERS,
    Inspector,
    NotEvaluated,
    callable_name,
    instance_dict,
    isinstance_type,
    lookup_static,
    preview_of,
    qualname,
    static_attr,
    type_name,
)
from .display import cut

#: Characters of a callable's signature in a list preview / in a detail.
MAX_SIGNATURE = 300
MAX_DOC = 1000
MAX_PARAMS = 30

CALLABLE_TYPES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
    functools.partial,
    staticmethod,
    classmethod,
)


def signature_text(f, limit=MAX_SIGNATURE):
    """``(a, b=1, *args, **kw)`` with each default bounded; never ``repr`` of a big
    default.  Raises ValueError/TypeError when there is no signature."""
    sig = inspect.signature(f)
    parts = []
    kinds = inspect.Parameter
    saw_kwonly = saw_posonly = False
    for i, p in enumerate(itertools.islice(sig.parameters.values(), MAX_PARAMS + 1)):
        if i == MAX_PARAMS:
            parts.append("…")
            break
        if p.kind is kinds.POSITIONAL_ONLY:
            saw_posonly = True
        elif saw_posonly:
            parts.append("/")
            saw_posonly = False
        if p.kind is kinds.KEYWORD_ONLY and not saw_kwonly:
            saw_kwonly = True
            if not any(q.startswith("*") and not q.startswith("**") for q in parts):
                parts.append("*")
        text = p.name
        if p.kind is kinds.VAR_POSITIONAL:
            text = "*" + text
        elif p.kind is kinds.VAR_KEYWORD:
            text = "**" + text
        if p.default is not p.empty:
            text += "=" + preview_of(p.default, 40)[0]
        parts.append(text)
    if saw_posonly:
        parts.append("/")
    return cut("(" + ", ".join(parts) + ")", limit)


def first_paragraph(doc, limit=MAX_DOC):
    if type(doc) is not str:
        return None
    doc = inspect.cleandoc(doc[: limit * 4]).strip()
    return cut(doc.split("\n\n", 1)[0], limit)[0] or None


class CallableInspector(Inspector):
    kind = "callable"
    mutable = False

    def preview(self, v, limit, depth=0, ctx=None):
        t = type(v)
        suffix = ""
        if t is types.MethodType:
            # A bound method: its function's name and what it is bound to (never the
            # method's own forwarding attributes, never the instance's repr).
            owner = _method_self(v)
            name = callable_name(_method_func(v))
            if isinstance_type(owner, (type,)):
                name, suffix = "classmethod " + name, " of <class '" + qualname(owner) + "'>"
            else:
                name, suffix = "method " + name, " of <" + type_name(type(owner)) + " object>"
        elif t in (staticmethod, classmethod):
            func = _wrapped_func(v)
            name = type_name(t) + " " + callable_name(func)
            v = func
        else:
            name = callable_name(v.func if t is functools.partial else v)
            if t is functools.partial:
                name = "partial(" + name + ", …)"
        try:
            sig = signature_text(v, max(10, limit - len(name) - len(suffix)))[0]
        except (ValueError, TypeError):
            sig = "(…)"
        return cut(name + sig + suffix, limit)

    def fingerprint(self, v):
        return None

    def signature(self, v):
        return signature_text(v)[0]

    def doc(self, v):
        target = v.func if type(v) is functools.partial else v
        try:
            return first_paragraph(static_attr(target, "__doc__"))
        except (AttributeError, NotEvaluated):
            return None


_method_func = types.MethodType.__func__.__get__
_method_self = types.MethodType.__self__.__get__


def _wrapped_func(v):
    """``__func__`` of an exact staticmethod/classmethod object (a C member)."""
    return type.__dict__["__dict__"].__get__(type(v))["__func__"].__get__(v)


class ClassInspector(CallableInspector):
    kind = "class"

    def preview(self, v, limit, depth=0, ctx=None):
        return cut("<class '" + qualname(v) + "'>", limit)

    def signature(self, v):
        return signature_text(v)[0]

    def doc(self, v):
        d = _own_dict(v)
        return first_paragraph(d.get("__doc__")) if d is not None else None

    def children(self, v):
        return _namespace_children(_own_dict(v), "__")


def _namespace_children(d, hidden):
    """The children of a class or a module: the names of its namespace ``d`` (None: no
    children) that are text and do not start with ``hidden``."""
    if d is None:
        return None
    items = [(k, x) for k, x in d.items() if type(k) is str and not k.startswith(hidden)]
    return ((("a:" + k, k, x) for k, x in items), len(items))


def _own_dict(cls):
    try:
        return type.__dict__["__dict__"].__get__(cls)
    except Exception:
        return None


class ModuleInspector(Inspector):
    kind = "module"
    mutable = False

    def preview(self, v, limit, depth=0, ctx=None):
        d = instance_dict(v) or {}
        name = d.get("__name__")
        name = name if type(name) is str else "?"
        where = d.get("__file__")
        text = "<module '" + name + "'"
        if type(where) is str:
            text += " from '" + where + "'"
        return cut(text + ">", limit)

    def fingerprint(self, v):
        return None

    def doc(self, v):
        d = instance_dict(v) or {}
        return first_paragraph(d.get("__doc__"))

    def children(self, v):
        return _namespace_children(instance_dict(v), "_")


class FieldsInspector(Inspector):
    """Dataclass instances and namedtuples: ``Point(x=1, y=2)`` from statically read
    fields; children are the fields."""

    def __init__(self, t, fields, kind="object", tuple_based=False):
        self.name = type_name(t)
        self.fields = tuple(fields)
        self.kind = kind
        self.tuple_based = tuple_based
        self.mutable = not tuple_based

    def _values(self, v):
        for i, name in enumerate(self.fields):
            if self.tuple_based:
                try:
                    yield name, tuple.__getitem__(v, i)
                except IndexError:
                    return
                continue
            try:
                yield name, static_attr(v, name)
            except NotEvaluated:
                yield name, _Marker("<property>")
            except AttributeError:
                yield name, _Marker("<unset>")

    def size(self, v):
        return tuple.__len__(v) if self.tuple_based else None

    cheap_size = size

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        mark = display.enter(v, depth, ctx)
        opener = self.name + "("
        if mark is not None:
            return opener + mark + ")", True
        ctx.seen.add(id(v))
        try:
            return display.pairs_repr(
                opener,
                ")",
                self._values(v),
                len(self.fields),
                limit,
                depth,
                ctx,
                _field_elem,
                "=",
                _bare,
            )
        finally:
            ctx.seen.discard(id(v))

    def children(self, v):
        prefix = "i:" if self.tuple_based else "a:"

        def gen():
            for i, (name, value) in enumerate(self._values(v)):
                yield prefix + (str(i) if self.tuple_based else name), name, value

        return gen(), len(self.fields)

    def child(self, v, key):
        if self.tuple_based and key.startswith("i:") and key[2:].isdigit():
            return tuple.__getitem__(v, int(key[2:]))
        return Inspector.child(self, v, key)


class _Marker:
    def __init__(self, text):
        self.text = text


def _field_elem(value, limit, depth, ctx):
    if type(value) is _Marker:
        return cut(value.text, limit)
    return preview_of(value, limit, depth, ctx)


def _bare(name, limit, depth, ctx):
    return cut(name, limit)


def _resolve(t, m):
    if type in m:
        return CLASS
    if types.ModuleType in m:
        return MODULE
    if any(c in m for c in CALLABLE_TYPES):
        return CALLABLE
    if tuple in m:
        fields = lookup_static(t, "_fields", None)
        if type(fields) is tuple and all(type(f) is str for f in fields):
            return FieldsInspector(t, fields, "sequence", tuple_based=True)
    dc = lookup_static(t, "__dataclass_fields__", None)
    if type(dc) is dict:
        return FieldsInspector(t, _dataclass_fields(dc))
    return None


def _dataclass_fields(dc):
    dataclasses = sys.modules.get("dataclasses")
    plain = getattr(dataclasses, "_FIELD", None)
    for name, field in dc.items():
        if type(name) is not str:
            continue
        ftype = getattr(field, "_field_type", plain)
        if ftype is plain and getattr(field, "repr", True):
            yield name


class DictViewInspector(Inspector):
    """``dict_keys``/``dict_values``/``dict_items``: the first items, never the whole
    view's repr (which would be the whole dict's)."""

    size_safe = True
    mutable = True

    def __init__(self, label, kind):
        self.label = label
        self.kind = kind

    def size(self, v):
        return len(v)  # the dict's C length

    cheap_size = size

    def preview(self, v, limit, depth=0, ctx=None):
        ctx = ctx or display.Ctx()
        opener, closer = self.label + "([", "])"
        return display.items_repr(
            opener, closer, iter(v), len(v), limit, depth, ctx, preview_of, opener + closer
        )

    def fingerprint(self, v):
        return ("len", len(v), None)


CLASS = ClassInspector()
MODULE = ModuleInspector()
CALLABLE = CallableInspector()
for _t in CALLABLE_TYPES:
    BY_TYPE[_t] = CALLABLE
BY_TYPE[type] = CLASS
_VIEWS = ((type({}.keys()), "set"), (type({}.values()), "sequence"), (type({}.items()), "set"))
for _t, _kind in _VIEWS:
    BY_TYPE[_t] = DictViewInspector(type_name(_t), _kind)
BY_TYPE[types.ModuleType] = MODULE
RESOLVERS.append(_resolve)
del _t, _kind
