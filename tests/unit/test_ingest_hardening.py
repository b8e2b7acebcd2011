"""Ingest hardening (issue 13, items 4, 5 and 10): JSON-array salvage resynchronises at the
next element, deep nesting is one reject, a stray CSV quote never swallows records, a file
name that is not UTF-8 is one reject, and a full disk says so."""

from __future__ import annotations

import errno
import json
import os
import sys

import duckdb
import pytest
from ingest_salvage import drop_first_quote_after, drop_opening_brace_before, ingest, rejects

from csrwh.errors import CsrwhError
from ingest import run

DIAL = "data/crs_arena_dial_open.json"
VOTES = "data/votes_open.csv"
CSV_HEADER = "session_id,user_id,crs1,crs2,vote,feedback"


def keys(con, table: str) -> list:
    return con.execute(
        f"SELECT record_index, record_key FROM raw.{table} ORDER BY record_index"
    ).fetchall()


def dialogue(i: int) -> dict:
    return {
        "conversation ID": f"crs_{i}",
        "agent": {"id": "barcor_redial", "type": "AGENT"},
        "conversation": [
            {"participant": "USER", "utterance": f"hi {i}", "utterance ID": f"u{i}_0"},
            {"participant": "AGENT", "utterance": "hello, {there}", "utterance ID": f"u{i}_1"},
            {"participant": "USER", "utterance": "bye", "utterance ID": f"u{i}_2"},
        ],
    }


# ----------------------------------------------------------------------------- item 4


@pytest.mark.parametrize("indent", [4, None], ids=["pretty", "minified"])
def test_json_array_salvage_resynchronises_after_a_missing_quote(
    tmp_path, duck, write_file, indent
):
    objs = [dialogue(i) for i in range(12)]
    good = json.dumps(objs, indent=indent)
    text = drop_first_quote_after(good, '"conversation ID": "crs_1"')  # element 2
    write_file(tmp_path / "crsarena-dial", DIAL, text)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (11, 1)
    assert [k for _, k in keys(duck, "crsarena__dialogues")] == [
        f"crs_{i}" for i in range(12) if i != 1
    ]
    [(p, idx, _ln, err, raw_text, raw_bytes)] = rejects(duck)
    assert (p, idx) == (DIAL, 1)
    assert err.startswith("broken JSON") and "\n" not in err
    # the broken element verbatim, and only it
    elem1 = json.dumps(objs[1], indent=indent)
    if indent:
        elem1 = elem1.replace("\n", "\n" + " " * indent)
    assert raw_text == drop_first_quote_after(elem1, '"conversation ID": "crs_1"')
    assert raw_bytes == raw_text.encode()


def test_json_array_two_broken_elements_reject_only_those(tmp_path, duck, write_file):
    text = json.dumps([dialogue(i) for i in range(6)], indent=2)
    text = text.replace('"utterance": "hi 2",', '"utterance": "hi 2",,')  # element 3
    text = drop_first_quote_after(text, '"conversation ID": "crs_4"')  # element 5
    write_file(tmp_path / "crsarena-dial", DIAL, text)
    s = ingest(tmp_path, duck)
    assert [k for _, k in keys(duck, "crsarena__dialogues")] == ["crs_0", "crs_1", "crs_3", "crs_5"]
    assert [r[1] for r in rejects(duck)] == [2, 4]
    assert (s.records_loaded, s.records_rejected) == (4, 2)


def test_json_array_missing_comma_rejects_one_element(tmp_path, duck, write_file):
    text = '[{"id": 1}, {"id": 2} {"id": 3}, {"id": 4}]'
    write_file(tmp_path / "convsearch", "Dialogs.json", text)
    s = ingest(tmp_path, duck)
    assert keys(duck, "convsearch__dialogs") == [(0, "1"), (1, "2"), (3, "4")]
    [(_, idx, _ln, err, raw_text, _b)] = rejects(duck)
    assert idx == 2 and raw_text == '{"id": 3}' and "','" in err
    assert (s.records_loaded, s.records_rejected) == (3, 1)


@pytest.mark.parametrize("indent", [4, None], ids=["pretty", "minified"])
@pytest.mark.parametrize("broken", [2, 0], ids=["middle", "first"])
def test_json_array_element_missing_its_opening_brace_is_the_only_reject(
    tmp_path, duck, write_file, indent, broken
):
    """Issue 24.12: before the fix the good element before it was rejected with it (pretty),
    or the bad element was split into two rejects (minified) or into one per key (first)."""
    objs = [dialogue(i) for i in range(6)]
    marker = f'"conversation ID": "crs_{broken}"'
    text = drop_opening_brace_before(json.dumps(objs, indent=indent), marker)
    write_file(tmp_path / "crsarena-dial", DIAL, text)
    s = ingest(tmp_path, duck)
    assert keys(duck, "crsarena__dialogues") == [(i, f"crs_{i}") for i in range(6) if i != broken]
    [(p, idx, _ln, err, raw_text, raw_bytes)] = rejects(duck)
    assert (p, idx) == (DIAL, broken)
    assert err.startswith("broken JSON: an object element is missing its opening '{'")
    assert "\n" not in err
    elem = json.dumps(objs[broken], indent=indent)
    if indent:
        elem = elem.replace("\n", "\n" + " " * indent)
    assert raw_text == drop_opening_brace_before(elem, marker).strip()  # that element, verbatim
    assert raw_bytes == raw_text.encode()
    assert (s.records_loaded, s.records_rejected) == (5, 1)


