"""``GET files/rows|profile|findings|code``: tables read straight from files under the
server's root by DuckDB in a worker process — a real server, real files, a real DuckDB;
the answers checked against DuckDB's own, computed here."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pytest
from jupyter_server.auth.authorizer import Authorizer
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from ..browser_login import browser_login
from ..kernel_utils import status_of, validate

N = 2_000


@pytest.fixture
def tables(jp_root_dir: Path) -> Path:
    """The same table as CSV, TSV, Parquet, JSON Lines and Excel in the server's root."""
    data = jp_root_dir / "data"
    data.mkdir()
    con = duckdb.connect()
    con.execute(f"""CREATE TABLE t AS SELECT range AS id,
        ['north', 'south', 'east', 'west'][range % 4 + 1] AS region,
        CASE WHEN range % 97 = 0 THEN NULL ELSE round((range * 37 % 1000) / 10.0, 1) END
            AS price,
        DATE '2024-01-01' + CAST(range % 60 AS INTEGER) AS day
        FROM range({N})""")
    for name, options in (("sales.parquet", "FORMAT parquet"), ("sales.csv", "HEADER"),
                          ("sales.tsv", "HEADER, DELIMITER '\t'"),
                          ("sales.jsonl", "FORMAT json")):
        con.execute(f"COPY t TO '{data / name}' ({options})")
    frame = con.execute("SELECT * FROM t").df()
    frame.to_excel(data / "sales.xlsx", index=False)
    return data


async def fetch(jp_fetch: Any, route: str, **params: Any) -> dict[str, Any]:
    query = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    try:
        response = await jp_fetch("api", "kernel-state", "files", route, params=query)
    except HTTPClientError as e:  # the server's message in the failure
        raise AssertionError(f"{route} {params}: {e.code} {e.response.body!r}") from None
    return json.loads(response.body)  # type: ignore[no-any-return]


FORMATS = ["parquet", "csv", "tsv", "jsonl", "xlsx"]


@pytest.mark.parametrize("ext", FORMATS)
async def test_rows_sort_filter_each_format(jp_fetch: Any, tables: Path, ext: str) -> None:
    path = f"data/sales.{ext}"
    first = await fetch(jp_fetch, "rows", path=path, limit="5")
    validate(first, "RowsWindow")
    assert first["name"] == "sales" and first["total_rows"] == N
    assert [c["name"] for c in first["columns"]] == ["id", "region", "price", "day"]
    assert [row[0] for row in first["rows"]] == ["0", "1", "2", "3", "4"]
    view = await fetch(jp_fetch, "rows", path=path, limit="3", sort="price:desc,id:asc",
                       filter={"column": "region", "op": "eq", "value": "east"})
    expected = duckdb.sql(f"""SELECT id FROM read_parquet('{tables / "sales.parquet"}')
        WHERE region = 'east' ORDER BY price DESC NULLS LAST, id LIMIT 3""").fetchall()
    assert [int(row[0]) for row in view["rows"]] == [r[0] for r in expected]
    assert view["filtered_rows"] == N // 4 and view["sort"] == "price:desc,id:asc"


@pytest.mark.parametrize("ext", FORMATS)
async def test_profile_findings_and_code(jp_fetch: Any, tables: Path, ext: str) -> None:
    path = f"data/sales.{ext}"
    profile = await fetch(jp_fetch, "profile", path=path)
    validate(profile, "TableProfile")
    price = next(c for c in profile["columns"] if c["name"] == "price")
    assert price["null_count"] == len(range(0, N, 97))
    findings = await fetch(jp_fetch, "findings", path=path)
    validate(findings, "TableFindings")
    assert any(f["kind"] == "missing" and f["columns"] == ["price"]
               for f in findings["findings"])
    view = {"sort": "price:desc", "filter": {"column": "price", "op": "gt", "value": 50}}
    for syntax, reader in (("pandas", "pd.read_"), ("polars", "pl."), ("duckdb", "duckdb."),
                           ("dplyr", "<- ")):
        code = await fetch(jp_fetch, "code", path=path, syntax=syntax, **view)
        validate(code, "ViewCode")
        assert code["syntax"] == syntax and reader in code["code"], code["code"]
        assert "sales_view" in code["code"] and f"data/sales.{ext}" in code["code"]


