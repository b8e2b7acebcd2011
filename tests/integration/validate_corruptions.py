"""The corrupted copies of tests/integration/test_validate.py: SQL on a copy of the built sample, each
with the expectation it must fail (one corruption per suite at least); the raw suites' are in
validate_corruptions_raw.py."""

from __future__ import annotations

from validate_corruptions_raw import RAW_CORRUPTIONS

CORRUPTIONS = [
    *RAW_CORRUPTIONS,
    # (id, suite, SQL on the copy, expectation that must fail)
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
        "cosrec__relevance_judgments",
        "delete from main.relevance_judgments where judgment_kind = 'search'",
        "one_judgment_per_ingested_line",
    ),
    (
        # the user-only exemption is the corpus' registry declaration, read from seeds.corpora
        "turns-user-only-undeclared",
        "turns",
        "update seeds.corpora set turn_roles = 'user,system'",
        "user_turn_share_plausible",
    ),
    (
        "judgments-grade-off-scale",
        "relevance_judgments",
        "update main.relevance_judgments set grade = grade_max + 1 where corpus = 'cosrec'",
        "grade_on_the_declared_scale",
    ),
    (
        "judgments-own-lost-line",
        "custom__relevance_judgments",
        "delete from main.relevance_judgments where corpus = 'custom' and grade > 0",
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
    # the single-column rules GX states as built-ins (not-null, between); the same corruptions
    # failed the SQL they replace (rank_positive / page_number_positive: null or too small)
    (
        "clicks-rank-missing",
        "result_clicks",
        "update main.result_clicks set rank = null",
        "rank_present",
    ),
    (
        "clicks-rank-negative",
        "result_clicks",
        "update main.result_clicks set rank = -1",
        "rank_positive",
    ),
    (
        "serp-page-missing",
        "serp_views",
        "update main.serp_views set page_number = null",
        "page_number_present",
    ),
    (
        "serp-page-zero",
        "serp_views",
        "update main.serp_views set page_number = 0",
        "page_number_positive",
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
        # the roles come from the corpora's declarations (the label_schemes lookup): agent
        # actions lose theirs, so their labels on system turns are on the wrong role
        "intents-scheme-role-undeclared",
        "intents",
        "delete from seeds.label_schemes where label_scheme = 'convsearch_agent_action'",
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
        "value_at_most_scale_max",
    ),
    (
        "ratings-below-scale",
        "ratings",
        "update main.ratings set value = -1, value_normalized = -0.5 where corpus = 'cosrec' and aspect = 'fluency'",
        "value_at_least_scale_min",
    ),
    (
        "ratings-unknown-aspect",
        "ratings",
        "update main.ratings set aspect = 'charm' where aspect = 'fluency'",
        "aspect_has_scale",
    ),
    ("votes-lost-record", "votes", "delete from main.votes", "one_vote_per_ingested_record"),
    # rules on some rows, GX built-ins with row conditions (each SQL before, failing on the same)
    (
        "items-recoreact-title-missing",
        "recoreact__items",
        "update main.items set title = null where corpus = 'recoreact'",
        "recoreact_items_have_titles",
    ),
    (
        "items-recoreact-title-blank",
        "recoreact__items",
        "update main.items set title = '  ' where corpus = 'recoreact'",
        "recoreact_titles_not_blank",
    ),
    (
        "ratings-scored-not-normalized",
        "ratings",
        "update main.ratings set value_normalized = null where value is not null and scale_min is not null",
        "value_normalized_given_when_scored_on_a_known_scale",
    ),
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

# Corruptions that must only warn (an upstream fact worth seeing, never a blocked build):
# (id, suite, SQL on the copy, warning expectation that must fail)
WARNING_CORRUPTIONS = [
    (
        "ratings-cosrec-raters-merged",
        "cosrec__ratings",
        (
            "update main.ratings set conversation_id = (select min(conversation_id) "
            "from main.ratings where corpus = 'cosrec') where corpus = 'cosrec'"
        ),
        "cosrec_four_or_five_raters",
    ),
    (
        "serp-ends-before-start",
        "serp_views",
        "update main.serp_views set ended_at = started_at - interval 1 second",
        "timings_plausible",
    ),
    (
        "landing-ends-before-start",
        "landing_page_views",
        "update main.landing_page_views set ended_at = started_at - interval 1 second",
        "timings_plausible",
    ),
    (
        "landing-negative-dwell",
        "landing_page_views",
        "update main.landing_page_views set dwell_ms = -1",
        "dwell_not_negative",
    ),
    (
        "query-without-turn",
        "search_queries",
        "update main.search_queries set turn_index = null",
        "query_without_turn",
    ),
    (
        "vote-without-dialogue-a",
        "votes",
        "update main.votes set conversation_id_a = null",
        "dialogue_a_linked",
    ),
    (
        "vote-without-dialogue-b",
        "votes",
        "update main.votes set conversation_id_b = null",
        "dialogue_b_linked",
    ),
    (
        "turn-text-missing",
        "turns",
        "update main.turns set text = null where turn_id = (select min(turn_id) from main.turns where corpus = 'cosrec')",
        "text_turns_have_text",
    ),
    (
        "turn-text-blank",
        "turns",
        "update main.turns set text = ' ' where turn_id = (select min(turn_id) from main.turns where corpus = 'cosrec')",
        "empty_text_turns",
    ),
]
