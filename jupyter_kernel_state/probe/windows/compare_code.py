"""The code of a comparison (the ``compare`` op's ``code``): pandas, polars or dplyr code
that, run where both tables live, binds ``<name>_vs_<with>`` to the rows that differ —
added, removed, changed, each with its ``status`` — matched and compared as the probe
did (``windows.compare``): by the key's columns, the index or the position; missing
values equal each other; the columns both tables have compared, the key's excepted.

* pandas: ``merge(how="outer", indicator=...)``, then the two sides' columns compared
  with ``==`` (missing values equal) and ``np.select`` naming each row's status; the
  result keeps both sides' values (``with``'s columns suffixed).
* polars: ``join(how="anti")`` both ways for the added and removed rows, an inner
  ``join`` for the changed ones (``eq_missing``, a float's NaN as null; numbers of two
  dtypes as floats, a number never equal to text, other dtypes that differ as text),
  ``pl.concat(how="diagonal_relaxed")``.
* dplyr: ``anti_join`` both ways and ``inner_join`` then ``filter``, ``bind_rows(.id =
  "status")`` (R's joins match missing keys too).

The code names columns by their labels, which must be text (:class:`code.NoCode`
otherwise, as for a label that makes no literal); it binds a few names of its own that
start with ``_`` (``.`` in R) and removes them at the end.  Nothing here reads a table.
"""

from .code import NoCode, r_name, r_string
from .expressions import text_literal

#: The results' status column (another name when a table has a column of that name).
STATUS = "status"


def comparison_code(library, syntax, names, plan, by, nulls_keyword="nulls_equal"):
    """``(syntax, code)`` binding ``<name>_vs_<with>`` to the diff of the tables
    ``names`` (name, with) of ``library`` compared as ``plan`` (``compare.ComparePlan``)
    and ``by`` say; ``syntax`` None: the library's own.  :class:`NoCode` when none is
    written (the message says why)."""
    syntax = library if syntax is None else syntax
    if syntax != "dplyr" and syntax != library:
        raise NoCode("{} code is for {} tables; {} and {} are {} DataFrames: ask for {} or "
                     "dplyr code".format(syntax, syntax, names[0], names[1], library, library))
    if syntax == "dplyr" and by == "index":
        raise NoCode("{} and {} were compared by their index, which an R data frame does not "
                     "have: give a key for dplyr code".format(*names))
    sides = _Sides(plan, syntax)
    writer = {"pandas": _pandas, "polars": _polars, "dplyr": _dplyr}[syntax]
    return syntax, writer(names, sides, by, nulls_keyword)


class _Sides:
    """The labels the code names: the key's on each side, the pairs compared (and their
    dtypes' texts), every label of both tables (for names of its own that collide with
    none)."""

    def __init__(self, plan, syntax):
        self.key, self.key_dtypes = None, []
        if plan.key is not None:
            self.key = [[_text(plan.after[p][0], syntax) for p in plan.key[0]],
                        [_text(plan.before[q][0], syntax) for q in plan.key[1]]]
            self.key_dtypes = [(plan.after[p][2], plan.before[q][2]) for p, q in zip(*plan.key)]
        self.pairs = [(_text(plan.after[p][0], syntax), plan.after[p][2], plan.before[q][2])
                      for p, q, _name in plan.pairs]
        self.taken = {str(label) for label, _t, _d in plan.after + plan.before}

    def free(self, name):
        while name in self.taken:
            name += "_"
        return name

    def suffix(self, other):
        """A suffix for ``with``'s columns that makes no name either table has."""
        suffix = "_" + other
        while any(a + suffix in self.taken for a, _da, _db in self.pairs):
            suffix += "_"
        return suffix


def _text(label, syntax):
    if type(label) is not str:
        raise NoCode("the code names columns by their labels; {!r} is no text: rename it "
                     "first".format(label))
    if syntax == "dplyr":
        r_name(label)
    return label


def _list(items):
    return "[" + ", ".join(text_literal(x) for x in items) + "]"


# --- pandas ---------------------------------------------------------------------------


