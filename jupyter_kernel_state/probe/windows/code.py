"""The code of a view (the ``code`` op): Python that binds ``<name>_view`` to exactly the
rows, order and columns the explorer shows.

The filter is the very expression the explorer's rows were kept by (``filters``:
rendered here, evaluated there), the sort the library's own (``sort_values`` with
``kind="stable", na_position="last"``; polars ``sort`` with ``nulls_last=True,
maintain_order=True`` and a float column's NaN as null), in that order: filter, sort,
columns.  Values appear as literals of their column's type; names are quoted as Python
string literals.  pandas code for pandas values (and for numpy arrays and lists of
records, through ``pd.DataFrame``), polars code for polars values.
"""

from .columns import checked_positions
from .expressions import AND, Binary, Imports, Ref, literal
from .sources import MAX_LISTED_LABELS, ListOf

#: A filter longer than this is written one condition a line.
LINE_CHARS = 72


class NoCode(Exception):
    """No code in that syntax for that value (the message says why: a 400)."""


def view_code(adapter, columns, view, name, syntax, selected, what):
    """``(syntax, code)`` for ``view`` of variable ``name`` (``what``: its type, for
    messages); ``selected``: the column positions shown, in order (None: every column);
    ``columns`` (``columns.ViewColumns``) has found the columns the view names."""
    table = adapter.table(columns)
    own = table.library
    if syntax is None:
        syntax = own
    if syntax == "dplyr":
        raise NoCode("dplyr code is for R data.frames; {} is a {}".format(name, what))
    if own == "plain" or getattr(table, "setup", None) is False:
        if own == "plain" and adapter.kind in ("array", "records"):
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
    write = _pandas if own == "pandas" else _polars
    return syntax, write(table, view, name, selected)


def _pandas(table, view, name, selected):
    out = name + "_view"
    imports = Imports()
    lines = []
    current = name
    if table.setup:
        imports.add("pd")
        lines.append("{} = {}({})".format(out, table.setup, name))
        current = out
    table.bind(current)
    mask = table.mask(view)
    if mask is not None:
        lines.append("{} = {}[{}]".format(out, current, _wrapped(mask, imports)))
        current = out
    keys = table.keys(view)
    if keys:
        by = None
        if not table.series:
            labels = [table.label(p) for p, _ in keys]
            if None in labels:
                raise NoCode("column {} has no label a sort can name (not unique, or no "
                             "plain value): rename it first".format(
                                 table.columns.name(keys[labels.index(None)][0])))
            by = ListOf(labels)
        node = table.sort_node(Ref(current, None), by, keys)
        lines.append("{} = {}".format(out, node.render(imports)))
        current = out
    shown = _pandas_columns(table, selected)
    if shown is not None:
        lines.append("{} = {}{}".format(out, current, shown))
        current = out
    if current == name:
        lines.append("{} = {}".format(out, name))
    return "\n".join(imports.header() + lines) + "\n"


def _pandas_columns(table, selected):
    """``[["a", "b"]]`` or ``.iloc[:, [0, 3]]``: the columns shown, when not all."""
    if table.series:
        return None
    width = int(table.frame.shape[1])
    shown = list(range(table.width if table.width is not None else width))
    if selected is not None:
        shown = list(selected)
    if shown == list(range(width)):
        return None
    labels = [table.label(p) for p in shown]
    if None not in labels and len(labels) <= MAX_LISTED_LABELS:
        return "[" + ListOf(labels).render(Imports()) + "]"
    if shown == list(range(shown[0] if shown else 0, (shown[-1] + 1) if shown else 0)):
        return ".iloc[:, {}:{}]".format(shown[0], shown[-1] + 1) if shown else ".iloc[:, []]"
    return ".iloc[:, {}]".format(shown)


def _polars(table, view, name, selected):
    out = name + "_view"
    imports = Imports()
    imports.add("pl")
    lines = []
    current = name
    if table.series:
        lines.append("{} = {}.to_frame()".format(out, name))
        current = out
    mask = table.mask(view)
    if mask is not None:
        lines.append("{} = {}.filter({})".format(out, current, _wrapped(mask, imports)))
        current = out
    keys = table.keys(view)
    if keys:
        node = table.sort_node(Ref(current, None), keys)
        lines.append("{} = {}".format(out, node.render(imports)))
        current = out
    if selected is not None and not table.series and list(selected) != list(
            range(len(table.names))):
        names = [table.names[p] for p in selected]
        lines.append("{} = {}.select({})".format(out, current, literal(names, imports)))
        current = out
    if table.series:
        lines.append("{} = {}.to_series()".format(out, current))
        current = out
    if current == name:
        lines.append("{} = {}".format(out, name))
    return "\n".join(imports.header() + lines) + "\n"


def _wrapped(node, imports):
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
