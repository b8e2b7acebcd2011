"""CRSArena-Dial's section of the report: the analysis notebook's tables (written by
:func:`csrwh.reading.figures.crsarena.tables`) shown with their plots."""

from __future__ import annotations

import html

import numpy as np
import polars as pl

from csrwh.measures.stats import mean_interval, wilson_interval
from csrwh.reading.figures import crsarena
from csrwh.reading.figures.published import published_texts, published_values
from csrwh.reading.plotting import margins, text_inches

ENV_COLORS = {"open": "#2f5d8a", "closed": "#c0504d", "combined": "#4f8a3c"}


def render(con, R, present: bool) -> None:
    """The analysis notebook's tables: conversations, satisfaction and lengths per CRS and
    environment, battles (matrix and ties), the per-dialogue vote results of the merge tool and
    Distinct-n, with plots."""
    import matplotlib.pyplot as plt

    tables = crsarena.tables(R, con)
    for name, frame in tables.items():
        R.write_table(frame, name)
    if not present:
        R.show_absent(crsarena.NAME)
        return
    _render_dialogues(R, plt, tables["crsarena_dialogue_stats"])
    _render_battles(R, plt, tables["crsarena_battle_counts"], tables["crsarena_tie_shares"])
    _render_vote_results(R, tables["crsarena_vote_results"])
    _render_diversity(R, plt, tables["crsarena_text_diversity"])


def _env_sorted(frame: pl.DataFrame, *then: str) -> pl.DataFrame:
    """Rows in the analysis' order: open, closed, combined (then by ``then``)."""
    return (
        frame.with_columns(
            pl.col("environment")
            .replace_strict(crsarena.ENV_ORDER, default=9, return_dtype=pl.Int64)
            .alias("_order")
        )
        .sort("_order", *then)
        .drop("_order")
    )


def _render_dialogues(R, plt, dialogue_stats: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Conversations, satisfaction and lengths per CRS</h4><p>analysis.ipynb, Conversations: "
        "dialogues and user satisfaction per CRS in the open and closed environments and both "
        "(<em>combined</em>), utterances per dialogue and words per utterance (every utterance, both "
        "sides; mean ± sample s.d. and median). <code>crsarena_dialogue_stats</code>.</p>"
    )
    shown = _env_sorted(dialogue_stats, "system_id").select(
        "environment",
        "system_id",
        "n_dialogues",
        "n_satisfied",
        "n_frustrated",
        "satisfied_share",
        "utterances_mean",
        "utterances_sd",
        "utterances_median",
        "words_mean",
        "words_sd",
        "words_median",
    )
    R.show_table(
        shown,
        decimals={
            "satisfied_share": 3,
            "utterances_mean": 3,
            "utterances_sd": 3,
            "utterances_median": 1,
            "words_mean": 3,
            "words_sd": 3,
            "words_median": 1,
        },
    )
    per_system = dialogue_stats.filter(pl.col("system_id") != "(all)")
    systems = sorted(set(per_system["system_id"].to_list()))
    if not systems:
        return
    envs = [e for e in crsarena.ENV_ORDER if e in set(per_system["environment"].to_list())]
    value = {(r["environment"], r["system_id"]): r for r in per_system.to_dicts()}
    ys = np.arange(len(systems))
    height = 0.8 / max(len(envs), 1)
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(systems) + 1.4))
    for k, env in enumerate(envs):
        offset = (k - (len(envs) - 1) / 2) * height
        rows_ = [value.get((env, s), {}) for s in systems]
        satisfied = [r.get("n_satisfied") or 0 for r in rows_]
        with_sentiment = [(r.get("n_satisfied") or 0) + (r.get("n_frustrated") or 0) for r in rows_]
        bounds = [wilson_interval(k_, n_) for k_, n_ in zip(satisfied, with_sentiment)]
        share = np.array([k_ / n_ if n_ else np.nan for k_, n_ in zip(satisfied, with_sentiment)])
        low = np.array([np.nan if b[0] is None else b[0] for b in bounds])
        high = np.array([np.nan if b[1] is None else b[1] for b in bounds])
        ax.barh(
            ys + offset,
            share,
            height,
            color=ENV_COLORS[env],
            label=env,
            xerr=[np.nan_to_num(share - low), np.nan_to_num(high - share)],
            capsize=2,
            error_kw={"elinewidth": 0.8},
        )
    ax.set_yticks(ys, systems, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of dialogues whose user ended satisfied (95% Wilson interval)")
    ax.set_title("User satisfaction per CRS")
    ax.legend(
        title="environment",
        fontsize=8,
        title_fontsize=8,
        frameon=False,
        loc="center left",
        bbox_to_anchor=(1.0, 0.5),
    )
    margins(fig, left=text_inches(systems, 8) + 0.2, right=1.1, bottom=0.5, top=0.3)
    R.show_figure(
        fig, "CRSArena share of satisfied users per CRS and environment with 95% intervals"
    )

    fig, axes = plt.subplots(1, 2, figsize=(11, 0.45 * len(systems) + 1.6), sharey=True)
    for ax, quantity, count, label in (
        (axes[0], "utterances", "n_dialogues", "utterances per dialogue"),
        (axes[1], "words", "n_utterances", "words per utterance"),
    ):
        for k, env in enumerate([e for e in envs if e != "combined"]):
            offset = (k - 0.5) * 0.3
            rows_ = [value.get((env, s), {}) for s in systems]
            means = np.array(
                [
                    np.nan if r.get(f"{quantity}_mean") is None else r[f"{quantity}_mean"]
                    for r in rows_
                ]
            )
            bounds = [
                mean_interval(r.get(f"{quantity}_mean"), r.get(f"{quantity}_sd"), r.get(count))
                for r in rows_
            ]
            low = np.array([np.nan if b[0] is None else b[0] for b in bounds])
            high = np.array([np.nan if b[1] is None else b[1] for b in bounds])
            medians = [r.get(f"{quantity}_median") for r in rows_]
            ax.errorbar(
                means,
                ys + offset,
                xerr=[np.nan_to_num(means - low), np.nan_to_num(high - means)],
                fmt="o",
                ms=4,
                capsize=2,
                color=ENV_COLORS[env],
                elinewidth=0.8,
                label=f"{env}: mean, 95% t interval",
            )
            ax.plot(
                [np.nan if m is None else m for m in medians],
                ys + offset,
                "|",
                ms=9,
                mew=1.6,
                color=ENV_COLORS[env],
                label=f"{env}: median",
            )
        ax.set_xlabel(label)
        ax.set_xlim(left=0)
        ax.grid(True, axis="x", linestyle=":", linewidth=0.6)
    axes[0].set_yticks(ys, systems, fontsize=8)
    axes[0].invert_yaxis()
    axes[0].set_title("Conversation length")
    axes[1].set_title("Utterance length")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, frameon=False, loc="lower center", ncol=4)
    margins(fig, left=text_inches(systems, 8) + 0.2, right=0.2, bottom=0.95, top=0.3, wgap=0.25)
    R.show_figure(fig, "CRSArena conversation and utterance lengths per CRS and environment")


