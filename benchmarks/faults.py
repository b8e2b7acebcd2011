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

* ``commands`` (issue 24): what the other commands do to the published warehouse and to the
  user's files — ``sql --csv/--parquet`` onto the warehouse, its WAL, a data-folder file, a
  directory and ``-``; a lock that is a symlink or a directory; ``sample --out`` a folder of real
  corpora and its own output; ``validate``; markup in a value; ``--port 99999``; ``--out`` under
  a file; bad ``CSRWH_MEMORY_LIMIT``/``CSRWH_THREADS``; and, as the issue describes them, a
  stale WAL, two stray quotes in ``votes_open.csv``, ``export --trec-dir`` into a user's folder,
  ``report --out`` over a user's ``tables/``, ``fetch --from-zip --force`` with a garbage or
  trivial zip and a mirror serving a 0-byte hub file, bad CoSRec lines after an incremental
  ``build --allow-rejects`` (the rejects summary), ``1e400``/``NaN`` ratings in a custom line and
  a JSON array element missing its ``{``. A second table: case, exit code, published sha256
  unchanged, records lost (conversations rows of the published warehouse lost, plus the user's
  files changed or removed, plus — for the votes, the bad lines and the broken element — records
  neither landed nor rejected).

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
        from csrwh.building.paths import state_dir

        shutil.copytree(state_dir(baseline), state_dir(warehouse))
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
        from csrwh.building import _inputs_digest

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


# --------------------------------------------------------------------------- commands (issue 24)


@dataclass
class CommandRow:
    """One user-command case: what it did to the published warehouse and to the user's data."""

    item: str
    case: str
    expected: str
    code: int | None = None
    published_unchanged: bool | None = None
    records_lost: int | None = None
    ok: bool = False
    note: str = ""


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = TIMEOUT):
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "DO_NOT_TRACK": "1", "COLUMNS": "200", **(env or {})},
        timeout=timeout,
    )


def one_line(result: subprocess.CompletedProcess[str]) -> bool:
    """No traceback and at most one ``error:`` line (usage errors print click's own lines)."""
    return "Traceback" not in result.stderr and (
        sum(line.startswith("error:") for line in result.stderr.splitlines()) <= 1
    )


def rows_of(warehouse: Path) -> int:
    """Rows of the conversations mart (0 when the file is no longer a readable warehouse)."""
    try:
        return query(warehouse, "select count(*) from conversations")[0][0]
    except Exception:  # noqa: BLE001
        return 0


