"""CRSArena-Dial leaderboard: one row per (environment, system).

Sequential Elo and ridge-penalised Bradley-Terry strengths with bootstrap intervals, over every
vote row (duplicates included, as the published ratings need), for the open, closed and global
environments. One incremental partition: unchanged inputs keep the previous table.
Details: docs/internals.md#models-marts-reports-crs_leaderboard
"""

from __future__ import annotations

import pandas as pd

from csrwh.measures.stats import bradley_terry, bradley_terry_bootstrap, elo_ratings

ENVIRONMENTS = ("open", "closed", "global")
ELO_INITIAL = 1000.0
ELO_K = 16.0

COLUMNS = [
    "environment",
    "system_id",
    "battles",
    "wins",
    "ties",
    "losses",
    "win_rate",
    "elo",
    "elo_rank",
    "bt_strength",
    "bt_ci_low",
    "bt_ci_high",
    "n_conversations",
    "satisfaction_rate",
]


def _ordered_battles(votes: pd.DataFrame, environment: str) -> pd.DataFrame:
    """The environment's battles in recorded order (global: open, then closed)."""
    if environment == "global":
        subset = votes[votes["environment"].isin(["open", "closed"])].copy()
        subset["environment_order"] = subset["environment"].map({"open": 0, "closed": 1})
        return subset.sort_values(["environment_order", "vote_order"], kind="stable")
    return votes[votes["environment"] == environment].sort_values("vote_order", kind="stable")


def _battle_counts(battles: pd.DataFrame) -> pd.DataFrame:
    """battles, wins, ties, losses per system (each battle counts for both sides)."""
    side_a = pd.DataFrame(
        {
            "system_id": battles["system_a"],
            "wins": battles["winner"].eq("a"),
            "ties": battles["winner"].eq("tie"),
            "losses": battles["winner"].eq("b"),
        }
    )
    side_b = pd.DataFrame(
        {
            "system_id": battles["system_b"],
            "wins": battles["winner"].eq("b"),
            "ties": battles["winner"].eq("tie"),
            "losses": battles["winner"].eq("a"),
        }
    )
    sides = pd.concat([side_a, side_b], ignore_index=True)
    counts = sides.groupby("system_id").agg(
        battles=("wins", "size"),
        wins=("wins", "sum"),
        ties=("ties", "sum"),
        losses=("losses", "sum"),
    )
    return counts.astype("int64")


def _satisfaction(conversations: pd.DataFrame, environment: str) -> pd.DataFrame:
    """n_conversations and satisfaction_rate per system for the environment."""
    crsarena = conversations[conversations["corpus"] == "crsarena"]
    if environment != "global":
        crsarena = crsarena[crsarena["subset"] == environment]
    grouped = crsarena.groupby("system_id")
    out = pd.DataFrame(
        {
            "n_conversations": grouped.size(),
            "n_satisfied": grouped["user_sentiment"].apply(lambda s: int((s == "satisfied").sum())),
            "n_with_sentiment": grouped["user_sentiment"].apply(lambda s: int(s.notna().sum())),
        }
    )
    rate = out["n_satisfied"] / out["n_with_sentiment"].where(out["n_with_sentiment"] > 0)
    out["satisfaction_rate"] = rate.astype("float64")
    return out[["n_conversations", "satisfaction_rate"]]


