"""The users file of an own corpus, ``custom/<name>/users.jsonl`` (docs/ADDING_A_CORPUS.md,
"Users and their profiles"): what ingest lands and rejects, and what its raw suite reports."""

from __future__ import annotations

import duckdb
from test_custom_corpus import chat, failures, ingest, line, write_lines, write_records

from csrwh.gate.run import validate
from ingest import registry


def test_users_jsonl_is_the_users_file_and_any_other_jsonl_holds_conversations():
    spec = registry.get("custom")
    assert spec.spec_for("alpha/users.jsonl").table == "custom__users"
    assert spec.spec_for("alpha/more_users.jsonl").table == "custom__conversations"


#: (line, record, the reason it is rejected with) of alpha/users.jsonl; the others land
ALPHA_USERS: list[tuple[int, object, str | None]] = [
    (
        1,
        {
            "id": "u1",
            "subset": "pilot",
            "profile_text": "likes jazz",
            "keywords": ["jazz", "vinyl"],
        },
        None,
    ),
    (2, {"profile_text": "who am I"}, "id is missing (a user needs an `id`, or `user_id`)"),
    (3, {"id": "u2", "profile_text": 42}, "profile_text is not a string (found a number)"),
    (
        4,
        {"id": "u1", "profile_text": "again"},
        (
            'id "u1" is used twice in corpus alpha: first at alpha/users.jsonl line 1, which '
            "lands (an id names one user within its corpus)"
        ),
    ),
    (5, {"user_id": "u3", "attributes": {"age": 31}, "keywords": None}, None),  # user_id names it
    (6, {"id": " "}, "id is empty or blank"),
    (
        7,
        {"id": 7, "subset": ["a"]},
        "id is not a string (found a number); subset is not a string (found an array)",
    ),
    (
        8,
        {"id": "u4", "attributes": "plain text"},
        "attributes is a string that is not the text of a JSON object",
    ),
    (9, {"id": "u5", "attributes": '{"age": 31}'}, None),  # an object's text, as the mart has it
]


def test_a_users_file_lands_its_users_and_rejects_bad_lines_with_their_reasons(tmp_path, duck):
    """<name>/users.jsonl: one user a line. A line without a usable id, with a value of the
    wrong type or repeating an id of its corpus is rejected verbatim with its reason; the rest
    lands in raw.custom__users (not among the conversations); other corpora may reuse an id."""
    texts = write_records(tmp_path, "alpha/users.jsonl", ALPHA_USERS)
    write_lines(tmp_path, "alpha/a.jsonl", [line(chat("c1", user_id="u1"))])
    write_lines(tmp_path, "beta/users.jsonl", [line({"id": "u1"})])
    s = ingest(tmp_path, duck)

    want_rejects = [
        (n, reason, text.encode("utf-8"))
        for (n, _, reason), text in zip(ALPHA_USERS, texts)
        if reason is not None
    ]
    assert (s.records_loaded, s.records_rejected) == (5, len(want_rejects))
    got = duck.execute(
        "select table_name, line_number, error, raw_bytes from raw.rejected_records "
        "order by line_number"
    ).fetchall()
    assert [(r[1], r[2], bytes(r[3])) for r in got] == want_rejects
    assert {r[0] for r in got} == {"custom__users"}
    landed = duck.execute(
        "select source_path, line_number, record_key, payload::varchar "
        "from raw.custom__users order by source_path, line_number"
    ).fetchall()
    assert landed == [
        ("alpha/users.jsonl", 1, "u1", texts[0]),
        ("alpha/users.jsonl", 5, "u3", texts[4]),
        ("alpha/users.jsonl", 9, "u5", texts[8]),
        ("beta/users.jsonl", 1, "u1", line({"id": "u1"})),
    ]
    assert duck.execute("select source_path from raw.custom__conversations").fetchall() == [
        ("alpha/a.jsonl",)
    ]


def test_the_users_suite_passes_what_lands_and_fails_on_a_corrupted_copy(tmp_path):
    """raw.custom__users: the users that land pass the suite; its checks are safety nets that
    fail only on rows written into raw some other way (here: by SQL)."""
    data, database = tmp_path / "data", tmp_path / "ingested.duckdb"
    write_records(data, "alpha/users.jsonl", ALPHA_USERS)
    ingest(data, database)
    suites = ["raw.custom__users"]
    report = validate(database, run_id="test", suites=suites, data_docs_dir=None, record=False)
    assert failures(report) == {}
    with duckdb.connect(str(database)) as con:
        for n, payload in (
            (20, '{"id": "u9", "attributes": "plain text"}'),
            (21, '{"id": "u10", "profile_text": 42}'),
            (22, '{"id": "u1"}'),  # an id that landed already
        ):
            con.execute(
                "insert into raw.custom__users select * replace (? as record_index, "
                "? as line_number, ?::json as payload, json_extract_string(?, '$.id') as record_key) "
                "from raw.custom__users where line_number = 1",
                [n - 1, n, payload, payload],
            )
    found = failures(
        validate(database, run_id="test", suites=suites, data_docs_dir=None, record=False)
    )
    assert [(r["line_number"], r["problem"]) for r in found.pop("user_has_documented_shape")] == [
        (20, "attributes is a string that is not the text of a JSON object"),
        (21, "profile_text is not a string"),
    ]
    assert list(found) == ["record_key_unique_per_file"] and found.pop("record_key_unique_per_file")
