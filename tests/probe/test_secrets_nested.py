"""Secrets inside containers, in the probe (no server): a value under a key, attribute or
field whose name looks like a credential's is masked in previews, details, children and
change descriptions at every depth the preview reaches, unless the detail reveals it; the
name pattern is one definition, shared with the server."""

from __future__ import annotations

import collections
import dataclasses
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from jupyter_kernel_state import secrets as server_secrets
from jupyter_kernel_state.probe import entry, summarize
from jupyter_kernel_state.probe.inspect import display, secrets
from jupyter_kernel_state.probe.inspect.base import inspector_for

from .helpers import verify_summary

SECRET = "swordfish"
INSIDE = "a key inside looks like a credential"
UNDER = "its key looks like a credential"


@dataclasses.dataclass
class Db:
    host: str
    password: str


class Login(NamedTuple):
    user: str
    api_key: str


class Client:
    def __init__(self) -> None:
        self.url = "https://example.org"
        self.auth_token = SECRET


class Leaky(Client):
    """Its own repr and llm repr show the token: read from its attributes instead."""

    def __repr__(self) -> str:
        return f"Leaky({self.url!r}, {self.auth_token!r})"

    def _repr_llm_(self) -> str:
        return f"a client holding {self.auth_token}"


def _nest(value: Any, depth: int) -> Any:
    for i in range(depth):
        value = {f"level{i}": value} if i % 2 == 0 else [value]
    return value


#: (value, its preview, the access keys from the value to the secret)
CONTAINERS = [
    pytest.param({"password": SECRET, "depth": 6}, "{'password': [masked], 'depth': 6}",
                 ['k:"password"'], id="dict"),
    pytest.param({"Api_Key": SECRET}, "{'Api_Key': [masked]}", ['k:"Api_Key"'], id="dict-case"),
    pytest.param({"token": [1, 2, SECRET]}, "{'token': [masked]}", ['k:"token"'], id="dict-list-value"),
    pytest.param(collections.OrderedDict(secret=SECRET, n=1), "OrderedDict({'secret': [masked], 'n': 1})",
                 ['k:"secret"'], id="ordered-dict"),
    pytest.param(collections.defaultdict(int, {"cookie": SECRET}),
                 "defaultdict(int, {'cookie': [masked]})", ['k:"cookie"'], id="defaultdict"),
    pytest.param([{"user": "ann", "passwd": SECRET}], "[{'user': 'ann', 'passwd': [masked]}]",
                 ["i:0", 'k:"passwd"'], id="list-of-dicts"),
    pytest.param(({"client_secret": SECRET},), "({'client_secret': [masked]},)",
                 ["i:0", 'k:"client_secret"'], id="tuple-of-dicts"),
    pytest.param(Db("h", SECRET), "Db(host='h', password=[masked])", ["a:password"], id="dataclass"),
    pytest.param(Login("ann", SECRET), "Login(user='ann', api_key=[masked])", ["i:1"], id="namedtuple"),
    pytest.param({"db": Db("h", SECRET)}, "{'db': Db(host='h', password=[masked])}",
                 ['k:"db"', "a:password"], id="dict-of-dataclass"),
    pytest.param(Client(), "Client(url='https://example.org', auth_token=[masked])",
                 ["a:auth_token"], id="object-attributes"),
    pytest.param(Leaky(), "Leaky(url='https://example.org', auth_token=[masked])",
                 ["a:auth_token"], id="object-own-repr"),
    pytest.param([Client()], "[Client(url='https://example.org', auth_token=[masked])]",
                 ["i:0", "a:auth_token"], id="list-of-objects"),
    *[pytest.param(_nest({"credential": SECRET}, depth), None, None, id=f"depth-{depth}")
      for depth in (1, 2, 3)],
]


def _path_to_secret(value: Any) -> list[str]:
    """The access keys of the nested ``{"credential": SECRET}`` made by ``_nest``."""
    path: list[str] = []
    while not (isinstance(value, dict) and "credential" in value):
        if isinstance(value, dict):
            (key,) = value
            path.append(f"k:{json.dumps(key)}")
            value = value[key]
        else:
            path.append("i:0")
            value = value[0]
    return [*path, 'k:"credential"']


@pytest.mark.parametrize("value, preview, path", CONTAINERS)
def test_a_value_under_a_credential_like_name_is_masked_at_any_depth(value, preview, path):  # type: ignore[no-untyped-def]
    s = verify_summary(value, {})
    if preview is not None:
        assert s["preview"] == preview
    if "[masked]" in s["preview"] or preview is not None:
        assert s["secret_reason"] == INSIDE
    assert SECRET not in json.dumps(s)
    ns = {"v": value}
    shown = entry.detail({"name": "v"}, ns)["variable"]
    assert SECRET not in json.dumps(shown)
    assert shown["secret_reason"] == INSIDE
    revealed = entry.detail({"name": "v", "reveal": True}, ns)["variable"]
    assert "[masked]" not in json.dumps(revealed) and revealed["secret_reason"] == INSIDE
    path = path or _path_to_secret(value)
    child = entry.detail({"name": "v", "path": path}, ns)["variable"]
    assert child["secret_reason"] == UNDER and SECRET not in json.dumps(child)
    assert child["repr"] == child["preview"] == "[masked]"
    child = entry.detail({"name": "v", "path": path, "reveal": True}, ns)["variable"]
    assert child["secret_reason"] == UNDER and SECRET in child["repr"]


