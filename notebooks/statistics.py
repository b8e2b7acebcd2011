# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # CSR Warehouse — corpus statistics
#
# The statistics a dataset paper reports, computed from the warehouse's **marts** (schema
# `main`) and nothing else: `csrwh report` executes this notebook headless against one
# warehouse file and writes this page plus the key tables as CSV (`reports/tables/`). Two runs
# on the same warehouse give identical tables; only the generation time below differs.
# Figures a corpus's own documentation states are shown next to the warehouse's
# (section 2); sections for corpora missing from the warehouse say so. (On the generated
# sample corpora of `make demo` the figures differ from the published ones by design.)

# %%
from __future__ import annotations

import matplotlib
import numpy as np
import polars as pl

from csrwh.reading import figures as F
from csrwh.reading import report as R
from csrwh.reading.figures import crsarena as crs_figures

R.setup_matplotlib()
import matplotlib.pyplot as plt

con = R.connect()
PRESENT = R.present_corpora(con)
NAMES = R.CORPUS_NAMES
CORPORA = [c for c in NAMES if c in PRESENT]  # fixed display order
PALETTE = ["#2f5d8a", "#c0504d", "#4f8a3c", "#8064a2", "#d08a1e", "#3f8f8f", "#8a6d3b"]
COLORS = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(NAMES)}  # any number of corpora


def q(sql: str, **params) -> pl.DataFrame:
    """A mart query as a polars frame."""
    return R.query(con, sql, params)


R.show_provenance(con)

# %% [markdown]
# ## 1. Corpus overview
#
# `corpus_stats`: per corpus and subset, conversations, utterances (both sides), mean
# utterances and merged turns per conversation, mean words per utterance (a CJK character
# counts as a word) and the share of conversations with intent labels or ratings.

# %%
absent = [NAMES[c] for c in NAMES if c not in PRESENT]
R.show_html(
    "<p>Corpora in this warehouse: <strong>"
    + ", ".join(f"{NAMES[c]} ({', '.join(PRESENT[c])})" for c in CORPORA)
    + "</strong>."
    + (f" Not present: {', '.join(absent)} (their sections say so)." if absent else "")
    + "</p>"
)
overview = q("select * from corpus_stats order by corpus, subset")
R.write_table(overview, "corpus_overview")
R.show_table(
    overview.select(
        "corpus",
        "subset",
        "n_conversations",
        "n_turns",
        "n_user_turns",
        "n_system_turns",
        pl.col("mean_turns_per_conversation").alias("turns/conv"),
        pl.col("mean_user_turns_per_conversation").alias("user turns/conv"),
        pl.col("mean_merged_turns_per_conversation").alias("merged turns/conv"),
        pl.col("mean_words_per_user_turn").alias("words/user utt."),
        pl.col("mean_words_per_system_turn").alias("words/system utt."),
        "intent_annotated_share",
        "rated_share",
    ),
    decimals=2,
)

# %% [markdown]
# ## 2. Published figures side by side
#
# Every figure a corpus's own documentation and analysis code state (READMEs, dataset card, the
# CRSArena-Dial notebook and `DataAnalysis.md`, RecLLMSim's scripts, ConvSearch's statistical
# analysis) is kept as data in `notebooks/published_figures/<corpus>.csv`, one row per figure
# with its source; the metric that recomputes it, with its written definition, lives in
# `csrwh/reading/figures/<corpus>.py`. For each, the
# warehouse's figure is computed from the marts and compared at the published precision:
# **match** (equal when rounded as published), **explained** (differs, but the documented
# alternative definition — e.g. user utterances only — reproduces it), **differs**, **subset
# not present** / **corpus not present in this warehouse**, or **not derivable** (the files do
# not hold what the figure needs; the reason is given). The table below counts them per
# corpus; each corpus's block shows the figures that differ and folds all of them, with
# their definitions and explanations, under one click; a corpus missing from the warehouse
# is one line.

# %%
comparison = R.show_comparison(con, PRESENT)

# %% [markdown]
# ## 3. Conversation and utterance lengths
#
# Utterances per conversation (both sides) and words per utterance by role. Words are
# whitespace-separated tokens, with every CJK character counted as one word
# (`turns.n_words`), so Chinese and English lengths compare.

