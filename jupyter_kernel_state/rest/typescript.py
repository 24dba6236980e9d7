"""The frontend's REST types and route map, generated from the route table and the schema.

``python -m jupyter_kernel_state.rest.typescript > src/generated/rest.ts`` (``jlpm
generate:rest``); ``--check`` exits 1 when the committed file differs (a test runs it, as
for ``docs/openapi.json``). The output is what prettier would write, so lint passes too.

From ``schema/rest-v1.json``: every reply's interface and the enums they use, with their
descriptions as doc comments. From the route table (``table.py``): each route's query
interface (its parameters' TypeScript types and docs), ``IRouteMap`` (path segments,
query, body and reply of each route, by name) and ``ROUTES`` (method, path, status, how the
reply is read, how each query value is written), which ``src/restapi.ts``'s one
``request()`` reads. A few TypeScript-only types stay hand-written in ``src/payloads.ts``
(``AccessKey``, ``ITableHead``: narrower or wider than the wire on purpose, see OVERRIDES).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..probe import protocol
from ..service.annotations import MAX_FIELD_CHARS
from .kinds import BOOLEAN, CHOICE, CHOICES, FILTER, FLAG, INTEGER, PATH
from .openapi import schemas
from .params import Param, literal_union
from .table import EMPTY, IMAGE, ROUTES, SNAPSHOT, Route

OUTPUT = Path("src") / "generated" / "rest.ts"
WIDTH = 80

#: Schema objects and their interfaces (``Def.prop[]``: the items of an inline array).
INTERFACES = {
    "KernelList": "IKernelList", "KernelSummary": "IKernelSummary", "Snapshot": "ISnapshot",
    "ListedVariable": "IListedVariable", "Variable": "IVariable",
    "VariableDetail": "IVariableDetail", "VariableDetail.attributes[]": "IAttribute",
    "VariableDetail.children[]": "IChild", "VariableDetail.columns[]": "IColumn",
    "VariableBrief": "IVariableBrief", "VariableBrief.columns[]": "IColumn",
    "Annotation": "IAnnotation", "PromptResult": "IPromptResult", "Image": "IImage",
    "ImageList": "IImageList", "History": "IHistory", "History.entries[]": "IHistoryEntry",
    "Timeline": "ITimeline", "Timeline.entries[]": "ITimelineEntry",
    "LineageExecution": "ILineageExecution", "LineageNote": "ILineageNote",
    "RowsWindow": "IRowsWindow", "RowsWindow.columns[]": "IRowsColumn",
    "EngineInfo": "IEngineInfo", "EngineDetail": "IEngineDetail", "CountResult": "ICountResult",
    "FilterCondition": "IFilterCondition", "FilterNode|1": "IFilterAll",
    "FilterNode|2": "IFilterAny", "View": "IView", "ViewCode": "IViewCode",
    "TableProfile": "ITableProfile", "ColumnProfile": "IColumnProfile",
    "ColumnProfile.top[]": "IValueCount",
    "TableFindings": "ITableFindings", "Finding": "IFinding",
    "TableFindings.errors[]": "IFindingError", "TableFindings.not_checked[]": "IFindingNotChecked",
    "TableComparison": "ITableComparison", "ColumnComparison": "IColumnComparison",
    "TableComparison.window_columns[]": "IComparedColumn", "ComparedRow": "IComparedRow",
    "KeptVersion": "IKeptVersion", "KeptVersions": "IKeptVersions",
}
#: Schema enums and unions with a name of their own.
ALIASES = {
    "Kind": "VariableKind", "ListedVariable.change": "VariableChange",
    "VariableBrief.change": "VariableChange", "EngineInfo.name": "EngineName",
    "EngineDetail.name": "EngineName", "Image.mime": "ImageMime",
    "FilterCondition.op": "FilterOp", "FilterScalar": "FilterScalar",
    "FilterNode": "FilterNode", "ColumnProfile.family": "ColumnFamily",
    "ViewCode.syntax": "CodeSyntax", "Finding.kind": "FindingKind",
    "Finding.severity": "FindingSeverity", "ComparedRow.status": "CompareStatus",
}
#: Enums a newer server may extend: a reader takes any text too.
OPEN = {"Kind", "EngineInfo.name", "EngineDetail.name", "Image.mime", "RowsWindow.kind",
        "TableProfile.kind"}
#: Where the frontend's type says other than the wire's, and why.
OVERRIDES = {
    # The reader makes each listed variable whole (withVariableDefaults) before use.
    "Snapshot.variables": "IVariable[]",
    # Read by column as text keys; the schema names the four it has.
    "ColumnProfile.quantiles": "Record<string, number | null>",
    # The head's shape, not described by the schema (payloads.ts).
    "VariableDetail.head": "ITableHead | null",
    # Opaque to the frontend: sent back as it came (payloads.ts).
    "VariableDetail.children[].access_key": "AccessKey",
}
#: Route query interfaces whose names are not the route's own (``query_name``).
QUERIES = {
    "variables": "IVariablesQuery", "variable": "IDetailQuery", "rows": "IRowsQuery",
    "count": "ICountQuery", "code": "ICodeQuery", "profile": "IProfileQuery",
    "timeline": "ITimelineQuery", "images": "IImageQuery", "image": "IImageBytesQuery",
    "history": "IHistoryQuery", "prompt": "IPromptQuery",
}
#: A parameter's TypeScript type where it has a name of its own.
PARAM_TYPES = {
    ("variables", "include"): "IncludeGroup[]", ("variables", "sort"): "SnapshotSort",
    ("code", "syntax"): "CodeSyntax", ("compare", "status"): "CompareStatus[]",
}
#: How ``request()`` writes each value into a query string (see src/restapi.ts).
ENCODINGS = {INTEGER: "number", CHOICES: "list", PATH: "json", FILTER: "json"}
#: How it reads each reply.
REPLIES = {SNAPSHOT: "snapshot", IMAGE: "blob", EMPTY: "empty"}


def doc(text: str, indent: str = "") -> list[str]:
    """``text`` as a JSDoc comment at ``indent``, wrapped at the print width."""
    if not text:
        return []
    lines = textwrap.wrap(" ".join(text.split()), WIDTH - len(indent) - 3,
                          break_long_words=False, break_on_hyphens=False)
    return [f"{indent}/**", *(f"{indent} * {line}" for line in lines), f"{indent} */"]


class Schema:
    """The TypeScript of the schema's ``$defs``."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.names = {**INTERFACES, **ALIASES}

    def type(self, node: dict[str, Any], where: str, declaring: bool = False) -> str:
        """The TypeScript type of ``node``, found at ``where`` (``Def.prop``; ``|1``: the
        second member of a union); ``declaring``: the named union itself, not a use."""
        if where in OVERRIDES:
            return OVERRIDES[where]
        if where in ALIASES and not declaring:
            return ALIASES[where] + (" | string" if where in OPEN else "")
        if "$ref" in node:
            name = node["$ref"].split("/")[-1]
            return str(self.names.get(name, "I" + name)) + (" | string" if name in OPEN else "")
        if "anyOf" in node:
            return self.union(self.type(n, f"{where}|{i}") for i, n in enumerate(node["anyOf"]))
        if isinstance(node.get("const"), bool):
            return "boolean"
        if "enum" in node or "const" in node:
            values = literal_union(node.get("enum", [node.get("const")]))
            return values + (" | string" if where in OPEN and not declaring else "")
        kinds = node.get("type", "object")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        return self.union(self.simple(kind, node, where) for kind in kinds)

    @staticmethod
    def union(parts: Iterator[str]) -> str:
        out: list[str] = []
        for part in parts:
            if part not in out:
                out.append(part)
        return " | ".join(out)

    def simple(self, kind: str, node: dict[str, Any], where: str) -> str:
        if kind == "array":
            item = self.type(node.get("items", {}), where + "[]")
            return f"({item})[]" if _is_union(item) else f"{item}[]"
        if kind == "object":
            if where in INTERFACES:
                return INTERFACES[where]
            if "properties" not in node:
                return "Record<string, unknown>"
            members = "; ".join(f"{name}{'' if name in node.get('required', ()) else '?'}: "
                                f"{self.type(prop, f'{where}.{name}')}"
                                for name, prop in node["properties"].items())
            return "{ " + members + " }"
        return {"string": "string", "integer": "number", "number": "number",
                "boolean": "boolean", "null": "null"}[kind]

    def declarations(self) -> Iterator[str]:
        """The aliases and interfaces, in the schema's order of definitions."""
        done: set[str] = set()
        for where, name in self.named():
            if name in done:
                continue
            done.add(name)
            node = self.at(where)
            yield "\n".join(self.declare(where, name, node))

    def named(self) -> Iterator[tuple[str, str]]:
        for def_name in self.defs:
            for where, name in {**ALIASES, **INTERFACES}.items():
                if where.split(".")[0].split("|")[0] == def_name:
                    yield where, name

    def at(self, where: str) -> dict[str, Any]:
        first, *steps = where.split(".")
        def_name, _, branch = first.partition("|")
        node = self.defs[def_name]
        if branch:
            node = node["anyOf"][int(branch)]
        for step in steps:
            node = self.resolve(node["properties"][step.removesuffix("[]")])
            if step.endswith("[]"):
                node = self.resolve(node["items"])
        return dict(node)

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        if "$ref" in node:
            return self.defs[node["$ref"].split("/")[-1]]  # type: ignore[no-any-return]
        return node

    def declare(self, where: str, name: str, node: dict[str, Any]) -> list[str]:
        lines = doc(node.get("description", ""))
        if name in ALIASES.values():
            body = self.type(node, where, declaring=True)
            return lines + alias(name, body)
        base = ""
        properties = dict(node.get("properties", {}))
        required = set(node.get("required", ()))
        for part in node.get("allOf", ()):
            if "$ref" not in part:
                continue  # conditional requirements (ColumnProfile) are not types
            ref = part["$ref"].split("/")[-1]
            if properties:
                base = f" extends {self.names[ref]}"
            else:  # the same fields, more of them required (Variable)
                properties = dict(self.defs[ref]["properties"])
                where = ref
        members: list[str] = []
        for prop, value in properties.items():
            members += doc(value.get("description", ""), "  ")
            optional = "" if prop in required else "?"
            members += member(f"{prop}{optional}", self.type(value, f"{where}.{prop}"))
        if not members:
            return [*lines, f"export interface {name}{base} {{}}"]
        return [*lines, f"export interface {name}{base} {{", *members, "}"]


