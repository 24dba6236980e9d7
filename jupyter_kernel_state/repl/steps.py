"""Steps, their results, the immutable history and a loop's result (``REPLEntry``,
``REPLHistory``, ``REPLResult``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .cards import VariableCard
from .text import (
    MAX_CODE_CHARS,
    MAX_OUTPUT_CHARS,
    MAX_STEPS,
    NO_STEPS,
    _block,
    _jsonable,
    _now,
    masked_cut,
)

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


