"""Corpus overview: conversation and utterance counts under four filters, plus the
`corpus_stats` mart's per-subset means and shares."""

from __future__ import annotations

import altair as alt
import streamlit as st

from csrwh.reading.dashboard import queries as q
from csrwh.reading.dashboard import ui

ui.page_header(
    "Corpus overview",
    "Counts from the `conversations` mart under the filters; means and shares from `corpus_stats`.",
)

with ui.reader() as db:
    filters = ui.filter_widgets(q.filter_options(db), key="overview")
    data = q.overview(db, filters)
    stats = q.corpus_stats(db, filters)

totals, breakdown = data["totals"], data["breakdown"]
c1, c2, c3, c4, c5 = st.columns(5)
c1.metric("Conversations", ui.fmt_int(totals["n_conversations"]))
c2.metric("Utterances", ui.fmt_int(totals["n_utterances"]))
c3.metric("User utterances", ui.fmt_int(totals["n_user_utterances"]))
c4.metric("System utterances", ui.fmt_int(totals["n_system_utterances"]))
c5.metric("Corpora", ui.fmt_int(totals["n_corpora"]))

if breakdown.empty:
    st.info("No conversation matches these filters.")
    st.stop()

st.subheader("Conversations by corpus and subset")
chart_data = breakdown.assign(corpus_subset=breakdown["corpus"] + " / " + breakdown["subset"])
chart = (
    alt.Chart(chart_data)
    .mark_bar()
    .encode(
        x=alt.X("n_conversations:Q", title="conversations", stack="zero"),
        y=alt.Y("corpus_subset:N", title=None, sort=None, axis=ui.label_axis()),
        color=alt.Color(
            "domain:N",
            scale=ui.category_scale(chart_data["domain"]),
            legend=ui.full_legend("domain / task"),
        ),
        tooltip=["corpus", "subset", "language", "domain", "n_conversations", "n_utterances"],
    )
    .properties(height=max(160, 30 * chart_data["corpus_subset"].nunique()))
)
st.altair_chart(chart, width="stretch")

st.subheader("Breakdown by corpus, subset, language and domain")
st.dataframe(
    breakdown,
    hide_index=True,
    width="stretch",
    column_config={
        "n_conversations": st.column_config.NumberColumn("conversations", format="localized"),
        "n_utterances": st.column_config.NumberColumn("utterances", format="localized"),
        "n_user_utterances": st.column_config.NumberColumn("user utterances", format="localized"),
        "n_system_utterances": st.column_config.NumberColumn(
            "system utterances", format="localized"
        ),
    },
)

st.subheader("Per-subset statistics (`corpus_stats`)")
st.caption(
    "Means per conversation and per utterance (CJK characters count as words) and the share of "
    "conversations with intent labels or ratings, for every subset the filters select."
)
ui.show_table(
    stats.rename(
        columns={
            "mean_turns_per_conversation": "utterances / conv.",
            "mean_user_turns_per_conversation": "user utt. / conv.",
            "mean_merged_turns_per_conversation": "merged turns / conv.",
            "mean_words_per_user_turn": "words / user utt.",
            "mean_words_per_system_turn": "words / system utt.",
            "intent_annotated_share": "intent-labelled",
            "rated_share": "rated",
            "annotated_share": "annotated",
        }
    ),
    formats={
        "utterances / conv.": lambda v: ui.fmt_float(v, 2),
        "user utt. / conv.": lambda v: ui.fmt_float(v, 2),
        "merged turns / conv.": lambda v: ui.fmt_float(v, 2),
        "words / user utt.": lambda v: ui.fmt_float(v, 1),
        "words / system utt.": lambda v: ui.fmt_float(v, 1),
        "intent-labelled": ui.fmt_pct,
        "rated": ui.fmt_pct,
        "annotated": ui.fmt_pct,
    },
)
