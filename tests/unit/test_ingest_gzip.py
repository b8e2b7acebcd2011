"""gzip-compressed line files declared with ``compression="gzip"`` (JSONL, qrels, delimited):
they land as their decompressed content would -- verbatim text, 1-based line numbers of the
decompressed lines, the same rejects -- streamed a block at a time, with ``file_sha256`` of the
file on disk; a truncated or corrupt stream lands the lines before the break and leaves one
reject naming the file."""

from __future__ import annotations

import gzip
import hashlib
import json
import tracemalloc
import zlib

import duckdb
import pytest
from ingest_reader_helpers import rejects, rows

from ingest.readers import gzip_stream
from ingest.readers import lines as line_reader
from ingest.run import Ingestor
from ingest.spec import CorpusSpec, Delimited, FileSpec, Format, RecordKey

JSONL = FileSpec("*.jsonl", "toy__lines", Format.JSONL, RecordKey.field("id"))
QRELS_GZ = FileSpec(
    "*.qrels.gz", "toy__qrels", Format.QRELS, RecordKey.field("topic_id"), compression="gzip"
)
TSV = Delimited("\t", header=False, columns=("topic", "doc", "grade"))
TSV_GZ = FileSpec("*.tsv.gz", "toy__rows", Format.CSV, RecordKey.field("topic"), None, TSV, "gzip")
TSV_PLAIN = FileSpec("*.tsv", "toy__rows", Format.CSV, RecordKey.field("topic"), None, TSV)

#: every column of a landed row but the file's hash (a compressed and a plain file differ in it)
ROW = "record_index, line_number, record_key, payload::VARCHAR, source_text"
REJECT = "record_index, line_number, error, raw_bytes"


@pytest.fixture
def plain():
    """A second warehouse, for the plain (uncompressed) file the gzip one is compared with."""
    con = duckdb.connect()
    yield con
    con.close()


def jsonl_gz() -> FileSpec:
    return FileSpec(
        "*.jsonl.gz", "toy__lines", Format.JSONL, RecordKey.field("id"), compression="gzip"
    )


def land(data_dir, con, *files: FileSpec):
    corpus = CorpusSpec(name="toy", folder="toy", files=files, absent_hint="")
    return Ingestor(con, data_dir, [corpus], [corpus], corpus.tables).run()


def jsonl_text(n: int) -> str:
    lines = [json.dumps({"id": f"c{i}", "text": f"line {i} " + "x" * (i % 37)}) for i in range(n)]
    lines[2] = "{broken"
    lines[5] = ""  # blank
    return "\n".join(lines) + "\n"


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_pattern_ending_in_gz_must_declare_gzip():
    with pytest.raises(ValueError, match="compression='gzip'"):
        FileSpec("*.jsonl.gz", "t", Format.JSONL, RecordKey.field("id"))
    with pytest.raises(ValueError, match="gzip is read for the formats"):
        FileSpec("*.json", "t", Format.JSON_ARRAY, RecordKey.field("id"), compression="gzip")


def test_gzip_jsonl_lands_as_the_plain_file_with_the_hash_of_the_file_on_disk(
    tmp_path, duck, write_file, plain
):
    text = jsonl_text(30)
    gz = write_file(tmp_path / "gz" / "toy", "a.jsonl.gz", gzip.compress(text.encode()))
    write_file(tmp_path / "plain" / "toy", "a.jsonl", text)
    s = land(tmp_path / "gz", duck, jsonl_gz())
    assert (s.records_loaded, s.records_rejected) == (28, 1)
    got_rows, got_rejects = rows(duck, "toy__lines", ROW), rejects(duck, REJECT)
    shas = duck.execute("select distinct file_sha256 from raw.toy__lines").fetchall()
    assert shas == [(sha(gz),)]
    assert land(tmp_path / "gz", duck, jsonl_gz()).files_unchanged == 1  # same hash: skipped

    land(tmp_path / "plain", plain, JSONL)
    assert got_rows == rows(plain, "toy__lines", ROW)
    assert got_rejects == rejects(plain, REJECT)
    assert [r[1] for r in got_rejects] == [3]


