"""Every table the table ops read: one module per library behind one interface
(``base.TableBackend``, found by ``base.backend_for``).  Tables in memory (``memory``:
``pandas``, ``polars``, ``numpy`` with xarray, ``records``) are read a window at a time
by their own library; tables that live in an engine (``engine``: ``polars_lazy``,
``duckdb``, ``ibis``, ``spark``, ``dask``) are explored in the engine itself — the
window, the count, the sort, the filter and the profile pushed down, never collected."""
