"""Streamlit helpers shared by the pages: the warehouse reader, filter widgets, formatting.

Nothing here computes a figure; numbers come from :mod:`csrwh.reading.dashboard.queries`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import duckdb
import pandas as pd
import streamlit as st

from csrwh import config
from csrwh.errors import CsrwhError
from csrwh.reading.dashboard import queries as q

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
                st.error(f"Query failed: {escape_md(str(exc).splitlines()[0])}")
                st.caption(
                    "Is the warehouse built by this version of csrwh? Rebuild it with `csrwh build`."
                )
                st.stop()
    except CsrwhError as exc:
        st.error(escape_md(exc.message))
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


def shorten(value: Any, limit: int) -> str:
    """A possibly missing text cut to ``limit`` characters (an ellipsis marks the cut)."""
    text = txt(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def txt(value: Any) -> str:
    """A possibly missing text value (None, NaN, NA) as a string ("" when missing)."""
    return "" if _missing(value) else str(value)


def flag(value: Any) -> bool:
    """A possibly missing boolean (NULL counts as false)."""
    return False if _missing(value) else bool(value)


_MD_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")


def escape_md(text: Any) -> str:
    """Corpus text inside st.markdown (or an st.table cell, which Streamlit renders as
    Markdown) shown as the text it is: every ASCII punctuation character is backslash-escaped
    (CommonMark lets any be), so no image is fetched, no link, heading, list, table, emphasis,
    LaTeX or HTML is made; line breaks are kept."""
    text = txt(text)
    if not text:
        return ""
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", "  \n")


def md_link(label: Any, url: Any) -> str:
    """A Markdown link whose label and target come from the corpus: the label escaped, the
    target percent-encoded where Markdown would end it (spaces, ``<>()[]``); only http(s)."""
    target = txt(url)
    if not target.lower().startswith(("http://", "https://")):
        return escape_md(label)
    return f"[{escape_md(label)}](<{quote(target, safe=_URL_SAFE)}>)"


_URL_SAFE = "/:?#@!$&'*+,;=%~-._"


def show_text(text: Any, empty: str = "(empty)") -> None:
    """Corpus text as plain text (no Markdown, no HTML), line breaks kept."""
    st.text(txt(text) or empty)


#: characters of one text shown before it is cut (a 5 MB message would make a page of millions
#: of pixels); the whole text is one toggle away
LONG_TEXT_CHARS = 4_000


def show_long_text(text: Any, key: str, limit: int = LONG_TEXT_CHARS) -> None:
    """:func:`show_text`, cut after ``limit`` characters with a toggle (``key``) that shows
    the whole text."""
    full = txt(text)
    if len(full) <= limit:
        show_text(full)
        return
    whole = st.toggle(f"Show the whole text ({len(full):,} characters)", key=key)
    show_text(full if whole else full[:limit] + " …")
    if not whole:
        st.caption(f"The first {limit:,} of {len(full):,} characters.")


def show_table(frame: pd.DataFrame, formats: dict[str, Any] | None = None, **kwargs) -> None:
    """A small static table (HTML, so its text is searchable and readable in screenshots).
    st.table renders text cells as Markdown: every text cell is escaped (:func:`escape_md`)."""
    shown = frame.copy()
    for column, fmt in (formats or {}).items():
        if column in shown:
            shown[column] = shown[column].map(fmt)
    for column in shown.columns:
        if shown[column].dtype == object or pd.api.types.is_string_dtype(shown[column]):
            shown[column] = shown[column].map(
                lambda v: v if _missing(v) else escape_md(v) if isinstance(v, str) else v
            )
    st.table(shown, hide_index=True, **kwargs)


# ---------------------------------------------------------------------------------------------
# charts
# ---------------------------------------------------------------------------------------------

#: Tableau 20 (Vega's ``tableau20``): distinct colours for up to 20 categories, where Vega's
#: default (10 colours) repeats one for the 11th
PALETTE = (
    "#4c78a8", "#9ecae9", "#f58518", "#ffbf79", "#54a24b", "#88d27a", "#b79a20", "#f2cf5b",
    "#439894", "#83bcb6", "#e45756", "#ff9d98", "#79706e", "#bab0ac", "#d67195", "#fcbfd2",
    "#b279a2", "#d6a5c9", "#9e765f", "#d8b5a5",
)  # fmt: skip


def colours(n: int) -> list[str]:
    """``n`` distinct colours: :data:`PALETTE`, then evenly spaced hues (never a repeat)."""
    import colorsys

    out = list(PALETTE[:n])
    extra = n - len(out)
    for i in range(extra):
        r, g, b = colorsys.hls_to_rgb(i / extra, 0.45 + 0.2 * (i % 2), 0.65)
        out.append(f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}")
    return out


def category_scale(values: Any):
    """An Altair colour scale giving every distinct value (in first-seen order) its own colour."""
    import altair as alt

    domain = list(dict.fromkeys(txt(v) for v in values))
    return alt.Scale(domain=domain, range=colours(len(domain)))


def full_legend(title: str | None = None):
    """A legend whose labels are never truncated (``labelLimit`` 0)."""
    import altair as alt

    return alt.Legend(title=title, labelLimit=0)


def label_axis(**kwargs: Any):
    """An axis for category labels: never truncated (``labelLimit`` 0) and never hidden for
    overlap, so every bar has its whole label."""
    import altair as alt

    return alt.Axis(labelLimit=0, labelOverlap=False, **kwargs)


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
