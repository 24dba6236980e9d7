"""`jupyter kernel-state`: the REST API from a terminal or a script.

Talks to a running Jupyter server through :class:`~jupyter_kernel_state.client.
KernelStateClient`, by URL and token: ``--url`` (or ``$JUPYTER_SERVER_URL``, or the first
running server found in Jupyter's runtime directory) and ``--token`` (or ``$JUPYTER_TOKEN``,
or the found server's own token). It says on stderr which server it used.
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
import urllib.parse
from pathlib import Path
from typing import Any

from .cli_views import (
    CLIError,
    cmd_images,
    cmd_inspect,
    cmd_kernels,
    cmd_prompt,
    cmd_rows,
    cmd_timeline,
    cmd_variables,
)
from .client import KernelStateClient, KernelStateClientError


def _discover(url: str | None, token: str | None) -> tuple[str, str | None, str]:
    """The server's URL, the token to send, and how both were found (said on stderr)."""
    token_from = ""
    if token:
        token_from = "token from --token"
    elif os.environ.get("JUPYTER_TOKEN"):
        token, token_from = os.environ["JUPYTER_TOKEN"], "token from $JUPYTER_TOKEN"
    if url or os.environ.get("JUPYTER_SERVER_URL"):
        how = "from --url" if url else "from $JUPYTER_SERVER_URL"
        url = url or os.environ["JUPYTER_SERVER_URL"]
        if not token:  # the token of the running server at that URL, if it is one
            server = next((s for s in _running_servers() if _same_server(url, s)), None)
            if server is not None and server.get("token"):
                token = str(server["token"])
                token_from = f"the token of server pid {server.get('pid')} from its runtime file"
    else:
        server = next(iter(_running_servers()), None)
        if server is None:
            raise CLIError("no running Jupyter server found; pass --url and --token")
        url = str(server["url"])
        how = f"found running server, pid {server.get('pid')}"
        if server.get("root_dir"):
            how += f", serving {server['root_dir']}"
        if not token and server.get("token"):
            token, token_from = str(server["token"]), "its token from its runtime file"
    return url, token or None, how + (f"; {token_from}" if token_from else "; no token")


def _runtime_files(pattern: str) -> list[dict[str, Any]]:
    """The JSON runtime files of live processes in Jupyter's runtime directory whose name
    matches ``pattern`` (with the pid as its group). Read directly: importing
    jupyter_server.serverapp or jupyter_server_mcp (for their listing functions) takes seconds.
    """
    from jupyter_core.paths import jupyter_runtime_dir
    from jupyter_server.utils import check_pid

    found = []
    directory = Path(jupyter_runtime_dir())
    for path in sorted(directory.glob("jpserver-*.json")) if directory.is_dir() else []:
        match = re.fullmatch(pattern, path.name)
        if match is None:
            continue
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(info, dict) and info.get("pid") == int(match.group(1)) \
                and check_pid(info["pid"]):
            found.append(info)
    return found


def _running_servers() -> list[dict[str, Any]]:
    """Jupyter servers (``jpserver-<pid>.json``; jupyter-server-mcp's ``jpserver-mcp-<pid>.json``
    files match jupyter_server's own ``jpserver-*`` listing too, and are not servers)."""
    return _runtime_files(r"jpserver-(\d+)\.json")


SORT_KEYS = ("name", "type", "size", "changed", "memory")
DETAILS = ("names", "schema", "full")


def _sort(text: str) -> str:
    key, _, order = text.partition(":")
    if key not in SORT_KEYS or order not in ("", "asc", "desc"):
        raise argparse.ArgumentTypeError(
            f"{text!r}: one of {', '.join(SORT_KEYS)}, optionally with :asc or :desc")
    return text


MCP_FORMATS = ("json", "claude", "codex", "stdio")


