"""The suite files in expectations/: complete, well-formed, in step with the dbt contracts."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from csrwh.building.dbt_sources import raw_tables as dbt_raw_tables
from csrwh.building.gate import load_suite, load_suites
from csrwh.building.gate.suites import to_gx_expectation
from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from ingest.registry import declarations, raw_tables

RAW_TABLES = set(raw_tables())  # the ingest registry: every raw table
MARTS = {
    "conversations",
    "turns",
    "intents",
    "intent_consensus",
    "votes",
    "ratings",
    "search_queries",
    "serp_views",
    "result_clicks",
    "landing_page_views",
    "relevance_judgments",
    "users",
    "items",
    "item_interactions",
    "corpus_stats",
    "crs_leaderboard",
    "annotator_agreement",
    "intent_distribution",
    "quality_by_length",
}


def test_one_suite_per_raw_source_per_mart_and_per_corpus() -> None:
    """Raw suites per raw table, mart suites per mart, and each registered corpus its own
    `<corpus>__conversations` suite tying the conversations mart to its raw records."""
    suites = load_suites()
    assert {s.table for s in suites if s.group == "raw"} == {f"raw.{t}" for t in RAW_TABLES}
    per_corpus = {f"{c.id}__conversations" for c in declarations()}
    assert {s.name for s in suites if s.group == "marts"} == MARTS | per_corpus
    for suite in suites:
        if suite.name in per_corpus:
            assert suite.table == "main.conversations", suite.name
            assert {e.name for e in suite.expectations} == {
                "one_conversation_per_ingested_record",
                "turn_counts_match_raw",
            }
        elif suite.group == "marts":
            assert suite.table == f"main.{suite.name}", suite.name


def test_raw_suites_cover_every_dbt_source_table() -> None:
    assert set(dbt_raw_tables()) >= RAW_TABLES


def test_every_expectation_is_a_valid_gx_expectation() -> None:
    for suite in load_suites():
        for spec in suite.expectations:
            expectation = to_gx_expectation(suite, spec)
            assert expectation.severity == spec.severity
            assert expectation.meta["name"] == spec.name and spec.why


def _mart_models() -> dict[str, dict]:
    """Every model documented in models/marts/, by name."""
    models: dict[str, dict] = {}
    for path in (PROJECT_ROOT / "models" / "marts").rglob("_*.yml"):
        for model in yaml.safe_load(path.read_text(encoding="utf-8")).get("models") or []:
            models[model["name"]] = model
    return models


def _is_python_model(name: str) -> bool:
    return any((PROJECT_ROOT / "models" / "marts").rglob(f"{name}.py"))


def test_one_owner_for_each_mart_schema() -> None:
    """dbt enforces the schema of every SQL mart with a suite (a model contract: every column
    with a data_type); GX holds the contract only where dbt cannot, the Python marts, and there
    it lists exactly the columns the model yml documents."""
    models = _mart_models()
    python_marts = set()
    for suite in load_suites(select=["marts"]):
        names = {e.name for e in suite.expectations}
        model = models[suite.table_name]
        if _is_python_model(suite.table_name):
            python_marts.add(suite.table_name)
            columns = next(
                e for e in suite.expectations if e.name == "columns_match_contract"
            ).kwargs["column_set"]
            assert sorted(columns) == sorted(c["name"] for c in model["columns"]), suite.name
        else:
            assert not names & {"columns_match_contract", "column_types_match_contract"}, suite.name
            assert (model.get("config") or {}).get("contract", {}).get("enforced") is True, (
                suite.name
            )
            assert all(c.get("data_type") for c in model["columns"]), suite.name
    assert python_marts == {"crs_leaderboard", "annotator_agreement"}


# GX built-in column expectations that a dbt test family expresses (keys, not-nulls, ranges,
# closed vocabularies): on a mart they would check the same rule twice.
DBT_OWNED_TYPES = {
    "expect_column_values_to_not_be_null",
    "expect_column_values_to_be_unique",
    "expect_compound_columns_to_be_unique",
    "expect_column_values_to_be_in_set",
    "expect_column_values_to_be_between",
}


def test_mart_suites_do_not_repeat_dbt_tests() -> None:
    repeated = [
        f"{s.name}:{e.name}"
        for s in load_suites(select=["marts"])
        for e in s.expectations
        if e.type in DBT_OWNED_TYPES
    ]
    assert repeated == []


# Rules a GX built-in states: a uniqueness over columns of the batch is GX's own
# expectation (Data Docs then say what it checks and show the repeated values), not SQL.
BUILT_IN_RULES = {
    "record_position_unique": (
        "expect_compound_columns_to_be_unique",
        {"column_list": ["source_path", "record_index"]},
    ),
    "record_key_unique_per_file": (
        "expect_compound_columns_to_be_unique",
        {"column_list": ["source_path", "record_key"]},
    ),
    "session_id_unique_per_file": (
        "expect_compound_columns_to_be_unique",
        {"column_list": ["source_path", "record_key"]},
    ),
    "conversation_id_unique": ("expect_column_values_to_be_unique", {"column": "record_key"}),
}


def test_rules_a_gx_built_in_states_use_it() -> None:
    found: dict[str, list[tuple]] = {}
    for suite in load_suites():
        for spec in suite.expectations:
            if spec.name in BUILT_IN_RULES:
                found.setdefault(spec.name, []).append((spec.type, spec.kwargs))
    assert set(found) == set(BUILT_IN_RULES)
    for name, uses in found.items():
        assert all(use == BUILT_IN_RULES[name] for use in uses), (name, uses)


def test_built_ins_are_described_in_gx_words_then_ours() -> None:
    """Data Docs show the description: a built-in's is GX's own sentence, its parameters filled
    in, then the reason; SQL has no GX sentence, so only the reason."""
    suite = load_suite(PROJECT_ROOT / "expectations" / "raw" / "crsarena__votes.yml")
    specs = {e.name: e for e in suite.expectations}
    unique = to_gx_expectation(suite, specs["record_position_unique"]).description
    assert unique == (
        "[critical] record_position_unique: Values for given compound columns must be unique "
        "together: source_path record_index. " + specs["record_position_unique"].why
    )
    sql = to_gx_expectation(suite, specs["vote_in_vocabulary"]).description
    assert sql == "[critical] vote_in_vocabulary: " + specs["vote_in_vocabulary"].why.replace(
        "$", "$$"
    )


def test_raw_suites_share_the_architecture_contract() -> None:
    for suite in load_suites(select=["raw"]):
        names = [e.name for e in suite.expectations]
        assert names[:4] == [
            "columns_match_contract",
            "column_types_match_contract",
            "records_well_formed",
            "record_position_unique",
        ], suite.name
        columns = suite.expectations[0].kwargs["column_list"]
        assert columns == [
            "batch_id",
            "corpus",
            "source_path",
            "record_index",
            "line_number",
            "record_key",
            "payload",
            "source_text",
            "file_sha256",
            "ingested_at",
        ]


def test_warnings_are_a_short_reviewed_list() -> None:
    warnings = {
        f"{s.name}:{e.name}"
        for s in load_suites()
        for e in s.expectations
        if e.severity == "warning"
    }
    assert warnings == {
        "raw.cosrec__conversations:conversation_starts_with_user",
        "raw.cosrec__conversations:has_user_and_system_lines",
        "raw.cosrec__quality:four_or_five_annotators",
        "raw.crsarena__dialogues:dialogue_not_empty",
        "raw.crsarena__votes:voted_systems_have_dialogues",
        "raw.crsarena__votes:session_id_unique_per_file",
        "raw.convsearch__dialogs:three_assessors_per_turn",
        "raw.convsearch__dialogs:topic_in_published_list",
        "raw.convsearch__search_behaviors:page_times_consistent",
        "raw.recllmsim__conversations:history_alternates_user_assistant",
        "raw.recoreact__users:demand_only_in_news",
        "raw.recoreact__impressions:three_rounds_per_user",
        "raw.recoreact__impressions:selected_items_exist",
        "conversations:conversations_with_one_role_only",
        "turns:empty_text_turns",
        "turns:repetitive_conversations",
        "ratings:cosrec_four_or_five_raters",
        "votes:votes_without_both_dialogues",
        "relevance_judgments:personalised_judgments_have_users",
        "search_queries:query_without_turn",
        "serp_views:timings_plausible",
        "landing_page_views:timings_plausible",
    }


def test_select_by_group_name_and_pattern() -> None:
    assert {s.name for s in load_suites(select=["raw.cosrec__*"])} == {
        f"raw.{t}" for t in RAW_TABLES if t.startswith("cosrec")
    }
    assert [s.name for s in load_suites(select=["turns", "raw.crsarena__votes"])] == [
        "raw.crsarena__votes",
        "turns",
    ]
    with pytest.raises(CsrwhError, match="no expectation suite matches 'turn'"):
        load_suites(select=["turn"])


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """
table: main.things
expectations:
  - name: id_unique
    type: expect_column_values_to_be_unique
    kwargs: {column: id}
    severity: critical
    why: One row per thing.
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD.replace("    why: One row per thing.\n", ""), "why is required"),
        (GOOD.replace("critical", "fatal"), "severity must be one of"),
        (GOOD.replace("id_unique", "Id-Unique"), "must be snake_case"),
        (GOOD + "    extra: 1\n", "unknown key"),
        (GOOD.replace("main.things", "things"), "table: must be"),
        (GOOD + GOOD.split("expectations:\n")[1], "duplicate expectation name"),
        (
            (
                "table: main.things\nexpectations:\n  - name: q\n    type: unexpected_rows_expectation\n"
                "    severity: warning\n    why: w\n    kwargs: {unexpected_rows_query: select 1}\n"
            ),
            "must select from {batch}",
        ),
        (GOOD.replace("One row", "${missing} row"), "unknown variable ${missing}"),
    ],
)
def test_malformed_suite_files_are_rejected(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, "marts/things.yml", text)
    with pytest.raises(
        CsrwhError, match=message.replace("$", r"\$").replace("{", r"\{").replace("}", r"\}")
    ):
        load_suite(path, tmp_path)


def test_includes_vars_and_column_contract(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "_shared/common.yml",
        """
columns: {id: BIGINT, label: [VARCHAR, JSON]}
column_order: strict
expectations:
  - name: label_known
    type: expect_column_values_to_be_in_set
    kwargs: {column: label, value_set: ["${label}"]}
    severity: warning
    why: Only ${label}; JSON paths like '$.a' stay as they are.
""",
    )
    path = _write(
        tmp_path,
        "raw/things.yml",
        "table: raw.things\ninclude: [common]\nvars: {label: x}\n" + GOOD.split("\n", 2)[2],
    )
    suite = load_suite(path, tmp_path)
    assert suite.name == "raw.things" and suite.group == "raw"
    assert [e.name for e in suite.expectations] == [
        "columns_match_contract",
        "column_types_match_contract",
        "label_known",
        "id_unique",
    ]
    assert suite.expectations[0].kwargs == {"column_list": ["id", "label"]}
    assert "('label', ['VARCHAR', 'JSON'])" in suite.expectations[1].kwargs["unexpected_rows_query"]
    assert suite.expectations[2].kwargs["value_set"] == ["x"]
    assert suite.expectations[2].why == "Only x; JSON paths like '$.a' stay as they are."
