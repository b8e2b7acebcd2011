"""RecoReact's section of the report: ratings and selections by round and domain
(:func:`csrwh.reading.figures.recoreact.rounds_table`)."""

from __future__ import annotations

from csrwh.reading.figures import recoreact
from csrwh.reading.plotting import margins, text_inches


def render(con, R, present: bool) -> None:
    """Nothing beyond the overview sections."""


def render_rounds(con, R, present: bool) -> None:
    """The rounds table and its plot: slate ratings and selections per impression by round,
    per domain, with 95% intervals."""
    import matplotlib.pyplot as plt
    import polars as pl

    rounds = recoreact.rounds_table(R, con)
    R.write_table(rounds, "recoreact_rounds")
    if not present:
        R.show_absent("recoreact")
        return
    R.show_table(
        rounds,
        decimals=2,
        caption="ci95: Student's t 95% intervals of the means (impressions are the units).",
    )
    domains = sorted(set(rounds["domain"].to_list()))
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
    for d, (domain, color) in enumerate(zip(domains, ("#2f5d8a", "#c0504d", "#4f8a3c", "#8064a2"))):
        part = rounds.filter(pl.col("domain") == domain).sort("round")
        offset = (d - (len(domains) - 1) / 2) * 0.06
        for step, style, prefix in (
            ("mean_rating1", "-", "rating1_ci95"),
            ("mean_rating3", "--", "rating3_ci95"),
        ):
            axes[0].errorbar(
                part["round"].to_numpy() + offset + (0.02 if style == "--" else -0.02),
                part[step].to_numpy(),
                yerr=R.interval_errors(part, step, prefix),
                fmt=style,
                marker="o",
                ms=3,
                capsize=2,
                elinewidth=0.7,
                color=color,
                label=f"{domain} {'first' if step.endswith('1') else 'last'} slate",
            )
        axes[1].errorbar(
            part["round"].to_numpy() + offset,
            part["mean_selected_per_impression"].to_numpy(),
            yerr=R.interval_errors(part, "mean_selected_per_impression", "selected_ci95"),
            marker="o",
            ms=3,
            capsize=2,
            elinewidth=0.7,
            color=color,
            label=domain,
        )
    axes[0].set_title("Slate ratings (1–9) by round, 95% t intervals")
    axes[0].set_ylabel("mean rating")
    axes[1].set_title("Selected items per impression, 95% t intervals")
    axes[1].set_ylabel("selected items per impression")
    for ax in axes:
        ax.set_xlabel("round")
        ax.set_xticks([1, 2, 3])
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    legend_in = text_inches([f"{d} first slate" for d in domains], 7) + 0.45
    margins(fig, left=0.6, right=legend_in, bottom=0.5, top=0.3, wgap=legend_in + 0.6)
    R.show_figure(fig, "RecoReact ratings and selections by round and domain with 95% intervals")
