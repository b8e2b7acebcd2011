"""Whole-file JSON objects: many files are classified in ONE DuckDB query over an Arrow
batch of their bytes (the run batches them in chunks of ~8 MB)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from ingest.discover import SourceFile
from ingest.readers.stage import CRLF, ReadContext, field_path, json_ctes


def read_json_files(
    ctx: ReadContext, files: Sequence[SourceFile], datas: Sequence[bytes]
) -> pa.Table:
    """Whole-file JSON objects: one DuckDB SQL pass over an Arrow batch of many files."""
    key = files[0].spec.key
    if key.kind == "relative_path":
        key_sql = "regexp_replace(source_path, '\\.json$', '')"
    elif key.kind == "field":
        key_sql = f"json_extract_string(t, {field_path(key.name)})"
    else:
        key_sql = "json_shape[1]"
    tbl = pa.table(
        {
            "source_path": pa.array([f.rel for f in files], pa.string()),
            "file_sha256": pa.array([f.sha256 for f in files], pa.string()),
            "b": pa.array(datas, pa.large_binary()),
        }
    )
    # every good record may still be rejected (record limits, a key written twice, the check)
    sql = f"""
        WITH d AS (SELECT source_path, file_sha256, b, try(decode(b)) AS t0 FROM _csrwh_files),
        s AS (
            SELECT *, replace(CASE WHEN starts_with(t0, chr(65279)) THEN substr(t0, 2) ELSE t0 END,
                              {CRLF}, chr(10)) AS t
            FROM d
        ),
        {json_ctes("s", key, empty_file=True)}
        SELECT source_path, file_sha256,
               CASE WHEN error = 'empty file' THEN NULL ELSE 0 END::BIGINT AS record_index,
               NULL::BIGINT AS line_number,
               CASE WHEN error IS NULL THEN {key_sql} END AS record_key,
               CASE WHEN error IS NULL THEN t END AS payload,
               NULL::VARCHAR AS source_text, error,
               b AS raw_bytes,
               true AS at_eof
        FROM json_classified
    """
    return ctx.stage_sql(sql, tables={"_csrwh_files": tbl})
