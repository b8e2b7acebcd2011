"""The dashboard's query layer (csrwh.reading.dashboard.queries) on a small hand-made warehouse whose
every number is known, reading beside a publish (atomic rename), the launcher, and every page
script run headless (Streamlit AppTest, no browser) on the same warehouse."""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from csrwh.building.dbt_sources import by_source_ref
from csrwh.building.gate.run import _DQ_RESULTS_DDL
from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from csrwh.reading.dashboard import PAGES, PAGES_DIR, streamlit_command
from csrwh.reading.dashboard import queries as q

SCHEMA = """
create table main.conversations (conversation_id varchar, source_conversation_id varchar, user_id varchar,
    system_id varchar, corpus varchar, subset varchar, domain_or_task varchar, language varchar,
    user_sentiment varchar, n_turns integer, n_user_turns integer, n_system_turns integer,
    n_merged_turns integer, user_satisfaction double, started_at timestamp, ended_at timestamp);
create table main.turns (turn_id varchar, conversation_id varchar, corpus varchar, source_turn_id varchar,
    role varchar, text varchar, text_translation varchar, turn_index integer, merged_turn_index integer,
    n_chars bigint, n_words bigint, is_image boolean, created_at timestamp);
create table main.intents (conversation_id varchar, turn_index integer, annotator varchar,
    label_scheme varchar, raw_label varchar, is_primary boolean, standalone_query varchar,
    intent_id varchar, source varchar, corpus varchar, intent_family varchar);
create table main.intent_consensus (conversation_id varchar, corpus varchar, label_scheme varchar,
    majority_family varchar, turn_index integer, n_annotators bigint, n_agreeing bigint,
    agreement_share double, is_unanimous boolean);
create table main.ratings (conversation_id varchar, turn_index integer, item_id varchar,
    rater_kind varchar, rater_id varchar, aspect varchar, value double, corpus varchar,
    scale_min double, scale_max double, higher_is_better boolean, value_normalized double);
create table main.votes (vote_id varchar, environment varchar, voted_at timestamp, user_id varchar,
    system_a varchar, system_b varchar, winner varchar, feedback varchar, is_duplicate boolean,
    conversation_id_a varchar, conversation_id_b varchar, vote_order bigint);
create table main.crs_leaderboard (environment varchar, system_id varchar, battles bigint, wins bigint,
    ties bigint, losses bigint, win_rate double, elo double, elo_rank bigint, bt_strength double,
    bt_ci_low double, bt_ci_high double, n_conversations bigint, satisfaction_rate double);
create table main.corpus_stats (corpus varchar, subset varchar, n_conversations bigint, n_turns bigint,
    n_user_turns bigint, n_system_turns bigint, mean_turns_per_conversation double,
    mean_user_turns_per_conversation double, mean_merged_turns_per_conversation double,
    mean_words_per_user_turn double, mean_words_per_system_turn double,
    intent_annotated_share double, rated_share double, annotated_share double);
create table main.intent_distribution (corpus varchar, label_scheme varchar, intent_family varchar,
    raw_label varchar, n_labels bigint, n_turns bigint, share_of_labels double);
create table main.annotator_agreement (corpus varchar, subject varchar, measure varchar, value double,
    n_units bigint, n_raters_mean double, n_ratings bigint);
create table main.quality_by_length (corpus varchar, aspect varchar, n_user_turns integer,
    n_conversations bigint, n_ratings bigint, mean_value double, mean_value_normalized double);
create table main.search_queries (query_id varchar, conversation_id varchar, turn_index integer,
    query_text varchar, source_engine varchar, queried_at timestamp, n_words bigint, has_click boolean);
create table main.serp_views (serp_view_id varchar, query_id varchar, conversation_id varchar, url varchar,
    page_number integer, started_at timestamp, ended_at timestamp, dwell_ms bigint);
create table main.result_clicks (click_id varchar, serp_view_id varchar, query_id varchar,
    conversation_id varchar, rank integer, click_type varchar, url varchar);
create table main.landing_page_views (landing_page_view_id varchar, query_id varchar,
    conversation_id varchar, url varchar, started_at timestamp, ended_at timestamp, dwell_ms bigint,
    helpfulness double);
create table main.build_info (build_id varchar, built_at timestamp with time zone, data_dir varchar);
"""

