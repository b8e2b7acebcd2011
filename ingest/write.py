"""Every write of a run to the warehouse (inside the run's one transaction): deleting the rows
of changed and vanished files, inserting staged records, inserting bookkeeping rows."""

from __future__ import annotations

from datetime import datetime

import duckdb
import pyarrow as pa

from ingest.readers.stage import STAGE
from ingest.schema import BOOKKEEPING, sql_ident


def delete_files(
    con: duckdb.DuckDBPyConnection, rows: set[tuple[str, str, str]], raw_tables: list[str]
) -> None:
    """Delete every row of the files ``rows`` = {(corpus, raw table, source_path)} from their
    raw table, ``raw.rejected_records`` and ``raw.ingest_files``."""
    if not rows:
        return
    ordered = sorted(rows)
    g = pa.table(
        {
            "corpus": [r[0] for r in ordered],
            "table_name": [r[1] for r in ordered],
            "source_path": [r[2] for r in ordered],
        }
    )
    con.register("_csrwh_gone", g)
    try:
        for table in sorted({r[1] for r in ordered}):
            if table not in raw_tables:
                continue
            con.execute(
                f"DELETE FROM raw.{sql_ident(table)} AS r USING _csrwh_gone AS g "
                "WHERE g.table_name = ? AND r.corpus = g.corpus AND r.source_path = g.source_path",
                [table],
            )
        for table in ("rejected_records", "ingest_files"):
            con.execute(
                f"DELETE FROM raw.{table} AS r USING (SELECT DISTINCT corpus, source_path "
                "FROM _csrwh_gone) AS g WHERE r.corpus = g.corpus AND r.source_path = g.source_path"
            )
    finally:
        con.unregister("_csrwh_gone")


def insert_stage(
    con: duckdb.DuckDBPyConnection,
    stage: pa.Table,
    table: str,
    batch_id: str,
    corpus: str,
    now: datetime,
):
    """Insert the good records of ``stage`` (a reader's table) into ``raw.<table>``;
    return per-file counts {source_path: (ok, rejected)} and the rejected records
    (source_path, record_index, line_number, error, raw, sha, at_eof).

    The queries read ``stage`` by its variable name (:data:`STAGE`: DuckDB's replacement
    scan of a Python variable), not through ``con.register``: a view registered inside the
    run's transaction keeps its Arrow table alive until the commit, so the whole run's
    files would stay in memory."""
    _csrwh_stage = stage  # read by name in the SQL below (STAGE)
    con.execute(
        f"INSERT INTO raw.{sql_ident(table)} SELECT ?, ?, source_path, record_index, line_number, "
        f"record_key, payload::JSON, source_text, file_sha256, ? FROM {STAGE} WHERE error IS NULL",
        [batch_id, corpus, now],
    )
    counts = {
        p: (ok, bad)
        for p, ok, bad in con.execute(
            f"SELECT source_path, count(*) FILTER (WHERE error IS NULL), "
            f"count(*) FILTER (WHERE error IS NOT NULL) FROM {STAGE} GROUP BY ALL"
        ).fetchall()
    }
    rejected = con.execute(
        f"SELECT source_path, record_index, line_number, error, raw_bytes, file_sha256, at_eof "
        f"FROM {STAGE} WHERE error IS NOT NULL ORDER BY source_path, record_index NULLS FIRST"
    ).fetchall()
    return counts, rejected


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict]) -> None:
    """Insert bookkeeping ``rows`` (dicts by column name) into ``raw.<table>``."""
    if not rows:
        return
    cols = BOOKKEEPING[table]
    types = {
        "VARCHAR": pa.large_string(),
        "BIGINT": pa.int64(),
        "BLOB": pa.large_binary(),
        "TIMESTAMP": pa.timestamp("us"),
    }
    schema = pa.schema([(c, types[t]) for c, t in cols])
    tbl = pa.Table.from_pylist(rows, schema=schema)
    con.register("_csrwh_rows", tbl)
    try:
        names = ", ".join(sql_ident(c) for c, _ in cols)
        con.execute(f"INSERT INTO raw.{table} ({names}) SELECT {names} FROM _csrwh_rows")
    finally:
        con.unregister("_csrwh_rows")


__all__ = ["delete_files", "insert_rows", "insert_stage"]
