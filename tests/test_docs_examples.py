"""The examples of README.md and docs/*.md run, as written, against a real server.

Every fenced ``python``, ``bash``/``sh``/``shell`` and ``console`` block is run unless the
line before it (blank lines aside) is an HTML comment ``<!-- not-run: <reason> -->``:
install commands, servers that keep running, hub or gateway setups. The blocks run in
separate processes against one real jupyter_server (with this extension and
jupyter-server-mcp) and one real kernel, the kernel of a notebook ``analysis.ipynb`` whose
cells made the variables the docs talk about (``sales``, ``nested``, ``n``, ``tmp``, a
plot). The processes see what a reader has: this venv's ``bin`` on ``PATH``, the server's
runtime files in Jupyter's runtime directory (so ``jupyter kernel-state`` finds it), and
``$JUPYTER_SERVER_URL`` and ``$JUPYTER_TOKEN`` as docs/rest-api.md asks to export them.

- Python blocks of one file run in order in one namespace (a later block uses what an
  earlier one made), in one process per file.
- A Python block that only sets ``c.<Class>.<trait>`` (or starts with
  ``# jupyter_server_config.py``) is a config file: it is loaded as Jupyter loads one and
  each value is checked against the class's trait.
- Shell blocks run with ``bash -e -o pipefail``, each in a fresh directory; in a ``console``
  block the lines after ``$ `` are the commands.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

pytestmark = pytest.mark.kernel
fastmcp = pytest.importorskip("fastmcp")  # mcp.md's examples need jupyter-server-mcp

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PYTHON = {"python", "py", "python3"}
SHELL = {"bash", "sh", "shell", "console"}
NOT_RUN = re.compile(r"<!--\s*not-run\b:?\s*(.*?)\s*-->")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)[^`]*$")
#: Seconds a block (or a file's Python blocks) may take: a guard against a hang only.
SHELL_TIMEOUT_S = 180
PYTHON_TIMEOUT_S = 300
NOTEBOOK = "analysis.ipynb"
# What the notebook's cells made: the docs' examples read these.
SETUP_CELL = """\
import numpy as np, pandas as pd
rng = np.random.default_rng(0)
n = 100_000
sales = pd.DataFrame({"region": rng.choice(["north", "south", "east", "west"], n),
                      "units": rng.integers(1, 50, n), "price": rng.uniform(1, 500, n).round(2)})
nested = {"a": [1, 2, 3], "b": {"c": 4}}
tmp = "scratch"
%matplotlib inline
import matplotlib.pyplot as plt
plt.figure(figsize=(2, 2), dpi=40); plt.plot(sales.price[:50]); plt.show()
del rng
"""
# Runs one file's Python blocks in order, in one namespace.
RUNNER = """\
import json, sys, traceback
namespace = {"__name__": "__main__"}
for block in json.load(sys.stdin):
    print(f"=== {block['where']}", flush=True)
    try:
        exec(compile(block["code"], block["where"], "exec"), namespace)
    except BaseException:
        traceback.print_exc()
        sys.exit(1)
