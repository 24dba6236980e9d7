"""Expressions that are both code and computation: the filters and sorts of a view.

A view's filter (and, for polars, its sort keys) is built once as a small tree of
library calls — ``sales["price"].notna() & (sales["price"] > 10.0)`` — whose nodes can
be rendered as Python source (the ``code`` op) and evaluated on the real objects (the
``rows`` op): each node calls the same method with the same arguments in both cases,
so the rows the explorer shows are those the generated code keeps.  Evaluating never
compiles or executes text: a node calls ``getattr(target, method)(*values)`` with
values the probe made (literals of the column's type), never anything the user typed
as code.
"""

import datetime
import functools
import operator

#: Binding strength, as Python parses it (a node is parenthesized inside a stronger one).
WEAKEST, COMPARISON, OR, AND, UNARY, ATOM = 0, 1, 2, 3, 4, 5
_BINARY = {
    "==": (operator.eq, COMPARISON), "!=": (operator.ne, COMPARISON),
    "<": (operator.lt, COMPARISON), "<=": (operator.le, COMPARISON),
    ">": (operator.gt, COMPARISON), ">=": (operator.ge, COMPARISON),
    "&": (operator.and_, AND), "|": (operator.or_, OR),
}


class Imports:
    """The modules a rendered text uses (its import lines)."""

    def __init__(self):
        self.modules = set()

    def add(self, module):
        self.modules.add(module)

    def header(self):
        lines = []
        for module, line in (("datetime", "import datetime"), ("zoneinfo", "import zoneinfo"),
                             ("pd", "import pandas as pd"), ("pl", "import polars as pl")):
            if module in self.modules:
                lines.append(line)
        return lines


class Node:
    strength = ATOM

    def render(self, imports):
        raise NotImplementedError

    def evaluate(self):
        raise NotImplementedError

    def code(self, imports, inside):
        """This node's text where a node of strength ``inside`` wants it."""
        text = self.render(imports)
        return "(" + text + ")" if self.strength <= inside and self.strength < ATOM else text


class Ref(Node):
    """A name in the code (the variable, a module) and the object it stands for."""

    def __init__(self, text, value, module=None):
        self.text, self.value, self.module = text, value, module

    def render(self, imports):
        if self.module is not None:
            imports.add(self.module)
        return self.text

    def evaluate(self):
        return self.value


class Lit(Node):
    """A literal of the probe's making: None, a bool, a number, text, a date, a list."""

    def __init__(self, value):
        self.value = value

    def render(self, imports):
        return literal(self.value, imports)

    def evaluate(self):
        return list(self.value) if type(self.value) is tuple else self.value


class Attr(Node):
    """``target.name`` (an accessor: ``.str``, ``.dt``)."""

    def __init__(self, target, name):
        self.target, self.name = target, name

    def render(self, imports):
        return self.target.code(imports, UNARY) + "." + self.name

    def evaluate(self):
        return getattr(self.target.evaluate(), self.name)


class Call(Node):
    """``function(*args, **kwargs)``; a method call is a Call of an :class:`Attr`."""

    def __init__(self, function, args=(), kwargs=()):
        self.function, self.args, self.kwargs = function, tuple(args), tuple(kwargs)

    def render(self, imports):
        parts = [a.render(imports) for a in self.args]
        parts += [k + "=" + v.render(imports) for k, v in self.kwargs]
        return self.function.code(imports, UNARY) + "(" + ", ".join(parts) + ")"

    def evaluate(self):
        kwargs = {k: v.evaluate() for k, v in self.kwargs}
        return self.function.evaluate()(*[a.evaluate() for a in self.args], **kwargs)


class Index(Node):
    """``target[key]``."""

    def __init__(self, target, key):
        self.target, self.key = target, key

    def render(self, imports):
        return self.target.code(imports, UNARY) + "[" + self.key.render(imports) + "]"

    def evaluate(self):
        return self.target.evaluate()[self.key.evaluate()]


class Binary(Node):
    """``left op right`` for a comparison, or ``a & b & …`` / ``a | b | …``."""

    def __init__(self, op, items):
        self.op, self.items = op, tuple(items)
        self.function, self.strength = _BINARY[op]

    def render(self, imports):
        # Comparisons never chain, and an & inside an | is parenthesized for the reader.
        inside = AND if self.op == "|" else self.strength
        return (" " + self.op + " ").join(item.code(imports, inside) for item in self.items)

    def evaluate(self):
        return functools.reduce(self.function, [item.evaluate() for item in self.items])


class Invert(Node):
    """``~x``."""

    strength = UNARY

    def __init__(self, item):
        self.item = item

    def render(self, imports):
        return "~" + self.item.code(imports, UNARY - 1)

    def evaluate(self):
        return operator.invert(self.item.evaluate())


class ListOf(Lit):
    """A list of nodes, rendered ``[a, b]`` and evaluated to the list of their values."""

    def __init__(self, items):
        super().__init__(None)
        self.items = items

    def render(self, imports):
        return "[" + ", ".join(item.render(imports) for item in self.items) + "]"

    def evaluate(self):
        return [item.evaluate() for item in self.items]


def method(target, name, *args, **kwargs):
    """``target.name(*args, **kwargs)``, each argument a node or a literal's value."""
    return Call(Attr(target, name), [_node(a) for a in args],
                [(k, _node(v)) for k, v in kwargs.items()])


def compare(op, left, right):
    return Binary(op, (left, _node(right)))


def both(*items):
    return Binary("&", items) if len(items) > 1 else items[0]


def _node(x):
    return x if isinstance(x, Node) else Lit(x)


# --- literals ----------------------------------------------------------------------------


def literal(value, imports):
    """``value`` as Python source that evaluates to an equal value of the same type."""
    t = type(value)
    if value is None or t is bool or t is int:
        return repr(value)
    if t is float:
        if value != value:
            return 'float("nan")'
        if value in (float("inf"), float("-inf")):
            return 'float("{}")'.format("inf" if value > 0 else "-inf")
        return repr(value)
    if t is str:
        return text_literal(value)
    if t in (list, tuple):
        return "[" + ", ".join(literal(x, imports) for x in value) + "]"
    if t in (datetime.datetime, datetime.date, datetime.time, datetime.timedelta):
        imports.add("datetime")
        text = repr(value)
        if "zoneinfo." in text:
            imports.add("zoneinfo")
        return text
    module = (getattr(t, "__module__", "") or "").split(".")[0]
    if module == "pandas" and t.__name__ in ("Timestamp", "Timedelta"):
        imports.add("pd")
        return "pd." + repr(value)  # Timestamp('2024-10-02 00:00:00+0200', tz='Europe/Paris')
    raise ValueError("no literal for a " + t.__name__)


def text_literal(text):
    """A string literal, in double quotes when that needs no escape (``repr`` escapes
    quotes, backslashes, newlines and unprintable characters)."""
    shown = repr(text)
    if shown.startswith("'") and '"' not in text:
        return '"' + shown[1:-1] + '"'
    return shown
