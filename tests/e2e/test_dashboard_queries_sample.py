"""The dashboard's query layer on a real `csrwh build` of the sample corpora: every query runs
against the marts as dbt builds them (column names and types, not a hand-made copy), and
figures shown on different pages agree with the marts they summarise."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from csrwh.reading.dashboard import queries as q


@pytest.fixture(scope="module")
def db(sample_warehouse: Path):
    with q.Warehouse(sample_warehouse).open() as reader:
        yield reader


def test_every_query_runs_on_the_built_marts(db: q.Reader) -> None:
    options = q.filter_options(db)
    from ingest import registry

    assert set(options["corpus"]) == set(registry.names())  # the sample writes every corpus
    q.build_info(db)
    q.overview(db, q.Filters(corpus=("convsearch",), domain=(options["domain"].iloc[0],)))
    q.corpus_stats(db, q.Filters(language=("zh",)))
    for cid in (
        q.search_conversations(db, "", limit=500).groupby("corpus")["conversation_id"].first()
    ):
        assert q.conversation(db, cid) is not None
        assert len(q.conversation_turns(db, cid)) == q.conversation(db, cid)["n_turns"]
        q.conversation_intents(db, cid)
        q.conversation_ratings(db, cid)
        q.conversation_rating_means(db, cid)
        q.conversation_votes(db, cid)
    assert not q.search_conversations(db, "movie").empty
    for env in q.arena_environments(db):
        assert not q.leaderboard(db, env).empty
    corpora = q.intent_corpora(db)
    assert not q.intent_distribution(db, corpora[:1]).empty
    q.annotator_agreement(db)
    q.intent_consensus_summary(db)
    aspects = q.ratings_by_aspect(db)
    first = aspects.iloc[0]
    assert not q.rating_distribution(db, first["corpus"], first["aspect"]).empty
    q.quality_by_length(db, first["corpus"], first["aspect"])
    summary = q.search_summary(db)
    assert summary["n_queries"] > 0
    q.search_engines(db)
    turns = q.search_turns(db)
    trail = q.search_trail(db, turns.iloc[0]["conversation_id"], int(turns.iloc[0]["turn_index"]))
    assert not trail["queries"].empty
    assert q.has_dq_results(db)  # the build's gate writes it, with the documented columns
    runs = q.dq_runs(db)
    assert not runs.empty
    assert not q.dq_results(db, runs.iloc[0]["run_id"]).empty
    q.dq_suites(db, runs.iloc[0]["run_id"])
    rejected = q.rejected_records(db)  # the mart exists in every build (empty: no reject)
    assert rejected is not None


def test_overview_counts_agree_with_corpus_stats(db: q.Reader, sample_warehouse: Path) -> None:
    breakdown = q.overview(db)["breakdown"]
    per_subset = breakdown.groupby(["corpus", "subset"])[["n_conversations", "n_utterances"]].sum()
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        stats = con.execute(
            "select corpus, subset, n_conversations, n_turns from corpus_stats"
        ).fetchall()
    assert len(stats) == len(per_subset)
    for corpus, subset, n_conversations, n_turns in stats:
        assert per_subset.loc[(corpus, subset)].tolist() == [n_conversations, n_turns]
    assert q.overview(db)["totals"]["n_conversations"] == sum(s[2] for s in stats)


def test_head_to_head_agrees_with_the_leaderboard(db: q.Reader) -> None:
    for env in q.arena_environments(db):
        board = q.leaderboard(db, env).set_index("system_id")
        pairs = (
            q.head_to_head(db, env)
            .groupby("system_id")[["battles", "wins", "ties", "losses"]]
            .sum()
        )
        for system, row in pairs.iterrows():
            assert (
                row.tolist() == board.loc[system, ["battles", "wins", "ties", "losses"]].tolist()
            ), (env, system)
        assert set(board.index[board["battles"] > 0]) == set(pairs.index)


def test_ratings_totals_agree_with_the_aspect_table(db: q.Reader) -> None:
    totals = q.ratings_totals(db)
    aspects = q.ratings_by_aspect(db)
    assert aspects["n_ratings"].sum() == totals["n_ratings"]
    assert len(aspects[["corpus", "aspect"]].drop_duplicates()) == totals["n_aspects"]


def test_rejected_records_summary_counts_raw_rejected_records(
    db: q.Reader, sample_warehouse: Path
) -> None:
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        raw = con.execute(
            "select corpus, table_name, count(*) from raw.rejected_records group by all"
        ).fetchall()
    shown = q.rejected_records(db)
    assert sorted(raw) == sorted(
        (c, t, n)
        for c, t, n in shown[["corpus", "table_name", "n_rejected"]].itertuples(index=False)
    )


def test_data_health_counts_the_expectations_and_suites_validate_counts(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    """The page's "N expectations in M suites" of a build's run are what the build and
    ``csrwh validate`` print: GX outcomes only, the build's own checks (here the lineage rows
    the build recorded under the same run id) counted apart."""
    import shutil

    from csrwh.gate.run import gate, validate

    copy = tmp_path / "csr.duckdb"
    shutil.copy2(sample_warehouse, copy)
    with duckdb.connect(str(copy), read_only=True) as con:
        (build_id,) = con.execute("select build_id from build_info").fetchone()
        checks = con.execute(
            "select count(*) from dq_results where run_id = ? and suite in "
            "('volume', 'open_vocabulary', 'lineage_completeness')",
            [build_id],
        ).fetchone()[0]
    gate(copy, build_id)  # what `csrwh build` runs, recorded under the build's run id
    report = validate(copy, run_id="count", data_docs_dir=None, record=False)
    with q.Warehouse(copy).open() as db:
        run = q.dq_runs(db).set_index("run_id").loc[build_id]
    assert (run["n_expectations"], run["n_suites"]) == (len(report.outcomes), len(report.suites))
    assert checks > 0 and run["n_build_checks"] == checks
