"""Expectation suites end to end on a tiny hand-made warehouse (raw tables + seeds + marts).

The warehouse below is consistent across all 34 suites: a clean copy passes every expectation
(criticals and warnings), and each deliberately corrupted copy (made by SQL on a copy of the
file) fails on the expectation meant to catch it: duplicate keys, out-of-range ratings,
unknown labels, orphan turns, truncated conversations, and one corruption per suite.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.validate import DQ_RESULTS, gate, raw_gate, validate
from csrwh.validation import load_suites
from ingest.registry import raw_tables

# --- the tiny warehouse ----------------------------------------------------------------------

RAW_COLUMNS = (
    "batch_id varchar, corpus varchar, source_path varchar, record_index bigint, "
    "line_number bigint, record_key varchar, payload json, source_text varchar, "
    "file_sha256 varchar, ingested_at timestamp"
)
RAW_TABLES = raw_tables()  # the ingest registry: every raw table
ASPECTS = ["fluency", "coherence", "logicality", "informativeness"]
QUALITY_SCORES = [[5, 4, 4, 3], [4, 4, 5, 3], [3, 5, 4, 4], [4, 3, 4, 5]]  # 4 annotators x ASPECTS
RECLLMSIM_ASPECTS = [
    "Preference Alignment",
    "Additional Preferences",
    "Role-Playing Completeness",
    "Memorization",
    "Detail Level",
    "Practical Usefulness",
    "Diversity",
]


def _raw_records() -> dict[str, list[tuple[str, str, str, object, str | None]]]:
    """table -> [(corpus, source_path, record_key, payload, source_text)]."""
    crowd, curated = "dataset/crowd/", "dataset/curated/"
    conversations = {
        "CoSRec-Crowd_1": "U: I need a mystery novel.\nS: Do you like London settings?\n"
        "U: Yes, London please.\nS: Try The London Ripper.",
        "CoSRec-Curated_1": "U: Show me headlights for a G35.\nS: Here are three assemblies.",
    }
    quality = [dict(zip(ASPECTS, scores)) for scores in QUALITY_SCORES]
    vote = {
        "session_id": "2024-09-08 23:01:08",
        "user_id": "u1",
        "crs1": "kbrd_redial",
        "crs2": "chatgpt_redial",
        "vote": "chatgpt_redial",
        "feedback": "CRS 2 knew war movies.",
    }

    def dialogue(agent: str, sentiment: str, user_text: str, agent_text: str) -> dict:
        cid = f"{agent}_u1"
        return {
            "conversation ID": cid,
            "agent": {"id": agent, "type": "AGENT"},
            "user": {"id": "u1", "type": "USER"},
            "metadata": {"sentiment": sentiment},
            "conversation": [
                {"participant": "USER", "utterance": user_text, "utterance ID": f"{cid}_0"},
                {"participant": "AGENT", "utterance": agent_text, "utterance ID": f"{cid}_1"},
            ],
        }

    dialog = {
        "id": 1,
        "user": 7,
        "agent": 8,
        "start_time": 1637848232.193,
        "end_time": 1637849330.969,
        "topic_user": "food",
        "intent_user": "找汉堡",
        "satisfaction_user": 4,
        "effort_user": 1,
        "preference_user": 3,
        "applicability_user": 3,
        "improvement_user": "",
        "understand_agent": 4,
        "satisfaction_agent": 4,
        "difficulty_agent": 1,
        "keywords": "美食",
        "turns": [
            {
                "id": 11,
                "content": "哪家汉堡好吃？",
                "initiator": "user",
                "time": 1637848232.193,
                "is_image": False,
                "image_name": "",
                "clarity-turn": 3,
                "difficulty-turn": 2,
                "intent-primary-class": ["reveal-initiate"] * 3,
                "intent-secondary-class": [""] * 3,
            },
            {
                "id": 12,
                "content": "推荐肯德基的香辣鸡腿堡。",
                "initiator": "agent",
                "time": 1637848282.757,
                "is_image": False,
                "image_name": "",
                "satisfaction-turn": 4,
                "understand-turn": 4,
                "action-primary-class": ["answer-opinion"] * 3,
                "action-secondary-class": [""] * 3,
            },
        ],
    }
    behaviour = {
        "id": 21,
        "query_string": "汉堡 推荐",
        "source": "baidu",
        "time": 1637848240.0,
        "belong_dialog": 1,
        "belong_turn": 12,
        "serp_pagelogs": [
            {
                "id": 31,
                "url": "https://www.baidu.com/s?wd=x",
                "html_name": "serp-31.html",
                "start_time": 1637848240001,
                "end_time": 1637848250001,
                "dwell_time": 10000,
                "page_id": 1,
                "clicked_results": json.dumps(
                    [{"href": "https://www.baidu.com/link?url=a", "type": "content", "id": 2}]
                ),
            }
        ],
        "landingpage_pagelogs": [
            {
                "id": 41,
                "helpfulness-pagelog": 3,
                "url": "https://zhuanlan.zhihu.com/p/1",
                "html_name": "41.html",
                "start_time": 1637848245001,
                "end_time": 1637848249001,
                "dwell_time": 4000,
            }
        ],
    }
    llm_file = {
        "task": "travel planning",
        "history": [
            {
                "role": "user",
                "content": "Plan a weekend in Rome.",
                "content_zh": "规划罗马周末。",
                "intent": "Planning",
                "intent_zh": "规划",
            },
            {
                "role": "assistant",
                "content": "Day 1: Colosseum. Day 2: Vatican.",
                "content_zh": "第一天：斗兽场。",
            },
        ],
        "rating": {aspect: 2 for aspect in RECLLMSIM_ASPECTS},
    }
    human_file = {
        "task_type": "旅行规划",
        "history": [
            {"role": "user", "content": "帮我规划去成都的行程。", "intent": ["规划"]},
            {"role": "assistant", "content": "好的，第一天去宽窄巷子。"},
        ],
    }
    impressions = [
        {
            "iid": f"news-{k}",
            "uid": "r1",
            "round": k,
            "categories": ["tech"],
            "request": f"Round {k}: more tech news",
            "selected1": ["news_0001"],
            "selected2": [],
            "selected3": [],
            "update1": None,
            "update2": None,
            "rating1": 7,
            "rating2": 6,
            "rating3": 5,
            "summary": None,
            "rating_summary": 6,
            "good_suggestions": 4,
            "good_selections": 4,
            "good_request_match": 3,
            "good_summary_match": 3,
        }
        for k in (1, 2, 3)
    ]
    user = {
        "uid": "r1",
        "source_types": ["websites"],
        "desc_sources": "Daily.",
        "frequency": ["daily"],
        "reasons": "Work.",
        "demand": 4,
        "personalized": 5,
        "explore": 3,
        "desc_selection": "Titles.",
        "task_clear": 5,
        "task_difficult": 2,
        "dialogue_helpful": 4,
        "recs_satisfied": 4,
        "task_feedback": "None",
    }
    products = [
        {
            "pid": f"news_000{k}",
            "title": f"Tech story {k}",
            "description": "A story.",
            "thumbnail": f"https://example.org/{k}.jpg",
            "category": "tech",
        }
        for k in (1, 2)
    ]
    qrels = [
        ("CoSRec-Curated_1_0_0#0", "B000HEAD01", "2"),
        ("CoSRec-Curated_1_0_0", "msmarco_v2.1_doc_00_1#0_1", "1"),
    ]
    return {
        "cosrec__conversations": [
            (
                "cosrec",
                crowd + "conversations.jsonl",
                "CoSRec-Crowd_1",
                {"CoSRec-Crowd_1": conversations["CoSRec-Crowd_1"]},
                None,
            ),
            (
                "cosrec",
                curated + "conversations.jsonl",
                "CoSRec-Curated_1",
                {"CoSRec-Curated_1": conversations["CoSRec-Curated_1"]},
                None,
            ),
        ],
        "cosrec__quality": [
            ("cosrec", crowd + "quality.jsonl", "CoSRec-Crowd_1", {"CoSRec-Crowd_1": quality}, None)
        ],
        "cosrec__intent_annotations": [
            (
                "cosrec",
                crowd + "intent_annotations.jsonl",
                "CoSRec-Crowd_1",
                {
                    "CoSRec-Crowd_1": [
                        {
                            "utterance": 0,
                            "intent_annotations": [
                                [{"type": "recommendation", "query": "mystery novel"}],
                                [{"type": "recommendation", "query": "crime novel"}],
                            ],
                        },
                        {
                            "utterance": 1,
                            "intent_annotations": [
                                [{"type": "product_details", "query": "london setting"}],
                                [{"type": "search", "query": "novels set in london"}],
                            ],
                        },
                    ]
                },
                None,
            )
        ],
        "cosrec__intents": [
            (
                "cosrec",
                curated + "intents.jsonl",
                "CoSRec-Curated_1",
                {
                    "CoSRec-Curated_1": [
                        {
                            "utterance": 0,
                            "intents": [
                                {
                                    "id": "CoSRec-Curated_1_0_0",
                                    "type": "recommendation",
                                    "query_variants": ["G35 headlights"],
                                }
                            ],
                        }
                    ]
                },
                None,
            )
        ],
        "cosrec__keywords": [
            (
                "cosrec",
                crowd + "keywords.jsonl",
                "CoSRec-Crowd_1",
                {"CoSRec-Crowd_1": {"AUSER1": ["price", "plot"]}},
                None,
            )
        ],
        "cosrec__profiles": [
            (
                "cosrec",
                crowd + "profiles.jsonl",
                "CoSRec-Crowd_1",
                {"CoSRec-Crowd_1": {"AUSER1": "A careful reader."}},
                None,
            ),
            (
                "cosrec",
                curated + "profiles.jsonl",
                "CoSRec-Curated_1",
                {"CoSRec-Curated_1": {"AUSER2": "A car enthusiast."}},
                None,
            ),
        ],
        "cosrec__qrels": [
            (
                "cosrec",
                curated + "qrels.qrels",
                topic,
                {"topic_id": topic, "iteration": "0", "doc_id": doc, "grade": grade},
                f"{topic}\t0\t{doc}\t{grade}",
            )
            for topic, doc, grade in qrels
        ],
        "crsarena__dialogues": [
            (
                "crsarena",
                "data/crs_arena_dial_open.json",
                "kbrd_redial_u1",
                dialogue(
                    "kbrd_redial", "frustrated", "Hi, a war movie please.", "I like comedies."
                ),
                None,
            ),
            (
                "crsarena",
                "data/crs_arena_dial_open.json",
                "chatgpt_redial_u1",
                dialogue("chatgpt_redial", "satisfied", "Recommend a war movie.", "Try Dunkirk."),
                None,
            ),
        ],
        "crsarena__votes": [
            ("crsarena", "data/votes_open.csv", vote["session_id"], vote, ",".join(vote.values()))
        ],
        "convsearch__dialogs": [("convsearch", "Dialogs.json", "1", dialog, None)],
        "convsearch__search_behaviors": [
            ("convsearch", "SearchBehaviors.json", "21", behaviour, None)
        ],
        "recllmsim__conversations": [
            (
                "recllmsim",
                "LLM_agent_user/travel planning/1.json",
                "LLM_agent_user/travel planning/1",
                llm_file,
                None,
            ),
            (
                "recllmsim",
                "real_human_user/User_1/旅行规划/1.json",
                "real_human_user/User_1/旅行规划/1",
                human_file,
                None,
            ),
        ],
        "recoreact__products": [
            ("recoreact", "news-products.jsonl", p["pid"], p, None) for p in products
        ],
        "recoreact__users": [("recoreact", "news-users.jsonl", "r1", user, None)],
        "recoreact__impressions": [
            ("recoreact", "news-impressions.jsonl", i["iid"], i, None) for i in impressions
        ],
    }


MART_DDL = {
    "conversations": "conversation_id varchar, source_conversation_id varchar, user_id varchar, "
    "system_id varchar, corpus varchar, subset varchar, domain_or_task varchar, language varchar, "
    "user_sentiment varchar, n_turns integer, n_user_turns integer, n_system_turns integer, "
    "n_merged_turns integer, user_satisfaction double, started_at timestamp, ended_at timestamp, "
    "task_type varchar, task_description varchar, profile varchar, source_path varchar, "
    "source_attributes varchar, han_char_share double, source_record_index bigint",
    "turns": "turn_id varchar, conversation_id varchar, corpus varchar, source_turn_id varchar, "
    "role varchar, text varchar, text_translation varchar, turn_index integer, "
    "merged_turn_index integer, n_chars bigint, n_words bigint, n_words_segmented integer, "
    "n_tokens integer, n_tokens_translation integer, is_image boolean, created_at timestamp",
    "intents": "conversation_id varchar, intent_id varchar, corpus varchar, annotator varchar, "
    "label_scheme varchar, raw_label varchar, intent_family varchar, standalone_query varchar, "
    "source varchar, turn_index integer, is_primary boolean",
    "ratings": "conversation_id varchar, item_id varchar, rater_id varchar, corpus varchar, "
    "rater_kind varchar, aspect varchar, turn_index integer, value double, scale_min double, "
    "scale_max double, value_normalized double, higher_is_better boolean, raw_value varchar, "
    "comment varchar",
    "users": "user_id varchar, corpus varchar, source_user_id varchar, subset varchar, "
    "profile_text varchar, keywords varchar, attributes varchar",
    "items": "item_id varchar, corpus varchar, source_item_id varchar, item_kind varchar, "
    "title varchar, description varchar, category varchar, url varchar",
    "votes": "vote_id varchar, environment varchar, voted_at timestamp, user_id varchar, "
    "system_a varchar, system_b varchar, winner varchar, feedback varchar, is_duplicate boolean, "
    "conversation_id_a varchar, conversation_id_b varchar, vote_order integer",
    "relevance_judgments": "judgment_id varchar, topic_id varchar, intent_id varchar, "
    "conversation_id varchar, turn_index integer, user_index integer, user_id varchar, "
    "doc_id varchar, item_id varchar, grade integer, judgment_kind varchar",
    "item_interactions": "interaction_id varchar, conversation_id varchar, user_id varchar, "
    "item_id varchar, domain varchar, round integer, selection_step integer, "
    "request_text varchar, rating double",
    "search_queries": "query_id varchar, conversation_id varchar, turn_index integer, "
    "query_text varchar, source_engine varchar, queried_at timestamp, n_words integer, has_click boolean",
    "serp_views": "serp_view_id varchar, query_id varchar, conversation_id varchar, url varchar, "
    "page_number integer, started_at timestamp, ended_at timestamp, dwell_ms bigint",
    "result_clicks": "click_id varchar, serp_view_id varchar, query_id varchar, "
    "conversation_id varchar, rank integer, click_type varchar, url varchar",
    "landing_page_views": "landing_page_view_id varchar, query_id varchar, conversation_id varchar, "
    "url varchar, started_at timestamp, ended_at timestamp, dwell_ms bigint, helpfulness double",
    "crs_leaderboard": "environment varchar, system_id varchar, battles bigint, wins bigint, "
    "ties bigint, losses bigint, win_rate double, elo double, elo_rank bigint, bt_strength double, "
    "bt_ci_low double, bt_ci_high double, n_conversations bigint, satisfaction_rate double",
    "annotator_agreement": "corpus varchar, subject varchar, measure varchar, value double, "
    "ci_low double, ci_high double, n_units bigint, n_raters_mean double, n_ratings bigint",
}

# fmt: off
MART_ROWS = {
    "conversations": [
        # conversation_id, source id, user_id, system_id, corpus, subset, domain, language,
        # sentiment, satisfaction, started_at, ended_at
        ("cosrec:CoSRec-Crowd_1", "CoSRec-Crowd_1", None, "generator", "cosrec", "crowd", "books", "en", None, None, None, None),
        ("cosrec:CoSRec-Curated_1", "CoSRec-Curated_1", None, "generator", "cosrec", "curated", "cars", "en", None, None, None, None),
        ("crsarena:kbrd_redial_u1", "kbrd_redial_u1", "crsarena:u1", "kbrd_redial", "crsarena", "open", "movies", "en", "frustrated", 0.0, None, None),
        ("crsarena:chatgpt_redial_u1", "chatgpt_redial_u1", "crsarena:u1", "chatgpt_redial", "crsarena", "open", "movies", "en", "satisfied", 1.0, None, None),
        ("convsearch:1", "1", "convsearch:7", "convsearch:8", "convsearch", "main", "food", "zh", None, 1.0, "2021-11-25 13:50:32", "2021-11-25 14:08:50"),
        ("recllmsim:LLM_agent_user/travel planning/1", "LLM_agent_user/travel planning/1", None, "assistant", "recllmsim", "LLM_agent_user", "travel planning", "en", None, None, None, None),
        ("recllmsim:real_human_user/User_1/旅行规划/1", "real_human_user/User_1/旅行规划/1", None, "assistant", "recllmsim", "real_human_user", "旅行规划", "zh", None, None, None, None),
        ("recoreact:news:r1", "news:r1", "recoreact:news:r1", "random_assistant", "recoreact", "news", "news", "en", None, 0.75, None, None),
    ],
    "turns": [
        # conversation_id, turn_index, role, text, source_turn_id, is_image
        ("cosrec:CoSRec-Crowd_1", 0, "user", "I need a mystery novel.", None, False),
        ("cosrec:CoSRec-Crowd_1", 1, "system", "Do you like London settings?", None, False),
        ("cosrec:CoSRec-Crowd_1", 2, "user", "Yes, London please.", None, False),
        ("cosrec:CoSRec-Crowd_1", 3, "system", "Try The London Ripper.", None, False),
        ("cosrec:CoSRec-Curated_1", 0, "user", "Show me headlights for a G35.", None, False),
        ("cosrec:CoSRec-Curated_1", 1, "system", "Here are three assemblies.", None, False),
        ("crsarena:kbrd_redial_u1", 0, "user", "Hi, a war movie please.", "kbrd_redial_u1_0", False),
        ("crsarena:kbrd_redial_u1", 1, "system", "I like comedies.", "kbrd_redial_u1_1", False),
        ("crsarena:chatgpt_redial_u1", 0, "user", "Recommend a war movie.", "chatgpt_redial_u1_0", False),
        ("crsarena:chatgpt_redial_u1", 1, "system", "Try Dunkirk.", "chatgpt_redial_u1_1", False),
        ("convsearch:1", 0, "user", "哪家汉堡好吃？", "11", False),
        ("convsearch:1", 1, "system", "推荐肯德基的香辣鸡腿堡。", "12", False),
        ("recllmsim:LLM_agent_user/travel planning/1", 0, "user", "Plan a weekend in Rome.", None, False),
        ("recllmsim:LLM_agent_user/travel planning/1", 1, "system", "Day 1: Colosseum. Day 2: Vatican.", None, False),
        ("recllmsim:real_human_user/User_1/旅行规划/1", 0, "user", "帮我规划去成都的行程。", None, False),
        ("recllmsim:real_human_user/User_1/旅行规划/1", 1, "system", "好的，第一天去宽窄巷子。", None, False),
        ("recoreact:news:r1", 0, "user", "Round 1: more tech news", "news-1", False),
        ("recoreact:news:r1", 1, "user", "Round 2: more tech news", "news-2", False),
        ("recoreact:news:r1", 2, "user", "Round 3: more tech news", "news-3", False),
    ],
    "intents": [
        # conversation_id, intent_id, annotator, label_scheme, raw_label, query, source, turn_index, is_primary
        ("cosrec:CoSRec-Crowd_1", None, "crowd_0", "cosrec_intent", "recommendation", "mystery novel", "human", 0, True),
        ("cosrec:CoSRec-Crowd_1", None, "crowd_1", "cosrec_intent", "recommendation", "crime novel", "human", 0, True),
        ("cosrec:CoSRec-Crowd_1", None, "crowd_0", "cosrec_intent", "product_details", "london setting", "human", 2, True),
        ("cosrec:CoSRec-Crowd_1", None, "crowd_1", "cosrec_intent", "search", "novels set in london", "human", 2, True),
        ("cosrec:CoSRec-Curated_1", "cosrec:CoSRec-Curated_1_0_0", "curated", "cosrec_intent", "recommendation", "G35 headlights", "human", 0, True),
        *[("convsearch:1", None, f"assessor_{k}", "convsearch_user_intent", "reveal-initiate", None, "human", 0, True) for k in range(3)],
        *[("convsearch:1", None, f"assessor_{k}", "convsearch_agent_action", "answer-opinion", None, "human", 1, True) for k in range(3)],
        ("recllmsim:LLM_agent_user/travel planning/1", None, "simulator", "recllmsim_intent", "Planning", None, "llm", 0, True),
        ("recllmsim:real_human_user/User_1/旅行规划/1", None, "user", "recllmsim_intent_zh", "规划", None, "human", 0, True),
    ],
    "ratings": [
        # conversation_id, item_id, rater_id, rater_kind, aspect, turn_index, value
        *[("cosrec:CoSRec-Crowd_1", None, f"CoSRec-Crowd_1#{k}", "crowd", aspect, None, float(score))
          for k, scores in enumerate(QUALITY_SCORES) for aspect, score in zip(ASPECTS, scores)],
        ("crsarena:kbrd_redial_u1", None, "crsarena:u1", "user", "satisfied", None, 0.0),
        ("crsarena:chatgpt_redial_u1", None, "crsarena:u1", "user", "satisfied", None, 1.0),
        ("convsearch:1", None, "convsearch:7", "user", "satisfaction_user", None, 4.0),
        ("convsearch:1", None, "convsearch:7", "user", "effort_user", None, 1.0),
        ("convsearch:1", None, "convsearch:8", "agent", "clarity-turn", 0, 3.0),
        ("convsearch:1", None, "convsearch:7", "user", "satisfaction-turn", 1, 4.0),
        ("convsearch:1", None, "convsearch:8", "agent", "helpfulness-pagelog", 1, 3.0),
        *[("recllmsim:LLM_agent_user/travel planning/1", None, None, "llm", aspect, None, 2.0) for aspect in RECLLMSIM_ASPECTS],
        ("recllmsim:LLM_agent_user/travel planning/1", None, None, "llm", "hallucination", 1, 0.0),
        ("recoreact:news:r1", None, "recoreact:news:r1", "user", "rating1", 0, 7.0),
        ("recoreact:news:r1", None, "recoreact:news:r1", "user", "recs_satisfied", None, 4.0),
    ],
    "users": [
        ("cosrec:AUSER1", "cosrec", "AUSER1", "crowd", "A careful reader.", "price; plot", '{"conversation_ids": ["cosrec:CoSRec-Crowd_1"]}'),
        ("cosrec:AUSER2", "cosrec", "AUSER2", "curated", "A car enthusiast.", None, '{"conversation_ids": ["cosrec:CoSRec-Curated_1"]}'),
        ("crsarena:u1", "crsarena", "u1", None, None, None, None),
        ("convsearch:7", "convsearch", "7", "main", None, None, None),
        ("recoreact:news:r1", "recoreact", "r1", "news", "Daily.", "websites", '{"demand": 4}'),
    ],
    "items": [
        ("cosrec:B000HEAD01", "cosrec", "B000HEAD01", "product", None, None, None, None),
        ("cosrec:msmarco_v2.1_doc_00_1#0_1", "cosrec", "msmarco_v2.1_doc_00_1#0_1", "passage", None, None, None, None),
        ("recoreact:news:news_0001", "recoreact", "news_0001", "news", "Tech story 1", "A story.", "tech", "https://example.org/1.jpg"),
        ("recoreact:news:news_0002", "recoreact", "news_0002", "news", "Tech story 2", "A story.", "tech", "https://example.org/2.jpg"),
    ],
    "votes": [
        ("crsarena:open:0", "open", "2024-09-08 23:01:08", "crsarena:u1", "kbrd_redial", "chatgpt_redial", "b",
         "CRS 2 knew war movies.", False, "crsarena:kbrd_redial_u1", "crsarena:chatgpt_redial_u1", 1),
    ],
    "relevance_judgments": [
        ("cosrec:CoSRec-Curated_1_0_0#0 B000HEAD01", "CoSRec-Curated_1_0_0#0", "cosrec:CoSRec-Curated_1_0_0",
         "cosrec:CoSRec-Curated_1", 0, 0, "cosrec:AUSER2", "B000HEAD01", "cosrec:B000HEAD01", 2, "recommendation"),
        ("cosrec:CoSRec-Curated_1_0_0 msmarco_v2.1_doc_00_1#0_1", "CoSRec-Curated_1_0_0", "cosrec:CoSRec-Curated_1_0_0",
         "cosrec:CoSRec-Curated_1", 0, None, None, "msmarco_v2.1_doc_00_1#0_1", "cosrec:msmarco_v2.1_doc_00_1#0_1", 1, "search"),
    ],
    "item_interactions": [
        ("recoreact:news:news-1:1:1", "recoreact:news:r1", "recoreact:news:r1", "recoreact:news:news_0001", "news", 1, 1, "Round 1: more tech news", 7.0),
    ],
    "search_queries": [("convsearch:21", "convsearch:1", 1, "汉堡 推荐", "baidu", "2021-11-25 13:50:40", 4, True)],
    "serp_views": [
        ("convsearch:31", "convsearch:21", "convsearch:1", "https://www.baidu.com/s?wd=x", 1,
         "2021-11-25 13:50:40.001", "2021-11-25 13:50:50.001", 10000),
    ],
    "result_clicks": [
        ("convsearch:31:1", "convsearch:31", "convsearch:21", "convsearch:1", 2, "content", "https://www.baidu.com/link?url=a"),
    ],
    "landing_page_views": [
        ("convsearch:41", "convsearch:21", "convsearch:1", "https://zhuanlan.zhihu.com/p/1",
         "2021-11-25 13:50:45.001", "2021-11-25 13:50:49.001", 4000, 3.0),
    ],
    "crs_leaderboard": [
        # one battle in open (and so in global): chatgpt_redial beat kbrd_redial; none in closed
        (env, system, n, wins, 0, n - wins, (wins / n) if n else None, (1008.0 if wins else 992.0) if n else None,
         (1 if wins else 2) if n else None, (1040.0 if wins else 960.0) if n else None,
         900.0 if n else None, 1100.0 if n else None, n, (sat if n else None))
        for env, n in (("open", 1), ("closed", 0), ("global", 1))
        for system, wins, sat in (("kbrd_redial", 0, 0.0), ("chatgpt_redial", 1, 1.0))
    ],
    "annotator_agreement": [
        ("cosrec", "intent:cosrec_intent", "fleiss_kappa", 0.25, -0.2, 0.6, 2, 2.0, 4),
        ("cosrec", "quality:fluency", "krippendorff_alpha", 0.1, 0.1, 0.1, 1, 4.0, 4),
    ],
}
# fmt: on

DERIVED_MARTS = """
update main.turns set
    turn_id = conversation_id || ':' || turn_index,
    corpus = split_part(conversation_id, ':', 1),
    n_chars = length(coalesce(text, '')),
    n_words = len(string_split(coalesce(text, ''), ' ')),
    n_words_segmented = len(string_split(coalesce(text, ''), ' ')),
    n_tokens = length(coalesce(text, '')),
    n_tokens_translation = length(text_translation);
