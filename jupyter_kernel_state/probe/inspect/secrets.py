"""What looks like a credential: names (a variable's, a dict key's, an attribute's, a
field's) and values (``sk-…``, ``AKIA…``, bearer tokens …).

The one definition: the probe masks with it (a value under a credential-like key, in
previews, details and change descriptions) and the server imports it
(``jupyter_kernel_state.secrets``) to flag and mask what the probe sends.  The patterns
err on the side of masking: a false positive costs a preview, a false negative leaks a
key into a model's context.
"""

import re

#: A name that looks like it holds a credential (searched anywhere in the name).
SECRET_NAME = re.compile(
    r"(token|passw(or)?d|passwd|secret|api_?key|apikey|access_?key|private_?key|"
    r"credential|auth_?key|session_?key|client_?secret|bearer|cookie)",
    re.IGNORECASE,
)

#: Values that look like credentials, each with what it looks like.
SECRET_VALUES = (
    ("an OpenAI-style key", re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}")),
    ("an AWS access key id", re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{12,}")),
    ("a GitHub token", re.compile(r"\b(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}")),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{8,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}")),
    ("a bearer token", re.compile(r"\b[Bb]earer\s+[A-Za-z0-9._~+/\-]{10,}=*")),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.")),
    (
        "a URL with credentials",
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@'\"]+:[^/\s@'\"]+@"),
    ),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
)

#: What a masked value reads as.
MASK = "[masked]"
#: Why a value with a credential-like key inside is a likely secret (``secret_reason``).
INSIDE = "a key inside looks like a credential"
#: Why a child reached through a credential-like key is one.
UNDER = "its key looks like a credential"
#: The characters of a key or name searched (a longer key is searched at its start).
MAX_NAME_CHARS = 256

_search = SECRET_NAME.search
_mro = type.__dict__["__mro__"].__get__  # never a metaclass's own ``__mro__``


def secret_name(name: str) -> bool:
    """Whether ``name`` (an exact ``str``) looks like it holds a credential."""
    return _search(name[:MAX_NAME_CHARS]) is not None


def secret_key(key: object) -> bool:
    """Whether a mapping key, attribute or field name looks like a credential's: text
    only (``str`` and its subclasses, read without their methods)."""
    if type(key) is str:
        return _search(key[:MAX_NAME_CHARS]) is not None
    if str in _mro(type(key)):
        return _search(str.__getitem__(key, slice(0, MAX_NAME_CHARS))) is not None  # type: ignore[arg-type]
    return False


#: Any of ``SECRET_VALUES``: one pass proves a text holds none (the usual case).
_ANY_VALUE = re.compile("|".join("(?:" + p.pattern + ")" for _label, p in SECRET_VALUES))


def mask_values(text: str) -> str:
    """``text`` with every credential-looking substring masked (its first characters
    kept, so ``sk-…[masked]`` still says what it was)."""
    if _ANY_VALUE.search(text) is None:
        return text
    for _label, pattern in SECRET_VALUES:
        text = pattern.sub(_masked_match, text)
    return text


def _masked_match(match):
    return match.group(0)[:3] + "…" + MASK


#: A string literal on one line ('…' or "…", with escapes), the prefix letters aside;
#: one left open (a head cut inside it) runs to the end of its line.
_LITERAL = re.compile(r"""(['"])(?:\\.|(?!\1)[^\\\n])*(?:\1|$)""", re.MULTILINE)


def mask_code(text: str) -> str:
    """Code said to a reader that must not see a credential in it: credential-looking
    values masked, and every string literal masked when the code names something that
    looks like a credential (``api_key = "…"``: its value could be any text)."""
    text = mask_values(text)
    if _search(text) is None:
        return text
    return _LITERAL.sub(lambda m: m.group(1) + MASK + m.group(1), text)