def test_json_array_stray_closing_bracket_still_rejects_the_whole_element(
    tmp_path, duck, write_file
):
    objs = [dialogue(i) for i in range(5)]
    text = json.dumps(objs, indent=4)
    at = text.index('"type": "AGENT"', text.index('"crs_2"')) + len('"type": "AGENT"')
    write_file(tmp_path / "crsarena-dial", DIAL, text[:at] + "}" + text[at:])
    s = ingest(tmp_path, duck)
    assert [k for _, k in keys(duck, "crsarena__dialogues")] == ["crs_0", "crs_1", "crs_3", "crs_4"]
    [(_, idx, _ln, err, raw_text, _b)] = rejects(duck)
    assert idx == 2 and "stray closing bracket" in err and '"crs_2"' in raw_text
    assert '"crs_1"' not in raw_text and '"crs_3"' not in raw_text
    assert (s.records_loaded, s.records_rejected) == (4, 1)


@pytest.mark.parametrize(
    "corpus, rel, content",
    [
        ("crsarena-dial", DIAL, "[" * 50_000),  # unclosed: the salvage parser
        (
            "crsarena-dial",
            DIAL,
            '[{"conversation ID": "a"},\n' + "[" * 50_000 + "x" + "]" * 50_000 + "]",
        ),
        ("convsearch", "Dialogs.json", "{" * 50_000),  # not an array at all
        ("cosrec", "dataset/crowd/quality.jsonl", '{"a": 1}\n{"b": ' + "[" * 50_000 + "}\n"),
        ("recllmsim", "LLM_agent_user/t/1.json", '{"history": ' + "[" * 50_000 + "}"),
    ],
    ids=["array-unclosed", "array-element", "not-array", "jsonl-line", "whole-file"],
)
def test_deeply_nested_input_is_one_reject_not_a_recursion_error(
    tmp_path, duck, write_file, corpus, rel, content
):
    write_file(tmp_path / corpus, rel, content)
    s = ingest(tmp_path, duck)
    rej = rejects(duck)
    assert len(rej) == 1 and s.records_rejected == 1
    assert rej[0][0] == rel and "\n" not in rej[0][3]
    assert rej[0][5] is not None and len(rej[0][5]) >= 49_999  # kept verbatim


# ----------------------------------------------------------------------------- item 5


def votes(n: int, feedback=None) -> list[str]:
    feedback = feedback or {}
    return [f"s{i},u{i},a,b,tie,{feedback.get(i, '')}" for i in range(n)]


