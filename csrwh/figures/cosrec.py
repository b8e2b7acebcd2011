"""CoSRec: the figures its README states, and the analyses it shows as figures."""

from __future__ import annotations

from csrwh.figures._metric import sql_metric

METRICS = {
    "judged_conversations": sql_metric(
        "distinct `relevance_judgments.conversation_id`",
        "select count(distinct conversation_id) from relevance_judgments",
    ),
    "relevance_judgments": sql_metric(
        "count of `relevance_judgments` rows", "select count(*) from relevance_judgments"
    ),
}


def render(con, R, present: bool) -> None:
    """The README's histograms (added by the authors'-analyses work)."""
