"""Sidebar: the filter widgets' options and the published build's info."""

from __future__ import annotations

from typing import Any

import pandas as pd

from csrwh.reading.dashboard.queries.filters import NONE_LABEL
from csrwh.reading.dashboard.queries.reader import Reader


def filter_options(db: Reader) -> pd.DataFrame:
    """Every (corpus, subset, language, domain) combination with its conversation count; the
    filter widgets take their options from it."""
    return db.df(
        "filter_options",
        f"""
        select corpus, subset, coalesce(language, '{NONE_LABEL}') as language,
               coalesce(domain_or_task, '{NONE_LABEL}') as domain, count(*) as n_conversations
        from conversations group by all order by all
        """,
    )


def build_info(db: Reader) -> dict[str, Any] | None:
    if not db.has_table("build_info"):
        return None
    # timestamps with time zone are shown as UTC wall-clock time
    frame = db.df(
        "build_info",
        "select * replace (cast(built_at as timestamp) as built_at) from build_info order by built_at desc limit 1",
    )
    return None if frame.empty else frame.iloc[0].to_dict()
