"""ConvSearch's section of the report: Table 1, the topic shares (Figure 2), Table 2 and the
click ratio by position (Figure 4b), from the SQL of :mod:`csrwh.reading.figures.convsearch`,
each beside the published numbers."""

from __future__ import annotations

from csrwh.reading.figures import convsearch
from csrwh.reading.figures.published import published_values
from csrwh.reading.plotting import interval_errors, margins, text_inches, with_wilson_interval


def render(con, R, present: bool) -> None:
    """Table 1, the topic shares (Figure 2), Table 2 and the click ratio by position (Figure 4b),
    each beside the published numbers."""
    import matplotlib.pyplot as plt
    import numpy as np
    import polars as pl

    basic = R.query(con, convsearch.BASIC_STATISTICS_SQL)
    topics = R.query(con, convsearch.TOPICS_SQL)
    annotations = R.query(con, convsearch.ANNOTATIONS_SQL)
    clicks = with_wilson_interval(
        R.query(con, convsearch.CLICKS_SQL), "n_serp_views_clicked", "n_serp_views"
    )
    R.write_table(basic, "convsearch_basic_statistics")
    R.write_table(topics, "convsearch_topic_distribution")
    R.write_table(annotations, "convsearch_annotation_distribution")
    R.write_table(clicks, "convsearch_click_ratio_by_position")
    if not present:
        R.show_absent("convsearch")
        return
    published = published_values("convsearch", "convsearch.")
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
    items = [a for a in convsearch.TABLE2_ITEMS if a in set(annotations["aspect"].to_list())]
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


# --------------------------------------------------------------------------- search behaviour


def render_search_behaviour(con, R, present: bool, color: str = "#2f5d8a") -> None:
    """The report's ConvSearch search behaviour
    (:func:`csrwh.reading.figures.convsearch.search_behaviour_tables`): the tables, click-through
    by rank and dwell-time histograms; ``color``: the corpus's colour in the report."""
    import matplotlib.pyplot as plt
    import numpy as np
    import polars as pl

    tables = convsearch.search_behaviour_tables(R, con)
    for name, frame in tables.items():
        R.write_table(frame, name)
    if not present:
        R.show_absent("convsearch")
        return
    per_dialogue = tables["convsearch_search_behaviour"]
    ctr = tables["convsearch_click_through_by_rank"]
    dwell = tables["convsearch_dwell_times"]
    R.show_table(per_dialogue, decimals=2)
    R.show_table(
        ctr,
        decimals=3,
        caption="Content clicks by the rank of the clicked result; ci95: Wilson's "
        "95% interval of the click-through rate.",
    )
    R.show_table(dwell, decimals=1, caption="Dwell time in seconds.")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    if not ctr.is_empty():
        axes[0].bar(
            ctr["rank"].to_numpy(),
            ctr["click_through_rate"].to_numpy(),
            color=color,
            yerr=R.interval_errors(ctr, "click_through_rate"),
            capsize=2,
            error_kw={"elinewidth": 0.8},
        )
    axes[0].set_xlabel("rank of the clicked result")
    axes[0].set_ylabel("share of SERP views")
    axes[0].set_title("Click-through by rank (95% Wilson interval)")
    times = R.query(
        con,
        """select 'serp' as page_kind, dwell_ms from serp_views where dwell_ms > 0
                 union all select 'landing_page', dwell_ms from landing_page_views where dwell_ms > 0
                 order by page_kind, dwell_ms""",
    )
    if not times.is_empty():
        bins = np.logspace(
            np.log10(max(times["dwell_ms"].min() / 1000, 0.1)),
            np.log10(times["dwell_ms"].max() / 1000 + 1),
            30,
        )
        for kind, shade in (("serp", "#2f5d8a"), ("landing_page", "#d08a1e")):
            vals = times.filter(pl.col("page_kind") == kind)["dwell_ms"].to_numpy() / 1000
            if len(vals):
                axes[1].hist(vals, bins=bins, alpha=0.6, color=shade, label=kind)
        axes[1].set_xscale("log")
        axes[1].legend(fontsize=8, frameon=False)
    axes[1].set_xlabel("dwell time (s, log)")
    axes[1].set_title("Dwell times")
    margins(fig, left=0.7, right=0.2, bottom=0.5, top=0.3, wgap=0.8)
    R.show_figure(fig, "ConvSearch click-through by rank and dwell time histograms")
