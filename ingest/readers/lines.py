"""JSONL and TREC qrels: one record per line. Arrow splits the lines, ONE DuckDB SQL pass
classifies them (``try(decode())`` for UTF-8, :func:`~ingest.readers.stage.json_ctes` for JSON
validity and shape, ``regexp_extract_all`` for qrels fields). The pass has no window or sort:
rows keep file order and ``record_index`` is numbered afterwards."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.discover import SourceFile
from ingest.readers.stage import (
    WS,
    ReadContext,
    file_reject,
    json_ctes,
    key_expr_json,
    rows_to_stage,
    strip_bom,
)
from ingest.spec import Format, RecordKey


def read_lines(ctx: ReadContext, f: SourceFile, data: bytes) -> pa.Table:
    """JSONL and qrels: Arrow splits the lines, one DuckDB SQL pass classifies them."""
    body = strip_bom(data)
    if not body.strip():
        return rows_to_stage([file_reject(f.rel, f.sha256, "empty file", data)])
    lines = pc.split_pattern(pa.array([body], pa.large_binary()), pattern=b"\n").flatten()
    n_lines = len(lines)
    tbl = pa.table({"ln": pa.array(np.arange(1, n_lines + 1, dtype=np.int64)), "b": lines})
    spec = f.spec
    if spec.format is Format.QRELS:
        error = (
            "CASE WHEN t IS NULL THEN 'invalid UTF-8' WHEN len(f) <> 4 THEN 'wrong field count: "
            "qrels line has ' || len(f) || ' fields, expected 4 (topic_id iteration doc_id grade)' "
            "WHEN NOT isfinite(TRY_CAST(f[4] AS DOUBLE)) THEN 'non-finite number: grade ' "
            "|| left(f[4], 40) || ' (NaN, Infinity or beyond the double range)' END"
        )
        classify = (
            "q AS (SELECT *, regexp_extract_all(t, '\\S+') AS f FROM r), "
            f"classified AS (SELECT *, {error} AS error FROM q)"
        )
        payload = "json_object('topic_id', f[1], 'iteration', f[2], 'doc_id', f[3], 'grade', f[4])::VARCHAR"
        source_text = "t"
        key = _key_expr_fields(
            spec.key, {"topic_id": "f[1]", "iteration": "f[2]", "doc_id": "f[3]", "grade": "f[4]"}
        )
    else:
        classify = json_ctes("r", spec.key) + ", classified AS (SELECT * FROM json_classified)"
        payload = "t"
        source_text = "NULL"
        key = key_expr_json("t", spec.key, f.rel)
    keep_raw = " OR true" if spec.check is not None else ""  # a checked record may be rejected
    sql = f"""
        WITH d AS (SELECT ln, b, try(decode(b)) AS t0 FROM _csrwh_lines),
        s AS (SELECT ln, b, CASE WHEN ends_with(t0, chr(13)) THEN left(t0, -1) ELSE t0 END AS t FROM d),
        r AS (SELECT ln, b, t FROM s WHERE t IS NULL OR ltrim(t, {WS}) <> ''),
        {classify}
        SELECT ?::VARCHAR AS source_path, ?::VARCHAR AS file_sha256, NULL::BIGINT AS record_index,
               ln AS line_number,
               CASE WHEN error IS NULL THEN {key} END AS record_key,
               CASE WHEN error IS NULL THEN {payload} END AS payload,
               CASE WHEN error IS NULL THEN {source_text} END AS source_text,
               error,
               CASE WHEN error IS NOT NULL{keep_raw} THEN b END AS raw_bytes,
               ln = {n_lines} AS at_eof
        FROM classified
    """
    stage = ctx.stage_sql(sql, [f.rel, f.sha256], {"_csrwh_lines": tbl})
    # No window or sort in SQL: rows come out in scan order (DuckDB preserves insertion order
    # without ORDER BY); the fallback sort only guards that assumption.
    ln = stage.column("line_number").to_numpy()
    if len(ln) > 1 and not bool((ln[1:] > ln[:-1]).all()):
        stage = stage.sort_by("line_number")
    index = pa.array(np.arange(stage.num_rows, dtype=np.int64))
    return stage.set_column(stage.schema.get_field_index("record_index"), "record_index", index)


def _key_expr_fields(key: RecordKey, fields: dict[str, str]) -> str:
    if key.kind != "field" or key.name not in fields:
        raise ValueError(f"qrels records are keyed by one of {sorted(fields)}, not {key}")
    return fields[key.name]
