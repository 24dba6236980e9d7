"""What the CLI prints for the REST API's answers: tables of kernels and variables, one
variable in depth, a window of rows, a timeline, images, the prompt. Likely secrets are
masked here too (unless ``--reveal``), whatever the server sent."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .client import (
    KernelStateClient,
    KernelStateClientError,
    comparison_notes,
    kernel_label,
    pick_kernel,
)
from .secrets import MASK, secret_reason

#: Characters of a notebook path in the kernels table (the end is kept).
PATH_COLUMN_CHARS = 48
#: Characters of what changed in a variable, in the variables table.
CHANGE_COLUMN_CHARS = 40
#: Most frequent values a profile row names.
PROFILE_TOP_VALUES = 3


class CLIError(Exception):
    pass


def _count(n: Any) -> str:
    """A count with thousands separators; "-" when the server does not know it (an
    execution count after a restart, before the first cell)."""
    return f"{n:,}" if isinstance(n, int) else "-"


def _table(rows: list[list[str]], headers: list[str]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def _shape(v: dict[str, Any]) -> str:
    """``100,000×8``; ``?×3`` for a table whose rows an engine did not count."""
    if v.get("shape") is not None:
        return "×".join("?" if n is None else _count(n) for n in v["shape"])
    return "" if v.get("size") is None else f"{v['size']:,}"


def _bytes(n: Any) -> str:
    """A size in bytes with binary units (1 KiB = 1,024 bytes)."""
    if not isinstance(n, int):
        return ""
    if n < 1024:
        return f"{n:,} B"
    size = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        size /= 1024
        if size < 1024 or unit == "TiB":
            break
    return f"{size:,.1f} {unit}"


def _masked(v: dict[str, Any], text: str, reveal: bool = False) -> str:
    """``text`` of a variable, or the mask when it looks like a credential (also when a
    server that predates masking sent it in clear)."""
    if reveal:
        return text
    if v.get("masked") or v.get("likely_secret") \
            or secret_reason(str(v.get("name", "")), text) is not None:
        return MASK
    return text


def _one_line(text: str, width: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _path_cell(path: Any) -> str:
    text = str(path or "-")
    return text if len(text) <= PATH_COLUMN_CHARS else "…" + text[-(PATH_COLUMN_CHARS - 1):]


def cmd_kernels(client: KernelStateClient, args: argparse.Namespace) -> str:
    kernels = client.kernels()
    if args.kernel is not None:
        kernels = [pick_kernel(kernels, args.kernel)]
    if args.json:
        return json.dumps({"kernels": kernels}, indent=2)
    if not kernels:
        return "no kernel is running"
    unread = _read_unlisted_counts(client, kernels)
    rows = [[k["kernel_id"], _path_cell(k.get("path")), k["language"], k["execution_state"],
             _count(k["execution_count"]),
             "?" if k["kernel_id"] in unread else _count(k["variables_total"]),
             _count(k["images_total"])] for k in kernels]
    table = _table(rows, ["KERNEL", "PATH", "LANGUAGE", "STATE", "EXEC", "VARIABLES",
                          "IMAGES"])
    notes = [f"?: variables not read yet in {kid} ({why})" for kid, why in unread.items()]
    if len(kernels) > 1:
        default = pick_kernel(kernels, None)
        why = ("the kernel a cell last ran in" if default.get("last_execution_at")
               else "the first listed: no cell has run in any")
        notes.append(f"without --kernel, commands read {kernel_label(default)} ({why})")
    return "\n".join([table, *notes])


def _read_unlisted_counts(client: KernelStateClient,
                          kernels: list[dict[str, Any]]) -> dict[str, str]:
    """Fills in ``variables_total`` of the kernels whose variables nobody listed yet (the
    server knows a count only once a snapshot was taken) by asking each idle one for a page
    of one name; returns, for those it could not read, why (a busy kernel is not asked:
    the probe never queues behind a running cell)."""
    unread = {}
    for kernel in kernels:
        if kernel["variables_total"] is not None:
            continue
        kid = kernel["kernel_id"]
        if kernel["execution_state"] != "idle":
            unread[kid] = f"the kernel is {kernel['execution_state']}"
            continue
        try:
            kernel["variables_total"] = client.variables(kid, detail="names",
                                                         limit=1)["total"]
        except KernelStateClientError as e:
            unread[kid] = str(e)
    return unread


def cmd_variables(client: KernelStateClient, args: argparse.Namespace) -> str:
    kid = args.kernel_id
    data = client.variables(kid, detail=args.detail, include=args.include, limit=args.limit,
                            offset=args.offset, sort=args.sort, filter=args.filter)
    if args.json:
        return json.dumps(data, indent=2)
    variables = data["variables"]
    if args.detail == "names":
        headers = ["NAME", "TYPE", "KIND"]
        rows = [[v["name"], v["type"], v.get("kind") or ""] for v in variables]
    elif args.detail == "schema":
        headers = ["NAME", "TYPE", "SHAPE/SIZE", "DTYPE", "MEMORY", "COLUMNS"]
        rows = [[v["name"], v["type"], _shape(v), v.get("dtype") or "",
                 _bytes(v.get("memory", v.get("nbytes"))), _columns_text(v)]
                for v in variables]
    else:
        memory = any("memory" in v for v in variables)
        headers = ["NAME", "TYPE", "SHAPE/SIZE", *(["MEMORY"] if memory else []), "CHANGE",
                   "PREVIEW"]
        rows = [[v["name"], v["type"], _shape(v),
                 *([_bytes(v.get("memory"))] if memory else []), _change(v),
                 _one_line(_masked(v, v["preview"]), 80)] for v in variables]
    shown = f"{data['offset'] + 1:,}-{data['offset'] + len(rows):,}" if rows else "0"
    note = " (kernel busy: state before the running cell)" if data["stale"] else ""
    total, matched = data["total"], data.get("matched", data["total"])
    counted = (f"{total:,} variables" if matched == total  # a filter: its matches, then all
               else f"{matched:,} matching ({total:,} variables)")
    return (_table(rows, headers)
            + f"\n{shown} of {counted}, execution "
              f"{_count(data['execution_count'])}"
            + note)


def _change(v: dict[str, Any]) -> str:
    """A variable's change as the sidebar's row says it: what changed inside it
    (``depth 6 → 8``; ``rows 100 → 90``) when the server could tell, else new, modified or
    unchanged."""
    changes = v.get("changes") or []
    return _one_line("; ".join(changes), CHANGE_COLUMN_CHARS) if changes else str(v["change"])


def _columns_text(v: dict[str, Any]) -> str:
    columns = v.get("columns") or []
    text = ", ".join(f"{c['name']}:{c['dtype']}" for c in columns[:10])
    total = v.get("columns_total") or len(columns)
    return _one_line(text + (f" (+{total - 10})" if total > 10 else ""), 80)


def cmd_inspect(client: KernelStateClient, args: argparse.Namespace) -> str:
    kid = args.kernel_id
    path = json.loads(args.path) if args.path else None
    if path is not None and (not isinstance(path, list)
                             or not all(isinstance(k, str) for k in path)):
        raise CLIError("--path must be a JSON array of access keys (strings)")
    data = client.variable(kid, args.name, reveal=args.reveal, path=path,
                           max_chars=args.max_chars)
    if args.json:
        return json.dumps(data, indent=2)
    secret = _masked(data, data["repr"], args.reveal) == MASK
    out = [f"{data['name']}: {data['qualname']} ({data['kind']})",
           MASK if secret else data["repr"]]
    if secret:
        out.append("(masked: it looks like a credential; --reveal shows it)")
    if data.get("columns"):
        out.append("columns: " + ", ".join(f"{c['name']}:{c['dtype']}" for c in data["columns"]))
    if data.get("keys"):
        out.append("keys: " + ", ".join(data["keys"]))
    if data.get("signature"):
        out.append(f"signature: {data['signature']}")
    if data.get("children"):
        out.append("children (use --path '[\"<access_key>\"]'):")
        out += [f"  {c['access_key']}  {c['label']}: {c['type']} = "
                f"{MASK if secret else c['preview'][:60]}" for c in data["children"]]
    return "\n".join(out)


def cmd_rows(client: KernelStateClient, args: argparse.Namespace) -> str:
    kid = args.kernel_id
    data = client.rows(kid, args.name, offset=args.offset, limit=args.limit,
                       columns=args.columns, sort=args.sort, filter=args.filter)
    if args.json:
        return json.dumps(data, indent=2)
    columns = data["columns"]
    index_header = data.get("index_name") or ""
    headers = [index_header] + [f"{c['name']}:{c['dtype']}" if c.get("dtype") else
                                str(c["name"]) for c in columns]
    index = data.get("index") or [str(data["offset"] + i) for i in range(len(data["rows"]))]
    rows = [[_one_line(str(label), 40)] + ["null" if cell is None else _one_line(cell, 40)
                                           for cell in row]
            for label, row in zip(index, data["rows"], strict=False)]
    first = data["offset"] + 1
    shown = f"rows {first:,}-{data['offset'] + len(rows):,}" if rows else "no rows"
    cols = ""
    if data.get("columns_total", len(columns)) > len(columns):
        positions = [c["position"] for c in columns]
        cols = (f", columns at {min(positions)}-{max(positions)} of "
                f"{data['columns_total']:,}" if positions else "")
    notes = [f"{shown} of {_rows_total(data)}{cols}"]
    if data.get("sort"):
        notes.append(f"sorted by {data['sort']}")
    if data.get("engine"):
        notes.append(_engine_text(data["engine"]))
    if _not_counted(data):
        notes.append("?: not counted in time (`jupyter kernel-state count` counts them)")
    if data.get("stale"):
        notes.append("stale: the variable changed since (re-run to refresh)")
    if data.get("cells_truncated"):
        notes.append(f"{data['cells_truncated']:,} cells cut")
    return _table(rows, headers) + "\n" + "; ".join(notes)


def _rows_total(window: dict[str, Any]) -> str:
    """'1,000,000', or '250 matching (1,000)' with a filter; '?' for a count an engine did
    not finish in time."""
    def number(n: Any) -> str:
        return f"{n:,}" if isinstance(n, int) else "?"

    total = number(window.get("total_rows"))
    if window.get("filter") is None:
        return total
    return f"{number(window.get('filtered_rows'))} matching ({total})"


def _not_counted(window: dict[str, Any]) -> bool:
    return window.get("total_rows") is None or (
        window.get("filter") is not None and window.get("filtered_rows") is None)


def _engine_text(engine: dict[str, Any]) -> str:
    took = engine.get("cost_ms")
    return (f"lazy {engine['title']} table, computed in {engine['title']}"
            + (f" in {took:,} ms" if isinstance(took, int) else ""))


def cmd_count(client: KernelStateClient, args: argparse.Namespace) -> str:
    data = client.count(args.kernel_id, args.name, filter=args.filter)
    if args.json:
        return json.dumps(data, indent=2)
    what = "rows kept by the filter" if data["filtered"] else "rows"
    where = (f"lazy {data['engine']['title']} table, counted in {data['engine']['title']}"
             if data.get("engine") else "counted in the kernel")
    note = "; stale: counted before the running cell" if data.get("stale") else ""
    return f"{data['rows']:,} {what} of {data['name']} ({where} in {data['cost_ms']:,} ms){note}"


def cmd_profile(client: KernelStateClient, args: argparse.Namespace) -> str:
    """A table's column statistics, one row per column (the family's own statistics:
    numbers' min, median, mean, max and std; text's distinct and most frequent values;
    booleans' counts), then the rows read, what is approximate and what was left out."""
    data = client.profile(args.kernel_id, args.name, columns=args.columns,
                          filter=args.filter, budget_ms=args.budget_ms)
    if args.json:
        return json.dumps(data, indent=2)
    headers = ["COLUMN", "DTYPE", "PRESENT", "MISSING", "MIN", "MEDIAN", "MEAN", "MAX", "STD",
               "VALUES"]
    rows = [[_one_line(str(c["name"]), 40), c.get("dtype") or "", _count(c["count"]),
             _count(c["null_count"]), *(_statistic(c.get(k)) for k in
                                        ("min", "median", "mean", "max", "std")),
             _values_text(c)] for c in data["columns"]]
    filtered = (data.get("view") or {}).get("filter") is not None
    read = _rows_total({"total_rows": data["total_rows"], "filtered_rows": data["filtered_rows"],
                        "filter": True if filtered else None})
    notes = [f"{len(rows):,} of {data['columns_total']:,} columns of {data['name']} "
             f"({data['type']}), {read} rows"]
    if data.get("columns_cut"):
        notes.append(f"{data['columns_cut']:,} more asked for but not profiled: the request's "
                     "time ran out (--budget-ms gives it more)")
    approximate = [str(c["name"]) for c in data["columns"] if c.get("approximate")]
    if approximate:
        how = (f"from a sample of {data['sample_rows']:,} rows" if data.get("sampled")
               and isinstance(data.get("sample_rows"), int) else "estimated")
        notes.append(f"approximate ({how}): {_one_line(', '.join(approximate), 80)}")
    if data.get("engine"):
        notes.append(_engine_text(data["engine"]))
    if data.get("values_truncated"):
        notes.append(f"{data['values_truncated']:,} values cut")
    if data.get("stale"):
        notes.append("stale: the kernel is busy; this is the last profile")
    return _table(rows, headers) + "\n" + "; ".join(notes)


