"""The lines of the prompt's variable list: one per variable, one per run of like names,
the "… and N more" line, and the two orders they are chosen and printed in (pure).

A name appears once: on its own line or inside a run line. A run line that has members
listed apart names them as exceptions (``- v0 … v299 except v5: 299 ints``) and counts
only the rest. ``prompt`` chooses and assembles the lines; see docs/prompt-format.md.
"""

from __future__ import annotations

import re
from typing import Any

from .prompt_text import (
    ELLIPSIS,
    clean,
    cut_prose,
    escape,
    fit_value,
    fmt_count,
    natural,
    repair_value,
)
from .secrets import mask_values, secret_reason

MAX_LINE_CHARS = 480
#: A user's description and constraints each take at most this much of a variable line.
MAX_NOTE_CHARS = 160
#: A table's findings clause (``; findings: 512 missing in price, 3 duplicate rows``) at
#: most (the probe writes it within 120 characters).
MAX_FINDINGS_CHARS = 140
#: Exceptions named in a run line; beyond them, only counted.
MAX_RUN_EXCEPTIONS = 3

#: How a lazy engine table's preview starts (``lazy · DuckDB · not counted · 4 columns —
#: i:BIGINT, …``), and what its line asks of the assistant.
LAZY_PREVIEW = "lazy · "
LAZY_HINT = "read it with get_rows, describe_table or count_rows; never collect it"

KIND_RANK = {"dataframe": 0, "series": 1, "array": 1, "tensor": 1, "index": 2, "mapping": 2,
             "sequence": 3, "set": 3}


def name_of(v: dict[str, Any]) -> str:
    return str(v.get("name"))


def _bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def engine_table(v: dict[str, Any]) -> bool:
    """A lazy table that lives in an engine (a DuckDB relation, a polars LazyFrame …): its
    preview says so."""
    return v.get("kind") == "dataframe" and str(v.get("preview") or "").startswith(LAZY_PREVIEW)


def _engine_head(v: dict[str, Any]) -> str:
    """'DuckDBPyRelation, lazy DuckDB table, not counted, 4 columns' from the preview's
    head ('lazy · DuckDB · not counted · 4 columns')."""
    head = str(v.get("preview") or "").split(" — ", 1)[0]
    parts = head.split(" · ")[1:]
    what = f"lazy {parts[0]} table" if parts else "lazy table"
    return ", ".join([str(v.get("type", "object")), what, *parts[1:]])


def _head(v: dict[str, Any]) -> str:
    """Type and shape or size: 'DataFrame 99,870×8', 'ndarray float32 (512, 256), 512.0 KiB'."""
    kind, type_name = v.get("kind"), str(v.get("type", "object"))
    shape, size, dtype = v.get("shape"), v.get("size"), v.get("dtype")
    if engine_table(v):
        return _engine_head(v)
    if kind == "dataframe" and shape and len(shape) == 2:
        return f"{type_name} {fmt_count(shape[0] or 0)}×{fmt_count(shape[1] or 0)}"
    if kind in ("array", "tensor") and shape is not None:
        text = f"{type_name} {dtype or ''} {tuple(shape)}".replace("  ", " ")
        nbytes = v.get("nbytes")
        return f"{text}, {_bytes(nbytes)}" if isinstance(nbytes, int) else text
    if kind in ("series", "index"):
        return f"{type_name}[{dtype}] len {fmt_count(size)}" if size is not None else type_name
    if size is not None and kind in ("sequence", "set"):
        return f"{type_name}, {fmt_count(size)} items"
    if size is not None and kind == "mapping":
        return f"{type_name}, {fmt_count(size)} keys"
    if size is not None and kind == "string":
        return f"{type_name}, {fmt_count(size)} chars"
    if size is not None and kind == "bytes":
        return f"{type_name}, {fmt_count(size)} bytes"
    return type_name