def build_leaderboard(
    votes: pd.DataFrame, conversations: pd.DataFrame, n_samples: int, seed: int
) -> pd.DataFrame:
    """The leaderboard frame from the ``votes`` and ``conversations`` marts."""
    crsarena = conversations[conversations["corpus"] == "crsarena"]
    systems = sorted(
        set(votes["system_a"].dropna())
        | set(votes["system_b"].dropna())
        | set(crsarena["system_id"].dropna())
    )
    frames = []
    for environment in ENVIRONMENTS:
        battles = _ordered_battles(votes, environment)
        triples = list(
            zip(battles["system_a"], battles["system_b"], battles["winner"], strict=True)
        )
        elo = elo_ratings(triples, initial=ELO_INITIAL, k=ELO_K)
        strength = bradley_terry(triples)
        interval = bradley_terry_bootstrap(triples, n_samples=n_samples, seed=seed)

        frame = pd.DataFrame({"system_id": pd.Series(systems, dtype="object")})
        frame.insert(0, "environment", environment)
        frame = frame.join(_battle_counts(battles), on="system_id")
        for column in ("battles", "wins", "ties", "losses"):
            frame[column] = frame[column].fillna(0).astype("int64")
        frame["win_rate"] = (frame["wins"] / frame["battles"].where(frame["battles"] > 0)).astype(
            "float64"
        )
        frame["elo"] = frame["system_id"].map(elo).astype("float64")
        # rank on the rating rounded to a whole point, ties sharing the best rank
        # (the dataset's tables: two systems at 1102 are both rank 1)
        frame["elo_rank"] = (
            frame["elo"].round(0).rank(method="min", ascending=False).astype("Int64")
        )
        frame["bt_strength"] = frame["system_id"].map(strength).astype("float64")
        frame["bt_ci_low"] = (
            frame["system_id"].map({k: v[0] for k, v in interval.items()}).astype("float64")
        )
        frame["bt_ci_high"] = (
            frame["system_id"].map({k: v[1] for k, v in interval.items()}).astype("float64")
        )
        frame = frame.join(_satisfaction(conversations, environment), on="system_id")
        frame["n_conversations"] = frame["n_conversations"].fillna(0).astype("int64")
        frames.append(frame)

    leaderboard = pd.concat(frames, ignore_index=True)
    # typed even when empty (no CRSArena data), so DuckDB gets VARCHAR rather than NULL
    leaderboard["system_id"] = leaderboard["system_id"].astype("str")
    return leaderboard[COLUMNS].sort_values(
        ["environment", "elo_rank", "system_id"], ignore_index=True
    )


#: The inputs the leaderboard reads (one partition: CRSArena's votes and conversations).
VOTE_COLUMNS = ("environment", "vote_order", "system_a", "system_b", "winner")
CONVERSATION_COLUMNS = ("subset", "system_id", "user_sentiment")


def model(dbt, session):
    from csrwh.dbt_support.partitions import (
        code_version,
        corpus_digests,
        previous_digests,
        save_digests,
    )

    dbt.config(
        materialized="incremental",
        incremental_strategy="replace",
        on_schema_change="sync_all_columns",
    )
    n_samples = int(dbt.config.get("bt_bootstrap_samples"))
    seed = int(dbt.config.get("bt_bootstrap_seed"))
    # only the columns (and conversations) the leaderboard reads
    votes = dbt.ref("votes").project("'crsarena' as corpus, " + ", ".join(VOTE_COLUMNS))
    conversations = (
        dbt.ref("conversations")
        .filter("corpus = 'crsarena'")
        .project("corpus, subset, system_id, user_sentiment")
    )
    # one partition (csrwh.dbt_support.partitions): unchanged inputs and code keep the previous table
    version = code_version(
        __file__,
        modules=["csrwh.measures.ranking"],
        packages=["numpy", "pandas", "scipy"],
        settings={"n_samples": n_samples, "seed": seed},
    )
    digests = {
        "crsarena": corpus_digests(votes, VOTE_COLUMNS).get("crsarena", "-")
        + "/"
        + corpus_digests(conversations, CONVERSATION_COLUMNS).get("crsarena", "-")
    }
    if previous_digests(session, dbt, version) == digests:
        return session.sql(f"select * from {dbt.this}").to_arrow_table()
    save_digests(session, dbt, version, digests)
    return build_leaderboard(
        votes.project(", ".join(VOTE_COLUMNS)).df(),
        conversations.df(),
        n_samples=n_samples,
        seed=seed,
    )
