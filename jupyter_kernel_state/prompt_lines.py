"""The lines of the assistant's prompt, one renderer per kind of line (pure; no I/O).

``prompt.build_prompt`` fits them into the budget; see docs/prompt-format.md.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from .secrets import mask_values, secret_reason

if TYPE_CHECKING:
    from .prompt import PromptInput

MAX_LINE_CHARS = 480
MAX_CHANGE_NAMES = 12
MAX_IMAGES_LISTED = 3
STEP_CODE_CHARS = 400
STEP_OUTPUT_CHARS = 300
IMAGES_LINE_CHARS = 300
#: Timeline lines: at most this many variables, entries per variable, characters a line.
MAX_TIMELINE_VARIABLES = 5
MAX_TIMELINE_ENTRIES = 5
TIMELINE_LINE_CHARS = 300

KIND_RANK = {"dataframe": 0, "series": 1, "array": 1, "tensor": 1, "index": 2, "mapping": 2,
             "sequence": 3, "set": 3}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")


def clean(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """One line of untrusted text: newlines and control characters escaped, bounded."""
    text = text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fmt_count(value: int) -> str:
    return f"{value:,}"


def _bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def _head(v: dict[str, Any]) -> str:
    """Type and shape or size: 'DataFrame 99,870×8', 'ndarray float32 (512, 256), 512.0 KiB'."""
    kind, type_name = v.get("kind"), str(v.get("type", "object"))
    shape, size, dtype = v.get("shape"), v.get("size"), v.get("dtype")
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


def variable_line(v: dict[str, Any]) -> str:
    name = str(v.get("name", "?"))
    head = _head(v)
    reason = v.get("secret_reason") or secret_reason(name, v.get("preview"))
    if reason:
        return f"- {name}: {head} — masked ({reason})"
    preview = str(v.get("preview") or "")
    if v.get("kind") == "dataframe" and " — " in preview:
        preview = preview.split(" — ", 1)[1]  # the shape is in the head already
    parts = [f"- {name}: {head}"]
    if preview:
        parts.append(f" — {mask_values(preview)}")
    if v.get("error"):
        parts.append(f" [{v['error']}]")
    if v.get("description"):
        parts.append(f' "{v["description"]}"')
    if v.get("constraints"):
        parts.append(f" (constraints: {v['constraints']})")
    return clean("".join(parts))


_DIGITS = re.compile(r"(\d+)")


def _natural(name: str) -> tuple[object, ...]:
    """'v2' before 'v10'."""
    return tuple(int(part) if part.isdigit() else part.lower() for part in _DIGITS.split(name))


def rank_key(v: dict[str, Any]) -> tuple[object, ...]:
    changed = v.get("change") in ("new", "modified")
    annotated = bool(v.get("description") or v.get("constraints"))
    group = 0 if changed else 1 if annotated else 2
    return (group, -(v.get("changed_at") or 0) if changed else 0,
            KIND_RANK.get(str(v.get("kind")), 4), _natural(str(v.get("name", ""))))


def stable_key(v: dict[str, Any]) -> tuple[object, ...]:
    """The order of the variable list: least recently changed first, then natural name
    order. A change moves one name to the end; the lines before it keep their place, so
    the text before them stays a common prefix (providers cache it)."""
    at = v.get("changed_at")
    return (at if isinstance(at, int) else -1, _natural(str(v.get("name", ""))))


def _change_fragment(v: dict[str, Any]) -> str:
    changes = v.get("changes") or []
    return f"{v['name']} ({'; '.join(changes[:3])})" if changes else str(v["name"])


def changes_line(data: PromptInput, limit: int) -> str:
    modified = [v for v in data.variables if v.get("change") == "modified"
                and not v.get("hidden_from_prompt")]
    new = [v for v in data.variables if v.get("change") == "new"
           and not v.get("hidden_from_prompt")]
    counts = data.changed_counts
    if counts is None:
        n_modified, n_new, n_removed = len(modified), len(new), len(data.removed)
    else:  # exact counts; variables hidden from the prompt are not counted where seen
        hidden = [v.get("change") for v in data.variables if v.get("hidden_from_prompt")]
        n_modified = max(len(modified), int(counts.get("modified", 0)) - hidden.count("modified"))
        n_new = max(len(new), int(counts.get("new", 0)) - hidden.count("new"))
        n_removed = max(len(data.removed), int(counts.get("removed", 0)))
    if not (n_modified or n_new or n_removed):
        return ""
    where = (f"since {data.since_label}" if data.since_label
             else f"in execution {data.execution_count}" if data.execution_count is not None
             else "in the last execution")

    def listed(names: list[str], count: int) -> str:
        shown = names[:MAX_CHANGE_NAMES]
        more = count - len(shown)
        return ", ".join(shown) + (f" and {fmt_count(more)} more" if more > 0 else "")

    complete = (n_modified <= min(len(modified), MAX_CHANGE_NAMES)
                and n_new <= min(len(new), MAX_CHANGE_NAMES)
                and n_removed <= min(len(data.removed), MAX_CHANGE_NAMES))
    parts = []
    if n_modified:
        parts.append(("" if complete else "modified: ")
                     + listed([_change_fragment(v) for v in modified], n_modified))
    if n_new:
        parts.append("new: " + listed([str(v["name"]) for v in new], n_new))
    if n_removed:
        parts.append("removed: " + listed(list(data.removed), n_removed))
    summary = "" if complete else ", ".join(
        f"{fmt_count(n)} {label}" for n, label in ((n_new, "new"), (n_modified, "modified"),
                                            (n_removed, "removed")) if n) + " — "
    return clean(f"Changed {where}: {summary}" + "; ".join(parts) + ".", max(limit, 40))


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


def run_line(run: dict[str, Any]) -> str:
    """'- v0 … v299: 300 ints, 0–299': a run of like names on one line."""
    count, type_name = int(run.get("count") or 0), str(run.get("type", "object"))
    what = (f"{fmt_count(count)} {type_name}s" if type_name in _PLURAL_TYPES
            else f"{fmt_count(count)} × {type_name}")
    low, high = run.get("low"), run.get("high")
    bounds = f", {_number(low)}–{_number(high)}" if low is not None and high is not None else ""
    reason = secret_reason(str(run.get("first", "")), None)
    if reason:  # names like credentials: not even the range of their values
        bounds = f" — masked ({reason})"
    return clean(f"- {run.get('first')} … {run.get('last')}: {what}{bounds}")


def run_signature(run: dict[str, Any]) -> tuple[str, str, int, str]:
    """What a run covers (its bounds aside): the same signature, the same names."""
    return (str(run.get("first")), str(run.get("last")), int(run.get("count") or 0),
            str(run.get("type")))


def omitted_line(omitted: list[dict[str, Any]], extra: int,
                 runs: list[dict[str, Any]] | None = None) -> str:
    """What did not fit: ``omitted`` variables, ``runs`` (each many names) and ``extra``
    names never seen (counted only), grouped by type."""
    runs = runs or []
    count = len(omitted) + extra + sum(int(r.get("count") or 0) for r in runs)
    if count <= 0:
        return ""
    types: Counter[str] = Counter()
    ends: dict[str, list[str]] = {}
    for v in omitted:
        type_name = str(v.get("type", "?"))
        types[type_name] += 1
        ends.setdefault(type_name, []).append(str(v.get("name")))
    for r in runs:
        type_name = str(r.get("type", "?"))
        types[type_name] += int(r.get("count") or 0)
        ends.setdefault(type_name, []).extend((str(r.get("first")), str(r.get("last"))))
    groups = []
    for type_name, n in types.most_common(3):
        names = ends[type_name]
        sample = f" ({names[0]} … {names[-1]})" if n > 1 else f" ({names[0]})"
        groups.append(f"{type_name} ×{fmt_count(n)}{sample}")
    if len(types) > 3 or (extra > 0 and groups):
        groups.append("…")
    detail = f": {', '.join(groups)}" if groups else ""
    return clean(f"- … and {fmt_count(count)} more variable{'s' if count != 1 else ''}{detail}")


def images_line(images: list[dict[str, Any]]) -> str:
    if not images:
        return ""
    described = []
    for image in images[-MAX_IMAGES_LISTED:]:
        size = (f" {image['width']}×{image['height']}"
                if image.get("width") and image.get("height") else "")
        described.append(f"execution {image.get('execution_count')}, {image['mime']}{size}")
    more = len(images) - MAX_IMAGES_LISTED
    tail = f"; and {more} earlier" if more > 0 else ""
    return clean(f"Images since your last turn: {len(images)} ({'; '.join(described)}{tail}).",
                 IMAGES_LINE_CHARS)


def _indent(text: str, limit: int) -> str:
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text.replace("\r", ""))
    return "\n".join("    " + line for line in text.rstrip("\n").split("\n"))


def step_block(entry: dict[str, Any], changed: dict[int, list[str]] | None = None) -> str:
    error = entry.get("error")
    status = f"error {error.get('ename')}: {error.get('evalue')}" if error else "ok"
    duration = entry.get("duration_ms")
    head = f"[{entry.get('execution_count')}] {clean(status, 200)}"
    if isinstance(duration, (int, float)):
        head += f", {duration:,.0f} ms"
    lines = [head, "  code:", _indent(str(entry.get("code") or ""), STEP_CODE_CHARS)]
    output = str(entry.get("output") or "")
    if output.strip():
        lines += ["  output:", _indent(mask_values(output), STEP_OUTPUT_CHARS)]
    elif not error:
        # A step that printed nothing still says what it left behind (TaskWeaver's habit).
        count = entry.get("execution_count")
        names = (changed or {}).get(count, []) if isinstance(count, int) else []
        if names:
            more = len(names) - MAX_CHANGE_NAMES
            listed = ", ".join(names[:MAX_CHANGE_NAMES]) + (f" and {more} more" if more > 0 else "")
            lines.append(f"  output: none; defined or changed: {listed}")
        else:
            lines.append("  output: none; no variable changed")
    return "\n".join(lines)


def history_section(
    history: dict[str, Any] | None,
    steps: int,
    limit: int,
    changed: dict[int, list[str]] | None = None,
) -> str:
    if not history or steps <= 0 or not history.get("entries"):
        return ""
    entries = history["entries"][-steps:]
    total = history.get("total", len(entries))
    blocks: list[str] = []
    used = 60
    for entry in reversed(entries):  # newest first until the share is used
        block = step_block(entry, changed)
        if used + len(block) + 1 > limit:
            break
        blocks.insert(0, block)
        used += len(block) + 1
    if not blocks:
        return ""
    title = f"Recent steps (showing last {len(blocks)} of {fmt_count(total)} steps):"
    return "\n".join([title, *blocks])


def _timeline_entry(entry: dict[str, Any]) -> str:
    at = f"[{entry.get('execution_count')}]"
    change = entry.get("change")
    changes = [str(c) for c in entry.get("changes") or [] if c]
    if change == "removed":
        return f"deleted at {at}"
    if change == "new":
        type_name = entry.get("type")
        return f"defined{f' as {type_name}' if type_name else ''} at {at}"
    return f"{', '.join(changes) if changes else 'modified'} at {at}"


def timeline_lines(
    variables: list[dict[str, Any]],
    timelines: dict[str, list[dict[str, Any]]] | None,
    limit: int,
) -> list[str]:
    """'Timeline of sales: rows 100,000 → 95,991 at [9]; column revenue added at [11].'
    — one line for each variable changed in the last execution that changed any (at most
    MAX_TIMELINE_VARIABLES, in name order, each its last MAX_TIMELINE_ENTRIES entries),
    within ``limit`` characters in all. A timeline holding only the variable's definition
    says nothing the change line does not, and is left out."""
    if not timelines:
        return []
    changed = [v for v in variables if v.get("change") in ("new", "modified")
               and not v.get("hidden_from_prompt")]
    # Those of the last execution that changed anything (the change line names the rest).
    last = max((v.get("changed_at") or 0 for v in changed), default=0)
    changed = sorted((v for v in changed if (v.get("changed_at") or 0) == last),
                     key=lambda v: _natural(str(v.get("name"))))
    lines: list[str] = []
    used = 0
    for v in changed:
        if len(lines) >= MAX_TIMELINE_VARIABLES:
            break
        name = str(v.get("name"))
        entries = [e for e in timelines.get(name) or [] if isinstance(e, dict)]
        if not entries or (len(entries) == 1 and entries[0].get("change") == "new"):
            continue
        shown = entries[-MAX_TIMELINE_ENTRIES:]
        more = (f" (last {len(shown)} of {fmt_count(len(entries))})"
                if len(entries) > len(shown) else "")
        text = "; ".join(_timeline_entry(e) for e in shown)
        line = clean(mask_values(f"Timeline of {name}{more}: {text}."), TIMELINE_LINE_CHARS)
        if used + len(line) + 1 > limit:
            break
        lines.append(line)
        used += len(line) + 1
    return lines
