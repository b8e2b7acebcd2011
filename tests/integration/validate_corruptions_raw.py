"""The corrupted copies of tests/integration/test_validate.py for the raw suites: SQL on a copy of the
built sample, each with the expectation it must fail (the marts' are in validate_corruptions.py)."""

from __future__ import annotations

COSREC_CROWD = "'CoSRec-Crowd_1'"
RAW_CORRUPTIONS = [
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
    # the raw-layer contract, one built-in per column and rule (records_well_formed, one SQL,
    # failed on each of these before)
    *[
        (
            f"raw-{column}-null",
            f"raw.{table}",
            f"update raw.{table} set {column} = null",
            f"{column}_present",
        )
        for column, table in (
            ("batch_id", "cosrec__intents"),
            ("corpus", "cosrec__keywords"),
            ("source_path", "crsarena__dialogues"),
            ("record_index", "convsearch__dialogs"),
            ("record_key", "recoreact__users"),
            ("file_sha256", "recoreact__products"),
            ("ingested_at", "custom__corpora"),
            ("payload", "cosrec__profiles"),
        )
    ],
    (
        "raw-wrong-corpus",
        "raw.crsarena__votes",
        "update raw.crsarena__votes set corpus = 'cosrec'",
        "corpus_matches_table",
    ),
    (
        "raw-file-outside-layout",
        "raw.cosrec__quality",
        "update raw.cosrec__quality set source_path = 'dataset/extra/quality.jsonl'",
        "source_path_in_upstream_layout",
    ),
    (
        "raw-negative-position",
        "raw.recoreact__impressions",
        "update raw.recoreact__impressions set record_index = -1 - record_index",
        "record_index_not_negative",
    ),
    (
        "raw-sha256-not-hex",
        "raw.convsearch__search_behaviors",
        "update raw.convsearch__search_behaviors set file_sha256 = upper(file_sha256)",
        "file_sha256_is_a_sha256",
    ),
    (
        "raw-payload-not-object",
        "raw.recllmsim__conversations",
        "update raw.recllmsim__conversations set payload = '[1]'::json",
        "payload_is_a_json_object",
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
        "custom-qrels-grade-not-integer",
        "raw.custom__qrels",
        (
            "update raw.custom__qrels set payload = json_object('topic_id', payload->>'topic_id', "
            "'iteration', '0', 'doc_id', payload->>'doc_id', 'grade', 'high') "
            "where line_number = 1"
        ),
        "qrels_fields_present",
    ),
    (
        # the sample's own corpus has no users.jsonl: one user line, attributes not an object
        "custom-users-attributes-not-an-object",
        "raw.custom__users",
        (
            "insert into raw.custom__users select * replace ("
            "split_part(source_path, '/', 1) || '/users.jsonl' as source_path, 'u1' as record_key, "
            """'{"id": "u1", "attributes": 7}'::json as payload) """
            "from raw.custom__conversations limit 1"
        ),
        "user_has_documented_shape",
    ),
    (
        "custom-qrels-repeated-pair",
        "raw.custom__qrels",
        (
            "insert into raw.custom__qrels select * replace (record_index + 100000 as record_index, "
            "line_number + 100000 as line_number) from raw.custom__qrels where line_number = 1"
        ),
        "one_grade_per_topic_and_document",
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
]
