"""RecLLMSim: the figures its `statistics/`, `user_behavior/` and `user_profiling/` scripts print."""

from __future__ import annotations

METRICS: dict = {}


def render(con, R, present: bool) -> None:
    """The scripts' tables (added by the authors'-analyses work)."""
