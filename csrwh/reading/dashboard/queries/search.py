"""Page: ConvSearch search behaviour (query -> SERP -> clicks -> landing pages)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from csrwh.reading.dashboard.queries.reader import Reader


def search_summary(db: Reader) -> dict[str, Any]:
    """Headline counts of the search marts."""
    frame = db.df(
        "search_summary",
        """
        select (select count(*) from search_queries) as n_queries,
               (select count(distinct conversation_id) from search_queries) as n_conversations,
               (select count(*) from serp_views) as n_serp_views,
               (select count(*) from result_clicks) as n_clicks,
               (select count(*) from landing_page_views) as n_landing_pages,
               (select avg(has_click::int) from search_queries) as click_share,
               (select avg(helpfulness) from landing_page_views) as mean_helpfulness
        """,
    )
    row = frame.iloc[0].to_dict()
    return {
        k: (int(v) if k.startswith("n_") else (None if pd.isna(v) else float(v)))
        for k, v in row.items()
    }


def search_engines(db: Reader) -> pd.DataFrame:
    """Per search engine: queries, share with a click, mean query length."""
    return db.df(
        "search_engines",
        """
        select source_engine, count(*) as n_queries, avg(has_click::int) as click_share,
               avg(n_words) as mean_query_words
        from search_queries group by 1 order by n_queries desc, source_engine
        """,
    )


def search_turns(db: Reader) -> pd.DataFrame:
    """Turns that issued queries (the chooser): conversation, turn, queries and the turn's text."""
    return db.df(
        "search_turns",
        """
        select q.conversation_id, q.turn_index, count(*) as n_queries,
               left(any_value(t.text), 80) as turn_text
        from search_queries q
        left join turns t on t.conversation_id = q.conversation_id and t.turn_index = q.turn_index
        group by q.conversation_id, q.turn_index
        order by try_cast(split_part(q.conversation_id, ':', 2) as bigint) nulls last,
                 q.conversation_id, q.turn_index nulls last
        """,
    )


def search_trail(
    db: Reader, conversation_id: str, turn_index: int | None
) -> dict[str, pd.DataFrame]:
    """query -> SERP -> clicks -> landing pages for one turn (``turn_index`` None = queries whose
    turn is unknown). Keys: queries, serp_views, clicks, landing_pages, turn."""
    turn_pred = "q.turn_index = ?" if turn_index is not None else "q.turn_index is null"
    params: list[Any] = [conversation_id] + ([int(turn_index)] if turn_index is not None else [])
    qsel = f"select q.query_id from search_queries q where q.conversation_id = ? and {turn_pred}"
    return {
        "turn": db.df(
            "search_trail_turn",
            "select turn_index, role, text from turns where conversation_id = ? and turn_index = ?",
            [conversation_id, -1 if turn_index is None else int(turn_index)],
        ),
        "queries": db.df(
            "search_trail_queries",
            f"""
            select q.query_id, q.queried_at, q.source_engine, q.query_text, q.n_words, q.has_click
            from search_queries q where q.conversation_id = ? and {turn_pred}
            order by q.queried_at, q.query_id
            """,
            params,
        ),
        "serp_views": db.df(
            "search_trail_serps",
            f"""
            select s.query_id, s.serp_view_id, s.page_number, s.started_at, s.dwell_ms, s.url
            from serp_views s where s.query_id in ({qsel}) order by s.started_at, s.serp_view_id
            """,
            params,
        ),
        "clicks": db.df(
            "search_trail_clicks",
            f"""
            select c.query_id, c.serp_view_id, c.rank, c.click_type, c.url
            from result_clicks c where c.query_id in ({qsel}) order by c.serp_view_id, c.click_id
            """,
            params,
        ),
        "landing_pages": db.df(
            "search_trail_landing",
            f"""
            select l.query_id, l.landing_page_view_id, l.started_at, l.dwell_ms, l.helpfulness, l.url
            from landing_page_views l where l.query_id in ({qsel})
            order by l.started_at, l.landing_page_view_id
            """,
            params,
        ),
    }
