"""Recognise likely credentials in variable names and previews (pure functions).

Used to flag variables in REST payloads (``likely_secret``) and to mask them in prompts.
The patterns err on the side of masking: a false positive costs a preview, a false
negative leaks a key into a model's context.
"""

from __future__ import annotations

import re

_SECRET_NAME = re.compile(
    r"(token|passw(or)?d|passwd|secret|api_?key|apikey|access_?key|private_?key|"
    r"credential|auth_?key|session_?key|client_?secret|bearer|cookie)",
    re.IGNORECASE,
)

_SECRET_VALUES = [
    ("an OpenAI-style key", re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}")),
    ("an AWS access key id", re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{12,}")),
    ("a GitHub token", re.compile(r"\b(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}")),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{8,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}")),
    ("a bearer token", re.compile(r"\b[Bb]earer\s+[A-Za-z0-9._~+/\-]{10,}=*")),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.")),
    ("a URL with credentials", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@'\"]+:[^/\s@'\"]+@")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
]

MASK = "[masked]"

#: Any text in which ``secret_reason`` could find something: a name or a value pattern
#: anywhere. Not matching it proves there is nothing to mask; matching it asks for the
#: precise check (see ``service/presenter.py``).
_ANY_SECRET = re.compile("|".join(
    [_SECRET_NAME.pattern] + [pattern.pattern for _label, pattern in _SECRET_VALUES]),
    re.IGNORECASE)


def may_hold_secret(text: str) -> bool:
    """Whether ``text`` (say, a variable's JSON) could name or hold a likely credential."""
    return _ANY_SECRET.search(text) is not None


def secret_reason(name: str, preview: str | None) -> str | None:
    """Why this variable looks like a credential, or None."""
    if _SECRET_NAME.search(name):
        return "its name looks like a credential"
    if preview:
        for label, pattern in _SECRET_VALUES:
            if pattern.search(preview):
                return f"its value looks like {label}"
    return None


def mask_values(text: str) -> str:
    """``text`` with every credential-looking substring replaced by a marker."""
    for _label, pattern in _SECRET_VALUES:
        text = pattern.sub(lambda m: m.group(0)[:3] + "…" + MASK, text)
    return text


def mask_secret(text: str, *, whole: bool) -> str:
    """A likely secret's text as shown by default: the marker alone when ``whole``,
    else ``text`` with its credential-looking parts masked."""
    return MASK if whole else mask_values(text)
