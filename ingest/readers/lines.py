"""JSONL and TREC qrels: one record per line. Arrow splits the lines, ONE DuckDB SQL pass
classifies them (``try(decode())`` for UTF-8, :func:`~ingest.readers.stage.json_ctes` for JSON
validity and shape, ``regexp_extract_all`` for qrels fields). The pass has no window or sort:
rows keep file order and ``record_index`` is numbered afterwards.

A large file, and every gzip-compressed one, is read in blocks of whole lines
(:func:`file_blocks`); a gzip file is decompressed as a stream (:mod:`ingest.readers.gzip_stream`),
so its blocks are lines of the decompressed content, numbered as in it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.discover import SourceFile
from ingest.readers.gzip_stream import GzipBroken, gunzip_chunks
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

#: files larger than this are landed a block of whole lines at a time (:func:`line_blocks`),
#: so ingest's memory does not grow with a file's size (one 146 MB own-corpus file
#: read whole held 1.6 GB; ten files of 14.6 MB, 0.75 GB)
BLOCK_BYTES = 32 * 2**20


@dataclass(frozen=True)
class LineBlock:
    """Whole lines of a file: ``data`` starts at line ``first_line`` (1-based); ``is_last``: the
    file ends with this block (its last line is the file's last). For a compressed file, ``data``
    is decompressed and ``disk`` the file's bytes read for it (hash these); ``error``: the
    stream broke off, ``data`` is what was read of line ``first_line`` and the last block."""

    data: bytes
    first_line: int
    is_first: bool
    is_last: bool
    disk: bytes | None = None
    error: str | None = None


def line_blocks(path: Path, block_bytes: int | None = None) -> Iterator[LineBlock]:
    """A file in blocks of about ``block_bytes`` (default :data:`BLOCK_BYTES`) that end at a
    newline (a line longer than a block is one block of its own); the blocks joined are the
    file's bytes."""
    block_bytes = block_bytes or BLOCK_BYTES
    with path.open("rb") as fh:
        chunks = iter(lambda: fh.read(block_bytes), b"")
        yield from _cut((chunk, None, None) for chunk in chunks)


def gzip_line_blocks(path: Path, block_bytes: int | None = None) -> Iterator[LineBlock]:
    """A gzip file's decompressed content in blocks as :func:`line_blocks` cuts a file, read
    as a stream (memory bounded by a block); each block's ``disk`` holds the compressed bytes
    read for it (joined: the file). A stream that breaks off ends with an ``error`` block."""
    block_bytes = block_bytes or BLOCK_BYTES
    with path.open("rb") as fh:
        yield from _cut(gunzip_chunks(fh.read, block_bytes))


def file_blocks(path: Path, compression: str | None) -> Iterator[LineBlock]:
    """The blocks of a line file as its FileSpec's ``compression`` says."""
    return gzip_line_blocks(path) if compression == "gzip" else line_blocks(path)


def _cut(
    chunks: Iterable[tuple[bytes, bytes | None, GzipBroken | None]],
) -> Iterator[LineBlock]:
    """Blocks of whole lines from (bytes, bytes on disk or None, break) chunks: a block per
    chunk that completes a line, the bytes after its last newline carried into the next."""
    first_line, carry, is_first = 1, b"", True
    disk: list[bytes] | None = None  # the bytes on disk since the last block (compressed files)
    for chunk, raw, broken in chunks:
        if raw is not None:
            disk = disk if disk is not None else []
            disk.append(raw)
        if broken is not None:
            yield LineBlock(carry, first_line, is_first, True, b"".join(disk or []), str(broken))
            return
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # no newline yet: a long line, keep reading
            carry = data
            continue
        yield LineBlock(data[:cut], first_line, is_first, False, _joined(disk))
        first_line += data.count(b"\n", 0, cut)
        carry, is_first, disk = data[cut:], False, [] if disk is not None else None
    if carry or is_first or disk:  # disk: a compressed file's last bytes (its trailer)
        yield LineBlock(carry, first_line, is_first, True, _joined(disk))


def _joined(disk: list[bytes] | None) -> bytes | None:
    return None if disk is None else b"".join(disk)


def read_lines(
    ctx: ReadContext, f: SourceFile, data: bytes, block: LineBlock | None = None
) -> pa.Table:
    """JSONL and qrels: Arrow splits the lines, one DuckDB SQL pass classifies them. ``block``:
    ``data`` is that block of the file (line numbers from its first line; ``record_index`` is
    numbered by the caller), else the whole file."""
    first_line = block.first_line if block else 1
    is_first = block.is_first if block else True
    is_last = block.is_last if block else True
    body = strip_bom(data) if is_first else data
    if not body.strip():
        if is_first and is_last:
            return rows_to_stage([file_reject(f.rel, f.sha256, "empty file", data)])
        return rows_to_stage([])
    lines = pc.split_pattern(pa.array([body], pa.large_binary()), pattern=b"\n").flatten()
    if not is_last:  # the block ends with a newline: its last "line" is the empty rest
        lines = lines.slice(0, len(lines) - 1)
    n_lines = len(lines)
    last_line = first_line + n_lines - 1 if is_last else -1  # at_eof: only the file's last line
    numbers = np.arange(first_line, first_line + n_lines, dtype=np.int64)
    tbl = pa.table({"ln": pa.array(numbers), "b": lines})
    spec = f.spec
    if spec.format is Format.QRELS:
        error = (
            "CASE WHEN t IS NULL THEN 'invalid UTF-8' WHEN len(f) <> 4 THEN 'wrong field count: "
            "qrels line has ' || len(f) || ' fields, expected 4 (topic_id iteration doc_id grade)' "
            "WHEN NOT regexp_full_match(f[4], '[+-]?[0-9]+') OR TRY_CAST(f[4] AS INTEGER) IS NULL "
            "THEN 'grade is not an integer: ' || left(f[4], 40) "
            "|| ' (a TREC qrels grade is a whole number, e.g. -2, 0 or 3)' END"
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
    # every good record may still be rejected (record limits, a key written twice, the check)
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
               b AS raw_bytes,
               ln = {last_line} AS at_eof
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
