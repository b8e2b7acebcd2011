"""Shared by the ingest reader tests (test_ingest_<format>.py): the ingest on tiny files written
by the test, and the landed rows and rejects it left."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ingest import run_ingest

CONV = "dataset/crowd/conversations.jsonl"
QRELS = "dataset/curated/qrels.qrels"
DIAL = "data/crs_arena_dial_open.json"
VOTES = "data/votes_open.csv"


def ingest(data_dir: Path, con: duckdb.DuckDBPyConnection, corpora=None):
    return run_ingest(data_dir, con, corpora=corpora, progress=False)


def rows(
    con,
    table: str,
    cols: str = "record_index, line_number, record_key, payload::VARCHAR, source_text",
):
    return con.execute(
        f"SELECT {cols} FROM raw.{table} ORDER BY source_path, record_index"
    ).fetchall()


def rejects(con, cols: str = "source_path, record_index, line_number, error, raw_text, raw_bytes"):
    return con.execute(
        f"SELECT {cols} FROM raw.rejected_records ORDER BY source_path, record_index NULLS FIRST"
    ).fetchall()
