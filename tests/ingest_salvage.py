"""Helpers of the ingest salvage tests: ingest a folder into a DuckDB connection, read its
rejects, and damage JSON text (drop a quote, drop an opening brace)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ingest import run_ingest


def ingest(data_dir: Path, con: duckdb.DuckDBPyConnection, corpora=None):
    return run_ingest(data_dir, con, corpora=corpora, progress=False)


def rejects(con, cols: str = "source_path, record_index, line_number, error, raw_text, raw_bytes"):
    return con.execute(
        f"SELECT {cols} FROM raw.rejected_records ORDER BY source_path, record_index NULLS FIRST"
    ).fetchall()


def drop_first_quote_after(text: str, marker: str) -> str:
    """``text`` with the last character of the first ``marker`` (a closing quote) removed."""
    assert marker.endswith('"')
    at = text.index(marker) + len(marker) - 1
    return text[:at] + text[at + 1 :]


def drop_opening_brace_before(text: str, marker: str) -> str:
    """``text`` without the ``{`` that opens the object holding the first ``marker``."""
    at = text.rindex("{", 0, text.index(marker))
    return text[:at] + text[at + 1 :]
