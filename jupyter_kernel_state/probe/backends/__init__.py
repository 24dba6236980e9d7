"""Tables that live in an engine (polars LazyFrame, DuckDB, Ibis, Spark, dask): one module
per library behind one interface (``base.EngineTable``), explored in the engine itself —
the window, the count, the sort, the filter and the profile pushed down, never collected."""
