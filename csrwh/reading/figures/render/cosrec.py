"""CoSRec's section of the report: the README's three histograms, warehouse bars with the
README's bars marked, and the mean quality per aspect with 95% intervals, from the SQL of
:mod:`csrwh.reading.figures.cosrec`."""

from __future__ import annotations

from csrwh.reading.figures import cosrec
from csrwh.reading.figures.published import published_values
from csrwh.reading.figures.render import write_tables
from csrwh.reading.plotting import margins, mark_published, text_inches, with_mean_interval


def render(con, R, present: bool) -> None:
    """The README's three histograms, warehouse bars with the README's bars marked, and the
    mean quality per aspect with 95% intervals."""
    import matplotlib.pyplot as plt
    import numpy as np

    average = R.query(con, cosrec.AVERAGE_SQL)
    aspects = R.query(con, cosrec.ASPECT_SQL)
    judgments = R.query(con, cosrec.JUDGMENTS_SQL)
    # Student's t 95% interval over the conversations (ci95_low, ci95_high)
    by_aspect = with_mean_interval(
        R.query(con, cosrec.BY_ASPECT_SQL), "mean", "sd", "n_conversations"
    )
    R.write_table(average, "cosrec_quality_average_histogram")
    R.write_table(aspects, "cosrec_quality_aspect_histogram")
    R.write_table(judgments, "cosrec_judgments_per_intent_histogram")
    R.write_table(by_aspect, "cosrec_quality_by_aspect")
    if not present:
        R.show_absent("cosrec")
        return
    R.show_html(
        "<p>The README's figures, recomputed: bars are the warehouse, black ticks the README's bars "
        "(read off its images; section 2 compares them bin by bin).</p>"
    )
    published = published_values("cosrec", "cosrec.")
    if average.is_empty():
        R.show_html(
            "<p>No quality ratings in this warehouse (they come with CoSRec-Crowd and -Curated).</p>"
        )
    else:
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [1, 1.25]})
        ax = axes[0]
        lows, highs = average["bin_lower"].to_numpy(), average["bin_upper"].to_numpy()
        ax.bar(
            lows,
            average["n_conversations"].to_numpy(),
            width=highs - lows,
            align="edge",
            color="#2f5d8a",
            edgecolor="white",
            label="warehouse",
        )
        mark_published(
            ax,
            [
                (lo + 0.25, published.get(f"cosrec.avg_quality.{lo:.1f}-{hi:.1f}"))
                for lo, hi in zip(lows, highs)
            ],
            260,
            "README figure",
        )
        ax.set_xticks(np.append(lows, highs[-1]))
        ax.set_xlabel("average rating (mean of the four aspect means)")
        ax.set_ylabel("conversations")
        ax.set_title("Average quality per conversation")
        ax.legend(fontsize=8, frameon=False, loc="upper left")
        ax = axes[1]
        names = [a for a in cosrec.README_ASPECTS if a in set(aspects["aspect"].to_list())]
        names += sorted(set(aspects["aspect"].to_list()) - set(names))
        colors = ["#e6b84a", "#4f8a3c", "#2f5d8a", "#5b2a6e", "#999999", "#c0504d"]
        width = 0.8 / max(len(names), 1)
        for i, name in enumerate(names):
            part = aspects.filter(aspects["aspect"] == name)
            x = part["rating"].to_numpy() - 0.4 + width * (i + 0.5)
            ax.bar(
                x,
                part["n_conversations"].to_numpy(),
                width=width,
                color=colors[i % len(colors)],
                label=name,
            )
            mark_published(
                ax,
                [
                    (xx, published.get(f"cosrec.aspect_rating.{name}.{r}"))
                    for xx, r in zip(x, part["rating"].to_list())
                ],
                60,
                "README figure" if i == 0 else None,
                linewidths=1.5,
            )
        ax.set_xticks(sorted(set(aspects["rating"].to_list())))
        ax.set_xlabel("rating (mean over annotators, rounded half to even)")
        ax.set_ylabel("conversations")
        ax.set_title("Rating per aspect")
        ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        margins(
            fig,
            left=0.6,
            right=text_inches([*names, "README figure"], 8) + 0.55,
            bottom=0.55,
            top=0.3,
            wgap=0.75,
        )
        R.show_figure(fig, "CoSRec quality histograms: average rating and rating per aspect")
        R.show_table(
            average,
            decimals={"bin_lower": 1, "bin_upper": 1, "share": 3},
            caption="Average quality: an average on an edge counts in the upper bin; the last bin includes 5.",
        )

        shown = by_aspect.filter(by_aspect["n_conversations"] > 0)
        subsets = [s for s in ("crowd", "curated", "all") if s in set(shown["subset"].to_list())]
        order = [
            a for a in (*cosrec.README_ASPECTS, "overall") if a in set(shown["aspect"].to_list())
        ]
        fig, ax = plt.subplots(figsize=(9, 3.2))
        width = 0.8 / max(len(subsets), 1)
        for i, subset in enumerate(subsets):
            part = {r["aspect"]: r for r in shown.filter(shown["subset"] == subset).to_dicts()}
            xs = [j - 0.4 + width * (i + 0.5) for j, a in enumerate(order) if a in part]
            ms = [part[a]["mean"] for a in order if a in part]
            lo = [
                part[a]["mean"]
                - (part[a]["ci95_low"] if part[a]["ci95_low"] is not None else part[a]["mean"])
                for a in order
                if a in part
            ]
            hi = [
                (part[a]["ci95_high"] if part[a]["ci95_high"] is not None else part[a]["mean"])
                - part[a]["mean"]
                for a in order
                if a in part
            ]
            ax.errorbar(
                xs,
                ms,
                yerr=[lo, hi],
                fmt="o",
                capsize=3,
                ms=4,
                color=("#2f5d8a", "#d08a1e", "#444444")[i % 3],
                label=subset,
            )
        ax.set_xticks(range(len(order)), order)
        ax.set_xlim(-0.6, len(order) - 0.4)
        ax.set_ylabel("mean rating (1-5)")
        ax.set_xlabel("aspect (overall = mean of the four)")
        ax.set_title("Mean conversation quality per aspect, Student's t 95% interval")
        ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        margins(fig, left=0.6, right=text_inches(subsets, 8) + 0.7, bottom=0.5, top=0.3)
        R.show_figure(fig, "CoSRec mean quality per aspect and subset with 95% intervals")
        R.show_table(
            by_aspect,
            decimals={"mean": 3, "sd": 3, "ci95_low": 3, "ci95_high": 3},
            caption="Means over conversations of each conversation's mean rating; "
            "Student's t interval mean ± t(0.975, n−1)·sd/√n.",
        )

    if judgments.is_empty():
        R.show_html(
            "<p>No relevance judgments in this warehouse (they come with CoSRec-Curated).</p>"
        )
        return
    fig, ax = plt.subplots(figsize=(10, 3.4))
    colors = {2: "#e6b84a", 1: "#4f8a3c", 0: "#2f5d8a"}
    width = 25 / 3.6
    for i, grade in enumerate((2, 1, 0)):
        part = judgments.filter(judgments["grade"] == grade)
        if part.is_empty():
            continue
        x = part["bin_lower"].to_numpy() + width * (i + 0.5) + 1.25
        ax.bar(
            x,
            part["n_intents"].to_numpy(),
            width=width,
            color=colors[grade],
            label=cosrec.GRADE_LABELS[grade],
        )
        mark_published(
            ax,
            [
                (xx, published.get(f"cosrec.judgments_per_intent.{grade}.{lo}-{lo + 25}"))
                for xx, lo in zip(x, part["bin_lower"].to_list())
            ],
            50,
            "README figure" if grade == 2 else None,
            linewidths=1.5,
        )
    top = int(judgments["bin_upper"].max())
    ax.set_xticks(range(0, top + 1, 25))
    ax.set_xlabel("relevance judgments of the grade per intent (bins of 25)")
    ax.set_ylabel("intents")
    ax.set_title("Relevance judgments per intent, by grade")
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    margins(
        fig,
        left=0.6,
        right=text_inches([*cosrec.GRADE_LABELS.values(), "README figure"], 8) + 0.55,
        bottom=0.5,
        top=0.3,
    )
    R.show_figure(fig, "CoSRec relevance judgments per intent by grade")
    n_intents = judgments.filter(judgments["grade"] == 0)["n_intents"].sum()
    R.show_html(
        f"<p>{n_intents:,} judged intents; a count on a bin edge goes to the upper bin.</p>"
    )


