"""Kernel-side: build the user-namespace states the benchmarks measure.

Called from a *user* cell (non-silent) so the product's post_run_cell hook sees the
change, exactly as it would for a person's own cell.
"""

import threading
import time

SMALL_KINDS = 3
HEAVY_ROWS = 1_000_000
HEAVY_STR_BYTES = 100_000_000
HOSTILE_SLEEP_S = 5.0
HOSTILE_REPR_BYTES = 50_000_000


def clear(ns):
    """Drop every name a previous state made (names without a leading underscore)."""
    for name in [n for n in ns if not n.startswith("_") and n not in _KEEP]:
        del ns[name]


_KEEP = frozenset(("In", "Out", "exit", "quit", "get_ipython"))


def make_small(ns, count, salt=0):
    """``count`` variables v0…: ints, short strs and small lists in turn.

    ``salt`` makes every value new (so no cache can reuse an earlier summary).
    """
    for i in range(count):
        kind = i % SMALL_KINDS
        if kind == 0:
            value = i * 1000 + salt
        elif kind == 1:
            value = f"s{i}-{salt}"
        else:
            value = [i, salt, i + 1]
        ns[f"v{i}"] = value
    return count


def make_heavy(ns):
    """The heavy objects of DESIGN §5 (about 300 MB in the kernel)."""
    import numpy as np
    import pandas as pd

    rows = HEAVY_ROWS
    ns["big_df"] = pd.DataFrame(
        {
            "id": np.arange(rows, dtype="int64"),
            "price": np.linspace(0.0, 1.0, rows),
            "flag": np.arange(rows) % 2 == 0,
            "label": pd.Series(["row"] * rows, dtype="object"),
        }
    )
    ns["big_dict"] = {i: i for i in range(rows)}
    ns["big_list"] = list(range(rows))
    ns["big_str"] = "x" * HEAVY_STR_BYTES
    ns["big_set"] = set(range(rows))
    return 5


class SlowRepr:
    """repr sleeps 5 s (then answers)."""

    def __repr__(self):
        time.sleep(HOSTILE_SLEEP_S)
        return "SlowRepr()"


class BlockingRepr:
    """repr waits forever on a lock nobody releases."""

    def __init__(self):
        self._lock = threading.Lock()
        self._lock.acquire()

    def __repr__(self):
        self._lock.acquire()
        return "BlockingRepr()"


class HugeRepr:
    """repr returns 50 MB of text."""

    def __repr__(self):
        return "h" * HOSTILE_REPR_BYTES


HOSTILE = {"slow_repr": SlowRepr, "blocking_repr": BlockingRepr, "huge_repr": HugeRepr}


def make_hostile(ns, kinds):
    for kind in kinds:
        ns[kind] = HOSTILE[kind]()
    return len(kinds)


def trim():
    """Give freed heap memory back to the OS (glibc), so a peak-RSS reading that follows
    counts every page an approach touches, not only pages beyond what earlier runs left."""
    import ctypes
    import gc

    gc.collect()
    try:
        return int(ctypes.CDLL(None).malloc_trim(0))
    except (OSError, AttributeError):
        return -1
