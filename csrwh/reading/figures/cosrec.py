"""CoSRec: the figures its README states, and the analyses it shows as figures.

The README's three histograms (images/quality_assessment_avg_results.png,
images/quality_assessment_features_results.png, images/relevant_per_intent_distribution.png)
print no numbers; their bars were read off the images (see the explanation of each row in
``notebooks/published_figures/cosrec.csv``). The warehouse side comes from the marts
``cosrec_quality_average_histogram``, ``cosrec_quality_aspect_histogram`` and
``cosrec_judgments_per_intent_histogram`` (built on ``conversation_quality`` and
``relevance_judgments``), whose yml states the bins and the rounding.
"""

from __future__ import annotations

from csrwh.reading.figures._metric import fn_metric, rows, sql_metric
from csrwh.reading.report import margins, text_inches, with_mean_interval

# the README figure's legend order, also the order its script evidently summed the aspect means in
README_ASPECTS = ("fluency", "informativeness", "logicality", "coherence")
GRADE_LABELS = {0: "not relevant", 1: "partially relevant", 2: "highly relevant"}

METRICS = {
    "judged_conversations": sql_metric(
        "distinct `relevance_judgments.conversation_id`",
        "select count(distinct conversation_id) from relevance_judgments",
    ),
    "relevance_judgments": sql_metric(
        "count of `relevance_judgments` rows", "select count(*) from relevance_judgments"
    ),
    "cosrec_average_quality_bin": sql_metric(
        "CoSRec conversations rated in quality.jsonl (crowd + curated) whose average quality -- the "
        "mean over the four aspects of each aspect's mean over the annotators (`conversation_quality` "
        "row 'overall', exact to 10 decimals) -- lies in [{lower}, {upper}) "
        "(`cosrec_quality_average_histogram`). Edge rule: an average exactly on an edge counts in the "
        "upper bin (4.0 in [4.0, 4.5)); the last bin [4.5, 5.0] includes 5.0 (numpy.histogram's rule)",
        """select coalesce(sum(n_conversations), 0) from cosrec_quality_average_histogram
            where bin_lower = cast($lower as double)""",
    ),
    "cosrec_aspect_rating_bin": sql_metric(
        "CoSRec conversations rated in quality.jsonl whose mean {aspect} rating over their annotators, "
        "rounded to a whole point half to even (Python round: 4.5 -> 4, 3.5 -> 4), is {rating} "
        "(`cosrec_quality_aspect_histogram`)",
        """select coalesce(sum(n_conversations), 0) from cosrec_quality_aspect_histogram
            where aspect = $aspect and rating = cast($rating as integer)""",
    ),
    "cosrec_judgments_per_intent_bin": sql_metric(
        "curated intents judged in qrels.qrels (distinct `relevance_judgments.intent_id`, an intent's "
        "personalised topics '<intent>#k' pooled) with n judgments of grade {grade} where "
        "{lower} <= n < {upper}; an intent without such judgments has n = 0; a count on an edge "
        "goes to the upper bin (`cosrec_judgments_per_intent_histogram`)",
        """select coalesce(sum(n_intents), 0) from cosrec_judgments_per_intent_histogram
            where grade = cast($grade as integer) and bin_lower = cast($lower as integer)""",
    ),
}


def float_order_averages(con) -> list[float]:
    """Each rated conversation's average quality computed as the README figure's script
    evidently did: the aspect means (mean over annotators, binary floating point) summed in
    the order fluency, informativeness, logicality, coherence, divided by 4 -- no
    correction of the rounding noise (4.0 can come out as 3.9999999999999996)."""
    by_conversation: dict[str, dict[str, list[float]]] = {}
    for conversation_id, aspect, value in rows(
        con,
        """select conversation_id, aspect, value from ratings
           where corpus = 'cosrec' and turn_index is null and item_id is null and value is not null
           order by conversation_id, aspect, rater_id""",
    ):
        by_conversation.setdefault(conversation_id, {}).setdefault(aspect, []).append(value)
    out = []
    for aspects in by_conversation.values():
        if not all(a in aspects for a in README_ASPECTS):
            continue
        total = 0.0
        for aspect in README_ASPECTS:
            values = aspects[aspect]
            total += sum(values) / len(values)
        out.append(total / len(README_ASPECTS))
    return out


@fn_metric(
    "conversations in [{lower}, {upper}) when each average is computed in binary floating point as "
    "(fluency + informativeness + logicality + coherence aspect means) / 4 in that order, without "
    "correcting the rounding noise, and binned as numpy.histogram does"
)
def _average_quality_bin_float_order(con, args) -> float | None:
    lower, upper = float(args["lower"]), float(args["upper"])
    last = upper >= 5.0
    values = float_order_averages(con)
    return float(sum(1 for v in values if lower <= v < upper or (last and v == upper)))