DATA = """
insert into main.conversations values
 ('cosrec:A','A',null,null,'cosrec','crowd','product','en',null,4,2,2,4,null,null,null),
 ('cosrec:B','B',null,null,'cosrec','curated','product','en',null,2,1,1,2,null,null,null),
 ('crsarena:x1','x1','crsarena:u1','kbrd','crsarena','open','movies','en','satisfied',2,1,1,2,1.0,null,null),
 ('crsarena:x2','x2','crsarena:u1','unicrs','crsarena','open','movies','en','frustrated',2,1,1,2,0.0,null,null),
 ('convsearch:2','2',null,'agent:1','convsearch','main',null,'zh',null,3,2,1,2,0.75,null,null),
 ('convsearch:10','10',null,'agent:1','convsearch','main',null,'zh',null,1,1,0,1,null,null,null);
insert into main.turns (conversation_id, corpus, role, text, turn_index, n_words, is_image) values
 ('cosrec:A','cosrec','user','I want a 50% off discount_code thriller',0,7,false),
 ('cosrec:A','cosrec','system','Sure, which genre?',1,3,false),
 ('cosrec:A','cosrec','user','Thriller books please',2,3,false),
 ('cosrec:A','cosrec','system','Here is one',3,3,false),
 ('cosrec:B','cosrec','user','hello',0,1,false),
 ('cosrec:B','cosrec','system','hi',1,1,false),
 ('crsarena:x1','crsarena','user','recommend a movie',0,3,false),
 ('crsarena:x1','crsarena','system','Inception',1,1,false),
 ('crsarena:x2','crsarena','user','recommend a comedy',0,3,false),
 ('crsarena:x2','crsarena','system','The Mask',1,2,false),
 ('convsearch:2','convsearch','user','推荐一部电影',0,6,false),
 ('convsearch:2','convsearch','system','好的',1,2,false),
 ('convsearch:2','convsearch','user','谢谢',2,2,false),
 ('convsearch:10','convsearch','user','你好',0,2,false);
insert into main.intents values
 ('cosrec:A',0,'crowd_1','cosrec_intent','search',true,'50% off thrillers',null,'human','cosrec','request/search'),
 ('cosrec:A',0,'crowd_2','cosrec_intent','search',true,null,null,'human','cosrec','request/search'),
 ('cosrec:A',0,'crowd_3','cosrec_intent','recommendation',true,null,null,'human','cosrec','request/recommendation'),
 ('cosrec:A',2,'crowd_1','cosrec_intent','recommendation',true,null,null,'human','cosrec','request/recommendation'),
 ('convsearch:2',0,'assessor_1','convsearch_user_intent','reveal-initiate',true,null,null,'human','convsearch','request/search'),
 ('convsearch:2',0,'assessor_1','convsearch_user_intent','chitchat',false,null,null,'human','convsearch','chitchat');
insert into main.intent_consensus values
 ('cosrec:A','cosrec','cosrec_intent','request/search',0,3,2,2/3,false),
 ('cosrec:A','cosrec','cosrec_intent','request/recommendation',2,1,1,1.0,true),
 ('convsearch:2','convsearch','convsearch_user_intent','request/search',0,1,1,1.0,true);
insert into main.ratings values
 ('cosrec:A',null,null,'crowd','w1','fluency',4,'cosrec',1,5,true,0.75),
 ('cosrec:A',null,null,'crowd','w2','fluency',5,'cosrec',1,5,true,1.0),
 ('cosrec:B',null,null,'crowd','w1','fluency',2,'cosrec',1,5,true,0.25),
 ('crsarena:x1',null,null,'user','crsarena:u1','satisfied',1,'crsarena',0,1,true,1.0),
 ('crsarena:x2',null,null,'user','crsarena:u1','satisfied',0,'crsarena',0,1,true,0.0),
 ('convsearch:2',1,null,'agent','agent:1','clarity-turn',3,'convsearch',0,4,true,0.75),
 ('convsearch:2',null,null,'user','u9','effort_user',1,'convsearch',0,4,false,0.25);
insert into main.votes values
 ('crsarena:open:0','open','2024-09-01 10:00','crsarena:u1','kbrd','unicrs','a',null,false,'crsarena:x1','crsarena:x2',1),
 ('crsarena:open:1','open','2024-09-01 11:00','crsarena:u2','unicrs','kbrd','tie','meh',false,null,null,2),
 ('crsarena:open:2','open','2024-09-01 12:00','crsarena:u2','unicrs','kbrd','tie','meh',true,null,null,3),
 ('crsarena:closed:0','closed','2024-09-02 10:00','crsarena:u3','chatgpt','kbrd','a','good',false,null,null,1);
insert into main.crs_leaderboard values
 ('open','kbrd',3,1,2,0,1/3,1010,1,1050,1000,1100,1,1.0),
 ('open','unicrs',3,0,2,1,0.0,990,2,950,900,1000,1,0.0),
 ('open','chatgpt',0,0,0,0,null,null,null,null,null,null,0,null),
 ('closed','chatgpt',1,1,0,0,1.0,1008,1,1100,1000,1200,0,null),
 ('closed','kbrd',1,0,0,1,0.0,992,2,900,800,1000,0,null),
 ('closed','unicrs',0,0,0,0,null,null,null,null,null,null,0,null),
 ('global','kbrd',4,1,2,1,0.25,1001.5,2,1000,950,1050,1,1.0),
 ('global','chatgpt',1,1,0,0,1.0,1008,1,1100,1000,1200,0,null),
 ('global','unicrs',3,0,2,1,0.0,990.5,3,900,850,950,1,0.0);
insert into main.corpus_stats values
 ('cosrec','crowd',1,4,2,2,4,2,4,5,3,1,1,1),
 ('cosrec','curated',1,2,1,1,2,1,2,1,1,0,1,1),
 ('crsarena','open',2,4,2,2,2,1,2,3,1.5,0,1,1),
 ('convsearch','main',2,4,3,1,2,1.5,1.5,3.33,2,0.5,0.5,0.5);
insert into main.intent_distribution values
 ('cosrec','cosrec_intent','request/search','search',2,1,0.5),
 ('cosrec','cosrec_intent','request/recommendation','recommendation',2,2,0.5),
 ('convsearch','convsearch_user_intent','request/search','reveal-initiate',1,1,1.0);
insert into main.annotator_agreement values
 ('cosrec','intent:cosrec_intent','fleiss_kappa',0.4567,1,3,3),
 ('cosrec','quality:fluency','krippendorff_alpha',-0.125,1,2,2);
insert into main.quality_by_length values
 ('cosrec','fluency',1,1,1,2,0.25),
 ('cosrec','fluency',2,1,2,4.5,0.875);
insert into main.search_queries values
 ('convsearch:q1','convsearch:2',1,'电影 推荐','baidu','2021-10-22 00:00:01',4,true),
 ('convsearch:q2','convsearch:2',1,'电影 评分','bing','2021-10-22 00:00:05',4,false),
 ('convsearch:q3','convsearch:10',null,'天气','baidu','2021-10-22 00:01:00',2,false);
insert into main.serp_views values
 ('convsearch:s1','convsearch:q1','convsearch:2','https://baidu/s?wd=1',1,'2021-10-22 00:00:01','2021-10-22 00:00:03',2000),
 ('convsearch:s2','convsearch:q2','convsearch:2','https://bing/s?q=2',1,'2021-10-22 00:00:05','2021-10-22 00:00:06',1000),
 ('convsearch:s3','convsearch:q3','convsearch:10','https://baidu/s?wd=3',1,'2021-10-22 00:01:00','2021-10-22 00:01:01',500);
insert into main.result_clicks values
 ('convsearch:s1:1','convsearch:s1','convsearch:q1','convsearch:2',3,'content','https://baidu/link?1');
insert into main.landing_page_views values
 ('convsearch:l1','convsearch:q1','convsearch:2','https://movie.example/1','2021-10-22 00:00:02','2021-10-22 00:00:04',2000,4),
 ('convsearch:l2','convsearch:q1','convsearch:2','https://movie.example/2','2021-10-22 00:00:04','2021-10-22 00:00:05',1000,2);
insert into main.build_info values ('b-1', '2026-01-01 00:00:00+00', '/data/sample');
"""

