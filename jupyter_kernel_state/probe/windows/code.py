"""The code of a view (the ``code`` op) of a table in memory: Python that binds
``<name>_view`` to exactly the rows, order and columns the explorer shows.

The filter is the very expression the explorer's rows were kept by (``filters``: one
tree, evaluated for the rows, rendered for the code), the sort the library's own
(``sort_values`` with ``kind="stable", na_position="last"``; polars ``sort`` with
``nulls_last=True, maintain_order=True`` and a float column's NaN as null), in that
order: filter, sort, columns.  Values appear as literals of their column's type; names
are quoted as Python string literals.  pandas code for pandas values (and for numpy
arrays and lists of records, through ``pd.DataFrame``), polars code for polars values:
each library's table writes its own (``sources.Table.code``); here, which code a value
gets, or why none.
"""

from .columns import checked_positions
from .expressions import AND, Binary, Imports

#: A filter longer than this is written one condition a line.
LINE_CHARS = 72


class NoCode(Exception):
    """No code in that syntax for that value (the message says why: a 400)."""


def view_code(table, columns, view, name, syntax, selected, what):
    """``(syntax, code)`` for ``view`` of variable ``name`` (``what``: its type, for
    messages), a table in memory (``backends.memory.MemoryTable``); ``selected``: the
    column positions shown, in order (None: every column); ``columns``
    (``columns.ViewColumns``) has found the columns the view names."""
    source = table.table(columns)
    own = source.library
    if syntax is None:
        syntax = own
    if syntax == "dplyr":
        raise NoCode("dplyr code is for R data.frames; {} is a {}".format(name, what))
    if own == "plain" or getattr(source, "setup", None) is False:
        if own == "plain" and table.kind in ("array", "records"):
            raise NoCode("code for {} (a {}) is pandas code: import pandas in the kernel "
                         "first".format(name, what))
        raise NoCode("no code is written for {} (a {}): it is shown through neither pandas "
                     "nor polars".format(name, what))
    if syntax not in ("pandas", "polars"):  # an engine's syntax
        raise NoCode("{} code is for tables that live in an engine; {} is a {}: ask for {} "
                     "code".format(syntax, name, what, own))
    if syntax != own:
        raise NoCode("{} code is for {} values; {} is a {}: ask for {} code".format(
            syntax, syntax, name, what, own))
    return syntax, source.code(view, name, selected)


class Steps:
    """The lines of a view's code, each binding ``<name>_view`` to the one before (the
    variable ``name`` first): :meth:`bind` a step's expression of :attr:`current`."""

    def __init__(self, name):
        self.name, self.out, self.current = name, name + "_view", name
        self.imports = Imports()
        self.lines = []

    def bind(self, expression):
        self.lines.append("{} = {}".format(self.out, expression))
        self.current = self.out

    def text(self):
        """The code: its imports, its steps (at least ``<name>_view = <name>``)."""
        if self.current == self.name:
            self.bind(self.name)
        return "\n".join(self.imports.header() + self.lines) + "\n"


def wrapped(node, imports):
    """The filter's text; a long and/or, one item a line (inside the brackets)."""
    text = node.render(imports)
    if len(text) <= LINE_CHARS or not (type(node) is Binary and node.op in ("&", "|")):
        return text
    inside = AND if node.op == "|" else node.strength
    items = [item.code(imports, inside) for item in node.items]
    return "\n    " + ("\n    " + node.op + " ").join(items) + "\n"


def positions_of(fields, columns_total):
    """The column positions the code selects, in order (None: every column); listed ones
    must exist."""
    listed = fields["columns"]
    if listed is not None:
        return checked_positions(listed, columns_total)
    start, stop = fields["column_start"], fields["column_stop"]
    if start == 0 and (stop is None or stop >= columns_total):
        return None
    stop = columns_total if stop is None else min(stop, columns_total)
    return list(range(min(start, stop), stop))