async def test_loading_code_runs_and_keeps_the_view(jp_fetch: Any, tables: Path) -> None:
    """The pandas, polars and DuckDB code, run here, binds the rows the explorer shows."""
    params = {"sort": "price:desc,id:asc", "relative_to": "data",
              "filter": {"or": [{"column": "region", "op": "eq", "value": "north"},
                                {"column": "price", "op": "lt", "value": 5}]}}
    window = await fetch(jp_fetch, "rows", path="data/sales.parquet", limit="20",
                         sort=params["sort"], filter=params["filter"])
    shown = [int(row[0]) for row in window["rows"]]
    cwd = os.getcwd()
    os.chdir(tables)
    try:
        for syntax in ("pandas", "polars", "duckdb"):
            code = (await fetch(jp_fetch, "code", path="data/sales.parquet", syntax=syntax,
                                **params))["code"]
            scope: dict[str, Any] = {}
            exec(code, scope)  # the generated code, on the test's own file
            result = scope["sales_view"]
            ids = (list(result["id"][:20]) if syntax != "duckdb"
                   else [r[0] for r in result.limit(20).fetchall()])
            assert [int(i) for i in ids] == shown, (syntax, code)
    finally:
        os.chdir(cwd)


async def test_random_views_equal_duckdb(jp_fetch: Any, tables: Path) -> None:
    """Seeded property: a random view's window is DuckDB's own answer to the same SQL."""
    rng = random.Random(30)
    source = f"read_parquet('{tables / 'sales.parquet'}')"
    ops = {"gt": ">", "le": "<=", "eq": "=", "ne": "<>"}
    for _ in range(12):
        column = rng.choice(["price", "id"])
        op = rng.choice(list(ops))
        value = rng.randrange(0, 100) if column == "price" else rng.randrange(0, N)
        key = rng.choice(["price", "day", "region"])
        desc = rng.random() < 0.5
        offset, limit = rng.randrange(0, 50), rng.randrange(1, 30)
        window = await fetch(jp_fetch, "rows", path="data/sales.parquet",
                             offset=str(offset), limit=str(limit),
                             sort=f"{key}:{'desc' if desc else 'asc'},id:asc",
                             filter={"column": column, "op": op, "value": value})
        expected = duckdb.sql(
            f"SELECT id FROM {source} WHERE {column} {ops[op]} {value} "
            f"ORDER BY {key} {'DESC' if desc else 'ASC'} NULLS LAST, id "
            f"LIMIT {limit} OFFSET {offset}").fetchall()
        count = duckdb.sql(f"SELECT count(*) FROM {source} WHERE {column} {ops[op]} {value}"
                           ).fetchall()[0][0]
        assert [int(r[0]) for r in window["rows"]] == [r[0] for r in expected]
        assert window["filtered_rows"] == count


async def status(jp_fetch: Any, route: str, **params: str) -> tuple[int, str]:
    return await status_of(jp_fetch, "files", route, **params)  # type: ignore[no-any-return]


