"""The fragment presenter: the same text as presenting decoded variables, from a bounded
cache (no server needed)."""

from __future__ import annotations

import json

import pytest

from jupyter_kernel_state.service.presenter import FragmentPresenter, present


def fragment(name: str, preview: str) -> str:
    return json.dumps({"name": name, "type": "str", "preview": preview}, separators=(",", ":"))


NOTES = {"b": {"description": "the b", "constraints": None, "hidden_from_prompt": True}}


@pytest.mark.parametrize("bound", [1, 2, 3, 5, 100])
def test_presented_text_equals_presenting_dicts_under_any_bound(bound: int) -> None:
    presenter = FragmentPresenter(bound)
    fragments = [fragment("a", "1"), fragment("b", "2"), fragment("token", "sk-" + "x" * 30),
                 fragment("d", "4"), fragment("e", "5")]
    expected = [present(json.loads(f), NOTES) for f in fragments]
    for _ in range(3):
        got = presenter.present_all(fragments, NOTES, ("scope", 1))
        assert [json.loads(g) for g in got] == expected
        assert len(presenter._cache) <= max(bound, len(fragments))
    assert expected[2]["likely_secret"] is True and expected[1]["hidden_from_prompt"] is True


def test_unchanged_fragments_are_not_decoded_again_and_new_notes_start_over() -> None:
    presenter = FragmentPresenter(100)
    fragments = [fragment(f"v{i}", str(i)) for i in range(10)]
    presenter.present_all(fragments, {}, ("scope", 1))
    assert presenter.decoded == 10
    presenter.present_all([*fragments[:9], fragment("v9", "-1")], {}, ("scope", 1))
    assert presenter.decoded == 11
    got = presenter.present_all(fragments, NOTES, ("scope", 2))  # the notes changed
    assert presenter.decoded == 21
    assert all(json.loads(g)["description"] is None for g in got)
