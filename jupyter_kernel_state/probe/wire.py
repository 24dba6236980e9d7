"""The reply on the wire: one line of JSON, or the JSON header then one variable a line.

Variables a snapshot already holds as JSON text (:class:`Fragments`) are spliced in as
they are; NaN and types JSON has no word for are made safe (``null``, ``"<TypeName>"``).
"""

import json

_type_name = type.__dict__["__name__"].__get__


class Fragments(list):
    """Variables already encoded as JSON objects (spliced into the reply by ``dumps``)."""


def dumps(reply):
    """One line of JSON: ``Fragments`` spliced in as they are, NaN and odd types made
    safe."""
    variables = reply.get("variables") if type(reply) is dict else None
    if type(variables) is Fragments:
        rest = dict(reply)
        rest["variables"] = []
        text = dumps(rest)
        marker = '"variables":[]'
        at = text.index(marker) + len(marker) - 1
        return text[:at] + ",".join(variables) + text[at:]
    try:
        return json.dumps(
            reply, ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=opaque
        )
    except ValueError:
        return json.dumps(
            finite(reply), ensure_ascii=True, allow_nan=False, separators=(",", ":"),
            default=opaque,
        )


def dumps_lines(reply):
    """The reply with each variable's JSON on a line of its own after the rest (JSON text
    never holds a raw newline): the server passes the lines through without decoding
    them.  ``variables_count`` lets it check that none was lost."""
    variables = reply.get("variables") if type(reply) is dict else None
    if type(variables) is not Fragments:
        return dumps(reply)
    rest = dict(reply)
    del rest["variables"]
    rest["variables_count"] = len(variables)
    if not variables:
        return dumps(rest)
    return dumps(rest) + "\n" + "\n".join(variables)


def opaque(o):
    """What JSON says of an object it has no word for: ``"<TypeName>"`` (read through
    ``type``'s own descriptor: never a user ``__class__`` or metaclass property)."""
    try:
        return "<" + _type_name(type(o)) + ">"
    except Exception:
        return "<?>"


def finite(x):
    """``x`` with every NaN and infinity (in dicts and lists, at any depth) made None."""
    if type(x) is float and (x != x or x in (float("inf"), float("-inf"))):
        return None
    if type(x) is dict:
        return {k: finite(v) for k, v in x.items()}
    if type(x) in (list, tuple):
        return [finite(v) for v in x]
    return x
