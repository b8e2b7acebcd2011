"""Page: CRS Arena (leaderboard per environment, head-to-head)."""

from __future__ import annotations

import pandas as pd

from csrwh.reading.dashboard.queries.reader import Reader

ENVIRONMENTS = ("global", "open", "closed")


def arena_environments(db: Reader) -> list[str]:
    frame = db.df("arena_environments", "select distinct environment from crs_leaderboard")
    present = set(frame["environment"])
    return [e for e in ENVIRONMENTS if e in present] + sorted(present - set(ENVIRONMENTS))


def leaderboard(db: Reader, environment: str = "global") -> pd.DataFrame:
    """The `crs_leaderboard` mart for one environment, best Elo first (systems without battles
    last), with the number of systems that had battles there."""
    return db.df(
        "leaderboard",
        """
        select system_id, elo_rank, elo, bt_strength, bt_ci_low, bt_ci_high, battles, wins, ties,
               losses, win_rate, n_conversations, satisfaction_rate,
               count(*) filter (where battles > 0) over () as n_systems_with_battles
        from crs_leaderboard where environment = ?
        order by elo_rank nulls last, elo desc nulls last, system_id
        """,
        [environment],
    )


def head_to_head(db: Reader, environment: str = "global") -> pd.DataFrame:
    """Pairwise record from `votes` (every row, duplicates included, like the leaderboard):
    one row per (system, opponent) with battles, wins, ties, losses and win_rate of `system`.
    ``global`` = both environments. A system's battles summed over opponents equal its
    leaderboard battles."""
    return db.df(
        "head_to_head",
        """
        with v as (select * from votes where ? = 'global' or environment = ?),
        sides as (
            select system_a as system_id, system_b as opponent,
                   case winner when 'a' then 'win' when 'b' then 'loss' else 'tie' end as result
            from v
            union all
            select system_b, system_a,
                   case winner when 'b' then 'win' when 'a' then 'loss' else 'tie' end
            from v
        )
        select system_id, opponent, count(*) as battles,
               count(*) filter (where result = 'win') as wins,
               count(*) filter (where result = 'tie') as ties,
               count(*) filter (where result = 'loss') as losses,
               count(*) filter (where result = 'win') / count(*) as win_rate
        from sides group by all order by system_id, opponent
        """,
        [environment, environment],
    )
