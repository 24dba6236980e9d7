"""Types for REPL-style agents (RLM loops) on any namespace dict — no server, no kernel.

A Recursive Language Model keeps its context in REPL variables and shows the model only
*cards* describing them, then the steps it ran. This module gives those types, with the
field names and text formats of the DSPy-style REPL types (``REPLVariable``,
``REPLEntry``, ``REPLHistory``, ``REPLResult``; aliases below), built on the probe's own
summaries: every value is read under a per-value time guard, previews are bounded, and
likely secrets are masked unless asked for.

    >>> from jupyter_kernel_state.repl import History, cards, run
    >>> ns = {"text": "hello " * 1000}
    >>> print(cards(ns)[0].format())          # what the model sees of `text`
    >>> result = run("n = text.count('hello')\\nprint(n)", ns)
    >>> history = History().append(code="n = ...", result=result)
    >>> print(history.format())               # the last 10 steps, outputs cut at 2,000

Everything has ``to_dict()`` (JSON-serialisable, for logs) and, where it can be rebuilt,
``from_dict()``. See ``docs/repl.md``.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Literal

from .probe import entry as _entry
from .probe import guard as _guard
from .probe import inspectors as _inspectors
from .probe import namespace as _namespace
from .secrets import MASK, mask_values, secret_reason

# The probe is untyped (it runs inside kernels, stdlib only): its entry points, typed.
_summarize: Callable[..., dict[str, Any]] = _entry.summarize
_guard_session: Callable[[int, int], Any] = _guard.session
_visible: Callable[..., list[tuple[str, Any]]] = _namespace.visible
_inspector_for: Callable[[type], Any] = _inspectors.inspector_for

#: Preview characters of a card (the seed's default; the probe caps at 10,000).
PREVIEW_CHARS = 500
MAX_PREVIEW_CHARS = 10_000
#: Time allowed to one value's ``__repr__``/``__len__``, and to all the cards of one call.
TIME_GUARD_MS = 100
BUDGET_MS = 2_000
#: A shallow size (``memory``) from which a card mentions it (``nbytes`` always is).
BIG_MEMORY = 1_000_000
#: Cards made by one ``cards()`` call at most.
MAX_CARDS = 100
#: Step outputs longer than this are cut in ``format`` (with ``TRUNCATED``).
MAX_OUTPUT_CHARS = 2_000
#: Code longer than this is cut in ``format``.
MAX_CODE_CHARS = 10_000
#: Steps shown by ``History.format``.
MAX_STEPS = 10
#: Description and constraints are cut to this many characters.
MAX_NOTE_CHARS = 2_000
#: Output captured by ``run`` at most (per stream); the rest is counted, not kept.
MAX_CAPTURE_CHARS = 1_000_000
#: The marker that ends a cut output: ``... (truncated: 1,234 more characters)``.
TRUNCATED = "\n... (truncated: {omitted:,} more characters)"
NO_STEPS = "(No prior steps)"
#: Groups of names ``cards`` skips unless included, as the probe does.
INCLUDE_GROUPS = ("private", "modules", "callables", "classes")
_UNITS = {"string": "characters", "bytes": "bytes", "mapping": "keys"}


def cut(text: str, max_chars: int) -> str:
    """``text``, or its first ``max_chars`` characters and the ``TRUNCATED`` marker."""
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + TRUNCATED.format(omitted=len(text) - max_chars)


def masked_cut(text: str, max_chars: int) -> str:
    """``cut`` after masking credential-looking substrings (scanning a bounded window:
    a secret straddling the cut is still recognised)."""
    omitted = len(text) - max_chars
    if omitted <= 0:
        return mask_values(text)
    return mask_values(text[: max_chars + 256])[:max_chars] + TRUNCATED.format(omitted=omitted)


def _fence(text: str) -> str:
    """A Markdown fence longer than any run of backticks in ``text``."""
    n = 3
    while "`" * n in text:
        n += 1
    return "`" * n


def _block(text: str, lang: str = "") -> list[str]:
    fence = _fence(text)
    return [fence + lang, text, fence]


def _note(text: str | None) -> str:
    return "" if text is None else str(text)[:MAX_NOTE_CHARS]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (unknown objects become ``"<TypeName>"``)."""
    return json.loads(json.dumps(value, default=lambda o: f"<{type(o).__name__}>"))


# --- variable cards -------------------------------------------------------------------


