"""A list or tuple of records as rows × columns, for the ``rows`` op."""

import datetime

from ..inspect.tables import label_text
from .adapters import LABEL_CHARS, Adapter, take_rows, transpose

#: Records read to find a list of records' columns, and the most columns kept from them.
RECORD_SCAN = 200
MAX_RECORD_KEYS = 10_000


class RecordList(Adapter):
    """A list or tuple of dicts (columns = their keys), of lists/tuples (positions), or of
    plain values (one column)."""

    kind = "records"

    def __init__(self, value, session):
        super().__init__(value, session)
        head = self.run(lambda: list(value[:RECORD_SCAN]))
        if head and all(type(r) is dict for r in head):
            keys = {}
            for r in head:
                for k in r:
                    if len(keys) >= MAX_RECORD_KEYS:
                        break
                    keys.setdefault(k, None)
            self.mode, self.keys = "dict", list(keys)
        elif head and all(type(r) in (list, tuple) for r in head):
            self.mode, self.keys = "seq", list(range(max(len(r) for r in head)))
        else:
            self.mode, self.keys = "value", [None]

    def total_rows(self):
        return int(self.run(len, self.value))

    def columns_total(self):
        return len(self.keys)

    def column_labels(self, positions):
        if self.mode == "value":
            return [("value", None)]
        return [(label_text(self.keys[i], LABEL_CHARS), None) for i in positions]

    def _cell(self, record, position):
        if self.mode == "value":
            return record
        key = self.keys[position]
        if self.mode == "dict":
            return record.get(key) if type(record) is dict else None
        if type(record) in (list, tuple) and key < len(record):
            return record[key]
        return None

    def column_values(self, position):
        return [self._cell(r, position) for r in self.value]

    def sort_order(self, position, descending):
        value = self.value
        keyed = [(self._cell(r, position), i) for i, r in enumerate(value)]
        present = [p for p in keyed if not _absent(p[0])]
        absent = [i for x, i in keyed if _absent(x)]

        def ranked():
            return sorted(present, key=lambda p: p[0], reverse=descending)

        return [i for _x, i in ranked()] + absent

    def window(self, rows, positions, cells):
        records = self.run(take_rows, self.value, rows)
        labels = range(rows.start, rows.start + len(records)) if type(rows) is slice else rows
        positions = list(positions)
        out = [[self._cell(r, p) for p in positions] for r in records]
        columns = []
        for j in range(len(positions)):
            values = [row[j] for row in out]
            present = [x for x in values if x is not None]
            dates = bool(present) and all(isinstance(x, datetime.datetime) for x in present)
            columns.append(cells.column(values, dates))
        return [str(i) for i in labels], transpose(columns, len(records))


def _absent(x):
    return x is None or (type(x) is float and x != x)
