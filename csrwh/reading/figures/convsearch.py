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
from csrwh.reading.report import interval_errors, margins, text_inches, with_wilson_interval

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


def _published(prefix: str) -> dict[str, float]:
    from csrwh.reading.figures import load_published

    return {
        r["figure_id"]: float(r["published"])
        for r in load_published()
        if r["corpus"] == "convsearch" and r["figure_id"].startswith(prefix)
    }


def render(con, R, present: bool) -> None:
    """Table 1, the topic shares (Figure 2), Table 2 and the click ratio by position (Figure 4b),
    each beside the published numbers."""
    import matplotlib.pyplot as plt
    import numpy as np
    import polars as pl

    basic = R.query(con, BASIC_STATISTICS_SQL)
    topics = R.query(con, TOPICS_SQL)
    annotations = R.query(con, ANNOTATIONS_SQL)
    clicks = with_wilson_interval(R.query(con, CLICKS_SQL), "n_serp_views_clicked", "n_serp_views")
    R.write_table(basic, "convsearch_basic_statistics")
    R.write_table(topics, "convsearch_topic_distribution")
    R.write_table(annotations, "convsearch_annotation_distribution")
    R.write_table(clicks, "convsearch_click_ratio_by_position")
    if not present:
        R.show_absent("convsearch")
        return
    published = _published("convsearch.")
    table1_ids = (
        "convsearch.dialogues",
        "convsearch.turns",
        "convsearch.merged_turns",
        "convsearch.queries",
        "convsearch.clicked_queries",
        "convsearch.query_words",
        "convsearch.landing_pages",
    )
    R.show_table(
        basic.with_columns(
            pl.Series(
                "published",
                [published.get(i) for i in table1_ids][: basic.height],
                dtype=pl.Float64,
            )
        ).drop("statistic_order"),
        decimals=2,
        caption="Table 1 of the dataset paper: warehouse and published.",
    )

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
    ax = axes[0]
    # the warehouse's topics and the published ones (a published topic the warehouse lacks shows as 0)
    topic_share = dict(zip(topics["topic"].to_list(), topics["percent_of_dialogues"].to_list()))
    names = sorted(
        {t for t in topic_share if t is not None}
        | {k.split(".", 2)[2] for k in published if k.startswith("convsearch.topic.")}
    )
    names += [None] if None in topic_share else []
    labels = [t if t is not None else "(none)" for t in names]
    ax.bar(
        range(len(names)),
        [topic_share.get(t, 0.0) for t in names],
        color="#4f8a3c",
        label="warehouse",
    )
    pub = [(i, published.get(f"convsearch.topic.{t}")) for i, t in enumerate(names)]
    pub = [(i, y) for i, y in pub if y is not None]
    if pub:
        ax.scatter(
            *zip(*pub),
            marker="_",
            s=200,
            color="black",
            linewidths=2,
            zorder=3,
            label="published (Figure 2)",
        )
    ax.set_xticks(range(len(names)), labels, rotation=30, ha="right")
    ax.set_ylabel("% of dialogues")
    ax.set_xlabel("topic (topic_user)")
    ax.set_title("Dialogue topics")
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax = axes[1]
    if not clicks.is_empty():
        x = np.arange(clicks.height)
        ax.bar(
            x,
            clicks["click_ratio"].to_numpy(),
            color="#2f5d8a",
            label="warehouse (95% Wilson interval)",
            yerr=interval_errors(clicks, "click_ratio"),
            capsize=2,
            error_kw={"elinewidth": 0.8},
        )
        pub = [
            (i, published.get(f"convsearch.click_ratio.{p}"))
            for i, p in enumerate(clicks["position"].to_list())
        ]
        pub = [(i, y) for i, y in pub if y is not None]
        if pub:
            ax.scatter(
                *zip(*pub),
                marker="_",
                s=150,
                color="black",
                linewidths=2,
                zorder=3,
                label="published (Figure 4b)",
            )
        ax.set_xticks(x, clicks["position"].to_list())
        ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_xlabel("ranking position of the clicked result")
    ax.set_ylabel("share of SERP views clicked there")
    ax.set_title("Click ratio by position")
    legend_in = text_inches(["warehouse (95% Wilson interval)", "published (Figure 4b)"], 8) + 0.55
    margins(
        fig,
        left=0.6,
        right=legend_in,
        bottom=text_inches(labels, 9) * 0.5 + 0.55,
        top=0.3,
        wgap=legend_in + 0.6,
    )
    R.show_figure(
        fig,
        "ConvSearch topic shares and click ratio by ranking position, with the published values",
    )

    if annotations.is_empty():
        R.show_html("<p>No ConvSearch annotations in this warehouse.</p>")
        return
    # Table 2 layout: one row per item, one column per grade, warehouse (published)
    items = [a for a in TABLE2_ITEMS if a in set(annotations["aspect"].to_list())]
    items += sorted(set(annotations["aspect"].to_list()) - set(items))
    grades = sorted(set(annotations["grade"].to_list()))
    cells = {(r["aspect"], r["grade"]): r for r in annotations.to_dicts()}
    table = []
    for item in items:
        row = {
            "annotation item": item,
            "level": next(r["level"] for (a, _), r in cells.items() if a == item),
        }
        for g in grades:
            r = cells.get((item, g))
            value = "–" if r is None else f"{r['percent_of_ratings']:.2f}"
            pub = published.get(f"convsearch.table2.{item}.{g}")
            row[str(g)] = value + ("" if pub is None else f" ({pub:.2f})")
        table.append(row)
    R.show_table(
        pl.DataFrame(table),
        right=[str(g) for g in grades],
        caption="Table 2: % of each item's annotations per grade, warehouse (published).",
    )
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(items) + 1.2))
    cmap = plt.get_cmap(
        "Blues"
    )  # sequential: grade order only (for effort and difficulty, high is bad)
    for i, item in enumerate(items):
        left = 0.0
        for g in grades:
            r = cells.get((item, g))
            share = 0.0 if r is None else r["percent_of_ratings"]
            ax.barh(
                i,
                share,
                left=left,
                color=cmap(0.15 + 0.85 * g / max(grades[-1], 1)),
                edgecolor="white",
                linewidth=0.4,
                label=f"grade {g}" if i == 0 else None,
            )
            left += share
    ax.set_yticks(range(len(items)), items, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the item's annotations")
    ax.set_title("Annotation grades per item (Table 2)")
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    margins(
        fig,
        left=text_inches(items, 8) + 0.15,
        right=text_inches([f"grade {g}" for g in grades], 8) + 0.6,
        bottom=0.5,
        top=0.3,
    )
    R.show_figure(fig, "ConvSearch annotation grade shares per item")
