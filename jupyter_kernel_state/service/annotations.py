"""The user's notes on variables: description, constraints, hide-from-assistant.

Keyed by the notebook path of the kernel's session where there is one (so the notes
follow the notebook across kernel and server restarts), else by kernel id. Saved to a
JSON file after every change (written atomically), loaded at start. Bounded in field
size and count.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import InvalidRequest

MAX_FIELD_CHARS = 2000
MAX_ANNOTATIONS = 10_000
FIELDS = ("description", "constraints", "hidden_from_prompt")


def parse_annotation(body: bytes | str) -> dict[str, Any]:
    """Validate a PUT body: only known fields, strings ≤ 2,000 chars or null, a boolean."""
    try:
        value = json.loads(body or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InvalidRequest("Body must be a JSON object") from None
    if not isinstance(value, dict):
        raise InvalidRequest("Body must be a JSON object")
    unknown = set(value) - set(FIELDS)
    if unknown:
        raise InvalidRequest(f"Unknown field: {sorted(unknown)[0][:40]!r}; "
                             f"accepted: {', '.join(FIELDS)}")
    result: dict[str, Any] = {}
    for key in ("description", "constraints"):
        text = value.get(key)
        if text is not None and not isinstance(text, str):
            raise InvalidRequest(f"{key} must be a string or null")
        if isinstance(text, str) and len(text) > MAX_FIELD_CHARS:
            raise InvalidRequest(f"{key} is longer than {MAX_FIELD_CHARS} characters")
        result[key] = (text.strip() or None) if isinstance(text, str) else None
    hidden = value.get("hidden_from_prompt", False)
    if not isinstance(hidden, bool):
        raise InvalidRequest("hidden_from_prompt must be true or false")
    result["hidden_from_prompt"] = hidden
    return result


class AnnotationStore:
    def __init__(self, path: Path | None, log: logging.Logger | None = None) -> None:
        self.path = path
        self.log = log or logging.getLogger("jupyter_kernel_state")
        self._data: dict[str, dict[str, dict[str, Any]]] = {}
        self.version = 0
        self._load()

    def _load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            scopes = raw.get("annotations", {}) if isinstance(raw, dict) else {}
            self._data = {
                str(scope): {str(name): dict(note) for name, note in notes.items()
                             if isinstance(note, dict)}
                for scope, notes in scopes.items() if isinstance(notes, dict)
            }
        except (OSError, ValueError, AttributeError, TypeError) as e:
            self.log.warning("jupyter_kernel_state: ignoring unreadable annotations file: %s", e)

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": 1, "annotations": self._data}, indent=1)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".annotations-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(payload)
            os.replace(tmp, self.path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            raise

    def count(self) -> int:
        return sum(len(notes) for notes in self._data.values())

    def for_scope(self, scope: str) -> dict[str, dict[str, Any]]:
        return self._data.get(scope, {})

    def put(self, scope: str, name: str, note: dict[str, Any]) -> dict[str, Any]:
        notes = self._data.setdefault(scope, {})
        if name not in notes and self.count() >= MAX_ANNOTATIONS:
            raise InvalidRequest(f"Annotation limit reached ({MAX_ANNOTATIONS:,})")
        stored = {**note, "updated_at": datetime.datetime.now(datetime.timezone.utc)
                  .isoformat(timespec="seconds")}
        notes[name] = stored
        self.version += 1
        self._save()
        return {"name": name, **stored}

    def delete(self, scope: str, name: str) -> bool:
        notes = self._data.get(scope, {})
        if name not in notes:
            return False
        del notes[name]
        if not notes:
            self._data.pop(scope, None)
        self.version += 1
        self._save()
        return True