def files_of(folder: Path) -> dict[str, str]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): sha256(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def lost_files(before: dict[str, str], after: dict[str, str]) -> int:
    """User files removed or changed."""
    return sum(after.get(name) != digest for name, digest in before.items())


def _published_case(
    row: CommandRow, trial: Path, baseline: Path, args_of, expect_code, **env: str
) -> None:
    """Run a command against a copy of the published warehouse; the warehouse must stay."""
    warehouse = fresh_site(trial, baseline)
    before, n = sha256(warehouse), rows_of(warehouse)
    result = cli(*args_of(warehouse), cwd=trial, env=env)
    row.code = result.returncode
    row.published_unchanged = sha256(warehouse) == before
    row.records_lost = n - rows_of(warehouse)
    row.ok = (
        row.code in expect_code and row.published_unchanged and not row.records_lost
    ) and one_line(result)
    if not one_line(result):
        row.note = "not one error line"
    (trial / "stderr.txt").write_text(result.stderr)


def _zip(path: Path, members: dict[str, bytes], comment: str | None = None) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        if comment:
            zf.comment = comment.encode()
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _fetch_row(
    row: CommandRow,
    result: subprocess.CompletedProcess[str],
    before: dict[str, str],
    after: dict[str, str],
    data: Path,
    what: str,
) -> None:
    """A refused fetch: exit 1, one line, the corpus folder's files all kept, no temp folder."""
    row.code = result.returncode
    row.published_unchanged = True  # fetch never opens a warehouse
    row.records_lost = lost_files(before, after)
    temps = sorted(p.name for p in data.glob(".tmp-*")) if data.exists() else []
    row.ok = row.code == 1 and not row.records_lost and not temps and one_line(result)
    error = next((ln for ln in result.stderr.splitlines() if ln.startswith("error:")), "")
    error = error.replace(str(data.parent), "…")  # the trial folder: not worth the width
    row.note = "; ".join(
        x for x in (what, f"`{error[:160].replace('|', PIPE)}`" if error else "", *temps) if x
    )


def command_cases(
    runner: Runner, baseline: Path, original: Path, items: list[str] | None = None
) -> list[CommandRow]:
    rows: list[CommandRow] = []

    def case(item: str, name: str, expected: str):
        def wrap(fn):
            if items and not any(item.startswith(wanted) for wanted in items):
                return fn
            row = CommandRow(item, name, expected)
            rows.append(row)
            trial = runner.trial_dir(f"cmd-{item}-{name}"[:60])
            t0 = time.time()
            try:
                fn(row, trial)
            except Exception as exc:  # noqa: BLE001 - a harness failure is a failed case
                row.note = f"harness: {str(exc)[:120]}"
            print(
                f"  {item} {name}: exit {row.code} published unchanged {row.published_unchanged} "
                f"lost {row.records_lost} ok {row.ok} ({time.time() - t0:.0f}s)",
                flush=True,
            )
            return fn

        return wrap

    data_dir = ("--data-dir", str(original))

    @case("24.1", "sql --parquet <warehouse>", "2, refused")
    def _(row, trial):
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("sql", "select 1", "--parquet", str(w), "--warehouse", str(w), *data_dir),
            {2},
        )

    @case("24.1", "sql --csv <warehouse>.wal", "2, refused")
    def _(row, trial):
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("sql", "select 1", "--csv", f"{w}.wal", "--warehouse", str(w), *data_dir),
            {2},
        )

    @case("24.1", "sql --csv <data folder file>", "2, refused")
    def _(row, trial):
        data = trial / "data"
        shutil.copytree(original, data)
        before = files_of(data)
        target = data / "crsarena-dial/data/votes_open.csv"
        _published_case(
            row,
            trial,
            baseline,
            lambda w: (
                "sql",
                "select 1",
                "--csv",
                str(target),
                "--warehouse",
                str(w),
                "--data-dir",
                str(data),
            ),
            {2},
        )
        row.records_lost = (row.records_lost or 0) + lost_files(before, files_of(data))
        row.ok = row.ok and not row.records_lost

    @case("24.1/24.13", "sql --csv <directory>", "2, refused")
    def _(row, trial):
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("sql", "select 1", "--csv", str(w.parent), "--warehouse", str(w), *data_dir),
            {2},
        )

    @case("24.1", "sql --csv - (standard output)", "0, CSV on stdout, no file '-'")
    def _(row, trial):
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("sql", "select 1 as x", "--csv", "-", "--warehouse", str(w), *data_dir),
            {0},
        )
        row.ok = row.ok and not (trial / "-").exists()

    @case("24.7", "lock is a symlink to a user file", "1, refused; the file untouched")
    def _(row, trial):
        victim = trial / "victim.txt"
        victim.write_text("precious\n")
        warehouse = fresh_site(trial, baseline)
        warehouse.with_name(warehouse.name + ".lock").symlink_to(victim)
        before, n = sha256(warehouse), rows_of(warehouse)
        result = cli("build", "--warehouse", str(warehouse), *data_dir, cwd=trial)
        row.code = result.returncode
        row.published_unchanged = sha256(warehouse) == before
        row.records_lost = (n - rows_of(warehouse)) + (victim.read_text() != "precious\n")
        row.ok = row.code == 1 and row.published_unchanged and not row.records_lost
        row.ok = row.ok and one_line(result)

    @case("24.13", "lock is a directory", "1, one line")
    def _(row, trial):
        def args(w):
            w.with_name(w.name + ".lock").mkdir()
            return ("build", "--warehouse", str(w), *data_dir)

        _published_case(row, trial, baseline, args, {1})

    @case("24.8", "sample --out <real corpora>", "2, refused; no file overwritten")
    def _(row, trial):
        from csrwh.sample import generate

        real = trial / "corpora"
        generate(real, scale=1, seed=5)  # other bytes than sample's default seed writes
        for marker in real.rglob(".csrwh-sample.json"):  # as fetched or copied corpora are
            marker.unlink()
        before = files_of(real)
        result = cli("sample", "--out", str(real), cwd=trial)
        row.code = result.returncode
        row.records_lost = lost_files(before, files_of(real))
        row.published_unchanged = True  # sample never opens a warehouse
        row.ok = row.code == 2 and not row.records_lost and one_line(result)

    @case("24.8", "sample --out <its own output> (make demo)", "0")
    def _(row, trial):
        out = trial / "sample"
        first = cli("sample", "--out", str(out), cwd=trial)
        result = cli("sample", "--out", str(out), cwd=trial)
        row.code = result.returncode
        row.records_lost = 0
        row.published_unchanged = True
        row.ok = first.returncode == 0 and row.code == 0

    @case("24.9", "validate", "0, published file byte-identical")
    def _(row, trial):
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("validate", "--no-docs", "--warehouse", str(w), *data_dir),
            {0},
        )

    @case("24.13", "sql \"select '[/x]'\"", "0, prints [/x]")
    def _(row, trial):
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("sql", "select '[/x]' as v", "--warehouse", str(w), *data_dir),
            {0},
        )

    @case("24.13", "dashboard --port 99999", "2, usage error")
    def _(row, trial):
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("dashboard", "--port", "99999", "--warehouse", str(w), *data_dir),
            {2},
        )

    @case("24.13", "export --out <under a file>", "1, one line")
    def _(row, trial):
        (trial / "a_file").write_text("x")
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("export", "--out", str(trial / "a_file" / "x"), "--warehouse", str(w)),
            {1, 2},
        )

    for value in ("nan", "inf", "1e12"):

        @case("24.13", f"CSRWH_MEMORY_LIMIT={value} build (up to date)", "2, one line")
        def _(row, trial, value=value):
            _published_case(
                row,
                trial,
                baseline,
                lambda w: ("build", "--warehouse", str(w), *data_dir),
                {2},
                CSRWH_MEMORY_LIMIT=value,
            )

    @case("24.13", "CSRWH_THREADS=x ingest", "2, one line")
    def _(row, trial):
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("ingest", "--warehouse", str(w), *data_dir),
            {2},
            CSRWH_THREADS="x",
        )

    # ---- items other helpers fix in parallel: the CLI as the issue describes it
    @case("24.2", "stale WAL beside the published file, then build", "0, rebuilt, readers OK")
    def _(row, trial):
        warehouse = fresh_site(trial, baseline)
        n = rows_of(warehouse)
        writer = (
            "import duckdb, os, sys\n"
            "con = duckdb.connect(sys.argv[1])\n"
            "con.execute('pragma disable_checkpoint_on_shutdown')\n"
            "con.execute('set checkpoint_threshold = \\'1TB\\'')\n"
            "con.execute('create table main.stray as select 1 as x')\n"
            "os._exit(0)\n"
        )
        subprocess.run([sys.executable, "-c", writer, str(warehouse)], check=True, timeout=120)
        result = cli("build", "--warehouse", str(warehouse), *data_dir, cwd=trial)
        row.code = result.returncode
        row.published_unchanged = None
        row.records_lost = n - rows_of(warehouse)
        ok_reader = readable(warehouse) and not wal_path_of(warehouse).exists()
        row.ok = row.code == 0 and ok_reader and not row.records_lost and one_line(result)
        row.note = "" if ok_reader else "a WAL is left beside the published file"

    @case(
        "24.3",
        "two stray quotes 11 lines apart in votes_open.csv",
        "rejects those lines, none lost",
    )
    def _(row, trial):
        import csv

        data = trial / "data"
        shutil.copytree(original, data)
        path = data / "crsarena-dial/data/votes_open.csv"
        with path.open(newline="", encoding="utf-8") as fh:
            n_records = sum(1 for _ in csv.reader(fh)) - 1
        lines = path.read_text("utf-8").splitlines(True)
        lines[2] = lines[2].rstrip("\n") + '"oops\n'
        lines[13] = lines[13].rstrip("\n") + 'oops"\n'
        path.write_text("".join(lines), "utf-8")
        warehouse = fresh_site(trial, baseline)
        result = cli(
            "build",
            "--warehouse",
            str(warehouse),
            "--data-dir",
            str(data),
            "--allow-rejects",
            cwd=trial,
        )
        row.code = result.returncode
        landed = query(warehouse, "select count(*) from votes where environment = 'open'")[0][0]
        rejected = query(
            warehouse,
            "select count(*) from raw.rejected_records where source_path like '%votes_open.csv'",
        )[0][0]
        # records neither landed nor covered by a rejected line (a reject is a line, a record
        # may span lines: an upper bound on what is lost, not an exact count)
        row.records_lost = max(0, n_records - landed - rejected)
        row.published_unchanged = None
        row.ok = row.code in (0, 3) and row.records_lost == 0 and one_line(result)
        row.note = f"{n_records} records: {landed} landed, {rejected} line(s) rejected"

    @case(
        "24.5", "export --trec-dir <folder with the user's topics.tsv>", "refused; file untouched"
    )
    def _(row, trial):
        folder = trial / "mine"
        folder.mkdir()
        (folder / "topics.tsv").write_text("my topics\n")
        before = files_of(folder)
        _published_case(
            row,
            trial,
            baseline,
            lambda w: (
                "export",
                "--out",
                str(trial / "exp"),
                "--trec-dir",
                str(folder),
                "--warehouse",
                str(w),
            ),
            {1, 2},
        )
        row.records_lost = (row.records_lost or 0) + lost_files(before, files_of(folder))
        row.ok = row.ok and not row.records_lost

    @case("24.6", "report --out <folder with the user's tables/>", "the user's files kept")
    def _(row, trial):
        folder = trial / "rep"
        (folder / "tables").mkdir(parents=True)
        (folder / "tables" / "mine.csv").write_text("a,b\n1,2\n")
        before = files_of(folder / "tables")
        _published_case(
            row,
            trial,
            baseline,
            lambda w: ("report", "--out", str(folder), "--warehouse", str(w)),
            {0, 1, 2},
        )
        after = files_of(folder / "tables")
        row.records_lost = (row.records_lost or 0) + sum(
            after.get(k) != v for k, v in before.items()
        )
        row.ok = row.ok and not row.records_lost

    # ---- 24.4: fetch checks what it got before it swaps a corpus folder
    @case(
        "24.4",
        "fetch convsearch --from-zip <garbage zip> --force",
        "1, refused; the corpus folder unchanged",
    )
    def _(row, trial):
        data = trial / "data"
        good = _zip(
            trial / "good.zip",
            {
                f"ConvSearch-v1.1-Main/{p.name}": p.read_bytes()
                for p in sorted((original / "convsearch").glob("*.json"))
            },
        )
        first = cli(
            "fetch", "convsearch", "--from-zip", str(good), "--data-dir", str(data), cwd=trial
        )
        if first.returncode != 0:
            raise RuntimeError(f"fetching the good zip failed: {first.stderr.strip()[-200:]}")
        bad = _zip(
            trial / "bad.zip",
            {"Dialogs.json": b"garbage garbage!!", "SearchBehaviors.json": b"x"},
        )
        before = files_of(data / "convsearch")
        result = cli(
            "fetch",
            "convsearch",
            "--from-zip",
            str(bad),
            "--force",
            "--data-dir",
            str(data),
            cwd=trial,
        )
        _fetch_row(
            row, result, before, files_of(data / "convsearch"), data, f"its {len(before)} files"
        )

    @case(
        "24.4",
        "fetch recllmsim --from-zip <one trivial file> --force",
        "1, refused; the corpus folder unchanged",
    )
    def _(row, trial):
        from csrwh.fetch import load_sources

        ref = load_sources()["corpora"]["recllmsim"]["ref"]
        real = ROOT.parent / "shared" / "corpora" / "recllmsim"
        source = real if real.is_dir() else original / "recllmsim"
        data = trial / "data"
        shutil.copytree(source, data / "recllmsim")
        trivial = _zip(
            trial / "trivial.zip",
            {f"RecLLMSim-{ref}/": b"", f"RecLLMSim-{ref}/x/0.json": b'{"history": []}'},
            comment=ref,
        )
        before = files_of(data / "recllmsim")
        result = cli(
            "fetch",
            "recllmsim",
            "--from-zip",
            str(trivial),
            "--force",
            "--data-dir",
            str(data),
            cwd=trial,
        )
        what = "the real" if source == real else "the sample's"
        _fetch_row(
            row, result, before, files_of(data / "recllmsim"), data, f"{what} {len(before)} files"
        )

    @case(
        "24.4",
        "fetch recoreact from a mirror serving a 0-byte hub file",
        "1, refused; no folder created",
    )
    def _(row, trial):
        import functools
        import threading
        from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

        www = trial / "www"
        hub = www / "huggingface.co/datasets/microsoft/RecoReact/resolve/main"
        hub.mkdir(parents=True)
        for domain in ("news", "travel", "meals"):  # the sample has no RecoReact: 3 records each
            for entity in ("products", "users", "impressions"):
                lines = (f'{{"id": "{domain}-{entity}-{i}"}}\n' for i in range(3))
                (hub / f"{domain}-{entity}.jsonl").write_text("".join(lines), "utf-8")
        (hub / "news-users.jsonl").write_bytes(b"")

        class Quiet(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=www))
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            data = trial / "data"
            result = cli(
                "fetch",
                "recoreact",
                "--data-dir",
                str(data),
                cwd=trial,
                env={"CSRWH_MIRROR": f"http://127.0.0.1:{httpd.server_address[1]}/"},
            )
        finally:
            httpd.shutdown()
            httpd.server_close()
        _fetch_row(row, result, {}, {}, data, "")
        created = (data / "recoreact").exists()
        row.ok = row.ok and not created
        if created:
            row.note = f"{row.note}; a recoreact folder was created".lstrip("; ")

    # ---- 24.10: the rejects summary follows raw.rejected_records after an incremental build
    @case(
        "24.10",
        "2 bad CoSRec lines, incremental build --allow-rejects",
        "0, raw.rejected_records = rejected_records_summary = 2",
    )
    def _(row, trial):
        data = trial / "data"
        shutil.copytree(original, data)
        with (data / "cosrec/dataset/raw/conversations.jsonl").open("a", encoding="utf-8") as fh:
            fh.write('{"CoSRec-Raw_bad1": oops}\n[1, 2]\n')
        # published from the same data less the 2 lines, with its saved dbt state: incremental
        warehouse = fresh_site(trial, baseline, with_state=True)
        n = rows_of(warehouse)
        result = cli(
            "build",
            "--warehouse",
            str(warehouse),
            "--data-dir",
            str(data),
            "--allow-rejects",
            cwd=trial,
        )
        row.code = result.returncode
        selective = "selective build:" in result.stdout + result.stderr
        row.published_unchanged = None
        sql = cli(
            "sql",
            "select (select count(*) from raw.rejected_records), "
            "(select sum(n_rejected) from rejected_records_summary)",
            "--csv",
            "-",
            "--warehouse",
            str(warehouse),
            "--data-dir",
            str(data),
            cwd=trial,
        )
        raw_n, summary_n = (int(v or 0) for v in sql.stdout.strip().splitlines()[-1].split(","))
        # the 2 appended lines: lost = those neither rejected, plus conversations rows lost
        row.records_lost = max(0, 2 - raw_n) + (n - rows_of(warehouse))
        row.ok = (
            row.code == 0
            and selective
            and (raw_n, summary_n) == (2, 2)
            and not row.records_lost
            and one_line(result)
        )
        row.note = (
            f"{'selective' if selective else '**full** (not selective)'} build: "
            f"raw.rejected_records {raw_n}, rejected_records_summary {summary_n}"
        )

    # ---- 24.11: non-finite numbers are rejected at ingest
    @case(
        "24.11",
        "custom ratings 1e400 and NaN, build",
        "3, refused (published unchanged); both lines rejected verbatim",
    )
    def _(row, trial):
        data = trial / "data"
        shutil.copytree(original, data)
        bad = [
            '{"id":"c1","messages":[{"role":"user","text":"q"}],"ratings":{"q":1e400}}',
            '{"id":"c2","messages":[{"role":"user","text":"q"}],"ratings":{"q":NaN}}',
        ]
        good = '{"id":"c0","messages":[{"role":"user","text":"q"}],"ratings":{"q":1}}'
        (data / "custom/alpha").mkdir(parents=True)
        (data / "custom/alpha/a.jsonl").write_text("\n".join([good, *bad]) + "\n", "utf-8")
        warehouse = fresh_site(trial, baseline)
        before, n = sha256(warehouse), rows_of(warehouse)
        result = cli("build", "--warehouse", str(warehouse), "--data-dir", str(data), cwd=trial)
        row.code = result.returncode
        row.published_unchanged = sha256(warehouse) == before
        # where the rejects are kept: the same build with --allow-rejects, on another copy
        told = trial / "told" / "csr.duckdb"
        told.parent.mkdir()
        shutil.copy2(baseline, told)
        allowed = cli(
            "build",
            "--warehouse",
            str(told),
            "--data-dir",
            str(data),
            "--allow-rejects",
            cwd=trial,
        )
        kept = query(
            told,
            "select raw_text, error from raw.rejected_records where source_path like '%a.jsonl'",
        )
        verbatim = {text.strip() for text, error in kept if "non-finite number" in error}
        bad_values = query(told, "select count(*) from ratings where isnan(value) or isinf(value)")[
            0
        ][0]
        row.records_lost = sum(line not in verbatim for line in bad) + max(
            0, n - rows_of(warehouse)
        )
        row.ok = (
            row.code == 3
            and row.published_unchanged
            and not row.records_lost
            and allowed.returncode == 0
            and bad_values == 0
            and one_line(result)
        )
        row.note = (
            f"with --allow-rejects: exit {allowed.returncode}, {len(verbatim)} of 2 lines kept "
            f"verbatim as non-finite, {bad_values} non-finite ratings"
        )

    # ---- 24.12: a JSON array element missing its `{` is the only reject
    @case(
        "24.12",
        "crs_arena_dial_open.json element 3 missing its opening brace, build --allow-rejects",
        "exactly 1 reject, n-1 land",
    )
    def _(row, trial):
        import json

        data = trial / "data"
        shutil.copytree(original, data)
        path = data / "crsarena-dial/data/crs_arena_dial_open.json"
        text = path.read_text("utf-8")
        elements = json.loads(text)
        marker = f'"conversation ID": {json.dumps(elements[2]["conversation ID"])}'
        at = text.rindex("{", 0, text.index(marker))  # the `{` that opens element 3
        path.write_text(text[:at] + text[at + 1 :], "utf-8")
        warehouse = fresh_site(trial, baseline)
        n = rows_of(warehouse)
        result = cli(
            "build",
            "--warehouse",
            str(warehouse),
            "--data-dir",
            str(data),
            "--allow-rejects",
            cwd=trial,
        )
        row.code = result.returncode
        row.published_unchanged = None
        rejected = query(
            warehouse,
            "select count(*) from raw.rejected_records where source_path like '%dial_open.json'",
        )[0][0]
        ids = {e["conversation ID"] for e in elements}
        landed = query(
            warehouse,
            "select count(distinct record_key) from raw.crsarena__dialogues",
        )[0][0]
        landed_open = sum(
            1
            for (key,) in query(
                warehouse, "select distinct record_key from raw.crsarena__dialogues"
            )
            if key in ids
        )
        # records of the file neither landed nor rejected, plus conversations rows lost beyond
        # the one broken element
        row.records_lost = max(0, len(elements) - landed_open - rejected) + max(
            0, n - 1 - rows_of(warehouse)
        )
        row.ok = (
            row.code in (0, 3)
            and rejected == 1
            and landed_open == len(elements) - 1
            and not row.records_lost
            and one_line(result)
        )
        row.note = (
            f"{len(elements)} elements: {landed_open} landed, {rejected} rejected "
            f"({landed} dialogues in raw)"
        )

    return rows


