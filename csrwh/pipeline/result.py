"""What a build returns and the constants callers use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from csrwh.pipeline.dbt_runner import DbtOutcome

# Hook for quality gates run on the building database before publishing: each returns a
# list of failure messages (empty = pass). The expectations step registers itself here.
Gate = Callable[[Path, str], list[str]]

PHASES = ("lock", "copy", "ingest", "dbt", "gate", "publish")
#: a raw table or mart may lose at most this share of its rows against the published build
DEFAULT_MAX_SHRINK = 0.10
#: exit status of a build refused because of its input (rejects, a missing corpus, shrinkage)
EXIT_REFUSED = 3


@dataclass
class BuildResult:
    """Timings and outcome of one build."""

    build_id: str
    warehouse: Path
    published: bool
    seconds: dict[str, float] = field(default_factory=dict)
    records_rejected: int = 0
    # new JSON key paths and new open-vocabulary values (warnings; see csrwh/pipeline/novelty.py)
    novelties: list[str] = field(default_factory=list)
    dbt: DbtOutcome | None = None
    up_to_date: bool = False
    # what the build accepted with allow_rejects / drop_corpora / allow_shrink (one line each)
    accepted: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: phase timings and, after dbt ran, its node counts and its per-node log."""
        timings = ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items())
        if self.dbt is None:
            return timings
        log = f"; dbt's per-node lines: {self.dbt.log_file}" if self.dbt.log_file else ""
        return f"{timings}; {self.dbt.node_summary()}{log}"
