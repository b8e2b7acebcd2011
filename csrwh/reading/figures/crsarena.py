"""CRSArena-Dial: the README's and `DataAnalysis.md`'s figures, everything `tool/analysis.ipynb`
prints, and the per-dialogue vote result `tool/merge.py` derives.

The analysis (github.com/iai-group/crsarena-dial @ dd7f4e7dd3bc) reads
`data/crs_arena_dial_{open,closed}.json` and `data/votes_{open,closed}.csv`. The warehouse side
reads the marts: `conversations`, `turns`, `votes`, `crs_leaderboard`, and the CRSArena
analysis marts `crsarena_dialogue_stats`, `crsarena_battle_counts`, `crsarena_vote_results`
(models/marts/reports/) and `text_diversity` (models/marts/measures/).

Rounding: the analysis prints means and standard deviations with Python's ``round(x, 3)`` or
``f"{x:.2f}"`` -- the exact binary value rounded half to even -- and the comparison rounds the
warehouse's unrounded value the same way (``csrwh.reading.figures.round_as_published``). DuckDB's
``round`` rounds half away from zero, so no figure here is rounded in SQL.
"""

from __future__ import annotations

import html
import statistics
import weakref

import numpy as np
import polars as pl

from csrwh.measures.stats import mean_interval, pearson, spearman, wilson_interval
from csrwh.reading.figures._metric import Metric, fn_metric, rows, sql_metric
from csrwh.reading.report import margins, text_inches

NAME = "crsarena"
ENVIRONMENTS = ("open", "closed")
_COMBINED = "combined = both environments"


_MART_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def mart_rows(con, table: str) -> list[dict]:
    """Every row of a small CRSArena mart, read once per connection (the report compares
    hundreds of figures against the same few tables; the report's connection is read-only)."""
    cached = _MART_CACHE.setdefault(con, {})
    if table not in cached:
        cursor = con.execute(f"select * from {table}")
        names = [d[0] for d in cursor.description]
        cached[table] = [dict(zip(names, r)) for r in cursor.fetchall()]
    return cached[table]


def _lookup(con, table: str, column: str, **where) -> float | None:
    found = [r[column] for r in mart_rows(con, table) if all(r[k] == v for k, v in where.items())]
    return None if not found or found[0] is None else float(found[0])


def _dialogue_stat(column: str, words: str) -> Metric:
    """A column of `crsarena_dialogue_stats`; ``<quantity>_{stat}`` picks the column by the arg."""

    def value(con, args) -> float | None:
        name = column.format(stat=args.get("stat"))
        return _lookup(
            con,
            "crsarena_dialogue_stats",
            name,
            environment=args["environment"],
            system_id=args.get("system") or "(all)",
        )

    return Metric(
        definition=f"{words} — `crsarena_dialogue_stats.{column}` (environment {{environment}}, {_COMBINED}; "
        "system {system}, (any) = every CRS)",
        fn=value,
    )


def _words_by_split(con, args) -> float | None:
    """The analysis' own word count: ``len(utterance.split())`` (Python whitespace, no CJK rule)."""
    where = "c.corpus = 'crsarena' and ($environment = 'combined' or c.subset = $environment)"
    found = rows(
        con,
        f"""select t.text from turns t join conversations c on t.conversation_id = c.conversation_id
            where {where} and ($system is null or c.system_id = $system)""",
        {"environment": args.get("environment"), "system": args.get("system")},
    )
    words = [len((text or "").split()) for (text,) in found]
    if not words:
        return None
    stat = args["stat"]
    if stat == "sd":
        return statistics.stdev(words) if len(words) > 1 else None
    return float(statistics.median(words)) if stat == "median" else float(statistics.mean(words))


_STAT_WORDS = {
    "mean": "mean",
    "median": "median (middle two averaged)",
    "sd": "sample standard deviation (n - 1)",
}

