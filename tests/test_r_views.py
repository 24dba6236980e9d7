"""The explorer's views on R data.frames: filters (every op, and/or trees), several sort
keys, the dplyr code of a view run in the real kernel, and column profiles checked
against R computing the same statistics. A real IRkernel behind a real server.

Needs r-cran-dplyr for the code round trip (scripts/setup.sh installs it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from .kernel_utils import UserClient, get_json, validate
from .test_r_kernel import IR_SPEC_DIR, ir_kernelspec  # noqa: F401 (autouse: the `ir` kernelspec)

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(IR_SPEC_DIR is None,
                       reason="no IRkernel kernelspec `ir` (run scripts/setup.sh)"),
]


N_ROWS = 1500
SALES = f"""
i <- seq_len({N_ROWS}L)
sales <- data.frame(
  price = ifelse(i %% 13 == 0, NA, (i * 37) %% 1000 / 10),
  units = as.integer(i %% 17),
  region = factor(c("north", "south", "east", "west")[i %% 4 + 1],
                  levels = c("north", "south", "east", "west")),
  rep = ifelse(i %% 11 == 0, NA, c("Ann", "bob", "Cy", "dora", "")[i %% 5 + 1]),
  day = as.Date("2024-10-01") + i %% 30,
  at = as.POSIXct("2024-10-01 00:00:00", tz = "UTC") + (i %% 97) * 3600,
  vip = ifelse(i %% 7 == 0, NA, i %% 3 == 0),
  `unit price` = (i %% 9) / 4,
  stringsAsFactors = FALSE, check.names = FALSE)