# %%
conv_len = q(
    """select corpus, count(*) as n_conversations,
              avg(n_turns) as mean_turns, median(n_turns) as median_turns,
              quantile_cont(n_turns, 0.9) as p90_turns, max(n_turns) as max_turns,
              avg(n_user_turns) as mean_user_turns, avg(n_merged_turns) as mean_merged_turns
       from conversations group by corpus order by corpus"""
)
R.write_table(conv_len, "conversation_length")
R.show_table(conv_len, decimals=2)

utt_len = q(
    """select corpus, role, count(*) as n_utterances,
              avg(n_words) as mean_words, median(n_words) as median_words,
              quantile_cont(n_words, 0.9) as p90_words, max(n_words) as max_words,
              avg(n_chars) as mean_chars
       from turns group by corpus, role order by corpus, role"""
)
R.write_table(utt_len, "utterance_length")
R.show_table(utt_len, decimals=2)

if CORPORA:
    per_conv = q("select corpus, n_turns from conversations order by corpus, conversation_id")
    fig, axes = plt.subplots(
        1, len(CORPORA), figsize=(2.6 * len(CORPORA) + 0.6, 2.6), squeeze=False
    )
    for ax, corpus in zip(axes[0], CORPORA):
        values = per_conv.filter(pl.col("corpus") == corpus)["n_turns"].to_numpy()
        top = int(np.percentile(values, 99)) + 1
        ax.hist(np.minimum(values, top), bins=np.arange(0, top + 2) - 0.5, color=COLORS[corpus])
        ax.set_title(NAMES[corpus])
        ax.set_xlabel("utterances per conversation")
    axes[0][0].set_ylabel("conversations")
    fig.suptitle("Conversation length (last bin: 99th percentile and above)", fontsize=10)
    R.margins(fig, left=0.6, right=0.15, bottom=0.5, top=0.55, wgap=0.35)
    R.show_figure(fig, "Histograms of utterances per conversation per corpus")

    words = q(
        "select corpus, role, n_words from turns where n_words is not null order by corpus, role, turn_id"
    )
    fig, ax = plt.subplots(figsize=(9, 3.2))
    labels, data, colors = [], [], []
    for corpus in CORPORA:
        for role in ("user", "system"):
            values = words.filter((pl.col("corpus") == corpus) & (pl.col("role") == role))[
                "n_words"
            ].to_numpy()
            if len(values):
                labels.append(f"{NAMES[corpus]}\n{role}")
                data.append(np.maximum(values, 1))
                colors.append(COLORS[corpus])
    box = ax.boxplot(data, showfliers=False, patch_artist=True, widths=0.6)
    for patch, color in zip(box["boxes"], colors):
        patch.set_facecolor(color)
        patch.set_alpha(0.6)
    ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("words per utterance (log)")
    ax.set_title("Utterance length by corpus and role (boxes: quartiles; whiskers: 1.5 IQR)")
    R.margins(fig, left=0.65, right=0.15, bottom=0.5, top=0.35)
    R.show_figure(fig, "Box plots of words per utterance by corpus and role")

# %% [markdown]
# ## 4. Intents and annotator agreement
#
# Primary intent labels per corpus and label scheme, mapped to shared families by the
# `intent_taxonomy` seed (`intents.intent_family`). Agreement: `annotator_agreement`
# (Fleiss' kappa for intent labels, Krippendorff's alpha for ordinal quality ratings) per
# corpus, per subset and per intent label, each with a percentile bootstrap 95% interval
# (1,000 resamples of the rated units, fixed seed), and, from `intent_consensus`, how often
# the annotators of a turn agree on its family (`intent_consensus_summary`, the mart the
# dashboard shows too).

# %%
families = q(
    """select corpus, label_scheme, intent_family, count(*) as n_labels,
              count(distinct turn_index || '@' || conversation_id) as n_turns,
              count(*) / sum(count(*)) over (partition by corpus, label_scheme) as share_of_labels
       from intents where is_primary
       group by corpus, label_scheme, intent_family
       order by corpus, label_scheme, intent_family"""
)
R.write_table(families, "intent_families")
if families.is_empty():
    R.show_html("<p>No intent labels in this warehouse.</p>")
