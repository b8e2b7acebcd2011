"""Record checks of the ingest: the FileSpec(check=...) hook, and non-finite numbers rejected
by every JSON reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from ingest_reader_helpers import QRELS, ingest, rejects, rows

from ingest.spec import Format, RecordKey

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


def test_qrels_grades_that_are_not_integers_are_rejected(tmp_path, duck, write_file):
    """A qrels grade is a whole number (trec_eval's): NaN, infinities, fractions, words and
    integers past the 32-bit range are rejected with the value named; negative grades land."""
    text = (
        "1 0 d1 2\n1 0 d2 NaN\n1 0 d3 1e400\n1 0 d4 -inf\n1 0 d5 -1\n1 0 d6 2.5\n"
        "1 0 d7 high\n1 0 d8 99999999999\n1 0 d9 +3\n"
    )
    write_file(tmp_path / "cosrec", QRELS, text)
    s = ingest(tmp_path, duck)
    assert rows(duck, "cosrec__qrels", "line_number") == [(1,), (5,), (9,)]
    rej = rejects(duck, "line_number, error, raw_text")
    assert [(r[0], r[2]) for r in rej] == [
        (2, "1 0 d2 NaN"),
        (3, "1 0 d3 1e400"),
        (4, "1 0 d4 -inf"),
        (6, "1 0 d6 2.5"),
        (7, "1 0 d7 high"),
        (8, "1 0 d8 99999999999"),
    ]
    for line, error, text_ in rej:
        assert error.startswith(f"grade is not an integer: {text_.split()[-1]} "), (line, error)
        assert "\n" not in error
    assert (s.records_loaded, s.records_rejected) == (3, 6)
