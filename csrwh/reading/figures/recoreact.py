"""RecoReact: the dataset card's counts."""

from __future__ import annotations

from csrwh.reading.figures._metric import sql_metric

METRICS = {
    "recoreact_users": sql_metric(
        "distinct `conversations.user_id` (corpus recoreact)",
        "select count(distinct user_id) from conversations where corpus = 'recoreact'",
    ),
    # a RecoReact turn's source id is '<impression id>:<text field>'
    "recoreact_impressions": sql_metric(
        "distinct (conversation, impression id) over RecoReact `turns` (source turn id `<impression>:<field>`)",
        """select count(distinct conversation_id || '|' || split_part(source_turn_id, ':', 1))
            from turns where corpus = 'recoreact'""",
    ),
    "items": sql_metric(
        "`items` rows (corpus {corpus}, kind {kind})",
        "select count(*) from items where corpus = $corpus and item_kind = $kind",
    ),
}


def render(con, R, present: bool) -> None:
    """Nothing beyond the overview sections."""