create or replace temp table merged as
    select conversation_id, turn_index,
        sum(case when lag_role = role then 0 else 1 end) over (
            partition by conversation_id order by turn_index) - 1 as merged_turn_index
    from (select *, lag(role) over (partition by conversation_id order by turn_index) as lag_role from main.turns);
update main.turns set merged_turn_index = merged.merged_turn_index
    from merged where merged.conversation_id = turns.conversation_id and merged.turn_index = turns.turn_index;
update main.conversations set
    n_turns = counted.n_turns, n_user_turns = counted.n_user, n_system_turns = counted.n_system,
    n_merged_turns = counted.n_merged
    from (select conversation_id, count(*) as n_turns, count(*) filter (where role = 'user') as n_user,
            count(*) filter (where role = 'system') as n_system, max(merged_turn_index) + 1 as n_merged
          from main.turns group by all) as counted
    where counted.conversation_id = conversations.conversation_id;
update main.intents set corpus = split_part(conversation_id, ':', 1),
    intent_family = taxonomy.intent_family
    from seeds.intent_taxonomy as taxonomy
    where taxonomy.label_scheme = intents.label_scheme and taxonomy.raw_label = intents.raw_label;
update main.ratings set corpus = split_part(conversation_id, ':', 1);
update main.ratings set scale_min = scales.scale_min, scale_max = scales.scale_max,
    higher_is_better = scales.higher_is_better,
    value_normalized = (value - scales.scale_min) / (scales.scale_max - scales.scale_min)
    from seeds.rating_scales as scales
    where scales.corpus = ratings.corpus and scales.aspect = ratings.aspect;