sales$price[5] <- NaN
rm(i)
"""

#: One condition per op of the contract, on a column of the type it reads.
CONDITIONS: list[dict[str, Any]] = [
    {"column": "price", "op": "eq", "value": 2.1},
    {"column": "price", "op": "ne", "value": "2.1"},
    {"column": "units", "op": "lt", "value": 3},
    {"column": "units", "op": "le", "value": "3"},
    {"column": "day", "op": "gt", "value": "2024-10-25"},
    {"column": "at", "op": "ge", "value": "2024-10-04 12:00:00"},
    {"column": "price", "op": "between", "value": [10, 20.5]},
    {"column": "day", "op": "not_between", "value": ["2024-10-03", "2024-10-28"]},
    {"column": "region", "op": "in", "value": ["north", "east"]},
    {"column": "units", "op": "not_in", "value": [1, 2, 3]},
    {"column": "rep", "op": "contains", "value": "O"},
    {"column": "rep", "op": "contains", "value": "A", "case": True},
    {"column": "rep", "op": "not_contains", "value": "a"},
    {"column": "rep", "op": "starts_with", "value": "b"},
    {"column": "region", "op": "ends_with", "value": "TH"},
    {"column": "rep", "op": "regex", "value": "^[A-C]", "case": True},
    {"column": "rep", "op": "regex", "value": "^[a-c]"},
    {"column": "price", "op": "isnull"},
    {"column": "rep", "op": "notnull"},
    {"column": "rep", "op": "empty"},
    {"column": "rep", "op": "not_empty"},
    {"column": "vip", "op": "is_true"},
    {"column": "vip", "op": "is_false"},
    {"column": "unit price", "op": "ge", "value": 1},
    {"column": 1, "op": "eq", "value": 16},  # a column by its position
]

TREES: list[dict[str, Any]] = [
    {"and": [{"column": "region", "op": "eq", "value": "north"},
             {"column": "price", "op": "gt", "value": 50}]},
    {"or": [{"column": "vip", "op": "is_true"}, {"column": "rep", "op": "isnull"}]},
    {"and": [{"or": [{"column": "units", "op": "lt", "value": 2},
                     {"column": "units", "op": "gt", "value": 15}]},
             {"column": "rep", "op": "not_in", "value": ["Ann", ""]},
             {"or": [{"column": "day", "op": "le", "value": "2024-10-10"},
                     {"and": [{"column": "price", "op": "notnull"},
                              {"column": "price", "op": "lt", "value": 5}]}]}]},
    {"or": [{"column": "price", "op": "ne", "value": 2.1},
            {"column": "price", "op": "not_between", "value": [0, 1000]}]},
]

SORTS = ["price:desc", "region:asc,price:desc", "vip,rep:desc,units", "day:desc,at",
         json.dumps([{"column": "unit price", "desc": True}, {"column": "rep"}])]


async def api(jp_fetch, kernel, *parts, **params):  # type: ignore[no-untyped-def]
    return await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables", *parts,
                          params=params)


async def all_rows(jp_fetch, kernel, name, **params):  # type: ignore[no-untyped-def]
    """Every row of a view, page by page: (cells, the first page)."""
    params.setdefault("columns", "0:100")
    first = await api(jp_fetch, kernel, name, "rows", limit="1000", **params)
    validate(first, "RowsWindow")
    rows = list(first["rows"])
    total = first["total_rows"] if first.get("filtered_rows") is None else first["filtered_rows"]
    while len(rows) < total:
        page = await api(jp_fetch, kernel, name, "rows", limit="1000", offset=str(len(rows)),
                         **params)
        rows += page["rows"]
    return rows, first


async def round_trip(jp_fetch, kernel, params):  # type: ignore[no-untyped-def]
    """The explorer's rows of a view equal the rows of ``sales_view`` bound by the view's
    code, run in the kernel."""
    shown, first = await all_rows(jp_fetch, kernel, "sales", **params)
    code = await api(jp_fetch, kernel, "sales", "code", **params)
    validate(code, "ViewCode")
    assert code["syntax"] == "dplyr" and code["name"] == "sales"
    assert code["code"].startswith("library(dplyr)\nsales_view <- sales")
    reply = await kernel.run("suppressPackageStartupMessages(" + code["code"].replace(
        "library(dplyr)\n", "library(dplyr))\n", 1))
    assert reply["status"] == "ok", (code["code"], reply)
    bound, view_first = await all_rows(jp_fetch, kernel, "sales_view")
    assert bound == shown, (params, code["code"])
    assert [c["name"] for c in view_first["columns"]] == [c["name"] for c in first["columns"]]
    return shown, code


async def sales_kernel(new_kernel) -> UserClient:  # type: ignore[no-untyped-def]
    kernel: UserClient = await new_kernel("ir")
    have = await kernel.run('stopifnot(requireNamespace("dplyr", quietly = TRUE))')
    if have["status"] != "ok":
        pytest.skip("r-cran-dplyr is not installed (scripts/setup.sh)")
    await kernel.run(SALES)
    return kernel


async def test_every_op_round_trips_through_dplyr(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await sales_kernel(new_kernel)
    counts = {}
    for condition in CONDITIONS:
        shown, code = await round_trip(jp_fetch, kernel, {"filter": json.dumps(condition)})
        counts[json.dumps(condition)] = len(shown)
        assert 0 < len(shown) < N_ROWS, (condition, code["code"])
    # Missing values match only isnull: a condition and its negation never share a row,
    # and together they leave out exactly the missing ones.
    price_eq = counts[json.dumps(CONDITIONS[0])]
    price_ne = counts[json.dumps(CONDITIONS[1])]
    price_na = counts[json.dumps({"column": "price", "op": "isnull"})]
    assert price_eq + price_ne + price_na == N_ROWS
    for tree in TREES:
        shown, code = await round_trip(jp_fetch, kernel, {"filter": json.dumps(tree)})
        assert shown, tree
    for sort in SORTS:
        await round_trip(jp_fetch, kernel, {"sort": sort})
    both = {"filter": json.dumps(TREES[2]), "sort": "region:desc,price", "columns": "2,0,7"}
    shown, code = await round_trip(jp_fetch, kernel, both)
    assert "select(region, price, `unit price`)" in code["code"]
    assert "arrange(desc(region), price)" in code["code"]


async def test_sort_keys_are_stable_with_missing_last(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await sales_kernel(new_kernel)
    for sort, desc in (("price:asc", False), ("price:desc", True)):
        rows, first = await all_rows(jp_fetch, kernel, "sales", sort=sort, columns="0")
        assert first["sort"] == sort
        prices = [r[0] for r in first["rows"]] + [r[0] for r in rows[1000:]]
        present = [float(p) for p in prices if p is not None]
        assert present == sorted(present, reverse=desc)
        assert prices[len(present):] == [None] * (len(prices) - len(present))
    # Ties keep the table's order: the row labels rise within each (region, vip).
    window = await api(jp_fetch, kernel, "sales", "rows", sort="region,vip:desc",
                       columns="2,6", limit="1000")
    assert window["sort"] == "region:asc,vip:desc"
    keys = [tuple(r) for r in window["rows"]]
    labels = [int(x) for x in window["index"]]
    for a in range(len(keys) - 1):
        if keys[a] == keys[a + 1]:
            assert labels[a] < labels[a + 1]
    levels = ["north", "south", "east", "west"]  # a factor sorts by its levels
    assert [levels.index(k[0]) for k in keys] == sorted(levels.index(k[0]) for k in keys)


async def test_bad_filters_are_400(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await sales_kernel(new_kernel)
    cases = [
        ({"column": "price", "op": "gt", "value": "cheap"}, "does not fit column price (numeric)"),
        ({"column": "day", "op": "eq", "value": "soon"}, "does not fit column day (Date)"),
        ({"column": "vip", "op": "eq", "value": "maybe"}, "does not fit column vip (logical)"),
        ({"column": "rep", "op": "regex", "value": "(unclosed"}, "not a valid R regular"),
        ({"column": "price", "op": "is_true"}, "needs a logical column; price is numeric"),
        ({"column": "nope", "op": "isnull"}, "No column named 'nope'"),
        ({"column": 99, "op": "isnull"}, "column 99 is out of range"),
        ({"column": "vip", "op": "lt", "value": True}, "does not apply to column vip"),
    ]
    for condition, message in cases:
        for route in ("rows", "code"):
            with pytest.raises(HTTPClientError) as info:
                await api(jp_fetch, kernel, "sales", route, filter=json.dumps(condition))
            assert info.value.code == 400, (route, condition)
            assert message in json.loads(info.value.response.body)["message"], (route, condition)
    with pytest.raises(HTTPClientError) as info:
        await api(jp_fetch, kernel, "sales", "code", syntax="pandas")
    assert info.value.code == 400
    assert "use syntax=dplyr" in json.loads(info.value.response.body)["message"]
    await kernel.run("v <- 1:3")
    with pytest.raises(HTTPClientError) as info:
        await api(jp_fetch, kernel, "v", "code")
    assert info.value.code == 400


async def test_hostile_values_stay_values(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await sales_kernel(new_kernel)
    hostile = 'x"); system("touch /tmp/ks-r-pwned"); ("'
    for op, value in (("eq", hostile), ("contains", hostile), ("ends_with", hostile),
                      ("in", [hostile]), ("regex", 'x"\\); system\\("touch')):
        condition = {"column": "rep", "op": op, "value": value}
        rows, _ = await all_rows(jp_fetch, kernel, "sales", filter=json.dumps(condition))
        assert rows == []
        code = await api(jp_fetch, kernel, "sales", "code", filter=json.dumps(condition))
        assert 'system("touch' not in code["code"].replace('\\"', "")
    assert not Path("/tmp/ks-r-pwned").exists()
    await kernel.run("weird <- data.frame(`a\\`b` = 1:3, check.names = FALSE)")
    code = await api(jp_fetch, kernel, "weird", "code", sort="a`b:desc")
    assert "arrange(desc(`a\\`b`))" in code["code"]


# -- profiles -------------------------------------------------------------------------------

#: R computing the statistics itself (base R, not the probe's code): numbers with
#: quantile(type = 7), mean, sd and the bins as cut(right = FALSE) counts them; text by
#: table() in first-appearance order; booleans by sum; dates by range and median.
EXPECTED_R = r"""
local({
  d <- %(data)s
  num <- function(x) {
    x <- x[is.finite(x)]
    n <- length(x)
    q <- unname(quantile(x, c(.05, .25, .5, .75, .95), type = 7))
    span <- max(x) - min(x); iqr <- q[4] - q[2]
    wanted <- if (iqr > 0 && span > 0) span / (2 * iqr / n^(1/3)) else log2(n) + 1
    bins <- if (wanted > 50) 50 else max(1, ceiling(wanted))
    edges <- min(x) + (0:bins) * (span / bins); edges[bins + 1] <- max(x)
    counts <- as.vector(table(cut(x, edges, right = FALSE, include.lowest = TRUE)))
    list(min = min(x), max = max(x), mean = mean(x), median = q[3], std = sd(x),
         quantiles = list(`5` = q[1], `25` = q[2], `75` = q[4], `95` = q[5]),
         histogram = list(edges = edges, counts = counts))
  }
  txt <- function(x) {
    x <- as.character(x[!is.na(x)])
    u <- unique(x)
    counts <- as.vector(table(factor(x, levels = u)))
    o <- order(-counts)[seq_len(min(10, length(u)))]
    list(distinct = length(u), empty = sum(x == ""),
         top = lapply(o, function(i) list(value = u[i], count = counts[i])),
         other = length(x) - sum(counts[o]))
  }
  out <- lapply(names(d), function(nm) {
    x <- d[[nm]]
    base <- list(name = nm, count = sum(!is.na(x)), null_count = sum(is.na(x)))
    extra <- if (is.factor(x) || is.character(x)) txt(x)
             else if (is.logical(x)) list(true = sum(x, na.rm = TRUE), false = sum(!x, na.rm = TRUE))
             else if (inherits(x, "Date")) {
               md <- median(as.numeric(x), na.rm = TRUE)
               list(min = format(min(x, na.rm = TRUE)), max = format(max(x, na.rm = TRUE)),
                    median = if (md == floor(md)) format(as.Date(md, origin = "1970-01-01"))
                             else format(as.POSIXct(md * 86400, origin = "1970-01-01",
                                                    tz = "UTC"), "%%Y-%%m-%%dT%%H:%%M:%%S"))
             }
             else if (inherits(x, "POSIXct")) list(min = format(min(x, na.rm = TRUE), "%%Y-%%m-%%dT%%H:%%M:%%S+00:00"),
                                                   max = format(max(x, na.rm = TRUE), "%%Y-%%m-%%dT%%H:%%M:%%S+00:00"),
                                                   median = format(median(x, na.rm = TRUE), "%%Y-%%m-%%dT%%H:%%M:%%S+00:00"))
             else num(x)
    c(base, extra)
  })
  cat(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA, null = "null"))
})
"""


async def expected_profile(kernel: UserClient, data: str) -> list[dict[str, Any]]:
    await kernel.run(EXPECTED_R % {"data": data})
    text = "".join(m["content"].get("text", "") for m in kernel.outputs
                   if m["msg_type"] == "stream")
    return json.loads(text)  # type: ignore[no-any-return]


def close(a: Any, b: Any, where: str) -> None:
    if isinstance(a, dict):
        assert set(a) == set(b), where
        for k in a:
            close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12), where
    else:
        assert a == b, where


async def test_profile_as_r_computes_it(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await sales_kernel(new_kernel)
    for params, data in (
        ({}, "sales"),
        ({"filter": json.dumps(TREES[2])}, "sales_view"),
    ):
        if params:  # the filtered rows, as the view's own code binds them
            code = await api(jp_fetch, kernel, "sales", "code", **params)
            await kernel.run("suppressPackageStartupMessages(library(dplyr))\n"
                             + code["code"].split("\n", 1)[1])
        profile = await api(jp_fetch, kernel, "sales", "profile", **params)
        validate(profile, "TableProfile")
        expected = await expected_profile(kernel, data)
        assert profile["columns_total"] == 8 and profile["columns_cut"] == 0
        assert profile["sampled"] is False and profile["total_rows"] == N_ROWS
        if params:
            rows, first = await all_rows(jp_fetch, kernel, "sales", **params)
            assert profile["filtered_rows"] == first["filtered_rows"] == len(rows)
        else:
            assert profile["filtered_rows"] is None
        families = {c["name"]: c["family"] for c in profile["columns"]}
        assert families == {"price": "number", "units": "number", "region": "category",
                            "rep": "string", "day": "datetime", "at": "datetime",
                            "vip": "boolean", "unit price": "number"}
        for column, wanted in zip(profile["columns"], expected, strict=True):
            assert column["approximate"] is False and column["error"] is None
            got = {k: column[k] for k in wanted}
            close(got, wanted, column["name"])


async def test_profile_sampled_and_bounded(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    from .test_r_protocol import raw_call

    kernel: UserClient = await new_kernel("ir")
    await kernel.run("big <- data.frame(x = c(rep(NA, 10), seq_len(20000)), "
                     "s = rep(c('a', 'b', 'c', 'd'), length.out = 20010))\n"
                     "seed_before <- exists('.Random.seed', envir = globalenv())")
    reply = await raw_call(kernel, {"op": "profile", "name": "big", "sample_rows": 1000,
                                    "top": 2})
    profile = reply["profile"]
    assert profile["sampled"] is True and profile["sample_rows"] == 1000
    x, s = profile["columns"]
    assert x["approximate"] is True and x["count"] == 20000 and x["null_count"] == 10
    assert sum(x["histogram"]["counts"]) == pytest.approx(20000, rel=0.01)
    assert 1 <= x["min"] < 200 and 19800 < x["max"] <= 20000
    assert x["median"] == pytest.approx(10000, rel=0.05)
    assert len(s["top"]) == 2 and s["other"] == 20010 - sum(t["count"] for t in s["top"])
    assert s["distinct"] == 4
    again = await raw_call(kernel, {"op": "profile", "name": "big", "sample_rows": 1000})
    assert again["profile"]["columns"][0] == x  # the same sample, call after call
    reply = await kernel.run("stopifnot(!exists('.Random.seed', envir = globalenv()) || "
                             "seed_before)")
    assert reply["status"] == "ok"  # R's random numbers untouched
