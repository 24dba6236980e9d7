"""jupyter_kernel_state: a true, cheap, current picture of a running kernel.

This module only declares the Jupyter extension points; the work lives in ``app.py``
(server), ``probe/`` (inside the kernel) and ``service/``.
"""

from __future__ import annotations

from typing import Any

try:
    from ._version import __version__
except ImportError:  # running from a source tree that was never built
    __version__ = "0.0.0.dev0"


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyter-kernel-state"}]


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    from .app import KernelStateApp

    return [{"module": "jupyter_kernel_state", "app": KernelStateApp}]
