"""Recent user executions, rebuilt from IOPub like a REPL's history.

One entry per user execution (from any client): code, output (streams, results, errors,
and a marker for displays), error name and value, duration, start time and the ids of the
images it produced. Bounded: the last ``max_entries`` executions, output and code cut with
a marker that says how much was left out. An output too large to be decoded at all
(``channels.py``) is recorded as ``[output of N bytes not kept]``.
"""

from __future__ import annotations

import collections
import datetime
from dataclasses import dataclass, field
from typing import Any

from jupyter_client.jsonutil import parse_date

from .images import UNDECODED_KEY

# Executions still running that we follow at once (a guard against a flood of inputs).
MAX_OPEN_EXECUTIONS = 64
# Image ids kept per entry (a cell can publish thousands); the rest are counted.
MAX_IMAGE_IDS = 50


@dataclass(frozen=True)
class HistoryLimits:
    max_entries: int = 100
    max_output_chars: int = 2000
    max_code_chars: int = 4000


def cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, marked with what was left out."""
    if len(text) <= limit:
        return text
    marker = f"\n… [{len(text) - limit:,} more characters]"
    return text[: max(0, limit - len(marker))] + marker if limit > len(marker) else text[:limit]


def _as_datetime(value: Any) -> datetime.datetime | None:
    """A header date: a datetime from ZMQ, an ISO string over a gateway's websocket."""
    if isinstance(value, str):
        value = parse_date(value)
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    return None


@dataclass
class _Open:
    execution_count: int | None
    code: str
    started: datetime.datetime | None
    output: list[str] = field(default_factory=list)
    output_chars: int = 0
    output_cut: int = 0
    error: dict[str, str] | None = None
    image_ids: list[str] = field(default_factory=list)
    images_omitted: int = 0

    def add_images(self, image_ids: list[str]) -> None:
        room = MAX_IMAGE_IDS - len(self.image_ids)
        self.image_ids.extend(image_ids[:max(0, room)])
        self.images_omitted += max(0, len(image_ids) - max(0, room))

    def add_output(self, text: str, limit: int) -> None:
        room = limit - self.output_chars
        if room <= 0:
            self.output_cut += len(text)
            return
        self.output.append(text[:room])
        self.output_chars += min(len(text), room)
        self.output_cut += max(0, len(text) - room)


class HistoryLog:
    def __init__(self, limits: HistoryLimits | None = None) -> None:
        self.limits = limits or HistoryLimits()
        self._entries: collections.deque[dict[str, Any]] = collections.deque(
            maxlen=self.limits.max_entries
        )
        self._open: collections.OrderedDict[str, _Open] = collections.OrderedDict()
        self.total = 0

    def handle(self, msg: dict[str, Any], own: bool, image_ids: list[str]) -> None:
        if own:
            return
        parent_id = (msg.get("parent_header") or {}).get("msg_id")
        content = msg.get("content")
        if not isinstance(parent_id, str) or not isinstance(content, dict):
            return
        msg_type = msg.get("header", {}).get("msg_type")
        if msg_type == "execute_input":
            self._start(parent_id, msg, content)
            return
        current = self._open.get(parent_id)
        if current is None:
            return
        current.add_images(image_ids)
        limit = self.limits.max_output_chars
        undecoded = msg.get(UNDECODED_KEY)
        if isinstance(undecoded, int):
            self._not_kept(current, msg_type, undecoded)
            return
        if msg_type == "stream":
            text = content.get("text")
            if isinstance(text, str):
                current.add_output(text, limit)
        elif msg_type in ("execute_result", "display_data"):
            current.add_output(self._describe(content, image_ids), limit)
        elif msg_type == "error":
            ename, evalue = str(content.get("ename", "")), str(content.get("evalue", ""))
            current.error = {"ename": ename[:200], "evalue": evalue[:1000]}
            current.add_output(f"{ename}: {evalue}\n", limit)
        elif msg_type == "status" and content.get("execution_state") == "idle":
            self._finish(parent_id, msg)

    def _not_kept(self, current: _Open, msg_type: Any, size: int) -> None:
        """An output whose content was too large to decode: say it happened, and how big."""
        limit = self.limits.max_output_chars
        if msg_type == "error":
            evalue = f"[error of {size:,} bytes not kept]"
            current.error = {"ename": "Error", "evalue": evalue}
            current.add_output(f"Error: {evalue}\n", limit)
        elif msg_type in ("stream", "execute_result", "display_data"):
            current.add_output(f"[output of {size:,} bytes not kept]\n", limit)

    def _start(self, parent_id: str, msg: dict[str, Any], content: dict[str, Any]) -> None:
        code = content.get("code")
        count = content.get("execution_count")
        self._open[parent_id] = _Open(
            execution_count=count if isinstance(count, int) else None,
            code=code if isinstance(code, str) else "",
            started=_as_datetime(msg.get("header", {}).get("date")),
        )
        while len(self._open) > MAX_OPEN_EXECUTIONS:
            self._open.popitem(last=False)

    @staticmethod
    def _describe(content: dict[str, Any], image_ids: list[str]) -> str:
        data = content.get("data")
        if not isinstance(data, dict):
            return ""
        text = data.get("text/plain")
        if isinstance(text, list):
            text = "".join(str(part) for part in text)
        images = [m for m in data if isinstance(m, str) and m.startswith("image/")]
        parts = []
        if images:
            parts.append(f"[{images[0]} image]")
        elif isinstance(text, str):
            parts.append(text)
        return " ".join(parts) + "\n" if parts else ""

    def _finish(self, parent_id: str, msg: dict[str, Any]) -> None:
        current = self._open.pop(parent_id)
        ended = _as_datetime(msg.get("header", {}).get("date"))
        duration = None
        if current.started is not None and ended is not None:
            duration = round((ended - current.started).total_seconds() * 1000, 1)
        output = "".join(current.output)
        if current.output_cut:
            output += f"\n… [{current.output_cut:,} more characters]"
        self.total += 1
        self._entries.append({
            "execution_count": current.execution_count,
            "code": cut(current.code, self.limits.max_code_chars),
            "output": output,
            "error": current.error,
            "success": current.error is None,
            "duration_ms": duration,
            "started_at": current.started.isoformat() if current.started else None,
            "image_ids": current.image_ids,
            "images_omitted": current.images_omitted,
        })

    def listing(self, limit: int = 10) -> dict[str, Any]:
        entries = list(self._entries)[-limit:] if limit > 0 else []
        return {"total": self.total, "kept": len(self._entries), "entries": entries}
