"""`csrwh build` on the generated sample of all five corpora: publish, no-change rebuild,
a failed build that must not touch the published warehouse, and the project's own generic
dbt tests failing on deliberately corrupted marts."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import duckdb
import pytest

from csrwh.errors import CsrwhError
from csrwh.gate.run import gate
from csrwh.pipeline import build, failed_path
from csrwh.pipeline.dbt_runner import run_dbt
from csrwh.sample import generate
from ingest import registry

#: every corpus the registry declares (the sample generator writes each)
CORPORA = set(registry.names())


@pytest.fixture(scope="module")
def sample_build(module_tmp_path: Path):
    import os

    root = module_tmp_path
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(root / "target")
    data = root / "data"
    generate(data, scale=1, seed=7)
    warehouse = root / "warehouse" / "demo.duckdb"
    result = build(data, warehouse, gates=[gate])  # exactly what `csrwh build` runs
    yield data, warehouse, result
    os.environ.pop("CSRWH_DBT_TARGET_PATH", None)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sample_build_publishes_every_corpus(sample_build) -> None:
    _, warehouse, result = sample_build
    assert result.published and result.dbt.success and result.dbt.warnings == []
    with duckdb.connect(str(warehouse), read_only=True) as con:
        corpora = {
            c for (c,) in con.execute("select distinct corpus from conversations").fetchall()
        }
        build_id = con.execute("select build_id from build_info").fetchall()[0][0]
    assert corpora == CORPORA
    assert build_id == result.build_id


def test_no_change_rebuild_is_up_to_date(sample_build) -> None:
    data, warehouse, _ = sample_build
    before = sha256(warehouse)
    result = build(data, warehouse)
    assert result.up_to_date and not result.published
    assert sha256(warehouse) == before


def test_sample_build_passes_every_critical_expectation(sample_build) -> None:
    _, warehouse, _ = sample_build
    with duckdb.connect(str(warehouse), read_only=True) as con:
        failed = con.execute(
            "select suite, expectation from dq_results where severity = 'critical' and not success"
        ).fetchall()
        n_results = con.execute("select count(*) from dq_results").fetchall()[0][0]
    assert failed == [] and n_results > 200


def test_changed_input_rebuilds_and_republishes_in_the_same_process(
    sample_build, tmp_path: Path
) -> None:
    """A second gated build in one process sees the new file, not a cached old database."""
    data, warehouse, _ = sample_build
    changed = tmp_path / "changed"
    shutil.copytree(data, changed)
    raw_conversations = changed / "cosrec/dataset/raw/conversations.jsonl"
    lines = raw_conversations.read_text("utf-8").splitlines(keepends=True)
    raw_conversations.write_text("".join(lines[:-1]), encoding="utf-8")
    with duckdb.connect(str(warehouse), read_only=True) as con:
        before = con.execute("select count(*) from conversations").fetchall()[0][0]
    result = build(changed, warehouse, gates=[gate])  # same published file, same process
    assert result.published and not result.up_to_date
    with duckdb.connect(str(warehouse), read_only=True) as con:
        after = con.execute("select count(*) from conversations").fetchall()[0][0]
        build_id = con.execute("select build_id from build_info").fetchall()[0][0]
    assert after == before - 1 and build_id == result.build_id


def test_failed_build_leaves_published_warehouse_untouched(sample_build, tmp_path: Path) -> None:
    data, warehouse, _ = sample_build
    bad_data = tmp_path / "bad"
    shutil.copytree(data, bad_data)
    conversations = bad_data / "cosrec/dataset/crowd/conversations.jsonl"
    first_line = conversations.read_text("utf-8").splitlines()[0]
    with conversations.open("a", encoding="utf-8") as fh:  # a second record with the same id
        fh.write(first_line + "\n")
    before = sha256(warehouse)
    reader = duckdb.connect(str(warehouse), read_only=True)  # a reader holds it open meanwhile
    try:
        with pytest.raises(CsrwhError, match="left untouched"):
            build(bad_data, warehouse)
        assert reader.execute("select count(*) from conversations").fetchall()[0][0] > 0
    finally:
        reader.close()
    assert sha256(warehouse) == before
    assert failed_path(warehouse).exists()
    with duckdb.connect(str(failed_path(warehouse)), read_only=True) as con:
        dupes = con.execute(
            "select count(*) - count(distinct record_key) from raw.cosrec__conversations "
            "where source_path = 'dataset/crowd/conversations.jsonl'"
        ).fetchall()[0][0]
    assert dupes == 1


def test_generic_tests_fail_on_corrupted_marts(sample_build, tmp_path: Path) -> None:
    _, warehouse, _ = sample_build
    corrupted = tmp_path / "corrupted.duckdb"
    shutil.copy2(warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        # a gap in turn_index
        con.execute(
            "delete from main.turns where turn_index = 1 and conversation_id = "
            "(select min(conversation_id) from main.turns)"
        )
        # a normalised rating outside [0, 1]
        con.execute(
            "update main.ratings set value_normalized = 1.5 where rowid = (select min(rowid) from main.ratings)"
        )
        # a NULL where none is allowed
        con.execute(
            "update main.ratings set rater_kind = null where rowid = (select max(rowid) from main.ratings)"
        )
        # a duplicated conversation
        con.execute("insert into main.conversations select * from main.conversations limit 1")
        # a CoSRec intent moved onto a system turn
        con.execute(
            "update main.intents set turn_index = 1 where rowid = (select min(rowid) "
            "from main.intents where corpus = 'cosrec' and turn_index = 0)"
        )
        # an intent on a turn that does not exist
        con.execute(
            "insert into main.intents select * replace (999 as turn_index) from main.intents limit 1"
        )
    outcome = run_dbt(
        ["test", "--select", "turns", "ratings", "conversations", "intents"], corrupted, quiet=True
    )
    failed = " ".join(outcome.failures)
    assert not outcome.success
    assert "contiguous_index_turns_turn_index" in failed
    assert "rules_ratings." in failed
    assert "rules_conversations." in failed
    assert "references_intents." in failed
    assert "test_cosrec_intents__on_user_turns" in failed
    assert "rules_ratings" in failed

    clean = run_dbt(
        ["test", "--select", "turns", "ratings", "conversations", "intents"], warehouse, quiet=True
    )
    assert clean.success, clean.failures


def test_every_cookbook_query_runs(sample_build) -> None:
    import importlib.util

    from csrwh.config import PROJECT_ROOT

    spec = importlib.util.spec_from_file_location(
        "cookbook", PROJECT_ROOT / "scripts" / "cookbook.py"
    )
    cookbook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cookbook)
    _, warehouse, _ = sample_build
    queries = cookbook.load_queries()
    assert len(queries) >= 6
    rendered = cookbook.render(warehouse)
    assert rendered.count("```sql") == len(queries)


def test_build_on_a_single_corpus(tmp_path: Path, isolated_dbt_target: Path) -> None:
    """Every model builds (and every dbt test passes) when the other four corpora are absent."""
    data = tmp_path / "only_recllmsim"
    generate(data, scale=1, seed=3, corpora=["recllmsim"])
    warehouse = tmp_path / "one.duckdb"
    result = build(data, warehouse)
    assert result.published and result.dbt.warnings == []
    with duckdb.connect(str(warehouse), read_only=True) as con:
        assert con.execute("select distinct corpus from conversations").fetchall() == [
            ("recllmsim",)
        ]
        assert con.execute("select count(*) from crs_leaderboard").fetchall() == [(0,)]


def test_strict_build_refuses_rejected_records(sample_build, tmp_path: Path) -> None:
    data, warehouse, _ = sample_build
    bad_data = tmp_path / "bad"
    shutil.copytree(data, bad_data)
    with (bad_data / "recoreact/news-users.jsonl").open("ab") as fh:
        fh.write(b'{"uid": "broken\n')
    before = sha256(warehouse)
    with pytest.raises(CsrwhError, match="rejected record"):
        build(bad_data, warehouse, strict=True)
    assert sha256(warehouse) == before
    lenient = build(
        bad_data, warehouse, allow_rejects=True
    )  # accepting the new reject, the good records land
    assert lenient.published and lenient.records_rejected == 1


def test_a_never_seen_release_lands_publishes_and_is_named(tmp_path: Path) -> None:
    """A new RecLLMSim release folder whose files add a key, a chat model and a questionnaire
    item: the build publishes, lands its conversations and turns, and names every novelty."""
    import json
    import os

    os.environ["CSRWH_DBT_TARGET_PATH"] = str(tmp_path / "target")
    try:
        data = tmp_path / "data"
        generate(data, scale=1, seed=3)  # every corpus: the gated build needs each report mart
        template = next((data / "recllmsim" / "human_exp_V2").rglob("*.json"))
        record = json.loads(template.read_text("utf-8"))
        record["chat_model"] = "gpt-9-imaginary"
        record["mood_after_chat"] = "relieved"
        record["questionnaire"].append(
            {"query": "对话是否流畅？", "summary": "Fluency", "option": "很流畅"}
        )
        new_file = data / "recllmsim" / "human_exp_V3" / "User_0" / "旅行规划" / "0.json"
        new_file.parent.mkdir(parents=True)
        new_file.write_text(json.dumps(record, ensure_ascii=False), "utf-8")

        warehouse = tmp_path / "wh.duckdb"
        result = build(data, warehouse, gates=[gate])
    finally:
        os.environ.pop("CSRWH_DBT_TARGET_PATH", None)

    assert result.published
    text = "\n".join(result.novelties)
    assert "$.mood_after_chat" in text and "human_exp_V3/User_0/旅行规划/0.json" in text
    assert "'human_exp_V3'" in text
    assert "'gpt-9-imaginary'" in text
    assert "'questionnaire:Fluency'" in text and "'很流畅'" in text
    conversation_id = "recllmsim:human_exp_V3/User_0/旅行规划/0"
    with duckdb.connect(str(warehouse), read_only=True) as con:
        system_id, subset, n_turns = con.execute(
            "select system_id, subset, n_turns from conversations where conversation_id = ?",
            [conversation_id],
        ).fetchone()
        assert (system_id, subset, n_turns) == (
            "gpt-9-imaginary",
            "human_exp_V3",
            len(record["history"]),
        )
        assert con.execute(
            "select count(*) from turns where conversation_id = ?", [conversation_id]
        ).fetchone()[0] == len(record["history"])
        assert con.execute(
            "select value, raw_value from ratings where conversation_id = ? and aspect = 'questionnaire:Fluency'",
            [conversation_id],
        ).fetchall() == [(None, "很流畅")]
        recorded = con.execute(
            "select suite, count(*) from dq_results where not success "
            "and suite in ('open_vocabulary', 'lineage_completeness') group by all order by all"
        ).fetchall()
    assert recorded == [("lineage_completeness", 1), ("open_vocabulary", 4)]


def test_closed_rule_value_given_or_raw_fails_on_a_corrupted_mart(sample_build) -> None:
    _, warehouse, _ = sample_build
    corrupted = warehouse.with_name("corrupted_ratings.duckdb")
    shutil.copy(warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        con.execute(
            "update ratings set value = null, raw_value = null where corpus = 'recllmsim' and aspect = 'satisfaction'"
        )
    outcome = run_dbt(
        ["test", "--select", "ratings,test_name:value_given_or_raw"], corrupted, quiet=True
    )
    assert not outcome.success
    assert any("value_given_or_raw" in failure for failure in outcome.failures)