"""


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, from 1
    language: str
    code: str
    not_run: str | None  # the reason, when marked

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def kind(self) -> str | None:
        if self.language in PYTHON:
            return "config" if _is_config(self.code) else "python"
        return "shell" if self.language in SHELL else None


def extract_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file (indented ones in lists too), each with the
    reason of the not-run comment before it, if any."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        body, j = [], i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                break
            line = lines[j]
            body.append(line[min(indent, len(line) - len(line.lstrip())):])  # the fence's indent
            j += 1
        before = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        marked = NOT_RUN.fullmatch(before)
        blocks.append(Block(path, i + 1, opening["info"].lower(), "\n".join(body) + "\n",
                            None if marked is None else marked.group(1)))
        i = j + 1
    return blocks


def _is_config(code: str) -> bool:
    statements = [line for line in code.splitlines()
                  if line.strip() and not line.lstrip().startswith("#")]
    return code.startswith("# jupyter_server_config.py") or (bool(statements) and all(
        re.match(r"c\.\w+\.\w+\s*=", line) for line in statements))


def _console_commands(code: str) -> str:
    """The commands of a console transcript: the lines after ``$ `` (and their
    continuation lines); the rest is output."""
    commands, continuing = [], False
    for line in code.splitlines():
        if continuing or line.startswith("$ "):
            command = line if continuing else line[2:]
            commands.append(command)
            continuing = command.endswith("\\")
    return "\n".join(commands) + "\n"


def all_blocks() -> list[Block]:
    return [block for path in DOCS for block in extract_blocks(path)]


def runnable(kind: str) -> list[Block]:
    return [b for b in all_blocks() if b.kind == kind and b.not_run is None]


# --- no server needed ---------------------------------------------------------------------


def test_the_examples_are_found_and_every_not_run_says_why() -> None:
    blocks = all_blocks()
    for block in blocks:
        assert block.not_run != "", f"{block.where}: not-run without a reason"
    # README's CLI example sits in a list item: an indented fence.
    assert any(b.path.name == "README.md" and b.kind == "shell" and b.not_run is None
               and b.code.startswith("jupyter kernel-state kernels") for b in blocks)
    assert len(runnable("python")) >= 4 and len(runnable("shell")) >= 5
    assert len(runnable("config")) >= 2


def test_the_extractor_on_markdown_it_must_read(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "Text\n\n<!-- not-run: installs things -->\n\n```bash\npip install x\n```\n\n"
        "- a list\n\n  ```python\n  x = 1\n  if x:\n      print(x)\n  ```\n\n"
        "````text\n```python\nnot a block\n```\n````\n\n"
        "<!-- not-run -->\n```sh\nrm -rf nothing\n```\n\n```console\n$ echo a \\\n  b\nout\n```\n")
    blocks = extract_blocks(doc)
    assert [(b.line, b.language, b.not_run) for b in blocks] == [
        (5, "bash", "installs things"), (11, "python", None), (17, "text", None),
        (24, "sh", ""), (28, "console", None)]
    assert blocks[1].code == "x = 1\nif x:\n    print(x)\n"
    assert blocks[2].code == "```python\nnot a block\n```\n"
    assert _console_commands(blocks[4].code) == "echo a \\\n  b\n"
    assert _is_config("# jupyter_server_config.py\nc.A.b = 1\n") and _is_config("c.A.b = 1\n")
    assert not _is_config("c = 1\nprint(c)\n")


def _configurable(name: str) -> Any:
    from jupyter_server.gateway.gateway_client import GatewayClient
    from jupyter_server.serverapp import ServerApp

    from jupyter_kernel_state.app import KernelStateApp
    from jupyter_kernel_state.mcp_auth import KernelStateMCPAuth

    classes = {cls.__name__: cls for cls in (KernelStateApp, KernelStateMCPAuth, ServerApp,
                                              GatewayClient)}
    assert name in classes, f"no configurable class {name} (known: {', '.join(classes)})"
    return classes[name]


@pytest.mark.parametrize("block", runnable("config"), ids=lambda b: b.where)
def test_config_examples_set_real_traits(block: Block, tmp_path: Path) -> None:
    (tmp_path / "jupyter_server_config.py").write_text(block.code)
    config = PyFileConfigLoader("jupyter_server_config.py", path=str(tmp_path)).load_config()
    assert config, f"{block.where}: sets nothing"
    for section, values in config.items():
        cls = _configurable(section)
        traits = cls.class_traits(config=True)
        unknown = set(values) - set(traits)
        assert not unknown, f"{block.where}: {section} has no trait {', '.join(unknown)}"
        try:
            configured = cls(config=Config({section: values}))  # a bad value raises
        except TypeError:  # built with more than a config (KernelStateMCPAuth: the server)
            configured = None
        for name, value in values.items():
            if configured is None:
                traits[name].validate(None, value)  # a bad value raises
            else:
                assert getattr(configured, name) == value, f"{block.where}: {section}.{name}"


def test_the_docs_list_every_mcp_tool() -> None:
    from jupyter_kernel_state.mcp_server import TOOL_SPECS

    tools = [spec.rsplit(":", 1)[1] for spec in TOOL_SPECS]
    for doc in ("README.md", "docs/mcp.md", "docs/assistants.md"):
        text = (ROOT / doc).read_text()
        missing = [tool for tool in tools if f"`{tool}" not in text]
        assert not missing, f"{doc} does not name the MCP tools {missing}"
    assert "ten tools" in (ROOT / "docs/mcp.md").read_text() and len(tools) == 10


# --- against a real server and kernel -----------------------------------------------------


@pytest.fixture
def jp_server_config() -> Config:
    return Config({
        "ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True,
                                              "jupyter_server_mcp": True}},
        "KernelStateApp": {"probe_timeout": 5.0},
        "MCPExtensionApp": {"mcp_port": 0},
        "KernelStateMCPAuth": {"validation_timeout": 30.0},  # a loaded machine is slow
    })


@pytest.fixture
def reader_env(jp_serverapp, http_server, jp_http_port, jp_base_url, jp_root_dir,  # type: ignore[no-untyped-def]
               jp_runtime_dir) -> dict[str, str]:
    """The environment of a reader of the docs: the server's runtime file where the CLI
    looks (this process is the server), its URL and token exported, this venv first on
    PATH and this checkout's package first on the import path."""
    url = f"http://127.0.0.1:{jp_http_port}{jp_base_url}"
    token = jp_serverapp.identity_provider.token
    (Path(jp_runtime_dir) / f"jpserver-{os.getpid()}.json").write_text(json.dumps({
        "pid": os.getpid(), "url": url, "token": token, "port": jp_http_port,
        "base_url": jp_base_url, "root_dir": str(jp_root_dir), "secure": False}))
    env = dict(os.environ)
    env.update({
        "JUPYTER_RUNTIME_DIR": str(jp_runtime_dir), "JUPYTER_SERVER_URL": url,
        "JUPYTER_TOKEN": token, "MPLBACKEND": "Agg",
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        "PYTHONPATH": os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    })
    return env


