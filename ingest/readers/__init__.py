"""One reader per record format. Each returns the staged records of its file(s) -- good
records and rejects in file order, one Arrow table of :data:`~ingest.readers.stage.STAGE_SCHEMA`
-- and never writes to the warehouse.

Normalisation is deliberately minimal: a leading UTF-8 BOM is dropped, a line's trailing
``\\r`` (CRLF line ends) is dropped, and in multi-line JSON records ``\\r\\n`` becomes
``\\n`` (a raw CR can only be insignificant whitespace in JSON). Blank lines are not records.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from ingest.discover import SourceFile
from ingest.readers.csv import read_csv
from ingest.readers.json_array import read_json_array
from ingest.readers.json_file import read_json_files
from ingest.readers.lines import read_lines
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


__all__ = [
    "file_reject",
    "read_csv",
    "read_json_array",
    "read_json_files",
    "read_lines",
    "read_unit",
    "rows_to_stage",
    "unreadable_file",
]