def _render_battles(R, plt, battles: pl.DataFrame, ties: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Battles</h4><p>analysis.ipynb, Battles: battles per ordered pair (rows: the CRS recorded "
        "first, crs1; columns: second, crs2) over both environments, and the share of ties. A battle "
        "is a vote whose voter held a dialogue in the same environment. "
        "<code>crsarena_battle_counts</code>.</p>"
    )
    R.show_table(
        _env_sorted(ties), decimals=3, caption="Battles and the share voted a tie per environment."
    )
    combined = battles.filter(pl.col("environment") == "combined")
    systems = sorted(set(combined["system_a"].to_list()) | set(combined["system_b"].to_list()))
    if not systems:
        return
    cell = {(r["system_a"], r["system_b"]): r["n_battles"] for r in combined.to_dicts()}
    matrix = pl.DataFrame(
        [{"crs1 \\ crs2": a, **{b: cell.get((a, b), 0) for b in systems}} for a in systems]
    )
    R.show_table(matrix, decimals=0, caption="Battles per ordered pair, both environments.")
    grid = np.array([[cell.get((a, b), 0) for b in systems] for a in systems], dtype=float)
    fig, ax = plt.subplots(figsize=(7.2, 6.0))
    image = ax.imshow(grid, cmap="YlGnBu")  # the counts themselves are in the table above
    ax.set_xticks(range(len(systems)), systems, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(systems)), systems, fontsize=8)
    ax.set_xlabel("CRS recorded second (crs2)")
    ax.set_ylabel("CRS recorded first (crs1)")
    ax.set_title("Battles per ordered pair (open + closed)")
    names_in = text_inches(systems, 8)
    margins(fig, left=names_in + 0.55, right=0.3, bottom=names_in * 0.72 + 0.55, top=0.3)
    fig.colorbar(
        image, ax=ax, label="battles", shrink=0.8
    )  # after margins: it takes its room from ax
    R.show_figure(fig, "CRSArena battle counts per ordered pair of CRSs")


def _render_vote_results(R, vote_results: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Vote result per dialogue</h4><p>tool/merge.py: each dialogue's vote found by user and CRS "
        "in its environment's vote file (later copies of a vote dropped): <em>win</em>, <em>lose</em>, "
        "<em>tie</em>, or <em>no_vote</em> (the tool writes <code>vote: null</code>); <em>ambiguous</em> "
        "(several votes) would stop the tool. <code>crsarena_vote_results</code>.</p>"
    )
    if vote_results.is_empty():
        return
    wide = vote_results.pivot(
        on="vote_result", index="environment", values="n_dialogues", sort_columns=True
    ).fill_null(0)
    R.show_table(
        _env_sorted(wide), decimals=0, caption="Dialogues per vote result and environment."
    )


