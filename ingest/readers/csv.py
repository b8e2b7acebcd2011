"""Delimiter-separated files (:attr:`~ingest.spec.Format.CSV` with its FileSpec's
:class:`~ingest.spec.Delimited`: comma, tab or any one-character delimiter; a header row or
declared columns), RFC-4180 quoting. Python's C ``csv`` parser (``delimiter=``) delimits the
records (quoted fields may span lines) and gives their verbatim text: the one per-record loop,
kept because no vectorised reader -- DuckDB's ``read_csv`` included -- exposes record
boundaries and text. A stray quote that would swallow the following records rejects its own
line only (and the line of a second stray quote that closed the field); the records between
them land.

A large or compressed file is read in blocks of whole records (:func:`record_blocks`), the
header carried from block to block (:class:`CsvState`); each block's record terminator is its
own most common one."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ingest.discover import SURROGATE, SourceFile
from ingest.readers.lines import LineBlock
from ingest.readers.stage import ReadContext, file_reject, rows_to_stage, strip_bom
from ingest.spec import Delimited

_TERMINATOR = re.compile(r"(?:\r\n|\n|\r)\Z")


def _csv_records(
    lines: Sequence[str], pos: int, dialect: Delimited
) -> Iterable[tuple[int, int, list[str] | None, str | None]]:
    """(first line index, end line index, row, error) of each record from line ``pos``."""
    reader = csv.reader(lines[pos:] if pos else lines, delimiter=dialect.delimiter)
    prev = 0
    while True:
        try:
            row, err = next(reader), None
        except StopIteration:
            return
        except csv.Error as exc:
            row, err = None, f"broken {dialect.name}: {exc}"
        yield pos + prev, pos + reader.line_num, row, err
        prev = reader.line_num


def _record_terminator(lines: Sequence[str]) -> str | None:
    """The file's record terminator (``\r\n``, ``\n`` or ``\r``): the one most lines end in."""
    counts: dict[str, int] = {}
    for line in lines:
        m = _TERMINATOR.search(line)
        if m:
            counts[m.group()] = counts.get(m.group(), 0) + 1
    return max(counts, key=counts.__getitem__) if counts else None


def _reads_as_record(line: str, width: int, delimiter: str) -> bool:
    try:
        return len(next(csv.reader([line], delimiter=delimiter), [])) == width
    except csv.Error:
        return False


def _stray_quote(
    lines: Sequence[str], start: int, end: int, width: int, terminator: str | None, delimiter: str
) -> tuple[int, bool]:
    """(how many following lines a stray quote on line ``start`` swallowed (0: none), whether
    a second stray quote on line ``end - 1`` closed the field).

    The record ``lines[start:end]`` spans several lines because a quoted field runs over line
    ends. That is a stray quote, not a multi-line field, when

    * the field does not close the RFC-4180 way (its closing quote is followed by something
      other than a delimiter or line end, or it never closes) and at least one swallowed
      line reads, on its own, as a record with the header's field count; or
    * the field closes properly -- a second stray quote, e.g. ``"oops`` on one record and
      ``oops"`` on a later one -- but every line after the first reads, on its own, as a
      record with the header's field count, and the line breaks inside the field are the
      file's record terminator (a file written with ``\r\n`` rows and bare ``\n`` inside
      fields, as CRSArena-Dial's, keeps its multi-line fields).
    """
    record = "".join(lines[start:end])
    following = lines[start + 1 : end]
    try:
        for _ in csv.reader(io.StringIO(record, newline=""), strict=True, delimiter=delimiter):
            pass
    except csv.Error:
        swallowed = sum(_reads_as_record(line, width, delimiter) for line in following)
        return (end - start - 1 if swallowed else 0), False
    breaks = {m.group() for line in lines[start : end - 1] if (m := _TERMINATOR.search(line))}
    if terminator is not None and terminator not in breaks:
        return 0, False  # the field's own line breaks differ from the rows': a real field
    if following and all(_reads_as_record(line, width, delimiter) for line in following):
        return end - start - 1, True
    return 0, False  # a well-formed multi-line field


def _blank(record: str, delimiter: str) -> bool:
    """A line of whitespace only; with a whitespace delimiter (tab) a line of delimiters is a
    record of empty fields, not blank."""
    return not record.strip() and delimiter not in record


@dataclass
class CsvState:
    """What the blocks of one delimited file share: its columns, once known (the header row's,
    or the declared ones)."""

    header: list[str] | None = None


def _even_cut(data: bytes) -> int:
    """The end of the last line of ``data`` before which the quotes are even in number (no
    quoted field is open there, RFC 4180), or 0."""
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(arr == ord("\n"))
    quotes_before = np.searchsorted(np.flatnonzero(arr == ord('"')), ends)
    even = ends[quotes_before % 2 == 0]
    return int(even[-1]) + 1 if len(even) else 0