def preview_text(v: dict[str, Any]) -> str:
    """The preview as the line shows it: brought back to a whole element when the probe
    cut it inside a token, secrets masked, control characters escaped."""
    preview = str(v.get("preview") or "")
    if v.get("kind") == "dataframe" and " — " in preview:
        preview = preview.split(" — ", 1)[1]  # the shape is in the head already
    if v.get("truncated"):  # the probe cut it (maybe inside a token)
        preview = repair_value(preview)
    # Masked after the repair (which only drops whole elements, so never half a secret).
    return escape(mask_values(preview))


def variable_line(v: dict[str, Any], limit: int = MAX_LINE_CHARS) -> str:
    """``- name: <type and shape> — <preview> [error] "description" (constraints: …);
    findings: …`` within ``limit`` (a table's findings when the probe knows them): the
    notes cut after a word, the preview at an element boundary. A lazy engine table's
    line says its engine and count in the head, its schema as a DataFrame's columns, and
    how to read it (``LAZY_HINT``) at the end."""
    name = str(v.get("name", "?"))
    head = escape(f"- {name}: {_head(v)}")
    reason = v.get("secret_reason") or secret_reason(name, v.get("preview"))
    if reason:
        return cut_prose(f"{head} — masked ({reason})", limit)
    tail = ""
    if v.get("error"):
        tail += f" [{clean(str(v['error']), MAX_NOTE_CHARS)}]"
    if v.get("description"):
        tail += f' "{clean(str(v["description"]), MAX_NOTE_CHARS)}"'
    if v.get("constraints"):
        tail += f" (constraints: {clean(str(v['constraints']), MAX_NOTE_CHARS)})"
    if v.get("findings"):  # known to the probe (never computed for the prompt's sake)
        tail += f"; findings: {clean(mask_values(str(v['findings'])), MAX_FINDINGS_CHARS)}"
    if engine_table(v):
        tail += f" ({LAZY_HINT})"
    if len(head) + len(tail) > limit:
        return cut_prose(head + tail, limit)
    preview = preview_text(v)
    room = limit - len(head) - len(tail) - len(" — ")
    if preview and room > 0:
        preview = fit_value(preview, room)
        return f"{head} — {preview}{tail}" if preview else head + tail
    return head + tail


def rank_key(v: dict[str, Any]) -> tuple[object, ...]:
    changed = v.get("change") in ("new", "modified")
    annotated = bool(v.get("description") or v.get("constraints"))
    group = 0 if changed else 1 if annotated else 2
    return (group, -(v.get("changed_at") or 0) if changed else 0,
            KIND_RANK.get(str(v.get("kind")), 4), natural(str(v.get("name", ""))))


def stable_key(v: dict[str, Any]) -> tuple[object, ...]:
    """The order of the variable list: least recently changed first, then natural name
    order. A change moves one name to the end; the lines before it keep their place, so
    the text before them stays a common prefix (providers cache it)."""
    at = v.get("changed_at")
    return (at if isinstance(at, int) else -1, natural(str(v.get("name", ""))))


# -- runs -----------------------------------------------------------------------------

_RUN_NAME = re.compile(r"(.*[^0-9]|)([0-9]+)\Z", re.S)
_PLURAL_TYPES = frozenset(("int", "float", "str", "bool", "bytes", "complex", "list", "dict",
                           "tuple", "set", "frozenset", "NoneType"))


def _run_span(run: dict[str, Any]) -> tuple[str, int, int] | None:
    """``(prefix, first number, last number)`` of a run, from its first and last names."""
    first = _RUN_NAME.match(str(run.get("first", "")))
    last = _RUN_NAME.match(str(run.get("last", "")))
    if first is None or last is None or first.group(1) != last.group(1):
        return None
    return first.group(1), int(first.group(2)), int(last.group(2))