async def test_paths_outside_the_root_and_bad_files(jp_fetch: Any, tables: Path,
                                                    jp_root_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.csv"
    outside.write_text("a,b\n1,2\n")
    (jp_root_dir / "link.csv").symlink_to(outside)
    (jp_root_dir / "text.parquet").write_text("this is not parquet\n" * 100)
    (jp_root_dir / "binary.csv").write_bytes(bytes(range(256)) * 50)
    (jp_root_dir / ".hidden.csv").write_text("a\n1\n")
    (jp_root_dir / "notes.txt").write_text("a\n1\n")
    cases = {
        "../secret.csv": 403, "data/../../secret.csv": 403, str(outside): 404,
        "link.csv": 403, "missing.parquet": 404, ".hidden.csv": 404,
        "notes.txt": 400, "data": 400, "text.parquet": 422,
    }
    for path, expected in cases.items():
        code, message = await status(jp_fetch, "rows", path=path)
        assert code == expected, (path, code, message)
        assert message and "Traceback" not in message and str(tmp_path) not in message
    code, message = await status(jp_fetch, "rows", path="binary.csv")
    assert code in (200, 422), message  # DuckDB may read bytes as one text column
    code, message = await status(jp_fetch, "rows", path="data/sales.parquet",
                                 filter='{"column": "nope", "op": "eq", "value": 1}')
    assert code == 400 and "nope" in message
    code, message = await status(jp_fetch, "rows", path="data/sales.parquet",
                                 filter='{"column": "price", "op": "gt", "value": "abc"}')
    assert code == 400 and "price" in message


async def test_an_unreadable_parquet_schema(jp_fetch: Any, jp_root_dir: Path) -> None:
    """A Parquet file whose footer is cut: DuckDB cannot read its schema (422)."""
    whole = jp_root_dir / "whole.parquet"
    duckdb.sql(f"COPY (SELECT range AS x FROM range(1000)) TO '{whole}' (FORMAT parquet)")
    data = whole.read_bytes()
    (jp_root_dir / "cut.parquet").write_bytes(data[:-20] + b"PAR1")
    code, message = await status(jp_fetch, "rows", path="cut.parquet")
    assert code == 422 and "cut.parquet" in message


async def test_the_worker_killed_in_the_middle(jp_fetch: Any, tables: Path,
                                               jp_serverapp: Any) -> None:
    files = jp_serverapp.web_app.settings["jupyter_kernel_state"].files
    await fetch(jp_fetch, "rows", path="data/sales.parquet", limit="1")
    pid, started = files.reader.pid, files.reader.started
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    # Killed between two requests or during one: that one may be a 503 (try again).
    code, message = await status(jp_fetch, "rows", path="data/sales.csv", limit="1")
    assert code == 200 or (code == 503 and "try again" in message), message
    again = await fetch(jp_fetch, "rows", path="data/sales.csv", limit="2")
    assert again["total_rows"] == N and files.reader.started == started + 1


class DenyContentsAuthorizer(Authorizer):
    """A deployment where this user may not read files (but may run kernels)."""

    def is_authorized(self, handler, user, action, resource):  # type: ignore[no-untyped-def]
        return resource != "contents"


class TestNoContentsAccess:
    @pytest.fixture
    def jp_server_config(self) -> Config:
        return Config({"ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True},
                                     "authorizer_class": DenyContentsAuthorizer}})

    async def test_file_routes_need_contents_read(self, jp_fetch: Any, tables: Path) -> None:
        for route in ("rows", "profile", "findings", "code"):
            code, _message = await status(jp_fetch, route, path="data/sales.parquet")
            assert code == 403, route


class TestBounds:
    @pytest.fixture
    def jp_server_config(self) -> Config:
        return Config({"ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True}},
                       "KernelStateApp": {"files_max_bytes": 100_000,
                                          "files_excel_max_rows": 100,
                                          "rows_count_ms": 1}})

    async def test_size_and_row_bounds(self, jp_fetch: Any, tables: Path) -> None:
        assert (tables / "sales.jsonl").stat().st_size > 100_000
        code, message = await status(jp_fetch, "rows", path="data/sales.jsonl")
        assert code == 413 and "files_max_bytes" in message
        code, message = await status(jp_fetch, "rows", path="data/sales.xlsx")
        assert code == 422 and "files_excel_max_rows" in message
        window = await fetch(jp_fetch, "rows", path="data/sales.parquet", limit="3")
        assert len(window["rows"]) == 3


