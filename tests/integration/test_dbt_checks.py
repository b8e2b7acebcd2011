"""The dbt side of the one-owner-per-check split (expectations/README.md, "Who owns which check").

dbt owns the structure of the marts: enforced model contracts (names and types), keys,
not-nulls, ranges, closed vocabularies and references: per model, the not-null, keys, ranges and
closed-vocabulary rules are one `model_rules` test, references one `references` test
(macros/tests/). Each family is shown failing on a corrupted copy of the built sample, its rows
naming the family and the offending column; these are also the corruptions that
tests/integration/test_validate.py used to aim at the Great Expectations duplicates removed from the
mart suites. A broken contract fails the model build, naming the column.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml

from csrwh.config import PROJECT_ROOT
from csrwh.pipeline.dbt_runner import dbt_target_path, run_dbt
from csrwh.pipeline.failing_rows import with_rows

ONE_ROW = "rowid = (select min(rowid) from main.{table}{where})"

# (test node that must fail, SQL on the copy, text its failing rows must contain)
CORRUPTIONS = [
    # keys: unique_keys
    (
        "rules_conversations",
        "insert into main.conversations select * from main.conversations limit 1",
        "('unique_keys', 'conversation_id",
    ),
    (
        "rules_turns",
        "insert into main.turns select * from main.turns where corpus = 'convsearch' limit 1",
        "('unique_keys', 'turn_id",
    ),
    (
        "rules_intent_consensus",
        "insert into main.intent_consensus select * from main.intent_consensus limit 1",
        "('unique_keys', 'conversation_id, turn_index, label_scheme",
    ),
    (
        "rules_votes",
        "insert into main.votes select * from main.votes limit 1",
        "('unique_keys', 'vote_id",
    ),
    (
        "rules_users",
        "insert into main.users select * from main.users limit 1",
        "('unique_keys', 'user_id",
    ),
    (
        "rules_items",
        "insert into main.items select * from main.items limit 1",
        "('unique_keys', 'item_id",
    ),
    # not-null: not_null_columns
    (
        "rules_conversations",
        "update main.conversations set subset = null where corpus = 'cosrec'",
        "('not_null_columns', 'subset",
    ),
    # ranges: value_ranges
    (
        "rules_conversations",
        "update main.conversations set user_satisfaction = 4 where corpus = 'convsearch'",
        "('value_ranges', 'user_satisfaction",
    ),
    (
        "rules_ratings",
        "update main.ratings set value_normalized = 2 where "
        + ONE_ROW.format(table="ratings", where=""),
        "('value_ranges', 'value_normalized",
    ),
    (
        "rules_item_interactions",
        "update main.item_interactions set round = 4",
        "('value_ranges', 'round",
    ),
    (
        "rules_landing_page_views",
        "update main.landing_page_views set helpfulness = 7",
        "('value_ranges', 'helpfulness",
    ),
    (
        "rules_annotator_agreement",
        "update main.annotator_agreement set value = 1.5",
        "('value_ranges', 'value not in [-1, 1]",
    ),
    (
        "rules_quality_by_length",
        "update main.quality_by_length set mean_value_normalized = 1.2",
        "('value_ranges', 'mean_value_normalized",
    ),
    # closed vocabularies: accepted_values_by_column
    (
        "rules_turns",
        "update main.turns set role = 'bot' where turn_index = 1",
        "('accepted_values_by_column', 'role",
    ),
    ("rules_votes", "update main.votes set winner = 'c'", "('accepted_values_by_column', 'winner"),
    # corpus: the registered ids (macros/generated/corpus_registry.sql, from ingest/corpora.toml)
    (
        "rules_conversations",
        "update main.conversations set corpus = 'movielens' where "
        + ONE_ROW.format(table="conversations", where=""),
        "('accepted_values_by_column', 'movielens",
    ),
    # ... custom included (its ratings may name several raters: the list form an export writes)
    (
        "rules_annotator_agreement",
        "update main.annotator_agreement set corpus = 'movielens' where "
        + ONE_ROW.format(table="annotator_agreement", where=""),
        "('accepted_values_by_column', 'movielens",
    ),
    (
        "rules_relevance_judgments",
        "update main.relevance_judgments set collection = null where "
        + ONE_ROW.format(table="relevance_judgments", where=""),
        "('not_null_columns', 'collection",
    ),
    (
        "rules_search_queries",
        "update main.search_queries set source_engine = 'google'",
        "('accepted_values_by_column', 'source_engine",
    ),
    (
        "rules_result_clicks",
        "update main.result_clicks set click_type = 'ad'",
        "('accepted_values_by_column', 'click_type",
    ),
    # references: references (relationships and compound exists_in)
    (
        "references_turns",
        "update main.turns set conversation_id = 'cosrec:nowhere' where "
        + ONE_ROW.format(table="turns", where=""),
        "cosrec:nowhere",
    ),
    (
        "references_ratings",
        "update main.ratings set conversation_id = 'recoreact:nowhere' where "
        + ONE_ROW.format(table="ratings", where=" where corpus = 'recoreact'"),
        "recoreact:nowhere",
    ),
    (
        "references_intents",
        "update main.intents set turn_index = 999 where corpus = 'recllmsim'",
        "conversation_id, turn_index",
    ),
    (
        "references_relevance_judgments",
        "update main.relevance_judgments set item_id = 'cosrec:B000NOWHERE' where "
        + ONE_ROW.format(table="relevance_judgments", where=""),
        "cosrec:B000NOWHERE",
    ),
    (
        "references_items",
        "update main.items set item_kind = 'video' where corpus = 'recoreact'",
        "video",
    ),
    (
        "references_item_interactions",
        "update main.item_interactions set item_id = 'recoreact:news:news_9999'",
        "recoreact:news:news_9999",
    ),
    (
        "references_serp_views",
        "update main.serp_views set query_id = 'convsearch:999'",
        "convsearch:999",
    ),
]


def _failing_rows(database: Path, name: str) -> str:
    """The failing rows of test `name` in the last dbt run, as text (its compiled SQL rerun)."""
    results = json.loads((dbt_target_path() / "run_results.json").read_text(encoding="utf-8"))
    (result,) = [r for r in results["results"] if r["unique_id"].split(".")[2] == name]
    with duckdb.connect(str(database), read_only=True) as con:
        rows = con.execute(result["compiled_code"]).fetchall()
    assert rows, name
    return repr(rows)


def test_every_folded_family_fails_on_bad_data_naming_the_column(
    sample_warehouse: Path, tmp_path: Path, isolated_dbt_target: Path
) -> None:
    tests = sorted({c[0] for c in CORRUPTIONS})
    clean = run_dbt(["test", "--select", *tests], sample_warehouse, quiet=True)
    assert clean.success, clean.failures
    assert {n.split(".")[2] for n in clean.timings if n.startswith("test.")} == set(tests)

    corrupted = tmp_path / "corrupted.duckdb"
    shutil.copy2(sample_warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        for _, corruption, _ in CORRUPTIONS:
            assert con.execute(corruption).fetchall()[0][0] > 0, corruption  # rows changed
    outcome = run_dbt(["test", "--select", *tests], corrupted, quiet=True)
    assert not outcome.success
    failed = {line.split(":", 1)[0].split(".")[2] for line in outcome.failures}
    assert failed == set(tests), sorted(set(tests) ^ failed)
    # the build's failure lines show each failed test's first rows (rule, column, value)
    lines = with_rows(corrupted, outcome.failures, outcome.failed_tests)
    (bot,) = [x for x in lines if ".rules_turns." in x]
    assert "first failing rows: rule=" in bot
    assert "rule=accepted_values_by_column, detail=role = bot, n_rows=" in bot
    # a mart that carries its rows' file and record names one for each of its failing rules
    (conversations,) = [x for x in lines if ".rules_conversations." in x]
    rows = [r for r in conversations.split("first failing rows: ", 1)[1].split("; ") if r != "…"]
    assert len(rows) == 3 and all(
        re.match(r"\S+\.(jsonl|json|csv|tsv|qrels)(\.gz)? (line|record) \d+ \(for one\): rule=", r)
        for r in rows
    ), conversations
    for name, _, named in CORRUPTIONS:
        rows = _failing_rows(corrupted, name)
        if named.startswith("('"):  # a model_rules test: its rows name the family and the text
            family, text = named[2:].split("', '", 1)
            assert f"'{family}'" in rows and text in rows, (name, named)
        else:
            assert named in rows, (name, named)


def _contract_project(tmp_path: Path) -> Path:
    """A copy of the dbt project whose yml declares users.corpus an INTEGER and leaves
    votes.feedback out, so both contracts disagree with the models' SQL."""
    project = tmp_path / "project"
    for part in ("models", "macros", "seeds", "tests", "profiles", "dbt_project.yml"):
        source = PROJECT_ROOT / part
        if source.is_dir():
            shutil.copytree(source, project / part)
        elif source.exists():
            shutil.copy2(source, project / part)
    core = project / "models" / "marts" / "core" / "_core__models.yml"
    doc = yaml.safe_load(core.read_text(encoding="utf-8"))
    for model in doc["models"]:
        if model["name"] == "users":
            next(c for c in model["columns"] if c["name"] == "corpus")["data_type"] = "integer"
        if model["name"] == "votes":
            model["columns"] = [c for c in model["columns"] if c["name"] != "feedback"]
    core.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return project


def test_mart_contracts_fail_the_build_naming_the_column(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    from dbt.cli.main import dbtRunner

    warehouse = tmp_path / "contract.duckdb"
    shutil.copy2(sample_warehouse, warehouse)
    project = _contract_project(tmp_path)
    monkey = pytest.MonkeyPatch()
    monkey.setenv("CSRWH_DBT_PATH", str(warehouse))
    monkey.setenv("DO_NOT_TRACK", "1")
    try:
        result = dbtRunner().invoke(
            [
                "run",
                "--select",
                "users",
                "votes",
                "--project-dir",
                str(project),
                "--profiles-dir",
                str(project / "profiles"),
                "--target-path",
                str(tmp_path / "target"),
                "--log-path",
                str(tmp_path / "logs"),
                "--quiet",
            ]
        )
    finally:
        monkey.undo()
    assert not result.success
    messages = {r.node.name: r.message or "" for r in result.result.results}
    assert "contract" in messages["users"].lower() and "corpus" in messages["users"]
    assert "contract" in messages["votes"].lower() and "feedback" in messages["votes"]
