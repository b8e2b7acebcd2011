"""The small hand-made warehouse the dashboard tests read: every number in it is known (the
summary marts are built from their own model SQL over these rows)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from csrwh.config import PROJECT_ROOT
from csrwh.dbt_support.dbt_sources import by_source_ref

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
 ('r2','2026-01-02 10:00','votes','main.votes','feedback_present','t','warning',false,'0.4',null,null,''),
 ('r2','2026-01-02 10:00','lineage_completeness','raw.x','$.a','lineage','warning',false,'1',null,null,''),
 ('r2','2026-01-02 10:00','open_vocabulary','main.turns','role','open_vocabulary','warning',true,'0',null,null,'');
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
