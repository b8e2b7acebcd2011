"""The peak size of DuckDB's spill folder while a block runs, sampled every 20 ms, and one dbt
model run with its spill sampled."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Self


def folder_bytes(folder: Path) -> int:
    """The bytes of the files under ``folder`` now (0 when it does not exist)."""
    total = 0
    for path in folder.rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except FileNotFoundError:  # a spill file removed meanwhile
            pass
    return total


class PeakSpill:
    """``with PeakSpill(folder) as spill: …``; then ``spill.peak`` is the most seen at once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.peak = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, folder_bytes(self.folder))
            self._done.wait(0.02)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
        self.peak = max(self.peak, folder_bytes(self.folder))


def run_model_sampled(model: str, warehouse: Path, spill: Path) -> int:
    """``dbt run --select <model> --full-refresh`` on ``warehouse`` with DuckDB spilling into
    ``spill``; asserts it succeeded and returns the spill's peak in bytes."""
    from csrwh.pipeline.dbt_runner import run_dbt

    with PeakSpill(spill) as sampled:
        outcome = run_dbt(
            ["run", "--select", model, "--full-refresh"], warehouse, quiet=True, temp_dir=spill
        )
    assert outcome.success, outcome.failures
    return sampled.peak
