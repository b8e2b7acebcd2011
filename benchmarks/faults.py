"""Fault injection for `csrwh build`: does the published warehouse survive, and does the next build recover?

    .venv/bin/python benchmarks/faults.py [--root DIR] [--trials N] [--only NAME...]

On the generated sample (all five corpora) it publishes a baseline warehouse once, then for each
trial starts from a copy of it and a changed input (one CoSRec conversation less, so the build
goes all the way to publishing) and injects one fault:

* ``kill -9``, ``SIGINT`` and ``SIGTERM`` at each phase — copy, ingest, dbt, gate, publish. copy,
  ingest and publish are reached with the build's test hook (``CSRWH_TEST_PAUSE_AT``: the build
  waits on a file at that phase); dbt and gate by polling the build's output for dbt's first
  ``START`` line and for ``phase gate``, so the signal lands inside dbt / Great Expectations;
* two builds started together on one warehouse (the second fails at once naming the first), and
  the same with ``--wait`` (the second waits, then publishes its own input);
* a disk-full tmpfs holding the warehouse (root only; skipped with the reason otherwise);
* damaged input: ``crs_arena_dial_open.json`` truncated to half, the ``crsarena-dial`` folder renamed.

For each it checks that the published file is intact (the same bytes, or — for the concurrent
builds — a complete build of one input, never a mix, readable by a fresh reader), that the next
plain build recovers (exits 0 and leaves no working or lock file; it publishes the changed input,
or — after damaged input is repaired — is up to date), and that the exit code is the documented
one. Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
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
        con.execute(f"attach '{warehouse}' as w (read_only)")
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


def fresh_site(trial: Path, baseline: Path) -> Path:
    warehouse = trial / "wh" / "csr.duckdb"
    warehouse.parent.mkdir()
    shutil.copy2(baseline, warehouse)
    return warehouse


def recover(
    runner: Runner, warehouse: Path, data: Path, trial: Path, before: str, expect_change: bool
) -> bool:
    code = runner.build(warehouse, data, log=trial / "recover.log")
    if code != 0 or leftovers(warehouse) or not readable(warehouse):
        return False
    return (sha256(warehouse) != before) == expect_change


def signal_trial(
    runner: Runner, row: Row, signum: int, phase: str, baseline: Path, changed: Path
) -> None:
    trial = runner.trial_dir(f"{row.fault}-{phase}")
    warehouse = fresh_site(trial, baseline)
    before = sha256(warehouse)
    log = trial / "build.log"
    pause = trial / "pause"
    if phase in ("dbt", "gate"):
        proc = runner.spawn(warehouse, changed, log=log)
        marker = " START " if phase == "dbt" else "phase gate"
        wait_for(
            lambda: marker in log.read_text("utf-8", "replace"), proc, f"the {phase} progress line"
        )
    else:
        proc = runner.spawn(
            warehouse, changed, log=log, CSRWH_TEST_PAUSE_AT=phase, CSRWH_TEST_PAUSE_FILE=str(pause)
        )
        wait_for(pause.exists, proc, f"phase {phase}")
    proc.send_signal(signum)
    code = proc.wait(TIMEOUT)
    text = log.read_text("utf-8", "replace")
    row.trials += 1
    row.codes.append(code)
    one_line = signum == signal.SIGKILL or (
        "Traceback" not in text
        and sum(line.startswith("error:") for line in text.splitlines()) == 1
    )
    if code == EXPECTED[signum] and one_line:
        row.as_documented += 1
    elif not one_line:
        row.notes.append("not one error line")
    if sha256(warehouse) == before and readable(warehouse):
        row.intact += 1
    if recover(runner, warehouse, changed, trial, before, expect_change=True):
        row.recovered += 1


def concurrent_trial(
    runner: Runner, row: Row, baseline: Path, original: Path, changed: Path, wait: bool
) -> None:
    trial = runner.trial_dir(row.fault)
    warehouse = fresh_site(trial, baseline)
    # two different inputs: A drops a CoSRec conversation, B a RecLLMSim one (one file)
    other = trial / "data_b"
    shutil.copytree(original, other)
    max((other / "recllmsim").rglob("*.json")).unlink()
    extra = ("--wait",) if wait else ()
    a = runner.spawn(warehouse, changed, *extra, log=trial / "a.log")
    b = runner.spawn(warehouse, other, *extra, log=trial / "b.log")
    codes = sorted([a.wait(TIMEOUT), b.wait(TIMEOUT)])
    row.trials += 1
    row.codes.extend(codes)
    if codes == ([0, 0] if wait else [0, 75]):
        row.as_documented += 1
    # never a mix: the published build's recorded inputs are exactly its raw files, and its marts
    # are those of one of the two inputs
    winner = None
    if readable(warehouse) and not leftovers(warehouse):
        from csrwh.build import _inputs_digest

        def counts(path: Path) -> tuple[int, int]:
            return (
                query(path, "select count(*) from conversations where corpus = 'cosrec'")[0][0],
                query(path, "select count(*) from conversations where corpus = 'recllmsim'")[0][0],
            )

        n_cosrec, n_recllmsim = counts(warehouse)
        base_cosrec, base_recllmsim = counts(baseline)
        if query(warehouse, "select inputs_digest from build_info")[0][0] == _inputs_digest(
            warehouse
        ):
            if (n_cosrec, n_recllmsim) == (base_cosrec - 1, base_recllmsim):
                winner = changed
            elif (n_cosrec, n_recllmsim) == (base_cosrec, base_recllmsim - 1):
                winner = other
    if winner is not None:
        row.intact += 1
        # no wait: rebuilding the published input is up to date; --wait: the other input publishes
        again = winner if not wait else (other if winner is changed else changed)
        if recover(runner, warehouse, again, trial, sha256(warehouse), expect_change=wait):
            row.recovered += 1


def damaged_trial(runner: Runner, row: Row, baseline: Path, original: Path, kind: str) -> None:
    trial = runner.trial_dir(row.fault)
    warehouse = fresh_site(trial, baseline)
    before = sha256(warehouse)
    data = trial / "data"
    shutil.copytree(original, data)
    if kind == "truncated":
        path = data / "crsarena-dial/data/crs_arena_dial_open.json"
        raw = path.read_bytes()
        path.write_bytes(raw[: len(raw) // 2])
    else:
        (data / "crsarena-dial").rename(data / "crsarena-dial-renamed")
    log = trial / "build.log"
    code = runner.build(warehouse, data, log=log)
    row.trials += 1
    row.codes.append(code)
    text = log.read_text("utf-8", "replace")
    flag = "--allow-rejects" if kind == "truncated" else "--drop-corpus"
    if code == 3 and flag in text and "Traceback" not in text:
        row.as_documented += 1
    if sha256(warehouse) == before and readable(warehouse):
        row.intact += 1
    shutil.rmtree(data)
    shutil.copytree(original, data)  # repaired
    if recover(runner, warehouse, data, trial, before, expect_change=False):
        row.recovered += 1


def disk_full_trial(runner: Runner, row: Row, baseline: Path, changed: Path) -> None:
    if os.geteuid() != 0:
        row.notes.append("skipped: needs root to mount a small tmpfs")
        print("  disk full: skipped (needs root to mount a small tmpfs)", flush=True)
        return
    trial = runner.trial_dir(row.fault)
    mount = trial / "tmpfs"
    mount.mkdir()
    size = baseline.stat().st_size * 2 + 4 * 1024 * 1024
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        reason = done.stderr.strip() or "mount failed"
        row.notes.append(f"skipped: {reason}")
        print(f"  disk full: skipped ({reason})", flush=True)
        return
    try:
        warehouse = mount / "csr.duckdb"
        shutil.copy2(baseline, warehouse)
        before = sha256(warehouse)
        log = trial / "build.log"
        code = runner.build(warehouse, changed, log=log)
        text = log.read_text("utf-8", "replace")
        row.trials += 1
        row.codes.append(code)
        errors = [line for line in text.splitlines() if line.startswith("error:")]
        if code not in (0, 130, 143) and len(errors) == 1 and "Traceback" not in text:
            row.as_documented += 1
        if "ran out of disk space during" in text:
            row.notes.append(
                "ENOSPC during " + text.split("ran out of disk space during ", 1)[1].split()[0]
            )
        elif errors:
            row.notes.append(errors[0][:90])
        if sha256(warehouse) == before and readable(warehouse) and not leftovers(warehouse):
            row.intact += 1
        subprocess.run(["mount", "-o", "remount,size=1g", str(mount)], check=True)
        if recover(runner, warehouse, changed, trial, before, expect_change=True):
            row.recovered += 1
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root", type=Path, default=None, help="work folder (default: a new temp folder)"
    )
    parser.add_argument("--trials", type=int, default=1, help="trials per fault")
    parser.add_argument(
        "--only",
        nargs="*",
        default=None,
        help="run only these faults: signals, concurrent, disk, damaged",
    )
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="csrwh-faults-"))
    root.mkdir(parents=True, exist_ok=True)
    only = set(args.only or ["signals", "concurrent", "disk", "damaged"])
    runner = Runner(root)
    started = time.time()
    print(f"faults: working in {root}", flush=True)
    original, changed, baseline = prepare(root, runner)
    rows: list[Row] = []

    def run(row: Row, trial) -> None:
        rows.append(row)
        for _ in range(args.trials):
            t0 = time.time()
            try:
                trial(row)
            except Exception as exc:  # noqa: BLE001 - a harness failure is a failed trial
                row.trials += 1
                row.notes.append(f"harness: {exc}")
            print(
                f"  {row.fault} @ {row.phase}: codes {row.codes} intact {row.intact}/{row.trials} "
                f"recovered {row.recovered}/{row.trials} ({time.time() - t0:.0f}s)",
                flush=True,
            )

    if "signals" in only:
        for phase in PHASES:
            for name, signum in SIGNALS.items():
                expected = "killed (-9)" if signum == signal.SIGKILL else str(EXPECTED[signum])
                run(
                    Row(name, phase, expected),
                    lambda row, s=signum, p=phase: signal_trial(
                        runner, row, s, p, baseline, changed
                    ),
                )
    if "concurrent" in only:
        run(
            Row("two builds at once", "all", "0 + 75 (second fails at once)"),
            lambda row: concurrent_trial(runner, row, baseline, original, changed, wait=False),
        )
        run(
            Row("two builds at once, --wait", "all", "0 + 0 (second waits)"),
            lambda row: concurrent_trial(runner, row, baseline, original, changed, wait=True),
        )
    if "disk" in only:
        run(
            Row("disk full (tmpfs)", "any", "1 (one line)"),
            lambda row: disk_full_trial(runner, row, baseline, changed),
        )
    if "damaged" in only:
        run(
            Row("truncated crs_arena_dial_open.json", "ingest", "3 (--allow-rejects)"),
            lambda row: damaged_trial(runner, row, baseline, original, "truncated"),
        )
        run(
            Row("renamed corpus folder", "ingest", "3 (--drop-corpus)"),
            lambda row: damaged_trial(runner, row, baseline, original, "renamed"),
        )

    print()
    print(
        f"Fault injection, {time.strftime('%Y-%m-%d')}, {platform.node()} ({os.cpu_count()} cores), "
        f"{time.time() - started:.0f} s"
    )
    print()
    print(
        "| fault | phase | trials | published file intact | recovered by the next build | exit code as documented | exit codes | notes |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.fault} | {r.phase} | {r.trials} | {r.intact}/{r.trials} | {r.recovered}/{r.trials} | "
            f"{r.as_documented}/{r.trials} (expected {r.expected}) | {', '.join(map(str, r.codes))} | "
            f"{'; '.join(r.notes)} |"
        )


if __name__ == "__main__":
    main()
