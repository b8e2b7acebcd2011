"""Page: conversation browser (search, one conversation's turns, intents, ratings, votes)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from csrwh.reading.dashboard.queries.filters import NO_FILTERS, Filters
from csrwh.reading.dashboard.queries.reader import Reader

_RE2_SPECIAL = set("\\.^$|?*+()[]{}")


def search_conversations(
    db: Reader, text: str = "", filters: Filters = NO_FILTERS, limit: int = 200
) -> pd.DataFrame:
    """Conversations under the filters whose id or any utterance contains ``text``
    (case-insensitive); ``n_hits`` matching utterances, ``snippet`` of the first one (of the
    first utterance when ``text`` is empty) and ``n_matches`` (all matches, before ``limit``)."""
    where, params = filters.where("c")
    needle = text.strip()
    if needle:
        # a case-insensitive RE2 search for the literal text: ~2.5x faster than ILIKE here
        pattern = "(?i)" + "".join("\\" + ch if ch in _RE2_SPECIAL else ch for ch in needle)
        hits = """
            select t.conversation_id, count(*) as n_hits, min(t.turn_index) as first_turn
            from turns t where regexp_matches(t.text, ?) group by 1
        """
        hit_params: list[Any] = [pattern]
        id_match = "or regexp_matches(c.conversation_id, ?)"
        id_params: list[Any] = [pattern]
        join = "left join hits h on h.conversation_id = c.conversation_id"
        keep = f"and (h.conversation_id is not null {id_match})"
    else:
        hits = "select null::varchar as conversation_id, 0 as n_hits, 0 as first_turn where false"
        hit_params, id_params = [], []
        join = "left join hits h on h.conversation_id = c.conversation_id"
        keep = ""
    return db.df(
        "search_conversations",
        f"""
        with hits as ({hits})
        select c.conversation_id, c.corpus, c.subset, c.language, c.domain_or_task, c.system_id,
               c.n_turns, coalesce(h.n_hits, 0) as n_hits,
               left(t.text, 200) as snippet,
               count(*) over () as n_matches
        from conversations c
        {join}
        left join turns t on t.conversation_id = c.conversation_id
                         and t.turn_index = coalesce(h.first_turn, 0)
        where {where} {keep}
        order by c.corpus, c.subset, c.conversation_id
        limit ?
        """,
        [*hit_params, *params, *id_params, limit],
    )


def conversation(db: Reader, conversation_id: str) -> dict[str, Any] | None:
    frame = db.df(
        "conversation", "select * from conversations where conversation_id = ?", [conversation_id]
    )
    return None if frame.empty else frame.iloc[0].to_dict()


def conversation_turns(db: Reader, conversation_id: str) -> pd.DataFrame:
    """The conversation's utterances in order."""
    return db.df(
        "conversation_turns",
        """
        select turn_index, role, text, text_translation, is_image, n_words, created_at
        from turns where conversation_id = ? order by turn_index
        """,
        [conversation_id],
    )


def conversation_intents(db: Reader, conversation_id: str) -> pd.DataFrame:
    """Every intent label of the conversation's turns (one row per turn x annotator x label),
    with the turn's consensus family and agreement from `intent_consensus`."""
    return db.df(
        "conversation_intents",
        """
        select i.turn_index, i.annotator, i.label_scheme, i.raw_label, i.intent_family,
               i.is_primary, i.source, i.standalone_query,
               ic.majority_family, ic.n_agreeing, ic.n_annotators
        from intents i
        left join intent_consensus ic
               on ic.conversation_id = i.conversation_id and ic.turn_index = i.turn_index
              and ic.label_scheme = i.label_scheme
        where i.conversation_id = ?
        order by i.turn_index, i.label_scheme, not i.is_primary, i.annotator, i.raw_label
        """,
        [conversation_id],
    )


def conversation_ratings(db: Reader, conversation_id: str) -> pd.DataFrame:
    """Every rating of the conversation (turn_index NULL = conversation level)."""
    return db.df(
        "conversation_ratings",
        """
        select turn_index, aspect, rater_kind, rater_id, item_id, value, scale_min, scale_max,
               value_normalized, higher_is_better
        from ratings where conversation_id = ?
        order by turn_index nulls first, aspect, rater_kind, rater_id
        """,
        [conversation_id],
    )


def conversation_rating_means(db: Reader, conversation_id: str) -> pd.DataFrame:
    """Conversation-level ratings per aspect: raters and mean (shown above the turns)."""
    return db.df(
        "conversation_rating_means",
        """
        select aspect, rater_kind, count(*) as n_ratings, avg(value) as mean_value,
               any_value(scale_min) as scale_min, any_value(scale_max) as scale_max,
               any_value(higher_is_better) as higher_is_better
        from ratings where conversation_id = ? and turn_index is null
        group by aspect, rater_kind order by aspect, rater_kind
        """,
        [conversation_id],
    )


def conversation_votes(db: Reader, conversation_id: str) -> pd.DataFrame:
    """CRSArena battles the conversation took part in, from this conversation's side."""
    return db.df(
        "conversation_votes",
        """
        select environment, voted_at,
               case when conversation_id_a = ? then system_a else system_b end as system_id,
               case when conversation_id_a = ? then system_b else system_a end as opponent,
               case when winner = 'tie' then 'tie'
                    when (winner = 'a') = (conversation_id_a = ?) then 'win' else 'loss' end as result,
               feedback, is_duplicate
        from votes where conversation_id_a = ? or conversation_id_b = ?
        order by vote_order
        """,
        [conversation_id] * 5,
    )
