"""`csrwh build` on the real corpora: dbt passes clean, and corpus_stats equals counts
computed here straight from the files (json / line parsing — a different code path)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from csrwh.pipeline import build

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def real_build(real_corpora: Path, module_tmp_path: Path):
    import os

    root = module_tmp_path
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(root / "target")
    try:
        result = build(real_corpora, root / "csr.duckdb")
    finally:
        os.environ.pop("CSRWH_DBT_TARGET_PATH", None)
    con = duckdb.connect(str(root / "csr.duckdb"), read_only=True)
    yield result, con
    con.close()


def stats(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], dict]:
    frame = con.sql("select * from corpus_stats").pl()
    return {(row["corpus"], row["subset"]): row for row in frame.iter_rows(named=True)}


def test_build_publishes_with_no_dbt_error_or_warning(real_build) -> None:
    result, _ = real_build
    assert result.published
    assert result.dbt is not None and result.dbt.success
    assert result.dbt.failures == [] and result.dbt.warnings == []
    assert result.records_rejected == 0


def test_cosrec_counts_match_the_files(real_build, real_corpora: Path) -> None:
    _, con = real_build
    figures = stats(con)
    for partition in ("crowd", "curated"):
        lines = (
            (real_corpora / "cosrec/dataset" / partition / "conversations.jsonl")
            .read_text("utf-8")
            .splitlines()
        )
        texts = [next(iter(json.loads(line).values())) for line in lines if line.strip()]
        utterances = [u for text in texts for u in text.split("\n") if u.startswith(("U:", "S:"))]
        row = figures[("cosrec", partition)]
        assert row["n_conversations"] == len(texts)
        assert row["n_user_turns"] == sum(u.startswith("U:") for u in utterances)
        assert row["n_turns"] == len(utterances)


def test_crsarena_counts_match_the_files(real_build, real_corpora: Path) -> None:
    _, con = real_build
    figures = stats(con)
    for environment in ("open", "closed"):
        dialogues = json.loads(
            (real_corpora / f"crsarena-dial/data/crs_arena_dial_{environment}.json").read_text(
                "utf-8"
            )
        )
        row = figures[("crsarena", environment)]
        assert row["n_conversations"] == len(dialogues)
        assert row["n_turns"] == sum(len(d["conversation"]) for d in dialogues)
        assert row["n_user_turns"] == sum(
            u["participant"] == "USER" for d in dialogues for u in d["conversation"]
        )
        with open(
            real_corpora / f"crsarena-dial/data/votes_{environment}.csv",
            newline="",
            encoding="utf-8",
        ) as fh:
            n_votes = sum(1 for _ in csv.DictReader(fh))
        assert (
            con.execute(
                "select count(*) from votes where environment = ?", [environment]
            ).fetchall()[0][0]
            == n_votes
        )


def test_recllmsim_counts_match_the_files(real_build, real_corpora: Path) -> None:
    _, con = real_build
    figures = stats(con)
    assert {subset for corpus, subset in figures if corpus == "recllmsim"} == {
        "LLM_agent_user",
        "real_human_user",
        "human_exp_V2",
    }
    expected_files = {"LLM_agent_user": 1856, "real_human_user": 291, "human_exp_V2": 1833}
    for subset, n_files in expected_files.items():
        files = sorted((real_corpora / "recllmsim" / subset).rglob("*.json"))
        assert len(files) == n_files  # SOURCES.md
        histories = [json.loads(p.read_text("utf-8"))["history"] for p in files]
        row = figures[("recllmsim", subset)]
        assert row["n_conversations"] == len(files)
        assert row["n_user_turns"] == sum(m["role"] == "user" for h in histories for m in h)
        assert row["n_turns"] == sum(len(h) for h in histories)


def test_relevance_judgments_cover_every_qrels_line(real_build, real_corpora: Path) -> None:
    _, con = real_build
    lines = [
        l
        for l in (real_corpora / "cosrec/dataset/curated/qrels.qrels")
        .read_text("utf-8")
        .splitlines()
        if l.strip()
    ]
    kinds = con.execute(
        "select judgment_kind, count(*) from relevance_judgments group by 1 order by 1"
    ).fetchall()
    assert dict(kinds) == {
        "recommendation": sum("#" in l.split()[0] for l in lines),
        "search": sum("#" not in l.split()[0] for l in lines),
    }


RATED_ITEMS = {
    "Detail": "Detail Level",
    "Availability": "Practical Usefulness",
    "Diversity": "Diversity",
}
OPTION_SCORES = {
    "详细": 2,
    "一般": 1,
    "简略": 0,
    "很有用": 2,
    "有一定参考": 1,
    "不可用": 0,
    "结果多样": 2,
    "结果单一": 0,
}


def _human_files(real_corpora: Path) -> list[Path]:
    return sorted(
        p
        for release in ("real_human_user", "human_exp_V2")
        for p in (real_corpora / "recllmsim" / release).rglob("*.json")
    )


def test_assistant_quality_by_chat_model_from_plain_sql(real_build, real_corpora: Path) -> None:
    """statistics/assistant_quality.py's table (mean questionnaire score per chat model and item,
    a missing chat_model counted as gpt-4-turbo-preview), from the marts vs from the files."""
    _, con = real_build
    expected: dict[tuple[str, str], list[int]] = {}
    for path in _human_files(real_corpora):
        data = json.loads(path.read_text("utf-8"))
        model = data.get("chat_model", "gpt-4-turbo-preview")
        for item in RATED_ITEMS:
            answer = next(q for q in data["questionnaire"] if q["summary"] == item)
            expected.setdefault((model, item), []).append(OPTION_SCORES[answer["option"]])
    rows = con.execute(
        """
        select conversations.system_id, replace(ratings.aspect, 'questionnaire:', ''),
            avg(ratings.value), count(*)
        from ratings
        inner join conversations on ratings.conversation_id = conversations.conversation_id
        where ratings.corpus = 'recllmsim'
            and ratings.aspect in ('questionnaire:Detail', 'questionnaire:Availability', 'questionnaire:Diversity')
        group by all
        """
    ).fetchall()
    got = {(model, item): (mean, n) for model, item, mean, n in rows}
    assert set(got) == set(expected)
    assert len({model for model, _ in got}) == 4
    for key, scores in expected.items():
        assert got[key][1] == len(scores)
        assert got[key][0] == pytest.approx(sum(scores) / len(scores), abs=1e-12)


def test_tasks_and_profiles_from_plain_sql(real_build, real_corpora: Path) -> None:
    """statistics/basic_statistics.py's #Tasks / #Profiles (all tasks): distinct task_context and
    distinct preference (simulated) or release/User_k folder (human), marts vs files."""
    _, con = real_build
    sim = [
        json.loads(p.read_text("utf-8"))
        for p in (real_corpora / "recllmsim/LLM_agent_user").rglob("*.json")
    ]
    human = _human_files(real_corpora)
    expected = {
        "sim": (len({d["task_context"] for d in sim}), len({d["preference"] for d in sim})),
        "human": (
            len({json.loads(p.read_text("utf-8"))["task_context"] for p in human}),
            len({p.relative_to(real_corpora / "recllmsim").parts[:2] for p in human}),
        ),
    }
    rows = con.execute(
        """
        select
            case when conversations.subset = 'LLM_agent_user' then 'sim' else 'human' end as side,
            count(distinct conversations.task_description),
            count(distinct coalesce(conversations.source_attributes ->> '$.preference', conversations.user_id))
        from conversations
        where conversations.corpus = 'recllmsim'
        group by all
        """
    ).fetchall()
    assert {side: (tasks, profiles) for side, tasks, profiles in rows} == expected


def test_every_questionnaire_answer_and_behaviour_label_is_in_the_marts(
    real_build, real_corpora: Path
) -> None:
    _, con = real_build
    answers = labels = finals = 0
    for path in sorted((real_corpora / "recllmsim").rglob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        answers += len(data.get("questionnaire") or [])
        for key, runs in data.items():
            if key.startswith("strategy"):
                labels += sum(len(dims) for dims in runs.values())
                finals += len(runs.get("final", {}))
    n_answers = con.execute(
        "select count(*) from ratings where corpus = 'recllmsim' and aspect like 'questionnaire:%'"
    ).fetchone()[0]
    n_labels, n_finals = con.execute(
        "select count(*), count(*) filter (where is_final) from behaviour_labels"
    ).fetchone()
    assert (n_answers, n_labels, n_finals) == (answers, labels, finals)
    assert (
        con.execute(
            "select count(*) from ratings where corpus = 'recllmsim' and value is null"
        ).fetchone()[0]
        == 0
    )


def test_lineage_is_complete_and_nothing_new_on_the_real_corpora(real_build) -> None:
    result, con = real_build
    assert result.novelties == []
    rows = con.execute(
        "select table_name, success from dq_results where suite = 'lineage_completeness'"
    ).fetchall()
    from ingest import registry

    # one row per raw table of every corpus (custom's tables included, empty on the real data)
    assert len(rows) == len(registry.raw_tables()) and all(success for _, success in rows)


def test_language_is_detected_from_the_text(real_build) -> None:
    _, con = real_build
    rows = dict(
        con.execute(
            "select subset, list(distinct language) from conversations where corpus = 'recllmsim' group by all"
        ).fetchall()
    )
    assert rows == {"LLM_agent_user": ["en"], "real_human_user": ["zh"], "human_exp_V2": ["zh"]}


def test_python_load_returns_every_conversation_once_with_chat_roles(real_build) -> None:
    import csrwh

    result, con = real_build
    frame = csrwh.load(warehouse=result.warehouse)
    ids = frame["conversation_id"].to_list()
    expected = {r[0] for r in con.execute("select conversation_id from conversations").fetchall()}
    assert len(ids) == len(set(ids)) == len(expected) and set(ids) == expected
    roles = Counter(m["role"] for ms in frame["messages"].to_list() for m in ms)
    assert set(roles) == {"user", "assistant"}
    assert sum(roles.values()) == con.execute("select count(*) from turns").fetchone()[0]


@pytest.mark.parametrize("order", ["perfect", "reversed", "shuffled"])
def test_run_evaluation_on_the_real_qrels_agrees_with_an_independent_computation(
    real_build, order: str
) -> None:
    import importlib.util
    import sys

    from csrwh.reading import evaluate as E

    spec = importlib.util.spec_from_file_location(
        "test_evaluate_unit", Path(__file__).parents[1] / "unit" / "test_evaluate.py"
    )
    unit = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("test_evaluate_unit", unit)
    spec.loader.exec_module(unit)
    _, con = real_build
    for kind in ("search", "recommendation", "all"):
        judgments = E.qrels(con, "cosrec", kind)
        run = unit.make_run(judgments, order, seed=7)
        result = E.evaluate(run, judgments, ["nDCG@10", "P@5"], kind=kind)
        expected = unit.independent(run, judgments)
        for name, value in expected.items():
            assert abs(result.aggregate[name] - value) <= 1e-6, (
                kind,
                name,
                result.aggregate[name],
                value,
            )
        assert (
            result.n_topics_evaluated == result.n_topics_qrels == len({t for t, _, _ in judgments})
        )
    assert (
        E.evaluate(
            unit.make_run(E.qrels(con, "cosrec"), "perfect"), E.qrels(con, "cosrec"), ["nDCG@10"]
        ).aggregate["nDCG@10"]
        == 1.0
    )


def test_long_texts_are_stored_compressed(real_build) -> None:
    """No string column whose stored strings average well above the build's
    zstd_min_string_length (the turns' texts, the raw payloads) is stored uncompressed: ZSTD is
    among DuckDB's choices for them (it keeps dictionary compression where that is smaller),
    and the turns' texts take ZSTD."""
    from csrwh.config import ZSTD_MIN_STRING_LENGTH

    _, con = real_build
    columns = con.execute(
        "select schema_name, table_name, column_name from duckdb_columns() "
        "where data_type in ('VARCHAR', 'JSON') and schema_name <> 'seeds' "
        "and (schema_name, table_name) in (select schema_name, table_name from duckdb_tables())"
    ).fetchall()
    long_columns = {}
    for schema, table, column in columns:
        (average,) = con.execute(
            f'select avg(strlen("{column}")) from "{schema}"."{table}"'
        ).fetchone()
        if average is not None and average >= 2 * ZSTD_MIN_STRING_LENGTH:
            long_columns[f"{schema}.{table}.{column}"] = {
                kind
                for (kind,) in con.execute(
                    f'select distinct compression from pragma_storage_info(\'"{schema}"."{table}"\') '
                    "where column_name = ? and segment_type in ('VARCHAR', 'JSON')",
                    [column],
                ).fetchall()
            }
    assert long_columns["main.turns.text"] == {"ZSTD"}
    uncompressed = {name for name, kinds in long_columns.items() if "Uncompressed" in kinds}
    assert not uncompressed


def test_conformed_turns_that_rename_a_table_are_views(real_build, module_tmp_path: Path) -> None:
    """A turns_conformed model over a table is a view: the turns' texts are not stored again."""
    manifest = json.loads((module_tmp_path / "target" / "manifest.json").read_text())
    nodes = manifest["nodes"]
    checked = 0
    for node in nodes.values():
        if node["resource_type"] == "model" and node["name"].endswith("__turns_conformed"):
            (parent,) = node["depends_on"]["nodes"]
            if nodes[parent]["config"]["materialized"] in ("table", "incremental"):
                assert node["config"]["materialized"] == "view", node["name"]
                checked += 1
    assert checked >= 1
