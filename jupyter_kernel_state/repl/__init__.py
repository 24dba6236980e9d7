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

from .cards import VariableCard, cards, format_cards, visible_names, with_notes
from .running import run
from .steps import History, Result, Step, StepResult
from .text import MAX_OUTPUT_CHARS, MAX_STEPS, NO_STEPS, TRUNCATED, cut

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
