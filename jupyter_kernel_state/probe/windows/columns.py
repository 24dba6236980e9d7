"""The columns a view names (sort keys, filter conditions), found once by name or
position before any of the table's code runs for the view; its sort keys as positions."""

from ..protocol import Condition

#: Column names compared when looking for a column by its name.
MAX_NAME_SCAN = 100_000


class NoSuchColumn(Exception):
    """The view names a column the value does not have (the message says which)."""


class ViewColumns:
    """Positions and names (as the explorer lists them) of the columns a view names."""

    def __init__(self, table, view, columns_total):
        self.positions = {}
        for wanted in named_columns(view):
            if wanted not in self.positions:
                self.positions[wanted] = find_column(table, wanted, columns_total)
        listed = sorted(set(self.positions.values()))
        labels = table.column_labels(listed) if listed else []
        self.names = {p: name for p, (name, _dtype) in zip(listed, labels)}

    def find(self, wanted):
        return self.positions[wanted]

    def name(self, position):
        return self.names[position]


def sort_keys(view, columns):
    """The view's sort keys as [(position, descending)], a column's first key only;
    ``columns`` (:class:`ViewColumns`) has found them."""
    out, seen = [], set()
    for key in view.sort:
        position = columns.find(key.column)
        if position not in seen:
            seen.add(position)
            out.append((position, key.desc))
    return out


def named_columns(view):
    """Every column the view names, sort keys first, in order."""
    out = [key.column for key in view.sort]
    nodes = [] if view.filter is None else [view.filter]
    while nodes:
        node = nodes.pop(0)
        if type(node) is Condition:
            out.append(node.column)
        else:
            nodes[:0] = list(node.nodes)
    return out


def find_column(table, wanted, columns_total):
    """The position of column ``wanted``: a position, or a name as the columns list it."""
    if type(wanted) is int:
        if wanted < columns_total:
            return wanted
        raise out_of_range(wanted, columns_total)
    for position, text in enumerate(table.column_names(min(columns_total, MAX_NAME_SCAN))):
        if text == wanted:
            return position
    raise NoSuchColumn("No column named {!r}".format(wanted[:100]))


def checked_positions(listed, columns_total):
    """``listed`` column positions as a list, each one checked to exist (the first past
    the last column refused)."""
    for position in listed:
        if position >= columns_total:
            raise out_of_range(position, columns_total)
    return list(listed)


def out_of_range(position, columns_total):
    """The refusal of a column position past the last column."""
    return NoSuchColumn("column {} is out of range: the value has {:,} column{}".format(
        position, columns_total, "" if columns_total == 1 else "s"))