# --------------------------------------------------------------------------- relevance judgments


def render_judgments(con, R, present: bool) -> None:
    """The report's CoSRec relevance judgments (:func:`csrwh.reading.figures.cosrec.judgment_tables`):
    grades per intent kind and judged items per topic, tables and plots."""
    import matplotlib.pyplot as plt
    import numpy as np
    import polars as pl

    tables = cosrec.judgment_tables(R, con)
    if not write_tables(R, tables, "cosrec", present):
        return
    grades, per_topic = tables["cosrec_relevance_grades"], tables["cosrec_judged_items_per_topic"]
    if grades.is_empty():
        R.show_html(
            "<p>No relevance judgments in this warehouse (they come with CoSRec-Curated).</p>"
        )
        return
    R.show_table(grades, decimals=3)
    R.show_table(per_topic, decimals=2)
    topic_sizes = R.query(
        con,
        """select judgment_kind, topic_id, count(*) as n_judged from relevance_judgments
                       where corpus = 'cosrec'
                       group by judgment_kind, topic_id order by judgment_kind, topic_id""",
    )
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.0))
    kinds = sorted(set(grades["judgment_kind"].to_list()))
    grade_colors = {0: "#c0504d", 1: "#e6b84a", 2: "#4f8a3c"}
    for i, kind in enumerate(kinds):
        left = 0.0
        part = grades.filter(pl.col("judgment_kind") == kind)
        for grade, share in zip(part["grade"], part["share"]):
            axes[0].barh(
                i,
                share,
                left=left,
                color=grade_colors.get(int(grade), "#999"),
                label=f"grade {grade}" if i == 0 else None,
            )
            left += share
    axes[0].set_yticks(range(len(kinds)), kinds)
    axes[0].set_xlim(0, 1)
    axes[0].set_xlabel("share of judgments")
    axes[0].set_title("Relevance grades per intent kind")
    axes[0].legend(
        fontsize=8, frameon=False, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.25)
    )
    sizes = topic_sizes["n_judged"].to_numpy()
    edges = np.histogram_bin_edges(
        sizes, bins=20
    )  # one set of bins for both kinds, so bars compare
    for kind, color in zip(kinds, ("#2f5d8a", "#d08a1e")):
        vals = topic_sizes.filter(pl.col("judgment_kind") == kind)["n_judged"].to_numpy()
        axes[1].hist(vals, bins=edges, alpha=0.6, color=color, label=kind)
    axes[1].set_xlabel("judged items per topic")
    axes[1].set_ylabel("topics")
    axes[1].set_title("Judged items per topic")
    axes[1].legend(fontsize=8, frameon=False)
    margins(fig, left=text_inches(kinds, 9) + 0.2, right=0.2, bottom=0.85, top=0.3, wgap=0.8)
    R.show_figure(fig, "CoSRec relevance grades and judged items per topic")