DQ = """
create table main.dq_results (run_id varchar, validated_at timestamp, suite varchar, table_name varchar,
    expectation varchar, expectation_type varchar, severity varchar, success boolean,
    observed_value json, offending_rows json, error varchar, why varchar);
insert into main.dq_results values
 ('r1','2026-01-01 10:00','conversations','main.conversations','unique_id','t','critical',true,'0',null,null,''),
 ('r1','2026-01-01 10:00','ratings','main.ratings','in_range','t','critical',false,'3',null,null,''),
 ('r2','2026-01-02 10:00','conversations','main.conversations','unique_id','t','critical',true,'0',null,null,''),
 ('r2','2026-01-02 10:00','ratings','main.ratings','in_range','t','critical',true,'0',null,null,''),
 ('r2','2026-01-02 10:00','votes','main.votes','feedback_present','t','warning',false,'0.4',null,null,'');
"""


MARTS = PROJECT_ROOT / "models" / "marts"
# marts the dashboard reads that summarise other marts: built here from their own model SQL
# over the hand-made tables above, so every figure below is still derived from those rows
SUMMARY_MARTS = ("reports/intent_consensus_summary.sql", "reports/rating_summary.sql")
REJECTED = """
create schema raw;
create table raw.rejected_records (corpus varchar, table_name varchar, source_path varchar,
    error varchar, rejected_at timestamp);
insert into raw.rejected_records values
 ('cosrec','cosrec__quality','quality.jsonl','line 3: bad json','2026-01-01 09:00'),
 ('cosrec','cosrec__quality','quality.jsonl','line 1: bad json','2026-01-01 09:01'),
 ('cosrec','cosrec__quality','curated/quality.jsonl','line 9: wrong top-level shape','2026-01-01 09:02'),
 ('crsarena','crsarena__votes','votes.csv','row 2: no winner','2026-01-01 09:03');
"""


