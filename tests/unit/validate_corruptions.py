"""The corrupted copies of tests/unit/test_validate.py: SQL on a copy of the built sample, each
with the expectation it must fail (one corruption per suite at least)."""

from __future__ import annotations

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
        "update raw.cosrec__keywords set record_key = 'CoSRec-Crowd_99999', payload = json_object('CoSRec-Crowd_99999', json_object('A', ['x']))",
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
        "crsarena-dialogue-in-both-files",
        "raw.crsarena__dialogues",
        (
            "update raw.crsarena__dialogues set record_key = (select min(record_key) from "
            "raw.crsarena__dialogues) where record_index = 0"
        ),
        "conversation_id_unique",
    ),
    (
        "crsarena-unknown-participant",
        "raw.crsarena__dialogues",
        'update raw.crsarena__dialogues set payload = replace(payload::varchar, \'"participant": "AGENT"\', \'"participant": "BOT"\')::json',
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
    # marts (keys, not-nulls, ranges, closed vocabularies, references and the SQL marts' schemas are
    # dbt's: tests/integration/test_dbt_checks.py corrupts the built sample for those)
    (
        "leaderboard-column-missing",
        "crs_leaderboard",
        "alter table main.crs_leaderboard drop column elo",
        "columns_match_contract",
    ),
    (
        "agreement-column-type",
        "annotator_agreement",
        "alter table main.annotator_agreement alter n_units type varchar",
        "column_types_match_contract",
    ),
    (
        "agreement-ratings-count",
        "annotator_agreement",
        "update main.annotator_agreement set n_ratings = n_ratings + 5",
        "n_ratings_consistent",
    ),
    (
        "conversations-local-id",
        "conversations",
        "update main.conversations set conversation_id = source_conversation_id where corpus = 'convsearch'",
        "conversation_id_is_global",
    ),
    (
        "items-foreign-prefix",
        "items",
        "update main.items set item_id = 'other:' || item_id where corpus = 'recoreact'",
        "global_id_format",
    ),
    (
        "judgments-lost-line",
        "relevance_judgments",
        "delete from main.relevance_judgments where judgment_kind = 'search'",
        "one_judgment_per_ingested_line",
    ),
    (
        "interactions-lost-selection",
        "item_interactions",
        "delete from main.item_interactions",
        "one_interaction_per_ingested_selection",
    ),
    (
        "serp-other-conversation",
        "serp_views",
        "update main.serp_views set conversation_id = 'convsearch:2'",
        "same_conversation_as_query",
    ),
    (
        "clicks-other-query",
        "result_clicks",
        "update main.result_clicks set query_id = 'convsearch:22'",
        "same_query_and_conversation_as_serp_view",
    ),
    (
        "landing-other-conversation",
        "landing_page_views",
        "update main.landing_page_views set conversation_id = 'convsearch:2'",
        "same_conversation_as_query",
    ),
    (
        "conversations-lost-record",
        "convsearch__conversations",
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
        "cosrec__conversations",
        (
            "delete from main.turns where conversation_id = 'cosrec:CoSRec-Crowd_1' and turn_index = 3; "
            "update main.conversations set n_turns = 3, n_system_turns = 1, n_merged_turns = 3 "
            "where conversation_id = 'cosrec:CoSRec-Crowd_1'"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-crsarena",
        "crsarena__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'crsarena')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-convsearch",
        "convsearch__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'convsearch')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-recllmsim",
        "recllmsim__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'recllmsim')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-recoreact",
        "recoreact__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'recoreact')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-miscounted-custom",
        "custom__conversations",
        (
            "update main.conversations set n_turns = n_turns + 1 where conversation_id = "
            "(select min(conversation_id) from main.conversations where corpus = 'custom')"
        ),
        "turn_counts_match_raw",
    ),
    (
        "conversations-fan-out-custom",
        "custom__conversations",
        (
            "insert into main.conversations select * replace ("
            "conversation_id || '-copy' as conversation_id) from main.conversations "
            "where conversation_id = (select min(conversation_id) from main.conversations "
            "where corpus = 'custom')"
        ),
        "one_conversation_per_ingested_record",
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
        "intents-wrong-role",
        "intents",
        "update main.intents set turn_index = 1 where label_scheme = 'convsearch_user_intent'",
        "labels_on_the_right_role",
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
        "ratings-unknown-aspect",
        "ratings",
        "update main.ratings set aspect = 'charm' where aspect = 'fluency'",
        "aspect_has_scale",
    ),
    ("votes-lost-record", "votes", "delete from main.votes", "one_vote_per_ingested_record"),
    (
        "users-bad-attributes",
        "users",
        "update main.users set attributes = '{broken' where corpus = 'recoreact'",
        "global_id_and_attributes",
    ),
    (
        "queries-click-flag",
        "search_queries",
        "update main.search_queries set has_click = false",
        "has_click_matches_clicks",
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
