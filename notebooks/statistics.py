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
from csrwh.reading.figures import render

R.setup_matplotlib()
import matplotlib.pyplot as plt

con = R.connect()
PRESENT = R.present_corpora(con)
NAMES = R.ALL_CORPUS_NAMES | R.corpus_names(PRESENT)  # the registry's, own corpora too
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
R.show_html(R.corpora_html(PRESENT))
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

rated = [c for c in CORPORA if c in set(rating_dist["corpus"].to_list())]
if rated:
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#b0b0b0")  # grey: no scale
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
            low, high = scale["scale_min"], scale["scale_max"]  # None: an unscaled aspect (grey)
            span = (high - low if low is not None and high is not None else 0) or 1
            norm = (
                part["value"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
                - (low if low is not None else float("nan"))
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
render.corpus_renderer("recllmsim").render_quality_by_user_turns(con, R, "recllmsim" in PRESENT)


# %% [markdown]
# ## 6. CRS Arena (CRSArena-Dial)
#
# Conversations per system and crowdsourcing environment, user satisfaction per system,
# the `crs_leaderboard` (sequential Elo as the dataset's analysis, Bradley–Terry strengths on
# the Elo scale with 95% bootstrap intervals), and how well the open and closed environments
# agree (Pearson and Spearman over systems, as the dataset's `DataAnalysis.md`).

# %%
render.corpus_renderer("crsarena").render_overview(con, R, "crsarena" in PRESENT)

# %% [markdown]
# ## 7. ConvSearch search behaviour
#
# The agents' searches behind their answers: queries and queries with a click per dialogue,
# words per query, landing pages per dialogue, click-through by rank (content results;
# share of SERP views with a click on that rank) and dwell times on SERPs and landing pages.

# %%
render.corpus_renderer("convsearch").render_search_behaviour(
    con, R, "convsearch" in PRESENT, color=COLORS["convsearch"]
)

# %% [markdown]
# ## 8. CoSRec relevance judgments
#
# The curated relevance judgments (`relevance_judgments`): grades 0 (not), 1 (partially)
# and 2 (highly relevant) per intent kind — search topics judge MS MARCO passages,
# personalised recommendation topics judge Amazon products — and judged items per topic.

# %%
render.corpus_renderer("cosrec").render_judgments(con, R, "cosrec" in PRESENT)

# %% [markdown]
# ## 9. RecoReact ratings and selections by round and domain
#
# Each user has three rounds; in each, three slates of 12 items (after the request and the
# two updates), each rated 1–9 (`rating1..3`), and a summary rated 1–9. The round of a rating
# is the position of its impression among the user's impressions (turns are in round order);
# selections come from `item_interactions`.

# %%
render.corpus_renderer("recoreact").render_rounds(con, R, "recoreact" in PRESENT)

# %% [markdown]
# ## 10. The corpus authors' own analyses
#
# The tables and figures each corpus's authors computed in their analysis code
# (`csrwh/reading/figures/<corpus>.py` defines them from the marts,
# `csrwh/reading/figures/render/<corpus>.py` shows them; the figures they printed are compared
# in section 2), folded per corpus: open a corpus to see them.

# %%
for corpus in NAMES:
    if corpus not in F.CORPORA:  # a corpus without published analyses (csrwh/reading/figures/)
        continue
    R.show_html(f"<h3>{NAMES[corpus]}</h3>")
    if corpus not in PRESENT:
        render.corpus_renderer(corpus).render(con, R, present=False)  # one line: not present
        continue
    with R.folded(f"{NAMES[corpus]}: the authors' tables and figures, recomputed"):
        render.corpus_renderer(corpus).render(con, R, present=True)

# %%
con.close()
