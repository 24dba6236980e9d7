"""The stable part of each kernel's last prompt, kept so the next prompt starts with it.

Providers cache a prompt's unchanged prefix. ``prompt.build_prompt`` returns the stable
part it used (the header and the variable list); passed back next time, with the changes
asked since its generation at the latest, the new prompt starts with exactly that text
while it is still true enough (see docs/prompt-format.md).
"""

from __future__ import annotations

import collections
from collections.abc import Hashable

from ..prompt_model import StablePart

#: Stable parts kept server-wide (kernels × budgets), and the characters they may hold in
#: all (each holds its text twice: as one string and line by line).
MAX_STABLE_PARTS = 128
MAX_STABLE_CHARS = 4_000_000


class StableParts:
    """A bounded map from (kernel id, epoch, budget, annotations version) to a StablePart."""

    def __init__(self, size: int = MAX_STABLE_PARTS, chars: int = MAX_STABLE_CHARS) -> None:
        self._size, self._max_chars = size, chars
        self._chars = 0
        self._parts: collections.OrderedDict[tuple[Hashable, ...], StablePart] = (
            collections.OrderedDict())

    def get(self, key: tuple[Hashable, ...]) -> StablePart | None:
        part = self._parts.get(key)
        if part is not None:
            self._parts.move_to_end(key)
        return part

    def put(self, key: tuple[Hashable, ...], part: StablePart | None) -> None:
        self._drop(key)
        if part is None or 2 * len(part.text) > self._max_chars:
            return
        self._parts[key] = part
        self._chars += 2 * len(part.text)
        while len(self._parts) > self._size or self._chars > self._max_chars:
            self._drop(next(iter(self._parts)))

    def forget(self, kernel_id: str) -> None:
        for key in [k for k in self._parts if k[0] == kernel_id]:
            self._drop(key)

    def _drop(self, key: tuple[Hashable, ...]) -> None:
        part = self._parts.pop(key, None)
        if part is not None:
            self._chars -= 2 * len(part.text)


def changes_since(stable: StablePart | None, since: int | None,
                  generation: int) -> int | None:
    """The generation to report changes since: the caller's ``since`` (None: the last
    execution), moved back to the stable part's generation when that is older — its list
    is brought up to date by the lines after it."""
    if stable is None:
        return since
    if since is not None:
        return min(since, stable.generation)
    # The stable part of the execution before: "since the last execution" says it.
    return None if stable.generation >= generation - 1 else stable.generation