def _is_union(type_: str) -> bool:
    """Whether ``type_`` is a union at its top level (``a | b``, not ``{ a: b | c }``)."""
    depth = 0
    for i, char in enumerate(type_):
        depth += char in "({[<"
        depth -= char in ")}]>"
        if depth == 0 and type_[i:i + 3] == " | ":
            return True
    return False


def alias(name: str, body: str) -> list[str]:
    line = f"export type {name} = {body};"
    if len(line) <= WIDTH or " | " not in body:
        return [line]
    if len(f"  {body};") <= WIDTH:  # as prettier writes it: the union on a line of its own
        return [f"export type {name} =", f"  {body};"]
    parts = body.split(" | ")
    return [f"export type {name} =", *(f"  | {part}" for part in parts[:-1]),
            f"  | {parts[-1]};"]


def member(name: str, type_: str, indent: str = "  ") -> list[str]:
    line = f"{indent}{name}: {type_};"
    if len(line) <= WIDTH:
        return [line]
    if type_.startswith("{ ") and type_.endswith(" }"):
        inner = [f"{indent}  {part};" for part in type_[2:-2].split("; ")]
        return [f"{indent}{name}: {{", *inner, f"{indent}}};"]
    parts = type_.split(" | ")
    return [f"{indent}{name}:", *(f"{indent}  | {part}" for part in parts[:-1]),
            f"{indent}  | {parts[-1]};"]