def test_gzip_qrels_lands_with_line_numbers_and_rejects(tmp_path, duck, write_file):
    text = "q1 0 d1 1\nq1 0 d2 -2\nq2 0 d3\nq2 0 d4 4\n"
    write_file(tmp_path / "toy", "j.qrels.gz", gzip.compress(text.encode()))
    s = land(tmp_path, duck, QRELS_GZ)
    assert (s.records_loaded, s.records_rejected) == (3, 1)
    assert rows(duck, "toy__qrels", "line_number, record_key, payload->>'grade'") == [
        (1, "q1", "1"),
        (2, "q1", "-2"),
        (4, "q2", "4"),
    ]
    [(index, line, error, raw)] = rejects(duck, REJECT)
    assert (index, line, raw) == (2, 3, b"q2 0 d3")
    assert error.startswith("wrong field count: qrels line has 3 fields")


def test_gzip_tsv_lands_as_the_plain_file(tmp_path, duck, write_file, plain):
    text = 'q1\td1\t2\nq1\t"d\t2"\t0\nq2\td3\nq2\td4\t1\n'
    gz = write_file(tmp_path / "gz" / "toy", "j.tsv.gz", gzip.compress(text.encode()))
    write_file(tmp_path / "plain" / "toy", "j.tsv", text)
    s = land(tmp_path / "gz", duck, TSV_GZ)
    assert (s.records_loaded, s.records_rejected) == (3, 1)
    land(tmp_path / "plain", plain, TSV_PLAIN)
    assert rows(duck, "toy__rows", ROW) == rows(plain, "toy__rows", ROW)
    assert rejects(duck, REJECT) == rejects(plain, REJECT)
    assert rows(duck, "toy__rows", "line_number, payload->>'doc'")[1] == (2, "d\t2")
    assert duck.execute("select distinct file_sha256 from raw.toy__rows").fetchall() == [(sha(gz),)]


