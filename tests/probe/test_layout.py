"""The probe's layout: its modules' imports parsed (no kernel), checked for cycles, for
the loader's order, for the families' layers and, inside ``backends``, for one module per
library over bases that know none; one handler per operation; Python 3.8."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from jupyter_kernel_state import probe
from jupyter_kernel_state.probe import entry, protocol

PROBE_DIR = Path(probe.__file__).parent
#: Modules (dotted, from the package) and their sources.
SOURCES = {
    ".".join(p.relative_to(PROBE_DIR).with_suffix("").parts): p.read_text(encoding="utf-8")
    for p in sorted(PROBE_DIR.rglob("*.py"))
}
MODULES = {m for m in SOURCES if m != "__init__" and not m.endswith(".__init__")}
PACKAGES = {m[: -len(".__init__")] for m in SOURCES if m.endswith(".__init__")}
#: The core, and what each family may import (besides itself).
CORE = {"protocol", "guard", "quiet", "wire"}
LAYERS = {
    "core": set(),
    "inspect": {"core"},
    "namespace": {"core", "inspect"},
    "changes": {"core", "inspect", "namespace"},
    "windows": {"core", "inspect"},
    "backends": {"core", "inspect", "windows"},
    "ops": {"core", "inspect", "namespace", "changes", "windows", "backends"},
    "entry": {"core", "inspect", "namespace", "changes", "windows", "backends", "ops"},
}


#: The backends' modules that know no library: the interface and the registry, each
#: kind's base, what engines share.  Every other backends module is one library's.
BACKEND_BASES = {"backends.base", "backends.memory", "backends.engine", "backends.aggregates",
                 "backends.sql", "backends.engine_findings"}
#: The libraries whose tables are seen through another library's pieces (numpy arrays and
#: records through pandas when imported, dask's filters are pandas', a LazyFrame's views
#: are built by polars' own table).
SEEN_THROUGH = {"backends.numpy": {"backends.pandas"}, "backends.records": {"backends.pandas"},
                "backends.dask": {"backends.pandas"}, "backends.polars_lazy": {"backends.polars"}}


def _package_of(module: str) -> str:
    return module.rsplit(".", 1)[0] if "." in module else ""


def _resolve(module: str, node: ast.ImportFrom) -> list[str]:
    """The probe modules an ``from … import …`` of ``module`` depends on."""
    assert node.level, f"{module} imports {node.module} absolutely: the probe imports itself relatively"
    if module == "__init__":
        package = ""
    elif module.endswith(".__init__"):
        package = module[: -len(".__init__")]
    else:
        package = _package_of(module)
    parts = package.split(".") if package else []
    assert node.level - 1 <= len(parts), f"{module} imports from beyond the probe"
    base = parts[: len(parts) - (node.level - 1)]
    prefix = ".".join([*base, *(node.module.split(".") if node.module else [])])
    out = []
    for alias in node.names:
        child = f"{prefix}.{alias.name}" if prefix else alias.name
        if child in MODULES:
            out.append(child)  # ``from . import guard``, ``from ..inspect import cache``
        elif prefix in MODULES:
            out.append(prefix)  # ``from .base import MISSING``
        else:
            assert prefix in PACKAGES or prefix == "", f"{module}: {prefix}.{alias.name} is no probe module"
    return out


def imports_of(module: str) -> set[str]:
    tree = ast.parse(SOURCES[module])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            found.update(_resolve(module, node))
    return found


GRAPH = {m: imports_of(m) for m in MODULES}


def _family(module: str) -> str:
    if module in CORE:
        return "core"
    return module.split(".")[0]


def test_no_import_circle() -> None:
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycle = [*path[path.index(module) :], module]
            pytest.fail("import circle: " + " -> ".join(cycle))
        if module in done:
            return
        for dependency in sorted(GRAPH[module]):
            visit(dependency, [*path, module])
        done.add(module)

    for module in sorted(GRAPH):
        visit(module, [])


def test_the_loader_runs_each_module_after_what_it_imports() -> None:
    order = {m: i for i, m in enumerate(probe.MODULES)}
    assert set(order) == MODULES
    for module, dependencies in GRAPH.items():
        for dependency in dependencies:
            assert order[dependency] < order[module], f"{module} runs before {dependency}"


def test_each_family_imports_only_the_layers_below() -> None:
    for module, dependencies in GRAPH.items():
        family = _family(module)
        allowed = LAYERS[family] | {family}
        for dependency in dependencies:
            assert _family(dependency) in allowed, f"{module} ({family}) imports {dependency}"


def test_the_backends_bases_know_no_library() -> None:
    for module in BACKEND_BASES:
        for dependency in GRAPH[module]:
            if _family(dependency) == "backends":
                assert dependency in BACKEND_BASES, f"{module} imports {dependency}"


def test_each_library_is_one_module_that_registers_its_tables() -> None:
    libraries = {m for m in MODULES if _family(m) == "backends"} - BACKEND_BASES
    assert libraries == {"backends." + name for name in (
        "pandas", "polars", "numpy", "records", "duckdb", "polars_lazy", "ibis", "spark", "dask")}
    for module in libraries:
        assert "\n@register\n" in SOURCES[module], f"{module} registers no table"
        others = {d for d in GRAPH[module] if _family(d) == "backends"} - BACKEND_BASES
        assert others == SEEN_THROUGH.get(module, set()), f"{module} imports {others}"


def test_only_the_registry_knows_every_library() -> None:
    """The table ops reach tables through ``backends.base`` alone (one path for every
    table); they import the libraries' modules only to register them."""
    for module in MODULES:
        if _family(module) != "ops":
            continue
        for dependency in GRAPH[module]:
            if _family(dependency) == "backends" and dependency not in BACKEND_BASES:
                assert module == "ops.table", f"{module} imports {dependency}"


