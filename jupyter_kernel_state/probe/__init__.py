"""The kernel-side probe.  Standard library only; imports nothing from the package.

Runs inside the user's kernel (shipped as source by ``service/probe_loader.py``) and is
importable normally for plain REPLs.  The core (``protocol``, ``guard``, ``quiet``,
``wire``, ``entry``) and five families: ``inspect`` (values), ``namespace`` (names),
``changes`` (change tracking), ``windows`` (what every table's view shares: cells,
filters, sorts, profiles, code), ``backends`` (one module per table library, in memory
or in an engine), and the operations (``ops``)::

    from jupyter_kernel_state.probe import summarize, format_card
"""

from .entry import call, detail, format_card, install, probe_id, snapshot, summarize, uninstall

#: The probe's modules (dotted, from the package) in dependency order: the loader creates
#: each sub-package before its first module and executes the modules in this order.
MODULES = (
    # the core: the protocol, the time guard, quiet calls, the reply on the wire
    "protocol",
    "guard",
    "quiet",
    "wire",
    # what a value is and how it reads
    "inspect.secrets",
    "inspect.display",
    "inspect.base",
    "inspect.scalars",
    "inspect.containers",
    "inspect.objects",
    "inspect.arrays",
    "inspect.tables",
    "inspect.third_party",
    "inspect.static",
    "inspect.fragments",
    "inspect.summary",
    "inspect.cache",
    "inspect.in_depth",
    # the user namespace: visible names and their order
    "namespace.visibility",
    "namespace.ordering",
    # change tracking
    "changes.fingerprints",
    "changes.copies",
    "changes.logs",
    "changes.lineage",
    "changes.hashing",
    "changes.polars_hashing",
    "changes.sources",
    "changes.table_words",
    "changes.contents",
    "changes.samples",
    "changes.records",
    "changes.bindings",
    "changes.tracker",
    "changes.since",
    # what every table's view shares: cells, expressions, filters, sorts, profiles, code
    "windows.cells",
    "windows.expressions",
    "windows.families",
    "windows.filters",
    "windows.columns",
    "windows.sources",
    "windows.order",
    "windows.code",
    "windows.statistics",
    "windows.profiles",
    "windows.findings",
    "windows.known_findings",
    "windows.finder",
    "windows.compare",
    "windows.compare_code",
    "windows.kept",
    # tables: one interface, one module per library (in memory, then in an engine)
    "backends.base",
    "backends.memory",
    "backends.engine_findings",
    "backends.engine",
    "backends.aggregates",
    "backends.sql",
    "backends.pandas",
    "backends.polars",
    "backends.numpy",
    "backends.records",
    "backends.duckdb",
    "backends.polars_lazy",
    "backends.ibis",
    "backends.spark",
    "backends.dask",
    # the operations, and the entry points
    "ops.snapshot",
    "ops.detail",
    "ops.table",
    "ops.rows",
    "ops.profile",
    "ops.findings",
    "ops.digest",
    "ops.code",
    "ops.kept",
    "ops.compare",
    "ops.count",
    "ops.variables",
    "entry",
)

__all__ = [
    "call",
    "detail",
    "format_card",
    "install",
    "probe_id",
    "snapshot",
    "summarize",
    "uninstall",
]