@pytest.mark.parametrize("spec, name", [(jsonl_gz(), "a.jsonl.gz"), (TSV_GZ, "a.tsv.gz")])
def test_a_truncated_gzip_lands_the_lines_before_the_break_and_one_reject(
    tmp_path, duck, write_file, spec, name
):
    if spec.format is Format.CSV:
        text = "".join(f"q{i}\td{i}\t{i % 5}\n" for i in range(3000))
    else:
        text = jsonl_text(3000).replace("{broken", '{"id": "b"}').replace("\n\n", "\n{}\n")
    whole = gzip.compress(text.encode())
    cut = whole[: len(whole) // 2]
    write_file(tmp_path / "toy", name, cut)
    read = zlib.decompressobj(31).decompress(cut)  # what the cut stream still holds
    n_lines = read.count(b"\n")
    assert 0 < n_lines < text.count("\n")
    s = land(tmp_path, duck, spec)
    assert (s.records_loaded, s.records_rejected) == (n_lines, 1)
    assert duck.execute(f"select max(line_number) from raw.{spec.table}").fetchone() == (n_lines,)
    [(path, line, error, raw)] = rejects(duck, "source_path, line_number, error, raw_bytes")
    assert (path, line) == (name, n_lines + 1)
    assert raw == read[read.rfind(b"\n") + 1 :]
    assert error.startswith("truncated file: the gzip stream ends") and name in error
    assert "\n" not in error


def test_a_file_that_is_not_gzip_is_one_reject(tmp_path, duck, write_file):
    write_file(tmp_path / "toy", "a.jsonl.gz", '{"id": "c1"}\n')
    s = land(tmp_path, duck, jsonl_gz())
    assert (s.records_loaded, s.records_rejected) == (0, 1)
    [(line, error, raw)] = rejects(duck, "line_number, error, raw_bytes")
    assert (line, raw) == (1, b"")
    assert error.startswith("corrupt gzip file: not a gzip file") and "a.jsonl.gz" in error


def test_gzip_across_many_blocks_keeps_the_line_numbers(
    tmp_path, duck, write_file, plain, monkeypatch
):
    """Blocks of 300 decompressed bytes and 64 compressed bytes per inflate call: the file lands in
    many blocks (a line longer than a block among them, and two gzip members), with the rows and
    rejects the plain file lands whole."""
    lines = jsonl_text(200).splitlines()
    lines[50] = json.dumps({"id": "long", "text": "y" * 2000})
    first, second = "\n".join(lines[:120]) + "\n", "\n".join(lines[120:]) + "\n"
    members = gzip.compress(first.encode()) + gzip.compress(second.encode())
    gz = write_file(tmp_path / "gz" / "toy", "a.jsonl.gz", members)
    write_file(tmp_path / "plain" / "toy", "a.jsonl", first + second)
    monkeypatch.setattr(line_reader, "BLOCK_BYTES", 300)
    monkeypatch.setattr(gzip_stream, "INPUT_BYTES", 64)
    blocks = []
    real = line_reader.read_lines
    monkeypatch.setattr(line_reader, "read_lines", lambda *a: blocks.append(a[3]) or real(*a))
    s = land(tmp_path / "gz", duck, jsonl_gz())
    assert len(blocks) > 20
    assert (s.records_loaded, s.records_rejected) == (198, 1)
    monkeypatch.setattr(line_reader, "BLOCK_BYTES", 1 << 30)  # the plain file: one read
    land(tmp_path / "plain", plain, JSONL)
    assert rows(duck, "toy__lines", ROW) == rows(plain, "toy__lines", ROW)
    assert rejects(duck, REJECT) == rejects(plain, REJECT)
    content = (first + second).encode()
    assert b"".join(b.data for b in blocks) == content  # whole lines, in order, each once
    starts = [1 + b"".join(x.data for x in blocks[:i]).count(b"\n") for i in range(len(blocks))]
    assert [b.first_line for b in blocks] == starts
    assert b"".join(b.disk for b in blocks) == gz.read_bytes()
    assert duck.execute("select distinct file_sha256 from raw.toy__lines").fetchall() == [
        (sha(gz),)
    ]


def test_a_gzip_tsv_ending_in_an_open_quote_rejects_it_as_the_plain_file_does(
    tmp_path, duck, write_file, plain
):
    text = 'q1\td1\t2\nq1\td2\t"open\n'
    write_file(tmp_path / "gz" / "toy", "j.tsv.gz", gzip.compress(text.encode()))
    write_file(tmp_path / "plain" / "toy", "j.tsv", text)
    s = land(tmp_path / "gz", duck, TSV_GZ)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    land(tmp_path / "plain", plain, TSV_PLAIN)
    assert rows(duck, "toy__rows", ROW) == rows(plain, "toy__rows", ROW)
    assert rejects(duck, REJECT) == rejects(plain, REJECT)
    assert rejects(duck, "error")[0][0].startswith("truncated file: unterminated quoted field")


def test_a_gzip_file_is_decompressed_a_block_at_a_time(tmp_path):
    """Python's peak allocations while the blocks of a gzip file whose content is 64 times a
    block are read stay within a few blocks: the content is never held whole."""
    block = 256 * 1024
    line = json.dumps({"id": "c", "text": "z" * 200}) + "\n"
    content = (line * (64 * block // len(line))).encode()
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress(content, compresslevel=1))
    tracemalloc.start()
    try:
        n_blocks, n_bytes, biggest = 0, 0, 0
        for b in line_reader.gzip_line_blocks(path, block):
            n_blocks, n_bytes = n_blocks + 1, n_bytes + len(b.data)
            biggest = max(biggest, len(b.data))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n_bytes == len(content) and n_blocks >= 64
    assert biggest <= block + len(line)
    assert peak < 8 * block, (peak, len(content))
