"""The expectation suites state a rule a GX built-in states with that built-in (issue 27 item
11): the raw contract one built-in per column and rule, the rules listed here as their built-in,
and a built-in described in GX's own sentence, then the project's reason."""

from __future__ import annotations

import yaml

from csrwh.config import PROJECT_ROOT
from csrwh.gate import load_suite, load_suites
from csrwh.gate.suites import SQL_TYPE, to_gx_expectation

# The raw-layer contract (docs/ARCHITECTURE.md), one built-in per column and rule in every raw
# suite (expectations/_shared/raw_table.yml), where one SQL held them all: (type, kwargs) with
# {corpus} and {layout} the suite's vars
RAW_CONTRACT = {
    "batch_id_present": ("expect_column_values_to_not_be_null", {"column": "batch_id"}),
    "corpus_present": ("expect_column_values_to_not_be_null", {"column": "corpus"}),
    "corpus_matches_table": (
        "expect_column_values_to_be_in_set",
        {"column": "corpus", "value_set": ["{corpus}"]},
    ),
    "source_path_present": ("expect_column_values_to_not_be_null", {"column": "source_path"}),
    "source_path_in_upstream_layout": (
        "expect_column_values_to_match_regex",
        {"column": "source_path", "regex": "^({layout})$"},
    ),
    "record_index_present": ("expect_column_values_to_not_be_null", {"column": "record_index"}),
    "record_index_not_negative": (
        "expect_column_values_to_be_between",
        {"column": "record_index", "min_value": 0},
    ),
    "record_key_present": ("expect_column_values_to_not_be_null", {"column": "record_key"}),
    "file_sha256_present": ("expect_column_values_to_not_be_null", {"column": "file_sha256"}),
    "file_sha256_is_a_sha256": (
        "expect_column_values_to_match_regex",
        {"column": "file_sha256", "regex": "^[0-9a-f]{64}$"},
    ),
    "ingested_at_present": ("expect_column_values_to_not_be_null", {"column": "ingested_at"}),
    "payload_present": ("expect_column_values_to_not_be_null", {"column": "payload"}),
    # stays SQL (why_sql: parses-raw-payload): the payload's JSON text starts an object
    "payload_is_a_json_object": (SQL_TYPE, None),
}


def test_raw_contract_is_one_built_in_per_column_and_rule() -> None:
    for suite in load_suites(select=["raw"]):
        raw = yaml.safe_load(suite.path.read_text(encoding="utf-8"))
        variables = {"corpus": raw["vars"]["corpus"], "layout": raw["vars"]["source_path_regex"]}
        specs = {e.name: e for e in suite.expectations}
        for name, (kind, kwargs) in RAW_CONTRACT.items():
            assert specs[name].type == kind and specs[name].severity == "critical", name
            if kwargs is None:
                assert specs[name].why_sql == "parses-raw-payload"
                continue
            expected = {
                k: [x.format(**variables) for x in v]
                if isinstance(v, list)
                else (v.replace("{64}", "{{64}}").format(**variables) if isinstance(v, str) else v)
                for k, v in kwargs.items()
            }
            assert specs[name].kwargs == expected, (suite.name, name)


RECOREACT = {
    "type": "comparison",
    "column": {"name": "corpus"},
    "operator": "==",
    "parameter": "recoreact",
}
NOT_AN_IMAGE = {
    "type": "or",
    "conditions": [
        {"type": "nullity", "column": {"name": "is_image"}, "is_null": True},
        {
            "type": "comparison",
            "column": {"name": "is_image"},
            "operator": "==",
            "parameter": False,
        },
    ],
}


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
    # single-column and column-pair rules on marts (dbt's model_rules leave these columns out)
    "query_without_turn": ("expect_column_values_to_not_be_null", {"column": "turn_index"}),
    "rank_present": ("expect_column_values_to_not_be_null", {"column": "rank"}),
    "rank_positive": ("expect_column_values_to_be_between", {"column": "rank", "min_value": 0}),
    "page_number_present": ("expect_column_values_to_not_be_null", {"column": "page_number"}),
    "page_number_positive": (
        "expect_column_values_to_be_between",
        {"column": "page_number", "min_value": 1},
    ),
    "dwell_not_negative": (
        "expect_column_values_to_be_between",
        {"column": "dwell_ms", "min_value": 0},
    ),
    "value_at_most_scale_max": (
        "expect_column_pair_values_a_to_be_greater_than_b",
        {
            "column_A": "scale_max",
            "column_B": "value",
            "or_equal": True,
            "ignore_row_if": "either_value_is_missing",
        },
    ),
    "value_at_least_scale_min": (
        "expect_column_pair_values_a_to_be_greater_than_b",
        {
            "column_A": "value",
            "column_B": "scale_min",
            "or_equal": True,
            "ignore_row_if": "either_value_is_missing",
        },
    ),
    "timings_plausible": (
        "expect_column_pair_values_a_to_be_greater_than_b",
        {
            "column_A": "ended_at",
            "column_B": "started_at",
            "or_equal": True,
            "ignore_row_if": "either_value_is_missing",
        },
    ),
    # a vote without both dialogues: two not-nulls (one SQL before)
    "dialogue_a_linked": ("expect_column_values_to_not_be_null", {"column": "conversation_id_a"}),
    "dialogue_b_linked": ("expect_column_values_to_not_be_null", {"column": "conversation_id_b"}),
    # rules on some rows only: GX row conditions (its Condition objects as dicts)
    "value_normalized_given_when_scored_on_a_known_scale": (
        "expect_column_values_to_not_be_null",
        {
            "column": "value_normalized",
            "row_condition": {
                "type": "and",
                "conditions": [
                    {"type": "nullity", "column": {"name": "value"}, "is_null": False},
                    {"type": "nullity", "column": {"name": "scale_min"}, "is_null": False},
                ],
            },
        },
    ),
    "recoreact_items_have_titles": (
        "expect_column_values_to_not_be_null",
        {"column": "title", "row_condition": RECOREACT},
    ),
    "recoreact_titles_not_blank": (
        "expect_column_values_to_not_match_regex",
        {"column": "title", "regex": r"^\s*$", "row_condition": RECOREACT},
    ),
    "text_turns_have_text": (
        "expect_column_values_to_not_be_null",
        {"column": "text", "row_condition": NOT_AN_IMAGE},
    ),
    "empty_text_turns": (
        "expect_column_values_to_not_match_regex",
        {"column": "text", "regex": r"^\s*$", "row_condition": NOT_AN_IMAGE},
    ),
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
    # a column pair, as Data Docs show it
    serp = load_suite(PROJECT_ROOT / "expectations" / "marts" / "serp_views.yml")
    timings = next(e for e in serp.expectations if e.name == "timings_plausible")
    assert to_gx_expectation(serp, timings).description == (
        "[warning] timings_plausible: Values in ended_at must always be greater than or equal "
        "to those in started_at. " + timings.why
    )
    sql = to_gx_expectation(suite, specs["vote_in_vocabulary"]).description
    assert sql == "[critical] vote_in_vocabulary: " + specs["vote_in_vocabulary"].why.replace(
        "$", "$$"
    )


def test_raw_suites_share_the_architecture_contract() -> None:
    for suite in load_suites(select=["raw"]):
        names = [e.name for e in suite.expectations]
        assert names[: 2 + len(RAW_CONTRACT) + 1] == [
            "columns_match_contract",
            "column_types_match_contract",
            *RAW_CONTRACT,
            "record_position_unique",
        ], suite.name
        assert suite.index_columns == ("source_path", "record_index"), suite.name
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
