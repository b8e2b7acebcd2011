"""`csrwh sql` is read-only for real and `csrwh export` cannot be steered by its path
(issue 13, item 8)."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import polars as pl
import pytest

from csrwh.errors import CsrwhError
from csrwh.reading.query import export_marts, run_query


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
    return path


@pytest.mark.parametrize(
    "query",
    [
        "copy conversations to '{victim}' (format csv)",
        "copy (select 1 as x) to '{victim}'",
        "export database '{folder}'",
    ],
    ids=["copy-table", "copy-query", "export-database"],
)
def test_sql_cannot_write_files(warehouse: Path, tmp_path: Path, query: str) -> None:
    victim = tmp_path / "victim.csv"
    victim.write_text("precious\n")
    folder = tmp_path / "dump"
    with pytest.raises(CsrwhError, match="query failed"):
        run_query(warehouse, query.format(victim=victim, folder=folder))
    assert victim.read_text() == "precious\n" and not folder.exists()


def test_sql_cannot_overwrite_the_warehouse_itself(warehouse: Path) -> None:
    before = warehouse.read_bytes()
    with pytest.raises(CsrwhError):
        run_query(warehouse, f"copy conversations to '{warehouse}' (format parquet)")
    assert warehouse.read_bytes() == before


@pytest.mark.parametrize(
    "query",
    [
        "select * from read_text('{secret}')",
        "select * from read_csv('{secret}')",
        "select * from '{secret}'",
        "select * from read_blob('{secret}')",
        "select * from glob('{folder}/*')",
        "attach '{other}' as o",
    ],
    ids=["read_text", "read_csv", "replacement-scan", "read_blob", "glob", "attach"],
)
def test_sql_cannot_read_other_files(warehouse: Path, tmp_path: Path, query: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n")
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).close()
    with pytest.raises(CsrwhError, match="query failed"):
        run_query(warehouse, query.format(secret=secret, folder=tmp_path, other=other))


@pytest.mark.parametrize(
    "query",
    [
        "install httpfs",
        "load httpfs",
        "set enable_external_access = true",
        "set lock_configuration = false",
        "reset enable_external_access",
        "set autoload_known_extensions = true",
    ],
)
def test_sql_cannot_unlock_itself_or_load_extensions(warehouse: Path, query: str) -> None:
    with pytest.raises(CsrwhError, match="query failed"):
        run_query(warehouse, query)


def test_sql_file_outputs_still_work_and_json_functions_too(
    warehouse: Path, tmp_path: Path
) -> None:
    out_csv, out_pq = tmp_path / "o" / "r.csv", tmp_path / "o" / "r.parquet"
    q = "select turn_index, json_object('t', turn_index)->>'t' as j from turns order by 1"
    assert run_query(warehouse, q, csv=out_csv, parquet=out_pq) == 3
    assert pl.read_csv(out_csv)["turn_index"].to_list() == [0, 1, 2]
    assert pl.read_parquet(out_pq)["j"].to_list() == ["0", "1", "2"]


@pytest.mark.parametrize("query", ["", "   ", "\n\t ", "-- just a comment", ";"])
def test_empty_query_is_one_line_error(warehouse: Path, query: str) -> None:
    with pytest.raises(CsrwhError) as info:
        run_query(warehouse, query)
    assert "empty" in info.value.message and "\n" not in info.value.message
    assert info.value.hint


@pytest.mark.parametrize("name", ["it's", "x' (format csv); --", 'a"b'])
def test_export_path_is_not_injectable(warehouse: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    written = export_marts(warehouse, out)
    assert sorted(p.name for p in written) == ["conversations.parquet", "turns.parquet"]
    assert all(p.parent == out and p.is_file() for p in written)
    assert pl.read_parquet(out / "turns.parquet").height == 3
    # nothing was written anywhere else
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["wh.duckdb", name])


def test_export_quotes_table_names(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute('create table main."odd""name" as select 1 as x')
    written = export_marts(path, tmp_path / "exp")
    assert [p.name for p in written] == ['odd"name.parquet']
    assert pl.read_parquet(written[0])["x"].to_list() == [1]


@pytest.mark.parametrize("option", ["csv", "parquet"])
@pytest.mark.parametrize("victim_of", ["data", "warehouse", "sidecar"])
def test_sql_refuses_an_output_that_is_a_hard_link_to_a_protected_file(
    warehouse: Path, tmp_path: Path, option: str, victim_of: str
) -> None:
    """An output path outside the warehouse and data folders that is, by device and inode,
    a file of the data folder or of the warehouse is refused; the file stays byte-identical."""
    data = tmp_path / "data"
    (data / "recoreact").mkdir(parents=True)
    victims = {
        "data": data / "recoreact" / "ratings.jsonl",
        "warehouse": warehouse,
        "sidecar": tmp_path / "wh.evals.duckdb",
    }
    victim = victims[victim_of]
    if not victim.exists():
        victim.write_bytes(b'{"id": 1}\n' * 7)
    before = victim.read_bytes()
    out = tmp_path / "elsewhere" / f"out.{option}"
    out.parent.mkdir()
    os.link(victim, out)
    with pytest.raises(CsrwhError, match="hard link|is the warehouse"):
        run_query(warehouse, "select 1 as a", data_dir=data, **{option: out})
    assert victim.read_bytes() == before


def test_validate_refuses_a_docs_folder_holding_a_hard_link_to_a_data_file(
    warehouse: Path, tmp_path: Path
) -> None:
    """`csrwh validate --docs DIR` would write Data Docs through a file of DIR that is a data
    file by device and inode: refused in one line before anything runs; the file is unchanged."""
    import subprocess
    import sys

    data = tmp_path / "data" / "recoreact"
    data.mkdir(parents=True)
    victim = data / "news-users.jsonl"
    victim.write_bytes(b'{"uid": "u1"}\n' * 3)
    docs = tmp_path / "docs"
    docs.mkdir()
    os.link(victim, docs / "index.html")
    result = subprocess.run(
        [sys.executable, "-m", "csrwh.cli", "validate", "--docs", str(docs), "--no-record",
         "--data-dir", str(tmp_path / "data"), "--warehouse", str(warehouse)],
        capture_output=True, text=True, check=False, env={**os.environ, "DO_NOT_TRACK": "1"},
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "is the same file (a hard link) as" in result.stderr
    assert victim.read_bytes() == b'{"uid": "u1"}\n' * 3