create table main.intent_consensus as
    with families as (
        select distinct conversation_id, turn_index, label_scheme, annotator, intent_family
        from main.intents where is_primary
    ),
    annotators as (
        select conversation_id, turn_index, label_scheme, count(distinct annotator) as n_annotators
        from families group by all
    ),
    votes as (
        select conversation_id, turn_index, label_scheme, intent_family, count(distinct annotator) as n_agreeing
        from families group by all
    ),
    ranked as (
        select *, row_number() over (partition by conversation_id, turn_index, label_scheme
            order by n_agreeing desc, intent_family) as rank_in_turn
        from votes
    )
    select ranked.conversation_id, split_part(ranked.conversation_id, ':', 1) as corpus,
        ranked.label_scheme, ranked.intent_family as majority_family, ranked.turn_index,
        cast(annotators.n_annotators as integer) as n_annotators,
        cast(ranked.n_agreeing as integer) as n_agreeing,
        ranked.n_agreeing / annotators.n_annotators as agreement_share,
        ranked.n_agreeing = annotators.n_annotators as is_unanimous
    from ranked inner join annotators using (conversation_id, turn_index, label_scheme)
    where rank_in_turn = 1;
create table main.intent_distribution as
    with counted as (
        select corpus, label_scheme, intent_family, raw_label, count(*) as n_labels,
            count(distinct conversation_id || ':' || turn_index) as n_turns
        from main.intents where is_primary group by all
    )
    select corpus, label_scheme, intent_family, raw_label, cast(n_labels as integer) as n_labels,
        cast(n_turns as integer) as n_turns,
        n_labels / sum(n_labels) over (partition by corpus, label_scheme) as share_of_labels
    from counted;
