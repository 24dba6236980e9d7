"""A table's findings in one short clause, remembered while the table is unchanged: what
the prompt's line for a table says of its data quality (``512 missing in price, 3
duplicate rows``) without a findings pass per prompt.

The ``findings`` op remembers the clause of every whole table it checks (no filter,
every column); the ``digest`` reads it back while the table is the same object with the
same fingerprint (shape, columns, dtypes) and no change to its content seen since
(the change tracker's content version, which the snapshots' comparisons move too), and
checks a few small tables itself (``ops.digest``).  Nothing here reads a table.
"""

#: The clause's characters at most (the items that do not fit are counted).
MAX_CLAUSE_CHARS = 120
#: A column's name in the clause, at most.
NAME_CHARS = 40
#: Tables remembered at most (past it, the oldest go).
MAX_KNOWN = 256
#: Kinds that say nothing wrong (an ID-like column is a fact, not an issue).
QUIET_KINDS = frozenset(("id_like",))


def _name(columns, i=0):
    if len(columns) <= i:
        return "?"
    text = str(columns[i])
    return text if len(text) <= NAME_CHARS else text[:NAME_CHARS - 1] + "…"


def _count(n):
    return "{:,}".format(n) if type(n) is int else "some"


def short(finding):
    """One finding in a few words, or None for a kind that says nothing wrong."""
    kind, cols, n = finding.get("kind"), finding.get("columns") or [], finding.get("count")
    if kind in QUIET_KINDS:
        return None
    words = {
        "missing": lambda: "{} missing in {}".format(_count(n), _name(cols)),
        "empty_column": lambda: "{} empty".format(_name(cols)),
        "duplicate_rows": lambda: "{} duplicate rows".format(_count(n)),
        "duplicate_keys": lambda: "{} repeats ({} rows)".format(_name(cols), _count(n)),
        "constant": lambda: "{} constant".format(_name(cols)),
        "outliers": lambda: "{} outliers in {}".format(_count(n), _name(cols)),
        "mixed_types": lambda: "mixed types in {}".format(_name(cols)),
        "numbers_as_text": lambda: "{} numbers as text".format(_name(cols)),
        "dates_as_text": lambda: "{} dates as text".format(_name(cols)),
        "near_duplicate_labels": lambda: "{} labels differ by case or spaces".format(
            _name(cols)),
        "correlated": lambda: "{} ~ {} correlated".format(_name(cols), _name(cols, 1)),
    }.get(kind)
    return None if words is None else words()


def clause(findings, total, sampled=False, chars=MAX_CLAUSE_CHARS):
    """``512 missing in price, 3 duplicate rows, +2 more`` (most severe first, as the op
    lists them) within ``chars``; ``none`` when none says anything wrong;
    ``(sampled)`` when read on a sample."""
    items = [w for w in map(short, findings) if w]
    more = sum(1 for f in findings if f.get("kind") not in QUIET_KINDS) - len(items)
    more += max(0, total - len(findings))  # listed past max_findings
    tail = " (sampled)" if sampled else ""
    if not items and not more:
        return "none" + tail
    reserve = len(", +999 more") + len(tail)
    out = []
    for item in items:
        if out and len(", ".join([*out, item])) + reserve > chars:
            break
        out.append(item)
    more += len(items) - len(out)
    text = ", ".join(out)
    if more:
        text += ", +{} more".format(more)
    return text + tail


class KnownFindings:
    """name → the clause of its table's findings and the token it holds for."""

    def __init__(self):
        self.known = {}

    def put(self, name, token, text):
        self.known.pop(name, None)
        while len(self.known) >= MAX_KNOWN:
            self.known.pop(next(iter(self.known)))
        self.known[name] = (token, text)

    def get(self, name, token):
        """The clause remembered for ``name`` if it holds for ``token``, else None."""
        got = self.known.get(name)
        if got is None:
            return None
        if got[0] != token:
            del self.known[name]
            return None
        return got[1]
