"""The one interface every table implements and the registry that finds a value's table
(``backends.base``): every registered backend implements every method its kind asks for,
engines are tried before the libraries in memory, and what no backend takes is refused as
lazy or as no table, in the words the ops have always used."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
import xarray as xr

from jupyter_kernel_state.probe.backends import base
from jupyter_kernel_state.probe.backends.base import (
    ENGINES,
    IN_MEMORY,
    Lazy,
    NotTabular,
    TableBackend,
    backend_for,
)
from jupyter_kernel_state.probe.backends.engine import EngineTable
from jupyter_kernel_state.probe.backends.memory import MemoryTable
from jupyter_kernel_state.probe.guard import session


def _is_abstract(function: Any) -> bool:
    """Whether ``function``'s body (its docstring aside) is ``raise NotImplementedError``."""
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return False
    body = ast.parse(source).body[0].body  # type: ignore[attr-defined]
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc
    name = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(name, ast.Name) and name.id == "NotImplementedError"


def forgotten(table_class: type) -> list[str]:
    """The methods ``table_class`` leaves as its bases declared them: unimplemented."""
    out = []
    for name in dir(table_class):
        attribute = inspect.getattr_static(table_class, name)
        if isinstance(attribute, (staticmethod, classmethod)):
            attribute = attribute.__func__
        if inspect.isfunction(attribute) and _is_abstract(attribute):
            out.append(name)
    return sorted(out)


def test_the_interface_declares_what_the_ops_call() -> None:
    assert forgotten(TableBackend) == ["column_labels", "column_names", "columns_total",
                                       "read_count", "read_page", "read_profile", "write_code"]


def test_each_kind_implements_the_interface_and_declares_its_library_s_part() -> None:
    assert forgotten(EngineTable) == ["code", "count", "family", "profile_column", "raw_names",
                                      "read_schema", "window"]
    assert forgotten(MemoryTable) == ["column_labels", "column_values", "columns_total",
                                      "stats_column", "table", "total_rows", "window"]


@pytest.mark.parametrize("table_class", ENGINES + IN_MEMORY, ids=lambda c: c.__name__)
def test_every_registered_backend_implements_every_method(table_class: type) -> None:
    assert forgotten(table_class) == []


def test_a_backend_that_forgets_a_method_is_caught() -> None:
    class Half(MemoryTable):
        def total_rows(self) -> int:
            return 0

    assert forgotten(Half) == ["column_labels", "column_values", "columns_total", "stats_column",
                               "table", "window"]


def test_engines_are_registered_apart_from_the_libraries_in_memory() -> None:
    assert ENGINES and all(issubclass(c, EngineTable) and c.engine for c in ENGINES)
    assert IN_MEMORY and all(issubclass(c, MemoryTable) and c.engine is None for c in IN_MEMORY)
    assert {c.__name__ for c in ENGINES} == {"DaskTable", "DuckDBTable", "IbisTable",
                                             "PolarsLazyTable", "SparkTable"}
    assert {c.__name__ for c in IN_MEMORY} == {"PandasFrame", "PandasSeries", "PolarsFrame",
                                               "PolarsSeries", "NumpyArray", "DataArrayTable",
                                               "RecordList"}


# --- which table a value has -----------------------------------------------------------------


class _Records(list):  # type: ignore[type-arg]
    """A list subclass: still records."""


def _generator() -> Iterator[int]:
    yield 1


class DaskLike:
    """Stands for a dask collection no engine takes: only its module is read."""


DaskLike.__module__ = "dask.bag.core"

TABLES = [
    ("pandas-frame", lambda: pd.DataFrame({"a": [1]}), "PandasFrame"),
    ("pandas-series", lambda: pd.Series([1]), "PandasSeries"),
    ("polars-frame", lambda: pl.DataFrame({"a": [1]}), "PolarsFrame"),
    ("polars-series", lambda: pl.Series([1]), "PolarsSeries"),
    ("polars-lazy", lambda: pl.LazyFrame({"a": [1]}), "PolarsLazyTable"),
    ("ndarray", lambda: np.arange(3), "NumpyArray"),
    ("data-array", lambda: xr.DataArray(np.arange(3)), "DataArrayTable"),
    ("list", lambda: [{"a": 1}], "RecordList"),
    ("tuple", lambda: (1, 2), "RecordList"),
    ("list-subclass", lambda: _Records([1]), "RecordList"),
]


@pytest.mark.parametrize(("make", "expected"), [(m, e) for _, m, e in TABLES],
                         ids=[i for i, _, _ in TABLES])
def test_each_table_finds_its_backend(make: Any, expected: str) -> None:
    with session(1000, 2000) as s:
        assert type(backend_for(make(), s)).__name__ == expected


REFUSED = [
    ("iterator", lambda: iter([1]), Lazy, "a list_iterator, an iterator: showing rows would consume it"),
    ("generator", _generator, Lazy, "a generator, an iterator: showing rows would consume it"),
    ("dask", DaskLike, Lazy, "a dask DaskLike, which is lazy: showing rows would compute it"),
    ("3-d", lambda: np.zeros((2, 2, 2)), NotTabular, "a 3-D array: rows show 1-D and 2-D arrays"),
    ("dict", lambda: {"a": 1}, NotTabular, "a dict (mapping): rows show tables, arrays and lists of records"),
    ("int", lambda: 5, NotTabular, "a int (number): rows show tables, arrays and lists of records"),
]


@pytest.mark.parametrize(("make", "error", "words"), [(m, e, w) for _, m, e, w in REFUSED],
                         ids=[i for i, _, _, _ in REFUSED])
def test_what_no_backend_takes_is_refused(make: Any, error: type, words: str) -> None:
    with session(1000, 2000) as s, pytest.raises(error) as raised:
        backend_for(make(), s)
    assert str(raised.value) == words


def test_a_data_array_on_dask_is_lazy() -> None:
    da = pytest.importorskip("dask.array")
    with session(1000, 2000) as s, pytest.raises(Lazy, match="xarray DataArray on dask"):
        backend_for(xr.DataArray(da.zeros((4, 2), chunks=2)), s)


def test_the_probe_never_imports_a_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """Libraries come from ``sys.modules``: without them, values are plain ones."""
    for name in ("numpy", "pandas", "polars", "xarray"):
        monkeypatch.delitem(__import__("sys").modules, name)
    assert base.loaded("pandas") is None
    with session(1000, 2000) as s:
        assert type(backend_for([1, 2], s)).__name__ == "RecordList"
        with pytest.raises(NotTabular):
            backend_for(object(), s)
    assert base.loaded("pandas") is None