create table main.quality_by_length as
    select ratings.corpus, ratings.aspect, conversations.n_user_turns,
        cast(count(distinct ratings.conversation_id) as integer) as n_conversations,
        cast(count(*) as integer) as n_ratings, avg(ratings.value) as mean_value,
        avg(ratings.value_normalized) as mean_value_normalized
    from main.ratings inner join main.conversations using (conversation_id)
    where ratings.turn_index is null and ratings.item_id is null
    group by all;
create table main.corpus_stats as
    with intent_conversations as (select distinct conversation_id from main.intents),
    rated_conversations as (select distinct conversation_id from main.ratings)
    select corpus, subset, cast(count(*) as integer) as n_conversations,
        cast(sum(n_turns) as integer) as n_turns, cast(sum(n_user_turns) as integer) as n_user_turns,
        cast(sum(n_system_turns) as integer) as n_system_turns,
        avg(n_turns::double) as mean_turns_per_conversation,
        avg(n_user_turns::double) as mean_user_turns_per_conversation,
        avg(n_merged_turns::double) as mean_merged_turns_per_conversation,
        cast(null as double) as mean_words_per_user_turn, cast(null as double) as mean_words_per_system_turn,
        avg((i.conversation_id is not null)::double) as intent_annotated_share,
        avg((r.conversation_id is not null)::double) as rated_share,
        avg((i.conversation_id is not null or r.conversation_id is not null)::double) as annotated_share
    from main.conversations
    left join intent_conversations as i using (conversation_id)
    left join rated_conversations as r using (conversation_id)
    group by all;
