"""The dashboard's query layer: every figure the dashboard shows comes from one function here.

Pages never compute numbers themselves: they call these functions and only lay the frames out
(formatting, pivoting long -> wide for display, charting). Each function takes a
:class:`Reader` (one read-only connection to the published warehouse) and returns a pandas
DataFrame or a plain dict.

The queries live in one module per page, beside the page's view (``views/<page>.py``):
``reader`` (connection lifecycle and timings), ``filters`` and ``sidebar``, then ``corpus_overview``,
``conversations``, ``arena``, ``intents``, ``ratings``, ``search``, ``health`` and
``evaluations`` (the leaderboard page). This package gathers them, so pages read ``q.<function>``.
"""

from __future__ import annotations

from csrwh.reading.dashboard.queries.arena import (
    ENVIRONMENTS,
    arena_environments,
    head_to_head,
    leaderboard,
)
from csrwh.reading.dashboard.queries.conversations import (
    conversation,
    conversation_intents,
    conversation_rating_means,
    conversation_ratings,
    conversation_turns,
    conversation_votes,
    search_conversations,
)
from csrwh.reading.dashboard.queries.corpus_overview import (
    CORPUS_STATS_RATIOS,
    corpus_stats,
    overview,
)
from csrwh.reading.dashboard.queries.evaluations import (
    EVAL_KIND_ORDER,
    UNRECORDED,
    eval_collections,
    eval_kinds,
    eval_leaderboard,
    eval_topic_scores,
    evals_path,
)
from csrwh.reading.dashboard.queries.filters import (
    FILTER_COLUMNS,
    NONE_LABEL,
    Filters,
)
from csrwh.reading.dashboard.queries.health import (
    DQ_COLUMNS,
    DQ_TABLE,
    dq_results,
    dq_runs,
    dq_suites,
    has_dq_results,
    rejected_records,
)
from csrwh.reading.dashboard.queries.intents import (
    annotator_agreement,
    intent_consensus_summary,
    intent_corpora,
    intent_distribution,
)
from csrwh.reading.dashboard.queries.ratings import (
    quality_by_length,
    rating_corpora,
    rating_distribution,
    ratings_by_aspect,
    ratings_totals,
)
from csrwh.reading.dashboard.queries.reader import (
    CONNECT,
    QueryListener,
    QueryTiming,
    Reader,
    Stamp,
    Warehouse,
    add_listener,
    remove_listener,
)
from csrwh.reading.dashboard.queries.search import (
    search_engines,
    search_summary,
    search_trail,
    search_turns,
)
from csrwh.reading.dashboard.queries.sidebar import (
    build_info,
    filter_options,
)

__all__ = [
    "CONNECT",
    "CORPUS_STATS_RATIOS",
    "DQ_COLUMNS",
    "DQ_TABLE",
    "ENVIRONMENTS",
    "EVAL_KIND_ORDER",
    "FILTER_COLUMNS",
    "NONE_LABEL",
    "UNRECORDED",
    "Filters",
    "QueryListener",
    "QueryTiming",
    "Reader",
    "Stamp",
    "Warehouse",
    "add_listener",
    "annotator_agreement",
    "arena_environments",
    "build_info",
    "conversation",
    "conversation_intents",
    "conversation_rating_means",
    "conversation_ratings",
    "conversation_turns",
    "conversation_votes",
    "corpus_stats",
    "dq_results",
    "dq_runs",
    "dq_suites",
    "eval_collections",
    "eval_kinds",
    "eval_leaderboard",
    "eval_topic_scores",
    "evals_path",
    "filter_options",
    "has_dq_results",
    "head_to_head",
    "intent_consensus_summary",
    "intent_corpora",
    "intent_distribution",
    "leaderboard",
    "overview",
    "quality_by_length",
    "rating_corpora",
    "rating_distribution",
    "ratings_by_aspect",
    "ratings_totals",
    "rejected_records",
    "remove_listener",
    "search_conversations",
    "search_engines",
    "search_summary",
    "search_trail",
    "search_turns",
]
