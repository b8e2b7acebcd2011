"""RecLLMSim quality by conversation length, in the report's section on quality ratings
(:func:`csrwh.reading.figures.recllmsim.quality_by_user_turns_tables`): mean rating per aspect
by the number of user messages, table and plot."""

from __future__ import annotations

from csrwh.reading.figures.recllmsim import MIN_CONVERSATIONS, quality_by_user_turns_tables
from csrwh.reading.plotting import margins


def render_quality_by_user_turns(con, R, present: bool) -> None:
    """The table of mean ratings by user turns and one panel per rater kind (LLM judge, human
    questionnaire) of the normalised means with 95% intervals."""
    import matplotlib
    import matplotlib.pyplot as plt
    import polars as pl

    tables = quality_by_user_turns_tables(R, con)
    for name, frame in tables.items():
        R.write_table(frame, name)
    qbl, qbl_binned = tables.values()
    if not present:
        R.show_absent("recllmsim")
        return
    if qbl.is_empty():
        R.show_html("<p>No conversation-level RecLLMSim ratings in this warehouse.</p>")
        return
    wide = qbl.pivot(
        on="aspect", index="n_user_turns", values="mean_value", sort_columns=True
    ).sort("n_user_turns")
    counts = qbl.group_by("n_user_turns").agg(pl.col("n_conversations").max()).sort("n_user_turns")
    R.show_table(
        counts.join(wide, on="n_user_turns").rename({"n_conversations": "conversations"}),
        decimals=2,
        caption="Mean rating per aspect (each aspect on its own scale) by number of user turns.",
    )
    panels = [
        (kind, title)
        for kind, title in (
            ("llm", "LLM judge, LLM-agent conversations"),
            ("user", "Human users' questionnaire"),
        )
        if kind in set(qbl_binned["rater_kind"].to_list())
    ]
    fig, axes = plt.subplots(
        1, len(panels), figsize=(5.2 * len(panels) + 1.6, 4.0), squeeze=False, sharey=True
    )
    for ax, (kind, title) in zip(axes[0], panels):
        part = qbl_binned.filter((pl.col("rater_kind") == kind) & pl.col("is_plotted"))
        aspects = sorted(set(part["aspect"].to_list()))
        colors = matplotlib.colormaps["tab10"].colors
        width = 0.6 / max(len(aspects), 1)
        for j, aspect in enumerate(aspects):
            sub = part.filter(pl.col("aspect") == aspect).sort("n_user_turns_bin")
            ax.errorbar(
                sub["n_user_turns_bin"].to_numpy() + (j - (len(aspects) - 1) / 2) * width,
                sub["mean_normalized"].to_numpy(),
                yerr=R.interval_errors(sub, "mean_normalized"),
                marker="o",
                ms=3,
                lw=1,
                capsize=1.5,
                elinewidth=0.7,
                color=colors[j % len(colors)],
                label=aspect.removeprefix("questionnaire:"),
            )
        bins = sorted(set(part["n_user_turns_bin"].to_list()))
        tails = set(part.filter(pl.col("is_tail"))["n_user_turns_bin"].to_list())
        ax.set_xticks(bins, [f"≥{b}" if b in tails else str(b) for b in bins])
        ax.set_xlabel("user turns in the conversation")
        ax.set_title(title)
        if aspects:
            ax.legend(
                fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2
            )
        else:
            ax.text(
                0.5,
                0.5,
                f"no turn count with ≥ {MIN_CONVERSATIONS} conversations",
                ha="center",
                va="center",
                transform=ax.transAxes,
            )
    axes[0][0].set_ylabel("mean rating, normalised (95% t interval)")
    axes[0][0].set_ylim(-0.02, 1.02)
    fig.suptitle("RecLLMSim quality by conversation length", fontsize=10)
    margins(fig, left=0.7, right=0.2, bottom=1.2, top=0.6, wgap=0.3)
    R.show_figure(
        fig, "RecLLMSim mean normalised rating by number of user turns with 95% intervals"
    )
    R.show_html(
        f'<p class="caption">Points with fewer than {MIN_CONVERSATIONS} conversations are not drawn; '
        "the last point of each panel (≥ t) pools all longer conversations.</p>"
    )
