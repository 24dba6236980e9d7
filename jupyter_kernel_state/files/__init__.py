"""Tables read straight from files under the server's root (CSV, TSV, Parquet, JSON Lines,
Excel) — the data explorer without a kernel: ``paths`` (which file, and may it be read),
``formats`` (by extension; their loading code), ``reader`` and ``worker`` (DuckDB in a
process of its own), ``tables`` (the routes' service)."""
