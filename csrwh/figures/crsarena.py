"""CRSArena-Dial: the README's and `DataAnalysis.md`'s figures and the analysis notebook's."""

from __future__ import annotations

import numpy as np
from scipy import stats

from csrwh.figures._metric import fn_metric, rows, sql_metric

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
}


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
    x = np.array([p[1] for p in pairs], dtype=float)
    y = np.array([p[2] for p in pairs], dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, len(x)
    fn = stats.pearsonr if method == "pearson" else stats.spearmanr
    return float(fn(x, y).statistic), len(x)


@fn_metric("{method} correlation over systems of the open- and closed-environment {quantity} "
           "(`crs_leaderboard`; systems with a value in both)")
def _open_closed_correlation(con, args) -> float | None:
    return open_closed_correlation(con, args["quantity"], args["method"])[0]


METRICS["crs_open_closed_correlation"] = _open_closed_correlation


def render(con, R, present: bool) -> None:
    """The analysis notebook's tables (added by the authors'-analyses work)."""
