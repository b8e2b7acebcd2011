"""The read side: `csrwh sql` and `csrwh export` on a small hand-made warehouse."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from csrwh.errors import CsrwhError
from csrwh.reading.query import export_marts, list_marts, run_query


@pytest.fixture()
def warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "wh.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create table main.conversations as select 'cosrec:1' as conversation_id, 3 as n_turns"
        )
        con.execute(
            "create table main.turns as select 'cosrec:1' as conversation_id, range as turn_index from range(3)"
        )
        con.execute("create schema raw; create table raw.x as select 1 as y")
        con.execute("create view main.not_a_mart as select 1 as z")
    return path


def test_sql_writes_csv_and_parquet(warehouse: Path, tmp_path: Path) -> None:
    csv_path, parquet_path = tmp_path / "out.csv", tmp_path / "out.parquet"
    n = run_query(
        warehouse, "select * from turns order by turn_index", csv=csv_path, parquet=parquet_path
    )
    assert n == 3
    assert pl.read_csv(csv_path)["turn_index"].to_list() == [0, 1, 2]
    assert pl.read_parquet(parquet_path).height == 3


def test_sql_writes_blob_columns_as_hex_to_a_file_and_piped(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A BLOB column (raw.rejected_records.raw_bytes) is lowercase hex in CSV, beside nested
    values: to a file, to standard output and printed off a terminal."""
    query = (
        "select 1 as n, '\\xFF\\x00ab'::blob as raw_bytes, [1, 2] as xs "
        "union all select 2, null, []"
    )
    csv_path = tmp_path / "blob.csv"
    run_query(warehouse, query + " order by n", csv=csv_path)
    assert csv_path.read_text("utf-8") == 'n,raw_bytes,xs\n1,ff006162,"[1, 2]"\n2,,[]\n'
    capsys.readouterr()
    run_query(warehouse, "select '\\xFF'::blob as b", csv=Path("-"))
    assert capsys.readouterr().out == "b\nff\n"
    run_query(warehouse, "select '\\x01'::blob as b")  # pytest's stdout is no terminal
    assert capsys.readouterr().out == "b\n01\n"


def test_sql_prints_table(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_query(warehouse, "select n_turns from conversations")
    assert "n_turns" in capsys.readouterr().out


def test_sql_bad_query_is_one_clear_error(warehouse: Path) -> None:
    with pytest.raises(CsrwhError, match="query failed"):
        run_query(warehouse, "select * from no_such_table")


def test_missing_warehouse_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(CsrwhError) as info:
        run_query(tmp_path / "absent.duckdb", "select 1")
    assert "does not exist" in info.value.message and "make demo" in (info.value.hint or "")


def test_export_writes_every_mart_table_only(warehouse: Path, tmp_path: Path) -> None:
    written = export_marts(warehouse, tmp_path / "exports")
    assert sorted(p.name for p in written) == ["conversations.parquet", "turns.parquet"]
    with duckdb.connect(str(warehouse), read_only=True) as con:
        assert list_marts(con) == ["conversations", "turns"]