def mart_sql(model: str) -> str:
    """A mart's model SQL with its Jinja resolved for this hand-made warehouse: comments
    dropped, ``ref('x')`` -> ``main.x``, ``source('s', 'x')`` -> ``raw.<its raw table>``."""
    sql = re.sub(r"\{#.*?#\}", "", (MARTS / model).read_text(encoding="utf-8"), flags=re.DOTALL)
    sql = re.sub(r"\{\{\s*ref\('(\w+)'\)\s*\}\}", r"main.\1", sql)
    raw_table = by_source_ref()
    sql = re.sub(
        r"\{\{\s*source\('(\w+)',\s*'(\w+)'\)\s*\}\}",
        lambda m: f"raw.{raw_table[m.group(1), m.group(2)]}",
        sql,
    )
    assert "{{" not in sql and "{%" not in sql, f"{model}: unresolved Jinja"
    return sql


def make_warehouse(
    path: Path, dq: bool = False, rejected: bool = False, empty_search: bool = False
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(path)) as con:
        con.execute(SCHEMA)
        con.execute(DATA)
        for model in SUMMARY_MARTS:
            con.execute(f"create table main.{Path(model).stem} as {mart_sql(model)}")
        if dq:
            con.execute(DQ)
        if rejected:
            con.execute(REJECTED)
            model = "ops/rejected_records_summary.sql"
            con.execute(f"create table main.rejected_records_summary as {mart_sql(model)}")
        if empty_search:
            for table in ("search_queries", "serp_views", "result_clicks", "landing_page_views"):
                con.execute(f"delete from main.{table}")
    return path


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
    """The columns the page reads are exactly those csrwh/building/gate/run.py creates."""
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


