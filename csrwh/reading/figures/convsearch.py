"""ConvSearch: Table 1 of the dataset paper and `Dataset_Statistical_Analysis.txt`.

Besides Table 1 (README = paper), the statistical analysis (Dataset_Statistical_Analysis.pdf)
prints the topic shares of Figure 2 and the annotation distributions of Table 2; Figure 4b's
click ratios are drawn only, and were read from the PDF's vector bar heights (see the rows'
explanations in ``notebooks/published_figures/convsearch.csv``). The warehouse side comes
from the marts ``convsearch_topic_distribution``, ``convsearch_annotation_distribution`` and
``convsearch_click_ratio_by_position``, whose yml states the definitions.
"""

from __future__ import annotations

from csrwh.reading.figures._metric import sql_metric

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
    "convsearch_topic_percent": sql_metric(
        "100 × ConvSearch dialogues (Dialogs.json) whose user-annotated topic (`topic_user`, "
        "`conversations.domain_or_task`) is {topic} ÷ all ConvSearch dialogues "
        "(`convsearch_topic_distribution`); compared at the two printed decimals (Python round, half to even)",
        """select case when (select count(*) from conversations where corpus = 'convsearch') > 0
                       then coalesce((select sum(percent_of_dialogues) from convsearch_topic_distribution
                                      where topic = $topic), 0) end""",
    ),
    "convsearch_annotation_percent": sql_metric(
        "100 × annotations of {aspect} with grade {grade} ÷ all given annotations of {aspect} "
        "(Dialogs.json; dialogue-level items once per dialogue, turn-level items once per turn that "
        "carries the field; missing grades not counted; `convsearch_annotation_distribution`); compared "
        "at the two printed decimals (Python round, half to even)",
        """select percent_of_ratings from convsearch_annotation_distribution
            where aspect = $aspect and grade = cast($grade as integer)""",
    ),
    "convsearch_click_ratio": sql_metric(
        "SERP views (SearchBehaviors.json `serp_pagelogs`) with a content click (`clicked_results` of "
        "type content) on the result at rank {position} ('>10': any rank over 10) ÷ all SERP views "
        "(`convsearch_click_ratio_by_position`); compared at 4 decimals (Python round, half to even)",
        "select click_ratio from convsearch_click_ratio_by_position where position = $position",
    ),
}

# Table 1 of the dataset paper, in its order: (statistic, SQL of one value)
BASIC_STATISTICS = (
    ("# Dialogues", "select count(*) from conversations where corpus = 'convsearch'"),
    (
        "Average total turns per dialogue",
        "select avg(n_turns) from conversations where corpus = 'convsearch'",
    ),
    (
        "Average merged turns per dialogue",
        "select avg(n_merged_turns) from conversations where corpus = 'convsearch'",
    ),
    (
        "Average agent queries per dialogue",
        f"select (select count(*) from search_queries) / {_DIALOGUES}",
    ),
    (
        "Average agent queries with clicks per dialogue",
        f"select (select count(*) from search_queries where has_click) / {_DIALOGUES}",
    ),
    ("Average words per agent query", "select avg(n_words) from search_queries"),
    (
        "Average agent landing pages per dialogue",
        f"select (select count(*) from landing_page_views) / {_DIALOGUES}",
    ),
)
BASIC_STATISTICS_SQL = (
    "\nunion all\n".join(
        f"select {i} as statistic_order, '{name}' as statistic, cast(({sql}) as double) as value"
        f" where exists (select 1 from conversations where corpus = 'convsearch')"
        for i, (name, sql) in enumerate(BASIC_STATISTICS, start=1)
    )
    + "\norder by statistic_order"
)
TOPICS_SQL = """select topic, n_dialogues, percent_of_dialogues
                from convsearch_topic_distribution order by topic"""
ANNOTATIONS_SQL = """select level, aspect, rater_kind, grade, n_ratings, n_annotated, percent_of_ratings
                     from convsearch_annotation_distribution order by level, aspect, grade"""
CLICKS_SQL = """select position_order, position, n_clicks, n_serp_views_clicked, n_serp_views, click_ratio
                from convsearch_click_ratio_by_position order by position_order"""
# Table 2's rows, in its order (dialogue level, then turn level)
TABLE2_ITEMS = (
    "satisfaction_user",
    "applicability_user",
    "effort_user",
    "preference_user",
    "difficulty_agent",
    "understand_agent",
    "satisfaction-turn",
    "understand-turn",
    "clarity-turn",
    "difficulty-turn",
)


# --------------------------------------------------------------------------- search behaviour

SEARCH_BEHAVIOUR_SQL = """with dialogues as (select conversation_id from conversations where corpus = 'convsearch'),
       queries as (select conversation_id, count(*) as n_queries, count(*) filter (where has_click) as n_clicked
                   from search_queries group by conversation_id),
       serps as (select conversation_id, count(*) as n_serps from serp_views group by conversation_id),
       landings as (select conversation_id, count(*) as n_landing from landing_page_views group by conversation_id),
       per as (select d.conversation_id, coalesce(q.n_queries, 0) as queries, coalesce(q.n_clicked, 0) as queries_with_clicks,
                      coalesce(s.n_serps, 0) as serp_views, coalesce(l.n_landing, 0) as landing_pages
               from dialogues d left join queries q using (conversation_id) left join serps s using (conversation_id)
               left join landings l using (conversation_id)),
       long as (unpivot per on queries, queries_with_clicks, serp_views, landing_pages into name measure value value)
       select measure, 'per dialogue' as unit, count(*) as n, avg(value) as mean, median(value) as median,
              quantile_cont(value, 0.9) as p90, max(value) as max
       from long group by measure
       union all
       select 'words_per_query', 'per query', count(*), avg(n_words), median(n_words),
              quantile_cont(n_words, 0.9), max(n_words)
       from search_queries having count(*) > 0
       order by unit, measure"""
CLICK_THROUGH_SQL = """select rank, count(*) as n_clicks, count(distinct serp_view_id) as n_serp_views_clicked,
              (select count(*) from serp_views) as n_serp_views,
              count(distinct serp_view_id) / (select count(*) from serp_views) as click_through_rate
       from result_clicks where click_type = 'content' group by rank order by rank"""
DWELL_TIMES_SQL = """with d as (select 'serp' as page_kind, dwell_ms from serp_views where dwell_ms is not null
                  union all
                  select 'landing_page', dwell_ms from landing_page_views where dwell_ms is not null)
       select page_kind, count(*) as n_views, avg(dwell_ms) / 1000 as mean_s,
              quantile_cont(dwell_ms, 0.25) / 1000 as p25_s, median(dwell_ms) / 1000 as median_s,
              quantile_cont(dwell_ms, 0.75) / 1000 as p75_s, quantile_cont(dwell_ms, 0.9) / 1000 as p90_s
       from d group by page_kind order by page_kind"""


def search_behaviour_tables(R, con) -> dict:
    """The report's ConvSearch search-behaviour tables: queries, clicked queries, SERP views and
    landing pages per dialogue and words per query (n, mean, median, p90, max); content clicks
    by rank with the click-through rate and its 95% Wilson interval; dwell times (seconds)."""
    return {
        "convsearch_search_behaviour": R.query(con, SEARCH_BEHAVIOUR_SQL),
        "convsearch_click_through_by_rank": R.with_wilson_interval(
            R.query(con, CLICK_THROUGH_SQL), "n_serp_views_clicked", "n_serp_views"
        ),
        "convsearch_dwell_times": R.query(con, DWELL_TIMES_SQL),
    }