def _pandas(names, sides, by, nulls_keyword):
    name, other = names
    out = name + "_vs_" + other
    suffix = sides.suffix(other)
    indicator, status = text_literal(sides.free("_merge")), text_literal(sides.free(STATUS))
    left, right = name, other
    if by == "key":
        a, b = sides.key
        on = "on={}".format(_list(a)) if a == b else "left_on={}, right_on={}".format(
            _list(a), _list(b))
    else:
        on = "left_index=True, right_index=True"
        if by == "position":
            left, right = left + ".reset_index(drop=True)", right + ".reset_index(drop=True)"
    after = [a for a, _da, _db in sides.pairs]
    m, a, b, same = (_temp(t, names) for t in ("_m", "_a", "_b", "_same"))
    lines = [
        "import numpy as np",
        "",
        "{} = {}.merge({}, how=\"outer\", {}, suffixes=(\"\", {}), indicator={})".format(
            m, left, right, on, text_literal(suffix), indicator),
        "{} = {}[{}]".format(a, m, _list(after)),
        "{} = {}[{}].set_axis({}.columns, axis=1)".format(b, m, _list([x + suffix for x in after]),
                                                         a),
        "{0} = (({1} == {2}).fillna(False) | ({1}.isna() & {2}.isna())).all(axis=1)".format(
            same, a, b),
        "{}[{}] = np.select(".format(m, status),
        "    [{0}[{1}] == \"left_only\", {0}[{1}] == \"right_only\", ~{2}],".format(
            m, indicator, same),
        "    [\"added\", \"removed\", \"changed\"], \"unchanged\")",
        "{0} = {1}[{1}[{2}] != \"unchanged\"].drop(columns={3})".format(out, m, status, indicator),
        "del {}, {}, {}, {}".format(m, a, b, same),
    ]
    return "\n".join(lines) + "\n"


# --- polars ---------------------------------------------------------------------------


def _polars(names, sides, by, nulls_keyword):
    name, other = names
    out = name + "_vs_" + other
    suffix = sides.suffix(other)
    status = text_literal(sides.free(STATUS))
    t = {x: _temp(x, names) for x in ("_added", "_removed", "_both", "_changed", "_left",
                                      "_right")}
    lines = ["import polars as pl", ""]
    temps = [t["_added"], t["_removed"], t["_both"], t["_changed"]]
    left, right = name, other
    prepared = []
    if by == "key":
        on = sides.key[0]
        prepared = [p for p in (_key_prep(a, da, db) for a, (da, db) in zip(on, sides.key_dtypes))
                    if p]
        if prepared:
            lines += ["{} = {}.with_columns({})".format(t["_left"], name,
                                                        ", ".join(p[0] for p in prepared)),
                      "{} = {}.with_columns({})".format(t["_right"], other,
                                                        ", ".join(p[1] for p in prepared))]
    else:
        row = sides.free("row")
        on = [row]
        lines += ["{} = {}.with_row_index({})".format(t["_left"], name, text_literal(row)),
                  "{} = {}.with_row_index({})".format(t["_right"], other, text_literal(row))]
    if by != "key" or prepared:
        left, right = t["_left"], t["_right"]
        temps += [left, right]
    keys = _list(on)
    nulls = "{}=True".format(nulls_keyword)
    lines += [
        "{} = {}.join({}, on={}, how=\"anti\", {})".format(t["_added"], left, right, keys, nulls),
        "{} = {}.join({}, on={}, how=\"anti\", {})".format(t["_removed"], right, left, keys,
                                                          nulls),
        "{} = {}.join({}, on={}, how=\"inner\", suffix={}, {})".format(
            t["_both"], left, right, keys, text_literal(suffix), nulls),
    ]
    differs = [_polars_differs(a, a + suffix, da, db) for a, da, db in sides.pairs]
    if not differs:
        lines.append("{} = {}.filter(pl.lit(False))".format(t["_changed"], t["_both"]))
    else:
        lines.append("{} = {}.filter(".format(t["_changed"], t["_both"]))
        lines += ["    " + ("| " if i else "") + d for i, d in enumerate(differs)]
        lines.append(")")
    lines += ["{} = pl.concat([".format(out)]
    lines += ["    {}.with_columns(pl.lit(\"{}\").alias({})),".format(t["_" + x], x, status)
              for x in ("added", "removed", "changed")]
    lines += ["], how=\"diagonal_relaxed\")", "del " + ", ".join(temps)]
    return "\n".join(lines) + "\n"


