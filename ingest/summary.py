"""What one ingest run did: per-corpus and total counts, warnings, timings."""

from __future__ import annotations

from dataclasses import dataclass, field

#: how many of a run's rejects the summary keeps (and prints) with their file, line and reason
REJECTS_LISTED = 20


@dataclass
class CorpusStats:
    files_loaded: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    records_loaded: int = 0
    records_rejected: int = 0
    files_ignored: int = 0


@dataclass
class IngestSummary:
    """What one ``run_ingest`` did (counts are for this run; unchanged files count 0 records)."""

    batch_id: str
    files_loaded: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    records_loaded: int = 0
    records_rejected: int = 0
    rejected_files: dict[str, int] = field(default_factory=dict)  # "<corpus folder>/<path>" -> n
    #: the first :data:`REJECTS_LISTED` rejects of this run, in landing order:
    #: ("<corpus folder>/<path>", line number or None, reason)
    rejects: list[tuple[str, int | None, str]] = field(default_factory=list)
    missing_corpora: list[str] = field(default_factory=list)
    per_corpus: dict[str, CorpusStats] = field(default_factory=dict)
    ignored_files: list[str] = field(default_factory=list)  # "<corpus folder>/<path>"
    #: discovery warnings, one line each (links not followed, FIFOs/sockets/devices skipped);
    #: also logged (logger ``ingest.discover``, WARNING) as they happen
    warnings: list[str] = field(default_factory=list)
    #: rows in raw.rejected_records for the run's corpora after the run (this run's rejects
    #: plus those of unchanged files landed earlier)
    rejected_outstanding: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)  # phase -> seconds (benchmarks)


__all__ = ["REJECTS_LISTED", "CorpusStats", "IngestSummary"]
