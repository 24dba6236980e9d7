"""A stand-in for IPython's shell (a real namespace dict, events, a counter): the probe's
hook and caches run on it as in a kernel, without one."""

from __future__ import annotations

import types
from typing import Any


class Events:
    def __init__(self) -> None:
        self.callbacks: dict[str, list[Any]] = {"post_run_cell": []}

    def register(self, event: str, callback: Any) -> None:
        self.callbacks.setdefault(event, []).append(callback)

    def unregister(self, event: str, callback: Any) -> None:
        self.callbacks[event].remove(callback)


class Shell:
    """Just enough of IPython's shell: a namespace, hidden names, events, a counter."""

    def __init__(self) -> None:
        self.user_ns: dict[str, Any] = {"__name__": "__main__", "In": [], "Out": {}, "_": None, "_i": ""}
        self.user_ns_hidden: dict[str, Any] = {k: v for k, v in self.user_ns.items()}
        self.events = Events()
        self.execution_count = 1

    def run(self, code: str = "", **bind: Any) -> int:
        """A user cell: bind names (``None`` deletes), record it as IPython does, fire
        post_run_cell.  Returns its execution count."""
        ec = self.execution_count
        for name, value in bind.items():
            if value is DELETE:
                del self.user_ns[name]
            else:
                self.user_ns[name] = value
        self.user_ns["_i"] = code
        self.user_ns[f"_i{ec}"] = code  # IPython adds one such name per cell
        self.execution_count += 1
        result = types.SimpleNamespace(execution_count=ec)
        for callback in list(self.events.callbacks["post_run_cell"]):
            callback(result)
        return ec


DELETE = object()