else:
    R.show_table(families, decimals=3)
    schemes = families.select("corpus", "label_scheme").unique().sort("corpus", "label_scheme")
    all_families = sorted(set(families["intent_family"].to_list()))
    cmap = matplotlib.colormaps["tab10"]
    fig, ax = plt.subplots(figsize=(9, 0.55 * schemes.height + 1.4))
    ylabels = [f"{NAMES.get(c, c)} · {s}" for c, s in schemes.iter_rows()]
    for i, (corpus, scheme) in enumerate(schemes.iter_rows()):
        left = 0.0
        part = families.filter((pl.col("corpus") == corpus) & (pl.col("label_scheme") == scheme))
        shares = dict(zip(part["intent_family"], part["share_of_labels"]))
        for j, family in enumerate(all_families):
            share = shares.get(family, 0.0)
            ax.barh(i, share, left=left, color=cmap(j % 10), label=family if i == 0 else None)
            left += share
    ax.set_yticks(range(schemes.height), ylabels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of primary labels")
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(j % 10)) for j in range(len(all_families))]
    ax.legend(
        handles,
        all_families,
        loc="center left",
        bbox_to_anchor=(1.01, 0.5),
        fontsize=8,
        frameon=False,
    )
    ax.set_title("Intent families per corpus and label scheme")
    R.margins(
        fig,
        left=R.text_inches(ylabels, 9) + 0.2,
        right=R.text_inches(all_families, 8) + 0.55,
        bottom=0.5,
        top=0.35,
    )
    R.show_figure(fig, "Stacked bars of intent family shares")

labels = q("select * from intent_distribution order by corpus, label_scheme, raw_label")
R.write_table(labels, "intent_labels")
R.show_html("<h3>Raw labels</h3>")
R.show_table(labels, decimals=3)

R.show_html("<h3>Annotator agreement</h3>")
agreement = q(
    r"""with scoped as (
           select *, split_part(subject, '|', 1) as labelled,
                  coalesce(nullif(regexp_extract(subject, '\|([a-z]+):', 1), ''), 'corpus') as scope,
                  regexp_extract(subject, '\|[a-z]+:(.*)$', 1) as scope_value
           from annotator_agreement)
       select corpus, labelled as subject, scope,
              case when scope = 'subset' then scope_value end as subset,
              case when scope = 'label' then scope_value end as label,
              measure, value, ci_low, ci_high, n_units, n_raters_mean, n_ratings
       from scoped
       order by corpus, subject, scope, subset, label, measure"""
)
R.write_table(agreement, "annotator_agreement")
if agreement.is_empty():
    R.show_html("<p>No subject with two or more annotators in this warehouse.</p>")
else:
    R.show_table(
        agreement,
        decimals=3,
        caption=(
            "Per corpus, per subset (conversations.subset) and per intent label (that label against all "
            "others: Fleiss' category-specific kappa); a rating aspect is its own label. ci_low–ci_high: "
            "percentile bootstrap 95% interval, 1,000 resamples of the rated units (turns, conversations) "
            "with all their labels, fixed seed."
        ),
    )
    shown = agreement.with_columns(
        pl.when(pl.col("scope") == "corpus")
        .then(pl.lit("all"))
        .when(pl.col("scope") == "subset")
        .then(pl.lit("subset ") + pl.col("subset"))
        .otherwise(pl.lit("label ") + pl.col("label"))
        .alias("row")
    )
    fig, ax = plt.subplots(figsize=(9, 0.24 * shown.height + 1.1))
    ys = np.arange(shown.height)
    for measure, color in (("fleiss_kappa", "#2f5d8a"), ("krippendorff_alpha", "#c0504d")):
        part = shown.with_row_index("y").filter(pl.col("measure") == measure)
        if part.is_empty():
            continue
        value = part["value"].to_numpy()
        low = part["ci_low"].fill_null(float("nan")).to_numpy()
        high = part["ci_high"].fill_null(float("nan")).to_numpy()
        ax.errorbar(
            value,
            part["y"].to_numpy(),
            xerr=[np.nan_to_num(value - low), np.nan_to_num(high - value)],
            fmt="o",
            ms=3.5,
            capsize=2,
            elinewidth=0.9,
            color=color,
            label={"fleiss_kappa": "Fleiss' kappa", "krippendorff_alpha": "Krippendorff's alpha"}[
                measure
            ],
        )
    row_labels = [
        f"{NAMES.get(c, c)} · {s} · {r}"
        for c, s, r in shown.select("corpus", "subject", "row").iter_rows()
    ]
    ax.set_yticks(ys, row_labels, fontsize=7.5)
    ax.invert_yaxis()
    ax.axvline(0, color="#999", lw=0.6, ls=":")
    ax.set_xlim(min(-0.1, float(np.nanmin(shown["ci_low"].fill_null(0).to_numpy())) - 0.05), 1)
    ax.set_xlabel("agreement (1 perfect, 0 chance); bars: bootstrap 95% interval")
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    ax.set_title("Annotator agreement per corpus, subset and label")
    R.margins(fig, left=R.text_inches(row_labels, 7.5) + 0.15, right=0.2, bottom=0.5, top=0.35)
    R.show_figure(
        fig, "Agreement coefficients with bootstrap 95% intervals per corpus, subset and label"
    )