METRICS = {
    "votes": sql_metric("count of `votes` rows", "select count(*) from votes"),
    # one line per vote record, plus a line per line break inside feedback, plus one header per file
    "vote_csv_lines": sql_metric(
        "lines of the vote CSV files: one per `votes` row, one per line break inside `feedback`, "
        "one header per environment",
        """select count(*)
            + coalesce(sum(length(feedback) - length(replace(feedback, chr(10), ''))), 0)
            + count(distinct environment) from votes""",
    ),
    "crs_conversations": sql_metric(
        "count of `conversations` (corpus crsarena, environment {environment}, system {system})",
        """select count(*) from conversations where corpus = 'crsarena'
            and subset = $environment and ($system is null or system_id = $system)""",
    ),
    "crs_elo": sql_metric(
        "`crs_leaderboard.elo` (environment {environment}, system {system})",
        "select elo from crs_leaderboard where environment = $environment and system_id = $system",
    ),
    "crs_elo_rank": sql_metric(
        "`crs_leaderboard.elo_rank` (environment {environment}, system {system})",
        "select elo_rank from crs_leaderboard where environment = $environment and system_id = $system",
    ),
    "crs_satisfied": _dialogue_stat(
        "n_satisfied", "dialogues whose user ended satisfied (`metadata.sentiment`)"
    ),
    "crs_frustrated": _dialogue_stat("n_frustrated", "dialogues whose user ended frustrated"),
    "crs_satisfied_share": _dialogue_stat(
        "satisfied_share",
        'satisfied / (satisfied + frustrated) dialogues — the analysis\' "% Satisfied", printed with '
        "Python round(x, 3)",
    ),
    "crs_utterances_stat": _dialogue_stat(
        "utterances_{stat}",
        "utterances per dialogue, statistic {stat} (mean; median, middle two averaged; sd, sample "
        "standard deviation with n - 1 as statistics.stdev) — `conversations.n_turns`, every utterance of "
        "both sides (the analysis' len(conversation)); the analysis prints mean and sd with round(x, 3), "
        "the per-environment mean with :.2f",
    ),
    "crs_words_stat": _dialogue_stat(
        "words_{stat}",
        "words per utterance, statistic {stat} (mean; median; sd, sample n - 1) — `turns.n_words` over "
        "every utterance of those dialogues, both sides: Python str.split() words, except that a Han "
        "character counts as a word; the analysis prints mean and sd with round(x, 3), the "
        "per-environment mean with :.2f",
    ),
    "crs_battles": sql_metric(
        "battles in environment {environment}: votes whose voter held a dialogue there (the analysis' "
        '"battles with valid conversations") — sum of `crsarena_battle_counts.n_battles`',
        "select sum(n_battles) from crsarena_battle_counts where environment = $environment",
    ),
    "crs_tie_share": sql_metric(
        f"share of battles voted a tie in environment {{environment}} ({_COMBINED}): sum of "
        "`crsarena_battle_counts.n_ties` / sum of n_battles, printed with round(x, 3)",
        """select sum(n_ties) / nullif(sum(n_battles), 0) from crsarena_battle_counts
            where environment = $environment""",
    ),
    "crs_battle_cell": Metric(
        definition="battles with {system_a} recorded first (crs1) and {system_b} second (crs2), both "
        "environments (`crsarena_battle_counts.n_battles`, environment combined)",
        fn=lambda con, args: _lookup(
            con,
            "crsarena_battle_counts",
            "n_battles",
            environment="combined",
            system_a=args["system_a"],
            system_b=args["system_b"],
        ),
    ),
    "crs_vote_results": sql_metric(
        "dialogues of environment {environment} whose vote result, as tool/merge.py derives it, is "
        "{result} (`crsarena_vote_results.vote_result`; no_vote = the tool's `vote: null`)",
        """select count(*) from crsarena_vote_results
            where environment = $environment and vote_result = $result""",
    ),
    "crs_distinct": sql_metric(
        "Distinct-{n} of the {side} utterances of environment {environment}, variant {variant} "
        "(`text_diversity.distinct_{n}`; dataset variant = the analysis' own definition: 100 shuffles "
        "from random.Random(42), each cut to 7,012 str.split() words, tokens lower-cased with '.' and "
        "newlines removed and split on spaces, mean of the 100 Distinct-n values)",
        """select case $n when '1' then distinct_1 when '2' then distinct_2 end from text_diversity
            where corpus = 'crsarena' and subset = $environment and system_id = '(all)'
              and side = $side and variant = $variant""",
    ),
}


@fn_metric(
    "words per utterance counted as the analysis does, len(utterance.split()) (Python whitespace, no "
    "CJK rule), from `turns.text`, statistic {stat} (environment {environment}, system {system})"
)
def _words_split(con, args) -> float | None:
    return _words_by_split(con, args)


METRICS["crs_words_stat_split"] = _words_split


def open_closed_pairs(con, quantity: str) -> list[tuple[str, float, float]]:
    """Per system with a value in both environments: (system, open value, closed value)."""
    column = {"elo": "elo", "satisfaction": "satisfaction_rate"}[quantity]
    return rows(
        con,
        f"""select o.system_id, o.{column}, c.{column}
            from crs_leaderboard o join crs_leaderboard c using (system_id)
            where o.environment = 'open' and c.environment = 'closed'
              and o.{column} is not null and c.{column} is not null
            order by o.system_id""",
    )


def open_closed_correlation(con, quantity: str, method: str) -> tuple[float | None, int]:
    pairs = open_closed_pairs(con, quantity)
    fn = pearson if method == "pearson" else spearman
    return fn([p[1] for p in pairs], [p[2] for p in pairs]), len(pairs)


@fn_metric(
    "{method} correlation over systems of the open- and closed-environment {quantity} "
    "(`crs_leaderboard`; systems with a value in both)"
)
def _open_closed_correlation(con, args) -> float | None:
    return open_closed_correlation(con, args["quantity"], args["method"])[0]


METRICS["crs_open_closed_correlation"] = _open_closed_correlation


@fn_metric(
    "Spearman correlation over systems of the global Elo rating (`crs_leaderboard.elo`, environment "
    "global: open then closed battles) and the combined share of satisfied users "
    "(`crs_leaderboard.satisfaction_rate`, global)"
)
def _elo_satisfaction(con, args) -> float | None:
    pairs = rows(
        con,
        """select elo, satisfaction_rate from crs_leaderboard
           where environment = 'global' and elo is not null and satisfaction_rate is not null""",
    )
    return spearman([p[0] for p in pairs], [p[1] for p in pairs])


