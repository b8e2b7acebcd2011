"""What the dataset card says, read from the warehouse: build info, corpora, input files, and the
marts' and columns' descriptions (from the warehouse, else the dbt yml)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# ---------------------------------------------------------------------------------------------
# what the card says
# ---------------------------------------------------------------------------------------------


def _has(con, schema: str, table: str) -> bool:
    return bool(
        con.execute(
            "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
            [schema, table],
        ).fetchone()[0]
    )


def _rows(con, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    cursor = con.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _build_info(con) -> dict[str, Any]:
    if not _has(con, "main", "build_info"):
        return {}
    rows = _rows(con, "select * from main.build_info order by built_at desc limit 1")
    return rows[0] if rows else {}


def _corpora_rows(con, corpora: Sequence[str]) -> list[dict[str, Any]]:
    """One row per corpus x subset of the exported corpora with language, domain, upstream,
    licence, description (and citation where given): the ``corpora`` seed, and for your own
    corpora (``custom``) each ``custom/<name>/corpus.json`` (``raw.custom__corpora``)."""
    rows = []
    if _has(con, "seeds", "corpora"):
        rows += _rows(
            con,
            "select * from seeds.corpora where list_contains($1, corpus) order by corpus, subset",
            [list(corpora)],
        )
    if "custom" in corpora and _has(con, "raw", "custom__corpora"):
        rows += _rows(
            con,
            """select 'custom' as corpus, split_part(source_path, '/', 1) as subset,
                      payload ->> '$.language' as language, payload ->> '$.domain' as domain,
                      payload ->> '$.url' as upstream_url, payload ->> '$.licence' as licence,
                      payload ->> '$.description' as description, payload ->> '$.citation' as citation
               from raw.custom__corpora order by subset""",
        )
    return rows


def _input_files(con, corpora: Sequence[str]) -> list[dict[str, Any]]:
    if not _has(con, "raw", "ingest_files"):
        return []
    return _rows(
        con,
        "select corpus, source_path, file_sha256, n_records from raw.ingest_files "
        "where list_contains($1, corpus) order by corpus, source_path",
        [list(corpora)],
    )


def _yml_docs() -> dict[str, tuple[str, dict[str, str]]]:
    """mart -> (description, {column: description}) from ``models/marts/**/_*.yml``."""
    import yaml

    from csrwh.config import PROJECT_ROOT

    docs: dict[str, tuple[str, dict[str, str]]] = {}
    for path in sorted((PROJECT_ROOT / "models" / "marts").rglob("_*.yml")):
        try:
            spec = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError):
            continue
        for model in spec.get("models") or []:
            columns = {
                c["name"]: str(c.get("description") or "")
                for c in model.get("columns") or []
                if "name" in c
            }
            docs[model["name"]] = (str(model.get("description") or ""), columns)
    return docs


def _mart_docs(con) -> dict[str, dict[str, Any]]:
    """mart -> description and columns (name, type, description): the warehouse's own
    comments (dbt persist_docs) where present, else the dbt yml in the project."""
    yml = _yml_docs()
    tables = {
        r["table_name"]: r["comment"]
        for r in _rows(
            con, "select table_name, comment from duckdb_tables() where schema_name = 'main'"
        )
    }
    columns = _rows(
        con,
        "select table_name, column_name, data_type, comment from duckdb_columns() "
        "where schema_name = 'main' order by table_name, column_index",
    )
    from csrwh.reading.query import list_marts

    docs: dict[str, dict[str, Any]] = {}
    for mart in list_marts(con):
        described, described_columns = yml.get(mart, ("", {}))
        docs[mart] = {
            "description": tables.get(mart) or described,
            "columns": [
                (
                    c["column_name"],
                    c["data_type"],
                    c["comment"] or described_columns.get(c["column_name"], ""),
                )
                for c in columns
                if c["table_name"] == mart
            ],
        }
    return docs