def record_blocks(blocks: Iterable[LineBlock], max_bytes: int) -> Iterator[LineBlock]:
    """The line blocks of a delimited file re-cut so that no quoted field spans two blocks: at
    the last line end with an even number of quotes since the block's start. A stray quote keeps
    the count odd: once ``max_bytes`` are held the block is cut at its last line end anyway (the
    stray quote is judged on the lines up to there, and its reject counts the lines it would
    swallow up to there). ``disk`` and ``error`` carry through."""
    carry, first_line, is_first = b"", 1, True
    disk: list[bytes] = []  # a compressed file's bytes on disk since the last block
    compressed = False
    for block in blocks:
        if block.disk is not None:
            compressed = True
            disk.append(block.disk)
        if block.error is not None:
            if carry:
                yield LineBlock(carry, first_line, is_first, False, b"")
            yield LineBlock(block.data, block.first_line, False, True, b"".join(disk), block.error)
            return
        data = carry + block.data
        cut = _even_cut(data) if not block.is_last else len(data)
        if cut == 0 and len(data) > max_bytes:
            cut = data.rfind(b"\n") + 1
        if cut == 0:
            carry = data
            continue
        on_disk = b"".join(disk) if compressed else None
        yield LineBlock(
            data[:cut], first_line, is_first, block.is_last and cut == len(data), on_disk
        )
        first_line += data.count(b"\n", 0, cut)
        carry, is_first, disk = data[cut:], False, []
    if carry or is_first or disk:
        yield LineBlock(carry, first_line, is_first, True, b"".join(disk) if compressed else None)


def read_csv(
    ctx: ReadContext,
    f: SourceFile,
    data: bytes,
    block: LineBlock | None = None,
    state: CsvState | None = None,
) -> pa.Table:
    """A delimiter-separated file as its FileSpec's ``delimited`` declares: payload = {column:
    value} (strings; columns from the header row or declared), source_text = record.

    Python's C csv parser delimits records (quoted fields may span lines); ``line_num``
    tells which physical lines each record used, which gives its verbatim text. A stray
    quote (a quoted field that never closes properly and would swallow the following
    records, see :func:`_stray_quote`) rejects its own line only, verbatim; reading
    resumes on the next line, so the records it would have swallowed still land.

    ``block``: ``data`` is that block of whole records (:func:`record_blocks`; line numbers from
    its first line, ``record_index`` numbered by the caller) and ``state`` what the file's
    earlier blocks found; else ``data`` is the whole file.
    """
    is_first, is_last = (block.is_first, block.is_last) if block else (True, True)
    offset = block.first_line - 1 if block else 0
    dialect = f.spec.delimited
    body = strip_bom(data) if is_first else data
    if not body.strip() and dialect.delimiter.encode() not in body:  # as :func:`_blank`
        if not (is_first and is_last):
            return rows_to_stage([])
        return rows_to_stage([file_reject(f.rel, f.sha256, "empty file", data)])
    if csv.field_size_limit() < 2**31 - 1:
        csv.field_size_limit(2**31 - 1)
    text = body.decode("utf-8", "surrogateescape")
    lines = list(io.StringIO(text, newline=""))
    key_name = f.spec.key.name if f.spec.key.kind == "field" else None
    state = state or CsvState()
    if state.header is None and not dialect.header:
        state.header = list(dialect.columns)
    header = state.header
    terminator = _record_terminator(lines)
    closers: dict[int, int] = {}  # line index of a stray closing quote -> its opening line
    rows: list[dict] = []
    records = iter(_csv_records(lines, 0, dialect))
    while True:
        item = next(records, None)
        if item is None:
            break
        start, end, row, err = item
        record = _TERMINATOR.sub("", "".join(lines[start:end]))
        if err is None and (not row or _blank(record, dialect.delimiter)):
            continue  # blank line
        at_eof = end >= len(lines) and is_last
        if header is None and err is None and not SURROGATE.search(record):
            header = state.header = row
            continue
        out = {
            "source_path": f.rel,
            "file_sha256": f.sha256,
            "record_index": len(rows),
            "line_number": offset + start + 1,
            "record_key": None,
            "payload": None,
            "source_text": None,
            "error": None,
            "raw_bytes": None,
            "at_eof": at_eof,
        }
        swallowed, closed = 0, False
        if header is not None and end - start > 1 and len(header) > 1:
            swallowed, closed = _stray_quote(
                lines, start, end, len(header), terminator, dialect.delimiter
            )
        if closed:
            closers[end - 1] = start
        if swallowed:
            record = _TERMINATOR.sub("", lines[start])
            out["at_eof"] = False
            out["error"] = (
                f"broken {dialect.name}: stray quote: a quoted field opened on line "
                f"{offset + start + 1} does not close properly and would swallow the next "
                f"{swallowed} line(s), which read as records of their own; this line is rejected "
                f"and reading resumes on line {offset + start + 2}"
            )
            records = iter(_csv_records(lines, start + 1, dialect))
        elif start in closers and end - start == 1:
            out["error"] = (
                f"broken {dialect.name}: stray quote: this line closes the quoted field opened "
                f"on line {offset + closers[start] + 1}, which swallowed the "
                f"{start - closers[start] - 1} line(s) between them; this line is rejected, "
                "those lines land as records"
            )
        elif SURROGATE.search(record):
            out["error"] = "invalid UTF-8"
        elif err is not None:
            out["error"] = err
        elif header is None:
            out["error"] = f"broken {dialect.name}: no header row"
        elif at_eof and record.count('"') % 2 == 1:
            out["error"] = "truncated file: unterminated quoted field at the end of the file"
        elif len(row) != len(header):
            expected = (
                f"the header has {len(header)}"
                if dialect.header
                else f"{len(header)} columns are declared"
            )
            out["error"] = f"wrong field count: {len(row)} fields, {expected}"
        if out["error"] is not None:
            out["raw_bytes"] = record.encode("utf-8", "surrogateescape")
        else:
            out["payload"] = (
                "{"
                + ",".join(
                    json.dumps(h, ensure_ascii=False) + ":" + json.dumps(v, ensure_ascii=False)
                    for h, v in zip(header, row)
                )
                + "}"
            )
            out["source_text"] = record
            if key_name is not None and key_name in header:
                out["record_key"] = row[header.index(key_name)]
        rows.append(out)
    return rows_to_stage(rows)
