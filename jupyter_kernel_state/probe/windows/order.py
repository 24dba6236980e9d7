"""A window's rows in the order of its view: kept where the filter holds and sorted by
its keys, computed by the value's own library (``sources``) under the sort's time guard,
and kept (:class:`RowOrders`) so that scrolling a sorted table costs a window, not a
sort."""

from ..protocol import View
from .columns import ViewColumns

#: Sorted orders kept.
SORTS_KEPT = 2


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


def view_rows(table, columns, view):
    """``(positions, kept)``: the row positions in ``view``'s order (None: every row in
    the value's own order) and how many rows its filter keeps (None without one);
    ``columns`` (``ViewColumns``) has found the columns it names."""
    if not view.sort and view.filter is None:
        return None, None
    return table.table(columns).rows(view)


def kept_rows(session, table, view, columns_total, filter_ms):
    """The row positions ``view``'s filter keeps, in the value's own order (None without
    a filter), under the time guard ``filter_ms``: the rows whose statistics a profile
    gives (a sort changes none)."""
    if view.filter is None:
        return None
    only = View(filter=view.filter)
    columns = ViewColumns(table, only, columns_total)
    positions, _kept = session.run_within(filter_ms, view_rows, table, columns, only)
    return positions
