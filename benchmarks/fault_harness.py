"""Scaffolding of benchmarks/faults.py: the baseline warehouse, copies of it per trial, builds in
a subprocess, and what a build left beside the published file."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PHASES = ("copy", "ingest", "dbt", "gate", "publish")
SIGNALS = {"kill -9": signal.SIGKILL, "SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}
EXPECTED = {signal.SIGKILL: -9, signal.SIGINT: 130, signal.SIGTERM: 143}
TIMEOUT = 1800.0


@dataclass
class Row:
    fault: str
    phase: str
    expected: str
    trials: int = 0
    intact: int = 0
    recovered: int = 0
    codes: list[int] = field(default_factory=list)
    as_documented: int = 0
    notes: list[str] = field(default_factory=list)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def query(warehouse: Path, sql: str):
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        path = str(warehouse).replace("'", "''")
        con.execute(f"attach '{path}' as w (read_only)")
        con.execute("use w")
        return con.execute(sql).fetchall()
    finally:
        con.close()


def readable(warehouse: Path) -> bool:
    try:
        return query(warehouse, "select count(*) from conversations")[0][0] > 0
    except Exception:  # noqa: BLE001
        return False


def leftovers(warehouse: Path) -> list[str]:
    return sorted(
        p.name
        for p in warehouse.parent.iterdir()
        if p.name.startswith(warehouse.name + ".")
        and (".building" in p.name or p.name.endswith(".lock"))
    )


class Runner:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = dict(
            os.environ,
            DO_NOT_TRACK="1",
            PYTHONUNBUFFERED="1",
            COLUMNS="200",
            CSRWH_DBT_TARGET_PATH=str(root / "target"),
        )
        self.env.pop("CSRWH_TEST_PAUSE_AT", None)
        self.n = 0

    def spawn(
        self, warehouse: Path, data: Path, *extra: str, log: Path, **env: str
    ) -> subprocess.Popen:
        fh = open(log, "wb")  # noqa: SIM115 - the child writes it; closed when collected
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "csrwh.cli",
                "build",
                "--data-dir",
                str(data),
                "--warehouse",
                str(warehouse),
                *extra,
            ],
            stdout=fh,
            stderr=subprocess.STDOUT,
            cwd=log.parent,
            env={**self.env, **env},
        )

    def build(self, warehouse: Path, data: Path, *extra: str, log: Path) -> int:
        proc = self.spawn(warehouse, data, *extra, log=log)
        try:
            return proc.wait(TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()

    def trial_dir(self, name: str) -> Path:
        self.n += 1
        path = self.root / "trials" / f"{self.n:02d}-{name.replace(' ', '_').replace('/', '_')}"
        path.mkdir(parents=True)
        return path


def wait_for(predicate, proc: subprocess.Popen, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if proc.poll() is not None:
            raise RuntimeError(f"build exited ({proc.returncode}) before {what}")
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def prepare(root: Path, runner: Runner) -> tuple[Path, Path, Path]:
    """(original data, changed data, baseline published warehouse)."""
    from csrwh.sample import generate

    original = root / "data"
    generate(original, scale=1, seed=0)
    changed = root / "data_changed"
    shutil.copytree(original, changed)
    conversations = changed / "cosrec/dataset/raw/conversations.jsonl"
    conversations.write_text(
        "".join(conversations.read_text("utf-8").splitlines(True)[:-1]), "utf-8"
    )
    baseline = root / "baseline" / "csr.duckdb"
    baseline.parent.mkdir()
    code = runner.build(baseline, original, log=root / "baseline.log")
    if code != 0:
        raise SystemExit(f"baseline build failed ({code}); see {root / 'baseline.log'}")
    return original, changed, baseline


def fresh_site(trial: Path, baseline: Path, with_state: bool = False) -> Path:
    """A copy of the published baseline; ``with_state`` also copies its saved dbt state (the
    ``.build/state`` folder), so the next build there can be a selective (incremental) one."""
    warehouse = trial / "wh" / "csr.duckdb"
    warehouse.parent.mkdir()
    shutil.copy2(baseline, warehouse)
    if with_state:
        from csrwh.pipeline.paths import state_dir

        shutil.copytree(state_dir(baseline), state_dir(warehouse))
    return warehouse


def recover(
    runner: Runner, warehouse: Path, data: Path, trial: Path, before: str, expect_change: bool
) -> bool:
    code = runner.build(warehouse, data, log=trial / "recover.log")
    if code != 0 or leftovers(warehouse) or not readable(warehouse):
        return False
    return (sha256(warehouse) != before) == expect_change
