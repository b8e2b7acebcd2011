"""Streamlit entry point: page config, navigation, sidebar with the warehouse's build info.

Run through ``csrwh dashboard`` (or ``python -m csrwh.reading.dashboard``), which passes the warehouse
in ``CSRWH_WAREHOUSE``. Every page opens the published file read-only for its own run only,
so a build can publish beside it; the sidebar notices a newly published file (its stamp
changes) and reruns the page.
"""

from __future__ import annotations

import streamlit as st

from csrwh.reading.dashboard import PAGES, ui
from csrwh.reading.dashboard import queries as q

st.set_page_config(page_title="CSR Warehouse", page_icon=":material/forum:", layout="wide")

pages = [st.Page(p.path, title=p.title, url_path=p.url_path, icon=p.icon) for p in PAGES]


def _home() -> None:
    """``/``: open the first page at its own URL (``/overview``). Streamlit serves its default
    page at ``/`` only, so a visible default page would answer ``/overview`` with "Page not
    found"; this hidden default forwards instead, and every page keeps one URL."""
    st.switch_page(pages[0])


navigation = st.navigation(
    [st.Page(_home, title=PAGES[0].title, url_path="home", default=True, visibility="hidden")]
    + pages
)

wh = ui.warehouse()


@st.fragment(run_every="10s")
def _watch_warehouse() -> None:
    """Rerun the page when a build has published a new file at the warehouse path."""
    stamp = wh.stamp()
    seen = st.session_state.get("_warehouse_stamp")
    st.session_state["_warehouse_stamp"] = stamp
    if seen is not None and stamp is not None and stamp != seen:
        st.toast("A new build was published: reloaded.")
        st.rerun(scope="app")


with st.sidebar:
    st.markdown("**Warehouse** (read-only)")
    st.caption(ui.escape_md(str(wh.path)))
    if wh.exists():
        try:
            with wh.open() as db:
                info = q.build_info(db)
        except Exception as exc:  # noqa: BLE001 - the page shows the real error
            info = None
            st.caption(f"cannot read build info: {exc}")
        if info:
            st.caption(
                f"build `{info.get('build_id')}`  \nbuilt {str(info.get('built_at'))[:19]} UTC"
            )
            if info.get("data_dir"):
                st.caption(f"from {ui.escape_md(info.get('data_dir'))}")
        _watch_warehouse()

navigation.run()