# --- the route table ------------------------------------------------------------------


def param_type(route: Route, p: Param) -> str:
    if (route.name, p.name) in PARAM_TYPES:
        return PARAM_TYPES[(route.name, p.name)]
    if p.kind is CHOICE:
        return literal_union(p.choices)
    return p.typescript()


def encoding(p: Param) -> str:
    if p.kind is FLAG or (p.kind is BOOLEAN and p.default is False):
        return "flag"  # left out when false
    if p.kind is BOOLEAN:
        return "boolean"
    return ENCODINGS.get(p.kind, "text")


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", ")")) else ".")


def query_name(route: Route) -> str | None:
    """The route's query interface: ``I<Route>Query`` (``QUERIES`` where the frontend
    knew it by another name), None for a route without query parameters."""
    if route.name in QUERIES:
        return QUERIES[route.name]
    if not route.query_params:
        return None
    return "I" + "".join(part.title() for part in route.name.split("_")) + "Query"


def queries() -> Iterator[str]:
    for route in ROUTES.values():
        name = query_name(route)
        if name is None:
            continue
        lines = doc(f"Query of `{route.method} {route.path}`.")
        members: list[str] = []
        for p in route.query_params:
            members += doc(_sentence(p.description()), "  ")
            members += member(f"{p.name}?", param_type(route, p))
        yield "\n".join([*lines, f"export interface {name} {{", *members, "}"])