def test_csv_stray_quote_does_not_swallow_following_records(tmp_path, duck, write_file):
    lines = votes(30, {3: '"I liked, both', 5: '"fine"', 20: '"later, quoted"'})
    write_file(tmp_path / "crsarena-dial", VOTES, CSV_HEADER + "\n" + "\n".join(lines) + "\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (29, 1)
    assert [k for _, k in keys(duck, "crsarena__votes")] == [f"s{i}" for i in range(30) if i != 3]
    [(p, idx, ln, err, raw_text, raw_bytes)] = rejects(duck)
    assert (p, idx, ln) == (VOTES, 3, 5)
    assert raw_text == 's3,u3,a,b,tie,"I liked, both' and raw_bytes == raw_text.encode()
    assert err.startswith("broken CSV: stray quote") and "line 5" in err and "\n" not in err
    fb = dict(
        duck.execute("SELECT record_key, payload->>'feedback' FROM raw.crsarena__votes").fetchall()
    )
    assert fb["s5"] == "fine" and fb["s20"] == "later, quoted"


def test_csv_stray_quote_with_matching_field_count_is_detected(tmp_path, duck, write_file):
    """The quote swallows records and closes at a later quote so that the field count still
    matches: before the fix this landed silently with records missing and 0 rejects."""
    lines = votes(25, {2: '"great', 19: '"ok"'})
    write_file(tmp_path / "crsarena-dial", VOTES, CSV_HEADER + "\r\n" + "\r\n".join(lines) + "\r\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (24, 1)
    [(_, idx, ln, err, raw_text, _b)] = rejects(duck)
    assert (idx, ln, raw_text) == (2, 4, 's2,u2,a,b,tie,"great')
    assert "stray quote" in err


def test_csv_stray_quote_running_to_the_end_of_the_file(tmp_path, duck, write_file):
    lines = votes(10, {7: '"oops'})
    write_file(tmp_path / "crsarena-dial", VOTES, CSV_HEADER + "\n" + "\n".join(lines) + "\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (9, 1)
    assert rejects(duck)[0][1:3] == (7, 9)


def test_csv_real_multiline_feedback_is_not_a_stray_quote(tmp_path, duck, write_file):
    fb = '"Line one, with a comma\none, two, three, four, five, six\nsecond ""quoted"", part"'
    lines = votes(6, {2: fb})
    write_file(tmp_path / "crsarena-dial", VOTES, CSV_HEADER + "\n" + "\n".join(lines) + "\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (6, 0)


def test_csv_two_stray_quotes_forming_one_field_reject_their_lines_only(tmp_path, duck, write_file):
    """Issue 24.3: ``"oops`` on one record and ``oops"`` on a record 11 lines later form one
    well-formed quoted field; before the fix it swallowed the 10 records between them with 0
    rejects. Both lines are rejected verbatim, the records between them land."""
    lines = votes(30, {4: '"oops', 15: 'oops"'})
    write_file(tmp_path / "crsarena-dial", VOTES, CSV_HEADER + "\r\n" + "\r\n".join(lines) + "\r\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (28, 2)
    assert [k for _, k in keys(duck, "crsarena__votes")] == [
        f"s{i}" for i in range(30) if i not in (4, 15)
    ]
    rej = rejects(duck)
    assert [(r[0], r[2], r[4]) for r in rej] == [
        (VOTES, 6, 's4,u4,a,b,tie,"oops'),
        (VOTES, 17, 's15,u15,a,b,tie,oops"'),
    ]
    assert all(r[3].startswith("broken CSV: stray quote") and "\n" not in r[3] for r in rej)
    assert "line 6" in rej[1][3]


def test_csv_multiline_field_with_its_own_line_breaks_is_kept(tmp_path, duck, write_file):
    """Rows end in \\r\\n, the field's lines in a bare \\n (csv.writer's output, as the sample's):
    a real multi-line field even when every line of it reads as a record."""
    lines = votes(6, {2: '"first, line\ns9,u9,a,b,tie,second line"'})
    write_file(tmp_path / "crsarena-dial", VOTES, CSV_HEADER + "\r\n" + "\r\n".join(lines) + "\r\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (6, 0)


# ----------------------------------------------------------------------------- item 10


@pytest.mark.skipif(
    sys.platform != "linux", reason="needs a file system that takes any bytes in names"
)
def test_file_name_that_is_not_utf8_is_one_reject(tmp_path, duck, write_file):
    root = tmp_path / "recllmsim"
    write_file(root, "LLM_agent_user/t/0.json", '{"history": []}')
    bad_dir = os.fsencode(root / "LLM_agent_user" / "t")
    bad = os.path.join(bad_dir, b"caf\xe9.json")
    with open(bad, "wb") as fh:
        fh.write(b'{"history": [1]}')
    folder = os.path.join(os.fsencode(root), b"r\xe9al")
    os.mkdir(folder)
    with open(os.path.join(folder, b"1.json"), "wb") as fh:
        fh.write(b'{"history": [2]}')
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 2)
    rej = rejects(duck)
    assert sorted(r[0] for r in rej) == ["LLM_agent_user/t/caf\\xe9.json", "r\\xe9al/1.json"]
    assert all("not valid UTF-8" in r[3] for r in rej)
    assert {r[5] for r in rej} == {b'{"history": [1]}', b'{"history": [2]}'}
    # idempotent: a second run changes nothing
    s2 = ingest(tmp_path, duck)
    assert (s2.files_loaded, s2.files_unchanged, s2.records_rejected) == (0, 3, 0)
    assert len(rejects(duck)) == 2


@pytest.mark.parametrize(
    "exc",
    [
        OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
        duckdb.IOException(
            'IO Error: Could not write file "wh.duckdb.wal": No space left on device'
        ),
    ],
    ids=["oserror", "duckdb"],
)
def test_disk_full_says_no_space_left_on_device(tmp_path, duck, write_file, monkeypatch, exc):
    write_file(tmp_path / "cosrec", "dataset/crowd/quality.jsonl", '{"a": 1}\n')

    def full(self, *a, **k):
        self.con.execute("ROLLBACK")  # the write failed and took the transaction with it
        raise exc

    monkeypatch.setattr(run.Ingestor, "_insert_stage", full)
    with pytest.raises(CsrwhError) as info:
        ingest(tmp_path, duck)
    assert "No space left on device" in info.value.message
    assert "\n" not in info.value.message and "space" in (info.value.hint or "")
