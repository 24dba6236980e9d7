"""The kernel-side probe.  Standard library only; imports nothing from the package.

Runs inside the user's kernel (shipped as source by ``service/probe_loader.py``) and is
importable normally for plain REPLs::

    from jupyter_kernel_state.probe import summarize, format_card
"""

from .entry import call, detail, format_card, install, probe_id, snapshot, summarize, uninstall

#: Submodules in dependency order: the loader executes them in this order.
MODULES = (
    "protocol",
    "guard",
    "display",
    "inspectors",
    "scalar_types",
    "builtin_types",
    "objects",
    "arrays",
    "tables",
    "third_party",
    "namespace",
    "ordering",
    "fragments",
    "static",
    "summary",
    "changes",
    "changelog",
    "timeline",
    "records",
    "bindings",
    "tracking",
    "snapshot",
    "digest",
    "detail",
    "cells",
    "frames",
    "tabular",
    "filters",
    "variable_ops",
    "rows",
    "quiet",
    "entry",
)

__all__ = [
    "call",
    "detail",
    "format_card",
    "install",
    "probe_id",
    "snapshot",
    "summarize",
    "uninstall",
]
