"""ConvSearch search behaviour: for a chosen turn, the agent's queries, the result pages it
viewed, the results it clicked and the landing pages it read (with helpfulness)."""

from __future__ import annotations

from urllib.parse import quote

import pandas as pd
import streamlit as st

from csrwh.reading.dashboard import queries as q
from csrwh.reading.dashboard import ui


def _trail_column(
    column, title: str, frame: pd.DataFrame, query_id, empty_text: str, describe
) -> None:
    """One column of a query's trail: the rows of `frame` for `query_id`, each described."""
    with column:
        st.markdown(f"**{title}**")
        rows = frame[frame["query_id"] == query_id]
        if rows.empty:
            st.caption(empty_text)
        for row in rows.itertuples(index=False):
            st.markdown(describe(row))


ui.page_header(
    "ConvSearch search behaviour",
    "query → search-engine result page (SERP) → clicks → landing pages, from `search_queries`, "
    "`serp_views`, `result_clicks` and `landing_page_views`.",
)

with ui.reader() as db:
    summary = q.search_summary(db)
    if summary["n_queries"] == 0:
        st.info(
            "No ConvSearch search behaviour in this warehouse (`search_queries` is empty): the "
            "ConvSearch corpus was not part of this build."
        )
        st.stop()
    engines = q.search_engines(db)
    turns = q.search_turns(db)
    labels = [
        f"{r.conversation_id} · turn {ui.fmt_int(r.turn_index)} · {r.n_queries} "
        f"quer{'y' if r.n_queries == 1 else 'ies'} · {ui.txt(r.turn_text)[:40]}"
        for r in turns.itertuples(index=False)
    ]
    picked = st.selectbox("Turn", labels, key="search_turn")
    row = turns.iloc[labels.index(picked)]
    turn_index = None if pd.isna(row["turn_index"]) else int(row["turn_index"])
    trail = q.search_trail(db, row["conversation_id"], turn_index)

c = st.columns(6)
c[0].metric("Queries", ui.fmt_int(summary["n_queries"]))
c[1].metric("Dialogues with queries", ui.fmt_int(summary["n_conversations"]))
c[2].metric("SERP views", ui.fmt_int(summary["n_serp_views"]))
c[3].metric("Result clicks", ui.fmt_int(summary["n_clicks"]))
c[4].metric("Landing pages", ui.fmt_int(summary["n_landing_pages"]))
c[5].metric("Queries with a click", ui.fmt_pct(summary["click_share"]))
with st.expander("Per search engine"):
    ui.show_table(
        engines,
        formats={
            "n_queries": ui.fmt_int,
            "click_share": ui.fmt_pct,
            "mean_query_words": lambda v: ui.fmt_float(v, 1),
        },
    )

st.divider()
st.subheader(f"{ui.escape_md(row['conversation_id'])} · turn {ui.fmt_int(turn_index)}")
link = f"./conversations?conversation={quote(row['conversation_id'])}"
st.markdown(f"[Open the conversation in the browser]({link})")
if not trail["turn"].empty:
    t = trail["turn"].iloc[0]
    with st.chat_message("user" if t["role"] == "user" else "assistant"):
        ui.show_text(t["text"])  # as text: no Markdown from the corpus

serps, clicks, landing = trail["serp_views"], trail["clicks"], trail["landing_pages"]
for query in trail["queries"].itertuples(index=False):
    with st.container(border=True):
        st.markdown(
            f"**Query** {ui.escape_md(query.query_id)} · {ui.escape_md(query.source_engine)} · "
            f"{str(query.queried_at)[:19]}  \n"
            f"### {ui.escape_md(query.query_text)}"
        )
        cols = st.columns(3)
        _trail_column(
            cols[0],
            "SERP views",
            serps,
            query.query_id,
            "none",
            lambda s: (
                f"page {ui.fmt_int(s.page_number)} · {ui.fmt_float(s.dwell_ms / 1000, 1)} s  \n"
                + ui.md_link(ui.txt(s.url)[:60] + "…", s.url)
            ),
        )
        _trail_column(
            cols[1],
            "Clicks",
            clicks,
            query.query_id,
            "no click",
            lambda k: (
                f"rank {ui.fmt_int(k.rank)} · {ui.escape_md(k.click_type)}  \n"
                + ui.md_link(ui.txt(k.url)[:60] + "…", k.url)
            ),
        )
        _trail_column(
            cols[2],
            "Landing pages",
            landing,
            query.query_id,
            "none",
            lambda p: (
                f"helpfulness **{ui.fmt_value(p.helpfulness)}**/4 · "
                f"{ui.fmt_float(p.dwell_ms / 1000, 1)} s  \n"
                + ui.md_link(ui.txt(p.url)[:60], p.url)
            ),
        )
