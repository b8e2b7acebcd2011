"""Streamlit helpers shared by the pages: the warehouse reader, filter widgets, formatting.

Nothing here computes a figure; numbers come from :mod:`csrwh.dashboard.queries`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from csrwh import config
from csrwh.dashboard import queries as q
from csrwh.errors import CsrwhError

DASH = "—"


def warehouse() -> q.Warehouse:
    """The published warehouse: $CSRWH_WAREHOUSE (set by `csrwh dashboard`), else the default."""
    return q.Warehouse(config.resolve_warehouse())


@contextmanager
def reader() -> Iterator[q.Reader]:
    """A read-only reader for this page run; shows a clear error (and stops the page) when the
    warehouse is missing or a mart cannot be read."""
    wh = warehouse()
    try:
        with wh.open() as db:
            try:
                yield db
            except duckdb.Error as exc:
                st.error(f"Query failed: {str(exc).splitlines()[0]}")
                st.caption(
                    "Is the warehouse built by this version of csrwh? Rebuild it with `csrwh build`."
                )
                st.stop()
    except CsrwhError as exc:
        st.error(exc.message)
        if exc.hint:
            st.caption(f"Hint: {exc.hint}")
        st.stop()


# ---------------------------------------------------------------------------------------------
# formatting (display only)
# ---------------------------------------------------------------------------------------------


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        return isinstance(value, float) and math.isnan(value)
    except TypeError:
        return False


def fmt_int(value: Any) -> str:
    return DASH if _missing(value) else f"{int(value):,}"


def fmt_float(value: Any, digits: int = 3) -> str:
    return DASH if _missing(value) else f"{float(value):,.{digits}f}"


def fmt_pct(value: Any, digits: int = 1) -> str:
    return DASH if _missing(value) else f"{float(value) * 100:.{digits}f}%"


def fmt_value(value: Any) -> str:
    """A rating value as given: 4 not 4.0, 0.5 stays 0.5."""
    if _missing(value):
        return DASH
    value = float(value)
    return f"{value:g}"


def txt(value: Any) -> str:
    """A possibly missing text value (None, NaN, NA) as a string ("" when missing)."""
    return "" if _missing(value) else str(value)


def flag(value: Any) -> bool:
    """A possibly missing boolean (NULL counts as false)."""
    return False if _missing(value) else bool(value)


def escape_md(text: Any) -> str:
    """Text for st.markdown: keep Markdown, but no LaTeX ($) and no HTML."""
    text = txt(text)
    if not text:
        return ""
    return text.replace("\\$", "$").replace("$", "\\$").replace("<", "&lt;")


def show_table(frame: pd.DataFrame, formats: dict[str, Any] | None = None, **kwargs) -> None:
    """A small static table (HTML, so its text is searchable and readable in screenshots)."""
    shown = frame.copy()
    for column, fmt in (formats or {}).items():
        if column in shown:
            shown[column] = shown[column].map(fmt)
    st.table(shown, hide_index=True, **kwargs)


# ---------------------------------------------------------------------------------------------
# filters
# ---------------------------------------------------------------------------------------------

FILTER_LABELS = {
    "corpus": "Corpus",
    "subset": "Subset",
    "language": "Language",
    "domain": "Domain / task",
}


def filter_widgets(
    options: pd.DataFrame, key: str, container: Any = None, on_change: Any = None
) -> q.Filters:
    """Four multiselects (corpus, subset, language, domain); each offers the values left by the
    filters to its left. Empty = all. Widget keys: ``<key>_<name>``."""
    container = container or st
    cols = container.columns(4)
    chosen: dict[str, tuple[str, ...]] = {}
    remaining = options
    for col, name in zip(cols, FILTER_LABELS):
        values = sorted(remaining[name].dropna().unique().tolist())
        state_key = f"{key}_{name}"
        if state_key in st.session_state:  # drop selections no longer offered
            st.session_state[state_key] = [v for v in st.session_state[state_key] if v in values]
        picked = col.multiselect(
            FILTER_LABELS[name], values, key=state_key, placeholder="All", on_change=on_change
        )
        chosen[name] = tuple(picked)
        if picked:
            remaining = remaining[remaining[name].isin(picked)]
    return q.Filters(**chosen)


def page_header(title: str, caption: str) -> None:
    st.title(title)
    st.caption(caption)
