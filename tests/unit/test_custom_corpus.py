"""The generic "custom" corpus (docs/ADDING_A_CORPUS.md): what ingest lands and rejects, and
what the raw suites report, on small hand-written corpora; and the deterministic sample."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from csrwh.gate.run import validate
from csrwh.sample import MARKER, generate
from ingest import registry, run_ingest

RAW_SUITES = [f"raw.custom__{t}" for t in ("conversations", "corpora", "qrels", "users")]


def line(record: object) -> str:
    return json.dumps(record, ensure_ascii=False)


def chat(conversation_id: str, **extra: object) -> dict:
    """A valid conversation: one user and one assistant message."""
    messages = [
        {"role": "user", "text": f"question {conversation_id}"},
        {"role": "assistant", "text": "answer"},
    ]
    return {"id": conversation_id, "messages": messages, **extra}


def write_lines(root: Path, rel: str, lines: list[str], final_newline: bool = True) -> Path:
    path = root / "custom" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("\n".join(lines) + ("\n" if final_newline else "")).encode("utf-8"))
    return path


def ingest(data: Path, database: Path | duckdb.DuckDBPyConnection):
    return run_ingest(data, database, corpora=["custom"], progress=False)


def failures(report) -> dict[str, list[dict]]:
    """Failed expectation -> its offending rows (at most the first five are kept)."""
    return {o.expectation: o.offending_rows for o in report.outcomes if not o.success}


def test_registered_with_its_four_raw_tables():
    spec = registry.get("custom")
    assert spec.folder == "custom"
    assert spec.tables == [
        "custom__users",
        "custom__conversations",
        "custom__corpora",
        "custom__qrels",
    ]
    assert set(spec.tables) <= set(registry.raw_tables())


def test_good_lines_and_corpus_json_land_verbatim_with_provenance(tmp_path, duck):
    lines = [
        line(chat("c1", subset="pilot", metadata={"k": [1, 2]})),
        line(chat("c2", extra_key="kept")),
    ]
    write_lines(tmp_path, "alpha/a.jsonl", [lines[0], "", lines[1]])  # a blank line is no record
    corpus_json = '{"licence": "CC0-1.0", "rating_scales": {"q": {"min": 1, "max": 5}}}'
    (tmp_path / "custom/alpha/corpus.json").write_text(corpus_json, encoding="utf-8")

    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected, s.missing_corpora) == (3, 0, [])
    rows = duck.execute(
        "select corpus, source_path, record_index, line_number, record_key, payload::varchar "
        "from raw.custom__conversations order by record_index"
    ).fetchall()
    assert rows == [
        ("custom", "alpha/a.jsonl", 0, 1, "c1", lines[0]),
        ("custom", "alpha/a.jsonl", 1, 3, "c2", lines[1]),
    ]
    assert duck.execute(
        "select source_path, record_key, payload::varchar from raw.custom__corpora"
    ).fetchall() == [("alpha/corpus.json", "alpha/corpus", corpus_json)]


def test_bad_lines_are_rejected_verbatim_with_line_numbers_and_the_rest_lands(tmp_path, duck):
    good = [line(chat("c1")), line(chat("c2")), line(chat("c3"))]
    bad = {
        2: '{"id": "x", "messages": [',  # broken JSON
        4: '["an", "array"]',
        5: '"a string"',
        7: '{"id": "truncated", "mess',  # the last line, cut off
    }
    text_lines = [good[0], bad[2], good[1], bad[4], bad[5], good[2], bad[7]]
    write_lines(tmp_path, "alpha/a.jsonl", text_lines, final_newline=False)

    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (len(good), len(bad))
    assert s.rejected_files == {"custom/alpha/a.jsonl": len(bad)}
    landed = duck.execute(
        "select line_number, record_key from raw.custom__conversations order by line_number"
    ).fetchall()
    assert landed == [(1, "c1"), (3, "c2"), (6, "c3")]
    rejected = duck.execute(
        "select corpus, table_name, source_path, line_number, error, raw_bytes "
        "from raw.rejected_records order by line_number"
    ).fetchall()
    assert [(r[0], r[1], r[2], r[3], bytes(r[5])) for r in rejected] == [
        ("custom", "custom__conversations", "alpha/a.jsonl", n, text.encode("utf-8"))
        for n, text in bad.items()
    ]
    errors = [r[4] for r in rejected]
    assert errors[0].startswith("broken JSON")
    assert errors[1] == "wrong top-level shape: expected an object, found an array"
    assert errors[2] == "wrong top-level shape: expected an object, found a string"
    assert errors[3].startswith("truncated file: partial last record")


def test_files_outside_the_layout_are_listed_not_landed(tmp_path, duck):
    write_lines(tmp_path, "alpha/a.jsonl", [line(chat("c1"))])
    write_lines(tmp_path, "loose.jsonl", [line(chat("c2"))])
    write_lines(tmp_path, "alpha/nested/b.jsonl", [line(chat("c3"))])
    write_lines(tmp_path, "alpha/notes.txt", ["not data"])
    s = ingest(tmp_path, duck)
    assert s.records_loaded == 1
    assert sorted(s.ignored_files) == [
        "custom/alpha/nested/b.jsonl",
        "custom/alpha/notes.txt",
        "custom/loose.jsonl",
    ]


def repeated(conversation_id: str, first: str) -> str:
    """The reason a repeated id is rejected with; ``first``: '<file> line <n>'."""
    return (
        f'id "{conversation_id}" is used twice in corpus alpha: first at {first}, which lands '
        "(an id names one conversation within its corpus, across its files)"
    )


#: (line, record, the reason it is rejected with) of alpha/a.jsonl and alpha/b.jsonl; the
#: records without a reason land
ALPHA_A: list[tuple[int, object, str | None]] = [
    (1, chat("c1", ratings={"q": 6}), None),  # lands: off its scale fails the raw suite
    (
        2,
        {"id": "c2", "messages": [{"role": "user", "text": "hi"}, {"role": "bot", "text": "beep"}]},
        "message 1 has an unknown role 'bot' (expected user, assistant, system)",
    ),
    (3, {"id": "c3"}, "messages is missing"),
    (4, {"id": "c4", "messages": []}, "messages is empty"),
    (5, {"messages": [{"role": "user", "text": "who am I"}]}, "id is missing"),
    (
        6,
        chat("c1"),
        repeated("c1", "alpha/a.jsonl line 1"),
    ),
    (7, chat(" \t"), "id is empty or blank"),
    (8, chat(""), "id is empty or blank"),
    (9, chat("c10"), None),
]
ALPHA_B: list[tuple[int, object, str | None]] = [
    (
        1,
        {"id": 7, "messages": [{"role": "user", "text": "numeric id"}]},
        "id is not a string (found a number)",
    ),
    (
        2,
        {"id": "c8", "messages": [{"text": "no role"}, {"role": "user", "text": 5, "labels": "x"}]},
        (
            "message 0 has no role; message 1 text is missing or not a string (found a number); "
            "message 1 labels is not an array (found a string)"
        ),
    ),
    (
        3,
        chat("c10"),
        repeated("c10", "alpha/a.jsonl line 9"),
    ),
    (4, chat("c3"), None),  # c3's first line was rejected: this one is the first that lands
    (5, chat("c9", ratings={"q": "five", "r": None}), "ratings.q is not a number (found a string)"),
    (
        6,
        {"id": "c11", "messages": [{"role": "user", "text": "hi", "rating": "good"}]},
        "message 0 rating is not a number (found a string)",
    ),
    (
        7,
        {"id": "c12", "messages": [{"role": "user", "text": "hi", "rating": True}]},
        "message 0 rating is not a number (found a boolean)",
    ),
    (
        8,
        {"id": "c13", "messages": [{"role": "user"}]},
        "message 0 text is missing or not a string (found no text)",
    ),
    (
        9,
        chat("c14", metadata="not an object", subset=3),
        "subset is not a string (found a number); metadata is not an object (found a string)",
    ),
    (10, {"id": "c15", "messages": "hi"}, "messages is not an array (found a string)"),
    (
        11,
        {"id": "c16", "messages": ["hi"]},
        'message 0 is not an object {"role", "text"} (found a string)',
    ),
    (
        12,
        chat("c17", ratings=[5]),
        # a list of ratings is the form `csrwh export` writes: each one an object
        'ratings[0] is not an object {"aspect", "value"} (found a number)',
    ),
]


def write_records(data: Path, rel: str, records: list[tuple[int, object, str | None]]) -> list[str]:
    texts = [line(record) for _, record, _ in records]
    assert [n for n, _, _ in records] == list(range(1, len(records) + 1))
    write_lines(data, rel, texts)
    return texts


def test_records_that_break_the_format_are_rejected_verbatim_with_line_and_reason(tmp_path, duck):
    """Each kind of bad record is one reject (file, line, one-line reason, verbatim bytes);
    the good records of the same files land; an id repeated within the corpus, in the same file
    or another one, is rejected naming the first (landing) occurrence; other corpora may reuse it."""
    a = write_records(tmp_path, "alpha/a.jsonl", ALPHA_A)
    b = write_records(tmp_path, "alpha/b.jsonl", ALPHA_B)
    write_lines(tmp_path, "beta/c.jsonl", [line(chat("c1"))])  # the same id in another corpus
    s = ingest(tmp_path, duck)

    want_rejects = [
        (path, n, reason, text.encode("utf-8"))
        for path, records, texts in (("alpha/a.jsonl", ALPHA_A, a), ("alpha/b.jsonl", ALPHA_B, b))
        for (n, _, reason), text in zip(records, texts)
        if reason is not None
    ]
    want_landed = [
        (path, n, record["id"], text)
        for path, records, texts in (("alpha/a.jsonl", ALPHA_A, a), ("alpha/b.jsonl", ALPHA_B, b))
        for (n, record, reason), text in zip(records, texts)
        if reason is None
    ] + [("beta/c.jsonl", 1, "c1", line(chat("c1")))]
    assert (s.records_loaded, s.records_rejected) == (len(want_landed), len(want_rejects))
    assert s.rejected_files == {"custom/alpha/a.jsonl": 7, "custom/alpha/b.jsonl": 11}
    got = duck.execute(
        "select corpus, table_name, source_path, line_number, error, raw_text, raw_bytes "
        "from raw.rejected_records order by source_path, line_number"
    ).fetchall()
    assert [(r[2], r[3], r[4], bytes(r[6])) for r in got] == want_rejects
    assert {(r[0], r[1]) for r in got} == {("custom", "custom__conversations")}
    assert all(r[5] == bytes(r[6]).decode("utf-8") and "\n" not in r[4] for r in got)
    landed = duck.execute(
        "select source_path, line_number, record_key, payload::varchar "
        "from raw.custom__conversations order by source_path, line_number"
    ).fetchall()
    assert landed == want_landed
    files = duck.execute(
        "select source_path, n_records, n_rejected from raw.ingest_files order by all"
    ).fetchall()
    assert files == [("alpha/a.jsonl", 2, 7), ("alpha/b.jsonl", 1, 11), ("beta/c.jsonl", 1, 0)]


def test_a_key_written_twice_is_rejected_naming_the_key_file_and_line(tmp_path, duck):
    """A line that writes a key twice in one object (at the top, in a message, deeper) is one
    reject naming the key: JSON readers differ on which value wins, so the DuckDB and the Spark
    build would read it differently (issue 28); the other lines land."""
    lines = [
        line(chat("c1")),
        '{"id": "c2", "subset": "a", "subset": "b", "messages": [{"role": "user", "text": "x"}]}',
        '{"id": "c3", "messages": [{"role": "user", "text": "x", "text": "y"}]}',
        '{"id": "c4", "messages": [{"role": "user", "text": "x"}], "metadata": {"k": 1, "k": 2}}',
        line(chat("c5")),
    ]
    write_lines(tmp_path, "alpha/a.jsonl", lines)
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (2, 3)
    rejects = duck.execute(
        "select source_path, line_number, error, raw_text from raw.rejected_records "
        "order by line_number"
    ).fetchall()
    why = (
        "is written twice in one object (one value per key: JSON readers differ on which one wins)"
    )
    assert rejects == [
        ("alpha/a.jsonl", 2, f'key "subset" {why}', lines[1]),
        ("alpha/a.jsonl", 3, f'key "text" {why}', lines[2]),
        ("alpha/a.jsonl", 4, f'key "k" {why}', lines[3]),
    ]
    landed = duck.execute(
        "select record_key from raw.custom__conversations order by line_number"
    ).fetchall()
    assert landed == [("c1",), ("c5",)]


def test_a_rejected_record_keeps_its_verbatim_bytes_crlf_bom_and_all(tmp_path, duck, write_file):
    bad = '{"id": "c2", "messages": [{"role": "bot", "text": "caf\u00e9"}]}'
    good = line(chat("c1"))
    write_file(tmp_path / "custom", "alpha/a.jsonl", "\ufeff" + bad + "\r\n" + good + "\r\n")
    s = ingest(tmp_path, duck)
    assert (s.records_loaded, s.records_rejected) == (1, 1)
    # the reject keeps the line's bytes as read (like every reject: a BOM is no part of a line,
    # the CR of its CRLF is); the landed record is the line without its CR
    assert duck.execute("select line_number, raw_bytes from raw.rejected_records").fetchall() == [
        (1, (bad + "\r").encode("utf-8"))
    ]
    assert duck.execute(
        "select line_number, payload::varchar from raw.custom__conversations"
    ).fetchall() == [(2, good)]


def test_a_changed_file_rechecks_the_ids_of_the_whole_corpus(tmp_path, duck):
    """The first occurrence of an id wins in file order, also when only one file changed."""
    write_lines(tmp_path, "alpha/b.jsonl", [line(chat("c1")), line(chat("c2"))])
    ingest(tmp_path, duck)
    write_lines(tmp_path, "alpha/a.jsonl", [line(chat("c1"))])  # a.jsonl comes before b.jsonl
    s = ingest(tmp_path, duck)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (2, 2, 1)

    def state():
        landed = duck.execute(
            "select source_path, record_key from raw.custom__conversations order by all"
        ).fetchall()
        rejected = duck.execute(
            "select source_path, line_number, error from raw.rejected_records order by all"
        ).fetchall()
        return landed, rejected

    assert state() == (
        [("alpha/a.jsonl", "c1"), ("alpha/b.jsonl", "c2")],
        [
            (
                "alpha/b.jsonl",
                1,
                repeated("c1", "alpha/a.jsonl line 1"),
            )
        ],
    )
    (tmp_path / "custom/alpha/a.jsonl").unlink()  # b.jsonl is unchanged, its c1 lands again
    s = ingest(tmp_path, duck)
    assert (s.files_removed, s.records_loaded, s.records_rejected) == (1, 2, 0)
    assert state() == ([("alpha/b.jsonl", "c1"), ("alpha/b.jsonl", "c2")], [])
    s = ingest(tmp_path, duck)  # nothing changed: nothing is read
    assert (s.files_loaded, s.files_unchanged) == (0, 1)


def test_what_lands_passes_the_shape_checks_and_the_suites_judge_scales_and_corpus_json(tmp_path):
    data, database = tmp_path / "data", tmp_path / "ingested.duckdb"
    write_records(data, "alpha/a.jsonl", ALPHA_A)
    write_records(data, "alpha/b.jsonl", ALPHA_B)
    (data / "custom/alpha/corpus.json").write_text(
        json.dumps(
            {
                "rater_kind": "boss",
                "rating_scales": {"q": {"min": 1, "max": 5}, "r": {"min": 3, "max": 3}},
            }
        ),
        encoding="utf-8",
    )
    s = ingest(data, database)
    assert s.records_rejected == 18
    report = validate(database, run_id="test", suites=RAW_SUITES, data_docs_dir=None, record=False)
    found = failures(report)
    assert [
        (r["source_path"], r["line_number"], r["aspect"], r["value"])
        for r in found.pop("ratings_on_declared_scale")
    ] == [("alpha/a.jsonl", 1, "q", 6.0)]
    assert [r["problem"] for r in found.pop("corpus_has_documented_shape")] == [
        "rater_kind 'boss' is not one of crowd, user, agent, llm, author"
    ]
    assert [r["problem"] for r in found.pop("rating_scales_well_formed")] == [
        "rating scale r min is not below max"
    ]
    assert found == {}  # the shape and id checks are safety nets: nothing reaches them
    assert all(o.severity == "critical" for o in report.outcomes if not o.success)


def test_the_safety_net_checks_fail_on_a_corrupted_copy_naming_file_line_and_problem(tmp_path):
    """What ingest rejects cannot reach raw through it; written into raw directly (a loader
    regression, a hand edit), the critical raw suite still names it."""
    data, database = tmp_path / "data", tmp_path / "copy.duckdb"
    write_lines(data, "alpha/a.jsonl", [line(chat("c1")), line(chat("c2"))])
    assert ingest(data, database).records_rejected == 0
    corrupt = {
        3: {"messages": [{"role": "user", "text": "no id"}]},
        4: {"id": "  ", "messages": [{"role": "user", "text": "blank id"}]},
        5: {"id": "c5", "messages": [{"role": "bot", "text": "beep"}]},
        6: chat("c1", ratings={"q": "five"}),  # a repeated id, a rating that is no number
        # a key written twice: JSON readers differ on which value wins (Python: the last)
        7: '{"id": "c7", "id": "c8", "messages": [{"role": "user", "text": "twice"}]}',
        8: '{"id": "c9", "messages": [{"role": "user", "text": "a", "text": "b"}]}',
    }

    def keyed(record: dict | str) -> tuple[str | None, str]:
        """(record_key, payload): a text record is keyed by the first id it writes."""
        if isinstance(record, str):
            return json.loads(record, object_pairs_hook=lambda pairs: pairs[0][1]), record
        return record.get("id"), line(record)

    with duckdb.connect(str(database)) as con:
        for n, record in corrupt.items():
            con.execute(
                "insert into raw.custom__conversations select * replace (? as record_index, "
                "? as line_number, ? as record_key, ?::json as payload) "
                "from raw.custom__conversations where line_number = 1",
                [n - 1, n, *keyed(record)],
            )
    report = validate(
        database, run_id="test", suites=RAW_SUITES[:1], data_docs_dir=None, record=False
    )
    found = failures(report)
    assert [
        (r["source_path"], r["line_number"], r["problem"])
        for r in found.pop("conversation_has_documented_shape")
    ] == [
        ("alpha/a.jsonl", 3, "id is missing or not a string (found no id)"),
        ("alpha/a.jsonl", 4, "id is empty or blank"),
        ("alpha/a.jsonl", 6, "ratings.q is not a number"),
        ("alpha/a.jsonl", 7, "a key is written twice (one value per key)"),
    ]
    assert [
        (r["source_path"], r["line_number"], r["problem"])
        for r in found.pop("messages_have_documented_shape")
    ] == [
        (
            "alpha/a.jsonl",
            5,
            "message 0 has an unknown role 'bot' (expected user, assistant or system)",
        ),
        ("alpha/a.jsonl", 8, 'message 0 is not an object {"role", "text"} (or writes a key twice)'),
    ]
    assert [(r["id"], r["occurrences"]) for r in found.pop("id_unique_within_corpus")] == [
        ("c1", "alpha/a.jsonl line 1, alpha/a.jsonl line 6")
    ]
    assert set(found) == {"record_key_present"}  # record_key NULL for the line without an id


def test_sample_is_deterministic_clean_and_passes_the_raw_suites(tmp_path):
    first, again, other = tmp_path / "first", tmp_path / "again", tmp_path / "other"
    counts = generate(first, seed=0, corpora=["custom"])
    generate(again, seed=0, corpora=["custom"])
    generate(other, seed=1, corpora=["custom"])

    def files(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in root.rglob("*")
            if p.is_file() and p.name != MARKER
        }

    assert counts == {"custom": len(files(first))}
    assert files(first) == files(again) and files(first) != files(other)
    assert any(rel.endswith("/corpus.json") for rel in files(first))

    database = tmp_path / "sample.duckdb"
    s = ingest(first, database)
    n_lines = sum(
        len(text.splitlines())
        for rel, text in files(first).items()
        if rel.endswith((".jsonl", ".qrels"))
    )
    assert (s.records_loaded, s.records_rejected) == (n_lines + 1, 0)  # + corpus.json
    report = validate(database, run_id="test", suites=RAW_SUITES, data_docs_dir=None, record=False)
    assert failures(report) == {}
    assert {o.suite for o in report.outcomes} == set(RAW_SUITES)


def test_a_conversation_with_one_role_is_named_with_its_file_and_line(tmp_path):
    """Issue 23: replies written with role "system" are no turns; the conversation has only a
    user side, and the warning names its file and line (not only its id and counts)."""
    data, database = tmp_path / "data", tmp_path / "w.duckdb"
    replies_as_system = {
        "id": "c2",
        "messages": [{"role": "user", "text": "hi"}, {"role": "system", "text": "hello"}],
    }
    write_lines(data, "alpha/a.jsonl", [line(chat("c1")), "", line(replies_as_system)])
    assert ingest(data, database).records_rejected == 0
    with duckdb.connect(str(database)) as con:  # the two columns the check reads of the mart
        con.execute(
            "create table main.conversations as select * from (values "
            "('custom', 'custom:alpha/c1', 'alpha/a.jsonl', 0, 2, 1, 1), "
            "('custom', 'custom:alpha/c2', 'alpha/a.jsonl', 1, 1, 1, 0)) as t(corpus, "
            "conversation_id, source_path, source_record_index, n_turns, n_user_turns, "
            "n_system_turns)"
        )
        # the public corpora's registry rows the rule reads (an own corpus has none)
        con.execute("create schema seeds")
        con.execute("create table seeds.corpora (corpus varchar, turn_roles varchar)")
    report = validate(
        database, run_id="t", suites=["conversations"], data_docs_dir=None, record=False
    )
    (outcome,) = [o for o in report.outcomes if o.expectation == "conversations_with_one_role_only"]
    assert (outcome.severity, outcome.success) == ("warning", False)
    assert [
        (r["conversation_id"], r["source_path"], r["source_record"]) for r in outcome.offending_rows
    ] == [("custom:alpha/c2", "alpha/a.jsonl", "line 3")]
