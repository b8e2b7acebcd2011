"""CRS Arena: the `crs_leaderboard` mart (Elo, Bradley-Terry strength with its bootstrap
interval) and the head-to-head record of every pair of systems from `votes`."""

from __future__ import annotations

import altair as alt
import streamlit as st

from csrwh.reading.dashboard import queries as q
from csrwh.reading.dashboard import ui

ui.page_header(
    "CRS Arena leaderboard",
    "CRSArena-Dial pairwise battles: sequential Elo (K 16, the dataset's own analysis), Bradley-Terry "
    "strength on the Elo scale with its 95% bootstrap interval, and the head-to-head matrix from `votes`.",
)

with ui.reader() as db:
    environments = q.arena_environments(db)
    if not environments:
        st.info("No CRS Arena data in this warehouse (`crs_leaderboard` is empty).")
        st.stop()
    environment = st.segmented_control(
        "Environment", environments, default=environments[0], key="arena_env", required=True
    )
    board = q.leaderboard(db, environment)
    pairs = q.head_to_head(db, environment)

ranked = board[board["battles"] > 0]
if ranked.empty:
    st.info(f"No battles in the {ui.escape_md(environment)} environment.")
    st.stop()
leader = ranked.iloc[0]
c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
c1.metric("Leader (Elo)", leader["system_id"])
c2.metric("Leader's Elo", ui.fmt_float(leader["elo"], 0))
c3.metric(
    "Leader's BT strength",
    ui.fmt_float(leader["bt_strength"], 0),
    help=f"95% interval {ui.fmt_float(leader['bt_ci_low'], 0)}–{ui.fmt_float(leader['bt_ci_high'], 0)}",
)
c4.metric("Systems with battles", ui.fmt_int(leader["n_systems_with_battles"]))

st.subheader("Leaderboard")
table = board.assign(
    bt_interval=board["bt_ci_low"].map(lambda v: ui.fmt_float(v, 0))
    + " – "
    + board["bt_ci_high"].map(lambda v: ui.fmt_float(v, 0)),
    record=board["wins"].map(ui.fmt_int) + " / " + board["ties"].map(ui.fmt_int) + " / " + board["losses"].map(ui.fmt_int),
)[
    ["elo_rank", "system_id", "elo", "bt_strength", "bt_interval", "battles", "record", "win_rate",
     "n_conversations", "satisfaction_rate"]
].rename(columns={"elo_rank": "rank", "system_id": "system", "bt_strength": "BT strength",
                  "bt_interval": "BT 95% interval", "record": "W / T / L", "win_rate": "win rate",
                  "n_conversations": "conversations", "satisfaction_rate": "satisfied"})  # fmt: skip
ui.show_table(
    table,
    formats={
        "rank": ui.fmt_int,
        "elo": lambda v: ui.fmt_float(v, 0),
        "BT strength": lambda v: ui.fmt_float(v, 0),
        "battles": ui.fmt_int,
        "win rate": ui.fmt_pct,
        "conversations": ui.fmt_int,
        "satisfied": ui.fmt_pct,
    },
)
st.subheader("Bradley-Terry strength, 95% interval")
base = alt.Chart(ranked).encode(
    y=alt.Y(
        "system_id:N",
        sort=alt.EncodingSortField("bt_strength", order="descending"),
        title=None,
        axis=ui.label_axis(),
    )
)
interval = base.mark_rule(strokeWidth=2).encode(
    x=alt.X("bt_ci_low:Q", title="strength (Elo scale)", scale=alt.Scale(zero=False)),
    x2="bt_ci_high:Q",
)
point = base.mark_point(filled=True, size=70).encode(
    x="bt_strength:Q",
    tooltip=["system_id", alt.Tooltip("bt_strength:Q", format=".0f"), alt.Tooltip("bt_ci_low:Q", format=".0f"),
             alt.Tooltip("bt_ci_high:Q", format=".0f"), alt.Tooltip("elo:Q", format=".0f"), "battles"],
)  # fmt: skip
elo = base.mark_tick(color="#d62728", thickness=2, size=14).encode(x="elo:Q")
st.altair_chart((interval + point + elo).properties(height=30 * len(ranked) + 40), width="stretch")
st.caption("Dot: BT strength; bar: bootstrap interval; red tick: Elo.")

st.subheader("Head-to-head")
st.caption(
    "Row system against column system: colour = row's win rate (ties count as not won), text = "
    "wins / ties / losses. Every vote counts, duplicates included, as in the leaderboard."
)
if pairs.empty:
    st.info("No battles.")
else:
    order = ranked["system_id"].tolist() + sorted(
        set(pairs["system_id"]) - set(ranked["system_id"])
    )
    cells = pairs.assign(
        record=pairs["wins"].astype(str)
        + "/"
        + pairs["ties"].astype(str)
        + "/"
        + pairs["losses"].astype(str)
    )
    heat = alt.Chart(cells).encode(
        x=alt.X(
            "opponent:N",
            sort=order,
            title="opponent",
            axis=alt.Axis(labelAngle=-35, labelOverlap=False),
        ),
        y=alt.Y("system_id:N", sort=order, title="system", axis=alt.Axis(labelOverlap=False)),
    )
    rect = heat.mark_rect().encode(
        color=alt.Color(
            "win_rate:Q", title="win rate", scale=alt.Scale(scheme="redblue", domain=[0, 1])
        ),
        tooltip=[
            "system_id",
            "opponent",
            "battles",
            "wins",
            "ties",
            "losses",
            alt.Tooltip("win_rate:Q", format=".0%"),
        ],
    )
    text = heat.mark_text(fontSize=11).encode(text="record:N")
    st.altair_chart((rect + text).properties(height=34 * len(order) + 60), width="stretch")
    with st.expander("Head-to-head as a table"):
        wide = cells.pivot(index="system_id", columns="opponent", values="record").reindex(
            index=order, columns=order
        )
        st.dataframe(wide.fillna(""), width="stretch")