@pytest.mark.parametrize("value", [
    pytest.param({"depth": 6, "model": "gbm"}, id="dict"),
    pytest.param({"tokens_total": 3}, id="a-count-named-like-a-token"),  # errs on masking
    pytest.param([1, 2, {"a": "b"}], id="list"),
    pytest.param({1: "password"}, id="a-value-that-is-the-word"),
    pytest.param({("password", 1): "x"}, id="a-tuple-key"),
])
def test_what_is_not_under_a_credential_like_key_is_left(value):  # type: ignore[no-untyped-def]
    s = summarize("v", value)
    masked = "[masked]" in s["preview"]
    assert masked is (s["secret_reason"] == INSIDE)
    assert masked is (isinstance(value, dict) and any(
        isinstance(k, str) and secrets.secret_name(k) for k in value))


def test_the_fast_path_masks_as_the_element_path_does():  # type: ignore[no-untyped-def]
    insp = inspector_for(dict)
    for value in ({"password": "x", "n": 1}, {"a": 1, "secret_sauce": "y", "b": 2},
                  {"n": 1}, {f"k{i}": i for i in range(30)} | {"token": "t"}):
        for limit in (20, 40, 200):
            fast_ctx, slow_ctx = display.Ctx(), display.Ctx()
            fast = insp.plain_preview(value, limit, ctx=fast_ctx)
            if fast is None:
                continue
            slow = display.pairs_repr("{", "}", iter(value.items()), len(value), limit, 0,
                                      slow_ctx, lambda v, lim, d, c: (repr(v)[:lim], False))
            assert fast == slow, (value, limit)
            assert fast_ctx.secrets == slow_ctx.secrets


def test_one_name_pattern_for_the_server_and_the_probe():  # type: ignore[no-untyped-def]
    assert server_secrets.SECRET_NAME is secrets.SECRET_NAME
    assert server_secrets.SECRET_VALUES is secrets.SECRET_VALUES
    assert server_secrets.MASK == secrets.MASK == "[masked]"
    assert server_secrets.secret_reason("db_password", None) == "its name looks like a credential"
    source = (secrets.__file__, server_secrets.__file__)
    defined = [p for p in source if re.search(r"re\.compile\(\s*r\"\(token", Path(p).read_text())]
    assert defined == [secrets.__file__]


def test_a_hostile_key_is_read_without_its_methods():  # type: ignore[no-untyped-def]
    class Key(str):
        def lower(self) -> str:  # never called
            raise AssertionError

        def __getitem__(self, item: Any) -> str:  # never called
            raise AssertionError

    s = summarize("v", {Key("password"): SECRET})
    assert SECRET not in s["preview"] and s["secret_reason"] == INSIDE


@pytest.mark.parametrize("name, cell, expected", [
    ("cfg", "cfg['password'] = 'hunter2'", ["password [masked] → [masked]"]),
    ("cfg", "cfg['note'] = 'sk-abcdefghijklmnopqrst'", ["len 2 → 3", "key note added"]),
    ("cfg", "cfg['depth'] = 'sk-abcdefghijklmnopqrst'", ["depth 6 → 'sk-…[masked]'"]),
    ("api_key", "api_key = 'hunter2'", ["[masked] → [masked]"]),
    ("tokens", "tokens.append('hunter2')", ["len 1 → 2", "appended [masked]"]),
    ("login", "login = Login('ann', 'hunter2')", ["api_key [masked] → [masked]"]),
])
def test_change_descriptions_never_show_a_secret(shell, name, cell, expected):  # type: ignore[no-untyped-def]
    ns = shell.user_ns
    shell.run(cfg={"password": SECRET, "depth": 6}, api_key=SECRET, tokens=[SECRET],
              login=Login("ann", SECRET))
    exec(cell, {"Login": Login}, ns)  # the user's cell
    ec = shell.run(cell)
    v = {x["name"]: x for x in entry.snapshot({"since_ec": ec - 1})["variables"]}[name]
    assert v["changes"] == expected
    assert SECRET not in json.dumps(v["changes"]) and "hunter2" not in json.dumps(v["changes"])
    timeline = entry._state.tracker.records.timeline.of(name)[0]
    assert timeline[-1]["changes"] == expected
