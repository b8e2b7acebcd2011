"""ConvSearch: Table 1 of the dataset paper and `Dataset_Statistical_Analysis.txt`."""

from __future__ import annotations

from csrwh.figures._metric import sql_metric

_DIALOGUES = "nullif((select count(*) from conversations where corpus = 'convsearch'), 0)"

METRICS = {
    "queries_per_dialogue": sql_metric(
        "`search_queries` rows ÷ ConvSearch conversations",
        f"select (select count(*) from search_queries) / {_DIALOGUES}",
    ),
    "clicked_queries_per_dialogue": sql_metric(
        "`search_queries` with `has_click` ÷ ConvSearch conversations",
        f"select (select count(*) from search_queries where has_click) / {_DIALOGUES}",
    ),
    "words_per_query": sql_metric(
        "mean of `search_queries.n_words`", "select avg(n_words) from search_queries"
    ),
    "landing_pages_per_dialogue": sql_metric(
        "`landing_page_views` rows ÷ ConvSearch conversations",
        f"select (select count(*) from landing_page_views) / {_DIALOGUES}",
    ),
}


def render(con, R, present: bool) -> None:
    """The statistical analysis' tables (added by the authors'-analyses work)."""
