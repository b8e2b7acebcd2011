"""Expectation suites end to end on the generated sample, built by the real ingest + dbt build.

A clean copy passes every critical expectation (the sample's upstream quirks only warn), and
each deliberately corrupted copy (made by SQL on a copy of the file) fails on the expectation
meant to catch it, one corruption per suite at least. Keys, not-nulls, ranges, closed
vocabularies, references and the SQL marts' schemas are dbt's (expectations/README.md, "Who
owns which check"); their corruptions are in tests/integration/test_dbt_checks.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from csrwh.building.gate import load_suites
from csrwh.building.gate.run import DQ_RESULTS, gate, raw_gate, validate
from ingest.registry import raw_tables

# --- the warehouse: the generated sample through the real pipeline ----------------------------
# `sample_warehouse` (tests/conftest.py): `csrwh sample` at its smallest scale (1, seed 0) through
# the real ingest, `dbt build` and the gate, once per test session. Each test gets its own copy,
# without the build's recorded results (the state the gate sees), and corrupts it by SQL.

RAW_TABLES = raw_tables()  # the ingest registry: every raw table


@pytest.fixture()
def warehouse(sample_warehouse: Path, tmp_path: Path) -> Path:
    """A fresh copy of the built sample, to corrupt."""
    copy = tmp_path / "copy.duckdb"
    shutil.copy(sample_warehouse, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute(f"drop table if exists {DQ_RESULTS}")
    return copy


def _run(database: Path, suites: list[str] | None = None, **kwargs):
    kwargs.setdefault("data_docs_dir", None)
    kwargs.setdefault("record", False)
    return validate(database, run_id="test", suites=suites, **kwargs)


def _failed(report) -> set[str]:
    return {f"{o.suite}:{o.expectation}" for o in report.outcomes if not o.success}


# --- clean build -----------------------------------------------------------------------------


def test_clean_warehouse_passes_every_expectation(warehouse: Path) -> None:
    report = _run(warehouse)
    assert len(report.suites) == len(load_suites())
    assert [o.message() for o in report.critical_failures] == []
    # the sample writes upstream quirks (a duplicate vote session, an empty utterance, a vote
    # without one of its dialogues): each may only warn
    assert all(o.severity == "warning" for o in report.outcomes if not o.success)
    # every expectation produced an observed value (the DuckDB fetch fix is in effect)
    assert all(o.error is None and o.observed_value is not None for o in report.outcomes)


def test_a_repeated_vote_session_only_warns(warehouse: Path) -> None:
    """The sample repeats one vote (an upstream quirk it writes on purpose): GX's compound
    uniqueness names the repeated (file, session) and only warns."""
    with duckdb.connect(str(warehouse)) as con:
        repeated = con.execute(
            "select source_path, record_key, count(*) from raw.crsarena__votes "
            "group by all having count(*) > 1"
        ).fetchall()
    assert repeated
    report = _run(warehouse, ["raw.crsarena__votes"])
    failed = {o.expectation: o for o in report.outcomes if not o.success}
    outcome = failed["session_id_unique_per_file"]
    assert outcome.severity == "warning" and outcome.error is None
    assert outcome.observed_value not in (None, 0, [], {})
    assert {(*r["value"], r["count"]) for r in outcome.offending_rows} == set(repeated)
    assert not report.critical_failures


def test_empty_corpora_are_legitimate(warehouse: Path) -> None:
    """Absent corpora leave empty raw tables and no mart rows; nothing fails for that."""
    with duckdb.connect(str(warehouse)) as con:
        for table in RAW_TABLES:
            if not table.startswith("cosrec"):
                con.execute(f"delete from raw.{table}")
        for suite in load_suites(select=["marts"]):
            columns = {r[0] for r in con.execute(f"describe {suite.table}").fetchall()}
            if "corpus" in columns:
                con.execute(f"delete from {suite.table} where corpus <> 'cosrec'")
            elif suite.name != "relevance_judgments":  # CoSRec's own mart
                con.execute(f"delete from {suite.table}")
    report = _run(warehouse)
    assert [o.message() for o in report.critical_failures] == []


# --- corrupted copies: each fails on the intended expectation ------------------------------

COSREC_CROWD = "'CoSRec-Crowd_1'"
CORRUPTIONS = [
    # (id, suite, SQL on the copy, expectation that must fail)
    (
        "raw-columns-dropped",
        "raw.cosrec__profiles",
        "alter table raw.cosrec__profiles drop column source_text",
        "columns_match_contract",
    ),
    (
        "raw-column-type",
        "raw.cosrec__keywords",
        "alter table raw.cosrec__keywords alter record_index type integer",
        "column_types_match_contract",
    ),
    (
        "raw-wrong-corpus",
        "raw.crsarena__votes",
        "update raw.crsarena__votes set corpus = 'cosrec'",
        "records_well_formed",
    ),
    (
        "raw-file-outside-layout",
        "raw.cosrec__quality",
        "update raw.cosrec__quality set source_path = 'dataset/extra/quality.jsonl'",
        "records_well_formed",
    ),
    (
        "raw-duplicate-position",
        "raw.cosrec__qrels",
        "update raw.cosrec__qrels set record_index = 0",
        "record_position_unique",
    ),
    (
        "raw-duplicate-key",
        "raw.recoreact__products",
        (
            "insert into raw.recoreact__products select batch_id, corpus, source_path, 9, 10, record_key, payload, "
            "source_text, file_sha256, ingested_at from raw.recoreact__products where record_key = 'news_0001'"
        ),
        "record_key_unique_per_file",
    ),
    (
        "cosrec-unprefixed-line",
        "raw.cosrec__conversations",
        f"""update raw.cosrec__conversations set payload = json_object({COSREC_CROWD}, 'U: hi' || chr(10) || 'hello')
         where record_key = {COSREC_CROWD}""",
        "every_line_is_a_user_or_system_turn",
    ),
    (
        "cosrec-not-keyed",
        "raw.cosrec__conversations",
        "update raw.cosrec__conversations set payload = json_object('other', 'U: hi') where record_key = 'CoSRec-Curated_1'",
        "line_is_keyed_value",
    ),
    (
        "cosrec-quality-out-of-range",
        "raw.cosrec__quality",
        "update raw.cosrec__quality set payload = replace(payload::varchar, '\"fluency\": 5', '\"fluency\": 9')::json",
        "quality_on_1_to_5_scale",
    ),
    (
        "cosrec-unknown-intent-type",
        "raw.cosrec__intent_annotations",
        "update raw.cosrec__intent_annotations set payload = replace(payload::varchar, '\"search\"', '\"purchase\"')::json",
        "intent_type_in_vocabulary",
    ),
    (
        "cosrec-annotation-past-user-turns",
        "raw.cosrec__intent_annotations",
        "update raw.cosrec__intent_annotations set payload = replace(payload::varchar, '\"utterance\": 1', '\"utterance\": 2')::json",
        "utterance_is_a_user_utterance",
    ),
    (
        "cosrec-duplicate-intent-id",
        "raw.cosrec__intents",
        (
            "insert into raw.cosrec__intents select batch_id, corpus, 'dataset/raw/intents.jsonl', 0, 1, record_key, "
            "payload, source_text, file_sha256, ingested_at from raw.cosrec__intents"
        ),
        "intent_ids_unique",
    ),
    (
        "cosrec-keywords-orphan",
        "raw.cosrec__keywords",
        "update raw.cosrec__keywords set record_key = 'CoSRec-Crowd_99999', payload = json_object('CoSRec-Crowd_99999', json_object('A', ['x']))",
        "keyword_conversation_exists",
    ),
    (
        "cosrec-empty-profile",
        "raw.cosrec__profiles",
        "update raw.cosrec__profiles set payload = json_object(record_key, json_object('AUSER1', ''))",
        "profiles_are_text",
    ),
    (
        "cosrec-grade-out-of-range",
        "raw.cosrec__qrels",
        (
            "update raw.cosrec__qrels set payload = json_object('topic_id', payload->>'topic_id', 'iteration', '0', "
            "'doc_id', payload->>'doc_id', 'grade', '3')"
        ),
        "grade_in_0_1_2",
    ),
    (
        "crsarena-unknown-sentiment",
        "raw.crsarena__dialogues",
        "update raw.crsarena__dialogues set payload = replace(payload::varchar, 'frustrated', 'happy')::json",
        "sentiment_in_vocabulary",
    ),
    (
        "crsarena-dialogue-in-both-files",
        "raw.crsarena__dialogues",
        (
            "update raw.crsarena__dialogues set record_key = (select min(record_key) from "
            "raw.crsarena__dialogues) where record_index = 0"
        ),
        "conversation_id_unique",
    ),
    (
        "crsarena-unknown-participant",
        "raw.crsarena__dialogues",
        'update raw.crsarena__dialogues set payload = replace(payload::varchar, \'"participant": "AGENT"\', \'"participant": "BOT"\')::json',
        "utterances_have_documented_shape",
    ),
    (
        "crsarena-vote-unknown-label",
        "raw.crsarena__votes",
        (
            "update raw.crsarena__votes set payload = json_object('session_id', payload->>'session_id', 'user_id', 'u1', "
            "'crs1', 'kbrd_redial', 'crs2', 'chatgpt_redial', 'vote', 'crs3', 'feedback', '')"
        ),
        "vote_in_vocabulary",
    ),
    (
        "convsearch-rating-out-of-range",
        "raw.convsearch__dialogs",
        "update raw.convsearch__dialogs set payload = replace(payload::varchar, '\"satisfaction_user\": 4', '\"satisfaction_user\": 5')::json",
        "dialogue_ratings_on_0_to_4_scale",
    ),
    (
        "convsearch-unknown-intent",
        "raw.convsearch__dialogs",
        "update raw.convsearch__dialogs set payload = replace(payload::varchar, 'reveal-initiate', 'reveal-more')::json",
        "labels_in_vocabulary",
    ),
    (
        "convsearch-unknown-source",
        "raw.convsearch__search_behaviors",
        "update raw.convsearch__search_behaviors set payload = replace(payload::varchar, 'baidu\"', 'google\"')::json",
        "source_in_vocabulary",
    ),
    (
        "convsearch-orphan-request",
        "raw.convsearch__search_behaviors",
        "update raw.convsearch__search_behaviors set payload = replace(payload::varchar, '\"belong_turn\": 12', '\"belong_turn\": 99')::json",
        "request_belongs_to_a_dialogue_turn",
    ),
    (
        "recllmsim-rating-out-of-range",
        "raw.recllmsim__conversations",
        "update raw.recllmsim__conversations set payload = replace(payload::varchar, '\"Diversity\": 2', '\"Diversity\": 3')::json",
        "ratings_on_0_to_2_scale",
    ),
    (
        # intent labels are an open vocabulary (a new one warns, in dbt); their shape is closed
        "recllmsim-intent-of-wrong-type",
        "raw.recllmsim__conversations",
        'update raw.recllmsim__conversations set payload = replace(payload::varchar, \'"intent": "Planning"\', \'"intent": 7\')::json',
        "intent_has_documented_shape",
    ),
    (
        "recllmsim-unknown-role",
        "raw.recllmsim__conversations",
        'update raw.recllmsim__conversations set payload = replace(payload::varchar, \'"role": "assistant"\', \'"role": "system"\')::json',
        "history_has_documented_shape",
    ),
    (
        "recoreact-empty-title",
        "raw.recoreact__products",
        "update raw.recoreact__products set payload = json_object('pid', record_key, 'title', '', 'description', 'd', 'category', 'c')",
        "product_has_documented_keys",
    ),
    (
        "recoreact-survey-out-of-range",
        "raw.recoreact__users",
        "update raw.recoreact__users set payload = replace(payload::varchar, '\"personalized\": 5', '\"personalized\": 7')::json",
        "survey_on_1_to_5_scale",
    ),
    (
        "recoreact-rating-out-of-range",
        "raw.recoreact__impressions",
        "update raw.recoreact__impressions set payload = replace(payload::varchar, '\"rating1\": 7', '\"rating1\": 10')::json",
        "ratings_on_9_and_5_point_scales",
    ),
    (
        "recoreact-round-4",
        "raw.recoreact__impressions",
        "update raw.recoreact__impressions set payload = replace(payload::varchar, '\"round\": 3', '\"round\": 4')::json",
        "round_is_1_2_or_3",
    ),
    # marts (keys, not-nulls, ranges, closed vocabularies, references and the SQL marts' schemas are
    # dbt's: tests/integration/test_dbt_checks.py corrupts the built sample for those)
    (
        "leaderboard-column-missing",
        "crs_leaderboard",
        "alter table main.crs_leaderboard drop column elo",
        "columns_match_contract",
    ),
    (
        "agreement-column-type",
        "annotator_agreement",
        "alter table main.annotator_agreement alter n_units type varchar",
        "column_types_match_contract",
    ),
    (
        "agreement-ratings-count",
        "annotator_agreement",
        "update main.annotator_agreement set n_ratings = n_ratings + 5",
        "n_ratings_consistent",
    ),
    (
        "conversations-local-id",
        "conversations",
        "update main.conversations set conversation_id = source_conversation_id where corpus = 'convsearch'",
        "conversation_id_is_global",
    ),
    (
        "items-foreign-prefix",
        "items",
        "update main.items set item_id = 'other:' || item_id where corpus = 'recoreact'",
        "global_id_format",
    ),
    (
        "judgments-lost-line",
        "relevance_judgments",
        "delete from main.relevance_judgments where judgment_kind = 'search'",
        "one_judgment_per_ingested_line",
    ),
    (
        "interactions-lost-selection",
        "item_interactions",
        "delete from main.item_interactions",
        "one_interaction_per_ingested_selection",
    ),
    (
        "serp-other-conversation",
        "serp_views",
        "update main.serp_views set conversation_id = 'convsearch:2'",
        "same_conversation_as_query",
    ),
    (
        "clicks-other-query",
        "result_clicks",
        "update main.result_clicks set query_id = 'convsearch:22'",
        "same_query_and_conversation_as_serp_view",
    ),
    (
        "landing-other-conversation",
        "landing_page_views",
        "update main.landing_page_views set conversation_id = 'convsearch:2'",
        "same_conversation_as_query",
    ),
    (
        "conversations-lost-record",
        "convsearch__conversations",
        "delete from main.conversations where conversation_id = 'convsearch:1'",
        "one_conversation_per_ingested_record",
    ),
    (
        "conversations-truncated",
        "conversations",
        "delete from main.turns where conversation_id = 'cosrec:CoSRec-Crowd_1' and turn_index = 3",
        "n_turns_match_turns_mart",
    ),
    (
        "conversations-truncated-vs-raw",
        "cosrec__conversations",
        (
            "delete from main.turns where conversation_id = 'cosrec:CoSRec-Crowd_1' and turn_index = 3; "
            "update main.conversations set n_turns = 3, n_system_turns = 1, n_merged_turns = 3 "
            "where conversation_id = 'cosrec:CoSRec-Crowd_1'"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-crsarena",
        "crsarena__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'crsarena')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-convsearch",
        "convsearch__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'convsearch')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-recllmsim",
        "recllmsim__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'recllmsim')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-recoreact",
        "recoreact__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'recoreact')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-custom",
        "custom__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'custom')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-fan-out-custom",
        "custom__conversations",
        (
            "insert into main.conversations select * replace ("
            "conversation_id || '-copy' as conversation_id) from main.conversations "
            "where conversation_id = (select min(conversation_id) from main.conversations "
            "where corpus = 'custom')"
        ),
        "one_conversation_per_ingested_record",
    ),
    (
        "turns-gap",
        "turns",
        (
            "update main.turns set turn_index = 5, turn_id = conversation_id || ':5' "
            "where conversation_id = 'cosrec:CoSRec-Crowd_1' and turn_index = 2"
        ),
        "turn_index_contiguous",
    ),
    (
        "turns-all-user",
        "turns",
        "update main.turns set role = 'user' where corpus = 'cosrec'",
        "user_turn_share_plausible",
    ),
    (
        "turns-empty-texts",
        "turns",
        "update main.turns set text = '' where corpus = 'crsarena'",
        "empty_text_share_small",
    ),
    (
        "turns-copied-texts",
        "turns",
        "update main.turns set text = 'same' where corpus = 'cosrec'",
        "duplicate_text_share_small",
    ),
    (
        "intents-unknown-label",
        "intents",
        "update main.intents set raw_label = 'purchase' where raw_label = 'search'",
        "label_in_taxonomy",
    ),
    (
        "intents-wrong-role",
        "intents",
        "update main.intents set turn_index = 1 where label_scheme = 'convsearch_user_intent'",
        "labels_on_the_right_role",
    ),
    (
        "intent-consensus-counts",
        "intent_consensus",
        "update main.intent_consensus set n_agreeing = n_annotators + 1",
        "counts_consistent",
    ),
    (
        "ratings-out-of-range",
        "ratings",
        "update main.ratings set value = 9, value_normalized = 2 where corpus = 'cosrec' and aspect = 'fluency'",
        "value_within_scale",
    ),
    (
        "ratings-unknown-aspect",
        "ratings",
        "update main.ratings set aspect = 'charm' where aspect = 'fluency'",
        "aspect_has_scale",
    ),
    ("votes-lost-record", "votes", "delete from main.votes", "one_vote_per_ingested_record"),
    (
        "users-bad-attributes",
        "users",
        "update main.users set attributes = '{broken' where corpus = 'recoreact'",
        "global_id_and_attributes",
    ),
    (
        "queries-click-flag",
        "search_queries",
        "update main.search_queries set has_click = false",
        "has_click_matches_clicks",
    ),
    (
        "corpus-stats-count",
        "corpus_stats",
        "update main.corpus_stats set n_conversations = n_conversations + 1",
        "figures_match_conversations",
    ),
    (
        "leaderboard-counts",
        "crs_leaderboard",
        "update main.crs_leaderboard set wins = wins + 1 where battles > 0",
        "battle_counts_consistent",
    ),
    (
        "leaderboard-battles",
        "crs_leaderboard",
        (
            "update main.crs_leaderboard set battles = battles + 1, ties = ties + 1 "
            "where environment = 'open' and battles > 0"
        ),
        "battles_match_votes",
    ),
    (
        "distribution-shares",
        "intent_distribution",
        "update main.intent_distribution set share_of_labels = 0.9 where corpus = 'recllmsim'",
        "shares_sum_to_one",
    ),
    (
        "distribution-counts",
        "intent_distribution",
        "update main.intent_distribution set n_labels = n_labels + 1 where corpus = 'cosrec'",
        "counts_match_intents",
    ),
    (
        "quality-counts",
        "quality_by_length",
        "update main.quality_by_length set n_ratings = n_ratings + 1",
        "ratings_match_ratings_mart",
    ),
    (
        "custom-unknown-role",
        "raw.custom__conversations",
        (
            "insert into raw.custom__conversations values ('b', 'custom', 'mine/a.jsonl', 0, 1, 'c1', "
            '\'{"id": "c1", "messages": [{"role": "bot", "text": "hi"}]}\', null, repeat(\'a\', 64), now())'
        ),
        "messages_have_documented_shape",
    ),
    (
        "custom-corpus-rater-kind",
        "raw.custom__corpora",
        (
            "insert into raw.custom__corpora values ('b', 'custom', 'mine/corpus.json', 0, null, 'mine/corpus', "
            "'{\"rater_kind\": \"boss\"}', null, repeat('a', 64), now())"
        ),
        "corpus_has_documented_shape",
    ),
]


@pytest.mark.parametrize(
    ("suite", "corruption", "expectation"),
    [c[1:] for c in CORRUPTIONS],
    ids=[c[0] for c in CORRUPTIONS],
)
def test_corruption_fails_on_the_intended_expectation(
    warehouse: Path, suite: str, corruption: str, expectation: str
) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute(corruption)
    report = _run(warehouse, [suite])
    failed = {o.expectation: o for o in report.outcomes if not o.success}
    assert expectation in failed, (
        f"{suite}: expected {expectation} to fail; failed: {sorted(failed)}"
    )
    outcome = failed[expectation]
    assert outcome.severity == "critical" and outcome.error is None
    assert outcome.observed_value not in (None, 0, [], {})
    assert outcome.offending_rows or outcome.expectation == "columns_match_contract"


def test_every_suite_has_a_corruption_test() -> None:
    suites = {s.name for s in load_suites()}
    assert suites == {c[1] for c in CORRUPTIONS}


# --- recording, gate, docs ---------------------------------------------------------------------


def test_results_land_in_dq_results(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "update main.ratings set value = 9, value_normalized = 2 where aspect = 'fluency'"
        )
        # the rows the corruption puts off their scale, counted here from the ratings themselves
        off_scale = con.execute(
            "select count(*) from main.ratings where aspect = 'fluency' and 9 > scale_max"
        ).fetchone()[0]
    assert off_scale > 0
    first = validate(warehouse, run_id="run-1", suites=["ratings", "turns"], data_docs_dir=None)
    validate(
        warehouse, run_id="run-1", suites=["ratings", "turns"], data_docs_dir=None
    )  # replaces, not appends
    validate(warehouse, run_id="run-2", suites=["turns"], data_docs_dir=None)
    votes = validate(warehouse, run_id="run-2", suites=["votes"], data_docs_dir=None)  # adds
    with duckdb.connect(str(warehouse), read_only=True) as con:
        counts = dict(
            con.execute(f"select run_id, count(*) from {DQ_RESULTS} group by run_id").fetchall()
        )
        failing = con.execute(
            f"select suite, expectation, severity, success, observed_value, offending_rows, validated_at "
            f"from {DQ_RESULTS} where run_id = 'run-1' and not success order by expectation"
        ).fetchall()
        columns = [r[0] for r in con.execute(f"describe {DQ_RESULTS}").fetchall()]
    assert counts == {
        "run-1": len(first.outcomes),
        "run-2": sum(o.suite == "turns" for o in first.outcomes) + len(votes.outcomes),
    }
    assert columns == [
        "run_id",
        "validated_at",
        "suite",
        "table_name",
        "expectation",
        "expectation_type",
        "severity",
        "success",
        "observed_value",
        "offending_rows",
        "error",
        "why",
    ]
    by_name = {row[1]: row for row in failing}
    assert by_name["value_within_scale"][:4] == ("ratings", "value_within_scale", "critical", False)
    assert json.loads(by_name["value_within_scale"][4]) == off_scale
    assert json.loads(by_name["value_within_scale"][5])[0]["value"] == 9.0
    assert by_name["value_within_scale"][6] is not None


def test_gate_returns_only_critical_failures(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the gate renders Data Docs beside the warehouse, not here
    with duckdb.connect(str(warehouse)) as con:
        con.execute("update main.votes set conversation_id_b = null")
    assert gate(warehouse, "build-ok") == []  # an unlinked vote is only a warning
    with duckdb.connect(str(warehouse)) as con:
        con.execute("delete from main.conversations where conversation_id = 'convsearch:1'")
    messages = gate(warehouse, "build-bad")
    assert messages, "a lost conversation must block publishing"
    # (its orphan turns are dbt's references_turns, which the gate does not run)
    lost = [m for m in messages if "one_conversation_per_ingested_record" in m]
    assert (
        lost and "conversations" in lost[0] and "convsearch" in lost[0] and "observed 1" in lost[0]
    )
    assert not any("votes_without_both_dialogues" in m for m in messages)
    assert (warehouse.with_name(warehouse.name + ".data_docs") / "index.html").is_file()
    assert not (tmp_path / "reports").exists()


def test_data_docs_are_rendered(warehouse: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    stale = docs / "validations" / "old.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("stale")
    report = _run(warehouse, ["raw.crsarena__votes", "votes"], data_docs_dir=docs)
    assert report.data_docs_index == docs / "index.html" and report.data_docs_index.is_file()
    pages = list((docs / "validations").rglob("*.html"))
    assert len(pages) == 2 and not stale.exists()
    page = next(p for p in pages if "votes" in p.parts and "raw" not in p.parts).read_text(
        encoding="utf-8"
    )
    assert "vote_order_contiguous" in page and "critical" in page
    # a built-in in GX's own words (then the reason), its parameters filled in
    raw_page = next(p for p in pages if "crsarena__votes" in str(p.relative_to(docs)))
    raw_text = raw_page.read_text(encoding="utf-8")
    assert "must be unique together: source_path record_key." in raw_text


def test_missing_table_is_a_critical_failure(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute("drop table main.annotator_agreement")
    report = _run(warehouse, ["annotator_agreement"])
    assert [(o.expectation, o.severity, o.success) for o in report.outcomes] == [
        ("table_exists", "critical", False)
    ]
    assert "does not exist" in report.outcomes[0].message()


def test_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    from csrwh.errors import CsrwhError

    with pytest.raises(CsrwhError, match="does not exist"):
        validate(tmp_path / "nope.duckdb", run_id="x")


def test_raw_gate_checks_raw_suites_only_and_records_nothing(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute("update main.votes set winner = 'c'")  # a mart problem: not the raw gate's
    assert raw_gate(warehouse, "early") == []
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "update raw.crsarena__votes set payload = json_object('session_id', payload->>'session_id', "
            "'user_id', 'u1', 'crs1', 'kbrd_redial', 'crs2', 'chatgpt_redial', 'vote', 'crs3', 'feedback', '')"
        )
        assert con.execute(
            "select count(*) from information_schema.tables where table_name = 'dq_results'"
        ).fetchone() == (0,)
    messages = raw_gate(warehouse, "early")
    assert len(messages) == 1 and "raw.crsarena__votes › vote_in_vocabulary" in messages[0]