def _same_server(url: str, info: dict[str, Any]) -> bool:
    """Whether ``url`` (as given with --url) points at the server a runtime file describes."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    base = str(info.get("base_url") or "/")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return port == info.get("port") and path.startswith(base)


def _mcp_servers(url: str | None) -> list[dict[str, Any]]:
    """Running Jupyter servers that serve MCP, paired with their MCP runtime files by pid."""
    # jupyter-server-mcp's runtime files (jupyter_server_mcp.runtime) carry the MCP URL.
    mcp_by_pid = {info["pid"]: info for info in _runtime_files(r"jpserver-mcp-(\d+)\.json")
                  if isinstance(info.get("url"), str)}
    servers = [{"server": info, "mcp": mcp_by_pid[info["pid"]]}
               for info in _running_servers() if info.get("pid") in mcp_by_pid]
    if url:
        servers = [s for s in servers if _same_server(url, s["server"])]
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter kernel-state",
        description="Variables, images and the assistant prompt of running Jupyter kernels.",
    )
    parser.add_argument("--url", help="server URL (default: $JUPYTER_SERVER_URL or a running "
                        "server found in Jupyter's runtime directory)")
    parser.add_argument("--token", help="server token (default: $JUPYTER_TOKEN, else the "
                        "token in the runtime file of the running server at that URL)")
    parser.add_argument("--json", action="store_true", help="print the raw JSON")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("kernels", help="list running kernels").set_defaults(run=cmd_kernels)

    p = sub.add_parser("variables", help="list a kernel's variables")
    p.add_argument("kernel", nargs="?", help="kernel id (default: the most recently used)")
    p.add_argument("--include", help="private,modules,callables,classes")
    p.add_argument("--limit", type=int)
    p.add_argument("--offset", type=int)
    p.add_argument("--sort", type=_sort, metavar="{name,type,size,changed,memory}[:asc|:desc]",
                   help="sort key, optionally reversed (e.g. memory:desc)")
    p.add_argument("--filter", help="only names matching this pattern")
    p.add_argument("--detail", choices=DETAILS, default="full",
                   help="names: name, type, kind; schema: + shape, dtype, memory, columns; "
                   "full (default): + change and preview")
    p.set_defaults(run=cmd_variables)

    p = sub.add_parser("inspect", help="inspect one variable")
    p.add_argument("name")
    p.add_argument("--kernel")
    p.add_argument("--path", help="JSON array of access keys from `children`")
    p.add_argument("--max-chars", type=int)
    p.add_argument("--reveal", action="store_true",
                   help="show a value that looks like a credential (masked otherwise)")
    p.set_defaults(run=cmd_inspect)

    p = sub.add_parser("rows", help="a window of rows of a table or array")
    p.add_argument("name")
    p.add_argument("--kernel")
    p.add_argument("--offset", type=int, default=0, help="first row (default 0)")
    p.add_argument("--limit", type=int, default=20, help="rows, 1 to 1000 (default 20)")
    p.add_argument("--columns", help="column positions: start:stop or a list like 0,3,7")
    p.add_argument("--sort", help="<column name>:asc or :desc, e.g. price:desc")
    p.set_defaults(run=cmd_rows)

    p = sub.add_parser("timeline", help="when a variable was bound or changed, and how")
    p.add_argument("name")
    p.add_argument("--kernel")
    p.add_argument("--limit", type=int, help="last entries (default 20)")
    p.set_defaults(run=cmd_timeline)

    p = sub.add_parser("images", help="list (and save) images the kernel produced")
    p.add_argument("kernel", nargs="?")
    p.add_argument("--since", type=int)
    p.add_argument("--limit", type=int)
    p.add_argument("--save", metavar="DIR", help="write the image files into DIR")
    p.set_defaults(run=cmd_images)

    p = sub.add_parser("prompt", help="the text an assistant receives")
    p.add_argument("kernel", nargs="?")
    p.add_argument("--budget", type=int)
    p.add_argument("--since", type=int)
    p.add_argument("--history", type=int)
    p.set_defaults(run=cmd_prompt)

    p = sub.add_parser(
        "mcp-config", help="the MCP URL of the running server(s) and a client configuration",
        description="For each running Jupyter server (or the one given with --url) whose "
        "jupyter-server-mcp is up: its MCP URL and a client configuration with the "
        "'Authorization: token ...' header the MCP server requires. The output contains the "
        "token: do not share it.")
    p.add_argument("--format", choices=MCP_FORMATS, default="json",
                   help="json: the common mcpServers JSON (Claude Code .mcp.json, Cursor, ...); "
                   "claude: a `claude mcp add` command; codex: a ~/.codex/config.toml entry; "
                   "stdio: mcpServers JSON that starts `mcp-proxy` (no port or token in it)")
    p.add_argument("--name", default="jupyter-kernel-state", help="server name in the config")
    p.set_defaults(run=None)

    sub.add_parser(
        "mcp-proxy", help="serve MCP on stdio, forwarding to a running server with its token",
        description="For MCP clients that start a command: forwards to the MCP server of the "
        "Jupyter server given by --url, or of the one whose root directory contains the "
        "working directory, adding its token (read from Jupyter's runtime directory, or "
        "--token / $JUPYTER_TOKEN).").set_defaults(run=None)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "mcp-config":
            print(cmd_mcp_config(args))
            return 0
        if args.command == "mcp-proxy":
            cmd_mcp_proxy(args)
            return 0
        url, token, how = _discover(args.url, args.token)
        try:
            client = KernelStateClient(url, token or "")  # "": not $JUPYTER_TOKEN again
        except ValueError as e:
            raise CLIError(str(e)) from None
        print(f"jupyter kernel-state: using {client.url} ({how})", file=sys.stderr)
        print(args.run(client, args))
    except (CLIError, KernelStateClientError) as e:
        print(f"jupyter kernel-state: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