async def _run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float,
               stdin: bytes | None = None) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, cwd=cwd, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await asyncio.wait_for(process.communicate(stdin), timeout)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        return -1, f"no end within {timeout} s"
    return process.returncode or 0, out.decode(errors="replace")


async def test_the_examples_run(  # type: ignore[no-untyped-def]
        jp_serverapp, jp_fetch, user_client, reader_env, tmp_path):
    # The server's MCP server (the test server does not start it by itself).
    await jp_serverapp.extension_manager.start_extension("jupyter_server_mcp")
    created = await jp_fetch("api", "sessions", method="POST", body=json.dumps({
        "path": NOTEBOOK, "type": "notebook", "name": NOTEBOOK,
        "kernel": {"name": "python3"}}))
    kernel = await user_client(json.loads(created.body)["kernel"]["id"])
    reply = await kernel.run(SETUP_CELL)
    assert reply["status"] == "ok", reply

    failures = []
    by_file: dict[Path, list[Block]] = {}
    for block in runnable("python"):
        by_file.setdefault(block.path, []).append(block)
    for path, blocks in by_file.items():
        work = tmp_path / f"py-{path.stem}"
        work.mkdir()
        code, out = await _run(
            [sys.executable, "-c", RUNNER], reader_env, work, PYTHON_TIMEOUT_S,
            json.dumps([{"where": b.where, "code": b.code} for b in blocks]).encode())
        print(f"##### {path.relative_to(ROOT)}, Python blocks: exit {code}\n{out}")
        if code != 0:
            failures.append(f"{path.relative_to(ROOT)} (Python blocks):\n{out[-3000:]}")
    for block in runnable("shell"):
        work = tmp_path / f"sh-{block.path.stem}-{block.line}"
        work.mkdir()
        script = _console_commands(block.code) if block.language == "console" else block.code
        code, out = await _run(["bash", "-e", "-o", "pipefail", "-c", script], reader_env,
                               work, SHELL_TIMEOUT_S)
        print(f"##### {block.where}: exit {code}\n{out}")
        if code != 0 or "Traceback (most recent call last)" in out:
            failures.append(f"{block.where} (exit {code}):\n{out[-3000:]}")
    assert not failures, "examples that do not run:\n\n" + "\n\n".join(failures)
