"""The fragment presenter: the same text as presenting decoded variables, from a bounded
cache (no server needed)."""

from __future__ import annotations

import json

import pytest

from jupyter_kernel_state.probe.protocol import with_defaults
from jupyter_kernel_state.secrets import may_hold_secret, secret_reason
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
        # the same variables, the fields at their defaults left out (the lean wire)
        assert [with_defaults(json.loads(g)) for g in got] == [with_defaults(e) for e in expected]
        assert len(presenter._cache) <= max(bound, len(fragments))
    assert expected[2]["likely_secret"] is True and expected[1]["hidden_from_prompt"] is True


def test_unchanged_fragments_are_not_decoded_again_and_new_notes_start_over() -> None:
    presenter = FragmentPresenter(100)
    # Secret-looking values must be decoded (to be masked) ...
    fragments = [fragment(f"v{i}", f"sk-{i:08d}-abcdefgh") for i in range(10)]
    presenter.present_all(fragments, {}, ("scope", 1))
    assert presenter.decoded == 10
    presenter.present_all([*fragments[:9], fragment("v9", "sk--1-abcdefgh")], {}, ("scope", 1))
    assert presenter.decoded == 11
    got = presenter.present_all(fragments, NOTES, ("scope", 2))  # the notes changed
    assert presenter.decoded == 21
    assert all(json.loads(g).get("description") is None for g in got)
    assert all(json.loads(g)["masked"] is True for g in got)


def test_a_fragment_with_nothing_to_add_is_served_as_the_probe_wrote_it() -> None:
    presenter = FragmentPresenter(100)
    plain = [fragment(f"v{i}", str(i)) for i in range(10)]
    noted = fragment("b", "2")
    got = presenter.present_all([*plain, noted], NOTES, ("scope", 1))
    assert got[:10] == plain and presenter.decoded == 1  # only the one a note names
    assert json.loads(got[10])["description"] == "the b"
    assert "likely_secret" not in got[0] and "description" not in got[0]
    escaped = json.dumps({"name": "caf\u00e9", "type": "str", "preview": "1"})
    presenter.present_all([escaped], NOTES, ("scope", 1))  # an escaped name: decoded
    assert presenter.decoded == 2


#: A text each pattern of secrets.py matches (names and values), with words around it.
SECRET_SAMPLES = [
    "my_TOKEN", "db_password", "passwd", "Client_Secret", "OPENAI_API_KEY", "apikey",
    "AccessKey", "private_key", "Credentials", "auth_key", "SESSION_KEY", "bearer", "cookie",
    "sk-abcdefgh12345", "AKIAABCDEFGHIJKL", "ASIAABCDEFGHIJKL",
    "ghp_" + "a" * 16, "gho_" + "a" * 16, "ghu_" + "a" * 16, "ghs_" + "a" * 16,
    "ghr_" + "a" * 16, "github_pat_" + "a" * 16, "xoxb-12345678", "AIza" + "b" * 20,
    "Bearer abcdefghijkl", "eyJabcdefgh.abcdefghij.", "postgres://user:pw@host",
    "-----BEGIN RSA PRIVATE KEY-----",
]


@pytest.mark.parametrize("sample", SECRET_SAMPLES)
def test_the_quick_check_lets_every_pattern_through(sample: str) -> None:
    """may_hold_secret tests substrings before the patterns: each pattern's matches must
    hold one of them, or a secret would be served unmasked."""
    fragment = json.dumps({"name": "x", "type": "str", "preview": f"'a {sample} b'"})
    assert secret_reason(sample, None) or secret_reason("x", sample), sample
    assert may_hold_secret(fragment) and may_hold_secret(sample)


def test_the_quick_check_passes_plain_variables_without_the_patterns() -> None:
    plain = [json.dumps({"name": f"v{i}", "type": "int", "kind": "number",
                         "preview": str(i), "changed_at": 3}) for i in range(1000)]
    assert not any(may_hold_secret(f) for f in plain)


@pytest.mark.parametrize("odd_one", [None, "secret", "note"])
def test_many_new_fragments_are_checked_together_and_still_noted_and_masked(
        odd_one: str | None) -> None:
    """A list rebound by a loop: its new fragments are checked on their joined text; one
    with a note or a possible secret among them still gets its note or its mask."""
    plain = [fragment(f"v{i}", str(i)) for i in range(500)]
    if odd_one == "secret":
        plain[250] = fragment("token", "sk-" + "x" * 30)
    if odd_one == "note":
        plain[250] = fragment("b", "2")
    presenter = FragmentPresenter(10_000)
    got = presenter.present_all(plain, NOTES, ("scope", 1))
    assert presenter.presented == 500
    assert [with_defaults(json.loads(g)) for g in got] == [
        with_defaults(present(json.loads(f), NOTES)) for f in plain]
    assert presenter.decoded == (0 if odd_one is None else 1)
    if odd_one is None:
        assert got == plain  # passed through, text for text
