"""Lists and tuples of records held in memory as rows × columns: dicts (columns = their
keys), lists or tuples (columns = positions), or plain values (one column).

Only the window is read (``value[i:j]``); a view's sort and filter see the list through
pandas when the user imported it (``pd.DataFrame(records)``, ``pd.Series(values)``), else
value by value (``windows.sources.PlainTable``), as are a column's statistics.
"""

import datetime

from ..inspect.tables import label_text
from ..windows.sources import PlainTable
from ..windows.statistics import PlainColumn
from .base import loaded, register
from .memory import LABEL_CHARS, MemoryTable, take_rows, transpose
from .pandas import PandasTable

#: Records read to find a list of records' columns, and the most columns kept from them.
RECORD_SCAN = 200
MAX_RECORD_KEYS = 10_000


@register
class RecordList(MemoryTable):
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

    @classmethod
    def accepts(cls, value):
        return isinstance(value, (list, tuple))  # a subclass's own methods run under the guard

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

    def stats_column(self, position):
        return PlainColumn(self.column_values(position))

    def table(self, columns):
        """pandas' view of the list (``pd.DataFrame(records)``, ``pd.Series(values)``)
        when the user imported pandas, else value by value."""
        pd = loaded("pandas")
        if pd is None:
            return PlainTable(self, columns)
        if self.mode == "value":
            return PandasTable(self, columns, pd.Series(self.value), True, "pd.Series")
        frame = pd.DataFrame(self.value)
        return PandasTable(self, columns, frame, False, "pd.DataFrame", width=len(self.keys))

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