def _statistic(value: Any) -> str:
    """A number as the explorer's summary shows it (6 significant digits, whole numbers
    whole), a date as its text, nothing for a statistic the column's family has not."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _one_line(str(value), 20)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.6g}" if abs(value) < 1e15 else f"{value:.6g}"


def _values_text(column: dict[str, Any]) -> str:
    """The column's values in words: why it was not profiled, the counts of a boolean,
    the distinct and most frequent values of text."""
    if column.get("error"):
        return "not profiled: " + _one_line(str(column["error"]), 60)
    if column.get("family") == "boolean":
        return f"true {_count(column.get('true'))}, false {_count(column.get('false'))}"
    if "distinct" not in column:
        return ""
    top = column.get("top") or []
    words = [f"{_count(column['distinct'])} distinct"]
    if top:
        shown = ", ".join(f"{_one_line(str(t['value']), 20)} {_count(t['count'])}"
                          for t in top[:PROFILE_TOP_VALUES])
        words.append(shown + (" …" if len(top) > PROFILE_TOP_VALUES or column.get("other")
                              else ""))
    if column.get("empty"):
        words.append(f"{_count(column['empty'])} empty")
    return "; ".join(words)


def cmd_code(client: KernelStateClient, args: argparse.Namespace) -> str:
    """The code of a view: it binds ``<name>_view`` to the rows, order and columns asked."""
    data = client.code(args.kernel_id, args.name, columns=args.columns, sort=args.sort,
                       filter=args.filter, syntax=args.syntax, budget_ms=args.budget_ms)
    if args.json:
        return json.dumps(data, indent=2)
    return str(data["code"]).rstrip("\n")


def cmd_compare(client: KernelStateClient, args: argparse.Namespace) -> str:
    """Two tables compared: the rows that differ (a changed cell as before → after), then
    the counts, how rows were matched and the columns with changed cells."""
    data = client.compare(args.kernel_id, args.name, args.other, key=args.key,
                          status=args.status, offset=args.offset, limit=args.limit,
                          sort=args.sort, filter=args.filter, syntax=args.syntax)
    if args.json:
        return json.dumps(data, indent=2)
    if args.code:
        code = data.get("code")
        if code is None:
            raise CLIError(f"no code for this comparison: {data.get('code_note')}")
        return str(code["code"]).rstrip("\n")
    columns = data["window_columns"]
    headers = ["status", "key"] + [str(c["name"]) for c in columns]
    rows = []
    for row in data["rows"]:
        changed = {c["column"]: c for c in row["changes"]}
        cells = [f"{_cell(changed[j]['before'], 20)} → {_cell(cell, 20)}" if j in changed
                 else _cell(cell, 40) for j, cell in enumerate(row["cells"])]
        key = ",".join("null" if k is None else k for k in row["key"])
        rows.append([row["status"], _one_line(key, 40), *cells])
    return "\n".join([_table(rows, headers), *_comparison_notes(data)])


def _cell(text: Any, width: int) -> str:
    return "null" if text is None else _one_line(str(text), width)


def _comparison_notes(data: dict[str, Any]) -> list[str]:
    notes = comparison_notes(data)
    listed = data["listed_rows"] if data.get("filter") is None else data["filtered_rows"]
    shown = (f"rows {data['offset'] + 1:,}-{data['offset'] + len(data['rows']):,} of "
             f"{listed:,} listed ({', '.join(data['statuses'])})" if data["rows"]
             else f"no rows listed ({', '.join(data['statuses'])})")
    if data.get("sort"):
        shown += f", sorted by {data['sort']}"
    notes.insert(1, shown)
    if data.get("stale"):
        notes.append("stale: the kernel is busy; this is the last answer")
    return notes


def cmd_timeline(client: KernelStateClient, args: argparse.Namespace) -> str:
    kid = args.kernel_id
    data = client.timeline(kid, args.name, limit=args.limit)
    if args.json:
        return json.dumps(data, indent=2)
    lines = []
    for e in data["entries"]:
        changes = "; ".join(e.get("changes") or [])
        lines.append(f"[{_count(e['execution_count'])}] {e['change']} {e.get('type') or ''}"
                     .rstrip()
                     + (f": {changes}" if changes else ""))
    footer = f"{len(data['entries']):,} of {data['total']:,} changes of {data['name']}"
    if data.get("complete_after") is not None:
        footer += f" (complete after execution {_count(data['complete_after'])})"
    if data.get("exists") is False:
        footer += "; not bound now"
    lines.extend(_lineage_lines(data))
    lines.append(footer)
    return "\n".join(lines)


#: Lineage lists of a timeline, and how the CLI names them.
_LINEAGE = (("defined_in", "defined in"), ("used_in", "used in"),
            ("unknown", "maybe touched (dynamic access) in"))


def _lineage_lines(data: dict[str, Any]) -> list[str]:
    """``defined in: [1] df = load() · [4] df['x'] += 1 (changed)``: each lineage list,
    newest last, each execution with its cell's first line (Python kernels)."""
    lines = []
    for key, label in _LINEAGE:
        entries = data.get(key) or []
        if not entries:
            continue
        parts = []
        for e in entries:
            text = f"[{_count(e['execution_count'])}] {(e.get('code') or '').split(chr(10))[0]}"
            notes = [n for n in (e.get("kind") if e.get("kind") in ("changed", "deleted")
                                 else None,
                                 "in a function" if e.get("in_function") else None,
                                 ", ".join(e.get("reasons") or []) or None) if n]
            parts.append(text + (f" ({'; '.join(notes)})" if notes else ""))
        held = (data.get("lineage_totals") or {}).get(key, len(entries))
        more = f" ({len(entries):,} of {held:,})" if held > len(entries) else ""
        lines.append(f"{label}{more}: " + " · ".join(parts))
    return lines


