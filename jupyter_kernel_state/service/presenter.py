"""Snapshots as served: each variable's JSON from the probe, with the user's notes and
the secret flags added, without decoding and re-encoding what did not change.

The probe sends every variable as one lean JSON object (a *fragment*: fields at their
defaults left out, ``protocol.VARIABLE_DEFAULTS``), and the server passes it through: a
fragment that no note names and in which no credential could hide (one regex pass,
``secrets.may_hold_secret``) is served as the probe wrote it; the others are decoded
once, and a fragment seen before (the same text, under the same notes) is presented from
a cache. The decoded payload is built only for the callers that need dicts (the prompt,
MCP tools), once per response, with every field put back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..probe.protocol import VARIABLE_DEFAULTS, with_defaults
from ..secrets import has_secret_hint, mask_secret, may_hold_secret, secret_reason

_MARKER = '"variables":[]'


#: The text fields of a variable or a detail that show its value.
VALUE_FIELDS = ("preview", "repr", "llm_repr")


def present(variable: dict[str, Any], notes: dict[str, dict[str, Any]], *,
            reveal: bool = False, within: str | None = None) -> dict[str, Any]:
    """A variable (dict) with the user's notes and the secret flags; a likely secret's
    value fields masked unless ``reveal``. ``within``: the variable a child belongs to
    (a child of a likely secret is one too). The probe's own ``secret_reason`` (values
    under credential-like keys inside, which it masked unless asked to reveal them)
    counts after the name's and the value's."""
    note = notes.get(variable.get("name", "")) or {}
    merged = dict(variable)
    merged["description"] = note.get("description")
    merged["constraints"] = note.get("constraints")
    merged["hidden_from_prompt"] = bool(note.get("hidden_from_prompt"))
    reason = secret_reason(str(merged.get("name", "")), merged.get("preview"))
    if within is not None:
        reason = secret_reason(within, None) or reason
    probe_reason = merged.get("secret_reason")
    reason = reason or (probe_reason if isinstance(probe_reason, str) else None)
    merged["likely_secret"] = reason is not None
    merged["secret_reason"] = reason
    merged["masked"] = reason is not None and not reveal
    if merged["masked"]:
        mask_variable(merged, reason)
    return merged


def mask_variable(variable: dict[str, Any], reason: str | None) -> None:
    """Mask what shows a likely secret's value, in place: all of it when the name looks
    like a credential, the credential-like parts when the value does (the probe masked
    the values under credential-like keys already)."""
    whole = reason is not None and reason.startswith("its name")
    for key in VALUE_FIELDS:
        if isinstance(variable.get(key), str):
            variable[key] = mask_secret(variable[key], whole=whole)
    children = variable.get("children")
    if isinstance(children, list):
        variable["children"] = [
            {**c, "preview": mask_secret(str(c.get("preview", "")), whole=whole)}
            if isinstance(c, dict) else c for c in children]
    if variable.get("head") is not None:
        variable["head"] = None


class FragmentPresenter:
    """``present`` on JSON text, cached by the fragment's text (bounded)."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._key: tuple[object, ...] | None = None
        self._cache: dict[str, str] = {}
        # For tests and benchmarks: fragments presented (cache misses), and of those, the
        # ones decoded (a note or a possible secret: the rest pass through as they are).
        self.presented = 0
        self.decoded = 0

    def present_all(self, fragments: list[str], notes: dict[str, dict[str, Any]],
                    key: tuple[object, ...]) -> list[str]:
        """The presented JSON of each fragment; ``key`` names the notes (scope, version)."""
        if key != self._key:
            self._cache = {}
            self._key = key
        cache = self._cache
        get = cache.get
        out = list(map(get, fragments))
        if None not in out:
            return out  # type: ignore[return-value]
        if len(cache) + len(fragments) > self.max_entries:
            cache.clear()
        new = [i for i, done in enumerate(out) if done is None]
        if self._all_plain([fragments[i] for i in new], notes):
            # Nothing anywhere in them to note or mask (one pass over their joined text,
            # a namespace rebound by a loop): each passes through as the probe wrote it.
            self.presented += len(new)
            for i in new:
                out[i] = cache[fragments[i]] = fragments[i]
            return out  # type: ignore[return-value]
        for i in new:
            out[i] = cache[fragments[i]] = self._present_one(fragments[i], notes)
        return out  # type: ignore[return-value]

    @staticmethod
    def _all_plain(fragments: list[str], notes: dict[str, dict[str, Any]]) -> bool:
        """Whether no fragment could need a note or a mask: checked on their joined text
        (a name with a note, or anything a credential could hide in, sends each one
        through ``_present_one``)."""
        if len(fragments) < 64:  # a few: as cheap one by one
            return False
        joined = "\n".join(fragments)
        if any(_NAME_PREFIX + name + '"' in joined for name in notes):
            return False
        return not has_secret_hint(joined) and all(f.startswith(_NAME_PREFIX) for f in fragments)

    def _present_one(self, fragment: str, notes: dict[str, dict[str, Any]]) -> str:
        self.presented += 1
        name = _name_of(fragment)
        if name is not None and name not in notes and not may_hold_secret(fragment):
            return fragment  # nothing to add, nothing to mask: as the probe wrote it
        self.decoded += 1
        variable = json.loads(fragment)
        note = notes.get(variable.get("name", "")) or {}
        probe_reason = variable.pop("secret_reason", None)  # values masked inside
        reason = (secret_reason(str(variable.get("name", "")), variable.get("preview"))
                  or (probe_reason if isinstance(probe_reason, str) else None))
        if reason is not None:  # rare: re-encoded with its value masked
            mask_variable(variable, reason)
            fragment = json.dumps(variable, ensure_ascii=False, separators=(",", ":"))
        added = {key: value for key, value in (
            ("description", note.get("description")),
            ("constraints", note.get("constraints")),
            ("hidden_from_prompt", bool(note.get("hidden_from_prompt"))),
            ("likely_secret", reason is not None),
            ("secret_reason", reason),
            ("masked", reason is not None),
        ) if value != VARIABLE_DEFAULTS[key]}
        if not added:
            return fragment
        return fragment[:-1] + "," + json.dumps(
            added, ensure_ascii=False, separators=(",", ":"))[1:]


