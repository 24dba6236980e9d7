"""A table's columns profiled one at a time (the ``profile`` op of a table in memory):
each column's statistics with its own library (its backend's ``stats_column``), under its
own time guard, on the rows a filter keeps, from a fixed-seed sample of them past
``sample_rows``.

A column that raises or runs out of its time is listed with its ``error``; the columns
the call's budget does not reach are counted (``columns_cut``), never half listed.
In a sampled column every statistic comes from the sample (``approximate``), its counts
scaled to the column's (``count`` over the sample's non-null values, rounded) and
``distinct`` the sample's own; ``count`` and ``null_count`` stay exact where missing
values are found by a vectorized mask (numbers, dates, booleans, categories, polars,
numpy), and are the sample's share for values held as Python objects (object and
python-backed string columns, lists), where finding them would cost a pass in Python.
"""

import random
import sys

from .. import guard

#: The seed of every sample: the same rows for every column, call after call.
SAMPLE_SEED = 0
#: Each family's statistics (a method of the column objects).
_STATISTICS = {"number": "numbers", "string": "strings", "category": "strings",
               "boolean": "booleans", "datetime": "datetimes"}


def sample_positions(n, k):
    """``k`` of the positions 0 to ``n`` - 1, drawn without replacement, in order."""
    np = sys.modules.get("numpy")
    if np is not None:
        rng = np.random.default_rng(SAMPLE_SEED)
        return np.sort(rng.choice(n, k, replace=False, shuffle=False))
    return sorted(random.Random(SAMPLE_SEED).sample(range(n), k))


class Profiler:
    """Profiles the columns of one table in memory (``backends.memory.MemoryTable``) on
    ``rows`` (positions a filter keeps, None: all), ``sample`` (positions among those,
    None: all)."""

    def __init__(self, session, table, rows, sample, top, texts, column_ms):
        self.session = session
        self.table = table
        self.rows = rows
        self.sample = sample
        self.top = top
        self.texts = texts
        self.column_ms = column_ms

    def profile(self, positions, labels):
        """(the columns' profiles, how many the budget did not reach)."""
        out = []
        for i, (position, (name, dtype)) in enumerate(zip(positions, labels)):
            entry = {"name": name, "position": position, "dtype": dtype, "family": "other",
                     "count": None, "null_count": None, "approximate": False, "error": None}
            if self.session.exhausted:
                return out, len(positions) - i
            try:
                self.session.run_within(self.column_ms, self._column, position, entry)
            except guard.ProbeTimeout:
                if self.session.exhausted:  # the call's budget, not the column's guard
                    return out, len(positions) - i
                entry["error"] = "profiling timed out ({:,} ms)".format(self.column_ms)
            except guard.BudgetExhausted:
                return out, len(positions) - i
            except guard.GuardUnavailable:
                raise
            except BaseException as exc:
                entry["error"] = guard.user_error("profiling", exc)
            out.append(entry)
        return out, 0

    def _column(self, position, entry):
        """Fills ``entry`` step by step: what is known stays when a later step fails."""
        whole = self.table.stats_column(position)
        picked = self._picked()
        data = whole if picked is None else whole.take(picked)
        family = data.family()
        entry["family"] = family
        kept = len(whole) if self.rows is None else len(self.rows)
        missing = data.nulls()
        if self.sample is None:  # ``data`` is every row kept
            nulls = missing
        elif whole.cheap_nulls():  # a vectorized mask: exact
            nulls = whole.nulls_at(self.rows)
        else:  # Python objects, one by one: the sample's share
            nulls = min(kept, round(missing * kept / max(1, len(data))))
        count = kept - nulls
        entry["count"], entry["null_count"] = count, nulls
        method = _STATISTICS.get(family)
        if method is None:
            return
        scale = 1.0
        if self.sample is not None:
            seen = len(data) - missing
            scale = count / seen if seen else 0.0
        statistics = getattr(data, method)
        if family == "number" or family == "datetime":
            entry.update(statistics(scale, self.texts))
        elif family == "boolean":
            entry.update(statistics(count, scale, self.texts))
        else:
            entry.update(statistics(self.top, count, scale, self.texts))
        entry["approximate"] = self.sample is not None and count > 0

    def _picked(self):
        """The positions (in the whole column) of the rows the statistics read: the
        sample of the rows kept, the rows kept, or None for every row."""
        rows, sample = self.rows, self.sample
        if sample is None or rows is None:
            return rows if sample is None else sample
        if type(rows) is list:
            return [rows[i] for i in sample]
        return rows[sample]
