"""Variable cards: what a model sees of each value (``REPLVariable``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..secrets import MASK, secret_reason
from .text import (
    _UNITS,
    BIG_MEMORY,
    BUDGET_MS,
    INCLUDE_GROUPS,
    MAX_CARDS,
    MAX_PREVIEW_CHARS,
    PREVIEW_CHARS,
    TIME_GUARD_MS,
    _block,
    _guard_session,
    _note,
    _summarize,
    _visible,
)

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




def with_notes(card: VariableCard, description: str | None = None,
               constraints: str | None = None) -> VariableCard:
    """``card`` with a new description and/or constraints."""
    return replace(card, description=_note(description) if description is not None
                   else card.description,
                   constraints=_note(constraints) if constraints is not None
                   else card.constraints)


#: The seed's names.
