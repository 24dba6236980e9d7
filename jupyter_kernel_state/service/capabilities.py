"""What a kernel's probe can do: the operations it has and, per operation, the optional
fields it applies.

A probe declares them in its ``ping`` reply (``{"operations": {op: [field, ...]}}``:
the Python probe from ``probe/protocol.py`` itself, the R probe as written in
``probe_r/entry.R``). ``ProbeClient`` reads the declaration once per probe (its
``probe_id``) and asks again after a restart or a new probe. A probe installed by an
earlier version of this extension declares nothing: it is taken to do what its language's
probe did then (``LanguageSupport.operations``), and whether it applied an optional field
is unknown (``applies`` answers None: the caller proves it by the reply, as it did then).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .languages import LanguageSupport

#: The operations every probe has had since the first one.
BASE_OPERATIONS = frozenset({"ping", "snapshot", "detail"})


@dataclass(frozen=True)
class Capabilities:
    operations: frozenset[str]
    #: Per operation, the optional fields the probe applies; None: not declared.
    fields: dict[str, frozenset[str]] | None = None

    @classmethod
    def expected(cls, support: LanguageSupport) -> Capabilities:
        """What a language's probe is expected to do before it has declared anything."""
        return cls(BASE_OPERATIONS | support.operations)

    @classmethod
    def from_ping(cls, reply: dict[str, Any], support: LanguageSupport) -> Capabilities:
        """The declaration in a ``ping`` reply; what is expected of the language for a
        probe that declares nothing (an older one)."""
        declared = reply.get("operations")
        if not isinstance(declared, dict):
            return cls.expected(support)
        fields = {op: frozenset(f for f in names if isinstance(f, str))
                  for op, names in declared.items()
                  if isinstance(op, str) and isinstance(names, list)}
        return cls(frozenset(fields), fields)

    @property
    def declared(self) -> bool:
        return self.fields is not None

    def has(self, operation: str) -> bool:
        return operation in self.operations

    def applies(self, operation: str, field: str) -> bool | None:
        """Whether the probe applies ``field`` of ``operation``; None: it did not say."""
        if self.fields is None:
            return None
        return field in self.fields.get(operation, frozenset())