consensus = q(
    """select corpus, label_scheme, n_turns, n_turns_multi, mean_annotators,
              mean_agreement_share, unanimous_share
       from intent_consensus_summary order by corpus, label_scheme"""
)
R.write_table(consensus, "intent_consensus_summary")
R.show_table(
    consensus, decimals=3, caption="Agreement shares over turns with at least two annotators."
)

# %% [markdown]
# ## 5. Quality ratings
#
# Every rating in `ratings`, per corpus, rater kind and aspect: the distribution of values on
# each aspect's own scale (`rating_scales` seed), and means (also normalised to [0, 1]; the
# `rating_summary` mart, which the dashboard shows too).

# %%
rating_summary = q(
    """select corpus, rater_kind, aspect, level, n_ratings, n_conversations, scale_min,
              scale_max, mean_value, mean_normalized, higher_is_better
       from rating_summary order by corpus, rater_kind, aspect, level"""
)
R.write_table(rating_summary, "rating_summary")
rating_dist = q(
    """select corpus, rater_kind, aspect, value, count(*) as n_ratings,
              count(*) / sum(count(*)) over (partition by corpus, rater_kind, aspect) as share
       from ratings group by corpus, rater_kind, aspect, value
       order by corpus, rater_kind, aspect, value"""
)
R.write_table(rating_dist, "rating_distribution")
R.show_table(
    rating_summary, decimals={"scale_min": 0, "scale_max": 0, "mean_value": 3, "mean_normalized": 3}
)

