"""The typed queries: the same request means the same thing from a query string (REST)
and from typed arguments (MCP tools) — one ``rest.parse`` — and every bad value is a clear
InvalidRequest."""

from __future__ import annotations

import pytest

from jupyter_kernel_state.errors import InvalidRequest
from jupyter_kernel_state.rest import parse
from jupyter_kernel_state.service import (
    AnnotationUpdate,
    DetailOptions,
    HistoryOptions,
    ImagesOptions,
    Limits,
    PromptOptions,
    SnapshotOptions,
)
from jupyter_kernel_state.service.annotations import parse_annotation
from jupyter_kernel_state.service.languages import python, r

LIMITS = Limits()


@pytest.mark.parametrize(
    ("strings", "typed", "expected"),
    [
        ({}, {}, SnapshotOptions(limit=500)),
        ({"limit": "20", "offset": "40", "sort": "size", "include": "modules, private"},
         {"limit": 20, "offset": 40, "sort": "size", "include": ["modules", "private"]},
         SnapshotOptions(limit=20, offset=40, sort="size",
                         include=frozenset({"modules", "private"}))),
        ({"limit": "99999999"}, {"limit": 99_999_999}, SnapshotOptions(limit=10_000)),
        ({"since": "3", "filter": "df*"}, {"since": 3, "filter": "df*"},
         SnapshotOptions(since=3, filter="df*")),
        ({"limit": " 7 "}, {"limit": 7}, SnapshotOptions(limit=7)),
        ({"changed_in": "4", "filter": "a*"}, {"changed_in": 4, "filter": "a*"},
         SnapshotOptions(changed_in=4, filter="a*")),
    ],
)
def test_snapshot_from_strings_and_from_typed_arguments_agree(strings, typed, expected):  # type: ignore[no-untyped-def]
    assert parse("variables", strings, LIMITS) == expected
    assert parse("variables", typed, LIMITS) == expected


@pytest.mark.parametrize(
    ("strings", "message"),
    [
        ({"limit": "0"}, "limit must be ≥ 1"),
        ({"limit": "ten"}, "limit must be an integer"),
        ({"offset": "-1"}, "offset must be ≥ 0"),
        ({"sort": "random"}, "sort must be one of"),
        ({"include": "secrets"}, "include accepts"),
        ({"since": "-5"}, "since must be ≥ 0"),
        ({"filter": "x" * 201}, "filter is longer than 200"),
        ({"changed_in": "-1"}, "changed_in must be ≥ 0"),
        ({"changed_in": "3", "since": "2", "delta": "1"}, "cannot be combined with delta"),
    ],
)
def test_bad_snapshot_values_are_refused(strings, message):  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidRequest, match=message):
        parse("variables", strings, LIMITS)


def test_detail_prompt_images_history():  # type: ignore[no-untyped-def]
    assert parse("variable", {"name": "df", "path": '["k1", "k2"]'}, LIMITS) == \
        parse("variable", {"name": "df", "path": ["k1", "k2"]}, LIMITS) == \
        DetailOptions(name="df", path=("k1", "k2"), max_chars=10_000)
    assert parse("variable", {"name": "df", "max_chars": 10**9}, LIMITS).max_chars == 65_536
    for bad, message in [("1x", "not a Python identifier"), ("a-b", "not a Python identifier"),
                         ("_x.y", "or an R name"), ("x" * 257, "1 to 256 characters")]:
        with pytest.raises(InvalidRequest, match=message):
            parse("variable", {"name": bad}, LIMITS)
    # Names of one language only pass here; the kernel's language checks them again.
    assert parse("variable", {"name": "my.df"}, LIMITS).name == "my.df"
    assert parse("variable", {"name": "class"}, LIMITS).name == "class"
    with pytest.raises(InvalidRequest, match="not a Python identifier"):
        python.SUPPORT.check_name("class")
    with pytest.raises(InvalidRequest, match="not an R name"):
        r.SUPPORT.check_name("_x")
    for bad in ("if", "TRUE", "..1", ".2x", "a b"):
        assert not r.is_r_name(bad)
    for good in ("x", ".x", "my.df", "x_1", ".", "..x"):
        assert r.is_r_name(good)
    with pytest.raises(InvalidRequest, match="JSON array"):
        parse("variable", {"name": "df", "path": "{"}, LIMITS)

    assert parse("prompt", {"budget": "2000", "images": "false", "format": "json"}, LIMITS) == \
        parse("prompt", {"budget": 2000, "images": False, "format": "json"}, LIMITS) == \
        PromptOptions(budget=2000, images=False, format="json")
    assert parse("prompt", {"budget": 10**9}, LIMITS).budget == 200_000
    for strings, message in [({"budget": "199"}, "budget must be ≥ 200"),
                             ({"format": "xml"}, "format must be one of text, json"),
                             ({"images": "maybe"}, "images must be true or false"),
                             ({"history": "-1"}, "history must be ≥ 0")]:
        with pytest.raises(InvalidRequest, match=message):
            parse("prompt", strings, LIMITS)

    # Everything the store holds: the first keep_first images and the latest max_images.
    assert parse("images", {}, LIMITS) == ImagesOptions(since=0, limit=60)
    assert parse("images", {"limit": 500}, LIMITS).limit == 60
    assert parse("history", {"limit": "1000"}, LIMITS) == HistoryOptions(limit=100)
    assert parse("history", {}, LIMITS) == HistoryOptions(limit=10)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"{}", {"description": None, "constraints": None, "hidden_from_prompt": False}),
        (b'{"description": " rows of sales ", "hidden_from_prompt": true}',
         {"description": "rows of sales", "constraints": None, "hidden_from_prompt": True}),
        (b'{"constraints": ""}', {"description": None, "constraints": None,
                                  "hidden_from_prompt": False}),
    ],
)
def test_annotation_update_from_body(body, expected):  # type: ignore[no-untyped-def]
    update = AnnotationUpdate.from_body("sales", body)
    assert update.name == "sales" and update.note == expected


@pytest.mark.parametrize(
    ("name", "body", "fragment"),
    [
        ("sales", b"[1]", "Body must be a JSON object"),
        ("sales", b"{", "Body must be a JSON object"),
        ("sales", b'{"colour": 1}', "Unknown field"),
        ("sales", b'{"hidden_from_prompt": "yes"}', "hidden_from_prompt must be"),
        ("sales", b'{"description": "' + b"x" * 2001 + b'"}', "longer than"),
        ("1bad", b"{}", "name"),
    ],
)
def test_annotation_update_rejects(name, body, fragment):  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidRequest) as e:
        AnnotationUpdate.from_body(name, body)
    assert fragment in e.value.message


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (lambda t: parse("rows", {"name": "df", "filter": t}, LIMITS), "[" * 50_000 + "]" * 50_000),
        (lambda t: parse("rows", {"name": "df", "filter": t}, LIMITS), '{"and": [' * 5_000 + "]}" * 5_000),
        (lambda t: parse("rows", {"name": "df", "sort": t}, LIMITS), "[" * 3_000 + "]" * 3_000),
        (lambda t: parse("variable", {"name": "df", "path": t}, LIMITS), "[" * 100_000 + "]" * 100_000),
        (parse_annotation, "[" * 100_000 + "]" * 100_000),
    ],
    ids=["filter-brackets", "filter-and-trees", "sort-json", "path", "annotation"],
)
def test_json_nested_past_pythons_limit_is_a_400(parse, text):  # type: ignore[no-untyped-def]
    """``json.loads`` raises RecursionError on such text: a 400, never a 500."""
    with pytest.raises(InvalidRequest):
        parse(text)
