"""probe_loader: the install source, call expressions and reply parsing, exercised in a
plain Python subprocess (no IPython)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from jupyter_kernel_state import probe
from jupyter_kernel_state.service import probe_loader
from jupyter_kernel_state.service.probe_loader import (
    ProbeFailed,
    ProbeMissing,
    call_expression,
    install_code,
    parse_reply,
)

PROBE_DIR = Path(probe.__file__).parent


def run_plain_python(body: str) -> list[dict]:
    """Run ``body`` in a fresh interpreter; it prints one JSON document per line."""
    out = subprocess.run(
        [sys.executable, "-W", "error", "-"], input=body, capture_output=True, text=True, timeout=60, check=True
    )
    return [json.loads(line) for line in out.stdout.splitlines()]


def evaluate(expression: str) -> str:
    """Python that evaluates ``expression`` like IPython's user_expressions would."""
    return (
        "try:\n"
        f"    _r = {{'status': 'ok', 'data': {{'text/plain': repr(eval({expression!r}))}}}}\n"
        "except Exception as _e:\n"
        "    _r = {'status': 'error', 'ename': type(_e).__name__, 'evalue': str(_e), 'traceback': ['...']}\n"
        "print(json.dumps(_r)); del _r\n"
    )


def test_install_then_call_in_plain_python():  # type: ignore[no-untyped-def]
    body = "\n".join([
        "import json",
        "x = [1, 2, 3]; name_with_quote = \"it's\"",
        "before = None; before = sorted(globals())",
        install_code(),
        "print(json.dumps(sorted(globals()) == before))",
        evaluate(call_expression({"op": "ping"})),
        evaluate(call_expression({"op": "snapshot", "limit": 10})),
        evaluate(call_expression({"op": "detail", "name": "name_with_quote"})),
        evaluate(call_expression({"op": "detail", "name": "x'); import os; ('"})),
        install_code(),
        evaluate(call_expression({"op": "ping"})),
        "print(json.dumps(sorted(k for k in __import__('sys').modules if k.startswith('_jupyter_kernel_state_probe'))))",
    ])
    untouched, ping, snap, quoted, injection, ping2, modules = run_plain_python(body)
    assert untouched is True
    ping = parse_reply(ping)
    assert ping["ok"] is True and len(ping["probe_id"]) == 32 and ping["execution_count"] is None
    assert isinstance(ping["duration_ms"], float)
    snap = parse_reply(snap)
    assert [v["name"] for v in snap["variables"]] == ["before", "name_with_quote", "x"]
    assert parse_reply(quoted)["variable"]["preview"] == "\"it's\""
    assert parse_reply(injection)["bad_request"] is True
    assert parse_reply(ping2)["probe_id"] != ping["probe_id"]
    packages = {m.rsplit(".", 1)[0] for m in probe_loader.PROBE_MODULES if "." in m}
    expected = ["", *(f".{m}" for m in (*packages, *probe_loader.PROBE_MODULES))]
    assert modules == sorted(f"_jupyter_kernel_state_probe{m}" for m in expected)


def test_the_install_expression_installs_and_says_what_failed():  # type: ignore[no-untyped-def]
    """What the server sends (one user_expressions entry, compressed): it installs the probe
    as install_code does, leaves the namespace as it was, and a failure is its entry's
    error, named by install_error."""
    expression = probe_loader.install_expression()
    assert expression.isascii() and len(expression) < len(install_code()) / 2
    body = "\n".join([
        "import json",
        "before = None; before = sorted(globals())",
        evaluate(expression),
        "print(json.dumps(sorted(globals()) == before))",
        evaluate(call_expression({"op": "ping"})),
        evaluate(expression.replace("b64decode('eJ", "b64decode('AA", 1)),  # not zlib
    ])
    installed, untouched, ping, broken = run_plain_python(body)
    assert probe_loader.install_error(installed) is None and installed["data"] == {
        "text/plain": "None"}
    assert untouched is True
    assert parse_reply(ping)["ok"] is True
    assert (probe_loader.install_error(broken) or "").startswith("error: Error -3")
    assert probe_loader.install_error(None) == "the kernel did not evaluate the install expression"


