"""One reader per record format. Each returns the staged records of its file(s) -- good
records and rejects in file order, one Arrow table of :data:`~ingest.readers.stage.STAGE_SCHEMA`
-- and never writes to the warehouse.

Which library does what: DuckDB classifies JSON and qrels records (SQL over Arrow-split lines,
``read_json_objects`` for JSON arrays); Python's ``csv`` delimits delimiter-separated records
and Python's ``zlib`` decompresses gzip files as a stream (:mod:`ingest.readers.gzip_stream`),
because DuckDB's own CSV and gzip readers drop the verbatim record text and line numbers.

Normalisation is deliberately minimal: a leading UTF-8 BOM is dropped, a line's trailing
``\\r`` (CRLF line ends) is dropped, and in multi-line JSON records ``\\r\\n`` becomes
``\\n`` (a raw CR can only be insignificant whitespace in JSON). Blank lines are not records.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa

from ingest.discover import SourceFile
from ingest.readers import lines
from ingest.readers.csv import CsvState, read_csv, record_blocks
from ingest.readers.gzip_stream import broken_reason
from ingest.readers.json_array import read_json_array
from ingest.readers.json_file import read_json_files
from ingest.readers.lines import LineBlock, read_lines
from ingest.readers.stage import ReadContext, file_reject, rows_to_stage
from ingest.spec import Format


def unreadable_file(f: SourceFile, exc: OSError) -> pa.Table:
    """The one reject of a file that cannot be read (no permission, an I/O error): the run
    lands the other files, and reads this one again next time."""
    reason = exc.strerror or str(exc)
    return rows_to_stage([file_reject(f.rel, f.sha256, f"cannot read the file: {reason}", None)])


def read_unit(ctx: ReadContext, unit: Sequence[SourceFile], datas: Sequence[bytes]) -> pa.Table:
    """The staged records of one load unit: one file, or a batch of whole-file JSON files."""
    first = unit[0]
    if first.name_error:
        return rows_to_stage([file_reject(first.rel, first.sha256, first.name_error, datas[0])])
    fmt = first.spec.format
    if fmt is Format.JSON_FILE:
        return read_json_files(ctx, unit, datas)
    if fmt is Format.JSON_ARRAY:
        return read_json_array(ctx, first, datas[0])
    if fmt is Format.CSV:
        return read_csv(ctx, first, datas[0])
    return read_lines(ctx, first, datas[0])


class BlockReader:
    """Reads one JSONL, qrels or delimited file a block of whole lines (records) at a time
    (memory bounded by a block, not the file): :meth:`blocks` cuts it (a gzip file decompressed
    as a stream), :meth:`read` stages a block. A stream that broke off ends with one reject."""

    def __init__(self, ctx: ReadContext, f: SourceFile) -> None:
        self.ctx, self.f = ctx, f
        self.csv_state = CsvState()

    def blocks(self) -> Iterator[LineBlock]:
        blocks = lines.file_blocks(self.f.path, self.f.spec.compression)
        if self.f.spec.format is Format.CSV:
            return record_blocks(blocks, 2 * lines.BLOCK_BYTES)
        return blocks

    def read(self, block: LineBlock) -> pa.Table:
        f = self.f
        if block.error is not None:
            reason = broken_reason(block.error, f.rel, block.first_line, len(block.data))
            row = file_reject(f.rel, f.sha256, reason, block.data)
            return rows_to_stage([{**row, "line_number": block.first_line}])
        if f.spec.format is Format.CSV:
            return read_csv(self.ctx, f, block.data, block, self.csv_state)
        return lines.read_lines(self.ctx, f, block.data, block)


__all__ = [
    "BlockReader",
    "file_reject",
    "read_csv",
    "read_json_array",
    "read_json_files",
    "read_lines",
    "read_unit",
    "rows_to_stage",
    "unreadable_file",
]
