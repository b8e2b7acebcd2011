"""A top-level JSON array, one record per element: DuckDB ``read_json_objects(format='array')``
returns every element's verbatim text; if DuckDB refuses the file (truncated, broken, invalid
UTF-8) the salvage parser (:mod:`ingest.readers.salvage`) lands the good elements and
rejects each bad one verbatim at its position."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from ingest.discover import SURROGATE, SourceFile
from ingest.readers.salvage import salvage_array
from ingest.readers.stage import (
    CRLF,
    STAGE_COLS,
    STAGE_SCHEMA,
    ReadContext,
    file_reject,
    json_ctes,
    key_expr_json,
    rows_to_stage,
    strip_bom,
)


def read_json_array(ctx: ReadContext, f: SourceFile, data: bytes) -> pa.Table:
    """A top-level JSON array: DuckDB read_json_objects, salvage parser when it refuses."""
    body = strip_bom(data)
    if not body.strip():
        return rows_to_stage([file_reject(f.rel, f.sha256, "empty file", data)])
    elems: pa.Table | None = None
    # DuckDB accepts an unclosed array ending in "," silently: such files take the salvage
    # path, which reports them. Paths with glob characters would be expanded by DuckDB.
    closed = body.rstrip(b" \t\r\n").endswith(b"]")
    if closed and not any(ch in str(f.path) for ch in "*?[{") and not SURROGATE.search(str(f.path)):
        try:
            elems = ctx.reader.sql(
                "SELECT json AS t FROM read_json_objects($path, format='array', "
                "maximum_object_size=1073741824)",
                params={"path": str(f.path)},
            ).to_arrow_table()
        except duckdb.Error:
            elems = None
    if elems is not None:
        n = elems.num_rows
        elems = pa.table(
            {
                "record_index": pa.array(np.arange(n, dtype=np.int64)),
                "t": elems.column("t").cast(pa.large_string()),
                "pre_error": pa.nulls(n, pa.string()),
                "raw": pa.nulls(n, pa.large_binary()),
            }
        )
        file_rejects: list[dict] = []
    else:
        elems, file_rejects = salvage_array(f, body)
    key = key_expr_json("t", f.spec.key, f.rel)
    sql = f"""
        WITH {json_ctes("_csrwh_elems", f.spec.key)},
        c AS (SELECT * REPLACE (coalesce(pre_error, error) AS error) FROM json_classified)
        SELECT ?::VARCHAR AS source_path, ?::VARCHAR AS file_sha256, record_index,
               NULL::BIGINT AS line_number,
               CASE WHEN error IS NULL THEN {key} END AS record_key,
               CASE WHEN error IS NULL THEN replace(t, {CRLF}, chr(10)) END AS payload,
               NULL::VARCHAR AS source_text, error,
               coalesce(raw, encode(t)) AS raw_bytes,
               false AS at_eof
        FROM c
    """
    tables = {"_csrwh_elems": elems}
    if file_rejects:
        tables["_csrwh_file_rejects"] = pa.Table.from_pylist(file_rejects, schema=STAGE_SCHEMA)
        sql = f"({sql}) UNION ALL (SELECT {STAGE_COLS} FROM _csrwh_file_rejects)"
    return ctx.stage_sql(
        f"SELECT * FROM ({sql}) ORDER BY record_index NULLS LAST", [f.rel, f.sha256], tables
    )
