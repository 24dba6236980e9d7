"""Recognise likely credentials in variable names and previews (pure functions).

Used to flag variables in REST payloads (``likely_secret``) and to mask them in prompts.
The patterns err on the side of masking: a false positive costs a preview, a false
negative leaks a key into a model's context.
"""

from __future__ import annotations

import re

# The one definition of what looks like a credential, shared with the probe (which masks
# a value under a credential-like key before anything leaves the kernel).
from .probe.inspect.secrets import INSIDE, MASK, SECRET_NAME, SECRET_VALUES, UNDER
from .probe.inspect.secrets import mask_values as _mask_values

__all__ = ["INSIDE", "MASK", "UNDER", "has_secret_hint", "mask_secret", "mask_values",
           "may_hold_secret", "secret_reason"]

#: Any text in which ``secret_reason`` could find something: a name or a value pattern
#: anywhere. Not matching it proves there is nothing to mask; matching it asks for the
#: precise check (see ``service/presenter.py``).
_ANY_SECRET = re.compile("|".join(
    [SECRET_NAME.pattern] + [pattern.pattern for _label, pattern in SECRET_VALUES]),
    re.IGNORECASE)


#: Text that every match of a pattern above contains, lower-cased: a text holding none of
#: them cannot match (the check of each pattern lists its own; a test keeps them in step).
_NEEDLES = ("token", "passw", "secret", "key", "credential", "bearer", "cookie", "sk-",
            "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat", "xox",
            "aiza", "eyj", "://", "-----begin")


def has_secret_hint(text: str) -> bool:
    """Whether ``text`` holds one of the substrings every match of the patterns holds: a
    C-speed scan each, for a text of any length (False: nothing to mask in it)."""
    low = text.lower()
    return any(needle in low for needle in _NEEDLES)


def may_hold_secret(text: str) -> bool:
    """Whether ``text`` (say, a variable's JSON) could name or hold a likely credential.

    Substring tests first (the alternation of case-insensitive patterns costs some 50 µs
    a variable), the patterns only for a text that has one."""
    return has_secret_hint(text) and _ANY_SECRET.search(text) is not None


def secret_reason(name: str, preview: str | None) -> str | None:
    """Why this variable looks like a credential, or None."""
    if SECRET_NAME.search(name):
        return "its name looks like a credential"
    if preview:
        for label, pattern in SECRET_VALUES:
            if pattern.search(preview):
                return f"its value looks like {label}"
    return None


def mask_values(text: str) -> str:
    """``text`` with every credential-looking substring replaced by a marker."""
    return str(_mask_values(text))


def mask_secret(text: str, *, whole: bool) -> str:
    """A likely secret's text as shown by default: the marker alone when ``whole``,
    else ``text`` with its credential-looking parts masked."""
    return MASK if whole else mask_values(text)
