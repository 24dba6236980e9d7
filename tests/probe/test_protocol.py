"""probe/protocol.py: the one spec of the requests, as case tables (no kernel, no server);
and the server's limits, which must lie within the protocol's bounds."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.probe.protocol import (
    EMPTY_VIEW,
    OPERATIONS,
    REFUSALS,
    BadRequest,
    Condition,
    SortKey,
    View,
    check,
    parse_sort,
    refusal,
    request,
)
from jupyter_kernel_state.service import queries
from jupyter_kernel_state.service.limits import Limits

# --- check: the probe's one validator --------------------------------------------------

FILLED = [
    # (id, request, expected subset of the filled fields)
    ("ping", {"op": "ping"}, {}),
    ("snapshot-defaults", {"op": "snapshot"},
     {"include": (), "offset": 0, "limit": 500, "sort": "name", "since_ec": None, "filter": None,
      "delta": False, "schema": False, "framing": "json", "preview_chars": 200,
      "time_guard_ms": 100, "budget_ms": 2000}),
    ("null-is-the-default", {"op": "snapshot", "limit": None, "sort": None, "include": None},
     {"limit": 500, "sort": "name", "include": ()}),
    ("sort-direction", {"op": "snapshot", "sort": "size:asc"}, {"sort": "size:asc"}),
    ("include-tuple", {"op": "snapshot", "include": ["private", "modules"]},
     {"include": ("private", "modules")}),
    ("digest-limit", {"op": "digest"}, {"limit": 200, "pinned": ()}),
    ("pinned-skips-what-is-no-name", {"op": "digest", "pinned": ["a", 7, None]}, {"pinned": ("a",)}),
    ("detail-defaults", {"op": "detail", "name": "x"},
     {"name": "x", "path": (), "max_chars": 10_000}),
    # settings clamp
    ("guard-clamped-high", {"op": "snapshot", "time_guard_ms": 10**9}, {"time_guard_ms": 5_000}),
    ("guard-clamped-low", {"op": "snapshot", "time_guard_ms": 0}, {"time_guard_ms": 1}),
    ("preview-clamped", {"op": "snapshot", "preview_chars": 1}, {"preview_chars": 10}),
    ("detail-chars-clamped", {"op": "detail", "name": "x", "max_chars": 10**9},
     {"max_chars": 65_536}),
    ("rows-caps-clamped", {"op": "rows", "name": "x", "max_rows": 10**9, "cell_chars": 1,
                           "budget_ms": 10**9},
     {"max_rows": 100_000, "cell_chars": 10, "budget_ms": 240_000}),
    # a bound read from an earlier field
    ("rows-limit-up-to-max-rows", {"op": "rows", "name": "x", "max_rows": 5000, "limit": 5000},
     {"limit": 5000}),
    ("rows-view", {"op": "rows", "name": "x",
                   "view": {"sort": [{"column": "a", "desc": True}],
                            "filter": {"column": 2, "op": "isnull", "value": "ignored"}}},
     {"view": View((SortKey("a", True),), Condition(2, "isnull"))}),
    ("rows-no-view", {"op": "rows", "name": "x"}, {"view": EMPTY_VIEW, "columns": None}),
    ("timeline", {"op": "timeline", "name": "x", "limit": 100}, {"limit": 100}),
]


@pytest.mark.parametrize(("request_", "expected"), [c[1:] for c in FILLED], ids=[c[0] for c in FILLED])
def test_check_fills_every_field(request_: dict[str, Any], expected: dict[str, Any]) -> None:
    op, fields = check(request_)
    assert op == request_["op"]
    assert set(fields) == set(OPERATIONS[op].by_name)
    for key, want in expected.items():
        assert fields[key] == want, key


REFUSED = [
    # (id, request, words of the message)
    ("not-an-object", [1], "A request is a JSON object"),
    ("no-op", {}, "Unknown operation None"),
    ("unknown-op", {"op": "nope"}, "Unknown operation 'nope': one of ping, snapshot"),
    ("unknown-field", {"op": "ping", "x": 1}, "Invalid ping request: unknown field 'x'"),
    ("wrong-type", {"op": "snapshot", "limit": "5"}, "limit must be an integer from 0 to 10,000"),
    ("bool-is-not-an-int", {"op": "timeline", "name": "x", "limit": True}, "limit must be an integer"),
    ("question-out-of-bounds", {"op": "snapshot", "limit": 10_001}, "limit must be an integer from 0"),
    ("negative-offset", {"op": "snapshot", "offset": -1}, "offset must be an integer from 0"),
    ("bad-sort", {"op": "snapshot", "sort": "random"},
     "sort must be one of name, type, size, changed, memory, optionally followed by :asc or :desc"),
    ("bad-direction", {"op": "snapshot", "sort": "name:up"}, "sort must be one of"),
    ("bad-include", {"op": "snapshot", "include": ["everything"]}, "include must list some of"),
    ("delta-not-null", {"op": "snapshot", "delta": None}, "delta must be true or false"),
    ("since-text", {"op": "snapshot", "since_ec": "1"}, "since_ec must be an integer"),
    ("long-filter", {"op": "snapshot", "filter": "x" * 201}, "filter must hold at most 200 characters"),
    ("bad-framing", {"op": "snapshot", "framing": "xml"}, "framing must be one of json, lines"),
    ("name-required", {"op": "detail"}, "Invalid detail request: name is required"),
    ("name-null", {"op": "detail", "name": None}, "Invalid variable name: None"),
    ("name-keyword", {"op": "delete", "name": "class"}, "Invalid variable name: 'class'"),
    ("name-not-identifier", {"op": "rows", "name": "a b"}, "Invalid variable name"),
    ("name-too-long", {"op": "detail", "name": "a" * 257}, "Invalid variable name"),
    ("path-not-a-list", {"op": "detail", "name": "x", "path": "a"}, "path must be a list"),
    ("path-too-long", {"op": "detail", "name": "x", "path": ["i:0"] * 33}, "path must hold"),
    ("pinned-not-a-list", {"op": "digest", "pinned": "x"}, "pinned must be a list of names"),
    ("rows-limit-0", {"op": "rows", "name": "x", "limit": 0}, "limit must be an integer from 1 to 1,000"),
    ("rows-limit-past-max-rows", {"op": "rows", "name": "x", "max_rows": 10, "limit": 11},
     "limit must be an integer from 1 to 10"),
    ("columns-empty", {"op": "rows", "name": "x", "columns": []}, "columns must hold from 1 to 100"),
    ("columns-past-max", {"op": "rows", "name": "x", "columns": list(range(101))}, "columns must hold"),
    ("columns-negative", {"op": "rows", "name": "x", "columns": [-1]}, "column positions"),
    ("column-stop-before-start", {"op": "rows", "name": "x", "column_start": 5, "column_stop": 4},
     "column_stop must be an integer from 5"),
    ("timeline-limit", {"op": "timeline", "name": "x", "limit": 101}, "limit must be an integer from 1 to 100"),
    # views
    ("view-not-an-object", {"op": "rows", "name": "x", "view": "a:desc"}, "view must be an object"),
    ("view-unknown", {"op": "rows", "name": "x", "view": {"order": []}}, "view has no field 'order'"),
    ("eleven-sort-keys", {"op": "rows", "name": "x",
                          "view": {"sort": [{"column": str(i)} for i in range(11)]}},
     "sorting by 11 columns is not supported: at most 10 sort keys"),
    ("sort-desc-text", {"op": "rows", "name": "x", "view": {"sort": [{"column": "a", "desc": "yes"}]}},
     "sort desc must be true or false"),
    ("sort-no-column", {"op": "rows", "name": "x", "view": {"sort": [{"desc": True}]}},
     "sort needs a column"),
    ("filter-empty-tree", {"op": "rows", "name": "x", "view": {"filter": {"or": []}}},
     '"or" takes a non-empty list of conditions'),
    ("filter-not-an-object", {"op": "rows", "name": "x", "view": {"filter": "a > 1"}},
     "filter must be an object: a condition"),
    ("filter-bad-op", {"op": "rows", "name": "x", "view": {"filter": {"column": "a", "op": "~"}}},
     "filter op must be one of eq, ne, lt"),
    ("filter-no-value", {"op": "rows", "name": "x", "view": {"filter": {"column": "a", "op": "gt"}}},
     "filter gt needs a value"),
    ("filter-no-column", {"op": "rows", "name": "x", "view": {"filter": {"column": "", "op": "isnull"}}},
     "filter needs a column"),
]


@pytest.mark.parametrize(("request_", "words"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_check_refuses_with_a_clear_message(request_: Any, words: str) -> None:
    with pytest.raises(BadRequest) as info:
        check(request_)
    assert words in str(info.value)
    assert isinstance(info.value, ValueError)  # the server's 400


def test_every_field_is_described_by_the_spec() -> None:
    for op in OPERATIONS.values():
        for f in op.fields:
            assert f.type in protocol._TYPES, (op.name, f.name)
            assert not (f.required and f.nullable), (op.name, f.name)
            for bound in (f.min, f.max):  # a bound named after a field: an earlier one
                if isinstance(bound, str):
                    names = [g.name for g in op.fields]
                    assert names.index(bound) < names.index(f.name), (op.name, f.name)
            if not f.required and f.default is not None and f.type == protocol.INT:
                assert check({"op": op.name, **_required(op), f.name: f.default})[1][f.name] == f.default


def _required(op: protocol.Operation) -> dict[str, Any]:
    return {f.name: "x" for f in op.fields if f.required}


# --- request: the server's builder ---------------------------------------------------


def test_request_leaves_out_defaults_and_sends_views_as_json() -> None:
    assert request("ping") == {"op": "ping"}
    assert request("snapshot", limit=500, since_ec=None, filter=None, framing="lines") == {
        "op": "snapshot", "framing": "lines"}
    view = View((SortKey("price", True),), Condition("price", "gt", "10"))
    built = request("rows", name="sales", limit=20, view=view, columns=(0, 3))
    assert built == {
        "op": "rows", "name": "sales", "limit": 20, "columns": [0, 3],
        "view": {"sort": [{"column": "price", "desc": True}],
                 "filter": {"column": "price", "op": "gt", "value": "10"}},
    }
    assert request("rows", name="sales", view=EMPTY_VIEW) == {"op": "rows", "name": "sales"}
    # what request builds, check takes back as it was meant
    assert check(built)[1]["view"] == view


def test_request_clamps_settings_and_refuses_questions() -> None:
    assert request("snapshot", time_guard_ms=10**6)["time_guard_ms"] == protocol.MAX_GUARD_MS
    with pytest.raises(BadRequest, match="limit must be an integer from 1 to 1,000"):
        request("rows", name="x", limit=1001)
    with pytest.raises(BadRequest, match="unknown field 'nope'"):
        request("detail", name="x", nope=1)


def test_request_takes_any_name_check_a_python_one() -> None:
    """The server builds requests for R kernels too: ``my.var`` is a name there."""
    assert request("detail", name="my.var")["name"] == "my.var"
    with pytest.raises(BadRequest, match="Invalid variable name"):
        check({"op": "detail", "name": "my.var"})
    with pytest.raises(BadRequest, match="name must hold from 1 to 256 characters"):
        request("detail", name="")


# --- views and refusals -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [("price:desc", SortKey("price", True)), ("price:asc", SortKey("price")),
     ("price", SortKey("price")), ("a:b:desc", SortKey("a:b", True)), ("a:b", SortKey("a:b")),
     (":desc", SortKey(":desc"))],
)
def test_sort_text_splits_at_the_last_colon(text: str, key: SortKey) -> None:
    assert parse_sort(text) == key
    if text.endswith((":asc", ":desc")) and key.column != ":desc":
        assert View((key,)).sort_text() == text


def test_a_view_round_trips_and_is_hashable() -> None:
    view = View((SortKey(3),), Condition("b", "contains", "x"))
    assert View.from_json(view.to_json()) == view
    assert {view: 1}[View.from_json(view.to_json())] == 1  # a cache key on the server
    assert View.from_json(None) is EMPTY_VIEW and EMPTY_VIEW.sort_text() is None
    assert EMPTY_VIEW.to_json() == {"sort": [], "filter": None}


def test_one_refusal_shape() -> None:
    assert refusal("not_found", "Variable not found: x") == {
        "ok": False, "not_found": True, "error": "Variable not found: x"}
    assert refusal("interrupted", "probe error: KeyboardInterrupt", extra=1)["extra"] == 1
    assert set(REFUSALS) == {"not_found", "bad_request", "lazy", "unprocessable", "interrupted",
                             "unsupported", "failed", "full"}
    assert REFUSALS["lazy"] == REFUSALS["full"] == 409 and REFUSALS["unprocessable"] == 422
    with pytest.raises(ValueError):
        refusal("teapot", "no")


# --- the server's limits lie within the protocol's bounds ----------------------------


def _within(op: str, name: str, *values: int) -> None:
    f = OPERATIONS[op].field(name)
    low = f.min if isinstance(f.min, int) else 0
    high = f.max if isinstance(f.max, int) else None
    for value in values:
        assert low <= value and (high is None or value <= high), (op, name, value, low, high)
        if not f.clamp:
            assert check({"op": op, **_required(OPERATIONS[op]), name: value})[1][name] == value


def test_the_servers_limits_lie_within_the_protocols_bounds() -> None:
    limits = Limits()
    _within("snapshot", "limit", limits.page_size, limits.max_page_size)
    _within("snapshot", "preview_chars", limits.preview_chars)
    _within("digest", "preview_chars", limits.preview_chars)
    for op in ("snapshot", "digest", "detail"):
        _within(op, "time_guard_ms", limits.time_guard_ms)
        _within(op, "budget_ms", limits.probe_budget_ms)
    _within("detail", "max_chars", limits.detail_chars, limits.max_detail_chars)
    _within("rows", "max_rows", limits.rows_max_rows)
    _within("rows", "limit", min(100, limits.rows_max_rows))
    _within("rows", "max_columns", limits.rows_max_columns)
    _within("rows", "cell_chars", limits.rows_cell_chars)
    _within("rows", "time_guard_ms", limits.rows_read_ms)
    _within("rows", "sort_ms", limits.rows_sort_ms)
    _within("rows", "cell_guard_ms", limits.time_guard_ms)
    _within("rows", "budget_ms", int(limits.probe_timeout * 1000 * 0.8))
    # the probe's budget for user code stays well inside the server's deadline
    assert limits.probe_timeout > protocol.DEFAULT_BUDGET_MS / 1000


def test_the_probes_defaults_are_the_servers() -> None:
    limits = Limits()
    snapshot = OPERATIONS["snapshot"]
    assert snapshot.field("limit").default == limits.page_size
    assert snapshot.field("preview_chars").default == limits.preview_chars
    assert snapshot.field("time_guard_ms").default == limits.time_guard_ms
    assert snapshot.field("budget_ms").default == limits.probe_budget_ms
    assert OPERATIONS["detail"].field("max_chars").default == limits.detail_chars
    rows = OPERATIONS["rows"]
    assert rows.field("max_rows").default == limits.rows_max_rows
    assert rows.field("max_columns").default == limits.rows_max_columns
    assert rows.field("cell_chars").default == limits.rows_cell_chars
    assert rows.field("time_guard_ms").default == limits.rows_read_ms
    assert rows.field("sort_ms").default == limits.rows_sort_ms


def test_the_probes_choices_are_the_servers() -> None:
    assert frozenset(queries.INCLUDE_CHOICES) == frozenset(protocol.INCLUDE_GROUPS)
    assert frozenset(queries.SORT_CHOICES) == frozenset(protocol.SORTS)
    assert protocol.MAX_FILTER_CHARS == queries.MAX_FILTER_CHARS
