"""Conversation browser: search utterance text, open one conversation and read its turns with
their intent labels and ratings beside them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from csrwh.reading.dashboard import queries as q
from csrwh.reading.dashboard import ui

RESULT_LIMIT = 200

ui.page_header(
    "Conversation browser",
    "Search utterances (or conversation ids), then open a conversation: each turn shows its intent "
    "labels (`intents`, `intent_consensus`) and ratings (`ratings`) beside it.",
)

# ?conversation=<id> opens a conversation (links from other pages); searching or filtering
# drops it, choosing another conversation replaces it, so the URL always names what is shown.
requested = st.query_params.get("conversation")


def _forget_link() -> None:
    st.query_params.pop("conversation", None)


def _remember_choice() -> None:
    st.query_params["conversation"] = st.session_state["browse_open"]


with ui.reader() as db:
    filters = ui.filter_widgets(q.filter_options(db), key="browse", on_change=_forget_link)
    text = st.text_input(
        "Search text",
        key="browse_text",
        placeholder="e.g. thriller, 推荐, CoSRec-Crowd_12 ...",
        on_change=_forget_link,
    )
    results = q.search_conversations(db, text, filters, limit=RESULT_LIMIT)
    n_matches = int(results["n_matches"].iloc[0]) if len(results) else 0

    st.caption(
        f"{ui.fmt_int(n_matches)} conversation(s) match"
        + (f"; the first {RESULT_LIMIT} are listed" if n_matches > RESULT_LIMIT else "")
        + "."
    )
    ids = results["conversation_id"].tolist()
    if requested and requested not in ids:
        ids = [requested, *ids]
    if not ids:
        st.info("No conversation matches. Clear the search text or the filters.")
        st.stop()

    with st.expander("Matching conversations", expanded=bool(text)):
        st.dataframe(
            results.drop(columns=["n_matches"]),
            hide_index=True,
            column_config={
                "snippet": st.column_config.TextColumn("first matching utterance", width="large")
            },
        )

    labels = dict(zip(results["conversation_id"], results["snippet"].map(ui.txt)))
    chosen = st.selectbox(
        "Open conversation",
        ids,
        index=ids.index(requested) if requested in ids else 0,
        key="browse_open",
        format_func=lambda cid: f"{cid} · {labels.get(cid, '')[:70]}",
        on_change=_remember_choice,
    )
    header = q.conversation(db, chosen)
    if header is None:
        st.warning(f"Conversation {ui.escape_md(chosen)} is not in this warehouse.")
        st.stop()
    turns = q.conversation_turns(db, chosen)
    intents = q.conversation_intents(db, chosen)
    ratings = q.conversation_ratings(db, chosen)
    rating_means = q.conversation_rating_means(db, chosen)
    votes = q.conversation_votes(db, chosen) if header["corpus"] == "crsarena" else pd.DataFrame()

st.divider()
st.subheader(ui.escape_md(chosen))  # an id is text: no Markdown from the corpus
st.markdown(
    " · ".join(
        part
        for part in (
            f"**{ui.escape_md(header['corpus'])}** / {ui.escape_md(header['subset'])}",
            ui.escape_md(header["domain_or_task"]),
            f"language **{ui.escape_md(header['language']) or ui.DASH}**",
            f"system {ui.escape_md(header['system_id'])}" if ui.txt(header["system_id"]) else None,
            f"user {ui.escape_md(header['user_id'])}" if ui.txt(header["user_id"]) else None,
            f"sentiment **{ui.escape_md(header['user_sentiment'])}**"
            if ui.txt(header["user_sentiment"])
            else None,
        )
        if part
    )
)
meta = st.columns(4)
meta[0].metric("Utterances", ui.fmt_int(header["n_turns"]))
meta[1].metric("User utterances", ui.fmt_int(header["n_user_turns"]))
meta[2].metric("System utterances", ui.fmt_int(header["n_system_turns"]))
meta[3].metric(
    "User satisfaction",
    ui.fmt_float(header["user_satisfaction"], 2),
    help="In [0,1] where the corpus gives it (see the conversations mart).",
)

if not rating_means.empty:
    st.markdown("**Conversation-level ratings**")
    ui.show_table(
        rating_means.assign(
            scale=rating_means["scale_min"].map(ui.fmt_value)
            + "–"
            + rating_means["scale_max"].map(ui.fmt_value)
        )[["aspect", "rater_kind", "n_ratings", "mean_value", "scale", "higher_is_better"]],
        formats={"mean_value": lambda v: ui.fmt_float(v, 2), "n_ratings": ui.fmt_int},
    )
if not votes.empty:
    st.markdown("**CRS Arena battles of this conversation**")
    ui.show_table(votes[["environment", "system_id", "opponent", "result", "feedback"]])

st.markdown("**Turns**")
turn_ratings = ratings[ratings["turn_index"].notna()]
intents_by_turn = {int(k): g for k, g in intents.groupby("turn_index")}
ratings_by_turn = {int(k): g for k, g in turn_ratings.groupby("turn_index")}

for turn in turns.itertuples(index=False):
    idx = int(turn.turn_index)
    left, right = st.columns([3, 2], vertical_alignment="top")
    with left, st.chat_message("user" if turn.role == "user" else "assistant"):
        st.caption(f"turn {idx} · {turn.role} · {ui.fmt_int(turn.n_words)} words")
        if ui.flag(turn.is_image):
            st.markdown("*[image]*")
        # as text: corpus Markdown must not fetch images or make headings; a long one cut
        ui.show_long_text(turn.text, key=f"whole_{chosen}_{idx}")
        if ui.txt(turn.text_translation):
            with st.expander("translation"):
                ui.show_text(turn.text_translation)
    with right:
        labels_here = intents_by_turn.get(idx)
        if labels_here is not None:
            lines = []
            for scheme, group in labels_here.groupby("label_scheme", sort=False):
                first = group.iloc[0]
                consensus = ""
                if pd.notna(first["majority_family"]):
                    consensus = (
                        f" — consensus **{ui.escape_md(first['majority_family'])}** "
                        f"({ui.fmt_int(first['n_agreeing'])}/{ui.fmt_int(first['n_annotators'])})"
                    )
                labels_txt = "; ".join(
                    f"{r.annotator}: {r.raw_label}" + ("" if r.is_primary else " (secondary)")
                    for r in group.itertuples(index=False)
                )
                lines.append(
                    f":material/label: {ui.escape_md(scheme)}{consensus}  \n{ui.escape_md(labels_txt)}"
                )
                queries_txt = group["standalone_query"].dropna().unique().tolist()
                if queries_txt:
                    lines.append(f":material/search: *{ui.escape_md(queries_txt[0])}*")
            st.markdown("  \n".join(lines))
        rated = ratings_by_turn.get(idx)
        if rated is not None:
            st.markdown(
                ":material/star: "
                + "; ".join(
                    f"{ui.escape_md(r.aspect)} = {ui.fmt_value(r.value)}"
                    + f" ({ui.escape_md(r.rater_kind)}"
                    + (f" {ui.escape_md(r.rater_id)})" if ui.txt(r.rater_id) else ")")
                    for r in rated.itertuples(index=False)
                )
            )
