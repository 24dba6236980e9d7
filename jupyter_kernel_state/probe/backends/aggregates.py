"""A column's profile from an engine's aggregates (one row of min, max, mean, quantiles,
counts; a histogram's bins; the top values), in the very shape and by the very rules of
the in-memory profiles (``windows.statistics``)."""

from ..windows import statistics
from ..windows.statistics import (
    QUANTILES,
    Texts,
    bins_for,
    edges_for,
    finite,
    histogram,
    iso,
    numbers_out,
    strings_out,
)

#: The quantiles a profile asks an engine for (5, 25, 50, 75, 95 %): the in-memory ones.
PERCENTS = statistics.PERCENTS


def numbers_from(low, high, mean, std, quantiles, bins_counts, edges):
    """A number column's statistics (``statistics.numbers_out``) from an engine's
    aggregates: ``quantiles`` at :data:`PERCENTS`; ``bins_counts`` per edge interval."""
    qs = [finite(q) for q in quantiles]
    median = qs[2]
    others = [qs[0], qs[1], qs[3], qs[4]]
    assert len(others) == len(QUANTILES)
    return numbers_out(low, high, mean, median, std, others, histogram(edges, bins_counts))


def bins_of(n, quantiles, low, high):
    """The histogram's edges for ``n`` finite values (Freedman–Diaconis, Sturges), as
    the in-memory profiles make them; None without a range."""
    if not n or low is None or high is None:
        return None
    q25, q75 = quantiles[1], quantiles[3]
    if q25 is None or q75 is None:
        q25 = q75 = 0.0
    bins = bins_for(n, float(q25), float(q75), float(low), float(high))
    return edges_for(low, high, bins)


def strings_from(distinct, empty, top, present, texts):
    return strings_out(distinct, empty, top, present, 1.0, texts)


def number(x):
    """An aggregate's number as a Python int or float (a Decimal as float), None when it
    is none."""
    if x is None or type(x) in (int, float):
        return x
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def dates_from(low, high, median):
    return {"min": iso(low), "max": iso(high), "median": iso(median)}


def new_texts(limit):
    return Texts(limit)
