"""The sections of the prompt's changing part: what changed (accumulated over the range
asked), timelines, images and recent steps (pure).

An optional section (timelines, images, steps) is a :class:`Section`: its lines, and the
one line that names it when the budget drops it — ``[history: 3 steps omitted for
budget]``. A section cut to its share of the budget ends with such a line too. ``prompt``
decides what is dropped; see docs/prompt-format.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .prompt_lines import name_of
from .prompt_text import ELLIPSIS, clean, cut_lines, cut_prose, escape, fmt_count, listing, natural
from .secrets import mask_values

MAX_CHANGE_NAMES = 12
#: Structural changes named per variable in the change line; the rest counted.
MAX_CHANGES_PER_NAME = 4
#: A chain of values (``len 2 → 3 → 4``) keeps at most this many before it is written
#: first → last with the number of steps.
MAX_CHAIN = 3
MAX_IMAGES_LISTED = 3
STEP_CODE_CHARS = 400
STEP_OUTPUT_CHARS = 300
#: A step is shown with at least this much of its code (else it is left out, counted).
MIN_STEP_CODE_CHARS = 60
MIN_STEP_OUTPUT_CHARS = 40
IMAGES_LINE_CHARS = 300
#: Timeline lines: at most this many variables, entries per variable, characters a line.
MAX_TIMELINE_VARIABLES = 5
MAX_TIMELINE_ENTRIES = 5
TIMELINE_LINE_CHARS = 300


@dataclass(frozen=True)
class Section:
    """An optional part of the changing part, and the line that replaces it when the
    budget drops it (that line counts against the budget too)."""

    name: str
    lines: tuple[str, ...]
    dropped: str

    def text(self) -> str:
        return "\n".join(self.lines)


def omitted_marker(section: str, what: str) -> str:
    return f"[{section}: {what} omitted for budget]"


# -- what changed ---------------------------------------------------------------------

#: "rows 100 → 90", "shape (2, 5) → (3, 5)", "column a dtype int64 → float64".
_ARROW = re.compile(r"(.+?) (\([^)]*\)|\S+) → (.+)\Z")


def accumulate(descriptions: list[str]) -> list[str]:
    """Changes over several executions as one list: a quantity that changed again is one
    chain (``len 2 → 3`` then ``len 3 → 4``: ``len 2 → 3 → 4``; longer chains ``len 2 → 9
    in 7 steps``), every other change once, in the order first seen."""
    chains: dict[str, list[str]] = {}
    order: list[tuple[str, bool]] = []  # (a description, or a chain's quantity; is a chain)
    for text in descriptions:
        match = _ARROW.match(text)
        if match is None:
            if (text, False) not in order:
                order.append((text, False))
            continue
        what, before, after = match.groups()
        if what not in chains:
            chains[what] = [before]
            order.append((what, True))
        chain = chains[what]
        if chain[-1] != before:  # a change the fingerprints did not see: keep both ends
            chain.append(before)
        chain.append(after)
    out = []
    for key, is_chain in order:
        if not is_chain:
            out.append(key)
        elif len(chain := chains[key]) <= MAX_CHAIN:
            out.append(f"{key} {' → '.join(chain)}")
        else:
            out.append(f"{key} {chain[0]} → {chain[-1]} in {len(chain) - 1} steps")
    return out


def _range_changes(v: dict[str, Any], timeline: list[dict[str, Any]] | None,
                   since_execution: int | None) -> list[str]:
    """Every structural change of ``v`` after ``since_execution``: from its timeline when
    the digest sent one, else the last change's (marked with where it happened when the
    range spans several executions)."""
    last = [str(c) for c in v.get("changes") or [] if c]
    if since_execution is None:
        return last
    entries = [e for e in timeline or [] if isinstance(e, dict)
               and isinstance(e.get("execution_count"), int)
               and e["execution_count"] > since_execution]
    if not entries:
        at = v.get("changed_at")
        return [f"last at [{at}]: {'; '.join(last)}"] if last and isinstance(at, int) else last
    described = [str(c) for e in entries for c in e.get("changes") or [] if c]
    changes = accumulate(described)
    earlier = [e for e in timeline or [] if isinstance(e, dict)
               and isinstance(e.get("execution_count"), int)
               and e["execution_count"] <= since_execution]
    if not earlier and entries[0].get("change") != "new":
        changes.insert(0, "earlier changes not kept")  # the timeline starts inside the range
    return changes


def _fragment(v: dict[str, Any], changes: list[str]) -> str:
    if not changes:
        return name_of(v)
    shown = changes[:MAX_CHANGES_PER_NAME]
    more = len(changes) - len(shown)
    tail = f"; {more} more" if more > 0 else ""
    return f"{name_of(v)} ({'; '.join(shown)}{tail})"


def changes_line(variables: list[dict[str, Any]], removed: list[str],
                 counts: dict[str, int] | None, where: str, limit: int,
                 timelines: dict[str, list[dict[str, Any]]] | None = None,
                 since_execution: int | None = None) -> str:
    """``Changed since execution 8: sales (rows 100 → 90; column c added); new: m;
    removed: tmp.`` — every change in the range, within ``limit``: names are listed whole
    while they fit, the rest counted (``and 12 more``)."""
    visible = [v for v in variables if not v.get("hidden_from_prompt")]
    modified = [v for v in visible if v.get("change") == "modified"]
    new = [v for v in visible if v.get("change") == "new"]
    if counts is None:
        n_modified, n_new, n_removed = len(modified), len(new), len(removed)
    else:  # exact counts; variables hidden from the prompt are not counted where seen
        hidden = [v.get("change") for v in variables if v.get("hidden_from_prompt")]
        n_modified = max(len(modified), int(counts.get("modified", 0)) - hidden.count("modified"))
        n_new = max(len(new), int(counts.get("new", 0)) - hidden.count("new"))
        n_removed = max(len(removed), int(counts.get("removed", 0)))
    if not (n_modified or n_new or n_removed):
        return ""
    complete = (n_modified <= min(len(modified), MAX_CHANGE_NAMES)
                and n_new <= min(len(new), MAX_CHANGE_NAMES)
                and n_removed <= min(len(removed), MAX_CHANGE_NAMES))
    summary = "" if complete else ", ".join(
        f"{fmt_count(n)} {label}" for n, label in ((n_new, "new"), (n_modified, "modified"),
                                                    (n_removed, "removed")) if n) + " — "
    head = escape(f"Changed {where}: {summary}")
    groups: list[tuple[str, list[str], int]] = []
    if n_modified:
        fragments = [_fragment(v, _range_changes(v, (timelines or {}).get(name_of(v)),
                                                 since_execution))
                     for v in modified[:MAX_CHANGE_NAMES]]
        groups.append(("" if complete else "modified: ", fragments, n_modified))
    if n_new:
        groups.append(("new: ", [name_of(v) for v in new[:MAX_CHANGE_NAMES]], n_new))
    if n_removed:
        groups.append(("removed: ", list(removed[:MAX_CHANGE_NAMES]), n_removed))
    # Each group gets an equal share of the room left; a name is listed whole or counted.
    room = max(0, limit - len(head) - 1 - 2 * (len(groups) - 1))
    parts: list[str] = []
    for i, (label, names, count) in enumerate(groups):
        share = (room - sum(len(p) for p in parts)) // (len(groups) - i) - len(label)
        listed = listing([escape(mask_values(n)) for n in names], count, share)
        if not listed and label != "new: ":  # the bare names may fit where fragments do not
            bare = [n.split(" (", 1)[0] for n in names]
            listed = listing([escape(mask_values(n)) for n in bare], count, share)
        if not listed:
            break
        parts.append(label + listed)
    line = head + "; ".join(parts) + "."
    if len(parts) == len(groups) and len(line) <= limit:
        return line
    # Not one name of some group fits: the exact counts alone.
    totals = ", ".join(f"{fmt_count(n)} {label}" for n, label in (
        (n_new, "new"), (n_modified, "modified"), (n_removed, "removed")) if n)
    return cut_prose(escape(f"Changed {where}: {totals}."), limit)


# -- timelines, images, steps ---------------------------------------------------------


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


def timeline_section(
    variables: list[dict[str, Any]],
    timelines: dict[str, list[dict[str, Any]]] | None,
    limit: int,
) -> Section | None:
    """'Timeline of sales: rows 100,000 → 95,991 at [9]; column revenue added at [11].'
    — one line for each variable changed in the last execution that changed any (at most
    MAX_TIMELINE_VARIABLES, in name order, each its last MAX_TIMELINE_ENTRIES entries),
    within ``limit`` characters in all, the ones left out counted. A timeline holding only
    the variable's definition says nothing the change line does not, and is left out."""
    if not timelines:
        return None
    changed = [v for v in variables if v.get("change") in ("new", "modified")
               and not v.get("hidden_from_prompt")]
    # Those of the last execution that changed anything (the change line names the rest).
    last = max((v.get("changed_at") or 0 for v in changed), default=0)
    changed = sorted((v for v in changed if (v.get("changed_at") or 0) == last),
                     key=lambda v: natural(name_of(v)))
    lines: list[str] = []
    for v in changed:
        name = name_of(v)
        entries = [e for e in timelines.get(name) or [] if isinstance(e, dict)]
        if not entries or (len(entries) == 1 and entries[0].get("change") == "new"):
            continue
        shown = entries[-MAX_TIMELINE_ENTRIES:]
        more = (f" (last {len(shown)} of {fmt_count(len(entries))})"
                if len(entries) > len(shown) else "")
        text = "; ".join(_timeline_entry(e) for e in shown)
        lines.append(clean(mask_values(f"Timeline of {name}{more}: {text}."),
                           TIMELINE_LINE_CHARS))
    if not lines:
        return None
    marker = omitted_marker("timelines", f"{len(lines)} variable{'s' if len(lines) > 1 else ''}")
    kept: list[str] = []
    for line in lines[:MAX_TIMELINE_VARIABLES]:
        left = len(lines) - len(kept) - 1
        reserve = len(omitted_marker("timelines", f"{left} more")) + 1 if left else 0
        if sum(len(x) + 1 for x in kept) + len(line) + 1 + reserve > limit:
            break
        kept.append(line)
    if len(kept) < len(lines):
        if not kept:
            return Section("timelines", (marker,), marker)
        kept.append(omitted_marker("timelines", f"{len(lines) - len(kept)} more"))
    return Section("timelines", tuple(kept), marker)


