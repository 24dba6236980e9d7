"""Per-language probe support: how a probe is installed, called and answers.

Each kernel language with a probe is one module here exposing a ``LanguageSupport``;
``for_language`` picks it from the kernel's language. A third language is one more
module and one more line in ``_SUPPORT``, not a branch in every caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class ProbeCall:
    """One silent execute_request: its code and how its answer comes back.

    ``user_expressions`` for kernels that evaluate them (IPython); otherwise
    ``collect_output``: the code publishes its answer as output of the request itself.
    """

    code: str
    user_expressions: dict[str, str] | None = None
    collect_output: bool = False


class LanguageSupport(Protocol):
    """What the server needs to know about one kernel language's probe."""

    #: The language as the snapshot reports it ("python", "R").
    display_name: str
    #: Whether requests carry the last user execution count (``ec``): for probes that
    #: cannot read it in the kernel.
    needs_execution_count: bool
    #: The probe operations beyond ping, snapshot and detail ("digest", "rows", "delete",
    #: "timeline"; see ``probe/protocol.py``) expected of this language's probe before it
    #: has declared what it has at its ping (``capabilities.py``), and of a probe installed
    #: by an earlier version, which declares nothing.
    operations: frozenset[str]

    def install_call(self) -> ProbeCall:
        """The request that (re)installs the probe, leaving nothing in the user's namespace."""

    def install_error(
        self, content: dict[str, Any], outputs: list[dict[str, Any]]
    ) -> str | None:
        """Why the install request did not install the probe, when its reply can tell
        (None: it did, or the kernel does not say)."""

    def probe_call(self, request: dict[str, Any]) -> ProbeCall:
        """The request for one probe operation; ``request`` travels as data, never as code."""

    def parse_reply(
        self, content: dict[str, Any], outputs: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The probe's reply from the execute_reply content and the collected outputs.

        Raises ``errors.ProbeMissing`` when the kernel has no probe, ``errors.ProbeFailed``
        otherwise.
        """

    def check_name(self, name: str) -> None:
        """Raise InvalidRequest when ``name`` cannot be a variable of this language."""


def for_language(language: str) -> LanguageSupport | None:
    """The support for a kernel language (case-insensitive), or None."""
    from . import python, r

    support: dict[str, LanguageSupport] = {"python": python.SUPPORT, "r": r.SUPPORT}
    return support.get(language.lower())


__all__ = ["LanguageSupport", "ProbeCall", "for_language"]
