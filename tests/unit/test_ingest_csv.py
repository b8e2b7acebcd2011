"""The CSV reader (CRSArena votes, RFC 4180) on tiny files written here, and every reject path."""

from __future__ import annotations

import hashlib
import json

from ingest_reader_helpers import VOTES, ingest, rejects, rows

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
