"""CRSArena-Dial: the README's and `DataAnalysis.md`'s figures, everything `tool/analysis.ipynb`
prints, and the per-dialogue vote result `tool/merge.py` derives.

Recomputed from the marts and rounded as the analysis prints them (half to even, in Python,
never in SQL).
Details: docs/internals.md#csrwh-reading-figures-crsarena
"""

from __future__ import annotations

import statistics
import weakref

import polars as pl

from csrwh.measures.stats import pearson, spearman
from csrwh.reading.figures._metric import Metric, fn_metric, rows, sql_metric

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


# --------------------------------------------------------------------------- the report tables

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


def tables(R, con) -> dict[str, pl.DataFrame]:
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


# --------------------------------------------------------------------------- the overview tables

CONVERSATIONS_SQL = """select subset as environment, system_id, count(*) as n_conversations,
              count(user_sentiment) as n_with_sentiment,
              count(*) filter (where user_sentiment = 'satisfied') as n_satisfied,
              count(*) filter (where user_sentiment = 'satisfied') / nullif(count(user_sentiment), 0) as satisfaction_rate
       from conversations where corpus = 'crsarena'
       group by subset, system_id order by environment, system_id"""
LEADERBOARD_SQL = (
    "select * from crs_leaderboard order by environment, elo_rank nulls last, system_id"
)


def overview_tables(R, con, present: bool) -> dict[str, pl.DataFrame]:
    """The report's CRS Arena overview tables: conversations and the share of satisfied users
    per system and environment (95% Wilson interval), the `crs_leaderboard`, and the open vs
    closed correlation over systems (Pearson and Spearman; empty when CRSArena is absent)."""
    conversations = R.with_wilson_interval(
        R.query(con, CONVERSATIONS_SQL),
        "n_satisfied",
        "n_with_sentiment",
        prefix="satisfaction_ci95",
    )
    corr_rows = []
    for quantity in ("elo", "satisfaction"):
        for method in ("pearson", "spearman"):
            value, n = open_closed_correlation(con, quantity, method)
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
    return {
        "crsarena_conversations": conversations,
        "crsarena_leaderboard": R.query(con, LEADERBOARD_SQL),
        "crsarena_open_closed_correlation": corr if present else corr.clear(),
    }