class TestGuards:
    """A large CSV: its first window comes at once, its count and its sort are bounded
    by their guards (cancelled in DuckDB, said so), and the worker goes on."""

    @pytest.fixture
    def jp_server_config(self) -> Config:
        return Config({"ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True}},
                       "KernelStateApp": {"rows_count_ms": 1, "rows_sort_ms": 300}})

    async def test_a_large_csv_is_read_within_its_guards(self, jp_fetch: Any,
                                                         jp_root_dir: Path) -> None:
        big = jp_root_dir / "big.csv"
        duckdb.sql(f"""COPY (SELECT range AS id, md5(CAST(range AS VARCHAR)) AS token
            FROM range(5000000)) TO '{big}' (HEADER)""")
        window = await fetch(jp_fetch, "rows", path="big.csv", limit="3")
        assert [row[0] for row in window["rows"]] == ["0", "1", "2"]
        assert window["total_rows"] is None  # not counted within rows_count_ms
        # A window deep into the sorted rows: a whole sort (about 1.2 s on 2 quiet cores),
        # several times its guard; the first window took about 50 ms.
        code, message = await status(jp_fetch, "rows", path="big.csv", sort="token:desc",
                                     offset="4000000")
        assert code == 422 and "time guard" in message, message
        again = await fetch(jp_fetch, "rows", path="big.csv", offset="10", limit="2")
        assert [row[0] for row in again["rows"]] == ["10", "11"]


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed")
async def test_dplyr_code_keeps_the_view_in_r(jp_fetch: Any, tables: Path) -> None:
    """The dplyr code parses, and its view (run on the CSV read by base R, readr aside)
    keeps the rows the explorer shows, in its order."""
    params = {"sort": "price:desc,id:asc",
              "filter": {"or": [{"column": "region", "op": "eq", "value": "north"},
                                {"column": "price", "op": "lt", "value": 5}]}}
    window = await fetch(jp_fetch, "rows", path="data/sales.csv", limit="15", **params)
    code = (await fetch(jp_fetch, "code", path="data/sales.csv", syntax="dplyr",
                        relative_to="data", **params))["code"]
    read, _, view = code.partition("\n")
    assert read == 'sales <- readr::read_csv("sales.csv")', code
    script = (f"invisible(parse(text = {json.dumps(code)}))\n"
              "suppressMessages(library(dplyr))\n"
              f"sales <- read.csv({json.dumps(str(tables / 'sales.csv'))})\n"
              f"{view}\ncat(head(sales_view$id, 15), sep = ',')\n")
    done = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(",") == [row[0] for row in window["rows"]]


async def test_cookie_authenticated_reads_need_xsrf(jp_fetch: Any, jp_serverapp: Any,
                                                    tables: Path) -> None:
    """A file's data is read with the XSRF check, as jupyter_server's /files does."""
    cookie, xsrf = await browser_login(jp_fetch, jp_serverapp)
    query = {"path": "data/sales.parquet", "limit": "1"}
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "files", "rows", params=query,
                       headers={"Authorization": "", "Cookie": cookie})
    assert e.value.code == 403
    ok = await jp_fetch("api", "kernel-state", "files", "rows", params=query,
                        headers={"Authorization": "", "Cookie": cookie, "X-XSRFToken": xsrf})
    assert json.loads(ok.body)["total_rows"] == N


class TestDeadline:
    """Work the probe's guards do not cover (openpyxl reading a workbook) past
    ``files_timeout``: the worker is stopped, the request is a 503, the next is served."""

    @pytest.fixture
    def jp_server_config(self) -> Config:
        return Config({"ServerApp": {"jpserver_extensions": {"jupyter_kernel_state": True}},
                       "KernelStateApp": {"files_timeout": 1.0}})

    async def test_a_worker_past_its_deadline_is_replaced(self, jp_fetch: Any,
                                                          jp_root_dir: Path,
                                                          jp_serverapp: Any) -> None:
        frame = duckdb.sql("SELECT range AS id, md5(CAST(range AS VARCHAR)) AS token, "
                           "range * 1.5 AS x FROM range(60000)").df()
        frame.to_excel(jp_root_dir / "slow.xlsx", index=False)
        duckdb.sql(f"COPY (SELECT 1 AS a) TO '{jp_root_dir / 'one.parquet'}' (FORMAT parquet)")
        reader = jp_serverapp.web_app.settings["jupyter_kernel_state"].files.reader
        await fetch(jp_fetch, "rows", path="one.parquet")  # the worker started
        first = reader.pid
        code, message = await status(jp_fetch, "rows", path="slow.xlsx")
        assert code == 503 and "files_timeout" in message, message
        window = await fetch(jp_fetch, "rows", path="one.parquet")
        assert window["rows"] == [["1"]] and reader.pid not in (None, first)
