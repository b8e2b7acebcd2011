"""The JSONL and qrels readers (CoSRec, RecoReact) on tiny files written here, and every
reject path."""

from __future__ import annotations

import hashlib
import json

import pytest
from ingest_reader_helpers import CONV, DIAL, QRELS, VOTES, ingest, rejects, rows

# ----------------------------------------------------------------------------- JSONL (CoSRec)


def test_cosrec_jsonl_lands_verbatim_with_provenance(tmp_path, duck, write_file):
    text = '{"CoSRec-Crowd_1":  "U: hi\\nS: hello", "": 0}\n'.replace(', "": 0', "")
    text += '{"CoSRec-Crowd_2": "U: \u4f60\u597d\\nS: ok"}\n'
    path = write_file(tmp_path / "cosrec", CONV, text)
    s = ingest(tmp_path, duck)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (1, 2, 0)
    got = duck.execute(
        "SELECT batch_id, corpus, source_path, record_index, line_number, record_key, payload::VARCHAR, "
        "source_text, file_sha256, ingested_at FROM raw.cosrec__conversations ORDER BY record_index"
    ).fetchall()
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert [r[1:9] for r in got] == [
        (
            "cosrec",
            CONV,
            0,
            1,
            "CoSRec-Crowd_1",
            '{"CoSRec-Crowd_1":  "U: hi\\nS: hello"}',
            None,
            sha,
        ),
        (
            "cosrec",
            CONV,
            1,
            2,
            "CoSRec-Crowd_2",
            '{"CoSRec-Crowd_2": "U: \u4f60\u597d\\nS: ok"}',
            None,
            sha,
        ),
    ]
    assert {r[0] for r in got} == {s.batch_id}
    assert all(r[9] is not None for r in got)
    # payload is real JSON for dbt
    assert (
        duck.execute(
            "SELECT payload->>'$.\"CoSRec-Crowd_1\"' FROM raw.cosrec__conversations WHERE record_index = 0"
        ).fetchone()[0]
        == "U: hi\nS: hello"
    )


def test_unknown_fields_survive(tmp_path, duck, write_file):
    line = '{"news-1": {"title": "t", "brand_new_field": [1, {"deep": null}]}}'
    write_file(tmp_path / "cosrec", "dataset/raw/keywords.jsonl", line + "\n")
    ingest(tmp_path, duck)
    assert rows(duck, "cosrec__keywords", "payload::VARCHAR") == [(line,)]


def test_bom_crlf_and_blank_lines(tmp_path, duck, write_file):
    raw = b'\xef\xbb\xbf{"a": 1}\r\n\r\n   \r\n{"b": 2}\r\n\n'
    write_file(tmp_path / "cosrec", CONV, raw)
    s = ingest(tmp_path, duck)
    assert s.records_rejected == 0
    assert rows(duck, "cosrec__conversations") == [
        (0, 1, "a", '{"a": 1}', None),
        (1, 4, "b", '{"b": 2}', None),
    ]


def test_record_index_and_line_numbers_over_many_vectors(tmp_path, duck, write_file):
    """Lines are classified without a sort: over many DuckDB vectors (2,048 rows each) and
    threads, with blank and bad lines interleaved, good records and rejects keep file order:
    record_index counts the non-blank lines 0, 1, 2, ... and line_number is the physical line.
    The expected positions are computed here from the text alone."""
    lines = []
    for i in range(9000):
        if i % 7 == 3:
            lines.append("   ")  # blank: not a record
        elif i % 11 == 5:
            lines.append(f'{{"k{i}": 1,,}}')  # broken JSON: a reject
        else:
            lines.append(f'{{"k{i}": {i}}}')
    write_file(tmp_path / "cosrec", CONV, "\n".join(lines) + "\n")
    ingest(tmp_path, duck)
    expected_good, expected_bad, index = [], [], 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        (expected_bad if ",," in line else expected_good).append((index, number))
        index += 1
    assert rows(duck, "cosrec__conversations", "record_index, line_number") == expected_good
    assert rejects(duck, "record_index, line_number") == expected_bad


