"""`jupyter kernel-state` run as a separate process against a running server."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys

import pytest

from jupyter_kernel_state.cli import build_parser

pytestmark = pytest.mark.kernel


@pytest.fixture
def server_url(jp_serverapp, jp_http_port, jp_base_url) -> str:  # type: ignore[no-untyped-def]
    return f"http://127.0.0.1:{jp_http_port}{jp_base_url}"


async def run_cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The CLI as a separate process; ``env`` replaces the server and token variables."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("JUPYTER_TOKEN", "JUPYTER_SERVER_URL")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "jupyter_kernel_state.cli", *args,
        env={**base, **(env or {})},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode(), err.decode()


@pytest.fixture
def cli(jp_serverapp, server_url):  # type: ignore[no-untyped-def]
    async def run(*args: str, token: str | None = None) -> tuple[int, str, str]:
        return await run_cli(
            "--url", server_url,
            "--token", token if token is not None else jp_serverapp.identity_provider.token,
            *args)

    return run


async def test_cli_commands(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})\nx = 42\n"
                     "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                     "plt.figure(figsize=(1, 1), dpi=30); plt.plot([1]); plt.show()")
    code, out, _ = await cli("kernels")
    assert code == 0 and kernel.kernel_id in out and "python" in out

    code, out, _ = await cli("variables")
    assert code == 0
    assert any(line.split()[:3] == ["df", "DataFrame", "2×1"] for line in out.splitlines())
    assert "1-2 of 2 variables, execution 1" in out

    code, out, _ = await cli("--json", "variables", "--kernel", kernel.kernel_id)
    assert json.loads(out)["total"] == 2
    # --json after the command too (mcp-config --json was a trap)
    code, out, _ = await cli("variables", "--json", "--kernel", kernel.kernel_id[:8])
    assert code == 0 and json.loads(out)["total"] == 2

    code, out, _ = await cli("inspect", "df")
    assert code == 0 and "columns: a:int64" in out

    code, out, _ = await cli("images")
    assert code == 0 and "image/png" in out

    code, out, _ = await cli("prompt", "--budget", "500")
    assert code == 0 and out.startswith("Kernel state — python") and "execution 1" in out
    assert len(out.rstrip("\n")) <= 500


async def test_cli_errors_are_clear(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    code, _, err = await cli("inspect", "missing", "--kernel", kernel.kernel_id)
    assert code == 1
    assert f"404: Variable not found: missing (in kernel {kernel.kernel_id})" in err
    code, _, err = await cli("kernels", token="wrong")
    assert code == 1 and "403: " in err
    assert "refused the request: the token sent (token from --token) is wrong, expired" in err
    assert "Pass the right token with --token or $JUPYTER_TOKEN" in err and "check --url" in err
    code, _, err = await cli("--kernel", kernel.kernel_id[:6], "inspect", "missing")
    assert code == 1 and f"(in kernel {kernel.kernel_id})" in err  # before the command too
    code, _, err = await cli("--kernel", "x", "mcp-config")
    assert code == 2 and "mcp-config reads no kernel" in err


async def test_cli_mcp_config_without_a_running_server_says_so(tmp_path):  # type: ignore[no-untyped-def]
    # Runtime files left by a server that is gone are not servers.
    gone = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await gone.wait()
    (tmp_path / f"jpserver-{gone.pid}.json").write_text(json.dumps(
        {"pid": gone.pid, "url": "http://localhost:8888/", "base_url": "/", "port": 8888,
         "token": "t"}))
    (tmp_path / f"jpserver-mcp-{gone.pid}.json").write_text(json.dumps(
        {"pid": gone.pid, "url": "http://127.0.0.1:3001/mcp", "port": 3001}))
    env = {k: v for k, v in os.environ.items()
           if k not in ("JUPYTER_TOKEN", "JUPYTER_SERVER_URL")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "jupyter_kernel_state.cli", "mcp-config",
        env={**env, "JUPYTER_RUNTIME_DIR": str(tmp_path)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1 and not out
    assert "no running Jupyter server with an MCP server found" in err.decode()


async def test_cli_says_which_server_and_token_it_used(  # type: ignore[no-untyped-def]
        jp_serverapp, server_url, new_kernel, tmp_path):
    await new_kernel()
    token = jp_serverapp.identity_provider.token

    # --url with $JUPYTER_TOKEN (the token was ignored with --url before)
    code, out, err = await run_cli("--url", server_url, "kernels", env={"JUPYTER_TOKEN": token})
    assert code == 0 and "python" in out
    assert f"using {server_url} (from --url; token from $JUPYTER_TOKEN)" in err

    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = await run_cli("--url", server_url, "kernels",
                                 env={"JUPYTER_RUNTIME_DIR": str(empty)})
    assert code == 1 and f"using {server_url} (from --url; no token)" in err and "403" in err
    assert "refused the request: no token was sent. Pass the right token" in err

    code, _, err = await run_cli("kernels", env={"JUPYTER_SERVER_URL": server_url,
                                                 "JUPYTER_TOKEN": token})
    assert code == 0 and "(from $JUPYTER_SERVER_URL; token from $JUPYTER_TOKEN)" in err

    code, _, err = await run_cli("--url", server_url, "--token", token, "kernels",
                                 env={"JUPYTER_TOKEN": "wrong"})
    assert code == 0 and "token from --token" in err

    # A running server found in the runtime directory (this process stands for it).
    runtime = tmp_path / "found"
    runtime.mkdir()
    port = int(server_url.split(":")[2].split("/")[0])
    base_url = "/" + server_url.split("/", 3)[3]
    (runtime / f"jpserver-{os.getpid()}.json").write_text(json.dumps(
        {"pid": os.getpid(), "url": server_url, "token": token, "root_dir": "/srv/notes",
         "port": port, "base_url": base_url}))
    code, out, err = await run_cli("kernels", env={"JUPYTER_RUNTIME_DIR": str(runtime)})
    assert code == 0 and "python" in out
    assert (f"using {server_url} (found running server, pid {os.getpid()}, serving "
            "/srv/notes; its token from its runtime file)") in err
    # --url alone: the token of the running server at that URL
    code, _, err = await run_cli("--url", server_url, "kernels",
                                 env={"JUPYTER_RUNTIME_DIR": str(runtime)})
    assert code == 0
    assert (f"(from --url; the token of server pid {os.getpid()} from its runtime file)"
            in err)
    code, _, err = await run_cli("kernels", env={"JUPYTER_RUNTIME_DIR": str(empty)})
    assert code == 1 and "no running Jupyter server found" in err


async def test_cli_masks_secrets_unless_revealed(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("api_key = 'abc-not-a-pattern-123'\nurl = 'https://u:hunter2@db.example/x'\n"
                     "n = 1")
    code, out, _ = await cli("variables")
    assert code == 0 and "abc-not-a-pattern" not in out and "hunter2" not in out
    assert any(line.split()[0] == "api_key" and line.endswith("[masked]")
               for line in out.splitlines())
    code, out, _ = await cli("inspect", "api_key")
    assert code == 0 and "abc-not-a-pattern" not in out and "[masked]" in out
    assert "--reveal" in out
    code, out, _ = await cli("inspect", "url")
    assert code == 0 and "hunter2" not in out
    code, out, _ = await cli("inspect", "api_key", "--reveal")
    assert code == 0 and "abc-not-a-pattern-123" in out and "[masked]" not in out


async def test_cli_detail_levels(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})\n"
                     "x = 42")
    code, out, _ = await cli("variables", "--detail", "names")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "TYPE", "KIND"]
    assert lines[1].split() == ["df", "DataFrame", "dataframe"]
    assert lines[2].split() == ["x", "int", "number"]

    code, out, _ = await cli("variables", "--detail", "schema")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["NAME", "TYPE", "SHAPE/SIZE", "DTYPE"]
    assert lines[1].split()[:3] == ["df", "DataFrame", "2×2"]

    code, _, err = await cli("variables", "--detail", "everything")
    assert code == 2 and "invalid choice" in err
    code, _, err = await cli("variables", "--sort", "size:sideways")
    assert code == 2 and "optionally with :asc or :desc" in err


async def test_cli_rows(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\n"
                     "sales = pd.DataFrame({'price': [3.5, 1.25, 2.0, None], 'units': [1, 2, 3, 4],"
                     " 'region': ['north', 'south', 'east', 'west']}, index=list('abcd'))\nx = 5")
    code, out, err = await cli("rows", "sales", "--limit", "2", "--offset", "1")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["price:float64", "units:int64"]
    assert lines[0].split()[2].startswith("region:")  # object or str (pandas 3)
    assert lines[1].split() == ["b", "1.25", "2", "south"]
    assert lines[2].split() == ["c", "2.0", "3", "east"]
    assert lines[3] == "rows 2-3 of 4"

    code, out, _ = await cli("rows", "sales", "--sort", "price:desc", "--columns", "0,2")
    lines = out.splitlines()
    assert [line.split() for line in lines[1:5]] == [
        ["a", "3.5", "north"], ["c", "2.0", "east"], ["b", "1.25", "south"], ["d", "null", "west"]]
    assert lines[5] == "rows 1-4 of 4, columns at 0-2 of 3; sorted by price:desc"

    code, out, _ = await cli("--json", "rows", "sales", "--limit", "1")
    assert code == 0 and json.loads(out)["rows"] == [["3.5", "1", "north"]]

    code, _, err = await cli("rows", "x")
    assert code == 1 and "400: " in err


async def test_cli_timeline(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import pandas as pd\nsales = pd.DataFrame({'price': range(100)})")
    await kernel.run("sales = sales[sales.price < 90]")
    await kernel.run("del sales")
    code, out, err = await cli("timeline", "sales")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("[1] new")
    assert lines[1].startswith("[2] modified") and "100 → 90" in lines[1]
    assert lines[2].startswith("[3] removed")
    assert lines[3] == ("defined in: [1] import pandas as pd · "
                        "[2] sales = sales[sales.price < 90] · [3] del sales (deleted)")
    assert lines[4] == "used in: [2] sales = sales[sales.price < 90]"
    assert lines[5] == "3 of 3 changes of sales; not bound now"
    code, out, _ = await cli("timeline", "sales", "--limit", "1")
    assert out.splitlines()[-1].startswith("1 of 3 changes")
    code, out, _ = await cli("--json", "timeline", "sales")
    assert json.loads(out)["total"] == 3


async def test_cli_schema_columns_memory_and_sort(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("import numpy as np, pandas as pd\n"
                     "df = pd.DataFrame({'a': [1, 2], 'b': [0.5, 1.5]})\n"
                     "big = np.zeros(1_000_000)\nsmall = 1")
    code, out, _ = await cli("variables", "--detail", "schema")
    assert code == 0
    [df] = [line for line in out.splitlines() if line.startswith("df ")]
    assert df.endswith("a:int64, b:float64")
    [big] = [line for line in out.splitlines() if line.startswith("big ")]
    assert "7.6 MiB" in big and "MB" not in big  # 8,000,000 bytes in binary units
    code, out, _ = await cli("variables", "--sort", "memory:desc")
    assert code == 0 and [line.split()[0] for line in out.splitlines()[1:4]] == [
        "big", "df", "small"]
    assert out.splitlines()[0].split()[3] == "MEMORY"
    code, out, _ = await cli("variables", "--sort", "name:desc")
    assert [line.split()[0] for line in out.splitlines()[1:4]] == ["small", "df", "big"]


# Two kernels whose ids share a prefix, each a notebook's (a session with a path).
SHARED_PREFIX = "c0ffee00-"
FIRST_ID = SHARED_PREFIX + "1111-4111-8111-111111111111"
SECOND_ID = SHARED_PREFIX + "2222-4222-8222-222222222222"


@pytest.fixture
def notebook_kernel(jp_serverapp, jp_fetch, user_client):  # type: ignore[no-untyped-def]
    """Starts a python3 kernel with the given id for a notebook at ``path`` (a session, as
    JupyterLab makes one) and connects a notebook-like client to it."""

    async def start(path: str, kernel_id: str) -> object:
        await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3",
                                                       kernel_id=kernel_id)
        await jp_fetch("api", "sessions", method="POST", body=json.dumps({
            "path": path, "type": "notebook", "name": path.rsplit("/", 1)[-1],
            "kernel": {"id": kernel_id}}))
        return await user_client(kernel_id)

    return start


async def test_cli_names_the_kernel_it_reads_and_takes_id_prefix_or_path(  # type: ignore[no-untyped-def]
        cli, notebook_kernel):
    first = await notebook_kernel("reports/sales.ipynb", FIRST_ID)
    second = await notebook_kernel("drafts/sales.ipynb", SECOND_ID)
    code, out, _ = await cli("kernels")
    assert out.splitlines()[-1].endswith("(the first listed: no cell has run in any)")
    await first.run("import pandas as pd\nsales = pd.DataFrame({'price': [1.5, 2.5]})")
    await second.run("notes = 'draft'")  # the most recent: a cell ran there last

    code, out, err = await cli("kernels")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["KERNEL", "PATH", "LANGUAGE", "STATE", "EXEC", "VARIABLES",
                                "IMAGES"]
    rows = {line.split()[0]: line.split()[1] for line in lines[1:3]}
    assert rows == {FIRST_ID: "reports/sales.ipynb", SECOND_ID: "drafts/sales.ipynb"}
    assert lines[3] == (f"without --kernel, commands read {SECOND_ID} (drafts/sales.ipynb) "
                        "(the kernel a cell last ran in)")
    code, out, _ = await cli("--json", "kernels")
    assert {k["kernel_id"]: k["path"] for k in json.loads(out)["kernels"]} == {
        FIRST_ID: "reports/sales.ipynb", SECOND_ID: "drafts/sales.ipynb"}

    # Not named: the most recent, said on stderr with how to pick another. The user's
    # trap: `rows sales` read the other notebook's kernel and answered a bare 404.
    code, _, err = await cli("rows", "sales")
    assert code == 1
    assert (f"kernel {SECOND_ID} (drafts/sales.ipynb); the one a cell last ran in, of 2 "
            "running; pick another with --kernel ID, ID prefix or notebook path") in err
    assert (f"404: Variable not found: sales (in kernel {SECOND_ID} (drafts/sales.ipynb))"
            in err)

    for which in ("reports/sales.ipynb", "/reports/sales.ipynb", FIRST_ID,
                  FIRST_ID[:len(SHARED_PREFIX) + 1]):
        code, out, err = await cli("rows", "sales", "--kernel", which)
        assert code == 0, (which, err)
        assert out.splitlines()[-1] == "rows 1-2 of 2"
        assert f"kernel {FIRST_ID} (reports/sales.ipynb)\n" in err
        assert "pick another" not in err  # named: nothing was chosen for the user

    # A shared prefix or notebook name: an error naming the candidates, nothing read.
    for which, rule in ((SHARED_PREFIX[:4], "id prefix"), ("sales.ipynb", "notebook name")):
        code, out, err = await cli("variables", "--kernel", which)
        assert code == 1 and not out
        assert f"{which!r} is the {rule} of 2 kernels: " in err
        assert f"{FIRST_ID} (reports/sales.ipynb)" in err
        assert f"{SECOND_ID} (drafts/sales.ipynb)" in err
    code, _, err = await cli("timeline", "sales", "--kernel", "nowhere.ipynb")
    assert code == 1 and ("no running kernel has the id, id prefix or notebook path "
                          "'nowhere.ipynb'; running: ") in err and FIRST_ID in err

    # Every kernel command takes --kernel.
    for command in (["variables"], ["inspect", "sales"], ["rows", "sales"],
                    ["timeline", "sales"], ["images"], ["prompt"]):
        code, _, err = await cli(*command, "--kernel", "reports/sales.ipynb")
        assert code == 0, (command, err)
        assert f"kernel {FIRST_ID} (reports/sales.ipynb)" in err
    code, out, _ = await cli("kernels", "--kernel", "drafts/sales.ipynb")
    assert [line.split()[0] for line in out.splitlines()[1:]] == [SECOND_ID]

    # The old positional kernel id still works, with a warning.
    code, out, err = await cli("variables", FIRST_ID)
    assert code == 0 and out.splitlines()[1].split()[0] == "sales"
    assert f"deprecated; use --kernel {FIRST_ID}" in err
    code, _, err = await cli("variables", FIRST_ID, "--kernel", SECOND_ID)
    assert code == 1 and "two kernels given" in err


async def test_cli_numbers_units_and_unknown_counts(  # type: ignore[no-untyped-def]
        cli, new_kernel, jp_fetch):
    kernel = await new_kernel()
    code, out, _ = await cli("kernels")
    [row] = out.splitlines()[1:]
    assert row.split()[4] == "-" and "None" not in row  # no cell yet: no execution count

    await kernel.run("import numpy as np\n"
                     "globals().update({f'v{i:04d}': i for i in range(1_200)})\n"
                     "big = np.zeros(1_500_000, dtype=np.int8)\n"
                     "ids = list(range(1_234_567))\n"
                     "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                     "plt.figure(figsize=(1, 1), dpi=30); plt.plot([1]); plt.show()")
    code, out, _ = await cli("variables", "--offset", "1000", "--limit", "300",
                             "--sort", "name")
    assert code == 0
    assert out.splitlines()[-1] == "1,001-1,202 of 1,202 variables, execution 1"
    code, out, _ = await cli("variables", "--detail", "schema", "--filter", "big")
    code, data, _ = await cli("--json", "variables", "--detail", "schema", "--filter", "big")
    memory = json.loads(data)["variables"][0]["memory"]
    assert 1_500_000 <= memory < 1_600_000
    assert out.splitlines()[1].split()[2:6] == [
        "1,500,000", "int8", f"{memory / 1024 ** 2:.1f}", "MiB"]
    code, out, _ = await cli("variables", "--filter", "ids")
    assert out.splitlines()[1].split()[:3] == ["ids", "list", "1,234,567"]
    assert out.splitlines()[-1] == "1-1 of 1 matching (1,202 variables), execution 1"
    code, out, _ = await cli("kernels")
    assert out.splitlines()[1].split()[4:] == ["1", "1,202", "1"]
    code, out, _ = await cli("images")
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "EXEC", "MIME", "PIXELS", "SIZE"]
    assert re.fullmatch(r"\S+\s+1\s+image/png\s+\d+×\d+\s+[\d,.]+ (B|KiB)", lines[1])
    assert lines[2].startswith("1 listed of 1 images kept; next --since ")

    await kernel.restart(jp_fetch)
    code, out, _ = await cli("kernels")
    [row] = out.splitlines()[1:]
    assert row.split()[4] == "-" and "None" not in out  # the count starts again
    code, out, _ = await cli("--json", "kernels")
    assert json.loads(out)["kernels"][0]["execution_count"] is None


def test_every_option_says_what_it_does_and_its_default() -> None:
    parser = build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(commands.choices) == {"kernels", "variables", "inspect", "rows", "count",
                                     "profile", "code", "compare", "timeline", "images",
                                     "prompt", "mcp-config", "mcp-proxy"}
    for name, command in commands.choices.items():
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            where = f"{name} {'/'.join(action.option_strings) or action.dest}"
            assert action.help and action.help != argparse.SUPPRESS, where
            takes_value = action.nargs != 0 and not action.required and action.option_strings
            if takes_value and action.dest != "kernel_positional":
                assert "default" in action.help, where
        if name not in ("kernels", "mcp-config", "mcp-proxy"):
            assert any(a.option_strings == ["--kernel"] for a in command._actions), name
    prompt = " ".join(commands.choices["prompt"].format_help().split())
    assert "in characters (about 4 per token), 200 to 200,000 (default 6,000)" in prompt
    assert "since this generation, the count of executions" in prompt
    assert "the last STEPS executions (code and output)" in prompt


async def test_cli_kernels_reads_the_count_nobody_listed_yet(  # type: ignore[no-untyped-def]
        cli, new_kernel):
    kernel = await new_kernel()
    await kernel.run("a = 1\nb = 2\n_hidden = 3")  # nobody has listed its variables
    code, out, _ = await cli("--json", "kernels")
    assert json.loads(out)["kernels"][0]["variables_total"] is None  # the server's own JSON
    code, out, err = await cli("kernels")
    assert code == 0, err
    [row] = out.splitlines()[1:]
    assert row.split()[4:] == ["1", "2", "0"]  # asked: 2 public names
    code, out, _ = await cli("--json", "kernels")
    assert json.loads(out)["kernels"][0]["variables_total"] == 2  # and the server keeps it


async def test_cli_kernels_says_which_count_it_could_not_read(  # type: ignore[no-untyped-def]
        cli, new_kernel):
    kernel = await new_kernel()
    kernel.submit("import time; time.sleep(3); y = 1")
    await kernel.wait_busy()  # busy: the count is not asked for (never queued behind a cell)
    requests_before = kernel.state.probe_requests
    code, out, err = await cli("kernels")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].split()[3:] == ["busy", "1", "?", "0"]
    assert lines[2] == f"?: variables not read yet in {kernel.kernel_id} (the kernel is busy)"
    assert kernel.state.probe_requests == requests_before
    await kernel.wait_generation(1)
    code, out, _ = await cli("kernels")
    assert out.splitlines()[1].split()[3:] == ["idle", "1", "1", "0"]


async def test_cli_variables_says_what_changed_as_the_row_does(  # type: ignore[no-untyped-def]
        cli, new_kernel):
    kernel = await new_kernel()
    await kernel.run("config = {'depth': 6, 'lr': 0.1}\nsteps = [1, 2]\nkept = 1")
    await kernel.run("config['depth'] = 8\nsteps = list(range(90))")
    code, out, err = await cli("variables")
    assert code == 0, err
    lines = {line.split()[0]: line for line in out.splitlines()[1:4]}
    change = out.splitlines()[0].index("CHANGE")
    assert lines["config"][change:].startswith("depth 6 → 8 ")
    assert lines["steps"][change:].startswith("len 2 → 90 ")
    assert lines["kept"][change:].startswith("unchanged ")


SALES = ("import pandas as pd\n"
         "sales = pd.DataFrame({'price': [3.5, 1.25, 2.0, None], 'units': [1, 2, 3, 4],"
         " 'region': ['north', 'south', 'north', 'west'], 'ok': [True, False, True, True]})\n"
         "x = 5")


async def test_cli_profile(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SALES)
    code, out, err = await cli("profile", "sales")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["COLUMN", "DTYPE", "PRESENT", "MISSING", "MIN", "MEDIAN",
                                "MEAN", "MAX", "STD", "VALUES"]
    assert lines[1].split() == ["price", "float64", "3", "1", "1.25", "2", "2.25", "3.5",
                                "1.14564"]
    assert lines[2].split() == ["units", "int64", "4", "0", "1", "2.5", "2.5", "4", "1.29099"]
    assert lines[3].split()[2:] == ["4", "0", "3", "distinct;", "north", "2,", "south", "1,",
                                    "west", "1"]
    assert lines[4].split() == ["ok", "bool", "4", "0", "true", "3,", "false", "1"]
    assert lines[5] == "4 of 4 columns of sales (DataFrame), 4 rows"

    where = '{"column": "region", "op": "eq", "value": "north"}'
    code, out, _ = await cli("profile", "sales", "--columns", "0,2", "--filter", where)
    lines = out.splitlines()
    assert [line.split()[:4] for line in lines[1:3]] == [["price", "float64", "2", "0"],
                                                          ["region", lines[2].split()[1], "2",
                                                           "0"]]
    assert lines[3] == "2 of 4 columns of sales (DataFrame), 2 matching (4) rows"

    code, out, _ = await cli("--json", "profile", "sales", "--columns", "1")
    data = json.loads(out)
    assert [c["name"] for c in data["columns"]] == ["units"] and data["total_rows"] == 4

    code, _, err = await cli("profile", "x")
    assert code == 1 and "400: " in err and "x" in err
    code, _, err = await cli("profile", "sales", "--columns", "seven")
    assert code == 1 and "400: " in err and "columns" in err
    code, _, err = await cli("profile", "sales", "--filter", "{not json")
    assert code == 1 and "400: " in err and "filter" in err
    code, _, err = await cli("profile", "missing")
    assert code == 1 and "404: Variable not found: missing" in err
    code, _, err = await cli("profile", "sales", "--budget-ms", "soon")
    assert code == 2 and "invalid int value" in err


async def test_cli_code(cli, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(SALES)
    where = '{"column": "units", "op": "gt", "value": 1}'
    code, out, err = await cli("code", "sales", "--sort", "price:desc", "--filter", where,
                               "--columns", "0,2")
    assert code == 0, err
    assert out == (
        'sales_view = sales[sales["units"].notna() & (sales["units"] > 1)]\n'
        'sales_view = sales_view.sort_values(["price"], ascending=[False], kind="stable", '
        'na_position="last")\n'
        'sales_view = sales_view[["price", "region"]]\n')
    # The code, run in the kernel, gives the view asked for.
    reply = await kernel.run(out + "assert sales_view.index.tolist() == [2, 1, 3]\n"
                             "assert sales_view.columns.tolist() == ['price', 'region']")
    assert reply["status"] == "ok", reply

    code, out, _ = await cli("--json", "code", "sales")
    data = json.loads(out)
    assert data == {"syntax": "pandas", "code": "sales_view = sales\n", "name": "sales",
                    "view": {"sort": [], "filter": None, "columns": None}}
    code, out, err = await cli("code", "sales", "--syntax", "polars")
    assert code == 1 and not out
    assert "400: polars code is for polars values; sales is a DataFrame: ask for pandas" in err

    code, _, err = await cli("code", "sales", "--syntax", "cobol")
    assert code == 2 and "invalid choice: 'cobol'" in err
    code, _, err = await cli("code", "sales", "--sort", "nowhere:desc")
    assert code == 1 and "400: " in err and "nowhere" in err
    code, _, err = await cli("code", "x")
    assert code == 1 and "x" in err and ("400: " in err or "409: " in err)


def test_a_dimension_not_counted_is_a_question_mark() -> None:
    from jupyter_kernel_state.cli_views import _shape

    assert _shape({"shape": [None, 3]}) == "?×3"  # an engine's table, rows not counted
    assert _shape({"shape": [100_000, 8]}) == "100,000×8"
    assert _shape({"shape": None, "size": 1_234}) == "1,234"
