"""`csrwh build` on your own corpora in the generic custom format (docs/ADDING_A_CORPUS.md).

The input is what the docs show -- the copy-paste examples of docs/ADDING_A_CORPUS.md and of
the README's "Your own corpus" section, parsed from their ``cat > ... <<'EOF'`` blocks -- plus
an ``edge`` corpus with the format's corners (system message mid-conversation, labels on an
assistant message, unknown keys, a null rating, a user in two subsets, Chinese text, a rating
aspect without a scale, a users.jsonl with profiles). Every mart row is checked against an independent reading of those
files; the checks this corpus type adds are seen failing on corrupted copies; a custom folder
with bad lines is refused like any rejects and publishes with ``allow_rejects``, its bad lines
kept in raw.rejected_records; and the generated sample's custom corpora land line for line.
The input and the oracle live in tests/integration/custom_corpus_oracle.py.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from unittest import mock

import duckdb
import pytest
from custom_corpus_oracle import expected_marts, rows, write_custom_data

from csrwh.errors import CsrwhError
from csrwh.gate.run import gate, validate
from csrwh.pipeline import EXIT_REFUSED, build
from csrwh.pipeline.dbt_runner import run_dbt

# --------------------------------------------------------------------------- builds


@pytest.fixture(scope="module")
def custom_build(module_tmp_path: Path):
    root = module_tmp_path
    with mock.patch.dict(os.environ, CSRWH_DBT_TARGET_PATH=str(root / "target")):
        data = root / "data"
        write_custom_data(data)
        warehouse = root / "warehouse" / "custom.duckdb"
        result = build(data, warehouse, gates=[gate])  # what `csrwh build` runs
        yield data, warehouse, result


def test_a_data_folder_with_only_custom_corpora_builds_and_publishes(custom_build) -> None:
    _, warehouse, result = custom_build
    assert result.published and result.records_rejected == 0
    with duckdb.connect(str(warehouse), read_only=True) as con:
        assert con.execute("select distinct corpus from conversations").fetchall() == [("custom",)]
        failed = con.execute(
            "select suite, expectation from dq_results where severity = 'critical' and not success"
        )
        # annotator_agreement is empty here (one annotator per unit) and still typed
        assert failed.fetchall() == []


def test_every_mart_row_matches_the_files(custom_build) -> None:
    data, warehouse, _ = custom_build
    want = expected_marts(data)
    with duckdb.connect(str(warehouse), read_only=True) as con:
        conversations = {
            r.pop("conversation_id"): r
            | {"source_attributes": json.loads(r["source_attributes"] or "null")}
            for r in rows(
                con,
                "select conversation_id, subset, source_conversation_id, domain_or_task, task_type, user_id, "
                "system_id, n_user_turns, n_system_turns, source_path, source_record_index, source_attributes "
                "from conversations",
            )
        }
        assert conversations == want["conversations"]
        turns = {
            (r["conversation_id"], r["turn_index"]): (r["role"], r["text"], r["source_turn_id"])
            for r in rows(con, "select * from turns")
        }
        assert turns == want["turns"]
        intents: dict[tuple, list] = {}
        for r in rows(con, "select * from intents order by all"):
            intents.setdefault((r["conversation_id"], r["turn_index"]), []).append(
                (r["label_scheme"], r["raw_label"], r["annotator"], r["source"], r["intent_family"])
            )
        assert {k: sorted(v) for k, v in intents.items()} == {
            k: sorted(v) for k, v in want["intents"].items()
        }
        ratings = {
            (r["conversation_id"], r["turn_index"], r["aspect"]): (
                r["value"],
                r["rater_kind"],
                r["rater_id"],
                r["scale_min"],
                r["scale_max"],
                r["value_normalized"],
            )
            for r in rows(con, "select * from ratings")
        }
        assert ratings == want["ratings"]
        assert con.execute(
            "select count(*) from ratings where raw_value is not null"
        ).fetchall() == [(0,)]
        users = {
            r["user_id"]: (r["subset"], r["profile_text"], r["keywords"], r["attributes"])
            for r in rows(con, "select * from users")
        }
        assert users == want["users"]
        stats = {
            (r["corpus"], r["subset"]): (r["n_conversations"], r["n_turns"])
            for r in rows(con, "select * from corpus_stats")
        }
        counted: dict[tuple, list[int]] = {}
        for c in want["conversations"].values():
            n = counted.setdefault(("custom", c["subset"]), [0, 0])
            n[0] += 1
            n[1] += c["n_user_turns"] + c["n_system_turns"]
        assert stats == {k: tuple(v) for k, v in counted.items()}
        languages = dict(
            con.execute("select source_conversation_id, language from conversations").fetchall()
        )
        assert languages["edge/e2"] == "zh" and languages["edge/e1"] == "en"


def test_load_returns_custom_conversations_with_chat_roles(custom_build) -> None:
    import csrwh

    data, warehouse, _ = custom_build
    want = expected_marts(data)
    frame = csrwh.load("custom", warehouse=warehouse)
    assert sorted(frame["conversation_id"].to_list()) == sorted(want["conversations"])
    for row in frame.iter_rows(named=True):
        c = want["conversations"][row["conversation_id"]]
        assert [m["role"] for m in row["messages"]].count("assistant") == c["n_system_turns"]
        assert {m["role"] for m in row["messages"]} <= {"user", "assistant"}


def test_unknown_keys_and_unscaled_aspects_are_listed_not_blocking(custom_build) -> None:
    _, _, result = custom_build
    text = "\n".join(result.novelties)
    assert (
        "$.extra_key.kept" in text
        and "$.messages[].typing_ms" in text
        and "edge/edge.jsonl" in text
    )
    assert "custom rating aspect without a scale" in text and "'custom:edge' / 'fun'" in text
    assert "'custom:edge' / 'message_rating'" in text
    assert "'unrated'" not in text  # a null rating is no rating
    # nothing else warns: the documented examples declare every scale and know no other key
    assert len(result.novelties) == 4
    assert [w for w in result.dbt.warnings if "int_custom__ratings_conformed" not in w] == []


# --------------------------------------------------------------------------- the checks, failing


def test_custom_dbt_tests_fail_on_corrupted_copies(custom_build, tmp_path: Path) -> None:
    _, warehouse, _ = custom_build
    selection = [
        "int_custom__conversations",
        "int_custom__conversations_conformed",
        "int_custom__turns_conformed",
        "int_custom__rating_scales",
        "source:custom.conversations",
        "source:custom.corpora",
    ]
    clean = run_dbt(["test", "--select", *selection], warehouse, quiet=True)
    assert clean.success, clean.failures
    corrupted = tmp_path / "corrupted.duckdb"
    shutil.copy2(warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        # a repeated id and a record without one: what ingest rejects, had it got through
        con.execute(
            "insert into intermediate.int_custom__conversations select * replace "
            "(null as conversation_id) from intermediate.int_custom__conversations limit 1"
        )
        # int_custom__turns_conformed is a view: a repeated turn reaches it from int_custom__turns
        for table in (
            "int_custom__conversations",
            "int_custom__conversations_conformed",
            "int_custom__turns",
            "int_custom__rating_scales",
        ):
            con.execute(
                f"insert into intermediate.{table} select * from intermediate.{table} limit 1"
            )
        for table in ("custom__conversations", "custom__corpora"):
            con.execute(
                f"update raw.{table} set payload = null where rowid = (select min(rowid) from raw.{table})"
            )
    outcome = run_dbt(["test", "--select", *selection], corrupted, quiet=True)
    failed = " ".join(outcome.failures)
    assert not outcome.success
    assert "rules_int_custom__conversations." in failed  # not-null and keys
    assert "rules_int_custom__conversations_conformed." in failed
    assert "rules_int_custom__turns_conformed." in failed
    assert "rules_int_custom__rating_scales." in failed
    assert "source_not_null_columns_custom_conversations" in failed
    assert "source_not_null_columns_custom_corpora" in failed


def test_mart_suites_fail_on_corrupted_custom_rows(custom_build, tmp_path: Path) -> None:
    _, warehouse, _ = custom_build
    corrupted = tmp_path / "marts.duckdb"
    shutil.copy2(warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        # a conversation lost, another one's turn count off its raw messages, a scale changed
        lost, miscounted = con.execute(
            "select min(conversation_id), max(conversation_id) from main.conversations"
        ).fetchone()
        con.execute("delete from main.conversations where conversation_id = ?", [lost])
        con.execute(
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = ?",
            [miscounted],
        )
        con.execute(
            "update main.ratings set scale_max = scale_max + 1 where rowid = "
            "(select min(rowid) from main.ratings where scale_max is not null)"
        )
    report = validate(
        corrupted,
        run_id="test",
        suites=["conversations", "custom__conversations", "ratings"],
        data_docs_dir=None,
        record=False,
    )
    found = {o.expectation: o.offending_rows for o in report.outcomes if not o.success}
    assert found["one_conversation_per_ingested_record"][0]["corpus"] == "custom"
    assert [
        (r["conversation_id"], r["n_turns"] - r["raw_turns"])
        for r in found["turn_counts_match_raw"]
    ] == [(miscounted, 1)]
    assert found["aspect_has_scale"][0]["corpus"] == "custom"


def test_raw_suite_fails_on_a_corrupted_copy_naming_file_and_line(
    custom_build, tmp_path: Path
) -> None:
    """Ingest rejects what these checks look for (the unit tests show it), so they are safety
    nets: here raw is written directly, as a loader regression or a hand edit would."""
    _, warehouse, _ = custom_build
    corrupted = tmp_path / "copied.duckdb"
    shutil.copy2(warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        path, line = con.execute(
            "select source_path, line_number from raw.custom__conversations where source_path like 'edge/%' "
            "order by line_number limit 1"
        ).fetchone()
        con.execute(
            'update raw.custom__conversations set payload = replace(payload::varchar, \'"role": "assistant"\', '
            '\'"role": "bot"\')::json where source_path = ? and line_number = ?',
            [path, line],
        )
        con.execute(
            "insert into raw.custom__conversations select * replace (record_index + 100 as record_index, "
            "line_number + 100 as line_number) from raw.custom__conversations where source_path = ? and line_number = ?",
            [path, line],
        )
        con.execute(
            "insert into raw.custom__conversations select * replace (record_index + 200 as record_index, "
            'line_number + 200 as line_number, json_merge_patch(payload, \'{"id": " "}\') as payload) '
            "from raw.custom__conversations where source_path = ? and line_number = ?",
            [path, line + 1],
        )
    report = validate(
        corrupted,
        run_id="test",
        suites=["raw.custom__conversations"],
        data_docs_dir=None,
        record=False,
    )
    found = {o.expectation: o.offending_rows for o in report.outcomes if not o.success}
    roles = found.pop("messages_have_documented_shape")
    assert {(r["source_path"], r["line_number"]) for r in roles} == {
        (path, line),
        (path, line + 100),
    }
    assert all("unknown role 'bot'" in r["problem"] for r in roles)
    assert [r["occurrences"] for r in found.pop("id_unique_within_corpus")] == [
        f"{path} line {line}, {path} line {line + 100}"
    ]
    assert [
        (r["source_path"], r["line_number"], r["problem"])
        for r in found.pop("conversation_has_documented_shape")
    ] == [(path, line + 201, "id is empty or blank")]
    assert found == {}


def test_a_custom_folder_with_bad_lines_is_refused_then_publishes_with_allow_rejects(
    custom_build, tmp_path: Path
) -> None:
    """Bad lines are rejects like any corpus' (csrwh/pipeline.py's rules, unchanged): a first build
    holding rejects is refused unless allow_rejects; with it the build publishes, the good
    lines of the same file land and the bad ones wait verbatim in raw.rejected_records."""
    data, _, _ = custom_build
    bad_data = tmp_path / "bad"
    shutil.copytree(data, bad_data)
    first = (bad_data / "custom/edge/edge.jsonl").read_text("utf-8").splitlines()[0]
    bad_lines = [
        '{"id": "b1", "messages": [',  # 1: broken JSON
        '{"id": "b2", "messages": [{"role": "bot", "text": "beep"}]}',  # 2: unknown role
        '{"id": "b3"}',  # 3: no messages
        first,  # 4: e1 again
        '{"id": "b5", "messages": [{"role": "user", "text": "A good line lands."}]}',  # 5
    ]
    (bad_data / "custom/edge/more.jsonl").write_text("\n".join(bad_lines) + "\n", encoding="utf-8")
    warehouse = tmp_path / "warehouse" / "custom.duckdb"  # a first build: no published file

    with pytest.raises(CsrwhError, match="4 rejected record") as refused:
        build(bad_data, warehouse, gates=[gate])
    assert refused.value.exit_code == EXIT_REFUSED and "--allow-rejects" in str(refused.value)
    assert not warehouse.exists()

    result = build(bad_data, warehouse, gates=[gate], allow_rejects=True)
    assert result.published and result.records_rejected == 4
    accepted = (
        "4 rejected record(s) the published warehouse did not have, in custom:edge/more.jsonl"
    )
    assert [a for a in result.accepted if "rejected" in a] == [
        f"{accepted} (accepted: --allow-rejects)"
    ]
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rejected = con.execute(
            "select corpus, source_path, line_number, error, raw_text from raw.rejected_records "
            "order by line_number"
        ).fetchall()
        built = dict(
            con.execute(
                "select source_conversation_id, source_path || ' line ' || (source_record_index + 1) "
                "from conversations where corpus = 'custom' and source_conversation_id like 'edge/%'"
            ).fetchall()
        )
        failed = con.execute(
            "select suite, expectation from dq_results where severity = 'critical' and not success"
        ).fetchall()
    assert [r[:3] for r in rejected] == [("custom", "edge/more.jsonl", n) for n in (1, 2, 3, 4)]
    assert [r[4] for r in rejected] == bad_lines[:4]  # verbatim
    errors = [r[3] for r in rejected]
    assert errors[0].startswith("broken JSON")
    assert errors[1:] == [
        "message 0 has an unknown role 'bot' (expected user, assistant, system)",
        "messages is missing",
        (
            'id "e1" is used twice in corpus edge: first at edge/edge.jsonl line 1, which lands '
            "(an id names one conversation within its corpus, across its files)"
        ),
    ]
    assert built == {
        "edge/e1": "edge/edge.jsonl line 1",
        "edge/e2": "edge/edge.jsonl line 2",
        "edge/b5": "edge/more.jsonl line 5",
    }
    assert set(failed) == set()


# --------------------------------------------------------------------------- the sample


def test_the_samples_custom_corpora_land_line_for_line(sample_warehouse: Path) -> None:
    from csrwh.sample import custom

    folder = sample_warehouse.parent.parent / "data" / custom.FOLDER
    lines = {
        f"{p.parent.name}/{p.name}": [json.loads(t) for t in p.read_text("utf-8").splitlines()]
        for p in folder.glob("*/*.jsonl")
    }
    assert lines
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        built = {
            (r["source_path"], r["source_record_index"]): r
            for r in rows(con, "select * from conversations where corpus = 'custom'")
        }
        scaled = con.execute(
            "select count(*), count(value_normalized) from ratings where corpus = 'custom'"
        ).fetchone()
    assert set(built) == {(path, i) for path, records in lines.items() for i in range(len(records))}
    for (path, i), row in built.items():
        record = lines[path][i]
        assert row["source_conversation_id"] == f"{path.split('/')[0]}/{record['id']}"
        assert row["n_turns"] == sum(m["role"] != "system" for m in record["messages"])
    assert scaled[0] > 0 and scaled[0] == scaled[1]  # every sample rating is on a declared scale
