"""Page: intents and agreement."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from csrwh.reading.dashboard.queries.filters import _corpus_clause
from csrwh.reading.dashboard.queries.reader import Reader


def intent_corpora(db: Reader) -> list[str]:
    frame = db.df("intent_corpora", "select distinct corpus from intent_distribution order by 1")
    return frame["corpus"].tolist()


def intent_distribution(db: Reader, corpora: Sequence[str] = ()) -> pd.DataFrame:
    """The `intent_distribution` mart (primary labels per corpus and scheme)."""
    where, params = _corpus_clause(corpora)
    return db.df(
        "intent_distribution",
        f"""
        select corpus, label_scheme, intent_family, raw_label, n_labels, n_turns, share_of_labels
        from intent_distribution where {where}
        order by corpus, label_scheme, n_labels desc, raw_label
        """,
        params,
    )


def annotator_agreement(db: Reader, corpora: Sequence[str] = ()) -> pd.DataFrame:
    """The `annotator_agreement` mart (Fleiss' kappa, Krippendorff's alpha)."""
    where, params = _corpus_clause(corpora)
    return db.df(
        "annotator_agreement",
        f"""
        select corpus, subject, measure, value, n_units, n_raters_mean, n_ratings
        from annotator_agreement where {where} order by corpus, measure, subject
        """,
        params,
    )


def intent_consensus_summary(db: Reader, corpora: Sequence[str] = ()) -> pd.DataFrame:
    """The `intent_consensus_summary` mart (also the report's table of that name): per corpus and
    scheme, labelled turns, turns with two or more annotators, mean annotators and, over the
    turns with two or more, the mean agreeing share and the unanimous share."""
    where, params = _corpus_clause(corpora)
    return db.df(
        "intent_consensus_summary",
        f"""
        select corpus, label_scheme, n_turns, n_turns_multi, mean_annotators,
               mean_agreement_share, unanimous_share
        from intent_consensus_summary where {where}
        order by corpus, label_scheme
        """,
        params,
    )
