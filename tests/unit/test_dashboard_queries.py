"""The dashboard's query layer (csrwh.reading.dashboard.queries) on a small hand-made warehouse whose
every number is known (tests/unit/dashboard_warehouse.py), and reading beside a publish (atomic
rename)."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from dashboard_warehouse import make_warehouse

from csrwh.errors import CsrwhError
from csrwh.gate.results import _DQ_RESULTS_DDL
from csrwh.reading.dashboard import queries as q


@pytest.fixture()
def wh(tmp_path: Path) -> q.Warehouse:
    return q.Warehouse(make_warehouse(tmp_path / "wh.duckdb"))


@pytest.fixture()
def db(wh: q.Warehouse):
    with wh.open() as reader:
        yield reader


# ---------------------------------------------------------------------------------------------
# connection handling
# ---------------------------------------------------------------------------------------------


def test_missing_warehouse_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CsrwhError) as info, q.Warehouse(tmp_path / "absent.duckdb").open():
        pass
    assert "does not exist" in info.value.message and "make demo" in (info.value.hint or "")


def test_not_a_duckdb_file_is_one_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.duckdb"
    bogus.write_text("not a database")
    with pytest.raises(CsrwhError, match="cannot open"), q.Warehouse(bogus).open():
        pass


def test_reader_is_read_only(db: q.Reader) -> None:
    with pytest.raises(duckdb.Error):
        db.df("write", "create table main.x as select 1")


def test_reader_sees_a_newly_published_file_while_an_old_reader_is_open(tmp_path: Path) -> None:
    """The build renames a new file over the published one. A reader opened afterwards must read
    the new file even while a reader of the old one is still open (plain duckdb.connect would
    hand back the cached old instance) and the old reader keeps its consistent snapshot."""
    published = make_warehouse(tmp_path / "pub" / "csr.duckdb")
    staged = make_warehouse(tmp_path / "pub" / "csr.duckdb.building")
    with duckdb.connect(str(staged)) as con:
        con.execute("delete from main.conversations where corpus = 'cosrec'")
        con.execute("update main.build_info set build_id = 'b-2'")
    wh = q.Warehouse(published)
    before = wh.stamp()
    with wh.open() as old:
        assert q.overview(old)["totals"]["n_conversations"] == 6
        os.replace(staged, published)  # what csrwh build does to publish
        assert wh.stamp() != before
        with wh.open() as new:
            assert q.overview(new)["totals"]["n_conversations"] == 4
            assert q.build_info(new)["build_id"] == "b-2"
        assert q.overview(old)["totals"]["n_conversations"] == 6
    # a writer can open the published file as soon as the readers are closed
    with duckdb.connect(str(published)) as con:
        con.execute("create table main.after as select 1")


def test_listener_sees_open_and_every_query(wh: q.Warehouse) -> None:
    seen: list[str] = []

    def listener(timing: q.QueryTiming) -> None:
        assert timing.wall_ms >= 0 and timing.cpu_ms >= 0
        seen.append(timing.name)

    q.add_listener(listener)
    try:
        with wh.open() as db:
            q.overview(db)
            q.leaderboard(db)
    finally:
        q.remove_listener(listener)
    assert seen == [q.CONNECT, "overview", "leaderboard"]  # no hidden catalog queries here


# ---------------------------------------------------------------------------------------------
# overview
# ---------------------------------------------------------------------------------------------


def test_filters_where_clause_and_none_label() -> None:
    assert q.Filters().where() == ("true", [])
    where, params = q.Filters(corpus=("a", "b"), domain=(q.NONE_LABEL,)).where("c")
    assert "coalesce(c.corpus, '(none)') in (?, ?)" in where
    assert "coalesce(c.domain_or_task, '(none)') in (?)" in where
    assert params == ["a", "b", q.NONE_LABEL]


def test_filter_options_list_every_combination(db: q.Reader) -> None:
    options = q.filter_options(db)
    assert set(options["corpus"]) == {"cosrec", "crsarena", "convsearch"}
    assert q.NONE_LABEL in set(options["domain"])
    assert options["n_conversations"].sum() == 6


def test_overview_totals_equal_the_marts_and_the_breakdown(db: q.Reader) -> None:
    data = q.overview(db)
    assert data["totals"] == {
        "n_conversations": 6, "n_utterances": 14, "n_user_utterances": 8,
        "n_system_utterances": 6, "n_corpora": 3,
    }  # fmt: skip
    breakdown = data["breakdown"]
    assert breakdown["n_conversations"].sum() == 6
    assert breakdown["n_utterances"].sum() == 14
    assert not breakdown[["corpus", "subset", "language", "domain"]].isna().any().any()


@pytest.mark.parametrize(
    ("filters", "n_conversations", "n_utterances"),
    [
        (q.Filters(corpus=("crsarena",)), 2, 4),
        (q.Filters(corpus=("cosrec",), subset=("curated",)), 1, 2),
        (q.Filters(language=("zh",)), 2, 4),
        (q.Filters(domain=(q.NONE_LABEL,)), 2, 4),
        (q.Filters(domain=("product", "movies")), 4, 10),
        (q.Filters(corpus=("crsarena",), language=("zh",)), 0, 0),
    ],
)
def test_overview_filters(
    db: q.Reader, filters: q.Filters, n_conversations: int, n_utterances: int
) -> None:
    totals = q.overview(db, filters)["totals"]
    assert totals["n_conversations"] == n_conversations
    assert totals["n_utterances"] == n_utterances


def test_corpus_stats_keeps_the_subsets_the_filters_select(db: q.Reader) -> None:
    assert q.corpus_stats(db)[["corpus", "subset"]].values.tolist() == [
        ["convsearch", "main"], ["cosrec", "crowd"], ["cosrec", "curated"], ["crsarena", "open"],
    ]  # fmt: skip
    zh = q.corpus_stats(db, q.Filters(language=("zh",)))
    assert zh[["corpus", "subset"]].values.tolist() == [["convsearch", "main"]]
    assert "n_conversations" not in zh.columns  # counts come from overview only


# ---------------------------------------------------------------------------------------------
# conversation browser
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("thriller", {"cosrec:A": 2}),  # case-insensitive, two utterances
        ("50%", {"cosrec:A": 1}),  # % is literal
        ("_code", {"cosrec:A": 1}),  # _ is literal
        ("%", {"cosrec:A": 1}),
        (".", {}),  # regex characters are literal too
        ("genre?", {"cosrec:A": 1}),
        ("(", {}),
        ("THRILLER BOOKS", {"cosrec:A": 1}),
        ("推荐", {"convsearch:2": 1}),
        ("recommend", {"crsarena:x1": 1, "crsarena:x2": 1}),
        ("x2", {"crsarena:x2": 0}),  # id match without a text hit
        ("  movie ", {"crsarena:x1": 1}),
        ("no such words", {}),
    ],
)
def test_search_conversations(db: q.Reader, text: str, expected: dict[str, int]) -> None:
    found = q.search_conversations(db, text)
    assert dict(zip(found["conversation_id"], found["n_hits"])) == expected
    if expected:
        assert set(found["n_matches"]) == {len(expected)}


def test_search_snippet_filters_and_limit(db: q.Reader) -> None:
    hit = q.search_conversations(db, "thriller").iloc[0]
    assert hit["snippet"] == "I want a 50% off discount_code thriller"
    assert q.search_conversations(db, "recommend", q.Filters(corpus=("cosrec",))).empty
    everything = q.search_conversations(db, "", limit=2)
    assert len(everything) == 2 and set(everything["n_matches"]) == {6}
    assert everything["conversation_id"].tolist() == [
        "convsearch:10",
        "convsearch:2",
    ]  # corpus, subset, id
    assert everything["snippet"].tolist() == ["你好", "推荐一部电影"]  # first utterance


def test_conversation_detail_turns_intents_ratings(db: q.Reader) -> None:
    assert q.conversation(db, "nope") is None
    header = q.conversation(db, "cosrec:A")
    assert header["n_turns"] == 4 and header["subset"] == "crowd"
    turns = q.conversation_turns(db, "cosrec:A")
    assert turns["turn_index"].tolist() == [0, 1, 2, 3]
    assert turns["role"].tolist() == ["user", "system", "user", "system"]
    intents = q.conversation_intents(db, "cosrec:A")
    first = intents[intents["turn_index"] == 0]
    assert first["annotator"].tolist() == ["crowd_1", "crowd_2", "crowd_3"]
    assert set(first["majority_family"]) == {"request/search"}
    assert set(first["n_agreeing"]) == {2} and set(first["n_annotators"]) == {3}
    secondary = q.conversation_intents(db, "convsearch:2")
    assert secondary["is_primary"].tolist() == [True, False]  # primary first
    ratings = q.conversation_ratings(db, "convsearch:2")
    assert ratings["turn_index"].isna().tolist() == [True, False]  # conversation level first
    means = q.conversation_rating_means(db, "cosrec:A")
    assert means[["aspect", "n_ratings", "mean_value"]].values.tolist() == [["fluency", 2, 4.5]]
    assert q.conversation_rating_means(db, "convsearch:2")["aspect"].tolist() == ["effort_user"]


def test_conversation_votes_from_the_conversation_side(db: q.Reader) -> None:
    x1 = q.conversation_votes(db, "crsarena:x1")
    assert x1[["system_id", "opponent", "result"]].values.tolist() == [["kbrd", "unicrs", "win"]]
    x2 = q.conversation_votes(db, "crsarena:x2")
    assert x2[["system_id", "opponent", "result"]].values.tolist() == [["unicrs", "kbrd", "loss"]]
    assert q.conversation_votes(db, "cosrec:A").empty


# ---------------------------------------------------------------------------------------------
# arena
# ---------------------------------------------------------------------------------------------


def test_arena_environments_in_display_order(db: q.Reader) -> None:
    assert q.arena_environments(db) == ["global", "open", "closed"]


def test_leaderboard_order_and_columns(db: q.Reader) -> None:
    board = q.leaderboard(db, "open")
    assert board["system_id"].tolist() == ["kbrd", "unicrs", "chatgpt"]  # no battles last
    assert set(board["n_systems_with_battles"]) == {2}
    assert {"bt_ci_low", "bt_ci_high", "elo", "elo_rank", "win_rate"} <= set(board.columns)


@pytest.mark.parametrize("environment", ["open", "closed", "global"])
def test_head_to_head_adds_up_to_the_leaderboard(db: q.Reader, environment: str) -> None:
    pairs = q.head_to_head(db, environment)
    board = q.leaderboard(db, environment).set_index("system_id")
    per_system = pairs.groupby("system_id")[["battles", "wins", "ties", "losses"]].sum()
    for system, row in per_system.iterrows():
        for column in ("battles", "wins", "ties", "losses"):
            assert row[column] == board.loc[system, column], (environment, system, column)
    mirrored = pairs.set_index(["system_id", "opponent"])
    for (system, opponent), row in mirrored.iterrows():
        other = mirrored.loc[(opponent, system)]
        assert (row["wins"], row["ties"], row["battles"]) == (
            other["losses"],
            other["ties"],
            other["battles"],
        )


def test_head_to_head_counts_duplicates_and_ties(db: q.Reader) -> None:
    pairs = q.head_to_head(db, "open").set_index(["system_id", "opponent"])
    kbrd = pairs.loc[("kbrd", "unicrs")]
    assert (kbrd["battles"], kbrd["wins"], kbrd["ties"], kbrd["losses"]) == (3, 1, 2, 0)
    assert kbrd["win_rate"] == pytest.approx(1 / 3)


# ---------------------------------------------------------------------------------------------
# intents, ratings
# ---------------------------------------------------------------------------------------------


def test_intents_page_queries(db: q.Reader) -> None:
    assert q.intent_corpora(db) == ["convsearch", "cosrec"]
    assert len(q.intent_distribution(db)) == 3
    assert q.intent_distribution(db, ["cosrec"])["raw_label"].tolist() == [
        "recommendation",
        "search",
    ]
    agreement = q.annotator_agreement(db, ["cosrec"])
    assert agreement["value"].tolist() == [pytest.approx(0.4567), pytest.approx(-0.125)]
    consensus = q.intent_consensus_summary(db).set_index(["corpus", "label_scheme"])
    cosrec = consensus.loc[("cosrec", "cosrec_intent")]
    assert (cosrec["n_turns"], cosrec["n_turns_multi"]) == (2, 1)
    assert cosrec["mean_annotators"] == pytest.approx((3 + 1) / 2)
    assert cosrec["unanimous_share"] == 0.0
    assert cosrec["mean_agreement_share"] == pytest.approx(2 / 3)
    assert pd.isna(consensus.loc[("convsearch", "convsearch_user_intent"), "unanimous_share"])


def test_ratings_page_queries(db: q.Reader) -> None:
    assert q.rating_corpora(db) == ["convsearch", "cosrec", "crsarena"]
    assert q.ratings_totals(db) == {"n_ratings": 7, "n_conversations": 5, "n_aspects": 4}
    assert q.ratings_totals(db, ["cosrec"]) == {
        "n_ratings": 3,
        "n_conversations": 2,
        "n_aspects": 1,
    }
    aspects = q.ratings_by_aspect(db).set_index(["corpus", "aspect"])
    fluency = aspects.loc[("cosrec", "fluency")]
    assert (fluency["n_ratings"], fluency["n_conversations"], fluency["level"]) == (
        3,
        2,
        "conversation",
    )
    assert fluency["mean_value"] == pytest.approx(11 / 3)
    assert fluency["mean_normalized"] == pytest.approx(2 / 3)
    assert aspects.loc[("convsearch", "clarity-turn"), "level"] == "turn"
    assert aspects["n_ratings"].sum() == q.ratings_totals(db)["n_ratings"]
    dist = q.rating_distribution(db, "cosrec", "fluency")
    assert dist[["value", "n_ratings"]].values.tolist() == [[2.0, 1], [4.0, 1], [5.0, 1]]
    assert q.quality_by_length(db, "cosrec", "fluency")["n_user_turns"].tolist() == [1, 2]


# ---------------------------------------------------------------------------------------------
# search behaviour
# ---------------------------------------------------------------------------------------------


def test_search_summary_and_engines(db: q.Reader) -> None:
    summary = q.search_summary(db)
    assert summary == {
        "n_queries": 3, "n_conversations": 2, "n_serp_views": 3, "n_clicks": 1,
        "n_landing_pages": 2, "click_share": pytest.approx(1 / 3), "mean_helpfulness": 3.0,
    }  # fmt: skip
    engines = q.search_engines(db)
    assert engines[["source_engine", "n_queries"]].values.tolist() == [["baidu", 2], ["bing", 1]]


def test_search_summary_without_convsearch(tmp_path: Path) -> None:
    with q.Warehouse(make_warehouse(tmp_path / "e.duckdb", empty_search=True)).open() as db:
        summary = q.search_summary(db)
        assert summary["n_queries"] == 0 and summary["click_share"] is None
        assert q.search_turns(db).empty


def test_search_turns_in_numeric_order_and_trail(db: q.Reader) -> None:
    turns = q.search_turns(db)
    assert turns["conversation_id"].tolist() == ["convsearch:2", "convsearch:10"]  # 2 before 10
    assert turns["n_queries"].tolist() == [2, 1]
    assert turns["turn_text"].iloc[0] == "好的"
    trail = q.search_trail(db, "convsearch:2", 1)
    assert trail["queries"]["query_id"].tolist() == ["convsearch:q1", "convsearch:q2"]
    assert trail["serp_views"]["serp_view_id"].tolist() == ["convsearch:s1", "convsearch:s2"]
    assert trail["clicks"]["rank"].tolist() == [3]
    assert trail["landing_pages"]["helpfulness"].tolist() == [4.0, 2.0]
    assert trail["turn"]["text"].tolist() == ["好的"]
    unknown_turn = q.search_trail(db, "convsearch:10", None)
    assert unknown_turn["queries"]["query_id"].tolist() == ["convsearch:q3"]
    assert unknown_turn["serp_views"]["serp_view_id"].tolist() == ["convsearch:s3"]
    assert unknown_turn["turn"].empty


# ---------------------------------------------------------------------------------------------
# data health
# ---------------------------------------------------------------------------------------------


def test_no_dq_results_table(db: q.Reader) -> None:
    assert q.has_dq_results(db) is False
    assert q.rejected_records(db) is None  # a warehouse built before the mart existed


def test_dq_columns_are_the_writers(tmp_path: Path) -> None:
    """The columns the page reads are exactly those csrwh/gate/results.py creates."""
    with duckdb.connect(str(tmp_path / "ddl.duckdb")) as con:
        con.execute(_DQ_RESULTS_DDL)
        written = [r[0] for r in con.execute("describe main.dq_results").fetchall()]
    assert tuple(written) == q.DQ_COLUMNS


def test_dq_results_runs_newest_first_and_failures_first(tmp_path: Path) -> None:
    with q.Warehouse(make_warehouse(tmp_path / "dq.duckdb", dq=True, rejected=True)).open() as db:
        assert q.has_dq_results(db)
        runs = q.dq_runs(db)
        assert runs["run_id"].tolist() == ["r2", "r1"]
        r2 = runs.iloc[0]
        assert (
            r2["n_expectations"],
            r2["n_passed"],
            r2["n_critical_failed"],
            r2["n_other_failed"],
        ) == (3, 2, 0, 1)
        # the build's own checks are not expectations: counted apart, as the build counts them
        assert (r2["n_suites"], r2["n_build_checks"], r2["n_build_checks_failed"]) == (3, 2, 1)
        r1 = runs.iloc[1]
        assert (r1["n_critical_failed"], r1["n_suites"]) == (1, 2)
        results = q.dq_results(db, "r1")
        assert results["expectation"].tolist() == ["in_range", "unique_id"]
        assert results["observed_value"].tolist() == ["3", "0"]
        assert results["table_name"].tolist() == ["main.ratings", "main.conversations"]
        suites = q.dq_suites(db, "r2")
        assert suites.iloc[0]["suite"] == "votes" and suites.iloc[0]["n_failed"] == 1


def test_rejected_records_come_from_the_mart(tmp_path: Path) -> None:
    """Counted from the four rows of REJECTED: cosrec 3 rows in 2 files, crsarena 1 in 1."""
    with q.Warehouse(make_warehouse(tmp_path / "rej.duckdb", rejected=True)).open() as db:
        rejected = q.rejected_records(db)
    assert rejected[["corpus", "table_name", "n_rejected", "n_files"]].values.tolist() == [
        ["cosrec", "cosrec__quality", 3, 2],
        ["crsarena", "crsarena__votes", 1, 1],
    ]
    assert rejected["example_error"].tolist() == ["line 1: bad json", "row 2: no winner"]
    assert str(rejected["first_rejected_at"].iloc[0]) == "2026-01-01 09:00:00"
    assert str(rejected["last_rejected_at"].iloc[0]) == "2026-01-01 09:02:00"


def test_dq_results_without_a_documented_column_is_a_clear_error(tmp_path: Path) -> None:
    path = make_warehouse(tmp_path / "dq_min.duckdb")
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create table main.dq_results as select 'r' as run_id, 's' as suite, 'e' as expectation, "
            "'critical' as severity, false as success"
        )
    with q.Warehouse(path).open() as db, pytest.raises(CsrwhError) as err:
        q.has_dq_results(db)
    assert "lacks the documented column(s) validated_at, table_name" in err.value.message
    assert str(path) in err.value.message
