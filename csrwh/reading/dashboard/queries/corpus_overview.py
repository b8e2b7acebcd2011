"""Page: corpus overview (counts under the filters, the `corpus_stats` means and shares)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from csrwh.reading.dashboard.queries.filters import NO_FILTERS, NONE_LABEL, Filters
from csrwh.reading.dashboard.queries.reader import Reader


def overview(db: Reader, filters: Filters = NO_FILTERS) -> dict[str, Any]:
    """Conversation and utterance counts from `conversations` under the filters: ``totals``
    (one dict) and ``breakdown`` (per corpus, subset, language, domain). One query, grouping
    sets, so the totals are exactly the sum of the breakdown."""
    where, params = filters.where("c")
    frame = db.df(
        "overview",
        f"""
        select grouping(corpus, subset, language, domain_or_task) = 15 as is_total,
               corpus, subset, coalesce(language, '{NONE_LABEL}') as language,
               coalesce(domain_or_task, '{NONE_LABEL}') as domain,
               count(*) as n_conversations,
               coalesce(sum(n_turns), 0)::bigint as n_utterances,
               coalesce(sum(n_user_turns), 0)::bigint as n_user_utterances,
               coalesce(sum(n_system_turns), 0)::bigint as n_system_utterances,
               count(distinct corpus) as n_corpora
        from conversations c
        where {where}
        group by grouping sets ((corpus, subset, language, domain_or_task), ())
        order by is_total desc, corpus, subset, language, domain
        """,
        params,
    )
    total = frame[frame["is_total"]]
    totals = (
        total.iloc[0][
            [
                "n_conversations",
                "n_utterances",
                "n_user_utterances",
                "n_system_utterances",
                "n_corpora",
            ]
        ]
        .astype(int)
        .to_dict()
    )
    breakdown = (
        frame[~frame["is_total"]].drop(columns=["is_total", "n_corpora"]).reset_index(drop=True)
    )
    return {"totals": totals, "breakdown": breakdown}


CORPUS_STATS_RATIOS = (
    "mean_turns_per_conversation",
    "mean_user_turns_per_conversation",
    "mean_merged_turns_per_conversation",
    "mean_words_per_user_turn",
    "mean_words_per_system_turn",
    "intent_annotated_share",
    "rated_share",
    "annotated_share",
)


def corpus_stats(db: Reader, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """The `corpus_stats` mart's per-subset means and shares (its counts are not repeated: the
    overview's counts come from :func:`overview`), for the subsets the filters select."""
    where, params = filters.where("c")
    cols = ", ".join(f"s.{c}" for c in CORPUS_STATS_RATIOS)
    return db.df(
        "corpus_stats",
        f"""
        select s.corpus, s.subset, {cols}
        from corpus_stats s
        where (s.corpus, s.subset) in (select c.corpus, c.subset from conversations c where {where})
        order by s.corpus, s.subset
        """,
        params,
    )