def run_members(variables: list[dict[str, Any]],
                runs: list[dict[str, Any]]) -> dict[str, int]:
    """Name -> index of the run it belongs to, for the ``variables`` inside a run."""
    by_prefix: dict[str, list[tuple[int, int, int]]] = {}
    for i, run in enumerate(runs):
        span = _run_span(run)
        if span is not None:
            by_prefix.setdefault(span[0], []).append((span[1], span[2], i))
    out: dict[str, int] = {}
    if not by_prefix:
        return out
    for v in variables:
        name = str(v.get("name", ""))
        match = _RUN_NAME.match(name)
        if match is None or match.group(1) not in by_prefix:
            continue
        number = int(match.group(2))
        for low, high, i in by_prefix[match.group(1)]:
            if low <= number <= high and v.get("type") == runs[i].get("type"):
                out[name] = i
                break
    return out


def _number(x: object) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def _inside(preview: object, low: object, high: object) -> bool:
    """The value previewed lies strictly between the run's bounds (so the bounds of the
    run without it are the same)."""
    try:
        value = float(str(preview))
        return float(low) < value < float(high)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def run_line(run: dict[str, Any], apart: list[dict[str, Any]] | None = None) -> str:
    """'- v0 … v299: 300 ints, 0–299': a run of like names on one line. Members listed on
    lines of their own (``apart``) are named as exceptions and not counted: 'v0 … v299
    except v5: 299 ints'; the bounds stay only when they hold without them."""
    apart = sorted(apart or [], key=lambda v: natural(name_of(v)))
    count = int(run.get("count") or 0) - len(apart)
    type_name = str(run.get("type", "object"))
    what = (f"{fmt_count(count)} {type_name}s" if type_name in _PLURAL_TYPES
            else f"{fmt_count(count)} × {type_name}")
    low, high = run.get("low"), run.get("high")
    bounds = ""
    if low is not None and high is not None and all(
            _inside(v.get("preview"), low, high) for v in apart):
        bounds = f", {_number(low)}–{_number(high)}"
    reason = secret_reason(str(run.get("first", "")), None)
    if reason:  # names like credentials: not even the range of their values
        bounds = f" — masked ({reason})"
    names = [name_of(v) for v in apart]
    except_ = ("" if not names else f" except {', '.join(names)}"
               if len(names) <= MAX_RUN_EXCEPTIONS else f" except {len(names)} listed apart")
    return cut_prose(escape(f"- {run.get('first')} … {run.get('last')}{except_}: {what}{bounds}"),
                     MAX_LINE_CHARS)


def run_signature(run: dict[str, Any]) -> tuple[str, str, int, str]:
    """What a run covers (its bounds aside): the same signature, the same names."""
    return (str(run.get("first")), str(run.get("last")), int(run.get("count") or 0),
            str(run.get("type")))


def omitted_line(groups: list[tuple[str, int, str, str]], extra: int) -> str:
    """What did not fit: ``groups`` of names by type (``(type, count, first name, last
    name)``, variables and runs alike) and ``extra`` names never seen (counted only):
    ``- … and 1,234 more variables: int ×1,200 (v0 … v1199), str ×34 (a … z), …``."""
    count = sum(g[1] for g in groups) + extra
    if count <= 0:
        return ""
    # The largest groups first (the first seen first among equals).
    ranked = sorted(groups, key=lambda g: -g[1])
    parts = []
    for type_name, n, first, last in ranked[:3]:
        sample = f" ({first} … {last})" if n > 1 else f" ({first})"
        parts.append(f"{type_name} ×{fmt_count(n)}{sample}")
    if len(groups) > 3 or (extra > 0 and parts):
        parts.append(ELLIPSIS)
    head = f"- … and {fmt_count(count)} more variable{'s' if count != 1 else ''}"
    # The count is never cut: the groups are, after a whole group.
    detail = cut_prose(escape(", ".join(parts)), MAX_LINE_CHARS - len(head) - 2)
    return f"{head}: {detail}" if parts and detail != ELLIPSIS else head