def images_section(images: list[dict[str, Any]]) -> Section | None:
    if not images:
        return None
    described = []
    for image in images[-MAX_IMAGES_LISTED:]:
        size = (f" {image['width']}×{image['height']}"
                if image.get("width") and image.get("height") else "")
        described.append(f"execution {image.get('execution_count')}, {image['mime']}{size}")
    more = len(images) - MAX_IMAGES_LISTED
    tail = f"; and {more} earlier" if more > 0 else ""
    line = clean(f"Images since your last turn: {len(images)} ({'; '.join(described)}{tail}).",
                 IMAGES_LINE_CHARS)
    count = fmt_count(len(images))
    return Section("images", (line,), omitted_marker("images", count))


def _indent(text: str, limit: int) -> str:
    text, left = cut_lines(text, limit)
    text = escape_lines(text)
    lines = ["    " + line for line in text.rstrip("\n").split("\n")]
    if left:
        lines.append(f"    {ELLIPSIS} ({fmt_count(left)} more characters)")  # the one ellipsis
    return "\n".join(lines)


def escape_lines(text: str) -> str:
    """Control characters escaped, newlines kept (each line is indented by the caller)."""
    return "\n".join(escape(line) for line in text.replace("\r", "").split("\n"))


def step_block(entry: dict[str, Any], changed: dict[int, list[str]] | None = None,
               code_chars: int = STEP_CODE_CHARS,
               output_chars: int = STEP_OUTPUT_CHARS) -> str:
    error = entry.get("error")
    status = f"error {error.get('ename')}: {error.get('evalue')}" if error else "ok"
    duration = entry.get("duration_ms")
    head = f"[{entry.get('execution_count')}] {clean(status, 200)}"
    if isinstance(duration, (int, float)):
        head += f", {duration:,.0f} ms"
    lines = [head, "  code:", _indent(str(entry.get("code") or ""), code_chars)]
    output = str(entry.get("output") or "")
    if output.strip():
        lines += ["  output:", _indent(mask_values(output), output_chars)]
    elif not error:
        # A step that printed nothing still says what it left behind (TaskWeaver's habit).
        count = entry.get("execution_count")
        names = (changed or {}).get(count, []) if isinstance(count, int) else []
        if names:
            listed = listing(names[:MAX_CHANGE_NAMES], len(names), 200)
            lines.append("  output: none; defined or changed: "
                         + (listed or f"{fmt_count(len(names))} names"))
        else:
            lines.append("  output: none; no variable changed")
    return "\n".join(lines)