def test_sub_packages_hold_no_code() -> None:
    """The loader executes a sub-package's ``__init__`` before its first module."""
    for package in PACKAGES:
        tree = ast.parse(SOURCES[package + ".__init__"])
        assert [type(n) for n in tree.body] == [ast.Expr], package  # a docstring only
    assert {_package_of(m) for m in MODULES} - {""} == PACKAGES


def test_one_handler_per_operation_all_of_one_signature() -> None:
    assert set(entry.HANDLERS) == set(protocol.OPERATIONS)
    for op, handler in entry.HANDLERS.items():
        params = list(inspect.signature(handler).parameters)
        assert params == ["state", "fields", "ns", "hidden", "tracker"], op


def test_each_class_name_means_one_thing() -> None:
    """No two probe classes share a name (``Records``, ``NotFound``, ``Tracker`` were
    each two or three things)."""
    seen: dict[str, str] = {}
    for module, source in SOURCES.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                assert node.name not in seen, f"{node.name} in {seen.get(node.name)} and {module}"
                seen[node.name] = module


# --- Python 3.8 kernels ---------------------------------------------------------------

#: Methods and functions that came after Python 3.8.
NEWER = {"removeprefix", "removesuffix", "bit_count", "pairwise", "stdlib_module_names", "lcm",
         "nextafter", "ulp", "NoneType", "EllipsisType", "NotImplementedType"}
_GENERIC_BUILTINS = {"list", "dict", "tuple", "set", "frozenset", "type"}


@pytest.mark.parametrize("module", sorted(SOURCES), ids=str)
def test_the_probe_runs_on_python_3_8(module: str) -> None:
    source = SOURCES[module]
    tree = ast.parse(source, feature_version=(3, 8))  # no match, no parenthesised with …
    annotations: set[int] = set()
    if "from __future__ import annotations" in source:  # annotations are never evaluated
        for node in ast.walk(tree):
            hints = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                args += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
                hints = [a.annotation for a in args] + [node.returns]
            elif isinstance(node, ast.AnnAssign):
                hints = [node.annotation]
            for hint in hints:
                if hint is not None:
                    annotations.update(id(n) for n in ast.walk(hint))
    for node in ast.walk(tree):
        if id(node) in annotations:
            continue
        if isinstance(node, ast.Attribute):
            assert node.attr not in NEWER, f"{module}:{node.lineno} {node.attr} is newer than 3.8"
            assert not (isinstance(node.value, ast.Name) and node.value.id == "functools"
                        and node.attr == "cache"), f"{module}:{node.lineno} functools.cache"
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            assert node.value.id not in _GENERIC_BUILTINS, (
                f"{module}:{node.lineno} {node.value.id}[…] at run time needs Python 3.9")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            for side in (node.left, node.right):
                is_type = isinstance(side, ast.Name) and side.id in {*_GENERIC_BUILTINS, "int", "str",
                                                                     "bool", "float", "bytes"}
                is_none = isinstance(side, ast.Constant) and side.value is None
                assert not (is_type or is_none), f"{module}:{node.lineno} X | Y needs Python 3.10"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip":
            assert all(k.arg != "strict" for k in node.keywords), f"{module}:{node.lineno} zip(strict=)"
