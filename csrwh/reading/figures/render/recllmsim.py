"""RecLLMSim's section of the report: the scripts' tables (written by
:func:`csrwh.reading.figures.recllmsim.tables`) shown with their plots."""

from __future__ import annotations

import matplotlib
import numpy as np
import polars as pl

from csrwh.measures.stats import mean_interval
from csrwh.reading.figures import recllmsim
from csrwh.reading.figures.render.recllmsim_length import render_quality_by_user_turns
from csrwh.reading.plotting import margins, text_inches

__all__ = ["render", "render_quality_by_user_turns"]

SIDE_COLORS = {"agent": "#c0504d", "human": "#2f5d8a"}
SIDE_NAMES = {"agent": "LLM-agent users", "human": "human users"}


def _ci(means, sds, ns) -> list[np.ndarray]:
    """``[below, above]`` error-bar lengths of Student's t 95% intervals of means from their sd
    and n (``csrwh.measures.stats.mean_interval``; 0 where undefined, n < 2)."""
    below, above = [], []
    for mean, sd, n in zip(means, sds, ns, strict=True):
        low, high = mean_interval(mean, sd, n)
        below.append(0.0 if low is None else mean - low)
        above.append(0.0 if high is None else high - mean)
    return [np.array(below), np.array(above)]


def render(con, R, present: bool) -> None:
    """The scripts' tables (basic counts, tasks and profiles, assistant quality by chat model,
    simulation quality by turns, behaviour labels and their scores, profile labels), with plots."""
    import matplotlib.pyplot as plt

    tables = recllmsim.tables(R, con)
    for name, frame in tables.items():
        R.write_table(frame, name)
    if not present:
        R.show_absent("recllmsim")
        return
    _render_task_statistics(R, plt, tables["recllmsim_task_statistics"])
    _render_quality_by_chat_model(R, plt, tables["recllmsim_quality_by_chat_model"])
    _render_quality_by_turns(R, tables["recllmsim_quality_by_turns"])
    _render_strategies(R, plt, tables["recllmsim_strategy_distribution"])
    _render_quality_by_strategy(R, plt, tables["recllmsim_quality_by_strategy"])
    _render_consistency(R, tables["recllmsim_strategy_consistency"])
    _render_profile_labels(R, plt, tables["recllmsim_profile_labels"])