METRICS["cosrec_average_quality_bin_float_order"] = _average_quality_bin_float_order


# --------------------------------------------------------------------------- report section

AVERAGE_SQL = """select bin_lower, bin_upper, n_conversations, share
                 from cosrec_quality_average_histogram order by bin_lower"""
ASPECT_SQL = """select aspect, rating, n_conversations, share
                from cosrec_quality_aspect_histogram order by aspect, rating"""
JUDGMENTS_SQL = """select grade, grade_label, bin_lower, bin_upper, n_intents
                   from cosrec_judgments_per_intent_histogram order by grade, bin_lower"""
# mean over conversations of their per-aspect (and overall) mean, per subset and in all;
# 95% interval: mean +- 1.96 * sd / sqrt(n) (normal approximation), NULL below 2 conversations
BY_ASPECT_SQL = """
    with q as (
        select subset, aspect, mean_value from conversation_quality
        where corpus = 'cosrec' and rater_kind = 'crowd' and mean_value is not null
        union all
        select 'all', aspect, mean_value from conversation_quality
        where corpus = 'cosrec' and rater_kind = 'crowd' and mean_value is not null
    )
    select subset, aspect, count(*) as n_conversations, avg(mean_value) as mean,
           stddev_samp(mean_value) as sd
    from q group by subset, aspect order by subset, aspect"""


def _published(prefix: str) -> dict[str, float]:
    from csrwh.reading.figures import load_published

    return {
        r["figure_id"]: float(r["published"])
        for r in load_published()
        if r["corpus"] == "cosrec" and r["figure_id"].startswith(prefix)
    }


def render(con, R, present: bool) -> None:
    """The README's three histograms, warehouse bars with the README's bars marked, and the
    mean quality per aspect with 95% intervals."""
    import matplotlib.pyplot as plt
    import numpy as np

    average = R.query(con, AVERAGE_SQL)
    aspects = R.query(con, ASPECT_SQL)
    judgments = R.query(con, JUDGMENTS_SQL)
    # Student's t 95% interval over the conversations (ci95_low, ci95_high)
    by_aspect = with_mean_interval(R.query(con, BY_ASPECT_SQL), "mean", "sd", "n_conversations")
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
    published = _published("cosrec.")
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
        marks = [
            (lo + 0.25, published.get(f"cosrec.avg_quality.{lo:.1f}-{hi:.1f}"))
            for lo, hi in zip(lows, highs)
        ]
        marks = [(x, y) for x, y in marks if y is not None]
        if marks:
            ax.scatter(
                *zip(*marks),
                marker="_",
                s=260,
                color="black",
                linewidths=2,
                zorder=3,
                label="README figure",
            )
        ax.set_xticks(np.append(lows, highs[-1]))
        ax.set_xlabel("average rating (mean of the four aspect means)")
        ax.set_ylabel("conversations")
        ax.set_title("Average quality per conversation")
        ax.legend(fontsize=8, frameon=False, loc="upper left")
        ax = axes[1]
        names = [a for a in README_ASPECTS if a in set(aspects["aspect"].to_list())]
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
            pub = [
                (xx, published.get(f"cosrec.aspect_rating.{name}.{r}"))
                for xx, r in zip(x, part["rating"].to_list())
            ]
            pub = [(xx, y) for xx, y in pub if y is not None]
            if pub:
                ax.scatter(
                    *zip(*pub),
                    marker="_",
                    s=60,
                    color="black",
                    linewidths=1.5,
                    zorder=3,
                    label="README figure" if i == 0 else None,
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
        order = [a for a in (*README_ASPECTS, "overall") if a in set(shown["aspect"].to_list())]
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
            label=GRADE_LABELS[grade],
        )
        pub = [
            (xx, published.get(f"cosrec.judgments_per_intent.{grade}.{lo}-{lo + 25}"))
            for xx, lo in zip(x, part["bin_lower"].to_list())
        ]
        pub = [(xx, y) for xx, y in pub if y is not None]
        if pub:
            ax.scatter(
                *zip(*pub),
                marker="_",
                s=50,
                color="black",
                linewidths=1.5,
                zorder=3,
                label="README figure" if grade == 2 else None,
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
        right=text_inches([*GRADE_LABELS.values(), "README figure"], 8) + 0.55,
        bottom=0.5,
        top=0.3,
    )
    R.show_figure(fig, "CoSRec relevance judgments per intent by grade")
    n_intents = judgments.filter(judgments["grade"] == 0)["n_intents"].sum()
    R.show_html(
        f"<p>{n_intents:,} judged intents; a count on a bin edge goes to the upper bin.</p>"
    )
