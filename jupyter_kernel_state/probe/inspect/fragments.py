"""The JSON text of snapshot fragments: each summary's ``FRAGMENT_KEYS`` filled into
one template (the same text ``json`` would write, at twice its speed)."""

import json

from ..protocol import VARIABLE_DEFAULTS
from ..wire import finite, opaque

#: Variable keys, in order (the REST contract).
VARIABLE_KEYS = (
    "name",
    "type",
    "qualname",
    "kind",
    "size",
    "shape",
    "dtype",
    "nbytes",
    "memory",
    "preview",
    "truncated",
    "error",
    "secret_reason",  # the probe's: values under credential-like keys inside (masked)
    "change",
    "changed_at",
    "changes",
    "description",
    "constraints",
    "hidden_from_prompt",
)
#: Keys the server always sets (from the user's annotations): a snapshot's variables
#: leave them out of the probe's reply (``summarize`` and ``detail`` still have them).
SERVER_KEYS = ("description", "constraints", "hidden_from_prompt")
CHANGE_KEYS = ("change", "changed_at", "changes")
#: What a snapshot fragment holds: the summary without change fields (added per
#: request) and without the fields the server fills.
FRAGMENT_KEYS = tuple(k for k in VARIABLE_KEYS if k not in CHANGE_KEYS and k not in SERVER_KEYS)


_encoder = json.JSONEncoder(
    ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=opaque
)


def encode_fragments(summaries):
    """JSON objects of ``FRAGMENT_KEYS`` without the closing brace, lean: a field at its
    default (``protocol.VARIABLE_DEFAULTS``; ``qualname`` equal to ``type``) is left out.

    Written piece by piece (the same text ``json`` would write for the fields kept, at
    twice its speed); anything unusual (a NaN, an odd type) goes through the encoder.
    """
    out = []
    append = out.append
    enc, value = _enc_str, _json_value
    for s in summaries:
        try:
            kind = s["type"]
            text = '{"name":' + enc(s["name"]) + ',"type":' + enc(kind)
            if s["qualname"] != kind:
                text += ',"qualname":' + enc(s["qualname"])
            text += ',"kind":' + enc(s["kind"])
            for key, prefix in _NULLABLE:
                x = s[key]
                if x is not None:
                    text += prefix + value(x)
            text += ',"preview":' + enc(s["preview"])
            if s["truncated"]:
                text += ',"truncated":true'
            if s["error"] is not None:
                text += ',"error":' + enc(s["error"])
            if s["secret_reason"] is not None:
                text += ',"secret_reason":' + enc(s["secret_reason"])
            append(text)
        except (TypeError, ValueError):
            append(_encode_one(s))
    return out


#: The fields left out when null, each with its JSON key written once.
_NULLABLE = tuple((k, ',"%s":' % k) for k in ("size", "shape", "dtype", "nbytes", "memory"))
_enc_str = json.encoder.encode_basestring_ascii
_LITERALS = {None: "null", True: "true", False: "false"}


def _json_value(x):
    t = type(x)
    if x is None or t is bool:
        return _LITERALS[x]
    if t is str:
        return _enc_str(x)
    if t is int:
        return int.__repr__(x)
    return _encoder.encode(x)  # lists (shape) and anything else; ValueError on NaN


def _encode_one(s):
    fixed = {k: s[k] for k in FRAGMENT_KEYS if not _is_default(k, s)}
    try:
        return _encoder.encode(fixed)[:-1]
    except ValueError:  # NaN somewhere: sanitised
        return _encoder.encode(finite(fixed))[:-1]


def _is_default(key, s):
    if key == "qualname":
        return s["qualname"] == s["type"]
    default = VARIABLE_DEFAULTS.get(key, _KEEP)
    return default is not _KEEP and s[key] == default and type(s[key]) is type(default)


_KEEP = object()
