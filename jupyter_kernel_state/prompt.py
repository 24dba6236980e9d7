"""Pure: a ``PromptInput`` (a digest, images, steps, timelines) → the text an assistant
reads, never over its character budget (``build_prompt``).

Layout (docs/prompt-format.md): first a *stable part* — the header and the variable list
in a stable order (least recently changed first) — then a *changing part* — the execution
count and counts, notices, what changed, timelines, images, steps. Providers cache a
prompt's unchanged prefix, so what moves every turn comes last. A caller that passes the
previous result's ``stable`` part back gets a prompt that starts with exactly that text
while it is still true enough, followed by the lines that replace or add to it.

The text never exceeds its character budget. Under pressure, variables are chosen by rank
(changed first, then annotated by the user, then tables/arrays, then the rest) and printed
in the stable order; what does not fit is counted. Everything from the kernel is presented
as data: previews stay quoted, control characters are escaped, secrets are masked, hidden
variables never appear.

This module chooses the lines; ``prompt_model`` holds the input, the result and the parts
both layouts share, ``prompt_sections`` and ``prompt_lines`` render the lines and
``prompt_text`` cuts text. Each imports only the ones after it in that list.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .prompt_lines import (
    KIND_RANK,
    name_of,
    run_line,
    run_signature,
    stable_key,
    variable_line,
)
from .prompt_model import (
    NO_VARIABLES,
    TITLE,
    Parts,
    PromptInput,
    PromptResult,
    StablePart,
)
from .prompt_text import cut_prose, fmt_count

#: An earlier stable part is reused while the lines replacing or adding to it take at most
#: this share of the budget; beyond it (or when it no longer fits) a new one is built.
UPDATES_SHARE = 0.25
#: A new stable part takes at most this share of the budget: the rest is room for the
#: lines later turns add after it.
STABLE_SHARE = 0.8
#: Room kept for the "… and N more" line while the list is chosen: this much, at most a
#: sixth of the budget (the lines filled in afterwards use what it did not).
OMITTED_LINE_RESERVE = 160
#: Below this room no variable line fits (``- x: int — 1`` is 13 characters).
MIN_LINE_ROOM = 13
#: Lines tried in a row that did not fit before the list is closed (a namespace of a
#: million names is not rendered line by line to fill the last few characters).
MAX_MISSES = 200
#: Lines tried one by one, after the list is chosen, in the room left by the reserve for
#: the "… and N more" line.
MAX_FILL_TRIES = 8



def _annotated(v: dict[str, Any]) -> bool:
    return bool(v.get("description") or v.get("constraints"))


def _first_class(v: dict[str, Any]) -> bool:
    """Listed before run lines under pressure: changed, annotated, or a ranked kind."""
    return (v.get("change") in ("new", "modified") or _annotated(v)
            or str(v.get("kind")) in KIND_RANK)


def build_prompt(data: PromptInput, budget: int) -> PromptResult:
    parts = Parts(data, budget)
    if data.stable is not None:
        reused = _reuse(parts, data.stable)
        if reused is not None:
            return reused
    return _fresh(parts)


def cut_to_budget(text: str, budget: int) -> str:
    """The last resort, when even the header, the counts and the notices do not fit: lines
    left out from the least useful (the list's title, the "… and N more" line, then from
    the end), the header and the state line last, and one line saying how many were cut
    (``[3 more lines cut for budget]``); the header alone cut after a word."""
    lines = text.split("\n")

    notices = set(Parts.NOTICE_STARTS)

    def worth(i: int) -> int:
        line = lines[i]
        if i == 0:
            return 4
        if line.startswith("As of "):
            return 3
        if line.split(" ", 1)[0] in notices:
            return 2
        return 1 if line.startswith("[") and line.endswith(" for budget]") else 0

    order = sorted(range(len(lines)), key=lambda i: (worth(i), -i))  # dropped first
    kept = set(range(len(lines)))
    for i in order:
        cut = len(lines) - len(kept)
        marker = f"[{fmt_count(cut)} more line{'s' if cut != 1 else ''} cut for budget]"
        text = "\n".join([*(lines[j] for j in sorted(kept)), *([marker] if cut else [])])
        if len(text) <= budget or i == 0:
            break
        kept.discard(i)
    return text if len(text) <= budget else cut_prose(lines[0], budget)


def _fresh(p: Parts) -> PromptResult:
    """A new stable part: the chosen variables in the stable order, then the runs. A name
    is on one line only: a member of a run listed apart is an exception of its run line,
    the other members are left to the run line."""
    data, budget = p.data, p.budget
    title = TITLE if p.all_names else NO_VARIABLES
    lines: dict[int, str] = {}  # ranked index -> its variable line

    def line_of(i: int) -> str:
        if i not in lines:
            lines[i] = variable_line(p.ranked[i])
        return lines[i]

    def shown_of(picked: list[tuple[str, int]]) -> tuple[list[int], list[int]]:
        return ([i for what, i in picked if what == "v"],
                sorted(i for what, i in picked if what == "r"))

    def apart_of(shown: list[int]) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {}
        for i in shown:
            run = p.member_of.get(name_of(p.ranked[i]))
            if run is not None:
                out.setdefault(run, []).append(p.ranked[i])
        return out

    def stable_text(shown: list[int], runs: list[int]) -> str:
        apart = apart_of(shown)
        in_order = sorted(shown, key=lambda i: stable_key(p.ranked[i]))
        return "\n".join([p.header, title, *map(line_of, in_order),
                          *(run_line(data.runs[r], apart.get(r)) for r in runs)])

    def assemble(picked: list[tuple[str, int]], dropped: int) -> tuple[str, str]:
        shown, runs = shown_of(picked)
        variables = [p.ranked[i] for i in shown]
        omitted = p.omitted({name_of(v) for v in variables}, set(runs)) or ""
        stable = stable_text(shown, runs)
        state = p.state_line(p.covered(variables, runs))
        return stable, "\n".join([stable, *p.changing(omitted, state, [], dropped)])

    widest_state = p.state_line(p.all_names)
    changing = (len("\n".join(["", *p.changing("", widest_state, [])]))
                + min(OMITTED_LINE_RESERVE, budget // 6))
    fixed = len(stable_text([], []))
    room = min(budget - fixed - changing, int(budget * STABLE_SHARE) - fixed)
    # Under pressure: changed, annotated and ranked kinds, then run lines, then the rest.
    # A name inside a run is left to its run line (the change line names it when it
    # changed) unless it is annotated, or listed by the stable part being renewed.
    kept = data.stable.lines if data.stable is not None else {}
    first = [_first_class(v) and (name_of(v) not in p.member_of or _annotated(v))
             for v in p.ranked]
    order: list[tuple[str, int]] = [("v", i) for i in range(len(p.ranked)) if first[i]]
    order += [("r", i) for i in range(len(data.runs))]
    order += [("v", i) for i, v in enumerate(p.ranked) if not first[i]
              and (name_of(v) not in p.member_of or name_of(v) in kept)]
    if data.stable is not None:  # a stable part renewed: keep what it listed, as far as it fits
        order = _keeping(p, data.stable, order)
    picked: list[tuple[str, int]] = []  # in rank order: the last is dropped first
    in_runs: set[int] = set()
    apart: dict[int, int] = {}  # run -> its members picked apart
    misses = 0
    for what, i in order:
        if room < MIN_LINE_ROOM or misses > MAX_MISSES:
            break
        run = p.member_of.get(name_of(p.ranked[i])) if what == "v" else None
        if run is not None and run in in_runs:
            continue  # inside a run line already
        if what == "r":
            if p.run_counts[i] - apart.get(i, 0) < 2:
                continue  # (nearly) every member is listed apart
            line = run_line(data.runs[i], [p.ranked[j] for w, j in picked if w == "v"
                                           and p.member_of.get(name_of(p.ranked[j])) == i])
        else:
            line = line_of(i)
        if len(line) + 1 > room:
            misses += 1
            continue  # a shorter line further down may still fit
        picked.append((what, i))
        room -= len(line) + 1
        if what == "r":
            in_runs.add(i)
        elif run is not None:
            apart[run] = apart.get(run, 0) + 1
    # Safety net: name the optional sections instead of showing them, then drop lines
    # (the lowest ranked first), then cut at a line; never over the budget.
    stable, text = assemble(picked, p.dropped)
    while len(text) > budget and p.dropped < len(p.optional):
        p.dropped += 1
        stable, text = assemble(picked, p.dropped)
    while len(text) > budget and picked:
        excess = len(text) - budget
        while excess > 0 and picked:
            what, i = picked.pop()
            excess -= len(line_of(i) if what == "v" else run_line(data.runs[i])) + 1
        stable, text = assemble(picked, p.dropped)
    if len(picked) < len(order):
        picked, stable, text = _fill(p, order, picked, (stable, text), assemble, line_of)
        # Not one line listed: the optional sections give way to the variables.
        for dropped in range(p.dropped + 1, len(p.optional) + 1 if not picked else 0):
            trial = _fill(p, order, [], assemble([], dropped), assemble, line_of, dropped)
            if trial[0]:
                p.dropped, (picked, stable, text) = dropped, trial
                break
    shown, runs = shown_of(picked)
    included = p.covered([p.ranked[i] for i in shown], runs)
    if len(text) > budget:
        return p.result(cut_to_budget(text, budget), included, None)
    apart_members = apart_of(shown)
    return p.result(text, included, StablePart(
        text=stable,
        language=data.language,
        budget=budget,
        generation=data.generation,
        execution_count=data.execution_count,
        lines={name_of(p.ranked[i]): line_of(i) for i in shown},
        runs={run_signature(data.runs[r]): run_line(data.runs[r], apart_members.get(r))
              for r in runs},
        covered=included,
        apart={run_signature(data.runs[r]): [{"name": name_of(v), "preview": v.get("preview")}
                                             for v in members]
               for r, members in apart_members.items() if r in runs},
    ))


def _fill(p: Parts, order: list[tuple[str, int]], picked: list[tuple[str, int]],
          built: tuple[str, str], assemble: Any, line_of: Any, dropped: int | None = None,
          ) -> tuple[list[tuple[str, int]], str, str]:
    """A few more lines in the room the reserve for the "… and N more" line left (or
    instead of that line, when listing a name is shorter than counting it). Each is tried
    on the whole text, so the budget holds; a new stable part stays within its share once
    it has one line."""
    stable, text = built
    in_runs = {i for w, i in picked if w == "r"}
    chosen, tries = set(picked), 0
    for candidate in order:
        what, i = candidate
        if tries >= MAX_FILL_TRIES:
            break
        if candidate in chosen or (what == "v"
                                   and p.member_of.get(name_of(p.ranked[i])) in in_runs):
            continue
        omitted = next((x for x in text.split("\n") if x.startswith("- … and ")), "")
        line = line_of(i) if what == "v" else run_line(p.data.runs[i])
        if len(text) - len(omitted) + len(line) + 1 > p.budget:
            continue  # cannot fit even if nothing were left to count
        tries += 1
        trial = [*picked, candidate]
        trial_stable, trial_text = assemble(trial, p.dropped if dropped is None else dropped)
        if len(trial_text) <= p.budget and (
                not picked or len(trial_stable) <= p.budget * STABLE_SHARE):
            picked, stable, text = trial, trial_stable, trial_text
            chosen.add(candidate)
            if what == "r":
                in_runs.add(i)
    return picked, stable, text


def _keeping(p: Parts, stable: StablePart,
             order: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``order`` with the lines the earlier stable part listed moved up, after the changed
    and annotated variables, in the stable order: under pressure the lines dropped are
    the last ones, and the new list starts as the earlier one did."""
    def kept(what: str, i: int) -> bool:
        if what == "r":
            return run_signature(p.data.runs[i]) in stable.runs
        v = p.ranked[i]
        return (name_of(v) in stable.lines and v.get("change") not in ("new", "modified")
                and not _annotated(v))

    def urgent(what: str, i: int) -> bool:
        v = p.ranked[i] if what == "v" else {}
        return bool((v.get("change") in ("new", "modified") and name_of(v) not in p.member_of)
                    or _annotated(v))

    lines = [(w, i) for w, i in order if kept(w, i)]
    lines.sort(key=lambda wi: (wi[0] == "r", stable_key(p.ranked[wi[1]]) if wi[0] == "v"
                               else ()))
    return ([wi for wi in order if urgent(*wi)] + lines
            + [wi for wi in order if not urgent(*wi) and not kept(*wi)])