def cmd_images(client: KernelStateClient, args: argparse.Namespace) -> str:
    kid = args.kernel_id
    data = client.images(kid, since=args.since, limit=args.limit)
    if args.save:
        target = Path(args.save)
        target.mkdir(parents=True, exist_ok=True)
        for image in data["images"]:
            body = client.image(kid, image["id"])
            ext = image["mime"].split("/")[1].split("+")[0].replace("jpeg", "jpg")
            (target / f"exec{image['execution_count']}-{image['id']}.{ext}").write_bytes(body)
    if args.json:
        return json.dumps(data, indent=2)
    rows = [[i["id"], _count(i["execution_count"]), i["mime"],
             f"{i['width']:,}×{i['height']:,}" if i["width"] else "?", _bytes(i["bytes"])]
            for i in data["images"]]
    notes = [f"{len(rows):,} listed of {data['total']:,} images kept"
             + (f", {data['more']:,} more after them" if data.get("more") else "")]
    if args.save and rows:
        notes.append(f"saved in {args.save}")
    notes.append(f"next --since {data['next_since']}")
    notes.append(f"dropped {_count(data['dropped'])}, rejected {_count(data['rejected'])}")
    return _table(rows, ["ID", "EXEC", "MIME", "PIXELS", "SIZE"]) + "\n" + "; ".join(notes)


def cmd_prompt(client: KernelStateClient, args: argparse.Namespace) -> str:
    kid = args.kernel_id
    result = client.prompt(kid, args.budget, "json" if args.json else "text",
                           since=args.since, history=args.history)
    return json.dumps(result) if args.json else str(result)