METRICS["crs_elo_satisfaction_correlation"] = _elo_satisfaction


def parse_external(text: str) -> dict[str, float]:
    """``system:value,system:value`` (an empty value = not reported)."""
    out = {}
    for part in text.split(","):
        system, _, value = part.partition(":")
        if value:
            out[system] = float(value)
    return out


@fn_metric(
    "Spearman correlation over systems of the global Elo rating (`crs_leaderboard.elo`) and the "
    "external per-system values in the figure's args (`values`: Recall@10 reported by Wang et al. "
    "2023, as listed in analysis.ipynb; systems without a value are left out)"
)
def _elo_external(con, args) -> float | None:
    external = parse_external(args["values"])
    elo = dict(
        rows(
            con,
            "select system_id, elo from crs_leaderboard where environment = 'global' and elo is not null",
        )
    )
    systems = sorted(s for s in external if s in elo)
    return spearman([elo[s] for s in systems], [external[s] for s in systems])


METRICS["crs_elo_external_spearman"] = _elo_external


# --------------------------------------------------------------------------- the report

STATS_COLUMNS = [
    "environment",
    "system_id",
    "n_dialogues",
    "n_satisfied",
    "n_frustrated",
    "satisfied_share",
    "n_utterances",
    "utterances_mean",
    "utterances_median",
    "utterances_sd",
    "words_mean",
    "words_median",
    "words_sd",
]
BATTLE_COLUMNS = [
    "environment",
    "system_a",
    "system_b",
    "n_votes",
    "n_battles",
    "n_wins_a",
    "n_wins_b",
    "n_ties",
]
TIE_COLUMNS = ["environment", "n_battles", "n_ties", "tie_share"]
VOTE_RESULT_COLUMNS = ["environment", "vote_result", "n_dialogues"]
DIVERSITY_COLUMNS = [
    "subset",
    "system_id",
    "side",
    "variant",
    "n_conversations",
    "n_utterances",
    "n_words",
    "is_truncated",
    "distinct_1",
    "distinct_2",
]
ENV_ORDER = {"open": 0, "closed": 1, "combined": 2}
ENV_COLORS = {"open": "#2f5d8a", "closed": "#c0504d", "combined": "#4f8a3c"}


def _tables(R, con) -> dict[str, pl.DataFrame]:
    """Every table this section writes: always the same set with the same columns."""
    q = lambda sql: R.query(con, sql)
    return {
        "crsarena_dialogue_stats": q(
            f"select {', '.join(STATS_COLUMNS)} from crsarena_dialogue_stats order by environment, system_id"
        ),
        "crsarena_battle_counts": q(
            f"select {', '.join(BATTLE_COLUMNS)} from crsarena_battle_counts order by environment, system_a, system_b"
        ),
        "crsarena_tie_shares": q(
            """select environment, cast(sum(n_battles) as integer) as n_battles,
                      cast(sum(n_ties) as integer) as n_ties,
                      sum(n_ties) / nullif(sum(n_battles), 0) as tie_share
               from crsarena_battle_counts group by environment order by environment"""
        ),
        "crsarena_vote_results": q(
            """select environment, vote_result, cast(count(*) as integer) as n_dialogues
               from crsarena_vote_results group by environment, vote_result order by environment, vote_result"""
        ),
        "crsarena_text_diversity": q(
            f"""select {", ".join(DIVERSITY_COLUMNS)} from text_diversity where corpus = 'crsarena'
                order by subset, system_id, side, variant"""
        ),
    }


def render(con, R, present: bool) -> None:
    """The analysis notebook's tables: conversations, satisfaction and lengths per CRS and
    environment, battles (matrix and ties), the per-dialogue vote results of the merge tool and
    Distinct-n, with plots."""
    import matplotlib.pyplot as plt

    tables = _tables(R, con)
    for name, frame in tables.items():
        R.write_table(frame, name)
    if not present:
        R.show_absent(NAME)
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
            .replace_strict(ENV_ORDER, default=9, return_dtype=pl.Int64)
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
    envs = [e for e in ENV_ORDER if e in set(per_system["environment"].to_list())]
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


def _render_diversity(R, plt, diversity: pl.DataFrame) -> None:
    R.show_html(
        "<h4>Response diversity</h4><p>analysis.ipynb and tool/metrics.py: Distinct-n over every "
        "utterance of an environment (both sides), the <em>dataset</em> definition (100 shuffles with "
        "seed 42, each cut to 7,012 words, mean Distinct-n; published Distinct-2: open 0.527, closed "
        "0.538) beside a <em>plain</em> one (all utterances, lower-cased whitespace tokens, no "
        "truncation), also per side. <code>text_diversity</code> (every corpus) holds the same per "
        "system; rows whose words do not exceed 7,012 are not truncated ("
        + html.escape("is_truncated")
        + ").</p>"
    )
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
