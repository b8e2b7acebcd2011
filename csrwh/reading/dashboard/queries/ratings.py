"""Page: ratings by aspect."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from csrwh.reading.dashboard.queries.filters import _corpus_clause
from csrwh.reading.dashboard.queries.reader import Reader


def rating_corpora(db: Reader) -> list[str]:
    return db.df("rating_corpora", "select distinct corpus from ratings order by 1")[
        "corpus"
    ].tolist()


def ratings_totals(db: Reader, corpora: Sequence[str] = ()) -> dict[str, int]:
    """Ratings, rated conversations and distinct (corpus, aspect) pairs in the chosen corpora."""
    where, params = _corpus_clause(corpora)
    frame = db.df(
        "ratings_totals",
        f"""
        select count(*) as n_ratings, count(distinct conversation_id) as n_conversations,
               count(distinct (corpus, aspect)) as n_aspects
        from ratings where {where}
        """,
        params,
    )
    return {k: int(v) for k, v in frame.iloc[0].to_dict().items()}


def ratings_by_aspect(db: Reader, corpora: Sequence[str] = ()) -> pd.DataFrame:
    """The `rating_summary` mart (also the report's table of that name): per corpus, aspect,
    rater kind and level (conversation / turn), ratings, rated conversations, mean on the
    aspect's own scale and mean normalised value."""
    where, params = _corpus_clause(corpora)
    return db.df(
        "ratings_by_aspect",
        f"""
        select corpus, aspect, rater_kind, level, n_ratings, n_conversations, mean_value,
               mean_normalized, scale_min, scale_max, higher_is_better
        from rating_summary where {where}
        order by corpus, aspect, rater_kind, level
        """,
        params,
    )


def rating_distribution(db: Reader, corpus: str, aspect: str) -> pd.DataFrame:
    """How often each value was given for one aspect, per rater kind."""
    return db.df(
        "rating_distribution",
        """
        select value, rater_kind, count(*) as n_ratings
        from ratings where corpus = ? and aspect = ?
        group by all order by value, rater_kind
        """,
        [corpus, aspect],
    )


def quality_by_length(db: Reader, corpus: str, aspect: str) -> pd.DataFrame:
    """The `quality_by_length` mart for one corpus and aspect."""
    return db.df(
        "quality_by_length",
        """
        select n_user_turns, n_conversations, n_ratings, mean_value, mean_value_normalized
        from quality_by_length where corpus = ? and aspect = ? order by n_user_turns
        """,
        [corpus, aspect],
    )