def history_section(
    history: dict[str, Any] | None,
    steps: int,
    limit: int,
    changed: dict[int, list[str]] | None = None,
) -> Section | None:
    """The last ``steps`` steps, newest kept first, within ``limit``: each step's code and
    output are shortened to share the room (down to MIN_STEP_*_CHARS); steps that still do
    not fit are left out and counted in one line."""
    if not history or steps <= 0 or not history.get("entries"):
        return None
    entries = history["entries"][-steps:]
    total = history.get("total", len(entries))
    word = "step" if len(entries) == 1 else "steps"
    marker = omitted_marker("history", f"{len(entries)} {word}")
    # Room per step for its code and output (its head and labels take about 60).
    per_step = max(0, limit - 80) // len(entries) - 60
    code_chars = min(STEP_CODE_CHARS, max(MIN_STEP_CODE_CHARS, per_step * 4 // 7))
    output_chars = min(STEP_OUTPUT_CHARS, max(MIN_STEP_OUTPUT_CHARS, per_step * 3 // 7))
    blocks: list[str] = []
    used = 0
    for entry in reversed(entries):  # newest first until the share is used
        block = step_block(entry, changed, code_chars, output_chars)
        left = len(entries) - len(blocks) - 1
        title = f"Recent steps (showing last {len(blocks) + 1} of {fmt_count(total)} steps):"
        reserve = (len(omitted_marker("history", f"{left} of {len(entries)} steps")) + 1
                   if left else 0)
        if used + len(title) + len(block) + 2 + reserve > limit:
            break
        blocks.insert(0, block)
        used += len(block) + 1
    if not blocks:
        return Section("history", (marker,), marker)
    title = f"Recent steps (showing last {len(blocks)} of {fmt_count(total)} steps):"
    lines = [title, *blocks]
    if len(blocks) < len(entries):
        lines.append(omitted_marker("history", f"{len(entries) - len(blocks)} of "
                                               f"{len(entries)} {word}"))
    return Section("history", tuple(lines), marker)
