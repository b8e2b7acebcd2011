"""Intents and agreement: label distributions (`intent_distribution`), inter-annotator
agreement (`annotator_agreement`) and turn-level consensus (`intent_consensus`)."""

from __future__ import annotations

import altair as alt
import streamlit as st

from csrwh.reading.dashboard import queries as q
from csrwh.reading.dashboard import ui

ui.page_header(
    "Intents & agreement",
    "Primary intent labels per corpus and label scheme with their shared family; Fleiss' kappa "
    "(intents) and Krippendorff's alpha (quality ratings); how often annotators agree on a turn.",
)

with ui.reader() as db:
    corpora = q.intent_corpora(db)
    chosen = st.multiselect("Corpus", corpora, key="intents_corpus", placeholder="All")
    distribution = q.intent_distribution(db, chosen)
    agreement = q.annotator_agreement(db, chosen)
    consensus = q.intent_consensus_summary(db, chosen)

st.subheader("Inter-annotator agreement")
if agreement.empty:
    st.info("No agreement measure: no subject with two or more annotators in the chosen corpora.")
else:
    ui.show_table(
        agreement.rename(
            columns={"n_units": "units", "n_raters_mean": "raters / unit", "n_ratings": "labels"}
        ),
        formats={
            "value": lambda v: ui.fmt_float(v, 3),
            "units": ui.fmt_int,
            "raters / unit": lambda v: ui.fmt_float(v, 2),
            "labels": ui.fmt_int,
        },
    )
    st.caption("1 = perfect agreement, 0 = chance level, negative = systematic disagreement.")

st.subheader("Turn-level consensus")
if consensus.empty:
    st.info("No labelled turns.")
else:
    ui.show_table(
        consensus.rename(
            columns={
                "n_turns": "labelled turns",
                "n_turns_multi": "turns with ≥2 annotators",
                "mean_annotators": "annotators / turn",
                "unanimous_share": "unanimous",
                "mean_agreement_share": "mean agreeing share",
            }
        ),
        formats={
            "labelled turns": ui.fmt_int,
            "turns with ≥2 annotators": ui.fmt_int,
            "annotators / turn": lambda v: ui.fmt_float(v, 2),
            "unanimous": ui.fmt_pct,
            "mean agreeing share": ui.fmt_pct,
        },
    )

st.subheader("Label distribution")
if distribution.empty:
    st.info("No intent labels in the chosen corpora.")
    st.stop()
for (corpus, scheme), group in distribution.groupby(["corpus", "label_scheme"], sort=False):
    st.markdown(f"**{ui.escape_md(corpus)}** · {ui.escape_md(scheme)}")
    chart = (
        alt.Chart(group)
        .mark_bar()
        .encode(
            x=alt.X(
                "share_of_labels:Q", title="share of primary labels", axis=alt.Axis(format="%")
            ),
            y=alt.Y("raw_label:N", sort="-x", title=None, axis=ui.label_axis()),
            color=alt.Color(
                "intent_family:N",
                scale=ui.category_scale(group["intent_family"]),
                legend=ui.full_legend("family"),
            ),
            tooltip=[
                "raw_label",
                "intent_family",
                "n_labels",
                "n_turns",
                alt.Tooltip("share_of_labels:Q", format=".1%"),
            ],
        )
        .properties(height=28 * len(group) + 30)
    )
    st.altair_chart(chart, width="stretch")
with st.expander("Label distribution as a table"):
    st.dataframe(
        distribution,
        hide_index=True,
        column_config={"share_of_labels": st.column_config.NumberColumn(format="percent")},
    )