def test_broken_json_line_is_rejected_rest_lands(tmp_path, duck, write_file):
    raw = b'{"a": 1}\n{"b": 2,,}\n{"c": 3}\n'
    path = write_file(tmp_path / "cosrec", CONV, raw)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (2, 1)
    assert s.rejected_files == {f"cosrec/{CONV}": 1}
    assert [r[:3] for r in rows(duck, "cosrec__conversations")] == [(0, 1, "a"), (2, 3, "c")]
    [(p, idx, line, err, raw_text, raw_bytes)] = rejects(duck)
    assert (p, idx, line) == (CONV, 1, 2)
    assert err.startswith("broken JSON:")
    assert raw_text == '{"b": 2,,}' and raw_bytes == b'{"b": 2,,}'
    rr = duck.execute(
        "SELECT batch_id, corpus, table_name, file_sha256, rejected_at FROM raw.rejected_records"
    ).fetchone()
    assert rr[:4] == (
        s.batch_id,
        "cosrec",
        "cosrec__conversations",
        hashlib.sha256(path.read_bytes()).hexdigest(),
    )
    assert rr[4] is not None
    assert duck.execute("SELECT n_records, n_rejected FROM raw.ingest_files").fetchall() == [(2, 1)]


@pytest.mark.parametrize(
    "line, found",
    [
        ('["CoSRec-Crowd_1", "text"]', "an array"),
        ('{"CoSRec-Crowd_1": "x", "CoSRec-Crowd_2": "y"}', "an object with 2 keys"),
        ("{}", "an object with 0 keys"),
        ('"just a string"', "a string"),
        ("42", "a number"),
        ("null", "null"),
    ],
)
def test_cosrec_wrong_top_level_shape(tmp_path, duck, write_file, line, found):
    write_file(tmp_path / "cosrec", CONV, '{"ok": 1}\n' + line + "\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    [(_, idx, ln, err, _raw_text, raw_bytes)] = rejects(duck)
    assert (idx, ln) == (1, 2)
    assert err.startswith("wrong top-level shape") and err.endswith(found)
    assert raw_bytes == line.encode()


def test_invalid_utf8_rejects_only_that_line(tmp_path, duck, write_file):
    bad = b'{"x": "caf\xe9"}'
    write_file(tmp_path / "cosrec", CONV, b'{"a": "\xc3\xa9"}\n' + bad + b"\r\n" + b'{"c": 3}\n')
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (2, 1)
    assert [r[2:4] for r in rows(duck, "cosrec__conversations")] == [
        ("a", '{"a": "\u00e9"}'),
        ("c", '{"c": 3}'),
    ]
    [(_, idx, ln, err, raw_text, raw_bytes)] = rejects(duck)
    assert (idx, ln, err) == (1, 2, "invalid UTF-8")
    assert raw_bytes == bad + b"\r"  # verbatim record bytes (the line without its \n)
    assert raw_text == '{"x": "caf\ufffd"}\r'


def test_truncated_jsonl_file(tmp_path, duck, write_file):
    write_file(tmp_path / "cosrec", CONV, b'{"a": 1}\n{"b": "U: hello, I am loo')
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    [(_, idx, ln, err, raw_text, _b)] = rejects(duck)
    assert (idx, ln) == (1, 2)
    assert err.startswith("truncated file")
    assert raw_text == '{"b": "U: hello, I am loo'


def test_last_line_without_newline_is_fine(tmp_path, duck, write_file):
    write_file(tmp_path / "cosrec", CONV, b'{"a": 1}\n{"b": 2}')
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (2, 0)


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n"])
@pytest.mark.parametrize(
    "corpus, rel",
    [
        ("cosrec", CONV),
        ("cosrec", QRELS),
        ("crsarena-dial", DIAL),
        ("crsarena-dial", VOTES),
        ("recllmsim", "V2/task/0.json"),
        ("recoreact", "news-users.jsonl"),
    ],
)
def test_empty_file_is_one_file_level_reject(tmp_path, duck, write_file, content, corpus, rel):
    write_file(tmp_path / corpus, rel, content)
    s = ingest(tmp_path, duck)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (1, 0, 1)
    [(p, idx, ln, err, _t, raw_bytes)] = rejects(duck)
    assert (p, idx, ln, err) == (rel, None, None, "empty file")
    assert raw_bytes == content
    assert duck.execute("SELECT n_records, n_rejected FROM raw.ingest_files").fetchall() == [(0, 1)]


# ----------------------------------------------------------------------------- JSONL (RecoReact)


def test_recoreact_keys_and_shapes(tmp_path, duck, write_file):
    root = tmp_path / "recoreact"
    write_file(root, "news-products.jsonl", '{"pid": "n1", "title": "A"}\n{"pid": 7}\n')
    write_file(root, "food-users.jsonl", '{"uid": "u1", "companions": ["kids"]}\n[1, 2]\n')
    write_file(root, "travel-impressions.jsonl", '{"iid": "i1", "uid": "u1"}\n{"no_id": true}\n')
    s = ingest(tmp_path, duck)
    assert s.missing_corpora == ["cosrec", "crsarena", "convsearch", "recllmsim"]
    assert rows(duck, "recoreact__products", "record_key") == [("n1",), ("7",)]
    assert rows(duck, "recoreact__users", "record_key") == [("u1",)]
    # a record without its id still lands (record_key NULL): dbt tests catch it, nothing is lost
    assert rows(duck, "recoreact__impressions", "record_key") == [("i1",), (None,)]
    [(p, idx, _ln, err, _t, _b)] = rejects(duck)
    assert (p, idx) == ("food-users.jsonl", 1)
    assert err == "wrong top-level shape: expected an object, found an array"


# ----------------------------------------------------------------------------- qrels


def test_qrels(tmp_path, duck, write_file):
    raw = (
        "CoSRec-Curated_1_0_0#0\t0\tB004OA2B22\t2\r\n"
        "CoSRec-Curated_1_0_0  0 msmarco_v2.1_doc_58_928488527#0_1442429596   1  \r\n"
        "\r\n"
        "too few fields\n"
        "a b c d e\n"
        "T 0 D 0"
    )
    write_file(tmp_path / "cosrec", QRELS, raw)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (3, 2)
    got = rows(duck, "cosrec__qrels")
    assert got[0] == (
        0,
        1,
        "CoSRec-Curated_1_0_0#0",
        '{"topic_id":"CoSRec-Curated_1_0_0#0","iteration":"0","doc_id":"B004OA2B22","grade":"2"}',
        "CoSRec-Curated_1_0_0#0\t0\tB004OA2B22\t2",
    )
    assert got[1][:3] == (1, 2, "CoSRec-Curated_1_0_0")
    assert json.loads(got[1][3])["doc_id"] == "msmarco_v2.1_doc_58_928488527#0_1442429596"
    assert got[1][4] == "CoSRec-Curated_1_0_0  0 msmarco_v2.1_doc_58_928488527#0_1442429596   1  "
    assert got[2][:3] == (4, 6, "T")
    rej = rejects(duck)
    assert [(r[1], r[2]) for r in rej] == [(2, 4), (3, 5)]
    assert (
        rej[0][3]
        == "wrong field count: qrels line has 3 fields, expected 4 (topic_id iteration doc_id grade)"
    )
    assert "has 5 fields" in rej[1][3]
    assert rej[1][4] == "a b c d e"


def test_truncated_qrels(tmp_path, duck, write_file):
    write_file(tmp_path / "cosrec", QRELS, "t 0 d 1\nt 0 d")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    assert rejects(duck)[0][3].startswith("truncated file")


def test_invalid_utf8_qrels_line(tmp_path, duck, write_file):
    write_file(tmp_path / "cosrec", QRELS, b"t 0 d 1\nt\xff 0 d 1\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    assert rejects(duck)[0][3:] == ("invalid UTF-8", "t\ufffd 0 d 1", b"t\xff 0 d 1")