"""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def build_tiny_warehouse(path: Path) -> Path:
    """Write the consistent tiny warehouse (raw + seeds + marts) to ``path``."""
    with duckdb.connect(str(path)) as con:
        con.execute("create schema raw; create schema seeds")
        for table in RAW_TABLES:
            con.execute(f"create table raw.{table} ({RAW_COLUMNS})")
        for table, records in _raw_records().items():
            per_file: dict[str, int] = {}
            for corpus, source_path, key, payload, source_text in records:
                index = per_file.get(source_path, 0)
                per_file[source_path] = index + 1
                con.execute(
                    f"insert into raw.{table} values ('b1', ?, ?, ?, ?, ?, ?, ?, ?, timestamp '2026-01-01 00:00:00')",
                    [
                        corpus,
                        source_path,
                        index,
                        index + 1,
                        key,
                        json.dumps(payload, ensure_ascii=False),
                        source_text,
                        _sha(source_path),
                    ],
                )
        for seed in ("corpora", "intent_taxonomy", "rating_scales"):
            csv_path = (PROJECT_ROOT / "seeds" / f"{seed}.csv").as_posix()
            con.execute(
                f"create table seeds.{seed} as select * from read_csv('{csv_path}', header = true)"
            )
        for mart, ddl in MART_DDL.items():
            con.execute(f"create table main.{mart} ({ddl})")
        con.executemany(
            "insert into main.conversations (conversation_id, source_conversation_id, user_id, system_id, "
            "corpus, subset, domain_or_task, language, user_sentiment, user_satisfaction, started_at, ended_at) "
            "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            MART_ROWS["conversations"],
        )
        con.executemany(
            "insert into main.turns (conversation_id, turn_index, role, text, source_turn_id, is_image) "
            "values (?, ?, ?, ?, ?, ?)",
            MART_ROWS["turns"],
        )
        con.executemany(
            "insert into main.intents (conversation_id, intent_id, annotator, label_scheme, raw_label, "
            "standalone_query, source, turn_index, is_primary) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            MART_ROWS["intents"],
        )
        con.executemany(
            "insert into main.ratings (conversation_id, item_id, rater_id, rater_kind, aspect, turn_index, value) "
            "values (?, ?, ?, ?, ?, ?, ?)",
            MART_ROWS["ratings"],
        )
        for mart in (
            "users",
            "items",
            "votes",
            "relevance_judgments",
            "item_interactions",
            "search_queries",
            "serp_views",
            "result_clicks",
            "landing_page_views",
            "crs_leaderboard",
            "annotator_agreement",
        ):
            rows = MART_ROWS[mart]
            marks = ", ".join("?" * len(rows[0]))
            con.executemany(f"insert into main.{mart} values ({marks})", rows)
        con.execute(DERIVED_MARTS)
    return path


@pytest.fixture(scope="module")
def clean_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_warehouse(tmp_path_factory.mktemp("tiny") / "clean.duckdb")


@pytest.fixture()
def warehouse(clean_warehouse: Path, tmp_path: Path) -> Path:
    """A fresh copy of the clean warehouse, to corrupt."""
    copy = tmp_path / "copy.duckdb"
    shutil.copy(clean_warehouse, copy)
    return copy


def _run(database: Path, suites: list[str] | None = None, **kwargs):
    kwargs.setdefault("data_docs_dir", None)
    kwargs.setdefault("record", False)
    return validate(database, run_id="test", suites=suites, **kwargs)


def _failed(report) -> set[str]:
    return {f"{o.suite}:{o.expectation}" for o in report.outcomes if not o.success}


# --- clean build -----------------------------------------------------------------------------


def test_clean_warehouse_passes_every_expectation(warehouse: Path) -> None:
    report = _run(warehouse)
    assert len(report.suites) == 36
    problems = [o.message() for o in report.outcomes if not o.success]
    assert problems == []
    # every expectation produced an observed value (the DuckDB fetch fix is in effect)
    assert all(o.error is None and o.observed_value is not None for o in report.outcomes)


def test_empty_corpora_are_legitimate(warehouse: Path) -> None:
    """Absent corpora leave empty raw tables and no mart rows; nothing fails for that."""
    with duckdb.connect(str(warehouse)) as con:
        for table in RAW_TABLES:
            if not table.startswith("cosrec"):
                con.execute(f"delete from raw.{table}")
        for mart in MART_DDL:
            column = (
                "corpus"
                if mart
                in (
                    "conversations",
                    "turns",
                    "intents",
                    "ratings",
                    "users",
                    "items",
                    "annotator_agreement",
                )
                else None
            )
            if column:
                con.execute(f"delete from main.{mart} where {column} <> 'cosrec'")
            elif mart != "relevance_judgments":
                con.execute(f"delete from main.{mart}")
        for mart in (
            "intent_consensus",
            "intent_distribution",
            "quality_by_length",
            "corpus_stats",
        ):
            con.execute(f"delete from main.{mart} where corpus <> 'cosrec'")
    report = _run(warehouse)
    assert [o.message() for o in report.critical_failures] == []


# --- corrupted copies: each fails on the intended expectation ------------------------------

COSREC_CROWD = "'CoSRec-Crowd_1'"
CORRUPTIONS = [
    # (id, suite, SQL on the copy, expectation that must fail)
    (
        "raw-columns-dropped",
        "raw.cosrec__profiles",
        "alter table raw.cosrec__profiles drop column source_text",
        "columns_match_contract",
    ),
    (
        "raw-column-type",
        "raw.cosrec__keywords",
        "alter table raw.cosrec__keywords alter record_index type integer",
        "column_types_match_contract",
    ),
    (
        "raw-wrong-corpus",
        "raw.crsarena__votes",
        "update raw.crsarena__votes set corpus = 'cosrec'",
        "records_well_formed",
    ),
    (
        "raw-file-outside-layout",
        "raw.cosrec__quality",
        "update raw.cosrec__quality set source_path = 'dataset/extra/quality.jsonl'",
        "records_well_formed",
    ),
    (
        "raw-duplicate-position",
        "raw.cosrec__qrels",
        "update raw.cosrec__qrels set record_index = 0",
        "record_position_unique",
    ),
    (
        "raw-duplicate-key",
        "raw.recoreact__products",
        (
            "insert into raw.recoreact__products select batch_id, corpus, source_path, 9, 10, record_key, payload, "
            "source_text, file_sha256, ingested_at from raw.recoreact__products where record_key = 'news_0001'"
        ),
        "record_key_unique_per_file",
    ),
    (
        "cosrec-unprefixed-line",
        "raw.cosrec__conversations",
        f"""update raw.cosrec__conversations set payload = json_object({COSREC_CROWD}, 'U: hi' || chr(10) || 'hello')
         where record_key = {COSREC_CROWD}""",
        "every_line_is_a_user_or_system_turn",
    ),
    (
        "cosrec-not-keyed",
        "raw.cosrec__conversations",
        "update raw.cosrec__conversations set payload = json_object('other', 'U: hi') where record_key = 'CoSRec-Curated_1'",
        "line_is_keyed_value",
    ),
    (
        "cosrec-quality-out-of-range",
        "raw.cosrec__quality",
        "update raw.cosrec__quality set payload = replace(payload::varchar, '\"fluency\": 5', '\"fluency\": 9')::json",
        "quality_on_1_to_5_scale",
    ),
    (
        "cosrec-unknown-intent-type",
        "raw.cosrec__intent_annotations",
        "update raw.cosrec__intent_annotations set payload = replace(payload::varchar, '\"search\"', '\"purchase\"')::json",
        "intent_type_in_vocabulary",
    ),
    (
        "cosrec-annotation-past-user-turns",
        "raw.cosrec__intent_annotations",
        "update raw.cosrec__intent_annotations set payload = replace(payload::varchar, '\"utterance\": 1', '\"utterance\": 2')::json",
        "utterance_is_a_user_utterance",
    ),
    (
        "cosrec-duplicate-intent-id",
        "raw.cosrec__intents",
        (
            "insert into raw.cosrec__intents select batch_id, corpus, 'dataset/raw/intents.jsonl', 0, 1, record_key, "
            "payload, source_text, file_sha256, ingested_at from raw.cosrec__intents"
        ),
        "intent_ids_unique",
    ),
    (
        "cosrec-keywords-orphan",
        "raw.cosrec__keywords",
        "update raw.cosrec__keywords set record_key = 'CoSRec-Crowd_9', payload = json_object('CoSRec-Crowd_9', json_object('A', ['x']))",
        "keyword_conversation_exists",
    ),
    (
        "cosrec-empty-profile",
        "raw.cosrec__profiles",
        "update raw.cosrec__profiles set payload = json_object(record_key, json_object('AUSER1', ''))",
        "profiles_are_text",
    ),
    (
        "cosrec-grade-out-of-range",
        "raw.cosrec__qrels",
        (
            "update raw.cosrec__qrels set payload = json_object('topic_id', payload->>'topic_id', 'iteration', '0', "
            "'doc_id', payload->>'doc_id', 'grade', '3')"
        ),
        "grade_in_0_1_2",
    ),
    (
        "crsarena-unknown-sentiment",
        "raw.crsarena__dialogues",
        "update raw.crsarena__dialogues set payload = replace(payload::varchar, 'frustrated', 'happy')::json",
        "sentiment_in_vocabulary",
    ),
    (
        "crsarena-unknown-participant",
        "raw.crsarena__dialogues",
        'update raw.crsarena__dialogues set payload = replace(payload::varchar, \'"AGENT", "utterance"\', \'"BOT", "utterance"\')::json',
        "utterances_have_documented_shape",
    ),
    (
        "crsarena-vote-unknown-label",
        "raw.crsarena__votes",
        (
            "update raw.crsarena__votes set payload = json_object('session_id', payload->>'session_id', 'user_id', 'u1', "
            "'crs1', 'kbrd_redial', 'crs2', 'chatgpt_redial', 'vote', 'crs3', 'feedback', '')"
        ),
        "vote_in_vocabulary",
    ),
    (
        "convsearch-rating-out-of-range",
        "raw.convsearch__dialogs",
        "update raw.convsearch__dialogs set payload = replace(payload::varchar, '\"satisfaction_user\": 4', '\"satisfaction_user\": 5')::json",
        "dialogue_ratings_on_0_to_4_scale",
    ),
    (
        "convsearch-unknown-intent",
        "raw.convsearch__dialogs",
        "update raw.convsearch__dialogs set payload = replace(payload::varchar, 'reveal-initiate', 'reveal-more')::json",
        "labels_in_vocabulary",
    ),
    (
        "convsearch-unknown-source",
        "raw.convsearch__search_behaviors",
        "update raw.convsearch__search_behaviors set payload = replace(payload::varchar, 'baidu\"', 'google\"')::json",
        "source_in_vocabulary",
    ),
    (
        "convsearch-orphan-request",
        "raw.convsearch__search_behaviors",
        "update raw.convsearch__search_behaviors set payload = replace(payload::varchar, '\"belong_turn\": 12', '\"belong_turn\": 99')::json",
        "request_belongs_to_a_dialogue_turn",
    ),
    (
        "recllmsim-rating-out-of-range",
        "raw.recllmsim__conversations",
        "update raw.recllmsim__conversations set payload = replace(payload::varchar, '\"Diversity\": 2', '\"Diversity\": 3')::json",
        "ratings_on_0_to_2_scale",
    ),
    (
        # intent labels are an open vocabulary (a new one warns, in dbt); their shape is closed
        "recllmsim-intent-of-wrong-type",
        "raw.recllmsim__conversations",
        'update raw.recllmsim__conversations set payload = replace(payload::varchar, \'"intent": "Planning"\', \'"intent": 7\')::json',
        "intent_has_documented_shape",
    ),
    (
        "recllmsim-unknown-role",
        "raw.recllmsim__conversations",
        'update raw.recllmsim__conversations set payload = replace(payload::varchar, \'"role": "assistant"\', \'"role": "system"\')::json',
        "history_has_documented_shape",
    ),
    (
        "recoreact-empty-title",
        "raw.recoreact__products",
        "update raw.recoreact__products set payload = json_object('pid', record_key, 'title', '', 'description', 'd', 'category', 'c')",
        "product_has_documented_keys",
    ),
    (
        "recoreact-survey-out-of-range",
        "raw.recoreact__users",
        "update raw.recoreact__users set payload = replace(payload::varchar, '\"personalized\": 5', '\"personalized\": 7')::json",
        "survey_on_1_to_5_scale",
    ),
    (
        "recoreact-rating-out-of-range",
        "raw.recoreact__impressions",
        "update raw.recoreact__impressions set payload = replace(payload::varchar, '\"rating1\": 7', '\"rating1\": 10')::json",
        "ratings_on_9_and_5_point_scales",
    ),
    (
        "recoreact-round-4",
        "raw.recoreact__impressions",
        "update raw.recoreact__impressions set payload = replace(payload::varchar, '\"round\": 3', '\"round\": 4')::json",
        "round_is_1_2_or_3",
    ),
    # marts
    (
        "mart-column-missing",
        "users",
        "alter table main.users drop column keywords",
        "columns_match_contract",
    ),
    (
        "mart-column-type",
        "votes",
        "alter table main.votes alter vote_order type varchar",
        "column_types_match_contract",
    ),
    (
        "conversations-duplicate-key",
        "conversations",
        "insert into main.conversations select * from main.conversations where corpus = 'convsearch'",
        "conversation_id_unique",
    ),
    (
        "conversations-lost-record",
        "conversations",
        "delete from main.conversations where conversation_id = 'convsearch:1'",
        "one_conversation_per_ingested_record",
    ),
    (
        "conversations-truncated",
        "conversations",
        "delete from main.turns where conversation_id = 'cosrec:CoSRec-Crowd_1' and turn_index = 3",
        "n_turns_match_turns_mart",
    ),
    (
        "conversations-truncated-vs-raw",
        "conversations",
        (
            "delete from main.turns where conversation_id = 'cosrec:CoSRec-Crowd_1' and turn_index = 3; "
            "update main.conversations set n_turns = 3, n_system_turns = 1, n_merged_turns = 3 "
            "where conversation_id = 'cosrec:CoSRec-Crowd_1'"
        ),
        "turn_counts_match_raw",
    ),
    (
        # subsets are an open vocabulary (a new one warns, in dbt); a missing one blocks
        "conversations-missing-subset",
        "conversations",
        "update main.conversations set subset = null where corpus = 'cosrec'",
        "global_id_and_subset",
    ),
    (
        "conversations-satisfaction-out-of-range",
        "conversations",
        "update main.conversations set user_satisfaction = 4 where corpus = 'convsearch'",
        "user_satisfaction_in_unit_interval",
    ),
    (
        "turns-orphan",
        "turns",
        "delete from main.conversations where conversation_id = 'convsearch:1'",
        "turn_belongs_to_a_conversation",
    ),
    (
        "turns-duplicate-key",
        "turns",
        "insert into main.turns select * from main.turns where corpus = 'convsearch'",
        "turn_id_unique",
    ),
    (
        "turns-gap",
        "turns",
        (
            "update main.turns set turn_index = 5, turn_id = conversation_id || ':5' "
            "where conversation_id = 'cosrec:CoSRec-Crowd_1' and turn_index = 2"
        ),
        "turn_index_contiguous",
    ),
    (
        "turns-unknown-role",
        "turns",
        "update main.turns set role = 'bot' where turn_index = 1",
        "role_in_vocabulary",
    ),
    (
        "turns-all-user",
        "turns",
        "update main.turns set role = 'user' where corpus = 'cosrec'",
        "user_turn_share_plausible",
    ),
    (
        "turns-empty-texts",
        "turns",
        "update main.turns set text = '' where corpus = 'crsarena'",
        "empty_text_share_small",
    ),
    (
        "turns-copied-texts",
        "turns",
        "update main.turns set text = 'same' where corpus = 'cosrec'",
        "duplicate_text_share_small",
    ),
    (
        "intents-unknown-label",
        "intents",
        "update main.intents set raw_label = 'purchase' where raw_label = 'search'",
        "label_in_taxonomy",
    ),
    (
        "intents-orphan",
        "intents",
        "update main.intents set turn_index = 7 where corpus = 'recllmsim'",
        "labelled_turn_exists",
    ),
    (
        "intents-wrong-role",
        "intents",
        "update main.intents set turn_index = 1 where label_scheme = 'convsearch_user_intent'",
        "labels_on_the_right_role",
    ),
    (
        "intent-consensus-duplicate-key",
        "intent_consensus",
        "insert into main.intent_consensus select * from main.intent_consensus where corpus = 'convsearch'",
        "one_row_per_turn_and_scheme",
    ),
    (
        "intent-consensus-counts",
        "intent_consensus",
        "update main.intent_consensus set n_agreeing = n_annotators + 1",
        "counts_consistent",
    ),
    (
        "ratings-out-of-range",
        "ratings",
        "update main.ratings set value = 9, value_normalized = 2 where corpus = 'cosrec' and aspect = 'fluency'",
        "value_within_scale",
    ),
    (
        "ratings-normalised-out-of-range",
        "ratings",
        "update main.ratings set value = 9, value_normalized = 2 where corpus = 'cosrec' and aspect = 'fluency'",
        "value_normalized_in_unit_interval",
    ),
    (
        "ratings-unknown-aspect",
        "ratings",
        "update main.ratings set aspect = 'charm' where aspect = 'fluency'",
        "aspect_has_scale",
    ),
    (
        "ratings-orphan",
        "ratings",
        "delete from main.conversations where corpus = 'recoreact'",
        "rated_conversation_exists",
    ),
    (
        "votes-duplicate-key",
        "votes",
        "insert into main.votes select * from main.votes",
        "vote_id_unique",
    ),
    ("votes-unknown-winner", "votes", "update main.votes set winner = 'c'", "winner_in_vocabulary"),
    ("votes-lost-record", "votes", "delete from main.votes", "one_vote_per_ingested_record"),
    (
        "users-duplicate-key",
        "users",
        "insert into main.users select * from main.users where corpus = 'crsarena'",
        "user_id_unique",
    ),
    (
        "users-bad-attributes",
        "users",
        "update main.users set attributes = '{broken' where corpus = 'recoreact'",
        "global_id_and_attributes",
    ),
    (
        "items-duplicate-key",
        "items",
        "insert into main.items select * from main.items where corpus = 'recoreact'",
        "item_id_unique",
    ),
    (
        "items-unknown-kind",
        "items",
        "update main.items set item_kind = 'video' where corpus = 'recoreact'",
        "item_kind_in_vocabulary",
    ),
    (
        "judgments-grade-out-of-range",
        "relevance_judgments",
        "update main.relevance_judgments set grade = 5",
        "grade_in_0_1_2",
    ),
    (
        "judgments-orphan-item",
        "relevance_judgments",
        "delete from main.items where item_id = 'cosrec:B000HEAD01'",
        "references_exist",
    ),
    (
        "interactions-orphan-item",
        "item_interactions",
        "update main.item_interactions set item_id = 'recoreact:news:news_9999'",
        "references_exist",
    ),
    (
        "interactions-round-4",
        "item_interactions",
        "update main.item_interactions set round = 4",
        "round_step_and_rating_on_scale",
    ),
    (
        "queries-unknown-engine",
        "search_queries",
        "update main.search_queries set source_engine = 'google'",
        "source_engine_in_vocabulary",
    ),
    (
        "queries-click-flag",
        "search_queries",
        "update main.search_queries set has_click = false",
        "has_click_matches_clicks",
    ),
    (
        "serp-orphan",
        "serp_views",
        "update main.serp_views set query_id = 'convsearch:999'",
        "query_exists_in_same_conversation",
    ),
    (
        "clicks-unknown-type",
        "result_clicks",
        "update main.result_clicks set click_type = 'ad'",
        "click_type_in_vocabulary",
    ),
    (
        "landing-helpfulness-out-of-range",
        "landing_page_views",
        "update main.landing_page_views set helpfulness = 7",
        "helpfulness_on_0_to_4_scale",
    ),
    (
        "corpus-stats-count",
        "corpus_stats",
        "update main.corpus_stats set n_conversations = n_conversations + 1",
        "figures_match_conversations",
    ),
    (
        "leaderboard-counts",
        "crs_leaderboard",
        "update main.crs_leaderboard set wins = wins + 1 where battles > 0",
        "battle_counts_consistent",
    ),
    (
        "leaderboard-battles",
        "crs_leaderboard",
        (
            "update main.crs_leaderboard set battles = battles + 1, ties = ties + 1 "
            "where environment = 'open' and battles > 0"
        ),
        "battles_match_votes",
    ),
    (
        "agreement-out-of-range",
        "annotator_agreement",
        "update main.annotator_agreement set value = 1.5",
        "coefficients_well_defined",
    ),
    (
        "distribution-shares",
        "intent_distribution",
        "update main.intent_distribution set share_of_labels = 0.9 where corpus = 'recllmsim'",
        "shares_sum_to_one",
    ),
    (
        "distribution-counts",
        "intent_distribution",
        "update main.intent_distribution set n_labels = n_labels + 1 where corpus = 'cosrec'",
        "counts_match_intents",
    ),
    (
        "quality-out-of-range",
        "quality_by_length",
        "update main.quality_by_length set mean_value_normalized = 1.2",
        "mean_value_normalized_in_unit_interval",
    ),
    (
        "quality-counts",
        "quality_by_length",
        "update main.quality_by_length set n_ratings = n_ratings + 1",
        "ratings_match_ratings_mart",
    ),
    (
        "custom-unknown-role",
        "raw.custom__conversations",
        (
            "insert into raw.custom__conversations values ('b', 'custom', 'mine/a.jsonl', 0, 1, 'c1', "
            '\'{"id": "c1", "messages": [{"role": "bot", "text": "hi"}]}\', null, repeat(\'a\', 64), now())'
        ),
        "messages_have_documented_shape",
    ),
    (
        "custom-corpus-rater-kind",
        "raw.custom__corpora",
        (
            "insert into raw.custom__corpora values ('b', 'custom', 'mine/corpus.json', 0, null, 'mine/corpus', "
            "'{\"rater_kind\": \"boss\"}', null, repeat('a', 64), now())"
        ),
        "corpus_has_documented_shape",
    ),
]


@pytest.mark.parametrize(
    ("suite", "corruption", "expectation"),
    [c[1:] for c in CORRUPTIONS],
    ids=[c[0] for c in CORRUPTIONS],
)
def test_corruption_fails_on_the_intended_expectation(
    warehouse: Path, suite: str, corruption: str, expectation: str
) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute(corruption)
    report = _run(warehouse, [suite])
    failed = {o.expectation: o for o in report.outcomes if not o.success}
    assert expectation in failed, (
        f"{suite}: expected {expectation} to fail; failed: {sorted(failed)}"
    )
    outcome = failed[expectation]
    assert outcome.severity == "critical" and outcome.error is None
    assert outcome.observed_value not in (None, 0, [], {})
    assert outcome.offending_rows or outcome.expectation == "columns_match_contract"


def test_every_suite_has_a_corruption_test() -> None:
    suites = {s.name for s in load_suites()}
    assert suites == {c[1] for c in CORRUPTIONS}


# --- recording, gate, docs ---------------------------------------------------------------------


def test_results_land_in_dq_results(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "update main.ratings set value = 9, value_normalized = 2 where aspect = 'fluency'"
        )
    first = validate(warehouse, run_id="run-1", suites=["ratings", "turns"], data_docs_dir=None)
    validate(
        warehouse, run_id="run-1", suites=["ratings", "turns"], data_docs_dir=None
    )  # replaces, not appends
    validate(warehouse, run_id="run-2", suites=["turns"], data_docs_dir=None)
    votes = validate(warehouse, run_id="run-2", suites=["votes"], data_docs_dir=None)  # adds
    with duckdb.connect(str(warehouse), read_only=True) as con:
        counts = dict(
            con.execute(f"select run_id, count(*) from {DQ_RESULTS} group by run_id").fetchall()
        )
        failing = con.execute(
            f"select suite, expectation, severity, success, observed_value, offending_rows, validated_at "
            f"from {DQ_RESULTS} where run_id = 'run-1' and not success order by expectation"
        ).fetchall()
        columns = [r[0] for r in con.execute(f"describe {DQ_RESULTS}").fetchall()]
    assert counts == {
        "run-1": len(first.outcomes),
        "run-2": sum(o.suite == "turns" for o in first.outcomes) + len(votes.outcomes),
    }
    assert columns == [
        "run_id",
        "validated_at",
        "suite",
        "table_name",
        "expectation",
        "expectation_type",
        "severity",
        "success",
        "observed_value",
        "offending_rows",
        "error",
        "why",
    ]
    by_name = {row[1]: row for row in failing}
    assert by_name["value_within_scale"][:4] == ("ratings", "value_within_scale", "critical", False)
    assert json.loads(by_name["value_within_scale"][4]) == 4
    assert json.loads(by_name["value_within_scale"][5])[0]["value"] == 9.0
    assert by_name["value_within_scale"][6] is not None


def test_gate_returns_only_critical_failures(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the gate renders Data Docs to ./reports/data_docs
    with duckdb.connect(str(warehouse)) as con:
        con.execute("update main.votes set conversation_id_b = null")
    assert gate(warehouse, "build-ok") == []  # an unlinked vote is only a warning
    with duckdb.connect(str(warehouse)) as con:
        con.execute("delete from main.conversations where conversation_id = 'convsearch:1'")
    messages = gate(warehouse, "build-bad")
    assert messages, "an orphan turn must block publishing"
    orphan = [m for m in messages if "turn_belongs_to_a_conversation" in m]
    assert (
        orphan
        and "turns" in orphan[0]
        and "convsearch:1" in orphan[0]
        and "observed 1" in orphan[0]
    )
    assert not any("votes_without_both_dialogues" in m for m in messages)
    assert (tmp_path / "reports" / "data_docs" / "index.html").is_file()


def test_data_docs_are_rendered(warehouse: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    stale = docs / "validations" / "old.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("stale")
    report = _run(warehouse, ["raw.crsarena__votes", "votes"], data_docs_dir=docs)
    assert report.data_docs_index == docs / "index.html" and report.data_docs_index.is_file()
    pages = list((docs / "validations").rglob("*.html"))
    assert len(pages) == 2 and not stale.exists()
    page = next(p for p in pages if "votes" in p.parts and "raw" not in p.parts).read_text(
        encoding="utf-8"
    )
    assert "vote_order_contiguous" in page and "critical" in page


def test_missing_table_is_a_critical_failure(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute("drop table main.annotator_agreement")
    report = _run(warehouse, ["annotator_agreement"])
    assert [(o.expectation, o.severity, o.success) for o in report.outcomes] == [
        ("table_exists", "critical", False)
    ]
    assert "does not exist" in report.outcomes[0].message()


def test_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    from csrwh.errors import CsrwhError

    with pytest.raises(CsrwhError, match="does not exist"):
        validate(tmp_path / "nope.duckdb", run_id="x")


def test_raw_gate_checks_raw_suites_only_and_records_nothing(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute("update main.votes set winner = 'c'")  # a mart problem: not the raw gate's
    assert raw_gate(warehouse, "early") == []
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "update raw.crsarena__votes set payload = json_object('session_id', payload->>'session_id', "
            "'user_id', 'u1', 'crs1', 'kbrd_redial', 'crs2', 'chatgpt_redial', 'vote', 'crs3', 'feedback', '')"
        )
        assert con.execute(
            "select count(*) from information_schema.tables where table_name = 'dq_results'"
        ).fetchone() == (0,)
    messages = raw_gate(warehouse, "early")
    assert len(messages) == 1 and "raw.crsarena__votes › vote_in_vocabulary" in messages[0]