@dataclass(frozen=True)
class VariableCard:
    """What a model is told about one variable instead of its value (``REPLVariable``).

    ``name``, ``type_name``, ``description``, ``constraints``, ``total_length`` and
    ``preview`` are the seed's fields; the rest comes from the probe's summary:
    ``length_unit`` (characters, items, keys, bytes), ``kind`` (dataframe, array,
    mapping …), ``qualname``, ``shape``, ``dtype``, ``nbytes`` (a data buffer's size),
    ``memory`` (a cheap shallow size, when the probe gives one), ``truncated`` (the
    preview was cut), ``likely_secret``/``masked`` and ``error`` (what could not be
    read: "repr timed out", "len raised ValueError" …).
    """

    name: str
    type_name: str
    description: str = ""
    constraints: str = ""
    total_length: int | None = None
    preview: str = ""
    length_unit: str = "characters"
    kind: str = "object"
    qualname: str = ""
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    nbytes: int | None = None
    memory: int | None = None
    truncated: bool = False
    likely_secret: bool = False
    masked: bool = False
    error: str | None = None

    @classmethod
    def from_value(
        cls,
        name: str,
        value: Any,
        description: str | None = None,
        constraints: str | None = None,
        *,
        preview_chars: int = PREVIEW_CHARS,
        time_guard_ms: int = TIME_GUARD_MS,
        reveal: bool = False,
    ) -> VariableCard:
        """The card of ``value`` bound to ``name``.

        Never raises for a hostile value: a ``__repr__`` that raises or runs longer than
        ``time_guard_ms`` leaves a fallback preview and says so in ``error``. A value that
        looks like a credential (by its name or its preview) is masked unless ``reveal``.
        """
        preview_chars = max(10, min(int(preview_chars), MAX_PREVIEW_CHARS))
        summary = _summarize(
            str(name), value, description=description, constraints=constraints,
            preview_chars=preview_chars, time_guard_ms=max(1, int(time_guard_ms)))
        return cls.from_summary(summary, reveal=reveal)

    @classmethod
    def from_summary(cls, summary: Mapping[str, Any], *, reveal: bool = False) -> VariableCard:
        """The card of a probe summary (``probe.summarize()``, or a REST Variable)."""
        name = str(summary.get("name") or "")
        preview = str(summary.get("preview") or "")
        kind = str(summary.get("kind") or "object")
        shape = summary.get("shape")
        size = summary.get("size")
        truncated = bool(summary.get("truncated"))
        reason = secret_reason(name, preview) if not summary.get("masked") else "masked"
        masked = bool(summary.get("masked")) or (reason is not None and not reveal)
        total: int | None
        if size is None and shape is None and not truncated and not summary.get("error"):
            # (no length of its own: the whole of its text is the preview)
            total, unit = len(preview), "characters"
        else:
            total, unit = size if isinstance(size, int) else None, _UNITS.get(kind, "items")
        return cls(
            name=name,
            type_name=str(summary.get("type") or "?"),
            description=_note(summary.get("description")),
            constraints=_note(summary.get("constraints")),
            total_length=total,
            preview=MASK if masked else preview,
            length_unit=unit,
            kind=kind,
            qualname=str(summary.get("qualname") or summary.get("type") or ""),
            shape=tuple(int(n) for n in shape) if isinstance(shape, list | tuple) else None,
            dtype=summary.get("dtype") if isinstance(summary.get("dtype"), str) else None,
            nbytes=summary.get("nbytes") if isinstance(summary.get("nbytes"), int) else None,
            memory=summary.get("memory") if isinstance(summary.get("memory"), int) else None,
            truncated=truncated and not masked,
            likely_secret=reason is not None or bool(summary.get("likely_secret")),
            masked=masked,
            error=summary.get("error") if isinstance(summary.get("error"), str) else None,
        )

    def format(self) -> str:
        """The card as prompt text (the seed's layout, plus shape, memory and notes)."""
        type_line = self.type_name
        if self.qualname and self.qualname != self.type_name:
            type_line += f" ({self.qualname})"
        lines = [f"Variable: `{self.name}` (access it in your code)", f"Type: {type_line}"]
        if self.description:
            lines.append(f"Description: {self.description}")
        if self.constraints:
            lines.append(f"Constraints: {self.constraints}")
        if self.shape is not None:
            shape = "×".join(f"{n:,}" for n in self.shape)
            lines.append(f"Shape: {shape}" + (f", dtype {self.dtype}" if self.dtype else ""))
        elif self.total_length is not None:
            lines.append(f"Total length: {self.total_length:,} {self.length_unit}")
        if self.nbytes is not None:
            lines.append(f"Memory: {self.nbytes:,} bytes")
        elif self.memory is not None and self.memory >= BIG_MEMORY:
            lines.append(f"Memory: {self.memory:,} bytes (shallow)")
        lines.append("Preview" + (" (cut)" if self.truncated else "") + ":")
        lines += _block(self.preview)
        if self.masked:
            lines.append("Note: masked (it looks like a credential): use it in code, never "
                         "print it")
        if self.error:
            lines.append(f"Note: {self.error}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Every field, as JSON data (``shape`` as a list)."""
        return {
            "name": self.name, "type_name": self.type_name, "description": self.description,
            "constraints": self.constraints, "total_length": self.total_length,
            "preview": self.preview, "length_unit": self.length_unit, "kind": self.kind,
            "qualname": self.qualname,
            "shape": None if self.shape is None else list(self.shape),
            "dtype": self.dtype, "nbytes": self.nbytes, "memory": self.memory,
            "truncated": self.truncated,
            "likely_secret": self.likely_secret, "masked": self.masked, "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VariableCard:
        """The card ``to_dict`` described."""
        fields = dict(data)
        if fields.get("shape") is not None:
            fields["shape"] = tuple(fields["shape"])
        return cls(**fields)


def visible_names(namespace: Mapping[str, Any], include: Iterable[str] = ()) -> list[str]:
    """The names of ``namespace`` the probe would list, in namespace order: no private
    names (``_x``), modules, functions or classes unless their group is in ``include``
    (``INCLUDE_GROUPS``), no IPython internals, no names that are not identifiers."""
    groups = tuple(include)
    unknown = set(groups) - set(INCLUDE_GROUPS)
    if unknown:
        raise ValueError(f"include: unknown group(s) {sorted(unknown)}; "
                         f"known: {', '.join(INCLUDE_GROUPS)}")
    ns = namespace if type(namespace) is dict else dict(namespace)
    return [name for name, _ in _visible(ns, groups, None)]


def cards(
    namespace: Mapping[str, Any],
    *,
    descriptions: Mapping[str, str] | None = None,
    constraints: Mapping[str, str] | None = None,
    names: Iterable[str] | None = None,
    include: Iterable[str] = (),
    limit: int = MAX_CARDS,
    preview_chars: int = PREVIEW_CHARS,
    time_guard_ms: int = TIME_GUARD_MS,
    budget_ms: int = BUDGET_MS,
    reveal: bool = False,
) -> list[VariableCard]:
    """Cards of the variables of a plain namespace dict (at most ``limit``, in namespace
    order, or of ``names`` in that order — missing names are skipped).

    ``descriptions`` and ``constraints`` map names to the notes shown on their cards.
    All the values of one call share ``budget_ms``: once it is spent, the remaining cards
    are built without calling the values' code (and say so in ``error``).
    """
    ns = namespace if type(namespace) is dict else dict(namespace)
    chosen = visible_names(ns, include) if names is None else [n for n in names if n in ns]
    chosen = chosen[: max(0, int(limit))]
    descriptions = descriptions or {}
    constraints = constraints or {}
    out = []
    with _guard_session(max(1, int(time_guard_ms)), max(1, int(budget_ms))):
        for name in chosen:
            out.append(VariableCard.from_value(
                name, ns[name], descriptions.get(name), constraints.get(name),
                preview_chars=preview_chars, time_guard_ms=time_guard_ms, reveal=reveal))
    return out


def format_cards(variables: Iterable[VariableCard], total: int | None = None) -> str:
    """Cards as one prompt block; ``total`` (the namespace's size) adds "N of M shown"."""
    shown = list(variables)
    text = "\n\n".join(card.format() for card in shown)
    if total is not None and total > len(shown):
        text += f"\n\n({len(shown)} of {total} variables shown)"
    return text


# --- steps and history ----------------------------------------------------------------


@dataclass(frozen=True)
class StepResult:
    """What running one code block did (``REPLResult``).

    ``type`` is ``"ok"`` or ``"error"`` (``error`` holds the exception line);
    ``changed`` the names bound, rebound or changed in place, ``removed`` the names
    deleted, ``variables`` the cards of ``changed``. ``stdout``/``stderr`` are what was
    printed (at most ``MAX_CAPTURE_CHARS`` each; ``dropped_chars`` counts the rest).
    """

    stdout: str = ""
    stderr: str = ""
    type: Literal["ok", "error"] = "ok"
    error: str | None = None
    execution_time: float = 0.0
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    variables: tuple[VariableCard, ...] = ()
    dropped_chars: int = 0

    @property
    def success(self) -> bool:
        """Whether the code ran to its end (the seed's ``success``)."""
        return self.type == "ok"

    @property
    def output(self) -> str:
        """What a step shows: stdout, then stderr."""
        if self.stdout and self.stderr and not self.stdout.endswith("\n"):
            return self.stdout + "\n" + self.stderr
        return self.stdout + self.stderr

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON data (the variables as card dicts)."""
        return {
            "stdout": self.stdout, "stderr": self.stderr, "type": self.type,
            "success": self.success, "error": self.error,
            "execution_time": self.execution_time, "changed": list(self.changed),
            "removed": list(self.removed),
            "variables": [card.to_dict() for card in self.variables],
            "dropped_chars": self.dropped_chars,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StepResult:
        """The result ``to_dict`` described."""
        fields = {k: v for k, v in data.items() if k != "success"}
        fields["changed"] = tuple(fields.get("changed", ()))
        fields["removed"] = tuple(fields.get("removed", ()))
        fields["variables"] = tuple(VariableCard.from_dict(v)
                                    for v in fields.get("variables", ()))
        return cls(**fields)


@dataclass(frozen=True)
class Step:
    """One iteration of the loop: the model's reasoning, its code, what it printed
    (``REPLEntry``). ``changed`` lists the names the code bound or changed."""

    code: str = ""
    output: str = ""
    reasoning: str = ""
    execution_time: float = 0.0
    llm_calls: tuple[Mapping[str, Any], ...] = ()
    changed: tuple[str, ...] = ()
    success: bool = True
    timestamp: str = field(default_factory=_now)

    def format(self, index: int | None = None, max_output_chars: int = MAX_OUTPUT_CHARS) -> str:
        """The step as prompt text: ``[Step N]``, reasoning, code, output (cut at
        ``max_output_chars`` with the ``TRUNCATED`` marker, likely secrets masked)."""
        parts = [f"[Step {index}]" if index is not None else "[Step]"]
        if self.reasoning:
            parts.append(f"Reasoning: {masked_cut(self.reasoning, MAX_CODE_CHARS)}")
        if self.code:
            parts.append("Code:")
            parts += _block(masked_cut(self.code, MAX_CODE_CHARS), "python")
        if self.output:
            parts.append("Output:" if self.success else "Output (error):")
            output = self.output[:-1] if self.output.endswith("\n") else self.output
            parts += _block(masked_cut(output, max(0, max_output_chars)))
        if self.changed:
            shown = ", ".join(self.changed[:20])
            more = f" and {len(self.changed) - 20} more" if len(self.changed) > 20 else ""
            parts.append(f"Changed: {shown}{more}")
        if self.llm_calls:
            parts.append(f"(Made {len(self.llm_calls)} sub-LLM call(s))")
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON data (the exact text: mask before logs leave the machine)."""
        return {
            "code": self.code, "output": self.output, "reasoning": self.reasoning,
            "execution_time": self.execution_time,
            "llm_calls": [_jsonable(dict(call)) for call in self.llm_calls],
            "changed": list(self.changed), "success": self.success,
            "timestamp": self.timestamp,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Step:
        """The step ``to_dict`` described."""
        fields = dict(data)
        fields["llm_calls"] = tuple(fields.get("llm_calls", ()))
        fields["changed"] = tuple(fields.get("changed", ()))
        return cls(**fields)


@dataclass(frozen=True)
class History:
    """The steps so far (``REPLHistory``). Immutable: ``append`` returns a new history."""

    steps: tuple[Step, ...] = ()

    def append(
        self,
        step: Step | None = None,
        *,
        code: str = "",
        output: str | None = None,
        reasoning: str = "",
        result: StepResult | None = None,
        execution_time: float | None = None,
        llm_calls: Iterable[Mapping[str, Any]] = (),
    ) -> History:
        """A new history with one more step: ``step`` itself, or one made of the keyword
        fields (``result`` fills output, time, changed names and success)."""
        if step is None:
            step = Step(
                code=code,
                output=output if output is not None else (result.output if result else ""),
                reasoning=reasoning,
                execution_time=execution_time if execution_time is not None else (
                    result.execution_time if result else 0.0),
                llm_calls=tuple(llm_calls),
                changed=result.changed if result else (),
                success=result.success if result else True,
            )
        return History((*self.steps, step))

    def format(self, max_steps: int = MAX_STEPS, max_output_chars: int = MAX_OUTPUT_CHARS) -> str:
        """The last ``max_steps`` steps as prompt text, numbered from the first step, with
        "(Showing last 10 of 25 steps)" on top when some are left out."""
        if not self.steps:
            return NO_STEPS
        shown = self.steps[-max_steps:] if max_steps > 0 else ()
        first = len(self.steps) - len(shown)
        parts = [step.format(first + i + 1, max_output_chars) for i, step in enumerate(shown)]
        if len(shown) < len(self.steps):
            parts.insert(0, f"(Showing last {len(shown)} of {len(self.steps)} steps)")
        return "\n\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """``{"steps": [step dicts]}``."""
        return {"steps": [step.to_dict() for step in self.steps]}

    def to_list(self) -> list[dict[str, Any]]:
        """The step dicts (the seed's ``to_list``)."""
        return [step.to_dict() for step in self.steps]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> History:
        """The history ``to_dict`` described."""
        return cls(tuple(Step.from_dict(step) for step in data.get("steps", ())))

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __bool__(self) -> bool:
        return bool(self.steps)


@dataclass(frozen=True)
class Result:
    """How a loop ended: ``type`` is ``"final"`` (the model gave ``answer``),
    ``"max_steps"`` (it ran out of iterations) or ``"error"``; ``answer_card`` is the
    answer's card (what a log holds of it)."""

    type: Literal["final", "max_steps", "error"]
    history: History = History()
    answer: Any = None
    answer_card: VariableCard | None = None
    error: str | None = None

    @classmethod
    def final(cls, answer: Any, history: History, *, name: str = "answer") -> Result:
        """A loop that ended with ``answer`` (its card made under the time guard)."""
        return cls("final", history, answer, VariableCard.from_value(name, answer))

    def to_dict(self) -> dict[str, Any]:
        """The type, the steps taken, the answer's card, the error and the history."""
        return {
            "type": self.type, "steps": len(self.history),
            "answer": None if self.answer_card is None else self.answer_card.to_dict(),
            "error": self.error, "history": self.history.to_dict(),
        }


# --- running code ---------------------------------------------------------------------


class _Capture(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0
        self.limit = limit

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts)


def _fingerprints(ns: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """name → (id, type, the probe's cheap fingerprint): what tells a change."""
    out = {}
    for name in names:
        value = ns.get(name)
        try:
            fp = _inspector_for(type(value)).fingerprint(value)
        except Exception:
            fp = None
        out[name] = (id(value), type(value), fp)
    return out


def run(
    code: str,
    namespace: dict[str, Any],
    *,
    filename: str = "<step>",
    max_capture_chars: int = MAX_CAPTURE_CHARS,
    preview_chars: int = PREVIEW_CHARS,
    reveal: bool = False,
) -> StepResult:
    """Execute ``code`` in ``namespace`` (a plain dict) with stdout and stderr captured.

    An exception ends the code and is reported (``type="error"``, its traceback in
    ``stderr``), never raised — except ``KeyboardInterrupt`` and ``SystemExit``.
    This is not a sandbox: the code runs in this process, with its rights.
    """
    if type(namespace) is not dict:
        raise TypeError("namespace must be a dict")
    before = _fingerprints(namespace, visible_names(namespace))
    out, err = _Capture(max_capture_chars), _Capture(max_capture_chars)
    error = None
    started = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            exec(compile(code, filename, "exec"), namespace)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:
            error = traceback.format_exception_only(type(exc), exc)[-1].strip()
            frames = exc.__traceback__.tb_next if exc.__traceback__ else None  # not ours
            err.write("".join(traceback.format_exception(type(exc), exc, frames, limit=-5)))
    elapsed = time.perf_counter() - started
    now = visible_names(namespace)
    after = _fingerprints(namespace, now)
    changed = tuple(n for n in now if before.get(n) != after[n])
    removed = tuple(n for n in before if n not in after)
    return StepResult(
        stdout=out.getvalue(), stderr=err.getvalue(),
        type="error" if error is not None else "ok", error=error,
        execution_time=round(elapsed, 6), changed=changed, removed=removed,
        variables=tuple(cards(namespace, names=changed, preview_chars=preview_chars,
                              reveal=reveal)),
        dropped_chars=out.dropped + err.dropped,
    )


def with_notes(card: VariableCard, description: str | None = None,
               constraints: str | None = None) -> VariableCard:
    """``card`` with a new description and/or constraints."""
    return replace(card, description=_note(description) if description is not None
                   else card.description,
                   constraints=_note(constraints) if constraints is not None
                   else card.constraints)


#: The seed's names.
REPLVariable = VariableCard
REPLEntry = Step
REPLHistory = History
REPLResult = StepResult

__all__ = [
    "MAX_OUTPUT_CHARS",
    "MAX_STEPS",
    "NO_STEPS",
    "TRUNCATED",
    "History",
    "REPLEntry",
    "REPLHistory",
    "REPLResult",
    "REPLVariable",
    "Result",
    "Step",
    "StepResult",
    "VariableCard",
    "cards",
    "cut",
    "format_cards",
    "run",
    "visible_names",
    "with_notes",
]
