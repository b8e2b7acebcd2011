"""Leaderboard: the run evaluations saved with `csrwh eval RUN --save NAME`, read from the
evaluations sidecar `<warehouse stem>.evals.duckdb` beside the warehouse (tables `eval_runs`,
`eval_scores`); one row per run with its aggregate score on each measure."""

from __future__ import annotations

import streamlit as st

from csrwh.errors import CsrwhError
from csrwh.reading.dashboard import queries as q
from csrwh.reading.dashboard import ui

ui.page_header(
    "Run leaderboard",
    "TREC runs evaluated against a corpus' relevance judgments with "
    "`csrwh eval RUN --corpus NAME --save NAME` "
    "(ir_measures; aggregate as trec_eval: the mean over the judged topics each run answers).",
)

with ui.reader() as db:
    info = q.build_info(db)
current_build = (info or {}).get("build_id")
sidecar = q.evals_path(ui.warehouse().path)

if not sidecar.is_file():
    st.info(
        f"No saved evaluations yet: `{sidecar.name}` does not exist beside the warehouse. "
        "Evaluate a run and save it, e.g.\n\n"
        f"`csrwh eval my.run --warehouse {ui.warehouse().path} --save my-run`\n\n"
        "(`csrwh export --trec` writes the qrels and topics to build runs from)."
    )
    st.stop()

try:
    with q.Warehouse(sidecar).open() as evals:
        collections = q.eval_collections(evals)
        collection = (
            st.selectbox("Corpus", collections, key="evals_corpus") if collections else None
        )
        kinds = q.eval_kinds(evals, collection)
        if not kinds:
            st.info(
                f"`{sidecar}` holds no saved evaluation: save one with `csrwh eval RUN --save NAME`."
            )
            st.stop()
        kind = st.segmented_control(
            "Judgments", kinds, default=kinds[0], key="evals_kind", required=True
        )
        board = q.eval_leaderboard(evals, kind, collection)
        runs = sorted(board["run_name"].unique().tolist())
        picked = st.selectbox("Per-topic values of", runs, key="evals_run") if runs else None
        topics = q.eval_topic_scores(evals, picked, kind) if picked else None
except CsrwhError as exc:  # e.g. `csrwh eval --save` is writing it right now
    st.error(ui.escape_md(exc.message))
    st.caption("Is `csrwh eval --save` writing it right now? Reload in a moment.")
    st.stop()

st.caption(f"From `{sidecar}` · {len(runs)} saved run(s) · {collection} · {kind} judgments")
measures = sorted(board["measure"].unique().tolist())
sort_by = st.selectbox("Rank by", measures, key="evals_sort")
wide = board.pivot_table(
    index="run_name", columns="measure", values="value", aggfunc="first", dropna=False
)
facts = board.drop_duplicates("run_name").set_index("run_name")
table = wide.join(
    facts[["n_topics_evaluated", "n_topics_qrels", "n_topics_missing", "build_id", "saved_at"]]
)
table = table.sort_values(sort_by, ascending=False, na_position="last").reset_index()
table.insert(0, "rank", range(1, len(table) + 1))
table["topics"] = (
    table["n_topics_evaluated"].map(ui.fmt_int) + " of " + table["n_topics_qrels"].map(ui.fmt_int)
)
table["this build"] = table["build_id"].map(
    lambda b: "yes" if b is not None and b == current_build else "no"
)
shown = table[
    ["rank", "run_name", *measures, "topics", "n_topics_missing", "this build", "saved_at"]
].rename(
    columns={"run_name": "run", "n_topics_missing": "topics missing", "saved_at": "saved (UTC)"}
)
ui.show_table(
    shown,
    formats={
        **{m: lambda v: ui.fmt_float(v, 4) for m in measures},
        "topics missing": ui.fmt_int,
        "saved (UTC)": lambda v: str(v)[:19],
    },
)
if (table["this build"] == "no").any():
    st.caption(
        "`this build` = no: the run was scored against another build of the warehouse; its judgments "
        "may differ. Re-evaluate with `csrwh eval RUN --save NAME --replace`."
    )

if topics is not None and not topics.empty:
    st.subheader(f"Per topic: {ui.escape_md(picked)}")
    per_topic = topics.pivot_table(
        index="topic_id", columns="measure", values="value", aggfunc="first"
    )
    st.dataframe(per_topic, width="stretch")
