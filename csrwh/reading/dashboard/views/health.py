"""Data health: the expectation results recorded in `main.dq_results` (per run, per suite,
failures first; its documented columns, `queries.DQ_COLUMNS`) and the records the ingest
rejected (the `rejected_records_summary` mart)."""

from __future__ import annotations

import streamlit as st

from csrwh.reading.dashboard import queries as q
from csrwh.reading.dashboard import ui

NO_DQ = "No data-quality results in this warehouse."
#: the failed-expectations table: column -> heading
FAILED_COLUMNS = {
    "suite": "suite",
    "expectation": "expectation",
    "severity": "severity",
    "observed_value": "observed",
    "why": "why it matters",
}

ui.page_header(
    "Data health",
    "Great Expectations results stored by the build's expectations gate / `csrwh validate` "
    "(`main.dq_results`), and ingest rejections.",
)

with ui.reader() as db:
    info = q.build_info(db)
    runs = q.dq_runs(db) if q.has_dq_results(db) else None
    run_id = None
    if runs is not None and not runs.empty:
        run_ids = runs["run_id"].tolist()
        run_id = st.selectbox(
            "Validation run", run_ids, key="health_run",
            format_func=lambda r: f"{r} · {str(runs.loc[runs['run_id'] == r, 'validated_at'].iloc[0])[:19]}",
        )  # fmt: skip
        results = q.dq_results(db, run_id)
        suites = q.dq_suites(db, run_id)
    rejected = q.rejected_records(db)

if info:
    st.caption(
        f"Build `{info.get('build_id')}` · built {str(info.get('built_at'))[:19]} UTC · data `{info.get('data_dir')}`"
    )

st.subheader("Expectations")
if run_id is None:
    st.info(
        f"{NO_DQ} The table `main.dq_results` is written by the expectations gate of `csrwh build` "
        "(or `csrwh validate`); this warehouse was built without it."
    )
else:
    run = runs[runs["run_id"] == run_id].iloc[0]
    c = st.columns(5)
    c[0].metric("Expectations", ui.fmt_int(run["n_expectations"]))
    c[1].metric("Passed", ui.fmt_int(run["n_passed"]))
    c[2].metric("Critical failed", ui.fmt_int(run["n_critical_failed"]))
    c[3].metric("Other failed (warnings)", ui.fmt_int(run["n_other_failed"]))
    c[4].metric("Suites", ui.fmt_int(run["n_suites"]))
    if run["n_build_checks"]:
        st.caption(
            f"Besides: {ui.fmt_int(run['n_build_checks'])} of the build's own checks (volume, "
            f"open vocabularies, lineage completeness), {ui.fmt_int(run['n_build_checks_failed'])} "
            "failed or warned; they are listed below with the expectations."
        )
    failed = results[~results["success"].astype(bool)]
    if failed.empty:
        st.success("Every expectation of this run passed.")
    else:
        st.markdown("**Failed expectations**")
        # five columns that fit the page: a row is a line or three, not a column of wrapped
        # words; the table, type and error of every outcome are in "All outcomes" below
        shown = failed.assign(
            observed_value=failed["observed_value"].where(
                failed["observed_value"].notna(), failed["error"]
            )
        )[list(FAILED_COLUMNS)].rename(columns=FAILED_COLUMNS)
        ui.show_table(shown, formats={"observed": lambda v: ui.shorten(v, 60)})
    left, right = st.columns([2, 3])
    with left:
        st.markdown("**Per suite**")
        st.dataframe(suites, hide_index=True)
    with right:
        st.markdown("**All outcomes**")
        st.dataframe(results, hide_index=True)

st.subheader("Rejected records at ingest")
if rejected is None:
    st.caption(
        "This warehouse has no `rejected_records_summary` mart (built before it existed): "
        "rebuild it to see the ingest's rejections here."
    )
elif rejected.empty:
    st.success("The ingest rejected no record.")
else:
    ui.show_table(rejected, formats={"n_rejected": ui.fmt_int})