def diversity_intro() -> str:
    """The Distinct-n block's heading and text; the published Distinct-2 values are read from
    ``notebooks/published_figures/crsarena.csv``."""
    published = published_texts("crsarena", "crsarena.distinct2.")
    quoted = ", ".join(
        f"{env} {published[f'crsarena.distinct2.{env}']}"
        for env in crsarena.ENVIRONMENTS
        if f"crsarena.distinct2.{env}" in published
    )
    return (
        "<h4>Response diversity</h4><p>analysis.ipynb and tool/metrics.py: Distinct-n over every "
        "utterance of an environment (both sides), the <em>dataset</em> definition (100 shuffles with "
        "seed 42, each cut to 7,012 words, mean Distinct-n"
        + (f"; published Distinct-2: {html.escape(quoted)}" if quoted else "")
        + ") beside a <em>plain</em> one (all utterances, lower-cased whitespace tokens, no "
        "truncation), also per side. <code>text_diversity</code> (every corpus) holds the same per "
        "system; rows whose words do not exceed 7,012 are not truncated ("
        + html.escape("is_truncated")
        + ").</p>"
    )


def _render_diversity(R, plt, diversity: pl.DataFrame) -> None:
    R.show_html(diversity_intro())
    overall = diversity.filter(pl.col("system_id") == "(all)")
    R.show_table(
        overall.select(
            "subset",
            "side",
            "variant",
            "n_utterances",
            "n_words",
            "is_truncated",
            "distinct_1",
            "distinct_2",
        ),
        decimals=3,
    )
    if overall.is_empty():
        return
    subsets = [s for s in ("open", "closed", "(all)") if s in set(overall["subset"].to_list())]
    sides = ("all", "user", "system")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=True)
    width = 0.8 / len(subsets)
    for ax, variant in zip(axes, ("dataset", "plain")):
        part = {
            (r["subset"], r["side"]): r
            for r in overall.filter(pl.col("variant") == variant).to_dicts()
        }
        for k, subset in enumerate(subsets):
            xs = np.arange(len(sides)) + (k - (len(subsets) - 1) / 2) * width
            values = [part.get((subset, side), {}).get("distinct_2") for side in sides]
            color = ENV_COLORS.get(subset, "#4f8a3c")
            ax.bar(
                xs,
                [np.nan if v is None else v for v in values],
                width,
                color=color,
                label="both environments" if subset == "(all)" else subset,
            )
        ax.set_xticks(range(len(sides)), ["all utterances", "user", "system"])
        ax.set_title(f"Distinct-2, {variant} variant")
        ax.set_ylim(0, 1)
        ax.set_xlabel("utterances")
    axes[0].set_ylabel("Distinct-2")
    axes[1].legend(fontsize=8, frameon=False, loc="upper right", ncol=3)
    margins(fig, left=0.6, right=0.2, bottom=0.5, top=0.3, wgap=0.25)
    R.show_figure(fig, "CRSArena Distinct-2 per environment and side, dataset and plain variants")


# --------------------------------------------------------------------------- the overview


def correlation_caption() -> str:
    """The open vs closed table's caption; the published coefficients (Pearson / Spearman) are
    read from ``notebooks/published_figures/crsarena.csv``."""
    published = published_texts("crsarena", "crsarena.corr.")
    pairs = [
        f"{label} {published[f'crsarena.corr.{q}.pearson']} / {published[f'crsarena.corr.{q}.spearman']}"
        for label, q in (("Elo", "elo"), ("satisfaction", "satisfaction"))
        if f"crsarena.corr.{q}.pearson" in published and f"crsarena.corr.{q}.spearman" in published
    ]
    return (
        "Correlation over systems of the open-environment and closed-environment "
        "Elo ratings and satisfaction rates"
        + (f" (published: {', '.join(pairs)})." if pairs else ".")
    )


