"""Ship the probe to a kernel as source, build call expressions, parse replies.

The probe package (``jupyter_kernel_state/probe``) is read with importlib.resources and
wrapped in one bootstrap string.  Executed silently in the kernel it registers a private
package ``_jupyter_kernel_state_probe`` in ``sys.modules`` — never in the user namespace —
then calls its ``install()``.  Calls are one ``user_expressions`` entry whose only variable
part is urlsafe base64 inside a string literal: names never become source code.
"""

from __future__ import annotations

import base64
import functools
import json
import zlib
from importlib import resources
from typing import Any

from ..errors import ProbeFailed, ProbeMissing
from ..probe import MODULES

MODULE_NAME = "_jupyter_kernel_state_probe"
#: Probe modules (dotted, from the package) in dependency order (``probe.MODULES`` is the
#: one list); each sub-package is created before its first module.
PROBE_MODULES = MODULES
#: Longest evalue kept in a ProbeFailed message.
MAX_ERROR_CHARS = 200

# Runs in the kernel: creates the package, each sub-package (``__path__``, ``__package__``,
# its ``__init__`` executed) before its first module, and each module registered before
# its source runs, so that relative imports resolve through ``sys.modules``.  Everything
# is local to ``_bootstrap``; a failure leaves no half-installed probe behind.
_BOOTSTRAP = '''
def _bootstrap(sources, order, name):
    import sys, types

    def forget():
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]

    def run(module, key, path):
        code = compile(sources[key], "<jupyter_kernel_state probe " + path + ">", "exec")
        exec(code, module.__dict__)

    def package(full):
        module = types.ModuleType(full)
        module.__path__ = []
        module.__package__ = full
        sys.modules[full] = module
        return module

    old = sys.modules.get(name)
    if old is not None:
        try:
            old.uninstall()
        except Exception:
            pass
    forget()
    root = package(name)
    root.__doc__ = "jupyter_kernel_state probe (installed by the server)"
    try:
        for dotted in order:
            parts = dotted.split(".")
            parent = root
            for depth in range(1, len(parts)):
                inner = ".".join(parts[:depth])
                sub = sys.modules.get(name + "." + inner)
                if sub is None:
                    sub = package(name + "." + inner)
                    run(sub, inner + ".__init__", inner.replace(".", "/") + "/__init__.py")
                    setattr(parent, parts[depth - 1], sub)
                parent = sub
            module = types.ModuleType(name + "." + dotted)
            module.__package__ = parent.__name__
            sys.modules[module.__name__] = module
            run(module, dotted, dotted.replace(".", "/") + ".py")
            setattr(parent, parts[-1], module)
        run(root, "__init__", "__init__.py")
        root.install()
    except BaseException:
        forget()
        raise

_bootstrap(SOURCES, ORDER, NAME)
'''


def probe_sources() -> dict[str, str]:
    """Each module's source by its dotted name, each sub-package's ``__init__`` as
    ``<package>.__init__``, the package's own as ``__init__``."""
    root = resources.files("jupyter_kernel_state.probe")
    sources = {"__init__": (root / "__init__.py").read_text(encoding="utf-8")}
    for dotted in PROBE_MODULES:
        *packages, leaf = dotted.split(".")
        where = root
        for depth, part in enumerate(packages, start=1):
            where = where / part
            key = ".".join(packages[:depth]) + ".__init__"
            if key not in sources:
                sources[key] = (where / "__init__.py").read_text(encoding="utf-8")
        sources[dotted] = (where / f"{leaf}.py").read_text(encoding="utf-8")
    return sources


@functools.lru_cache(maxsize=1)
def install_code() -> str:
    """Source that (re)installs the probe; leaves nothing in the user namespace."""
    namespace = {"SOURCES": probe_sources(), "ORDER": PROBE_MODULES, "NAME": MODULE_NAME}
    return f"exec({_BOOTSTRAP!r}, {namespace!r})\n"


@functools.lru_cache(maxsize=1)
def install_expression() -> str:
    """``install_code`` as one ``user_expressions`` entry: compressed, and evaluated by the
    kernel without the transforming, parsing and compiling IPython gives a cell's code (a
    megabyte of source: about three times the cost). Its value is ``None``; a failure is
    the entry's error."""
    packed = base64.b64encode(zlib.compress(install_code().encode("utf-8"), 6)).decode("ascii")
    return (f"exec(__import__('zlib').decompress(__import__('base64').b64decode('{packed}'))"
            ".decode('utf-8'), {})")


def install_error(entry: dict[str, Any] | None) -> str | None:
    """What went wrong installing, from the install expression's ``user_expressions``
    entry; None when it ran."""
    if not isinstance(entry, dict):
        return "the kernel did not evaluate the install expression"
    if entry.get("status") == "ok":
        return None
    return f"{entry.get('ename', 'error')}: {entry.get('evalue', '')}"[:MAX_ERROR_CHARS]


def call_expression(request: dict[str, Any]) -> str:
    """The ``user_expressions`` entry for one probe request."""
    payload = json.dumps(request, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    encoded = base64.urlsafe_b64encode(payload.encode("ascii")).decode("ascii")
    return f"__import__('sys').modules['{MODULE_NAME}'].call('{encoded}')"


def parse_reply(entry: dict[str, Any]) -> dict[str, Any]:
    """The reply dict from a ``user_expressions`` entry.

    Raises ProbeMissing when the probe module is absent, ProbeFailed otherwise.
    """
    status = entry.get("status")
    if status == "ok":
        text = (entry.get("data") or {}).get("text/plain")
        if not isinstance(text, str):
            raise ProbeFailed("probe reply has no text/plain")
        head, newline, lines = text.partition("\n")
        try:
            reply = json.loads(head)
        except ValueError:
            raise ProbeFailed("probe reply is not JSON") from None
        if not isinstance(reply, dict):
            raise ProbeFailed("probe reply is not an object")
        if newline:  # "lines" framing: one variable's JSON per line, passed through
            fragments = lines.split("\n")
            if reply.get("variables_count") != len(fragments):
                raise ProbeFailed("probe reply lost variables")
            reply["fragments"] = fragments
        elif reply.get("variables_count") == 0:
            reply["fragments"] = []
        return reply
    ename = str(entry.get("ename") or "error")
    evalue = str(entry.get("evalue") or "")
    if ename == "KeyError" and MODULE_NAME in evalue:
        raise ProbeMissing(MODULE_NAME)
    if len(evalue) > MAX_ERROR_CHARS:
        evalue = evalue[: MAX_ERROR_CHARS - 1] + "…"
    raise ProbeFailed(f"{ename}: {evalue}" if evalue else ename)