def _render_task_statistics(R, plt, stats: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Conversations, turns and tokens per scenario</h4><p>statistics/basic_count.py and "
        "basic_statistics.py: per scenario, the LLM-agent set and the human set (all releases of each "
        "side; per-release rows below). Turns are pairs of messages (messages // 2); tokens are "
        "cl100k_base tokens of the Chinese text (agent files: the translation content_zh).</p>"
    )
    shown = (
        stats.filter(pl.col("release") == "all")
        .select(
            "scenario",
            "user_side",
            "n_conversations",
            "mean_turns",
            "mean_user_tokens",
            "mean_user_tokens_per_turn",
            "mean_assistant_tokens_per_turn",
            "n_tasks",
            "n_profiles",
        )
        .sort("scenario", "user_side")
    )
    R.show_table(shown, decimals=2)
    per_release = stats.filter((pl.col("release") != "all") & (pl.col("scenario") == "all")).select(
        "user_side",
        "release",
        "n_conversations",
        "mean_turns",
        "mean_user_turns",
        "mean_user_tokens",
        "mean_user_tokens_per_turn",
        "mean_assistant_tokens_per_turn",
        "n_tasks",
        "n_profiles",
    )
    R.show_table(per_release, decimals=2, caption="Per release (all scenarios).")
    scenarios = [s for s in sorted(set(shown["scenario"].to_list())) if s != "all"] + ["all"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    width = 0.38
    for k, side in enumerate(("agent", "human")):
        part = {
            r["scenario"]: r
            for r in stats.filter(
                (pl.col("release") == "all") & (pl.col("user_side") == side)
            ).to_dicts()
        }
        xs = np.arange(len(scenarios)) + (k - 0.5) * width
        rows_ = [part.get(s) for s in scenarios]
        n = [r["n_conversations"] if r else 0 for r in rows_]
        for ax, mean, sd in (
            (axes[0], "mean_turns", "sd_turns"),
            (axes[1], "mean_user_tokens", "sd_user_tokens"),
        ):
            means = np.array(
                [np.nan if not r or r[mean] is None else r[mean] for r in rows_], dtype=float
            )
            errors = _ci(
                [None if np.isnan(m) else m for m in means],
                [r[sd] if r else None for r in rows_],
                n,
            )
            ax.bar(
                xs,
                np.nan_to_num(means),
                width,
                yerr=errors,
                capsize=2,
                color=SIDE_COLORS[side],
                label=SIDE_NAMES[side],
                error_kw={"elinewidth": 0.8},
            )
    axes[0].set_ylabel("turns (mean, 95% t interval)")
    axes[0].set_title("Turns per conversation (messages // 2)")
    axes[1].set_ylabel("tokens (mean, 95% t interval)")
    axes[1].set_title("User tokens per conversation (cl100k_base)")
    if stats["mean_user_tokens"].is_null().all():
        axes[1].text(
            0.5,
            0.5,
            "no token counts in this warehouse",
            ha="center",
            va="center",
            transform=axes[1].transAxes,
        )
    for ax in axes:
        ax.set_xticks(range(len(scenarios)), scenarios, rotation=20, ha="right", fontsize=8)
        ax.set_xlabel("scenario")
        ax.margins(y=0.15)
    axes[0].legend(fontsize=8, frameon=False, loc="upper left", ncol=2)
    margins(
        fig, left=0.7, right=0.15, bottom=text_inches(scenarios, 8) * 0.36 + 0.6, top=0.3, wgap=0.8
    )
    R.show_figure(fig, "RecLLMSim turns and user tokens per conversation by scenario and user side")


def _render_quality_by_chat_model(R, plt, quality: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Assistant quality by chat model</h4><p>statistics/assistant_quality.py: the human users' "
        "questionnaire scores (0..2) of the assistant per chat model (files without chat_model: "
        "gpt-4-turbo-preview); the LLM judge's ratings of the LLM-agent conversations alongside.</p>"
    )
    part = quality.filter(pl.col("release") == "all")
    if part.is_empty():
        R.show_html("<p>No assistant-quality scores in this warehouse.</p>")
        return
    wide = part.pivot(
        on="aspect", index=["user_side", "chat_model"], values="mean_value", sort_columns=True
    )
    counts = part.group_by("user_side", "chat_model").agg(pl.col("n_conversations").max())
    R.show_table(
        counts.join(wide, on=["user_side", "chat_model"]).sort("user_side", "chat_model"),
        decimals=4,
    )
    groups = part.select("user_side", "chat_model").unique().sort("user_side", "chat_model").rows()
    fig, ax = plt.subplots(figsize=(9, 3.4))
    colors = (
        matplotlib.colormaps["tab20"].colors
        if len(groups) > 10
        else matplotlib.colormaps["tab10"].colors
    )
    width = 0.8 / max(len(groups), 1)
    for k, (side, model) in enumerate(groups):
        sub = {
            r["aspect"]: r
            for r in part.filter(
                (pl.col("user_side") == side) & (pl.col("chat_model") == model)
            ).to_dicts()
        }
        xs = np.arange(len(recllmsim.ASPECTS)) + (k - (len(groups) - 1) / 2) * width
        means = [sub[a]["mean_value"] if a in sub else None for a in recllmsim.ASPECTS]
        errors = _ci(
            means,
            [sub[a]["sd_value"] if a in sub else None for a in recllmsim.ASPECTS],
            [sub[a]["n_conversations"] if a in sub else 0 for a in recllmsim.ASPECTS],
        )
        ax.bar(
            xs,
            [0.0 if m is None else m for m in means],
            width,
            yerr=errors,
            capsize=2,
            color=colors[k % len(colors)],
            label=f"{model} ({side})",
            error_kw={"elinewidth": 0.8},
        )
    ax.set_xticks(range(len(recllmsim.ASPECTS)), recllmsim.ASPECTS)
    ax.set_ylim(0, 2.05)
    ax.set_ylabel("mean score 0..2 (95% t interval)")
    ax.set_xlabel("aspect")
    ax.legend(fontsize=7.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.set_title("Assistant quality by chat model")
    margins(
        fig,
        left=0.7,
        right=text_inches([f"{m} ({s})" for s, m in groups], 7.5) + 0.55,
        bottom=0.55,
        top=0.3,
    )
    R.show_figure(fig, "RecLLMSim assistant quality by chat model")


def _render_quality_by_turns(R, quality: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Simulation quality by number of turns</h4><p>statistics/simulaton_quality.py (and the "
        "README's table): the LLM judge's Preference Alignment and Role-Playing Completeness (0..2) of "
        "the simulated users, by turns (messages // 2), with the conversations per turn count. Plotted "
        "by user turns, with 95% intervals, in section 5.</p>"
    )
    aspects = ("Preference Alignment", "Role-Playing Completeness")
    part = quality.filter((pl.col("user_side") == "agent") & pl.col("aspect").is_in(aspects))
    if part.is_empty():
        R.show_html("<p>No LLM-judge simulation ratings in this warehouse.</p>")
        return
    wide = part.pivot(on="aspect", index="n_turns", values="mean_value", sort_columns=True)
    counts = part.group_by("n_turns").agg(pl.col("n_conversations").max())
    R.show_table(counts.join(wide, on="n_turns").sort("n_turns"), decimals=4)
    # not plotted again: section 5 plots both aspects by user turns (for these conversations the
    # same as messages // 2 but for an odd last message) with 95% intervals


def _render_strategies(R, plt, dist: pl.DataFrame) -> None:
    R.show_html(
        "<h4>User behaviour labels</h4><p>user_behavior/count_sim.py and count_human.py: the final "
        "label (ensemble of the classifier's three runs, or a human annotator's) per scheme and "
        "dimension, all tasks and releases of each side; shares of the side's labelled conversations. "
        "Per task and release in the written table.</p>"
    )
    part = dist.filter((pl.col("release") == "all") & (pl.col("task") == "all"))
    if part.is_empty():
        R.show_html("<p>No behaviour labels in this warehouse.</p>")
        return
    wide = part.pivot(
        on="user_side",
        index=["scheme", "dimension", "label_value"],
        values=["n_conversations", "share"],
        sort_columns=True,
    ).sort("scheme", "dimension", "label_value")
    R.show_table(wide, decimals=3)
    schemes = [
        s for s in ("strategy", "strategy_V2", "strategy_V3") if s in set(part["scheme"].to_list())
    ]
    rows_ = [
        (s, d, side)
        for s in schemes
        for d in sorted(set(part.filter(pl.col("scheme") == s)["dimension"].to_list()))
        for side in ("agent", "human")
    ]
    if not rows_:
        return
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows_) + 1.2))
    cmap = matplotlib.colormaps["tab20"]
    for i, (scheme, dimension, side) in enumerate(rows_):
        sub = part.filter(
            (pl.col("scheme") == scheme)
            & (pl.col("dimension") == dimension)
            & (pl.col("user_side") == side)
        )
        values = sorted(
            set(
                part.filter((pl.col("scheme") == scheme) & (pl.col("dimension") == dimension))[
                    "label_value"
                ].to_list()
            )
        )
        shares = dict(zip(sub["label_value"].to_list(), sub["share"].to_list()))
        widths = np.array([shares.get(value, 0.0) for value in values])
        lefts = np.concatenate([[0.0], np.cumsum(widths)[:-1]])
        ax.barh(
            np.full(len(values), i),
            widths,
            left=lefts,
            color=[cmap(j % 20) for j in range(len(values))],
            edgecolor="white",
            linewidth=0.5,
        )
        for value, left, share in zip(values, lefts, widths):
            if share >= 0.07:
                ax.text(left + share / 2, i, value, ha="center", va="center", fontsize=6.5)
    row_labels = [f"{s}.{d} ({side})" for s, d, side in rows_]
    ax.set_yticks(range(len(rows_)), row_labels, fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel(
        "share of the side's labelled conversations (segments named by label; < 7% unnamed)"
    )
    ax.set_title("Final behaviour labels: LLM-agent vs human users")
    margins(fig, left=text_inches(row_labels, 7.5) + 0.15, right=0.2, bottom=0.5, top=0.3)
    R.show_figure(fig, "RecLLMSim behaviour label shares per scheme, dimension and user side")


def _render_quality_by_strategy(R, plt, scores: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Assistant quality by behaviour label</h4><p>user_behavior/score_sim.py (LLM-agent users, "
        "scheme strategy, the judge's ratings) and score_human.py (real_human_user, scheme strategy_V2, "
        "the questionnaire): mean score 0..2 of the conversations carrying each final label.</p>"
    )
    sets = (("agent", "LLM_agent_user", "strategy"), ("human", "real_human_user", "strategy_V2"))
    panels = []
    for side, release, scheme in sets:
        sub = scores.filter(
            (pl.col("user_side") == side)
            & (pl.col("release") == release)
            & (pl.col("scheme") == scheme)
        )
        if sub.is_empty():
            continue
        wide = sub.pivot(
            on="aspect", index=["dimension", "label_value"], values="mean_value", sort_columns=True
        )
        counts = sub.group_by("dimension", "label_value").agg(pl.col("n_conversations").max())
        R.show_table(
            counts.join(wide, on=["dimension", "label_value"]).sort("dimension", "label_value"),
            decimals=4,
            caption=f"{SIDE_NAMES[side]}, {release}, scheme {scheme}.",
        )
        panels.append((side, release, scheme, sub))
    if not panels:
        return
    height = max(sub.select("dimension", "label_value").unique().height for *_, sub in panels)
    fig, axes = plt.subplots(
        1, len(panels), figsize=(5 * len(panels) + 1, 0.3 * height + 1.6), squeeze=False
    )
    colors = dict(zip(recllmsim.ASPECTS, ("#2f5d8a", "#d08a1e", "#4f8a3c")))
    labels_in = 0.0
    for ax, (side, release, scheme, sub) in zip(axes[0], panels):
        groups = (
            sub.select("dimension", "label_value").unique().sort("dimension", "label_value").rows()
        )
        for k, aspect in enumerate(recllmsim.ASPECTS):
            part = {
                (r["dimension"], r["label_value"]): r
                for r in sub.filter(pl.col("aspect") == aspect).to_dicts()
            }
            ys = np.arange(len(groups)) + (k - 1) * 0.22
            means = [part[g]["mean_value"] if g in part else np.nan for g in groups]
            errors = _ci(
                [None if np.isnan(m) else m for m in means],
                [part[g]["sd_value"] if g in part else None for g in groups],
                [part[g]["n_conversations"] if g in part else 0 for g in groups],
            )
            ax.errorbar(
                means, ys, xerr=errors, fmt="o", ms=3, capsize=2, color=colors[aspect], label=aspect
            )
        group_labels = [f"{d}: {v}" for d, v in groups]
        labels_in = max(labels_in, text_inches(group_labels, 7.5))
        ax.set_yticks(range(len(groups)), group_labels, fontsize=7.5)
        ax.invert_yaxis()
        ax.set_xlim(0, 2.05)
        ax.set_xlabel("mean score 0..2 (95% t interval)")
        ax.set_title(f"{SIDE_NAMES[side]} ({scheme})", fontsize=9)
    axes[0][-1].legend(fontsize=7.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    margins(
        fig,
        left=labels_in + 0.15,
        right=text_inches(recllmsim.ASPECTS, 7.5) + 0.55,
        bottom=0.5,
        top=0.3,
        wgap=labels_in + 0.3,
    )
    R.show_figure(fig, "RecLLMSim assistant quality by final behaviour label")


def _render_consistency(R, consistency: pl.DataFrame) -> None:
    R.show_html(
        "<h4>How consistently users keep a behaviour</h4><p>user_behavior/count_user.py: per user, the "
        "share of the user's conversations with the user's most frequent final label; the mean over "
        "users, and the users above 80% (the script reads real_human_user, scheme strategy_V2).</p>"
    )
    R.show_table(
        consistency.select(
            "user_side",
            "release",
            "scheme",
            "dimension",
            "n_users",
            "mean_modal_share",
            "sd_modal_share",
            "n_users_modal_share_over_80pct",
            "n_users_single_label",
        ),
        decimals=3,
    )


def _render_profile_labels(R, plt, labels: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Profile labels</h4><p>user_profiling/count.py and statistics/tag.py: how many conversations' "
        "profiles list each label, simulated (LLM-agent) vs human users (all releases; count.py reads "
        "real_human_user, whose counts are in the written table).</p>"
    )
    part = labels.filter(pl.col("release") == "all")
    per_side = part.group_by("user_side", "attribute").agg(
        (pl.col("n_mentions").sum() / pl.col("n_listing_conversations").max()).alias(
            "mean_labels_per_profile"
        ),
        pl.col("label").n_unique().alias("n_labels"),
    )
    R.show_table(
        per_side.pivot(
            on="user_side",
            index="attribute",
            values=["mean_labels_per_profile", "n_labels"],
            sort_columns=True,
        ).sort("attribute"),
        decimals=2,
        caption="Labels per conversation profile and distinct labels, per attribute and side.",
    )
    attributes = [
        a
        for a in (
            "personality",
            "daily_interests",
            "travel_habits",
            "dining_preferences",
            "spending_habits",
        )
        if a in set(part["attribute"].to_list())
    ]
    if not attributes:
        return
    panels = []
    unnamed = 0
    for attribute in attributes:
        sub = part.filter(
            (pl.col("attribute") == attribute)
            & ~pl.col("label").is_in(recllmsim.OTHERS)
            & ~pl.col("label_en").fill_null("").is_in(recllmsim.OTHERS)
        )
        named = sub.filter(pl.col("label_en").is_not_null())
        unnamed += sub.filter(pl.col("label_en").is_null())["label"].n_unique()
        panels.append((attribute, named, sorted(set(named["label_en"].to_list()))))
    labels_in = max(text_inches(names, 7) for *_, names in panels)
    n_cols = min(3, len(panels))
    n_rows = -(-len(panels) // n_cols)
    most = max(len(names) for *_, names in panels)
    fig, axes = plt.subplots(
        n_rows,
        n_cols,
        figsize=(n_cols * (labels_in + 2.0) + 0.2, n_rows * (0.17 * most + 0.9) + 0.6),
        squeeze=False,
    )
    for ax, (attribute, named, names) in zip(axes.flat, panels):
        for k, side in enumerate(("agent", "human")):
            share = dict(
                zip(
                    *named.filter(pl.col("user_side") == side)
                    .select("label_en", "share_of_conversations")
                    .to_dict(as_series=False)
                    .values()
                )
            )
            ys = np.arange(len(names)) + (k - 0.5) * 0.4
            ax.barh(
                ys,
                [share.get(n, 0.0) for n in names],
                0.4,
                color=SIDE_COLORS[side],
                label=SIDE_NAMES[side],
            )
        ax.set_yticks(range(len(names)), names, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(attribute.replace("_", " "), fontsize=9)
        ax.set_xlabel("share of conversations")
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, frameon=False, loc="upper center", ncol=2)
    margins(
        fig, left=labels_in + 0.15, right=0.2, bottom=0.5, top=0.55, wgap=labels_in + 0.35, hgap=0.8
    )
    R.show_figure(fig, "RecLLMSim profile label shares, simulated vs human users")
    if unnamed:
        R.show_html(
            f'<p class="caption">Labels without an English name in the simulated profiles '
            f"({unnamed}) are in the table only. 'Others' is left out of the plot.</p>"
        )