def render_overview(con, R, present: bool) -> None:
    """The report's CRS Arena overview (:func:`csrwh.reading.figures.crsarena.overview_tables`):
    conversations per system and environment, the leaderboards with the published Elo, and the
    open vs closed correlation."""
    import matplotlib.pyplot as plt

    tables = crsarena.overview_tables(R, con, present)
    for name, frame in tables.items():
        R.write_table(frame, name)
    if not present:
        R.show_absent(crsarena.NAME)
        return
    conversations = tables["crsarena_conversations"]
    leaderboard = tables["crsarena_leaderboard"]
    corr = tables["crsarena_open_closed_correlation"]
    wide = conversations.pivot(
        on="environment",
        index="system_id",
        values=["n_conversations", "satisfaction_rate"],
        sort_columns=True,
    ).sort("system_id")
    R.show_table(
        wide,
        decimals=3,
        caption="Conversations and share of satisfied users per system and environment "
        "(95% Wilson intervals in the written table and the plot).",
    )
    envs = sorted(
        set(conversations["environment"].to_list()), key=lambda e: crsarena.ENV_ORDER.get(e, 9)
    )
    systems = sorted(set(conversations["system_id"].to_list()))
    fig, ax = plt.subplots(figsize=(9, 3.6))
    width = 0.8 / max(len(envs), 1)
    for k, env in enumerate(envs):
        part = dict(
            conversations.filter(pl.col("environment") == env)
            .select("system_id", "n_conversations")
            .iter_rows()
        )
        xs = np.arange(len(systems)) + (k - (len(envs) - 1) / 2) * width
        ax.bar(
            xs,
            [part.get(s, 0) for s in systems],
            width,
            color=ENV_COLORS.get(env, "#999999"),
            label=env,
        )
    ax.set_xticks(range(len(systems)), systems, rotation=45, ha="right", fontsize=7.5)
    ax.set_xlabel("system")
    ax.set_ylabel("conversations")
    ax.set_title("Conversations per system and environment")
    ax.legend(
        title="environment",
        fontsize=8,
        title_fontsize=8,
        frameon=False,
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
    )
    margins(fig, left=0.6, right=1.15, bottom=text_inches(systems, 7.5) * 0.72 + 0.55, top=0.3)
    R.show_figure(fig, "CRS Arena conversations per system and environment")
    R.show_html(
        '<p class="caption">The share of satisfied users per system, with 95% Wilson intervals, is in '
        "the table above (written table <code>crsarena_conversations</code>) and plotted in section 10 "
        "(CRSArena-Dial).</p>"
    )

    R.show_html("<h3>Leaderboards</h3>")
    published_elo = {
        figure_id.split(".", 2)[2]: value
        for figure_id, value in published_values("crsarena", "crsarena.elo.").items()
    }
    shown = leaderboard.with_columns(
        pl.struct("environment", "system_id")
        .map_elements(
            lambda s: published_elo.get(f"{s['environment']}.{s['system_id']}"),
            return_dtype=pl.Float64,
        )
        .alias("published_elo")
    ).select(
        "environment",
        "elo_rank",
        "system_id",
        "battles",
        "wins",
        "ties",
        "losses",
        "win_rate",
        "elo",
        "published_elo",
        "bt_strength",
        "bt_ci_low",
        "bt_ci_high",
        "n_conversations",
        "satisfaction_rate",
    )
    R.show_table(
        shown,
        decimals={
            "win_rate": 3,
            "satisfaction_rate": 3,
            "elo": 1,
            "published_elo": 0,
            "bt_strength": 1,
            "bt_ci_low": 1,
            "bt_ci_high": 1,
        },
    )
    lb_envs = [
        e for e in ("open", "closed", "global") if e in set(leaderboard["environment"].to_list())
    ]
    fig, axes = plt.subplots(
        1, len(lb_envs), figsize=(3.6 * len(lb_envs) + 0.6, 3.6), squeeze=False, sharex=True
    )
    for ax, env in zip(axes[0], lb_envs):
        part = leaderboard.filter(
            (pl.col("environment") == env) & pl.col("bt_strength").is_not_null()
        ).sort("bt_strength")
        ys = np.arange(part.height)
        bt = part["bt_strength"].to_numpy()
        ax.errorbar(
            bt,
            ys,
            xerr=[bt - part["bt_ci_low"].to_numpy(), part["bt_ci_high"].to_numpy() - bt],
            fmt="o",
            ms=4,
            color="#2f5d8a",
            ecolor="#9bb3cc",
            capsize=2,
            label="Bradley–Terry (95% CI)",
        )
        ax.plot(part["elo"].to_numpy(), ys, "D", ms=4, color="#c0504d", label="Elo")
        ax.axvline(1000, color="#999", lw=0.6, ls=":")
        ax.set_yticks(ys, part["system_id"].to_list(), fontsize=7.5)
        ax.set_title(f"{env}")
        ax.set_xlabel("rating (Elo scale)")
    handles, labels_ = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels_, fontsize=8, frameon=False, loc="upper center", ncol=2)
    names_in = text_inches(leaderboard["system_id"].to_list(), 7.5)
    margins(fig, left=names_in + 0.15, right=0.15, bottom=0.5, top=0.55, wgap=names_in + 0.3)
    R.show_figure(fig, "CRS leaderboards: Bradley-Terry strengths with intervals and Elo")

    R.show_html("<h3>Open vs closed environment</h3>")
    R.show_table(
        corr,
        decimals=3,
        caption=correlation_caption(),
    )