_NAME_PREFIX = '{"name":"'


def _name_of(fragment: str) -> str | None:
    """The variable's name from its fragment's first field, without decoding it; None
    when the name is escaped in JSON (the slow path decodes it)."""
    if not fragment.startswith(_NAME_PREFIX):
        return None
    end = fragment.find('"', len(_NAME_PREFIX))
    name = fragment[len(_NAME_PREFIX):end]
    return None if end < 0 or "\\" in name else name


def fragments_of(variables: list[dict[str, Any]]) -> list[str]:
    """Lean fragments for variables that arrived decoded (a probe that sends dicts: R)."""
    return [json.dumps(lean(v), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            for v in variables]


def lean(variable: dict[str, Any]) -> dict[str, Any]:
    """A variable without the fields at their defaults (``protocol.VARIABLE_DEFAULTS``)."""
    return {key: value for key, value in variable.items()
            if not (key in VARIABLE_DEFAULTS and value == VARIABLE_DEFAULTS[key]
                    and type(value) is type(VARIABLE_DEFAULTS[key]))
            and not (key == "qualname" and value == variable.get("type"))}


@dataclass
class SnapshotResponse:
    """A snapshot as served: its ETag, the encoded body (joined from presented fragments
    once however many clients ask), and the decoded payload on demand."""

    header: dict[str, Any]
    variables: list[str]
    etag: str
    _body: bytes | None = field(default=None, repr=False)
    _payload: dict[str, Any] | None = field(default=None, repr=False)

    def body(self) -> bytes:
        if self._body is None:
            head = json.dumps({**self.header, "variables": []}, ensure_ascii=False,
                              separators=(",", ":"))
            at = head.index(_MARKER) + len(_MARKER) - 1
            self._body = (head[:at] + ",".join(self.variables) + head[at:]).encode("utf-8")
        return self._body

    @property
    def payload(self) -> dict[str, Any]:
        """The body decoded, each variable with every field (defaults put back)."""
        if self._payload is None:
            payload = json.loads(self.body())
            if payload.get("detail", "full") == "full":  # names and schema: only theirs
                for variable in payload.get("variables") or ():
                    with_defaults(variable)
            self._payload = payload
        return self._payload


#: The fields of each detail level below ``full``.
NAMES_FIELDS = ("name", "type", "kind")
SCHEMA_FIELDS = (*NAMES_FIELDS, "size", "shape", "dtype", "nbytes", "memory", "change",
                 "changed_at", "likely_secret")


def project(fragments: list[str], detail: str,
            schema: dict[str, dict[str, Any]]) -> list[str]:
    """Presented variables cut to a detail level (``names`` or ``schema``; ``schema``
    adds each table's columns from the probe's ``schema`` reply)."""
    fields = NAMES_FIELDS if detail == "names" else SCHEMA_FIELDS
    out = []
    for fragment in fragments:
        variable = json.loads(fragment)
        brief = {k: variable[k] for k in fields if k in variable}
        if detail == "schema":
            table = schema.get(variable["name"])
            if table is not None:
                brief["columns"] = table.get("columns")
                brief["columns_total"] = table.get("columns_total")
                if table.get("error"):
                    brief["error"] = table["error"]
        out.append(json.dumps(brief, ensure_ascii=False, separators=(",", ":")))
    return out