def _reuse(p: Parts, stable: StablePart) -> PromptResult | None:
    """The prompt that starts with ``stable`` unchanged, or None when a new stable part is
    due: another language or budget, a restart, a run that changed shape, a listed name
    hidden or removed without being named, or more changed lines than UPDATES_SHARE."""
    data, budget = p.data, p.budget
    if (stable.language != data.language or stable.budget != budget or data.restarted
            or not (stable.lines or stable.runs)):
        return None
    run_index = {run_signature(r): i for i, r in enumerate(data.runs)}
    if any(sig not in run_index for sig in stable.runs):
        return None
    if any(v.get("hidden_from_prompt") and name_of(v) in stable.lines for v in data.variables):
        return None
    counts = data.changed_counts
    n_removed = len(data.removed) if counts is None else int(counts.get("removed", 0))
    if n_removed > len(data.removed):  # some removed names are not known
        return None
    if counts is not None:  # some changed variables were not sent: their lines are unknown
        sent = Counter(v.get("change") for v in data.variables)
        if any(int(counts.get(k, 0)) > sent[k] for k in ("new", "modified")):
            return None
    runs_shown = {run_index[sig] for sig in stable.runs}
    updates: list[str] = []
    added: set[str] = set()
    # Lines only for the listed names and the changed ones (not the whole namespace sent);
    # a changed member of a listed run is inside its line already.
    candidates = [v for v in p.visible if name_of(v) in stable.lines or (
        v.get("change") in ("new", "modified")
        and p.member_of.get(name_of(v)) not in runs_shown)]
    for v in sorted(candidates, key=stable_key):
        name, line = name_of(v), variable_line(v)
        if name in stable.lines:
            if line != stable.lines[name]:  # changed, or its preview moved without a record
                updates.append(line)
        else:
            updates.append(line)
            added.add(name)
    current = {name_of(v): v for v in p.visible}
    for sig, old in stable.runs.items():
        apart = [current.get(str(m["name"]), m) for m in stable.apart.get(sig, [])]
        line = run_line(data.runs[run_index[sig]], apart)
        if line != old:
            updates.append(line)
    if sum(len(line) + 1 for line in updates) > budget * UPDATES_SHARE:
        return None
    gone = len(set(data.removed) & stable.lines.keys())
    included = stable.covered - gone + len(added)
    if included < 0 or included > p.all_names:
        return None
    names = (stable.lines.keys() - set(data.removed)) | added
    omitted = p.omitted(names, runs_shown, p.all_names - included)
    if omitted is None:
        return None
    state = p.state_line(included, stable)
    for dropped in range(len(p.optional) + 1):
        text = "\n".join([stable.text, *p.changing(omitted, state, updates, dropped)])
        if len(text) <= budget:
            return p.result(text, included, stable, reused=True)
    return None