def wal_path_of(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


PIPE = "\\|"  # a literal | inside a Markdown table cell


def print_command_table(rows: list[CommandRow]) -> None:
    def yes(value: bool | None) -> str:
        return "n/a (a build)" if value is None else ("yes" if value else "**no**")

    print()
    print(
        "| item | case | expected | exit code | published sha256 unchanged | records lost | as expected | notes |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.item} | {r.case.replace('|', PIPE)} | {r.expected} | {r.code} | "
            f"{yes(r.published_unchanged)} | {r.records_lost} | {'yes' if r.ok else '**no**'} | "
            f"{r.note} |"
        )


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
        help="run only these faults: signals, concurrent, disk, damaged, commands",
    )
    parser.add_argument(
        "--items",
        nargs="*",
        default=None,
        help="commands: run only the cases of these issue-24 items (e.g. 24.1 24.9)",
    )
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="csrwh-faults-"))
    root.mkdir(parents=True, exist_ok=True)
    only = set(args.only or ["signals", "concurrent", "disk", "damaged", "commands"])
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
    command_rows: list[CommandRow] = []
    if "commands" in only:
        command_rows = command_cases(runner, baseline, original, args.items)
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
    if rows:
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

    if command_rows:
        print_command_table(command_rows)


if __name__ == "__main__":
    main()
