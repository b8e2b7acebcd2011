"""The CRSArena analysis marts (crsarena_dialogue_stats, crsarena_battle_counts,
crsarena_vote_results) and text_diversity on a generated sample: every dbt test declared on
them passes on the build and fails on data corrupted for it -- each test seen to fail once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from unittest import mock

import duckdb
import pytest

from csrwh.pipeline import build
from csrwh.pipeline.dbt_runner import run_dbt
from csrwh.sample import generate

MARTS = [
    "text_diversity",
    "crsarena_dialogue_stats",
    "crsarena_battle_counts",
    "crsarena_vote_results",
]

# one statement per declared test, each on its own row where a row could hide another's failure
CORRUPTIONS = {
    "text_diversity": [
        "update text_diversity set distinct_1 = null where rowid = 0",  # not_null_columns
        "insert into text_diversity select * from text_diversity where rowid = 1",  # unique_combination
        "update text_diversity set subset = 'no-such-subset' where rowid = 2",  # exists_in corpus_stats
        "update text_diversity set iterations = 1 where rowid = (select min(rowid) from text_diversity where variant = 'dataset' and rowid > 2)",  # row_condition
        "update text_diversity set corpus = 'elsewhere' where rowid = 4",  # accepted_values corpus
        "update text_diversity set side = 'both' where rowid = 5",  # accepted_values side
        "update text_diversity set variant = 'other' where rowid = 6",  # accepted_values variant
        "update text_diversity set n_conversations = 0 where rowid = 7",  # value_between
        "update text_diversity set n_utterances = 0 where rowid = 8",  # value_between
        "update text_diversity set n_words = -1 where rowid = 9",  # value_between
        "update text_diversity set max_words = null where rowid = (select min(rowid) from text_diversity where variant = 'dataset' and rowid > 10)",  # not_null (dataset)
        "update text_diversity set max_words = 0 where rowid = 10",  # value_between
        "update text_diversity set iterations = 7 where rowid = 11",  # accepted_values iterations
        "update text_diversity set seed = null where rowid = (select min(rowid) from text_diversity where variant = 'dataset' and rowid > 12)",  # not_null (dataset)
        "update text_diversity set distinct_1 = 1.5 where rowid = 13",  # value_between
        "update text_diversity set distinct_2 = -0.1 where rowid = 14",  # value_between
    ],
    "crsarena_dialogue_stats": [
        "update crsarena_dialogue_stats set n_utterances = null where rowid = 0",  # not_null_columns
        "insert into crsarena_dialogue_stats select * from crsarena_dialogue_stats where rowid = 1",  # unique_combination
        "update crsarena_dialogue_stats set n_satisfied = n_dialogues + 5 where rowid = 2",  # row_condition (+ value_between ok)
        "update crsarena_dialogue_stats set environment = 'global' where rowid = 3",  # accepted_values
        "update crsarena_dialogue_stats set n_dialogues = 0 where rowid = 4",  # value_between (and row_condition)
        "update crsarena_dialogue_stats set n_satisfied = -1 where rowid = 5",
        "update crsarena_dialogue_stats set n_frustrated = -1 where rowid = 6",
        "update crsarena_dialogue_stats set satisfied_share = 2 where rowid = 7",
        "update crsarena_dialogue_stats set utterances_mean = -1 where rowid = 8",
        "update crsarena_dialogue_stats set utterances_median = -1 where rowid = 9",
        "update crsarena_dialogue_stats set utterances_sd = -1 where rowid = 10",
        "update crsarena_dialogue_stats set words_mean = -1 where rowid = 11",
        "update crsarena_dialogue_stats set words_median = -1 where rowid = 12",
        "update crsarena_dialogue_stats set words_sd = -1 where rowid = 13",
    ],
    "crsarena_battle_counts": [
        "update crsarena_battle_counts set n_votes = null where rowid = 0",  # not_null_columns
        "insert into crsarena_battle_counts select * from crsarena_battle_counts where rowid = 1",  # unique_combination
        "update crsarena_battle_counts set n_ties = n_battles + 1, n_votes = n_battles + 5 where rowid = 2",  # row_condition
        "update crsarena_battle_counts set environment = 'global' where rowid = 3",  # accepted_values
        "update crsarena_battle_counts set n_votes = -1 where rowid = 4",
        "update crsarena_battle_counts set n_battles = -1 where rowid = 5",
        "update crsarena_battle_counts set n_wins_a = -1 where rowid = 6",
        "update crsarena_battle_counts set n_wins_b = -1 where rowid = 7",
        "update crsarena_battle_counts set n_ties = -1 where rowid = 8",
    ],
    "crsarena_vote_results": [
        "update crsarena_vote_results set user_id = null where rowid = 0",  # not_null_columns
        "update crsarena_vote_results set vote_id = 'crsarena:nowhere:0' where rowid = (select min(rowid) from crsarena_vote_results where n_votes = 1)",  # exists_in votes
        "update crsarena_vote_results set vote_result = 'win' where rowid = (select min(rowid) from crsarena_vote_results where n_votes = 0)",  # row_condition
        "insert into crsarena_vote_results select * from crsarena_vote_results where rowid = 1",  # unique conversation_id
        "update crsarena_vote_results set conversation_id = 'crsarena:nowhere' where rowid = 2",  # relationships
        "update crsarena_vote_results set environment = 'global' where rowid = 3",  # accepted_values
        "update crsarena_vote_results set vote_id = null where rowid = (select max(rowid) from crsarena_vote_results where n_votes = 1)",  # not_null (n_votes = 1)
        "update crsarena_vote_results set vote_result = 'draw' where rowid = 4",  # accepted_values
        "update crsarena_vote_results set n_votes = -1 where rowid = 5",  # value_between
    ],
}


@pytest.fixture(scope="module")
def warehouse(module_tmp_path: Path) -> Path:
    root = module_tmp_path
    generate(root / "data", scale=1, seed=0, corpora=["crsarena", "cosrec"])
    with mock.patch.dict(os.environ, CSRWH_DBT_TARGET_PATH=str(root / "target")):
        result = build(root / "data", root / "warehouse.duckdb", corpora=["crsarena", "cosrec"])
    assert result.published
    return root / "warehouse.duckdb"


@pytest.fixture()
def dbt_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(tmp_path / "target"))
    return tmp_path / "target"


def _tests_of(outcome) -> set[str]:
    return {name for name in outcome.timings if name.startswith("test.")}


def test_marts_have_rows_of_every_kind(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        assert (
            con.execute("select count(*) from crsarena_vote_results where n_votes = 1").fetchone()[
                0
            ]
            > 1
        )
        assert (
            con.execute("select count(*) from crsarena_vote_results where n_votes = 0").fetchone()[
                0
            ]
            > 0
        )
        assert {
            r[0] for r in con.execute("select distinct corpus from text_diversity").fetchall()
        } == {"cosrec", "crsarena"}
        for mart in MARTS:
            assert con.execute(f"select count(*) from {mart}").fetchone()[0] >= 15, mart


def test_every_dbt_test_fails_on_corrupted_marts(
    warehouse: Path, tmp_path: Path, dbt_target: Path
) -> None:
    clean = run_dbt(["test", "--select", *MARTS], warehouse, quiet=True)
    assert clean.success, clean.failures
    declared = _tests_of(clean)
    assert len(declared) >= 12  # model_rules per model, plus references etc. (macros/tests/)

    corrupted = tmp_path / "corrupted.duckdb"
    shutil.copy2(warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        for statements in CORRUPTIONS.values():
            for statement in statements:
                con.execute(statement)
    outcome = run_dbt(["test", "--select", *MARTS], corrupted, quiet=True)
    assert not outcome.success
    failed = {line.split(":", 1)[0] for line in outcome.failures}
    assert declared - failed == set(), "tests that never failed: " + ", ".join(
        sorted(declared - failed)
    )