#: Each route's path segments, as the route map names them.
SEGMENTS = {(): "NoSegments", ("kernel_id",): "KernelPath",
            ("kernel_id", "name"): "VariablePath", ("kernel_id", "image_id"): "ImagePath",
            ("kernel_id", "name", "execution"): "KeptPath"}


def route_map() -> str:
    lines = [
        *doc("A route's path segments, query, reply and body, as the frontend reads them."),
        "export interface IRoute<P, Q, R, B = never> {",
        "  path: P;", "  query: Q;", "  reply: R;", "  body: B;", "}", "",
        "export type NoSegments = Record<never, never>;",
        "export type NoQuery = Record<string, never>;",
        "export type KernelPath = { kernel_id: string };",
        "export type VariablePath = KernelPath & { name: string };",
        "export type ImagePath = KernelPath & { image_id: string };",
        "export type KeptPath = VariablePath & { execution: number };", "",
        *doc("Every route of the REST API by name (`jupyter_kernel_state/rest/table.py`)."),
        "export interface IRouteMap {",
    ]
    for route in ROUTES.values():
        segments = SEGMENTS[tuple(p.name for p in route.params if p.where == "path")]
        query = query_name(route) or "NoQuery"
        reply = {SNAPSHOT: "ISnapshot", IMAGE: "Blob", EMPTY: "void"}.get(
            route.serve, INTERFACES.get(route.reply, "I" + route.reply))
        body = ", IAnnotationUpdate" if route.body is not None else ""
        lines += doc(route.summary + ".", "  ")
        lines += member(route.name, f"IRoute<{segments}, {query}, {reply}{body}>")
    lines.append("}")
    return "\n".join(lines)


def routes() -> str:
    lines = doc("How `request()` sends each route: its method and path, the status of "
                "success, how the reply is read and how each query value is written; "
                "`large`: the query may go in a JSON body (POST) when too long for a URL.")
    lines.append("export const ROUTES: { readonly [K in keyof IRouteMap]: IRouteSpec } = {")
    for i, route in enumerate(ROUTES.values()):
        query = ", ".join(f"{p.name}: '{encoding(p)}'" for p in route.query_params)
        fields = [f"method: '{route.method}'", f"path: '{route.path}'",
                  f"status: {route.status}", f"reply: '{REPLIES.get(route.serve, 'json')}'",
                  f"large: {'true' if route.large else 'false'}",
                  f"query: {{ {query} }}" if query else "query: {}"]
        last = i == len(ROUTES) - 1
        lines.append(f"  {route.name}: {{")
        for j, item in enumerate(fields):
            end = "" if j == len(fields) - 1 else ","
            if len(f"    {item}{end}") > WIDTH and item.startswith("query"):
                entries = [f"{p.name}: '{encoding(p)}'" for p in route.query_params]
                lines += ["    query: {",
                          *(f"      {e}{',' if k < len(entries) - 1 else ''}"
                            for k, e in enumerate(entries)), f"    }}{end}"]
            else:
                lines.append(f"    {item}{end}")
        lines.append("  }" + ("" if last else ","))
    lines.append("};")
    return "\n".join(lines)


