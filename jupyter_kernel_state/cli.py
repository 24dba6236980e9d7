"""`jupyter kernel-state`: the REST API from a terminal or a script.

Talks to a running Jupyter server through :class:`~jupyter_kernel_state.client.
KernelStateClient`, by URL and token: ``--url`` (or ``$JUPYTER_SERVER_URL``, or the first
running server found in Jupyter's runtime directory) and ``--token`` (or ``$JUPYTER_TOKEN``,
or the found server's own token). Every command that reads a kernel takes ``--kernel`` (an
id, a prefix of ids only one kernel has, or a notebook path), else reads the kernel a cell
last ran in. It says on stderr which server and which kernel it used.
Standard library only, so it works from any environment that has the package.
`mcp-config` reads Jupyter's runtime directory instead: it prints, for the running servers,
the URL of their MCP server (jupyter-server-mcp) and a client configuration with the token;
`mcp-proxy` (which needs jupyter-server-mcp) serves that MCP server on stdio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from .cli_views import (
    CLIError,
    cmd_code,
    cmd_compare,
    cmd_count,
    cmd_images,
    cmd_inspect,
    cmd_kernels,
    cmd_profile,
    cmd_prompt,
    cmd_rows,
    cmd_timeline,
    cmd_variables,
)
from .client import (
    DETAILS,
    KernelStateClient,
    KernelStateClientError,
    discover_server,
    kernel_label,
    pick_kernel,
    running_servers,
    runtime_files,
    same_server,
)
from .errors import InvalidRequest
from .rest import ROUTES
from .service.limits import Limits

SORT = ROUTES["variables"].param("sort")


def _sort(text: str) -> str:
    """A snapshot's order, read as the server reads it (the route table's ``sort``)."""
    try:
        return str(SORT.read(text, Limits()))
    except InvalidRequest:
        raise argparse.ArgumentTypeError(
            f"{text!r}: one of {', '.join(SORT.choices)}, optionally with :asc or :desc"
        ) from None


MCP_FORMATS = ("json", "claude", "codex", "stdio")


def _mcp_servers(url: str | None) -> list[dict[str, Any]]:
    """Running Jupyter servers that serve MCP, paired with their MCP runtime files by pid."""
    # jupyter-server-mcp's runtime files (jupyter_server_mcp.runtime) carry the MCP URL.
    mcp_by_pid = {info["pid"]: info for info in runtime_files(r"jpserver-mcp-(\d+)\.json")
                  if isinstance(info.get("url"), str)}
    servers = [{"server": info, "mcp": mcp_by_pid[info["pid"]]}
               for info in running_servers() if info.get("pid") in mcp_by_pid]
    if url:
        servers = [s for s in servers if same_server(url, s["server"])]
        if not servers:
            raise CLIError(f"no running Jupyter server with an MCP server at {url}")
    if not servers:
        raise CLIError("no running Jupyter server with an MCP server found (is "
                       "jupyter-server-mcp enabled?)")
    return servers


def _mcp_snippet(fmt: str, name: str, url: str, token: str, server_url: str) -> str:
    if fmt == "stdio":  # no port and no token in the file: `mcp-proxy` reads them at start
        return json.dumps({"mcpServers": {name: {
            "command": sys.executable,
            "args": ["-m", "jupyter_kernel_state.cli", "--url", server_url, "mcp-proxy"],
        }}}, indent=2)
    if fmt == "claude":
        return (f"claude mcp add --transport http {shlex.quote(name)} {shlex.quote(url)} "
                f"--header {shlex.quote(f'Authorization: token {token}')}")
    if fmt == "codex":
        key = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)
        return (f"# ~/.codex/config.toml (export JUPYTER_TOKEN={token} before starting Codex)\n"
                f"[mcp_servers.{key}]\nurl = {json.dumps(url)}\n"
                f'bearer_token_env_var = "JUPYTER_TOKEN"')
    return json.dumps({"mcpServers": {name: {
        "type": "http", "url": url, "headers": {"Authorization": f"token {token}"},
    }}}, indent=2)


def cmd_mcp_config(args: argparse.Namespace) -> str:
    """The MCP URL of each running server, and a client configuration to paste."""
    url = args.url or os.environ.get("JUPYTER_SERVER_URL")
    token_override = args.token or os.environ.get("JUPYTER_TOKEN")
    entries = []
    for pair in _mcp_servers(url):
        server, mcp = pair["server"], pair["mcp"]
        token = token_override or server.get("token") or ""
        entries.append({
            "server_url": server.get("url"),
            "pid": server.get("pid"),
            "root_dir": server.get("root_dir"),
            "mcp_url": mcp["url"],
            "headers": {"Authorization": f"token {token or '<token>'}"},
            "token_known": bool(token),
        })
    if args.json:
        return json.dumps(entries, indent=2)
    blocks = []
    for entry in entries:
        lines = [f"# Jupyter server {entry['server_url']} (pid {entry['pid']}, "
                 f"serving {entry['root_dir']})",
                 f"# MCP URL: {entry['mcp_url']}"]
        if not entry["token_known"]:
            lines.append("# The server's token is not in its runtime file (password or hub "
                         "login?): pass --token or set $JUPYTER_TOKEN.")
        lines.append(_mcp_snippet(args.format, args.name, entry["mcp_url"],
                                  entry["headers"]["Authorization"].split(" ", 1)[1],
                                  entry["server_url"]))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def cmd_mcp_proxy(args: argparse.Namespace) -> None:
    """Serve MCP on stdio, forwarding to a running server's MCP server with its token.

    For clients that start a command: their configuration never holds a port or a token,
    both read at start from the runtime files (private to the user). The server is the one
    given by --url, else the one whose root directory most specifically contains the working
    directory (as ``python -m jupyter_server_mcp.proxy`` picks it; that proxy sends no token).
    """
    import asyncio
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, force=True)
    url = args.url or os.environ.get("JUPYTER_SERVER_URL")
    servers = _mcp_servers(url)
    pair = servers[0]  # with --url, the only match
    try:
        from fastmcp.client.transports import StreamableHttpTransport
        from fastmcp.server import create_proxy
        from jupyter_server_mcp.proxy import ProxyError, select_server
    except ImportError:
        raise CLIError("mcp-proxy needs jupyter-server-mcp in this environment") from None
    if not url:
        try:
            chosen = select_server([pair["mcp"] for pair in servers], Path.cwd().resolve())
        except ProxyError as e:
            raise CLIError(str(e)) from None
        pair = next(p for p in servers if p["mcp"] is chosen)
    token = args.token or os.environ.get("JUPYTER_TOKEN") or pair["server"].get("token")
    if not token:
        raise CLIError("the server's token is not in its runtime file: pass --token or set "
                       "$JUPYTER_TOKEN")

    proxy = create_proxy(StreamableHttpTransport(
        pair["mcp"]["url"], headers={"Authorization": f"token {token}"}))
    asyncio.run(proxy.run_async(transport="stdio", show_banner=False))


FILTER_HELP = ('only the rows this filter keeps, as JSON: a condition like \'{"column": '
               '"price", "op": "gt", "value": 10}\' or a tree {"and": [...]} / {"or": [...]} '
               "(see docs/rest-api.md#filters; default: every row)")
KERNEL_HELP = ("the kernel to read: its id, a prefix of ids only it has, or its notebook or "
               "console path (whole, or its end such as sales.ipynb); default: the kernel "
               "a cell last ran in, named on stderr")
# Commands that read one kernel (all but `kernels` and the MCP ones).
KERNEL_COMMANDS = ("variables", "inspect", "rows", "count", "profile", "code", "compare",
                   "timeline", "images", "prompt")
COLUMNS_HELP = "column positions from 0: start:stop (stop excluded) or a list like 0,3,7"
BUDGET_HELP = ("time (ms) the request may spend in the kernel when the server's guards are "
               "too short for it (a huge engine table), up to the server's "
               "max_request_budget_ms, 60,000 (default: the server's guards)")


def _global_options(parser: argparse.ArgumentParser, after_command: bool) -> None:
    """--url, --token and --json, before the command or after it (where they default to
    nothing, so that one given before the command is kept)."""
    unset = argparse.SUPPRESS if after_command else None
    parser.add_argument("--url", default=unset,
                        help="the Jupyter server's URL, e.g. http://localhost:8888/ "
                        "(default: $JUPYTER_SERVER_URL, else the first server running as "
                        "this user, from Jupyter's runtime directory)")
    parser.add_argument("--token", default=unset,
                        help="the server's token (default: $JUPYTER_TOKEN, else the token "
                        "in the runtime file of the running server at that URL)")
    parser.add_argument("--json", action="store_true",
                        default=argparse.SUPPRESS if after_command else False,
                        help="print the server's JSON instead of a table")


def _kernel_options(parser: argparse.ArgumentParser, positional: bool = False) -> None:
    # SUPPRESS: a --kernel given before the command is kept.
    parser.add_argument("--kernel", metavar="KERNEL", default=argparse.SUPPRESS,
                        help=KERNEL_HELP)
    if positional:  # the old form, kept for scripts
        parser.add_argument("kernel_positional", nargs="?", metavar="KERNEL_ID",
                            help="deprecated: use --kernel")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter kernel-state",
        description="Variables, images and the assistant prompt of running Jupyter kernels. "
        "Every command that reads a kernel takes --kernel; without it, the kernel a cell "
        "last ran in is read and named on stderr.",
    )
    _global_options(parser, after_command=False)
    parser.add_argument("--kernel", metavar="KERNEL",
                        help="the kernel the command reads (also taken after the command): "
                        + KERNEL_HELP.removeprefix("the kernel to read: "))
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, after_command=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str, **kwargs: Any) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=kwargs.pop("description", help),
                              parents=[common], **kwargs)

    p = command("kernels", "list the running kernels: id, notebook path, language, state, "
                "execution count, variables and images")
    p.add_argument("--kernel", metavar="KERNEL", default=argparse.SUPPRESS,
                   help="only this kernel: its id, a prefix of ids only it has, or its "
                   "notebook path (default: all)")
    p.set_defaults(run=cmd_kernels)

    p = command("variables", "list a kernel's variables")
    _kernel_options(p, positional=True)
    p.add_argument("--include", metavar="GROUPS",
                   help="also list these hidden groups, comma-separated: private (_names), "
                   "modules, callables, classes (default: none)")
    p.add_argument("--limit", type=int, metavar="N",
                   help="variables per page (default: the server's page_size, 500; at most "
                   "its max_page_size, 10,000); the footer gives the exact total")
    p.add_argument("--offset", type=int, metavar="N",
                   help="first variable of the page, from 0 (default 0)")
    p.add_argument("--sort", type=_sort, metavar="{" + ",".join(SORT.choices) + "}[:asc|:desc]",
                   help="sort key, optionally reversed, e.g. memory:desc (default: name); "
                   "size, memory and changed list the largest or latest first")
    p.add_argument("--filter", metavar="PATTERN",
                   help="only names or type names matching this case-insensitive glob "
                   "(* and ?); plain text matches anywhere (default: all)")
    p.add_argument("--detail", choices=DETAILS, default="full",
                   help="names: name, type, kind; schema: + shape, dtype, memory, columns; "
                   "full (default): + change and preview")
    p.set_defaults(run=cmd_variables)

    p = command("inspect", "one variable in depth: repr, columns, keys, children")
    p.add_argument("name", help="the variable's name")
    _kernel_options(p)
    p.add_argument("--path", metavar="JSON",
                   help="a child instead of the variable: a JSON array of access keys from "
                   "the `children` listed, e.g. '[\"k:\\\"a\\\"\"]' (default: the variable)")
    p.add_argument("--max-chars", type=int, metavar="N",
                   help="characters of the repr (default: the server's detail_chars, 10,000; "
                   "at most max_detail_chars, 65,536)")
    p.add_argument("--reveal", action="store_true",
                   help="show a value that looks like a credential (masked by default)")
    p.set_defaults(run=cmd_inspect)

    p = command("rows", "a window of rows of a table or array (DataFrame, Series, ndarray …)")
    p.add_argument("name", help="the variable's name")
    _kernel_options(p)
    p.add_argument("--offset", type=int, default=0, metavar="N",
                   help="first row, from 0 (default 0)")
    p.add_argument("--limit", type=int, default=20, metavar="N",
                   help="rows, 1 to the server's rows_max_rows, 1,000 (default 20)")
    p.add_argument("--columns", metavar="COLUMNS",
                   help="column positions from 0: start:stop (stop excluded) or a list like "
                   "0,3,7 (default: the first 100)")
    p.add_argument("--sort", metavar="COLUMN:asc|desc",
                   help="sort by a column's name, in the kernel, e.g. price:desc (default: "
                   "the table's own order)")
    p.add_argument("--filter", metavar="JSON", help=FILTER_HELP)
    p.set_defaults(run=cmd_rows)

    p = command("count", "count a table's rows, or those a filter keeps (an engine's table: "
                "in its engine)")
    p.add_argument("name", help="the variable's name")
    _kernel_options(p)
    p.add_argument("--filter", metavar="JSON", help=FILTER_HELP)
    p.set_defaults(run=cmd_count)

    p = command("profile", "a table's column statistics: missing values, min, median, mean, "
                "max, std, distinct and most frequent values (an engine's table: in its "
                "engine)")
    p.add_argument("name", help="the variable's name")
    _kernel_options(p)
    p.add_argument("--columns", metavar="COLUMNS",
                   help=COLUMNS_HELP + " (default: the first ones, up to the server's "
                   "profile_max_columns, 100)")
    p.add_argument("--filter", metavar="JSON", help=FILTER_HELP)
    p.add_argument("--budget-ms", type=int, metavar="MS", help=BUDGET_HELP)
    p.set_defaults(run=cmd_profile)

    p = command("code", "the code of a view of a table: it binds <name>_view to the rows a "
                "filter keeps, in the order asked, with the columns asked (Convert to Code)")
    p.add_argument("name", help="the variable's name")
    _kernel_options(p)
    p.add_argument("--columns", metavar="COLUMNS",
                   help=COLUMNS_HELP + " (default: every column)")
    p.add_argument("--sort", metavar="COLUMN:asc|desc",
                   help="sort by columns' names, e.g. price:desc or region,price:desc "
                   "(default: the table's own order)")
    p.add_argument("--filter", metavar="JSON", help=FILTER_HELP)
    p.add_argument("--syntax", choices=ROUTES["code"].param("syntax").choices,
                   help="the code's language (default: the value's own library, or its "
                   "engine's)")
    p.add_argument("--budget-ms", type=int, metavar="MS", help=BUDGET_HELP)
    p.set_defaults(run=cmd_code)

    p = command("compare", "two tables compared row by row: rows added, removed and changed, "
                "the changed cells (before → after)")
    p.add_argument("name", help="the table compared (the after)")
    p.add_argument("--with", dest="other", required=True, metavar="OTHER",
                   help="the table it is compared against (the before)")
    _kernel_options(p)
    p.add_argument("--key", metavar="COLUMNS",
                   help="the columns that identify a row in both, comma-separated, e.g. id or "
                   "region,day (default: the index when it says something, else the "
                   "position)")
    p.add_argument("--status", metavar="STATUSES",
                   help="the rows listed, comma-separated: added, removed, changed, unchanged "
                   "(default added,removed,changed)")
    p.add_argument("--offset", type=int, default=0, metavar="N",
                   help="first listed row, from 0 (default 0)")
    p.add_argument("--limit", type=int, default=20, metavar="N",
                   help="rows, 1 to the server's rows_max_rows, 1,000 (default 20)")
    p.add_argument("--sort", metavar="COLUMN:asc|desc",
                   help="sort the listed rows by a column's values as shown, e.g. price:desc "
                   "(default: the table's own order, the removed rows last)")
    p.add_argument("--filter", metavar="JSON", help=FILTER_HELP)
    p.add_argument("--syntax", choices=ROUTES["compare"].param("syntax").choices,
                   help="the language of the code --code prints (default: the tables' own "
                   "library)")
    p.add_argument("--code", action="store_true",
                   help="print the code that builds the same diff as a table "
                   "(<name>_vs_<other>) instead of the rows")
    p.set_defaults(run=cmd_compare)

    p = command("timeline", "when a variable was bound or changed, and how")
    p.add_argument("name", help="the variable's name")
    _kernel_options(p)
    p.add_argument("--limit", type=int, metavar="N",
                   help="the last N changes, 1 to 100 (default 20)")
    p.set_defaults(run=cmd_timeline)

    p = command("images", "list (and save) the images the kernel produced")
    _kernel_options(p, positional=True)
    p.add_argument("--since", type=int, metavar="SEQ",
                   help="only images after this cursor: the `next --since` value a previous "
                   "listing printed (default 0: every image kept)")
    p.add_argument("--limit", type=int, metavar="N",
                   help="images, oldest first, 1 to the server's max_images (default: that "
                   "maximum, 50)")
    p.add_argument("--save", metavar="DIR",
                   help="also write the listed images into DIR (created if needed) as "
                   "exec<N>-<id>.<ext> (default: only list them)")
    p.set_defaults(run=cmd_images)

    p = command("prompt", "the text an assistant receives about the kernel's state")
    _kernel_options(p, positional=True)
    p.add_argument("--budget", type=int, metavar="CHARS",
                   help="the prompt's size limit in characters (about 4 per token), 200 to "
                   "200,000 (default 6,000); the text never exceeds it")
    p.add_argument("--since", type=int, metavar="GENERATION",
                   help="say what changed since this generation, the count of executions "
                   "the server has seen complete in the kernel: the `generation` that "
                   "`prompt --json` (or `kernels --json`) returned last time (default: "
                   "changes of the last execution)")
    p.add_argument("--history", type=int, metavar="STEPS",
                   help="also show the last STEPS executions (code and output), 0 to the "
                   "server's history_entries, 100 (default 0)")
    p.set_defaults(run=cmd_prompt)

    p = command(
        "mcp-config", "the MCP URL of the running server(s) and a client configuration",
        description="For each running Jupyter server (or the one given with --url) whose "
        "jupyter-server-mcp is up: its MCP URL and a client configuration with the "
        "'Authorization: token ...' header the MCP server requires. The output contains the "
        "token: do not share it.")
    p.add_argument("--format", choices=MCP_FORMATS, default="json",
                   help="json (default): the common mcpServers JSON (Claude Code .mcp.json, "
                   "Cursor, ...); claude: a `claude mcp add` command; codex: a "
                   "~/.codex/config.toml entry; stdio: mcpServers JSON that starts "
                   "`mcp-proxy` (no port or token in it)")
    p.add_argument("--name", default="jupyter-kernel-state",
                   help="the server's name in the configuration (default: "
                   "jupyter-kernel-state)")
    p.set_defaults(run=None)

    command(
        "mcp-proxy", "serve MCP on stdio, forwarding to a running server with its token",
        description="For MCP clients that start a command: forwards to the MCP server of the "
        "Jupyter server given by --url, or of the one whose root directory contains the "
        "working directory, adding its token (read from Jupyter's runtime directory, or "
        "--token / $JUPYTER_TOKEN).").set_defaults(run=None)
    return parser


def _which_kernel(args: argparse.Namespace) -> str | None:
    """--kernel, or the deprecated positional kernel id (a warning on stderr)."""
    positional = getattr(args, "kernel_positional", None)
    if positional is None:
        return args.kernel  # type: ignore[no-any-return]
    print(f"jupyter kernel-state: the kernel as a positional argument is deprecated; use "
          f"--kernel {positional}", file=sys.stderr)
    if args.kernel is not None and args.kernel != positional:
        raise CLIError(f"two kernels given: {positional!r} and --kernel {args.kernel!r}")
    return positional  # type: ignore[no-any-return]


def _choose_kernel(client: KernelStateClient, args: argparse.Namespace) -> dict[str, Any]:
    """The kernel a command reads, said on stderr (with how to pick another when it was
    chosen for the user among several)."""
    which = _which_kernel(args)
    kernels = client.kernels()
    kernel = pick_kernel(kernels, which)
    note = ""
    if which is None and len(kernels) > 1:
        why = ("the one a cell last ran in" if kernel.get("last_execution_at")
               else "the first listed: no cell has run in any")
        note = (f"; {why}, of {len(kernels)} running; pick another with --kernel ID, ID "
                "prefix or notebook path (`jupyter kernel-state kernels` lists them)")
    print(f"jupyter kernel-state: kernel {kernel_label(kernel)}{note}", file=sys.stderr)
    return kernel


def _explained(error: KernelStateClientError, client: KernelStateClient, how: str,
               kernel: dict[str, Any] | None) -> str:
    """The error as the user can act on it: a refused token says what to do, a 404 names
    the kernel it was looked for in."""
    if error.status in (401, 403):
        why = ("no token was sent" if not client.token else
               f"the token sent ({how.split('; ', 1)[-1]}) is wrong, expired or lacks "
               "permission (`execute` on kernels)")
        return (f"{error.status}: {error.message or 'Forbidden'} — the server at {client.url} "
                f"refused the request: {why}. Pass the right token with --token or "
                "$JUPYTER_TOKEN (`jupyter server list` shows a local server's), or check "
                "--url.")
    if error.status == 404 and kernel is not None:
        return f"{error} (in kernel {kernel_label(kernel)})"
    return str(error)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.kernel is not None and args.command not in (*KERNEL_COMMANDS, "kernels"):
        parser.error(f"{args.command} reads no kernel: --kernel is not for it")
    try:
        if args.command == "mcp-config":
            print(cmd_mcp_config(args))
            return 0
        if args.command == "mcp-proxy":
            cmd_mcp_proxy(args)
            return 0
        url, token, how = discover_server(args.url, args.token)
        try:
            client = KernelStateClient(url, token or "")  # "": not $JUPYTER_TOKEN again
        except ValueError as e:
            raise CLIError(str(e)) from None
        print(f"jupyter kernel-state: using {client.url} ({how})", file=sys.stderr)
        kernel = None
        try:
            if args.command in KERNEL_COMMANDS:
                kernel = _choose_kernel(client, args)
                args.kernel_id = kernel["kernel_id"]
            print(args.run(client, args))
        except KernelStateClientError as e:
            raise CLIError(_explained(e, client, how, kernel)) from None
    except (CLIError, KernelStateClientError) as e:
        print(f"jupyter kernel-state: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
