"""Ratings by aspect: every rating in `ratings` summarised per corpus, aspect, rater kind and
level; one aspect's value distribution; rating by conversation length (`quality_by_length`)."""

from __future__ import annotations

import altair as alt
import streamlit as st

from csrwh.reading.dashboard import queries as q
from csrwh.reading.dashboard import ui

ui.page_header(
    "Ratings by aspect",
    "Means on each aspect's own scale and normalised to [0,1] ((value − min) / (max − min), regardless "
    "of direction: see *higher is better*).",
)

with ui.reader() as db:
    corpora = q.rating_corpora(db)
    chosen = st.multiselect("Corpus", corpora, key="ratings_corpus", placeholder="All")
    totals = q.ratings_totals(db, chosen)
    aspects = q.ratings_by_aspect(db, chosen)
    if aspects.empty:
        st.info("No ratings in the chosen corpora.")
        st.stop()
    pairs = aspects[["corpus", "aspect"]].drop_duplicates()
    pair_labels = [f"{c} · {a}" for c, a in pairs.itertuples(index=False)]
    picked = st.selectbox(
        "Aspect for the distribution and the length curve", pair_labels, key="ratings_aspect"
    )
    corpus, aspect = pairs.iloc[pair_labels.index(picked)]
    distribution = q.rating_distribution(db, corpus, aspect)
    by_length = q.quality_by_length(db, corpus, aspect)

c1, c2, c3 = st.columns(3)
c1.metric("Ratings", ui.fmt_int(totals["n_ratings"]))
c2.metric("Rated conversations", ui.fmt_int(totals["n_conversations"]))
c3.metric("Aspects", ui.fmt_int(totals["n_aspects"]))

st.subheader("Mean normalised rating per aspect")
aspects_chart = aspects.assign(
    label=aspects["aspect"] + " (" + aspects["rater_kind"] + ", " + aspects["level"] + ")"
)
chart = (
    alt.Chart(aspects_chart)
    .mark_bar()
    .encode(
        x=alt.X("mean_normalized:Q", title="mean normalised value", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("label:N", title=None, sort=None, axis=ui.label_axis()),
        color=alt.Color(
            "corpus:N",
            scale=ui.category_scale(aspects_chart["corpus"]),
            legend=ui.full_legend("corpus"),
        ),
        opacity=alt.condition("datum.higher_is_better", alt.value(1.0), alt.value(0.5)),
        tooltip=[
            "corpus",
            "aspect",
            "rater_kind",
            "level",
            "n_ratings",
            alt.Tooltip("mean_value:Q", format=".3f"),
            alt.Tooltip("mean_normalized:Q", format=".3f"),
            "scale_min",
            "scale_max",
            "higher_is_better",
        ],
    )
    .properties(height=22 * len(aspects_chart) + 40)
)
st.altair_chart(chart, width="stretch")
st.caption("Faded bars: lower is better (effort, difficulty, hallucination).")
st.dataframe(
    aspects,
    hide_index=True,
    column_config={
        "mean_value": st.column_config.NumberColumn(format="%.3f"),
        "mean_normalized": st.column_config.NumberColumn(format="%.3f"),
    },
)

left, right = st.columns(2)
with left:
    st.subheader(f"{ui.escape_md(aspect)}: values given")
    st.altair_chart(
        alt.Chart(distribution)
        .mark_bar()
        .encode(
            x=alt.X("value:O", title=f"{aspect} ({corpus})"),
            y=alt.Y("n_ratings:Q", title="ratings"),
            color=alt.Color("rater_kind:N", title="rater"),
            xOffset="rater_kind:N",
            tooltip=["value", "rater_kind", "n_ratings"],
        ),
        width="stretch",
    )
with right:
    st.subheader(f"{ui.escape_md(aspect)} by conversation length")
    if by_length.empty:
        st.info(
            "No conversation-level ratings of this aspect (`quality_by_length` has no rows for it)."
        )
    else:
        st.altair_chart(
            alt.Chart(by_length)
            .mark_line(point=True)
            .encode(
                x=alt.X("n_user_turns:Q", title="user utterances in the conversation"),
                y=alt.Y("mean_value:Q", title=f"mean {aspect}"),
                tooltip=[
                    "n_user_turns",
                    "n_conversations",
                    "n_ratings",
                    alt.Tooltip("mean_value:Q", format=".3f"),
                ],
            ),
            width="stretch",
        )
