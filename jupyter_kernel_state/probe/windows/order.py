"""A window's rows in the order of its view: sorted by one column and kept where the
filter holds, each computed on the one column it needs, under the sort's time guard, and
kept (:class:`RowOrders`) so that scrolling a sorted table costs a window, not a sort."""

import sys

from . import filters

#: Column names compared when looking for a column by its name.
MAX_NAME_SCAN = 100_000
#: Sorted orders kept.
SORTS_KEPT = 2


class NoSuchColumn(Exception):
    """The view names a column the value does not have (the message says which)."""


class RowOrders:
    """Sorted row orders, keyed by what makes them valid."""

    def __init__(self):
        self.orders = {}

    def order(self, key, compute):
        found = self.orders.get(key)
        if found is not None:
            return found
        order = compute()
        while len(self.orders) >= SORTS_KEPT:
            self.orders.pop(next(iter(self.orders)))
        self.orders[key] = order
        return order


def ordered(adapter, total, by, descending, where):
    """Row positions sorted by column ``by`` (None: in order) and kept where the filter
    holds (``where``: position, op, operand; None: every row)."""
    np = sys.modules.get("numpy")
    order = adapter.sort_order(by, descending) if by is not None else None
    if where is None:
        return order
    position, op, operand = where
    keep = filters.mask(adapter.column_values(position), op, operand)
    if np is not None:
        keep = np.asarray(keep, dtype=bool)
        if order is None:
            return np.flatnonzero(keep)
        order = np.asarray(order)
        return order[keep[order]]
    if order is None:
        return [i for i in range(total) if keep[i]]
    return [i for i in order if keep[i]]


def find_column(adapter, wanted, columns_total):
    """The position of column ``wanted``: a position, or a name as the columns list it."""
    if type(wanted) is int:
        if wanted < columns_total:
            return wanted
        raise NoSuchColumn("column {} is out of range: the value has {:,} column{}".format(
            wanted, columns_total, "" if columns_total == 1 else "s"))
    for position, text in enumerate(adapter.column_names(min(columns_total, MAX_NAME_SCAN))):
        if text == wanted:
            return position
    raise NoSuchColumn("No column named {!r}".format(wanted[:100]))