def test_probe_missing_in_plain_python():  # type: ignore[no-untyped-def]
    (entry,) = run_plain_python("import json\n" + evaluate(call_expression({"op": "ping"})))
    with pytest.raises(ProbeMissing):
        parse_reply(entry)


PARSE_CASES = [
    pytest.param({"status": "ok", "data": {"text/plain": '{"ok": true}'}}, {"ok": True}, id="ok"),
    pytest.param({"status": "ok", "data": {}}, ProbeFailed, id="no-text"),
    pytest.param({"status": "ok", "data": {"text/plain": "<object>"}}, ProbeFailed, id="not-json"),
    pytest.param({"status": "ok", "data": {"text/plain": "[1]"}}, ProbeFailed, id="not-object"),
    pytest.param({"status": "error", "ename": "KeyError", "evalue": "'_jupyter_kernel_state_probe'"}, ProbeMissing, id="missing"),
    pytest.param({"status": "error", "ename": "AttributeError", "evalue": "x" * 1000, "traceback": ["secret"]}, ProbeFailed, id="error"),
    pytest.param({}, ProbeFailed, id="empty"),
]


@pytest.mark.parametrize("entry, expected", PARSE_CASES)
def test_parse_reply(entry, expected):  # type: ignore[no-untyped-def]
    if isinstance(expected, dict):
        assert parse_reply(entry) == expected
        return
    with pytest.raises(expected) as info:
        parse_reply(entry)
    assert "secret" not in str(info.value) and len(str(info.value)) <= 250


@pytest.mark.parametrize("name", ["x'); import os; ('", "a\\nb", "ｘ", "\u2028", "'" * 300])
def test_call_expression_never_splices_names(name):  # type: ignore[no-untyped-def]
    expression = call_expression({"op": "detail", "name": name})
    tree = ast.parse(expression, mode="eval")
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    (payload,) = set(strings) - {"sys", "_jupyter_kernel_state_probe"}
    assert len(strings) == 3
    assert set(payload) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=")
    assert expression.isascii()


def test_module_list_matches_the_package():  # type: ignore[no-untyped-def]
    files = {".".join(p.relative_to(PROBE_DIR).with_suffix("").parts) for p in PROBE_DIR.rglob("*.py")}
    modules = {m for m in files if m != "__init__" and not m.endswith(".__init__")}
    assert set(probe_loader.PROBE_MODULES) == modules
    assert len(probe_loader.PROBE_MODULES) == len(modules)
    assert probe_loader.PROBE_MODULES == probe.MODULES
    # every sub-package's __init__ is shipped with it
    packages = {m[: -len(".__init__")] for m in files if m.endswith(".__init__")}
    assert packages == {m.rsplit(".", 1)[0] for m in modules if "." in m}
    assert set(probe_loader.probe_sources()) == modules | {f"{p}.__init__" for p in packages} | {"__init__"}


@pytest.mark.parametrize("path", sorted(PROBE_DIR.rglob("*.py")), ids=lambda p: str(p.relative_to(PROBE_DIR)))
def test_probe_imports_only_the_standard_library(path):  # type: ignore[no-untyped-def]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                continue  # relative: another probe module
            names = [(node.module or "").split(".")[0]]
        else:
            continue
        for name in names:
            assert name in sys.stdlib_module_names, f"{path.name} imports {name}"


def test_install_code_is_read_from_package_resources():  # type: ignore[no-untyped-def]
    code = install_code()
    source = resources.files("jupyter_kernel_state.probe").joinpath("entry.py").read_text(encoding="utf-8")
    assert repr(source)[1:-1][:200] in code or source[:50] in code
    compile(code, "<install>", "exec")