# ---------------------------------------------------------------------------------------------
# launcher and pages
# ---------------------------------------------------------------------------------------------


def test_streamlit_command_is_local_headless_and_without_telemetry() -> None:
    cmd = streamlit_command(port=9999)
    args = dict(zip(cmd[5::2], cmd[6::2]))
    assert cmd[1:4] == ["-m", "streamlit", "run"]
    assert args["--server.address"] == "127.0.0.1" and args["--server.port"] == "9999"
    assert args["--server.headless"] == "true"
    assert args["--browser.gatherUsageStats"] == "false"
    assert (
        dict(
            zip(
                streamlit_command(open_browser=True)[5::2],
                streamlit_command(open_browser=True)[6::2],
            )
        )["--server.headless"]
        == "false"
    )


def test_serve_refuses_a_missing_warehouse(tmp_path: Path) -> None:
    from csrwh.reading.dashboard import serve

    with pytest.raises(CsrwhError, match="does not exist"):
        serve(tmp_path / "absent.duckdb")


def test_pages_exist_and_are_not_in_a_streamlit_pages_folder() -> None:
    assert PAGES_DIR.name != "pages"  # Streamlit would auto-discover pages/ and bypass the app
    for spec in PAGES:
        assert spec.path.is_file(), spec
    assert len({p.url_path for p in PAGES}) == len(PAGES)


