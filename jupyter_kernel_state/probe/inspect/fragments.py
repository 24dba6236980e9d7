"""The JSON text of snapshot fragments: each summary's ``FRAGMENT_KEYS`` filled into
one template (the same text ``json`` would write, at twice its speed)."""

import json

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
    """JSON objects of ``FRAGMENT_KEYS`` without the closing brace.

    Filled into one template per summary (the same text ``json`` would write, at twice
    its speed); anything unusual (a NaN, an odd type) goes through the encoder.
    """
    out = []
    append = out.append
    enc, value = _enc_str, _json_value
    for s in summaries:
        try:
            append(
                _TEMPLATE
                % (
                    enc(s["name"]),
                    enc(s["type"]),
                    enc(s["qualname"]),
                    enc(s["kind"]),
                    value(s["size"]),
                    value(s["shape"]),
                    value(s["dtype"]),
                    value(s["nbytes"]),
                    value(s["memory"]),
                    enc(s["preview"]),
                    value(s["truncated"]),
                    value(s["error"]),
                )
            )
        except (TypeError, ValueError):
            append(_encode_one(s))
    return out


_enc_str = json.encoder.encode_basestring_ascii
_TEMPLATE = "{" + ",".join('"%s":%%s' % k for k in FRAGMENT_KEYS)
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
    fixed = {k: s[k] for k in FRAGMENT_KEYS}
    try:
        return _encoder.encode(fixed)[:-1]
    except ValueError:  # NaN somewhere: sanitised
        return _encoder.encode(finite(fixed))[:-1]
