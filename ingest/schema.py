"""The raw tables' DDL: one ``raw.<corpus>__<entity>`` table per declared file spec (the
columns of :data:`RAW_COLUMNS`) and the three bookkeeping tables (``rejected_records``,
``ingest_files``, ``ingest_runs``), exactly the columns of docs/ARCHITECTURE.md."""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

RAW_SCHEMA = "raw"

RAW_COLUMNS: tuple[tuple[str, str], ...] = (
    ("batch_id", "VARCHAR"),
    ("corpus", "VARCHAR"),
    ("source_path", "VARCHAR"),
    ("record_index", "BIGINT"),
    ("line_number", "BIGINT"),
    ("record_key", "VARCHAR"),
    ("payload", "JSON"),
    ("source_text", "VARCHAR"),
    ("file_sha256", "VARCHAR"),
    ("ingested_at", "TIMESTAMP"),
)

BOOKKEEPING: dict[str, tuple[tuple[str, str], ...]] = {
    "rejected_records": (
        ("batch_id", "VARCHAR"),
        ("corpus", "VARCHAR"),
        ("table_name", "VARCHAR"),
        ("source_path", "VARCHAR"),
        ("record_index", "BIGINT"),
        ("line_number", "BIGINT"),
        ("error", "VARCHAR"),
        ("raw_text", "VARCHAR"),
        ("raw_bytes", "BLOB"),
        ("file_sha256", "VARCHAR"),
        ("rejected_at", "TIMESTAMP"),
    ),
    "ingest_files": (
        ("corpus", "VARCHAR"),
        ("table_name", "VARCHAR"),
        ("source_path", "VARCHAR"),
        ("file_sha256", "VARCHAR"),
        ("size_bytes", "BIGINT"),
        ("modified_at", "TIMESTAMP"),
        ("n_records", "BIGINT"),
        ("n_rejected", "BIGINT"),
        ("batch_id", "VARCHAR"),
        ("ingested_at", "TIMESTAMP"),
    ),
    "ingest_runs": (
        ("batch_id", "VARCHAR"),
        ("started_at", "TIMESTAMP"),
        ("finished_at", "TIMESTAMP"),
        ("data_dir", "VARCHAR"),
        ("corpora", "VARCHAR"),
        ("files_loaded", "BIGINT"),
        ("files_unchanged", "BIGINT"),
        ("files_removed", "BIGINT"),
        ("records_loaded", "BIGINT"),
        ("records_rejected", "BIGINT"),
        ("status", "VARCHAR"),
    ),
}


def sql_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def ensure_schema(con: duckdb.DuckDBPyConnection, raw_tables: Iterable[str]) -> None:
    """Create schema ``raw``, every raw table and the bookkeeping tables (if missing)."""
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {RAW_SCHEMA}")
    tables = {t: RAW_COLUMNS for t in raw_tables} | BOOKKEEPING
    for table, cols in tables.items():
        body = ", ".join(f"{sql_ident(c)} {t}" for c, t in cols)
        con.execute(f"CREATE TABLE IF NOT EXISTS {RAW_SCHEMA}.{sql_ident(table)} ({body})")


__all__ = ["BOOKKEEPING", "RAW_COLUMNS", "RAW_SCHEMA", "ensure_schema", "sql_ident", "sql_literal"]
