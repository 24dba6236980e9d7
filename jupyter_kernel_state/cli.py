"""`jupyter kernel-state`: the REST API from a terminal or a script.

Talks to a running Jupyter server by URL and token (flags, or JUPYTER_SERVER_URL and
JUPYTER_TOKEN, or the first running server found in Jupyter's runtime directory).
Standard library only, so it works from any environment that has the package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

TIMEOUT_S = 30


class CLIError(Exception):
    pass


class Client:
    def __init__(self, url: str, token: str | None) -> None:
        self.base = url.rstrip("/") + "/api/kernel-state/"
        self.token = token

    def request(self, path: str, params: dict[str, Any] | None = None) -> tuple[bytes, str]:
        query = urllib.parse.urlencode({k: v for k, v in (params or {}).items()
                                        if v is not None})
        url = self.base + path + (f"?{query}" if query else "")
        request = urllib.request.Request(url)
        if self.token:
            request.add_header("Authorization", f"token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                return response.read(), response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            try:
                message = json.loads(e.read()).get("message") or e.reason
            except ValueError:
                message = e.reason
            raise CLIError(f"{e.code}: {message}") from None
        except urllib.error.URLError as e:
            raise CLIError(f"cannot reach {self.base}: {e.reason}") from None

    def json(self, path: str, params: dict[str, Any] | None = None) -> Any:
        body, _ = self.request(path, params)
        return json.loads(body)


def _discover() -> tuple[str, str | None]:
    url = os.environ.get("JUPYTER_SERVER_URL")
    token = os.environ.get("JUPYTER_TOKEN")
    if url:
        return url, token
    from jupyter_server.serverapp import list_running_servers

    for server in list_running_servers():
        return str(server["url"]), token or server.get("token")
    raise CLIError("no running Jupyter server found; pass --url and --token")


def _pick_kernel(client: Client, kernel: str | None) -> str:
    if kernel:
        return kernel
    kernels = client.json("kernels")["kernels"]
    if not kernels:
        raise CLIError("no kernel is running")
    # The kernel the user last ran a cell in, as the MCP tools do.
    return str(max(kernels, key=lambda k: k.get("last_execution_at") or "")["kernel_id"])


def _table(rows: list[list[str]], headers: list[str]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def _shape(v: dict[str, Any]) -> str:
    if v.get("shape") is not None:
        return "×".join(str(n) for n in v["shape"])
    return "" if v.get("size") is None else f"{v['size']:,}"


def cmd_kernels(client: Client, args: argparse.Namespace) -> str:
    data = client.json("kernels")
    if args.json:
        return json.dumps(data, indent=2)
    rows = [[k["kernel_id"], k["language"], k["execution_state"], str(k["execution_count"]),
             str(k["variables_total"] if k["variables_total"] is not None else "?"),
             str(k["images_total"])] for k in data["kernels"]]
    return _table(rows, ["KERNEL", "LANGUAGE", "STATE", "EXEC", "VARIABLES", "IMAGES"])


def cmd_variables(client: Client, args: argparse.Namespace) -> str:
    kid = _pick_kernel(client, args.kernel)
    data = client.json(f"kernels/{kid}/variables", {
        "include": args.include, "limit": args.limit, "offset": args.offset, "sort": args.sort,
    })
    if args.json:
        return json.dumps(data, indent=2)
    rows = [[v["name"], v["type"], _shape(v), v["change"], v["preview"].replace("\n", " ")[:80]]
            for v in data["variables"]]
    shown = f"{data['offset'] + 1}-{data['offset'] + len(rows)}" if rows else "0"
    note = " (kernel busy: state before the running cell)" if data["stale"] else ""
    return (_table(rows, ["NAME", "TYPE", "SHAPE/SIZE", "CHANGE", "PREVIEW"])
            + f"\n{shown} of {data['total']:,} variables, execution {data['execution_count']}"
            + note)


def cmd_inspect(client: Client, args: argparse.Namespace) -> str:
    kid = _pick_kernel(client, args.kernel)
    data = client.json(f"kernels/{kid}/variables/{urllib.parse.quote(args.name, safe='')}",
                       {"path": args.path, "max_chars": args.max_chars})
    if args.json:
        return json.dumps(data, indent=2)
    out = [f"{data['name']}: {data['qualname']} ({data['kind']})", data["repr"]]
    if data.get("columns"):
        out.append("columns: " + ", ".join(f"{c['name']}:{c['dtype']}" for c in data["columns"]))
    if data.get("keys"):
        out.append("keys: " + ", ".join(data["keys"]))
    if data.get("signature"):
        out.append(f"signature: {data['signature']}")
    if data.get("children"):
        out.append("children (use --path '[\"<access_key>\"]'):")
        out += [f"  {c['access_key']}  {c['label']}: {c['type']} = {c['preview'][:60]}"
                for c in data["children"]]
    return "\n".join(out)


def cmd_images(client: Client, args: argparse.Namespace) -> str:
    kid = _pick_kernel(client, args.kernel)
    data = client.json(f"kernels/{kid}/images", {"since": args.since, "limit": args.limit})
    if args.save:
        target = Path(args.save)
        target.mkdir(parents=True, exist_ok=True)
        for image in data["images"]:
            body, _ = client.request(f"kernels/{kid}/images/{image['id']}")
            ext = image["mime"].split("/")[1].split("+")[0].replace("jpeg", "jpg")
            (target / f"exec{image['execution_count']}-{image['id']}.{ext}").write_bytes(body)
    if args.json:
        return json.dumps(data, indent=2)
    rows = [[i["id"], str(i["execution_count"]), i["mime"],
             f"{i['width']}×{i['height']}" if i["width"] else "?", f"{i['bytes']:,}"]
            for i in data["images"]]
    return (_table(rows, ["ID", "EXEC", "MIME", "SIZE", "BYTES"])
            + f"\nnext --since {data['next_since']}; dropped {data['dropped']}, "
              f"rejected {data['rejected']}")


def cmd_prompt(client: Client, args: argparse.Namespace) -> str:
    kid = _pick_kernel(client, args.kernel)
    params = {"budget": args.budget, "since": args.since, "history": args.history,
              "format": "json" if args.json else "text"}
    body, _ = client.request(f"kernels/{kid}/prompt", params)
    return body.decode("utf-8")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter kernel-state",
        description="Variables, images and the assistant prompt of running Jupyter kernels.",
    )
    parser.add_argument("--url", help="server URL (default: $JUPYTER_SERVER_URL or a running "
                        "server found in Jupyter's runtime directory)")
    parser.add_argument("--token", help="server token (default: $JUPYTER_TOKEN)")
    parser.add_argument("--json", action="store_true", help="print the raw JSON")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("kernels", help="list running kernels").set_defaults(run=cmd_kernels)

    p = sub.add_parser("variables", help="list a kernel's variables")
    p.add_argument("kernel", nargs="?", help="kernel id (default: the most recently used)")
    p.add_argument("--include", help="private,modules,callables,classes")
    p.add_argument("--limit", type=int)
    p.add_argument("--offset", type=int)
    p.add_argument("--sort", choices=["name", "type", "size", "changed"])
    p.set_defaults(run=cmd_variables)

    p = sub.add_parser("inspect", help="inspect one variable")
    p.add_argument("name")
    p.add_argument("--kernel")
    p.add_argument("--path", help="JSON array of access keys from `children`")
    p.add_argument("--max-chars", type=int)
    p.set_defaults(run=cmd_inspect)

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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        url, token = (args.url, args.token) if args.url else _discover()
        client = Client(url, args.token or token)
        print(args.run(client, args))
    except CLIError as e:
        print(f"jupyter kernel-state: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
