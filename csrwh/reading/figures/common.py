"""Metrics any corpus's figures can use: counts and means over `conversations`."""

from __future__ import annotations

from csrwh.reading.figures._metric import sql_metric

_WHERE = "corpus = $corpus and ($subset is null or subset = $subset)"

METRICS = {
    "conversations": sql_metric(
        "count of `conversations` rows (corpus {corpus}, subset {subset})",
        f"select count(*) from conversations where {_WHERE}",
    ),
    "utterances": sql_metric(
        "sum of `conversations.n_turns` — utterances of both sides (corpus {corpus}, subset {subset})",
        f"select coalesce(sum(n_turns), 0) from conversations where {_WHERE}",
    ),
    "user_utterances": sql_metric(
        "sum of `conversations.n_user_turns` — user utterances only (corpus {corpus}, subset {subset})",
        f"select coalesce(sum(n_user_turns), 0) from conversations where {_WHERE}",
    ),
    "systems": sql_metric(
        "distinct `conversations.system_id` (corpus {corpus})",
        "select count(distinct system_id) from conversations where corpus = $corpus",
    ),
    "mean_turns": sql_metric(
        "mean of `conversations.n_turns` (corpus {corpus})",
        "select avg(n_turns) from conversations where corpus = $corpus",
    ),
    "mean_merged_turns": sql_metric(
        "mean of `conversations.n_merged_turns` (corpus {corpus})",
        "select avg(n_merged_turns) from conversations where corpus = $corpus",
    ),
    "rated_conversations": sql_metric(
        "distinct conversations with a `ratings` row (corpus {corpus})",
        "select count(distinct conversation_id) from ratings where corpus = $corpus",
    ),
}
