"""User-command cases of benchmarks/faults.py (issue 24), part 1: the row of a case, running a
command, and the cases run against a copy of the published warehouse (sql, the lock, sample,
validate, markup, dashboard, export, settings). Part 2: benchmarks/fault_command_files.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from fault_harness import TIMEOUT, fresh_site, query, sha256


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


def settle(
    row: CommandRow,
    result: subprocess.CompletedProcess[str],
    *,
    unchanged: bool | None,
    lost: int,
    ok: bool,
) -> None:
    """Record a case's outcome: its exit code, whether the published file kept its bytes (None:
    a build that may replace it), the records lost; as expected when ``ok`` holds, nothing was
    lost, the published file is not changed and the command printed at most one error line."""
    row.code = result.returncode
    row.published_unchanged = unchanged
    row.records_lost = lost
    row.ok = bool(ok) and not lost and unchanged is not False and one_line(result)


def _published_case(
    row: CommandRow, trial: Path, baseline: Path, args_of, expect_code, **env: str
) -> None:
    """Run a command against a copy of the published warehouse; the warehouse must stay."""
    warehouse = fresh_site(trial, baseline)
    before, n = sha256(warehouse), rows_of(warehouse)
    result = cli(*args_of(warehouse), cwd=trial, env=env)
    settle(
        row,
        result,
        unchanged=sha256(warehouse) == before,
        lost=n - rows_of(warehouse),
        ok=result.returncode in expect_code,
    )
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
    temps = sorted(p.name for p in data.glob(".tmp-*")) if data.exists() else []
    # fetch never opens a warehouse
    settle(
        row,
        result,
        unchanged=True,
        lost=lost_files(before, after),
        ok=result.returncode == 1 and not temps,
    )
    error = next((ln for ln in result.stderr.splitlines() if ln.startswith("error:")), "")
    error = error.replace(str(data.parent), "…")  # the trial folder: not worth the width
    row.note = "; ".join(
        x for x in (what, f"`{error[:160].replace('|', PIPE)}`" if error else "", *temps) if x
    )


def wal_path_of(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


PIPE = "\\|"  # a literal | inside a Markdown table cell


def warehouse_cases(case, baseline: Path, original: Path, data_dir: tuple[str, ...]) -> None:
    """Cases of commands run against a copy of the published warehouse."""

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
        settle(
            row,
            result,
            unchanged=sha256(warehouse) == before,
            lost=(n - rows_of(warehouse)) + (victim.read_text() != "precious\n"),
            ok=result.returncode == 1,
        )

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
        # sample never opens a warehouse
        settle(
            row,
            result,
            unchanged=True,
            lost=lost_files(before, files_of(real)),
            ok=result.returncode == 2,
        )

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