if not rating_dist.is_empty():
    cmap = matplotlib.colormaps["RdYlGn"]
    rated = [c for c in CORPORA if c in set(rating_dist["corpus"].to_list())]
    groups = {
        c: rating_summary.filter(pl.col("corpus") == c)
        .select("rater_kind", "aspect")
        .unique()
        .sort("rater_kind", "aspect")
        for c in rated
    }
    heights = [max(groups[c].height, 1) for c in rated]
    fig, axes = plt.subplots(
        len(rated),
        1,
        figsize=(9, 0.28 * sum(heights) + 0.9 * len(rated) + 0.6),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    for ax, corpus in zip(axes[:, 0], rated):
        for i, (kind, aspect) in enumerate(groups[corpus].iter_rows()):
            part = rating_dist.filter(
                (pl.col("corpus") == corpus)
                & (pl.col("rater_kind") == kind)
                & (pl.col("aspect") == aspect)
            )
            scale = rating_summary.filter(
                (pl.col("corpus") == corpus)
                & (pl.col("rater_kind") == kind)
                & (pl.col("aspect") == aspect)
            ).row(0, named=True)
            span = (scale["scale_max"] - scale["scale_min"]) or 1
            norm = (
                part["value"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
                - scale["scale_min"]
            ) / span
            shares = part["share"].to_numpy()
            lefts = np.concatenate([[0.0], np.cumsum(shares)[:-1]])
            ax.barh(
                np.full(len(shares), i),
                shares,
                left=lefts,
                color=cmap(norm if scale["higher_is_better"] else 1 - norm),
                edgecolor="white",
                linewidth=0.4,
            )
        ax.set_yticks(
            range(groups[corpus].height),
            [f"{a} ({k})" for k, a in groups[corpus].iter_rows()],
            fontsize=7.5,
        )
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_title(NAMES[corpus], loc="left")
    axes[-1, 0].set_xlabel(
        "share of ratings (colour: red = worst end of the aspect's scale, green = best)"
    )
    R.margins(
        fig,
        left=R.text_inches([f"{a} ({k})" for c in rated for k, a in groups[c].iter_rows()], 7.5)
        + 0.15,
        right=0.2,
        bottom=0.5,
        top=0.3,
        hgap=0.4,
    )
    R.show_figure(fig, "Stacked bars of rating value shares per aspect")

# %% [markdown]
# ### RecLLMSim: quality by number of user turns
#
# `quality_by_length`: mean rating per aspect by the number of user messages (the dataset's
# own "turns"): the LLM judge's ratings of the LLM-agent conversations and the human users'
# questionnaire, each on its 0–2 scale, plotted normalised to [0, 1] with Student's t 95%
# intervals over the conversations (one rating per conversation and aspect). Sparse tail:
# per panel, the last point pools every conversation with at least *t* user turns, *t* being
# the largest turn count with at least 20 conversations; a shorter turn count with fewer than
# 20 conversations is not drawn (every count is in the tables).

# %%
qbl = q("select * from quality_by_length where corpus = 'recllmsim' order by aspect, n_user_turns")
R.write_table(qbl, "recllmsim_quality_by_user_turns")
MIN_CONVERSATIONS = 20
qbl_binned = R.with_mean_interval(
    q(
        """with rated as (
           select r.rater_kind, r.aspect, r.conversation_id, c.n_user_turns, r.value_normalized
           from ratings r join conversations c using (conversation_id)
           where r.corpus = 'recllmsim' and r.turn_index is null and r.item_id is null
             and r.value_normalized is not null),
       per_count as (
           select rater_kind, n_user_turns, count(distinct conversation_id) as n from rated group by all),
       tail as (
           select rater_kind, max(n_user_turns) as tail_from from per_count where n >= $min group by rater_kind)
       select rated.rater_kind, aspect,
              cast(least(n_user_turns, coalesce(tail_from, n_user_turns)) as integer) as n_user_turns_bin,
              coalesce(n_user_turns >= tail_from, false) as is_tail,
              count(distinct conversation_id) as n_conversations, count(*) as n_ratings,
              avg(value_normalized) as mean_normalized, stddev_samp(value_normalized) as sd_normalized
       from rated left join tail using (rater_kind)
       group by all order by rated.rater_kind, aspect, n_user_turns_bin""",
        min=MIN_CONVERSATIONS,
    ),
    "mean_normalized",
    "sd_normalized",
    "n_ratings",
).with_columns((pl.col("n_conversations") >= MIN_CONVERSATIONS).alias("is_plotted"))
R.write_table(qbl_binned, "recllmsim_quality_by_user_turns_binned")
if "recllmsim" not in PRESENT:
    R.show_absent("recllmsim")
elif qbl.is_empty():
    R.show_html("<p>No conversation-level RecLLMSim ratings in this warehouse.</p>")
else:
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
    R.margins(fig, left=0.7, right=0.2, bottom=1.2, top=0.6, wgap=0.3)
    R.show_figure(
        fig, "RecLLMSim mean normalised rating by number of user turns with 95% intervals"
    )
    R.show_html(
        f'<p class="caption">Points with fewer than {MIN_CONVERSATIONS} conversations are not drawn; '
        "the last point of each panel (≥ t) pools all longer conversations.</p>"
    )

# %% [markdown]
# ## 6. CRS Arena (CRSArena-Dial)
#
# Conversations per system and crowdsourcing environment, user satisfaction per system,
# the `crs_leaderboard` (sequential Elo as the dataset's analysis, Bradley–Terry strengths on
# the Elo scale with 95% bootstrap intervals), and how well the open and closed environments
# agree (Pearson and Spearman over systems, as the dataset's `DataAnalysis.md`).

# %%
crs_conv = R.with_wilson_interval(
    q(
        """select subset as environment, system_id, count(*) as n_conversations,
              count(user_sentiment) as n_with_sentiment,
              count(*) filter (where user_sentiment = 'satisfied') as n_satisfied,
              count(*) filter (where user_sentiment = 'satisfied') / nullif(count(user_sentiment), 0) as satisfaction_rate
       from conversations where corpus = 'crsarena'
       group by subset, system_id order by environment, system_id"""
    ),
    "n_satisfied",
    "n_with_sentiment",
    prefix="satisfaction_ci95",
)
R.write_table(crs_conv, "crsarena_conversations")
leaderboard = q(
    "select * from crs_leaderboard order by environment, elo_rank nulls last, system_id"
)
R.write_table(leaderboard, "crsarena_leaderboard")
corr_rows = []
for quantity in ("elo", "satisfaction"):
    for method in ("pearson", "spearman"):
        value, n = crs_figures.open_closed_correlation(con, quantity, method)
        corr_rows.append(
            {"quantity": quantity, "method": method, "coefficient": value, "n_systems": n}
        )
corr = pl.DataFrame(
    corr_rows,
    schema={
        "quantity": pl.Utf8,
        "method": pl.Utf8,
        "coefficient": pl.Float64,
        "n_systems": pl.Int64,
    },
)
if "crsarena" not in PRESENT:
    corr = corr.clear()
R.write_table(corr, "crsarena_open_closed_correlation")

if "crsarena" not in PRESENT:
    R.show_absent("crsarena")
else:
    wide = crs_conv.pivot(
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
        set(crs_conv["environment"].to_list()), key=lambda e: crs_figures.ENV_ORDER.get(e, 9)
    )
    systems = sorted(set(crs_conv["system_id"].to_list()))
    fig, ax = plt.subplots(figsize=(9, 3.6))
    width = 0.8 / max(len(envs), 1)
    for k, env in enumerate(envs):
        part = dict(
            crs_conv.filter(pl.col("environment") == env)
            .select("system_id", "n_conversations")
            .iter_rows()
        )
        xs = np.arange(len(systems)) + (k - (len(envs) - 1) / 2) * width
        ax.bar(
            xs,
            [part.get(s, 0) for s in systems],
            width,
            color=crs_figures.ENV_COLORS.get(env, "#999999"),
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
    R.margins(fig, left=0.6, right=1.15, bottom=R.text_inches(systems, 7.5) * 0.72 + 0.55, top=0.3)
    R.show_figure(fig, "CRS Arena conversations per system and environment")
    R.show_html(
        '<p class="caption">The share of satisfied users per system, with 95% Wilson intervals, is in '
        "the table above (written table <code>crsarena_conversations</code>) and plotted in section 10 "
        "(CRSArena-Dial).</p>"
    )

    R.show_html("<h3>Leaderboards</h3>")
    published_elo = {
        r["figure_id"].split(".", 2)[2]: r["published"]
        for r in comparison.to_dicts()
        if r["figure_id"].startswith("crsarena.elo.")
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
    names_in = R.text_inches(leaderboard["system_id"].to_list(), 7.5)
    R.margins(fig, left=names_in + 0.15, right=0.15, bottom=0.5, top=0.55, wgap=names_in + 0.3)
    R.show_figure(fig, "CRS leaderboards: Bradley-Terry strengths with intervals and Elo")

    R.show_html("<h3>Open vs closed environment</h3>")
    R.show_table(
        corr,
        decimals=3,
        caption="Correlation over systems of the open-environment and closed-environment "
        "Elo ratings and satisfaction rates (published: Elo 0.763 / 0.700, satisfaction 0.843 / 0.726).",
    )

# %% [markdown]
# ## 7. ConvSearch search behaviour
#
# The agents' searches behind their answers: queries and queries with a click per dialogue,
# words per query, landing pages per dialogue, click-through by rank (content results;
# share of SERP views with a click on that rank) and dwell times on SERPs and landing pages.

# %%
per_dialogue = q(
    """with dialogues as (select conversation_id from conversations where corpus = 'convsearch'),
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
)
R.write_table(per_dialogue, "convsearch_search_behaviour")
ctr = R.with_wilson_interval(
    q(
        """select rank, count(*) as n_clicks, count(distinct serp_view_id) as n_serp_views_clicked,
              (select count(*) from serp_views) as n_serp_views,
              count(distinct serp_view_id) / (select count(*) from serp_views) as click_through_rate
       from result_clicks where click_type = 'content' group by rank order by rank"""
    ),
    "n_serp_views_clicked",
    "n_serp_views",
)
R.write_table(ctr, "convsearch_click_through_by_rank")
dwell = q(
    """with d as (select 'serp' as page_kind, dwell_ms from serp_views where dwell_ms is not null
                  union all
                  select 'landing_page', dwell_ms from landing_page_views where dwell_ms is not null)
       select page_kind, count(*) as n_views, avg(dwell_ms) / 1000 as mean_s,
              quantile_cont(dwell_ms, 0.25) / 1000 as p25_s, median(dwell_ms) / 1000 as median_s,
              quantile_cont(dwell_ms, 0.75) / 1000 as p75_s, quantile_cont(dwell_ms, 0.9) / 1000 as p90_s
       from d group by page_kind order by page_kind"""
)
R.write_table(dwell, "convsearch_dwell_times")
if "convsearch" not in PRESENT:
    R.show_absent("convsearch")
else:
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
            color=COLORS["convsearch"],
            yerr=R.interval_errors(ctr, "click_through_rate"),
            capsize=2,
            error_kw={"elinewidth": 0.8},
        )
    axes[0].set_xlabel("rank of the clicked result")
    axes[0].set_ylabel("share of SERP views")
    axes[0].set_title("Click-through by rank (95% Wilson interval)")
    times = q("""select 'serp' as page_kind, dwell_ms from serp_views where dwell_ms > 0
                 union all select 'landing_page', dwell_ms from landing_page_views where dwell_ms > 0
                 order by page_kind, dwell_ms""")
    if not times.is_empty():
        bins = np.logspace(
            np.log10(max(times["dwell_ms"].min() / 1000, 0.1)),
            np.log10(times["dwell_ms"].max() / 1000 + 1),
            30,
        )
        for kind, color in (("serp", "#2f5d8a"), ("landing_page", "#d08a1e")):
            vals = times.filter(pl.col("page_kind") == kind)["dwell_ms"].to_numpy() / 1000
            if len(vals):
                axes[1].hist(vals, bins=bins, alpha=0.6, color=color, label=kind)
        axes[1].set_xscale("log")
        axes[1].legend(fontsize=8, frameon=False)
    axes[1].set_xlabel("dwell time (s, log)")
    axes[1].set_title("Dwell times")
    R.margins(fig, left=0.7, right=0.2, bottom=0.5, top=0.3, wgap=0.8)
    R.show_figure(fig, "ConvSearch click-through by rank and dwell time histograms")

# %% [markdown]
# ## 8. CoSRec relevance judgments
#
# The curated relevance judgments (`relevance_judgments`): grades 0 (not), 1 (partially)
# and 2 (highly relevant) per intent kind — search topics judge MS MARCO passages,
# personalised recommendation topics judge Amazon products — and judged items per topic.

# %%
grades = q(
    """select judgment_kind, grade, count(*) as n_judgments,
              count(*) / sum(count(*)) over (partition by judgment_kind) as share
       from relevance_judgments group by judgment_kind, grade order by judgment_kind, grade"""
)
R.write_table(grades, "cosrec_relevance_grades")
per_topic = q(
    """with t as (select judgment_kind, topic_id, count(*) as n_judged,
                         count(*) filter (where grade >= 1) as n_relevant
                  from relevance_judgments group by judgment_kind, topic_id)
       select judgment_kind, count(*) as n_topics, sum(n_judged) as n_judgments,
              min(n_judged) as min_judged, median(n_judged) as median_judged, avg(n_judged) as mean_judged,
              max(n_judged) as max_judged, avg(n_relevant) as mean_relevant,
              count(*) filter (where n_relevant = 0) as topics_without_relevant
       from t group by judgment_kind order by judgment_kind"""
)
R.write_table(per_topic, "cosrec_judged_items_per_topic")
if "cosrec" not in PRESENT:
    R.show_absent("cosrec")
elif grades.is_empty():
    R.show_html("<p>No relevance judgments in this warehouse (they come with CoSRec-Curated).</p>")
else:
    R.show_table(grades, decimals=3)
    R.show_table(per_topic, decimals=2)
    topic_sizes = q("""select judgment_kind, topic_id, count(*) as n_judged from relevance_judgments
                       group by judgment_kind, topic_id order by judgment_kind, topic_id""")
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
    R.margins(fig, left=R.text_inches(kinds, 9) + 0.2, right=0.2, bottom=0.85, top=0.3, wgap=0.8)
    R.show_figure(fig, "CoSRec relevance grades and judged items per topic")

# %% [markdown]
# ## 9. RecoReact ratings and selections by round and domain
#
# Each user has three rounds; in each, three slates of 12 items (after the request and the
# two updates), each rated 1–9 (`rating1..3`), and a summary rated 1–9. The round of a rating
# is the position of its impression among the user's impressions (turns are in round order);
# selections come from `item_interactions`.

# %%
rounds = q(
    """with turn_rounds as (
           select conversation_id, turn_index,
                  dense_rank() over (partition by conversation_id order by impression_first_turn) as round
           from (select conversation_id, turn_index,
                        min(turn_index) over (partition by conversation_id, split_part(source_turn_id, ':', 1)) as impression_first_turn
                 from turns where corpus = 'recoreact')),
       impressions as (
           select c.subset as domain, r.round, count(distinct r.conversation_id) as n_impressions
           from turn_rounds r join conversations c using (conversation_id) group by all),
       rated as (
           select c.subset as domain, tr.round,
                  avg(value) filter (where aspect = 'rating1') as mean_rating1,
                  avg(value) filter (where aspect = 'rating2') as mean_rating2,
                  avg(value) filter (where aspect = 'rating3') as mean_rating3,
                  avg(value) filter (where aspect = 'rating_summary') as mean_rating_summary,
                  stddev_samp(value) filter (where aspect = 'rating1') as sd_rating1,
                  count(value) filter (where aspect = 'rating1') as n_rating1,
                  stddev_samp(value) filter (where aspect = 'rating3') as sd_rating3,
                  count(value) filter (where aspect = 'rating3') as n_rating3
           from ratings x join turn_rounds tr using (conversation_id, turn_index)
           join conversations c using (conversation_id)
           where x.corpus = 'recoreact' group by all),
       selected as (
           select domain, round, count(*) as n_selected_items from item_interactions group by all),
       per_impression as (
           select c.subset as domain, k.round, coalesce(s.n, 0) as n_selected
           from (select distinct conversation_id, round from turn_rounds) k
           join conversations c using (conversation_id)
           left join (select conversation_id, round, count(*) as n from item_interactions group by all) s
               using (conversation_id, round)),
       selected_spread as (
           select domain, round, stddev_samp(n_selected) as sd_selected from per_impression group by all)
       select i.domain, i.round, i.n_impressions, r.mean_rating1, r.mean_rating2, r.mean_rating3,
              r.mean_rating_summary, coalesce(s.n_selected_items, 0) as n_selected_items,
              coalesce(s.n_selected_items, 0) / i.n_impressions as mean_selected_per_impression,
              r.sd_rating1, r.n_rating1, r.sd_rating3, r.n_rating3, d.sd_selected
       from impressions i left join rated r using (domain, round) left join selected s using (domain, round)
       left join selected_spread d using (domain, round)
       order by domain, round"""
)
rounds = R.with_mean_interval(
    rounds, "mean_rating1", "sd_rating1", "n_rating1", prefix="rating1_ci95"
)
rounds = R.with_mean_interval(
    rounds, "mean_rating3", "sd_rating3", "n_rating3", prefix="rating3_ci95"
)
rounds = R.with_mean_interval(
    rounds, "mean_selected_per_impression", "sd_selected", "n_impressions", prefix="selected_ci95"
)
rounds = rounds.drop("sd_rating1", "n_rating1", "sd_rating3", "n_rating3", "sd_selected")
R.write_table(rounds, "recoreact_rounds")
if "recoreact" not in PRESENT:
    R.show_absent("recoreact")
else:
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
    legend_in = R.text_inches([f"{d} first slate" for d in domains], 7) + 0.45
    R.margins(fig, left=0.6, right=legend_in, bottom=0.5, top=0.3, wgap=legend_in + 0.6)
    R.show_figure(fig, "RecoReact ratings and selections by round and domain with 95% intervals")

# %% [markdown]
# ## 10. The corpus authors' own analyses
#
# The tables and figures each corpus's authors computed in their analysis code
# (`csrwh/reading/figures/<corpus>.py` recomputes them from the marts; the figures they printed are
# compared in section 2), folded per corpus: open a corpus to see them.

# %%
for corpus in NAMES:
    if corpus not in F.CORPORA:  # a corpus without published analyses (csrwh/reading/figures/)
        continue
    R.show_html(f"<h3>{NAMES[corpus]}</h3>")
    if corpus not in PRESENT:
        F.corpus_module(corpus).render(con, R, present=False)  # one line: not present
        continue
    with R.folded(f"{NAMES[corpus]}: the authors' tables and figures, recomputed"):
        F.corpus_module(corpus).render(con, R, present=True)

# %%
con.close()
