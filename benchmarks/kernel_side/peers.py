"""Kernel-side: the two naive peers the product is compared with, written for this
benchmark (no code copied from the projects whose *approach* they follow).

A — "full repr, then cut" (the TaskWeaver code-interpreter approach): walk the user
    namespace, ``repr(value)`` in full, keep 500 characters.
B — "eval + str per variable" (the classic variable-inspector approach): for each name,
    ``eval(name)``, ``str(value)`` in full, ``type(value).__name__``,
    ``sys.getsizeof(value)`` and ``len(value)`` when it has one.

Both skip the names the product skips by default (``_``-names, IPython's own names,
modules, callables) and answer with one JSON text, transported like the probe's reply
(an object whose repr is the JSON) so that the transport costs the same for everyone.
"""

import json
import sys
import types

REPR_CHARS = 500
CONTENT_CHARS = 200
IPYTHON_NAMES = frozenset(("In", "Out", "exit", "quit", "get_ipython"))


class JsonText:
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)


def _user_ns():
    from IPython import get_ipython

    return get_ipython().user_ns


def _shown(name, value):
    if name.startswith("_") or name in IPYTHON_NAMES:
        return False
    return not isinstance(value, types.ModuleType) and not callable(value)


def full_repr_then_cut():
    """Peer A."""
    out = []
    for name, value in list(_user_ns().items()):
        if not _shown(name, value):
            continue
        text = repr(value)
        out.append({"name": name, "type": type(value).__name__, "repr": text[:REPR_CHARS]})
    return JsonText(json.dumps(out))


def eval_and_str():
    """Peer B."""
    ns = _user_ns()
    out = []
    for name in sorted(ns):
        if name.startswith("_") or name in IPYTHON_NAMES:
            continue
        value = eval(name, ns)
        if isinstance(value, types.ModuleType) or callable(value):
            continue
        content = str(value)
        out.append(
            {
                "varName": name,
                "varType": type(value).__name__,
                "varSize": sys.getsizeof(value),
                "varLen": len(value) if hasattr(value, "__len__") else None,
                "varContent": content[:CONTENT_CHARS],
            }
        )
    return JsonText(json.dumps(out))