PREAMBLE = '''/**
 * The REST API's types and route map, generated from the route table
 * (`jupyter_kernel_state/rest/table.py`) and the JSON Schema of its replies
 * (`jupyter_kernel_state/schema/rest-v1.json`) by `jlpm generate:rest`. Do not edit:
 * change the table or the schema and generate again (a test fails when this file is
 * not what they give).
 */
import type { AccessKey, ITableHead } from '../payloads';'''

ROUTE_SPEC = "\n".join([
    *doc("How one route is sent (`ROUTES`)."),
    "export interface IRouteSpec {",
    "  method: 'GET' | 'POST' | 'PUT' | 'DELETE';",
    *doc("Under `{baseUrl}api/kernel-state/`, with `{segment}`s from the route's path.", "  "),
    "  path: string;",
    "  status: 200 | 204;",
    "  reply: 'json' | 'snapshot' | 'blob' | 'empty';",
    "  large: boolean;",
    "  query: { readonly [name: string]: QueryEncoding };",
    "}",
    "",
    *doc("How a query value is written: a number, text, a comma list, JSON, a boolean, or "
         "a flag (left out when false)."),
    *alias("QueryEncoding", literal_union(("number", "text", "list", "json", "boolean",
                                           "flag"))),
])


def generate() -> str:
    schema = Schema(schemas())
    variable = [f"  {k}: {_literal(v)}," for k, v in protocol.VARIABLE_DEFAULTS.items()]
    variable[-1] = variable[-1].rstrip(",")
    keys = list(protocol.VARIABLE_DEFAULTS)
    parts = [
        PREAMBLE,
        *schema.declarations(),
        "\n".join([*doc("Which otherwise hidden groups of names a snapshot includes."),
                   *alias("IncludeGroup", literal_union(protocol.INCLUDE_GROUPS))]),
        "\n".join([*doc("What a snapshot can be sorted by."),
                   *alias("SnapshotSortKey", literal_union(protocol.SORTS))]),
        "\n".join([*doc("A snapshot's order: a key in its own direction (name and type "
                        "ascending; size, memory and changed largest or latest first), or a "
                        "key with an explicit direction."),
                   *alias("SnapshotSort", "SnapshotSortKey | `${SnapshotSortKey}:asc` | "
                          "`${SnapshotSortKey}:desc`")]),
        *queries(),
        "\n".join([*doc("The body of `PUT .../annotation`: what a person says about a "
                        "variable for the assistant. The PUT replaces the whole note: a "
                        "missing field is stored as null/false."),
                   "export interface IAnnotationUpdate {",
                   "  description?: string | null;", "  constraints?: string | null;",
                   "  hidden_from_prompt?: boolean;", "}"]),
        "\n".join([*doc("The maximum length of a description or constraints text."),
                   f"export const ANNOTATION_MAX_CHARS = {MAX_FIELD_CHARS};"]),
        "\n".join([*doc("The fields a snapshot's list leaves out when they hold their "
                        "default (the lean wire: `ListedVariable` in the schema); `qualname` "
                        "is left out when it equals `type`."),
                   "export const VARIABLE_DEFAULTS: Readonly<",
                   "  Pick<", "    IVariable,",
                   *(f"    | '{k}'" for k in keys), "  >", "> = {", *variable, "};"]),
        route_map(),
        ROUTE_SPEC,
        routes(),
    ]
    return "\n\n".join(parts) + "\n"


def _literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"'{value}'"
    return "[]" if value == [] else str(value)


def main(argv: list[str]) -> int:
    text = generate()
    if "--check" in argv:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is not current: run `jlpm generate:rest`", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
