"""The default shortcuts of schema/plugin.json are free in JupyterLab: no default shortcut
of JupyterLab's own extensions (read from the installed JupyterLab's schemas) uses the
same keys. ``Accel Shift K`` is not: the table of contents and CodeMirror's delete-line
have it."""

from __future__ import annotations

import json
from pathlib import Path

import jupyterlab

PLUGIN = Path(__file__).resolve().parent.parent / "schema" / "plugin.json"
LAB_SCHEMAS = Path(jupyterlab.__file__).resolve().parent / "schemas"
MODIFIERS = ("Accel", "Alt", "Ctrl", "Meta", "Shift")


def normal(keys: list[str]) -> tuple[str, ...]:
    """A key sequence with each chord's modifiers in one order (``Shift Accel K`` is
    ``Accel Shift K``)."""
    chords = []
    for chord in keys:
        parts = chord.split()
        mods = sorted((p for p in parts if p in MODIFIERS), key=MODIFIERS.index)
        chords.append(" ".join([*mods, *(p for p in parts if p not in MODIFIERS)]))
    return tuple(chords)


def lab_shortcuts() -> dict[tuple[str, ...], list[str]]:
    taken: dict[tuple[str, ...], list[str]] = {}
    for path in LAB_SCHEMAS.rglob("*.json"):
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if not isinstance(schema, dict):
            continue
        for shortcut in schema.get("jupyter.lab.shortcuts", []):
            taken.setdefault(normal(shortcut["keys"]), []).append(shortcut["command"])
    return taken


def test_jupyterlabs_defaults_are_read() -> None:
    taken = lab_shortcuts()
    assert len(taken) > 50
    assert "toc:show-panel" in taken[("Accel Shift K",)]


def test_show_kernel_state_has_a_free_default_shortcut() -> None:
    ours = json.loads(PLUGIN.read_text(encoding="utf-8"))["jupyter.lab.shortcuts"]
    assert {s["command"] for s in ours} >= {"kernel-state:open"}
    taken = lab_shortcuts()
    for shortcut in ours:
        keys = normal(shortcut["keys"])
        assert keys not in taken, (shortcut, taken.get(keys))
        assert shortcut["selector"] == "body"
