"""Every record format of the ingest, on tiny files written here, and every reject path."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest

from ingest import registry, run_ingest
from ingest.discover import SourceFile
from ingest.readers.salvage import salvage_array
from ingest.spec import Format, RecordKey

CONV = "dataset/crowd/conversations.jsonl"
QRELS = "dataset/curated/qrels.qrels"
DIAL = "data/crs_arena_dial_open.json"
VOTES = "data/votes_open.csv"


def ingest(data_dir: Path, con: duckdb.DuckDBPyConnection, corpora=None):
    return run_ingest(data_dir, con, corpora=corpora, progress=False)


def rows(
    con,
    table: str,
    cols: str = "record_index, line_number, record_key, payload::VARCHAR, source_text",
):
    return con.execute(
        f"SELECT {cols} FROM raw.{table} ORDER BY source_path, record_index"
    ).fetchall()


def rejects(con, cols: str = "source_path, record_index, line_number, error, raw_text, raw_bytes"):
    return con.execute(
        f"SELECT {cols} FROM raw.rejected_records ORDER BY source_path, record_index NULLS FIRST"
    ).fetchall()


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


# ----------------------------------------------------------------------------- CSV


CSV_HEADER = "session_id,user_id,crs1,crs2,vote,feedback"


def test_csv_rfc4180_multiline_quoted_fields(tmp_path, duck, write_file):
    rec2 = '2024-09-09 12:44:14,u2,kbrd_redial,kbrd_opendialkg,kbrd_redial,"Line one ""quoted""\nline two, with comma"'
    raw = (
        "\ufeff"
        + CSV_HEADER
        + "\r\n"
        + "2024-09-08 23:01:08,u1,a,b,tie,\r\n"
        + rec2
        + "\r\n\r\n"
        + "s3,u3,a,b,a,ok\r\n"
    )
    path = write_file(tmp_path / "crsarena-dial", VOTES, raw)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (3, 0)
    got = rows(duck, "crsarena__votes")
    assert [g[:3] for g in got] == [
        (0, 2, "2024-09-08 23:01:08"),
        (1, 3, "2024-09-09 12:44:14"),
        (2, 6, "s3"),
    ]
    assert json.loads(got[0][3]) == {
        "session_id": "2024-09-08 23:01:08",
        "user_id": "u1",
        "crs1": "a",
        "crs2": "b",
        "vote": "tie",
        "feedback": "",
    }
    assert list(json.loads(got[1][3])) == CSV_HEADER.split(",")  # header order kept
    assert json.loads(got[1][3])["feedback"] == 'Line one "quoted"\nline two, with comma'
    assert got[1][4] == rec2  # the verbatim record text, CRLF terminator removed
    assert got[0][4] == "2024-09-08 23:01:08,u1,a,b,tie,"
    sha = duck.execute("SELECT DISTINCT file_sha256 FROM raw.crsarena__votes").fetchall()
    assert sha == [(hashlib.sha256(path.read_bytes()).hexdigest(),)]


def test_csv_wrong_field_count_and_truncation(tmp_path, duck, write_file):
    raw = (
        CSV_HEADER + "\n"
        "s1,u1,a,b,tie,\n"
        "s2,u2,a,b\n"
        's3,u3,a,b,a,"fine"\n'
        's4,u4,a,b,a,"cut off in the mid'
    )
    write_file(tmp_path / "crsarena-dial", VOTES, raw)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (2, 2)
    assert rows(duck, "crsarena__votes", "record_index, record_key") == [(0, "s1"), (2, "s3")]
    rej = rejects(duck)
    assert [(r[1], r[2]) for r in rej] == [(1, 3), (3, 5)]
    assert rej[0][3] == "wrong field count: 4 fields, the header has 6"
    assert rej[0][5] == b"s2,u2,a,b"
    assert rej[1][3].startswith("truncated file")
    assert rej[1][4] == 's4,u4,a,b,a,"cut off in the mid'


def test_csv_invalid_utf8_record(tmp_path, duck, write_file):
    raw = (CSV_HEADER + "\ns1,u1,a,b,tie,ok\ns2,u2,a,b,tie,caf\xe9\n").encode("latin-1")
    write_file(tmp_path / "crsarena-dial", VOTES, raw)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    assert rejects(duck)[0][3:] == (
        "invalid UTF-8",
        "s2,u2,a,b,tie,caf\ufffd",
        b"s2,u2,a,b,tie,caf\xe9",
    )


def test_csv_header_only_has_no_records(tmp_path, duck, write_file):
    write_file(tmp_path / "crsarena-dial", VOTES, CSV_HEADER + "\n")
    s = ingest(tmp_path, duck)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (1, 0, 0)


# ----------------------------------------------------------------------------- JSON arrays


DIALOGUES = [
    {"conversation ID": "barcor_redial_u1", "agent": {"id": "barcor_redial"}, "conversation": []},
    {
        "conversation ID": "kbrd_redial_u2",
        "metadata": {"sentiment": "satisfied"},
        "new": "\u00e9\u4e2d",
    },
    {"conversation ID": "unicrs_redial_u3", "conversation": [{"utterance": 'hi "there"'}]},
]


def _array_text(objs, indent=4) -> str:
    return json.dumps(objs, indent=indent, ensure_ascii=False)


def _element_texts(text: str) -> list[str]:
    """The verbatim text of each top-level element (independent of the loader)."""
    dec, out, i = json.JSONDecoder(), [], text.index("[") + 1
    while True:
        while text[i] in " \t\r\n,":
            i += 1
        if text[i] == "]":
            return out
        _, end = dec.raw_decode(text, i)
        out.append(text[i:end])
        i = end


def test_json_array_elements_land_verbatim(tmp_path, duck, write_file):
    text = _array_text(DIALOGUES)
    write_file(tmp_path / "crsarena-dial", DIAL, text)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (3, 0)
    got = rows(duck, "crsarena__dialogues")
    assert [g[:3] for g in got] == [
        (0, None, "barcor_redial_u1"),
        (1, None, "kbrd_redial_u2"),
        (2, None, "unicrs_redial_u3"),
    ]
    assert [g[3] for g in got] == _element_texts(text)
    assert all(g[4] is None for g in got)


def test_json_array_bom_and_crlf(tmp_path, duck, write_file):
    text = _array_text(DIALOGUES)
    write_file(
        tmp_path / "crsarena-dial", DIAL, b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()
    )
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (3, 0)
    assert [g[3] for g in rows(duck, "crsarena__dialogues")] == _element_texts(text)


def test_json_array_non_object_element(tmp_path, duck, write_file):
    write_file(
        tmp_path / "convsearch", "Dialogs.json", '[{"id": 130, "turns": []}, 5, ["x"], {"id": 131}]'
    )
    s = ingest(tmp_path, duck)
    assert rows(duck, "convsearch__dialogs", "record_index, record_key") == [(0, "130"), (3, "131")]
    rej = rejects(duck)
    assert [(r[1], r[3]) for r in rej] == [
        (1, "wrong top-level shape: expected an object, found a number"),
        (2, "wrong top-level shape: expected an object, found an array"),
    ]
    assert rej[1][5] == b'["x"]'
    assert s.records_rejected == 2


def test_truncated_json_array_salvages_good_elements(tmp_path, duck, write_file):
    text = _array_text(DIALOGUES)
    cut = text[: text.index('"unicrs_redial_u3"') + 10]
    write_file(tmp_path / "crsarena-dial", DIAL, cut)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (2, 1)
    got = rows(duck, "crsarena__dialogues")
    assert [g[3] for g in got] == _element_texts(text)[:2]
    [(_, idx, ln, err, raw_text, raw_bytes)] = rejects(duck)
    assert (idx, ln) == (2, None)
    assert err.startswith("truncated file")
    assert raw_text.startswith("{") and raw_text.endswith('"unicrs_re')
    assert raw_bytes == raw_text.encode()


def test_json_array_broken_element_in_the_middle(tmp_path, duck, write_file):
    text = '[\n  {"id": 1},\n  {"id": 2, oops},\n  {"id": 3}\n]\n'
    write_file(tmp_path / "convsearch", "SearchBehaviors.json", text)
    s = ingest(tmp_path, duck)
    assert rows(
        duck, "convsearch__search_behaviors", "record_index, record_key, payload::VARCHAR"
    ) == [
        (0, "1", '{"id": 1}'),
        (2, "3", '{"id": 3}'),
    ]  # resynchronised after the bad element (issue 13.4)
    [(_, idx, _ln, err, raw_text, _b)] = rejects(duck)
    assert idx == 1 and err.startswith("broken JSON") and "line 3" in err
    assert raw_text == '{"id": 2, oops}'  # the bad element only, verbatim
    assert (s.records_loaded, s.records_rejected) == (2, 1)


def test_json_array_invalid_utf8_rejects_only_that_element(tmp_path, duck, write_file):
    raw = b'[{"id": 1, "t": "\xc3\xa9"},\n {"id": 2, "t": "caf\xe9"},\n {"id": 3}]'
    write_file(tmp_path / "convsearch", "Dialogs.json", raw)
    s = ingest(tmp_path, duck)
    assert rows(duck, "convsearch__dialogs", "record_index, payload::VARCHAR") == [
        (0, '{"id": 1, "t": "\u00e9"}'),
        (2, '{"id": 3}'),
    ]
    [(_, idx, _ln, err, _raw_text, raw_bytes)] = rejects(duck)
    assert (idx, err, raw_bytes) == (1, "invalid UTF-8", b'{"id": 2, "t": "caf\xe9"}')
    assert (s.records_loaded, s.records_rejected) == (2, 1)


@pytest.mark.parametrize(
    "text, found",
    [('{"id": 1}', "an object"), ('"x"', "a string"), ("not json at all", "text that is not JSON")],
)
def test_json_array_wrong_top_level_shape(tmp_path, duck, write_file, text, found):
    write_file(tmp_path / "convsearch", "Dialogs.json", text)
    s = ingest(tmp_path, duck)
    [(_, idx, ln, err, raw_text, _b)] = rejects(duck)
    assert (idx, ln) == (None, None)
    assert err == f"wrong top-level shape: expected a JSON array, found {found}"
    assert raw_text == text
    assert (s.records_loaded, s.records_rejected) == (0, 1)


def test_json_array_trailing_garbage_and_empty_array(tmp_path, duck, write_file):
    write_file(tmp_path / "convsearch", "Dialogs.json", '[{"id": 1}, {"id": 2}]\n]')
    write_file(tmp_path / "convsearch", "SearchBehaviors.json", "[ ]")
    s = ingest(tmp_path, duck)
    assert rows(duck, "convsearch__dialogs", "record_key") == [("1",), ("2",)]
    [(p, idx, _ln, err, raw_text, _b)] = rejects(duck)
    assert (p, idx, raw_text) == ("Dialogs.json", 2, "\n]")
    assert err.startswith("broken JSON")
    assert duck.execute("SELECT count(*) FROM raw.convsearch__search_behaviors").fetchone() == (0,)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (2, 2, 1)


def test_array_not_closed_after_complete_element(tmp_path, duck, write_file):
    write_file(tmp_path / "convsearch", "Dialogs.json", '[{"id": 1},\n')
    s = ingest(tmp_path, duck)
    assert rows(duck, "convsearch__dialogs", "record_key") == [("1",)]
    [(_, idx, _ln, err, _t, _b)] = rejects(duck)
    assert idx is None and err.startswith("truncated file")
    assert s.records_rejected == 1


def test_salvage_parser_matches_duckdb_element_text(duck, tmp_path):
    """The fallback parser must cut elements exactly like read_json_objects does."""
    text = _array_text(DIALOGUES, indent=2)
    path = tmp_path / "a.json"
    path.write_text(text, encoding="utf-8")
    fast = [
        r[0]
        for r in duck.execute(
            "SELECT json FROM read_json_objects(?, format='array')", [str(path)]
        ).fetchall()
    ]
    spec = registry.get("crsarena").files[0]
    sf = SourceFile(registry.get("crsarena"), spec, path, "a.json", 0, None, "x")
    table, file_rejects = salvage_array(sf, text.encode())
    assert file_rejects == []
    assert table.column("t").to_pylist() == fast


# ----------------------------------------------------------------------------- whole-file JSON


def test_recllmsim_whole_files_any_depth(tmp_path, duck, write_file):
    root = tmp_path / "recllmsim"
    a = {
        "task": "travel planning",
        "history": [{"role": "user", "content": "hi"}],
        "rating": {"Diversity": 2},
    }
    b = {"task_type": "\u65c5\u884c\u89c4\u5212", "profile": "{'age': 30}", "history": []}
    text_a = json.dumps(a, indent=4)
    write_file(root, "LLM_agent_user/travel planning/0.json", text_a)
    write_file(
        root,
        "real_human_user/User_1/\u65c5\u884c\u89c4\u5212/2.json",
        b"\xef\xbb\xbf" + json.dumps(b, ensure_ascii=False).encode(),
    )
    write_file(root, "V2/gifts/10.json", json.dumps(a).replace(", ", ",\r\n"))
    write_file(root, "top.json", "{}")
    write_file(root, ".csrwh-manifest.json", '{"files": {}}')
    write_file(root, ".hidden/x.json", "{}")
    write_file(root, "notes.txt", "not landed")
    s = ingest(tmp_path, duck)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (4, 4, 0)
    assert s.ignored_files == ["recllmsim/notes.txt"]
    got = duck.execute(
        "SELECT source_path, record_index, line_number, record_key, payload::VARCHAR, source_text "
        "FROM raw.recllmsim__conversations ORDER BY source_path"
    ).fetchall()
    assert [(g[0], g[1], g[2], g[3], g[5]) for g in got] == [
        (
            "LLM_agent_user/travel planning/0.json",
            0,
            None,
            "LLM_agent_user/travel planning/0",
            None,
        ),
        ("V2/gifts/10.json", 0, None, "V2/gifts/10", None),
        (
            "real_human_user/User_1/\u65c5\u884c\u89c4\u5212/2.json",
            0,
            None,
            "real_human_user/User_1/\u65c5\u884c\u89c4\u5212/2",
            None,
        ),
        ("top.json", 0, None, "top", None),
    ]
    assert got[0][4] == text_a
    assert got[1][4] == json.dumps(a).replace(", ", ",\n")  # CR stripped
    assert got[2][4] == json.dumps(b, ensure_ascii=False)  # BOM stripped


@pytest.mark.parametrize(
    "content, error",
    [
        (b'{"task": "x", "history": [', "truncated file"),
        (b'{"task": "x",, }', "broken JSON"),
        (b'[{"task": "x"}]', "wrong top-level shape: expected an object, found an array"),
        (b'{"task": "caf\xe9"}', "invalid UTF-8"),
    ],
)
def test_recllmsim_rejects(tmp_path, duck, write_file, content, error):
    root = tmp_path / "recllmsim"
    write_file(root, "LLM_agent_user/t/0.json", b'{"ok": true}')
    write_file(root, "LLM_agent_user/t/1.json", content)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    [(p, idx, ln, err, raw_text, raw_bytes)] = rejects(duck)
    assert (p, idx, ln) == ("LLM_agent_user/t/1.json", 0, None)
    assert err.startswith(error)
    assert raw_bytes == content
    assert raw_text == content.decode("utf-8", "replace")


def test_formats_cover_every_declared_file():
    formats = {spec.format for c in registry.CORPORA for spec in c.files}
    assert formats == set(Format)
    keys = {spec.key.kind for c in registry.CORPORA for spec in c.files}
    assert keys == {
        RecordKey.single_key().kind,
        RecordKey.field("x").kind,
        RecordKey.relative_path().kind,
    }


# ----------------------------------------------------------------- FileSpec(check=...): the hook


def _toy_corpus(check):
    from ingest.spec import CorpusSpec, FileSpec

    return CorpusSpec(
        name="toy",
        folder="toy",
        files=(
            FileSpec("*.jsonl", "toy__lines", Format.JSONL, RecordKey.field("id"), check=check),
            FileSpec("*.csv", "toy__rows", Format.CSV, RecordKey.field("id"), check=check),
            FileSpec("*.json", "toy__docs", Format.JSON_ARRAY, RecordKey.field("id"), check=check),
            FileSpec("*.qrels", "toy__qrels", Format.QRELS, RecordKey.field("topic_id")),
        ),
        absent_hint="",
    )


def _ingest_toy(data_dir: Path, con, corpus):
    from ingest.run import Ingestor

    tables = corpus.tables
    return Ingestor(con, data_dir, [corpus], [corpus], tables).run()


def test_a_record_check_rejects_verbatim_with_its_reason_and_shares_state_across_files(
    tmp_path, duck, write_file
):
    """A FileSpec's check sees each parsed good record with its file, line and one state per
    corpus (files in order); a reason rejects the record verbatim like any reject, the rest of
    the file lands; specs without a check are not touched."""
    seen: list[tuple[str, int | None, int | None]] = []

    def check(record, context):
        seen.append((context.source_path, context.line_number, context.record_index))
        keys = context.state.setdefault("keys", {})
        first = keys.setdefault(record.get("id"), context.source_path)
        if record.get("bad"):
            return f"bad is set\n  to {record['bad']}"  # a multi-line reason becomes one line
        if first != context.source_path:
            return f"id {record['id']} already in {first}"
        return None

    corpus = _toy_corpus(check)
    root = tmp_path / "toy"
    lines = '{"id": "1"}\r\n{"id": "2", "bad": "x"}\r\nnot json\r\n{"id": "3"}\r\n'
    write_file(root, "a.jsonl", lines)
    write_file(root, "b.csv", 'id,bad\n4,\n"1",\n5,"y\nz"\n')
    write_file(root, "c.json", '[{"id": "6"},\n {"id": "4"}]')
    write_file(root, "d.qrels", "t1 0 d1 1\n")
    s = _ingest_toy(tmp_path, duck, corpus)
    assert (s.records_loaded, s.records_rejected) == (5, 5)
    assert seen == [
        ("a.jsonl", 1, 0), ("a.jsonl", 2, 1), ("a.jsonl", 4, 3),
        ("b.csv", 2, 0), ("b.csv", 3, 1), ("b.csv", 4, 2),
        ("c.json", None, 0), ("c.json", None, 1),
    ]  # fmt: skip
    assert rows(duck, "toy__lines", "line_number, record_key, payload::VARCHAR") == [
        (1, "1", '{"id": "1"}'),
        (4, "3", '{"id": "3"}'),
    ]
    assert rows(duck, "toy__rows", "line_number, record_key") == [(2, "4")]
    assert rows(duck, "toy__docs", "record_index, record_key") == [(0, "6")]
    assert rows(duck, "toy__qrels", "record_key") == [("t1",)]
    assert rejects(duck, "source_path, record_index, line_number, error, raw_bytes") == [
        ("a.jsonl", 1, 2, "bad is set to x", b'{"id": "2", "bad": "x"}\r'),
        ("a.jsonl", 2, 3, "broken JSON: Expecting value: line 1 column 1 (char 0)", b"not json\r"),
        ("b.csv", 1, 3, "id 1 already in a.jsonl", b'"1",'),
        ("b.csv", 2, 4, "bad is set to y z", b'5,"y\nz"'),
        ("c.json", 1, None, "id 4 already in b.csv", b'{"id": "4"}'),
    ]
    files = duck.execute(
        "SELECT source_path, n_records, n_rejected FROM raw.ingest_files ORDER BY 1"
    ).fetchall()
    assert files == [("a.jsonl", 2, 2), ("b.csv", 1, 2), ("c.json", 1, 1), ("d.qrels", 1, 0)]

    # one checked file changes: every checked file of the corpus is read again (in order, with a
    # fresh state), so cross-file verdicts stay right; the unchecked qrels file is not re-read
    seen.clear()
    write_file(root, "a.jsonl", '{"id": "3"}\n')
    s = _ingest_toy(tmp_path, duck, corpus)
    assert (s.files_loaded, s.files_unchanged) == (3, 1)
    assert [p for p, _, _ in seen] == ["a.jsonl", "b.csv", "b.csv", "b.csv", "c.json", "c.json"]
    assert rows(duck, "toy__rows", "line_number, record_key") == [(2, "4"), (3, "1")]
    assert [r[:3] for r in rejects(duck, "source_path, line_number, error")] == [
        ("b.csv", 4, "bad is set to y z"),
        ("c.json", None, "id 4 already in b.csv"),
    ]


# ----------------------------------------------------------------------------- non-finite numbers

NON_FINITE = ["1e400", "-1E+999", "NaN", "Infinity", "-Infinity", "nan", "inf", "1" + "0" * 400]
#: (folder, file, text with {v} in a number's place, raw table): every JSON reader
JSON_FORMATS = [
    ("cosrec", "dataset/crowd/quality.jsonl", '{{"a": 1}}\n{{"b": {v}}}\n{{"c": 2}}\n', "jsonl"),
    (
        "convsearch",
        "Dialogs.json",
        '[{{"id": 1}}, {{"id": 2, "r": [0, {v}]}}, {{"id": 3}}]',
        "array",
    ),
    (
        "convsearch",
        "Dialogs.json",
        '[\n  {{"id": 1}},\n  {{"id": 2, "r": {v}}},\n  {{"id": 3}}\n',  # unclosed: salvage parser
        "salvaged",
    ),
    ("recllmsim", "LLM_agent_user/t/1.json", '{{"history": [], "r": {{"x": {v}}}}}', "file"),
    (
        "custom",
        "alpha/a.jsonl",
        '{{"id": "c1", "messages": [{{"role": "user", "text": "q"}}], "ratings": {{"q": {v}}}}}\n',
        "custom",
    ),
]


@pytest.mark.parametrize("value", NON_FINITE, ids=lambda v: v[:10])
@pytest.mark.parametrize("folder, rel, text, _fmt", JSON_FORMATS, ids=[f[3] for f in JSON_FORMATS])
def test_non_finite_numbers_are_rejected_for_every_corpus(
    tmp_path, duck, write_file, folder, rel, text, _fmt, value
):
    """Issue 24.11: DuckDB's JSON reader accepts NaN, Infinity and 1e400; before the fix they
    landed (avg() over them is NaN). Each such record is one reject with a one-line reason."""
    write_file(tmp_path / folder, rel, text.format(v=value))
    ingest(tmp_path, duck)
    rej = rejects(duck, "source_path, record_index, error, raw_text")
    [(path, _idx, err, _raw)] = [r for r in rej if r[3] and value in r[3]]
    assert path == rel and "\n" not in err
    if _fmt == "salvaged" and value in ("nan", "inf"):  # not even Python's JSON parser takes it
        assert err.startswith("broken JSON")
    else:
        assert err.startswith(f"non-finite number: {value[:40]} (")
    (table,) = duck.execute("select distinct table_name from raw.ingest_files").fetchone()
    landed = duck.execute(f"select string_agg(payload::varchar, '') from raw.{table}").fetchone()
    assert value not in (landed[0] or "")


def test_finite_numbers_and_non_finite_words_in_strings_land(tmp_path, duck, write_file):
    text = (
        '[{"id": 1, "a": 1.7976931348623157e308, "b": -1e-400, "c": 1' + "2" * 60 + ", "
        '"t": "Avengers: Infinity War, NaN, [1e400] \\"inf\\"", "NaN": [0, "Infinity"]}]'
    )
    write_file(tmp_path / "convsearch", "Dialogs.json", text)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 0)


def test_non_finite_qrels_grades_are_rejected(tmp_path, duck, write_file):
    """Issue 24.11 for the one numeric field outside JSON: a qrels grade."""
    text = "1 0 d1 2\n1 0 d2 NaN\n1 0 d3 1e400\n1 0 d4 -inf\n1 0 d5 -1\n"
    write_file(tmp_path / "cosrec", QRELS, text)
    s = ingest(tmp_path, duck)
    assert rows(duck, "cosrec__qrels", "line_number") == [(1,), (5,)]
    rej = rejects(duck, "line_number, error, raw_text")
    assert [(r[0], r[2]) for r in rej] == [
        (2, "1 0 d2 NaN"),
        (3, "1 0 d3 1e400"),
        (4, "1 0 d4 -inf"),
    ]
    assert all(r[1].startswith("non-finite number: grade ") and "\n" not in r[1] for r in rej)
    assert (s.records_loaded, s.records_rejected) == (2, 3)