def _kind(dtype):
    """A polars dtype's text as the comparison reads it: float, number or other."""
    if dtype.startswith("Float"):
        return "float"
    if dtype.startswith(("Int", "UInt", "Decimal")) or dtype == "Boolean":
        return "number"
    return "other"


def _key_prep(a, da, db):
    """The casts of a key column on each side (numbers of two dtypes as floats, others
    as text; a float's NaN as null), or None when none is needed."""
    ka, kb = _kind(da), _kind(db)
    if da == db:
        return None if ka != "float" else ("pl.col({}).fill_nan(None)".format(text_literal(a)),) * 2
    cast = "pl.Float64" if ka != "other" and kb != "other" else "pl.String"
    expr = "pl.col({}).cast({})".format(text_literal(a), cast)
    if cast == "pl.Float64":
        expr += ".fill_nan(None)"
    return expr, expr


def _polars_differs(a, b, da, db):
    """The expression true where the cells of columns ``a`` and ``b`` differ."""
    ka, kb = _kind(da), _kind(db)
    x, y = "pl.col({})".format(text_literal(a)), "pl.col({})".format(text_literal(b))
    if da != db and "other" in (ka, kb):
        if ka != kb:  # a number never equals text
            return "~({}.is_null() & {}.is_null())".format(x, y)
        x, y = x + ".cast(pl.String)", y + ".cast(pl.String)"
    elif da != db:
        x, y = x + ".cast(pl.Float64)", y + ".cast(pl.Float64)"
        ka = kb = "float"
    if ka == "float":
        x += ".fill_nan(None)"
    if kb == "float":
        y += ".fill_nan(None)"
    return "~{}.eq_missing({})".format(x, y)


# --- dplyr ----------------------------------------------------------------------------


def _dplyr(names, sides, by, nulls_keyword):
    name, other = (r_name(n) for n in names)
    out = r_name(names[0] + "_vs_" + names[1])
    suffix = sides.suffix(names[1])
    lines = ["library(dplyr)"]
    temps = [".added", ".removed", ".changed"]
    left, right = name, other
    if by == "key":
        a, b = sides.key
        if a == b:
            by_text = "c({})".format(", ".join(_r_text(x) for x in a))
        else:
            by_text = "c({})".format(", ".join("{} = {}".format(_r_text(x), _r_text(y))
                                                for x, y in zip(a, b)))
    else:
        row = sides.free("row")
        lines += [".left <- {} %>% mutate({} = row_number())".format(name, r_name(row)),
                  ".right <- {} %>% mutate({} = row_number())".format(other, r_name(row))]
        left, right, temps = ".left", ".right", [*temps, ".left", ".right"]
        by_text = "c({})".format(_r_text(row))
    status = sides.free(STATUS)
    lines += [
        ".added <- anti_join({}, {}, by = {})".format(left, right, by_text),
        ".removed <- anti_join({}, {}, by = {})".format(right, left, by_text),
    ]
    differs = ["coalesce({0} != {1}, is.na({0}) != is.na({1}))".format(
        r_name(a), r_name(a + suffix)) for a, _da, _db in sides.pairs]
    join = ".changed <- inner_join({}, {}, by = {}, suffix = c(\"\", {}))".format(
        left, right, by_text, _r_text(suffix))
    if differs:
        lines += [join + " %>%", "  filter(" + " |\n         ".join(differs) + ")"]
    else:
        lines += [join + " %>%", "  filter(FALSE)"]
    lines += [
        "{} <- bind_rows(added = .added, removed = .removed, changed = .changed, "
        ".id = {})".format(out, _r_text(status)),
        "rm({})".format(", ".join(temps)),
    ]
    return "\n".join(lines) + "\n"


def _r_text(text):
    return r_string(text)


def _temp(name, names):
    """A name of the code's own that is neither table's."""
    while name in names:
        name += "_"
    return name
