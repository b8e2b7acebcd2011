"""The suite files in expectations/: complete, well-formed, in step with the dbt contracts."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from docs_text import all_doc_texts

from csrwh.config import PROJECT_ROOT
from csrwh.dbt_support.dbt_sources import raw_tables as dbt_raw_tables
from csrwh.errors import CsrwhError
from csrwh.gate import load_suite, load_suites
from csrwh.gate.suites import (
    SQL_REASONS,
    SQL_TYPE,
    counts_markdown,
    expectation_counts,
    to_gx_expectation,
)
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


def _corpus_of(suite_name: str) -> str | None:
    """The registered corpus whose own suite this is (``raw.<id>__<table>``, ``<id>__<mart>``),
    or None for a shared suite."""
    head, sep, _ = suite_name.removeprefix("raw.").partition("__")
    return head if sep and head in {c.id for c in declarations()} else None


def test_one_suite_per_raw_source_per_mart_and_per_corpus() -> None:
    """Raw suites per raw table, mart suites per mart, and each registered corpus its own
    `<corpus>__conversations` suite tying the conversations mart to its raw records; a corpus'
    other rules on a mart are its own suite `<corpus>__<mart>`."""
    suites = load_suites()
    assert {s.table for s in suites if s.group == "raw"} == {f"raw.{t}" for t in RAW_TABLES}
    per_corpus = {f"{c.id}__conversations" for c in declarations()}
    own = {s.name for s in suites if s.group == "marts" and _corpus_of(s.name)}
    assert per_corpus <= own
    assert {s.name for s in suites if s.group == "marts"} - own == MARTS
    for suite in suites:
        if suite.name in per_corpus:
            assert suite.table == "main.conversations", suite.name
            assert {e.name for e in suite.expectations} == {
                "one_conversation_per_ingested_record",
                "turn_counts_match_raw",
            }
        elif suite.name in own:
            mart = suite.name.split("__", 1)[1]
            assert mart in MARTS and suite.table == f"main.{mart}", suite.name
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
# closed vocabularies), with the model_rules argument of that family: on a mart they would check
# the same rule twice, so a mart suite uses one only for a column its model's family leaves out.
DBT_OWNED_TYPES = {
    "expect_column_values_to_not_be_null": "not_null_columns",
    "expect_column_values_to_be_unique": "unique_keys",
    "expect_compound_columns_to_be_unique": "unique_keys",
    "expect_column_values_to_be_in_set": "accepted_values_by_column",
    "expect_column_values_to_be_between": "value_ranges",
}


def _model_rules(model: dict) -> dict[str, set]:
    """The columns each dbt family (model_rules arguments) covers on a model; a unique key of
    several columns as a tuple."""
    covered: dict[str, set] = {family: set() for family in DBT_OWNED_TYPES.values()}
    for test in model.get("data_tests") or model.get("tests") or []:
        arguments = (
            (test.get("model_rules") or {}).get("arguments") or {} if isinstance(test, dict) else {}
        )
        for family, columns in arguments.items():
            if family in covered:
                covered[family] |= {tuple(c) if isinstance(c, list) else c for c in columns}
    return covered


def test_mart_suites_do_not_repeat_dbt_tests() -> None:
    models = _mart_models()
    repeated = []
    for suite in load_suites(select=["marts"]):
        covered = _model_rules(models[suite.table_name])
        for e in suite.expectations:
            if e.type not in DBT_OWNED_TYPES:
                continue
            column = e.kwargs.get("column") or tuple(e.kwargs.get("column_list") or ())
            if column in covered[DBT_OWNED_TYPES[e.type]]:
                repeated.append(f"{suite.name}:{e.name}")
    assert repeated == []


def test_mart_rules_check_finds_a_dbt_duplicate() -> None:
    """The check above sees the model_rules families (a not-null dbt holds is found)."""
    covered = _model_rules(_mart_models()["result_clicks"])
    assert "click_id" in covered["not_null_columns"] and "rank" not in covered["not_null_columns"]
    assert "dwell_ms" in _model_rules(_mart_models()["serp_views"])["value_ranges"]


#: the shared suites' warnings, reviewed; a corpus' own suites keep theirs in its own files
SHARED_WARNINGS = {
    "conversations:conversations_with_one_role_only",
    "turns:empty_text_turns",
    "turns:repetitive_conversations",
    # the public corpora's turn distributions, reported per own corpus (custom/<name>)
    "turns:own_corpus_user_turn_share_unusual",
    "turns:own_corpus_empty_text_share_large",
    "turns:own_corpus_duplicate_text_share_large",
    "turns:text_turns_have_text",
    "votes:dialogue_a_linked",
    "votes:dialogue_b_linked",
    "relevance_judgments:judgment_kind_has_a_scale",
    "search_queries:query_without_turn",
    "serp_views:timings_plausible",
    "landing_page_views:timings_plausible",
    "landing_page_views:dwell_not_negative",
}


def test_warnings_are_a_short_reviewed_list() -> None:
    """The shared suites warn only where reviewed (SHARED_WARNINGS); each corpus' own suites
    (raw.<id>__*, <id>__*) hold more critical expectations than warnings."""
    severities: dict[str | None, list[str]] = {}
    shared_warnings = set()
    for suite in load_suites():
        corpus = _corpus_of(suite.name)
        for e in suite.expectations:
            severities.setdefault(corpus, []).append(e.severity)
            if corpus is None and e.severity == "warning":
                shared_warnings.add(f"{suite.name}:{e.name}")
    assert shared_warnings == SHARED_WARNINGS
    for corpus, found in severities.items():
        if corpus is not None:
            assert found.count("warning") < found.count("critical"), corpus


def test_every_sql_expectation_says_why_it_is_not_a_built_in() -> None:
    """SQL is kept only with a reason (why_sql:, one of SQL_REASONS, carried into the GX
    expectation's meta); a built-in has none."""
    for suite in load_suites():
        for spec in suite.expectations:
            if spec.type == SQL_TYPE:
                assert spec.why_sql in SQL_REASONS, f"{suite.name}:{spec.name}"
                assert to_gx_expectation(suite, spec).meta["why_sql"] == spec.why_sql
            else:
                assert spec.why_sql is None, f"{suite.name}:{spec.name}"


def test_readme_counts_are_the_suites_counts() -> None:
    """expectations/README.md shows the built-in / SQL counts as loaded (regenerate with
    `python -m csrwh.gate.suites`), never a hand-copied figure that goes stale."""
    counts = expectation_counts()
    assert counts["sql"] == sum(counts[f"sql:{r}"] for r in SQL_REASONS)
    readme = (PROJECT_ROOT / "expectations" / "README.md").read_text(encoding="utf-8")
    assert counts_markdown() in readme, "run `python -m csrwh.gate.suites` and paste it"
    total = counts["built-in"] + counts["sql"]
    stated = f"{total} expectations ({counts['built-in']} GX built-ins"
    assert [p.name for p, text in all_doc_texts().items() if stated in text] == ["how-it-works.md"]


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
        (
            (
                "table: main.things\nexpectations:\n  - name: q\n    type: unexpected_rows_expectation\n"
                "    severity: warning\n    why: w\n"
                "    kwargs: {unexpected_rows_query: 'select 1 from {batch}'}\n"
            ),
            "an SQL expectation needs why_sql: one of cross-table",
        ),
        (
            (
                "table: main.things\nexpectations:\n  - name: q\n    type: unexpected_rows_expectation\n"
                "    why_sql: hard\n    severity: warning\n    why: w\n"
                "    kwargs: {unexpected_rows_query: 'select 1 from {batch}'}\n"
            ),
            "needs why_sql: one of",
        ),
        (GOOD + "    why_sql: aggregate\n", "why_sql: is for SQL expectations only"),
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


def test_offending_rows_of_built_ins_name_records() -> None:
    """Every suite with a built-in over a column names its rows (index_columns: GX lists them
    with each unexpected value, so dq_results.offending_rows name records, not only values):
    the raw record's position, a mart's dbt key where the model has one."""
    models = _mart_models()
    for suite in load_suites():
        if any(e.type != SQL_TYPE and "column" in e.kwargs for e in suite.expectations):
            assert suite.index_columns, suite.name
        if suite.group == "marts" and suite.index_columns:
            keys = _model_rules(models[suite.table_name])["unique_keys"]
            name = suite.index_columns[0] if len(suite.index_columns) == 1 else suite.index_columns
            assert not keys or name in keys, (suite.name, suite.index_columns, keys)
