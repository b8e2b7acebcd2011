"""Delimiter-separated files declared by a corpus module (``Format.CSV`` with a ``Delimited``
option): tab or any one-character delimiter, a header row or declared columns, RFC-4180
quoting and the stray-quote salvage of the CSV reader, rejects with their line."""

from __future__ import annotations

import gzip
import json
import re

import duckdb
import pytest
from ingest_reader_helpers import rejects, rows

from ingest import readers
from ingest.readers import lines as line_reader
from ingest.run import Ingestor
from ingest.spec import CorpusSpec, Delimited, FileSpec, Format, RecordKey

TSV = Delimited("\t")
QRELS_TSV = Delimited("\t", header=False, columns=("topic", "doc", "grade"))


def toy(*files: FileSpec) -> CorpusSpec:
    return CorpusSpec(name="toy", folder="toy", files=files, absent_hint="")


def land(data_dir, con, corpus: CorpusSpec):
    return Ingestor(con, data_dir, [corpus], [corpus], corpus.tables).run()


def payloads(con, table: str) -> list[tuple[int, dict, str]]:
    got = rows(con, table, "line_number, payload::VARCHAR, source_text")
    return [(line, json.loads(payload), text) for line, payload, text in got]


def test_tsv_with_a_header_and_quoted_fields_holding_tabs_and_newlines(tmp_path, duck, write_file):
    spec = FileSpec("*.tsv", "toy__rows", Format.CSV, RecordKey.field("id"), delimited=TSV)
    quoted = '2\t"a\ttab, a ""quote"" and\na newline"\tb'
    write_file(tmp_path / "toy", "a.tsv", f"id\ttext\tnote\r\n1\tplain, text\t\r\n{quoted}\r\n")
    s = land(tmp_path, duck, toy(spec))
    assert (s.records_loaded, s.records_rejected) == (2, 0)
    assert payloads(duck, "toy__rows") == [
        (2, {"id": "1", "text": "plain, text", "note": ""}, "1\tplain, text\t"),
        (3, {"id": "2", "text": 'a\ttab, a "quote" and\na newline', "note": "b"}, quoted),
    ]
    assert rows(duck, "toy__rows", "record_key") == [("1",), ("2",)]


def test_tsv_without_a_header_takes_the_declared_columns(tmp_path, duck, write_file):
    spec = FileSpec(
        "*.tsv", "toy__judgments", Format.CSV, RecordKey.field("topic"), None, QRELS_TSV
    )
    # a line of delimiters only is a record of empty fields; a blank line is no record
    write_file(tmp_path / "toy", "j.tsv", "q1\td1\t2\n\nq1\td2\t-2\n\t\t\n")
    s = land(tmp_path, duck, toy(spec))
    assert (s.records_loaded, s.records_rejected) == (3, 0)
    assert payloads(duck, "toy__judgments") == [
        (1, {"topic": "q1", "doc": "d1", "grade": "2"}, "q1\td1\t2"),
        (3, {"topic": "q1", "doc": "d2", "grade": "-2"}, "q1\td2\t-2"),
        (4, {"topic": "", "doc": "", "grade": ""}, "\t\t"),
    ]
    assert rows(duck, "toy__judgments", "record_key") == [("q1",), ("q1",), ("",)]


@pytest.mark.parametrize("delimiter", [";", "|"])
def test_a_custom_delimiter_with_quoted_delimiters_and_commas(
    tmp_path, duck, write_file, delimiter
):
    d = delimiter
    spec = FileSpec("*.txt", "toy__rows", Format.CSV, RecordKey.field("id"), delimited=Delimited(d))
    write_file(tmp_path / "toy", "a.txt", f'id{d}text\n1{d}"x{d} y, z"\n2{d}plain, comma\n')
    s = land(tmp_path, duck, toy(spec))
    assert (s.records_loaded, s.records_rejected) == (2, 0)
    assert [p for _, p, _ in payloads(duck, "toy__rows")] == [
        {"id": "1", "text": f"x{d} y, z"},
        {"id": "2", "text": "plain, comma"},
    ]


def test_a_stray_quote_in_a_tsv_rejects_its_line_only(tmp_path, duck, write_file):
    spec = FileSpec("*.tsv", "toy__rows", Format.CSV, RecordKey.field("id"), delimited=TSV)
    lines = [f"s{i}\tu{i}\tok" for i in range(20)]
    lines[4] = 's4\tu4\t"I liked\tboth'  # a quote that never closes
    lines[9] = 's9\tu9\t"fine"'
    write_file(tmp_path / "toy", "a.tsv", "id\tuser\tnote\n" + "\n".join(lines) + "\n")
    s = land(tmp_path, duck, toy(spec))
    assert (s.records_loaded, s.records_rejected) == (19, 1)
    assert [k for (k,) in rows(duck, "toy__rows", "record_key")] == [
        f"s{i}" for i in range(20) if i != 4
    ]
    [(path, index, line, error, raw_text, raw_bytes)] = rejects(duck)
    assert (path, index, line) == ("a.tsv", 4, 6)
    assert raw_bytes == lines[4].encode() and raw_text == lines[4]
    assert error.startswith("broken TSV: stray quote") and "line 6" in error and "\n" not in error


