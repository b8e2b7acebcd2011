"""The text-measure and agreement-interval dbt tests on a small sample build: they pass on
the clean build and each is seen failing on deliberately corrupted data (the pattern of
tests/integration/test_build_sample.py::test_generic_tests_fail_on_corrupted_marts).

Builds only what turns and annotator_agreement need (ingest + `dbt build --select
+turns +annotator_agreement`), from the generated sample of CoSRec, CRSArena-Dial and
RecLLMSim (English, Chinese and rated/labelled turns)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from unittest import mock

import duckdb
import pytest

from csrwh.pipeline.dbt_runner import run_dbt
from csrwh.sample import generate

# tests run only when every model they read was built (`cautious` indirect selection)
SELECT = [
    "--select",
    "+turns",
    "+annotator_agreement",
    "test_count_words__literal_cases",
    "--indirect-selection",
    "cautious",
]
TEST_SELECT = [
    "--select",
    "int_turn_text_measures",
    "turns",
    "annotator_agreement",
    "--indirect-selection",
    "cautious",
]


@pytest.fixture(scope="module")
def small_build(module_tmp_path: Path):
    from ingest import run_ingest

    root = module_tmp_path
    with mock.patch.dict(os.environ, CSRWH_DBT_TARGET_PATH=str(root / "target")):
        data = root / "data"
        generate(data, scale=1, seed=11, corpora=["cosrec", "crsarena-dial", "recllmsim"])
        warehouse = root / "small.duckdb"
        run_ingest(data, warehouse, progress=False)
        outcome = run_dbt(["build", *SELECT], warehouse, quiet=True)
        yield warehouse, outcome


def _failed(outcome) -> str:
    return " ".join(outcome.failures)


def test_clean_build_passes_and_has_the_measures(small_build) -> None:
    warehouse, outcome = small_build
    assert outcome.success, outcome.failures
    names = " ".join(outcome.timings)
    for test in (
        "test_turns__text_measures_agree",
        "test_annotator_agreement__bootstrap_interval",
        "test_count_words__literal_cases",
    ):
        assert test in names
    with duckdb.connect(str(warehouse), read_only=True) as con:
        segmented, english, translated = con.execute(
            """
            select
                count(*) filter (where m.is_segmented),
                count(*) filter (where t.corpus = 'crsarena'),
                count(t.n_tokens_translation)
            from turns t
            join intermediate.int_turn_text_measures m using (conversation_id, turn_index)
            """
        ).fetchone()
        intervals = con.execute(
            "select count(*), count(ci_low) from annotator_agreement"
        ).fetchone()
    assert segmented > 0 and english > 0 and translated > 0
    assert intervals[0] > 0 and intervals[0] == intervals[1]


def test_new_dbt_tests_fail_on_corrupted_data(small_build, tmp_path: Path) -> None:
    warehouse, _ = small_build
    corrupted = tmp_path / "corrupted.duckdb"
    shutil.copy2(warehouse, corrupted)
    measures = "intermediate.int_turn_text_measures"
    with duckdb.connect(str(corrupted)) as con:
        # a duplicated measure row
        con.execute(f"insert into {measures} select * from {measures} limit 1")
        # negative counts
        con.execute(
            f"update {measures} set n_tokens = -1 where rowid = (select min(rowid) from {measures})"
        )
        con.execute(
            f"update {measures} set n_words_segmented = -1 "
            f"where rowid = (select max(rowid) from {measures})"
        )
        # a NULL where none is allowed, in the measures and in the mart
        con.execute(
            f"update {measures} set is_segmented = null "
            f"where rowid = (select min(rowid) + 1 from {measures})"
        )
        con.execute(
            "update main.turns set n_tokens = null where rowid = (select min(rowid) from main.turns)"
        )
        # intervals: reversed, one end missing, out of range
        agreement = "main.annotator_agreement"
        con.execute(
            f"update {agreement} set ci_low = ci_high + 0.1, ci_high = ci_high "
            f"where rowid = (select min(rowid) from {agreement})"
        )
        con.execute(
            f"insert into {agreement} select * replace (subject || ':copy' as subject, "
            f"null as ci_high, -1.5 as ci_low) from {agreement} limit 1"
        )
        con.execute(
            f"insert into {agreement} select * replace (subject || ':copy2' as subject, "
            f"1.5 as ci_high) from {agreement} limit 1"
        )
    outcome = run_dbt(["test", *TEST_SELECT], corrupted, quiet=True)
    failed = _failed(outcome)
    assert not outcome.success
    for test in (
        "rules_int_turn_text_measures.",
        "rules_int_turn_text_measures.",  # n_tokens and n_words_segmented
        "rules_int_turn_text_measures.",
        "rules_turns.",
        "test_annotator_agreement__bootstrap_interval",
        "rules_annotator_agreement.",  # ci_low and ci_high
    ):
        assert test in failed, test


def test_turns_agreement_test_fails_on_mismatched_measures(small_build, tmp_path: Path) -> None:
    warehouse, _ = small_build
    corrupted = tmp_path / "mismatch.duckdb"
    shutil.copy2(warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        # a Han-free text whose Python word count no longer equals count_words
        con.execute(
            "update main.turns set n_words_segmented = n_words + 1 where turn_id = (select min(turn_id) "
            "from main.turns where corpus = 'crsarena')"
        )
    outcome = run_dbt(
        ["test", "--select", "test_turns__text_measures_agree"], corrupted, quiet=True
    )
    assert not outcome.success
    assert "test_turns__text_measures_agree" in _failed(outcome)
    with duckdb.connect(str(corrupted)) as con:
        con.execute("update main.turns set n_words_segmented = n_words where corpus = 'crsarena'")
        # a non-empty text with no tokens
        con.execute(
            "update main.turns set n_tokens = 0 where turn_id = (select min(turn_id) "
            "from main.turns where corpus = 'recllmsim' and text <> '')"
        )
    outcome = run_dbt(
        ["test", "--select", "test_turns__text_measures_agree"], corrupted, quiet=True
    )
    assert "test_turns__text_measures_agree" in _failed(outcome)