def _run_page(file: str, warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("CSRWH_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(str(PAGES_DIR / file), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("dq", [False, True])
def test_every_page_renders_on_the_small_warehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dq: bool
) -> None:
    path = make_warehouse(tmp_path / "pages.duckdb", dq=dq, rejected=dq)
    for spec in PAGES:
        _run_page(spec.file, path, monkeypatch)
    overview = _run_page("overview.py", path, monkeypatch)
    assert _metrics(overview)["Conversations"] == "6"
    overview.multiselect(key="overview_corpus").set_value(["crsarena"]).run()
    assert _metrics(overview)["Conversations"] == "2"
    arena = _run_page("arena.py", path, monkeypatch)
    assert _metrics(arena)["Leader (Elo)"] == "chatgpt"
    health = _run_page("health.py", path, monkeypatch)
    markdown = " ".join(str(e.value) for e in [*health.info, *health.success])
    if dq:
        assert _metrics(health)["Expectations"] == "3"
    else:
        assert "No data-quality results in this warehouse" in markdown


def test_pages_say_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_warehouse(tmp_path / "nosearch.duckdb", empty_search=True)
    search = _run_page("search.py", path, monkeypatch)
    assert any("No ConvSearch search behaviour" in str(i.value) for i in search.info)
    missing = tmp_path / "absent.duckdb"
    page = _run_page("overview.py", missing, monkeypatch)
    assert any("does not exist" in str(e.value) for e in page.error)


def test_conversation_page_searches_and_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_warehouse(tmp_path / "browse.duckdb")
    at = _run_page("conversations.py", path, monkeypatch)
    assert at.selectbox(key="browse_open").value == "convsearch:10"
    at.text_input(key="browse_text").input("thriller").run()
    assert at.selectbox(key="browse_open").value == "cosrec:A"
    assert _metrics(at)["Utterances"] == "4"
    assert len(at.chat_message) == 4
    # the Markdown source, its backslash escapes (corpus text is escaped) resolved as rendered
    text = re.sub(r"\\(.)", r"\1", " ".join(str(m.value) for m in at.markdown))
    assert "crowd_1: search" in text and "request/search" in text


def test_conversation_deep_link_opens_and_search_replaces_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("CSRWH_WAREHOUSE", str(make_warehouse(tmp_path / "link.duckdb")))
    at = AppTest.from_file(str(PAGES_DIR / "conversations.py"), default_timeout=60)
    at.query_params["conversation"] = "crsarena:x2"
    at.run()
    assert not at.exception
    assert at.selectbox(key="browse_open").value == "crsarena:x2"
    assert _metrics(at)["Utterances"] == "2"
    at.text_input(key="browse_text").input("thriller").run()
    assert at.selectbox(key="browse_open").value == "cosrec:A"
    assert "conversation" not in at.query_params


def test_query_layer_does_not_import_streamlit() -> None:
    import subprocess
    import sys

    code = "import sys, csrwh.reading.dashboard, csrwh.reading.dashboard.queries; print('streamlit' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


def test_reading_never_modifies_the_published_file(wh: q.Warehouse) -> None:
    """Opening the published file never modifies it (no WAL, same bytes)."""
    before = wh.path.read_bytes()
    with wh.open() as db:
        q.overview(db)
        q.search_conversations(db, "thriller")
    assert wh.path.read_bytes() == before
    assert not Path(str(wh.path) + ".wal").exists()


def test_dashboard_reads_marts_only() -> None:
    """No query of the dashboard names a raw table (docs/ARCHITECTURE.md: consumers read marts;
    main.dq_results and build_info are the build's bookkeeping tables)."""
    package = PROJECT_ROOT / "csrwh" / "dashboard"
    for path in sorted(package.rglob("*.py")):
        code = path.read_text(encoding="utf-8")
        assert not re.search(r"\braw\.\w+", code), f"{path}: reads a raw table"


@pytest.mark.parametrize(
    "text",
    [
        "# Big heading\n\n![t](http://127.0.0.1:9/leak.png) **bold** <img src=x> $x^2$",
        "[click](javascript:alert(1)) | a | b |\n|---|---|\n- item\n1. one\n> quote\n`code`",
    ],
)
def test_escaped_corpus_text_renders_as_itself(text: str) -> None:
    """ui.escape_md: a CommonMark renderer makes no image, link, heading, list, table, emphasis,
    code or HTML of corpus text, and shows every character of it."""
    from html import unescape

    from markdown_it import MarkdownIt

    from csrwh.reading.dashboard import ui

    rendered = MarkdownIt("commonmark").enable("table").render(ui.escape_md(text))
    for tag in (
        "<img",
        "<a ",
        "<h1",
        "<strong",
        "<em",
        "<ul",
        "<ol",
        "<table",
        "<code",
        "<blockquote",
    ):
        assert tag not in rendered, (tag, rendered)
    plain = unescape(re.sub(r"<[^>]+>", "", rendered))
    assert re.sub(r"\s+", " ", plain).strip() == re.sub(r"\s+", " ", text).strip()


def test_corpus_urls_make_one_link_and_no_image() -> None:
    from markdown_it import MarkdownIt

    from csrwh.reading.dashboard import ui

    url = "http://example.org/a b) ![t](http://127.0.0.1:9/leak.png"
    rendered = MarkdownIt("commonmark").enable("table").render(ui.md_link("label ![x](y)", url))
    assert "<img" not in rendered and rendered.count("<a ") == 1, rendered
    assert 'href="http://example.org/a%20b%29%20!%5Bt%5D%28http://127.0.0.1:9/leak.png"' in rendered
    assert ui.md_link("x", "javascript:alert(1)") == "x"