def test_a_wrong_field_count_is_rejected_verbatim_with_its_line(tmp_path, duck, write_file):
    spec = FileSpec(
        "*.tsv", "toy__judgments", Format.CSV, RecordKey.field("topic"), delimited=QRELS_TSV
    )
    write_file(tmp_path / "toy", "j.tsv", "q1\td1\t1\nq1\td2\nq2\td3\t0\textra\nq2\td4\t1\n")
    s = land(tmp_path, duck, toy(spec))
    assert (s.records_loaded, s.records_rejected) == (2, 2)
    assert rows(duck, "toy__judgments", "line_number") == [(1,), (4,)]
    assert rejects(duck, "source_path, record_index, line_number, error, raw_bytes") == [
        ("j.tsv", 1, 2, "wrong field count: 2 fields, 3 columns are declared", b"q1\td2"),
        ("j.tsv", 2, 3, "wrong field count: 4 fields, 3 columns are declared", b"q2\td3\t0\textra"),
    ]


def test_a_csv_declared_as_before_reads_as_it_always_did(tmp_path, duck, write_file):
    """The default Delimited() is a comma and a header row: a tab is data, not a delimiter."""
    spec = FileSpec("*.csv", "toy__rows", Format.CSV, RecordKey.field("id"))
    assert spec.delimited == Delimited(",", header=True)
    write_file(tmp_path / "toy", "a.csv", 'id,text\n1,"a\tb"\n2\tx,y\n')
    s = land(tmp_path, duck, toy(spec))
    assert (s.records_loaded, s.records_rejected) == (2, 0)
    assert [p for _, p, _ in payloads(duck, "toy__rows")] == [
        {"id": "1", "text": "a\tb"},
        {"id": "2\tx", "text": "y"},
    ]


@pytest.mark.parametrize(
    "declare, problem",
    [
        (lambda: Delimited("\t", header=False), "needs its columns declared"),
        (lambda: Delimited("\t", columns=("a",)), "only for files without a header"),
        (lambda: Delimited("ab"), "one character"),
        (lambda: Delimited('"'), "one character"),
        (lambda: Delimited(";", header=False, columns=("a", "a")), "named twice"),
        (
            lambda: FileSpec("*.jsonl", "t", Format.JSONL, RecordKey.field("id"), delimited=TSV),
            "Format.CSV only",
        ),
    ],
)
def test_a_declaration_that_cannot_be_read_fails_where_it_is_written(declare, problem):
    with pytest.raises(ValueError, match=problem):
        declare()


@pytest.mark.parametrize("compression", [None, "gzip"])
def test_a_delimited_file_landed_in_blocks_lands_as_the_whole_file_does(
    tmp_path, duck, write_file, monkeypatch, compression
):
    """Blocks of 300 bytes: quoted fields over several lines (and a long one) never straddle two
    blocks, the header read in the first block names the columns of every later one, and the
    line numbers, rejects (a stray quote, a wrong field count) and record_index are those of
    the file read whole."""
    rows_in = [f"r{i}\tline {i}\t{i % 7}" for i in range(150)]
    rows_in[10] = 'r10\t"a field\nover three\nlines, with ""quotes"""\tx'
    rows_in[40] = 'r40\t"' + "long, " * 120 + '\nend"\ty'
    rows_in[70] = 'r70\t"I liked\tboth'  # a stray quote
    rows_in[90] = "r90\tshort"
    text = "id\ttext\tnote\n" + "\n".join(rows_in) + "\n"
    name = "a.tsv.gz" if compression else "a.tsv"
    content = gzip.compress(text.encode()) if compression else text
    write_file(tmp_path / "toy", name, content)
    spec = FileSpec(
        "*.tsv*", "toy__rows", Format.CSV, RecordKey.field("id"), None, TSV, compression
    )
    whole = duckdb.connect()
    write_file(tmp_path / "plain" / "toy", "a.tsv", text)
    plain_spec = FileSpec("*.tsv", "toy__rows", Format.CSV, RecordKey.field("id"), None, TSV)
    land(tmp_path / "plain", whole, toy(plain_spec))
    monkeypatch.setattr(line_reader, "BLOCK_BYTES", 300)
    blocks = []
    real = readers.read_csv
    monkeypatch.setattr(readers, "read_csv", lambda *a: blocks.append(a[3]) or real(*a))
    s = land(tmp_path, duck, toy(spec))
    assert len(blocks) > 5 and all(b is not None for b in blocks)
    assert (s.records_loaded, s.records_rejected) == (148, 2)
    cols = "record_index, line_number, record_key, payload::VARCHAR, source_text"
    assert rows(duck, "toy__rows", cols) == rows(whole, "toy__rows", cols)
    got = rejects(duck, "record_index, line_number, error, raw_bytes")
    want = rejects(whole, "record_index, line_number, error, raw_bytes")
    # a stray quote's message counts the lines it would swallow: to the end of the file read
    # whole, to the block's end in blocks
    swallow = re.compile(r"swallow the next \d+ line")
    assert [(*r[:2], swallow.sub("", r[2]), r[3]) for r in got] == [
        (*r[:2], swallow.sub("", r[2]), r[3]) for r in want
    ]
    assert [(line, raw) for _, line, _, raw in got] == [
        (75, rows_in[70].encode()),
        (95, rows_in[90].encode()),
    ]
    whole.close()
