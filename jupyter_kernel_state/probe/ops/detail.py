"""The ``detail`` op: one variable (or a child reached by access keys) in depth.

The variable is looked up by its exact namespace key; the child by its access keys
(``inspect.in_depth.resolve_path``), each read under the time guard; the reply is its
``VariableDetail`` (``inspect.in_depth.build``) with, for a variable, its change fields.
Values under credential-like keys come masked unless the request says ``reveal``.
"""

from .. import guard
from ..inspect.base import MISSING
from ..inspect.in_depth import ChildNotFound, build, resolve_path
from ..namespace.visibility import is_hidden, lookup
from ..protocol import refusal


def take(state, fields, ns, hidden, tracker):
    """The ``detail`` op: ``{"variable": VariableDetail}``, or not found."""
    name, path = fields["name"], fields["path"]
    value = lookup(ns, name)
    if value is MISSING or is_hidden(name, value, hidden):
        return refusal("not_found", "Variable not found: " + name)
    with guard.session(fields["time_guard_ms"], fields["budget_ms"]) as session:
        try:
            target, under_secret = resolve_path(value, path, session)
        except ChildNotFound as exc:
            key = exc.args[0] if exc.args and type(exc.args[0]) is str else "?"
            return refusal("not_found", "Child not found: " + key[:200])
        out = build(name, target, fields["max_chars"], fields["preview_chars"], session,
                    fields["reveal"], under_secret)
    if tracker is not None and not path:
        since = tracker.resolve_since(fields["since_ec"])
        out["change"], out["changed_at"], out["changes"] = tracker.change_of(name, value, since)
    return {"variable": out}
