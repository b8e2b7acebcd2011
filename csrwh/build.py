"""`csrwh build`: ingest + dbt build (+ expectations) into a private working copy, then publish.

The published warehouse is never written in place; nothing but a finished, gated build replaces
it, by one atomic rename. A build

1. takes the warehouse's build lock (``<warehouse>.lock``, :mod:`csrwh.lock`): a second build
   of the same warehouse fails at once naming the running one (``wait=True`` waits); a lock
   left by a dead build is taken over and its working file removed;
2. copies the published file to its own working file ``<warehouse>.building-<build id>``
   (so unchanged input files are not re-ingested);
3. ingests into it, and stops as *up to date* when the inputs the published marts were built
   from (every raw file's sha256, recorded in ``main.build_info.inputs_digest``) and the
   project files are unchanged;
4. refuses to publish (exit 3) input that looks damaged against the published build: rejected
   records the published warehouse did not have — on a first build, any reject —
   (``allow_rejects``), a published corpus whose folder is missing (``drop_corpora``), a raw
   table or mart that shrank by more than ``max_shrink`` (``allow_shrink``; recorded in
   ``main.dq_results``, suite ``volume``);
5. runs ``dbt build`` and the gates (the expectation suites);
6. publishes: renames the working file over the published one. A stale WAL beside the
   published file (left by a writer that died) would make every reader fail on the new file;
   it is moved aside to ``<warehouse>.wal.stale-<build id>`` (its changes are in the working
   copy, folded in at step 2), and a live writer of the published file refuses the build.

A failed or refused build keeps its working file as ``<warehouse>.failed`` (or, when that
cannot be replaced, ``<warehouse>.failed-<build id>``) for inspection; an interrupted one
(SIGINT/SIGTERM at any phase) removes it and exits 130/143. Neither touches the published
file, and neither exits 0.

Rebuilds: a build whose inputs or project changed rebuilds only what changed. It compares the
landed files (``raw.ingest_files``) with the published build's and runs ``dbt build --select
source:<corpus>.<table>+ ...`` for the raw tables whose files changed, plus ``state:modified+``
against the published build's manifest (kept in ``<warehouse>.build/state/``) when the project
changed, on the copy of the published warehouse; then only the suites of the re-ingested raw
tables, the rebuilt models and the changed suite files run, and the published build's results
of the others are copied into ``main.dq_results`` under the new build id. Without a usable
saved state (missing, of another build, other csrwh/dbt version, changed dbt_project.yml or
profile) it builds in full and says why in one line; ``full`` (``--full``) asks for that. dbt
sees the working file as ``<warehouse>.build/<warehouse name>`` (a hard link for the dbt phase)
so its profile, and so its partial parse, stay the same between builds; DuckDB gets the
machine's ``memory_limit``/``threads`` and ``<warehouse>.build/tmp`` to spill to, in ingest and
in dbt (:func:`csrwh.config.duckdb_settings`).

Output: by default a build shows one progress bar per phase on a terminal (dbt's bar counts its
nodes from dbt's events) and leaves one line per phase; elsewhere (CI, pipes) it prints one line
per phase (``phase <name> · build <id>``; dbt's line, printed when its first node starts, reads
``START <n> nodes``). dbt's per-node lines go to ``<dbt target>/logs/build-<build id>.log``
(named in the summary), and with ``verbose`` to the console too. Errors, refusals, failed
nodes, warnings and the ingest and expectation summaries always print.

Test hook: with ``CSRWH_TEST_PAUSE_AT=<phase>`` (``lock``, ``copy``, ``ingest``, ``dbt``,
``gate``, ``publish``) the build writes ``CSRWH_TEST_PAUSE_FILE`` (default
``<warehouse>.paused``) when it reaches that phase and waits until the file is removed, so a
test can signal or kill it at a known phase.
"""

from __future__ import annotations

import errno
import hashlib
import inspect
import json
import os
import shutil
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from csrwh import __version__
from csrwh.config import PROJECT_ROOT, duckdb_settings
from csrwh.dbt_runner import DbtOutcome, dbt_target_path, run_dbt
from csrwh.errors import CsrwhError
from csrwh.lock import BuildLock, LockInfo, not_writable_error

console = Console(stderr=True)

# Hook for quality gates run on the building database before publishing: each returns a
# list of failure messages (empty = pass). The expectations step registers itself here.
Gate = Callable[[Path, str], list[str]]

PHASES = ("lock", "copy", "ingest", "dbt", "gate", "publish")
PAUSE_AT_ENV = "CSRWH_TEST_PAUSE_AT"
PAUSE_FILE_ENV = "CSRWH_TEST_PAUSE_FILE"
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
    # new JSON key paths and new open-vocabulary values (warnings; see csrwh/novelty.py)
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


def building_path(warehouse: Path, build_id: str | None = None) -> Path:
    """The working file of build ``build_id`` (``<warehouse>.building-<id>``)."""
    return warehouse.with_name(warehouse.name + ".building" + (f"-{build_id}" if build_id else ""))


def build_dir(warehouse: Path) -> Path:
    """``<warehouse>.build/``: what builds keep beside the warehouse (module doc, "Rebuilds")."""
    return warehouse.with_name(warehouse.name + ".build")


def dbt_path(warehouse: Path) -> Path:
    """The stable name dbt's profile sees during the dbt phase (a hard link to the working file):
    ``<warehouse>.build/<warehouse name>``. dbt reparses every file when the profile's path
    changes; one name per warehouse keeps its partial parse."""
    return build_dir(warehouse) / warehouse.name


def temp_dir(warehouse: Path) -> Path:
    """DuckDB's ``temp_directory`` (spill files) for builds of ``warehouse``."""
    return build_dir(warehouse) / "tmp"


def state_dir(warehouse: Path) -> Path:
    """The published build's dbt manifest and ``build.json`` (what a selective rebuild compares)."""
    return build_dir(warehouse) / "state"


def failed_path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".failed")


def ingested_path(warehouse: Path) -> Path:
    """Where `csrwh ingest` lands (a scratch copy; never published, never read by a build)."""
    return warehouse.with_name(warehouse.name + ".ingested")


def wal_path(database: Path) -> Path:
    return database.with_name(database.name + ".wal")


def _remove_db(path: Path) -> None:
    for candidate in (path, wal_path(path)):
        try:
            candidate.unlink()
        except FileNotFoundError:
            pass


# --------------------------------------------------------------------------- output

#: per-build dbt logs kept in <dbt target>/logs (older ones are removed)
KEEP_DBT_LOGS = 20


def dbt_log_path(build_id: str) -> Path:
    """Where build ``build_id`` writes dbt's per-node lines; prunes all but the newest logs."""
    folder = dbt_target_path() / "logs"

    def age(path: Path) -> float:
        try:
            return -path.stat().st_mtime
        except OSError:  # removed meanwhile (a concurrent build pruning too)
            return 0.0

    for stale in sorted(folder.glob("build-*.log"), key=age)[KEEP_DBT_LOGS - 1 :]:
        try:
            stale.unlink()
        except OSError:
            pass
    return folder / f"build-{build_id}.log"


class _Display:
    """What a build shows while it runs (module doc, "Output").

    ``live`` (a terminal, not verbose): a transient rich progress bar for the running phase and
    one ``✓ <phase> <time>`` line when it ends; the ingest shows its own bar over the files.
    Otherwise one line per phase when it starts; without ``verbose`` dbt's line waits for its
    first node, so it can give the node count (it contains `` START ``).
    """

    def __init__(
        self, console: Console, build_id: str, verbose: bool, live: bool | None = None
    ) -> None:
        self.console = console
        self.build_id = build_id
        self.verbose = verbose
        terminal = console.is_terminal and not console.is_dumb_terminal
        self.live = (terminal and not verbose) if live is None else live
        self.log_file: Path | None = None
        self.phase: str | None = None
        self.started = 0.0
        self.dbt_total: int | None = None
        self.dbt_finished: set[str] = set()
        self.dbt_announced = False
        self._lock = threading.Lock()
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self._end(ok=exc_type is None)

    def enter(self, phase: str) -> None:
        self._end(ok=True)
        self.phase, self.started = phase, time.perf_counter()
        if not self.live:
            if phase != "dbt" or self.verbose:
                self.console.print(f"[dim]phase {phase} · build {self.build_id}[/dim]")
            return
        if phase == "ingest":
            return  # run_ingest shows its own bar over the files
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.fields[phase]:<8}[/bold]"),
            BarColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=self.console,
            transient=True,
            redirect_stdout=True,
            redirect_stderr=True,
        )
        self._task = self._progress.add_task("", total=None, phase=phase)
        self._progress.start()

    def dbt_event(self, msg: object) -> None:
        """dbt's event callback (from its worker threads): count started and finished nodes."""
        info = msg.info  # type: ignore[attr-defined]
        if info.name == "LogStartLine":
            data = msg.data  # type: ignore[attr-defined]
            with self._lock:
                first, self.dbt_announced = not self.dbt_announced, True
                self.dbt_total = int(data.total)
            if first and not self.live and not self.verbose:
                where = f"; dbt's per-node lines: {self.log_file}" if self.log_file else ""
                self.console.print(
                    f"[dim]phase dbt · build {self.build_id}[/dim] · START {data.total} nodes{escape(where)}",
                    soft_wrap=True,
                )
            self._update(escape(str(data.description)))
        elif info.name == "NodeFinished":
            with self._lock:
                self.dbt_finished.add(msg.data.node_info.unique_id)  # type: ignore[attr-defined]
            self._update(None)

    def _nodes(self) -> str:
        total = "?" if self.dbt_total is None else str(self.dbt_total)
        return f"{len(self.dbt_finished)}/{total} nodes"

    def _update(self, current: str | None) -> None:
        progress, task = self._progress, self._task
        if progress is None or task is None:
            return
        with self._lock:
            done, total = len(self.dbt_finished), self.dbt_total
            text = self._nodes() + (f" · {current}" if current else "")
        if current is None:
            progress.update(task, completed=done, total=total)
        else:
            progress.update(task, completed=done, total=total, description=text)

    def _end(self, ok: bool) -> None:
        phase, progress = self.phase, self._progress
        self._progress, self._task = None, None
        if progress is not None:
            progress.stop()
        if phase is None or not self.live:
            return
        self.phase = None
        detail = f"  {self._nodes()}" if phase == "dbt" and self.dbt_announced else ""
        seconds = time.perf_counter() - self.started
        mark = "[green]✓[/green]" if ok else "[red]✗[/red]"
        self.console.print(f"{mark} {phase:<8} {seconds:6.1f}s{detail}")


# --------------------------------------------------------------------------- signals


class _SignalGuard:
    """SIGINT/SIGTERM become KeyboardInterrupt in the main thread, remembered in ``signum``.

    Libraries that swallow KeyboardInterrupt (dbt turns it into a result, GX into a failed
    expectation) cannot hide it: the build calls :meth:`check` after every phase. Inside
    :meth:`deferred` (the publish rename, cleanup) a signal is only remembered.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._defer = 0
        self._old: dict[int, object] = {}

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._old[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._old.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self._old.clear()

    def _handle(self, signum: int, frame: object) -> None:
        first = self.signum is None
        if first:
            self.signum = signum
        if first and not self._defer:
            raise KeyboardInterrupt

    def check(self) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt

    @contextmanager
    def deferred(self) -> Iterator[None]:
        self._defer += 1
        try:
            yield
        finally:
            self._defer -= 1


def _interrupted(
    signum: int | None, phase: str, warehouse: Path, build_id: str, published: bool
) -> CsrwhError:
    signum = signum or signal.SIGINT
    name = signal.Signals(signum).name
    if published:
        message = (
            f"{name} received after build {build_id} was published to {warehouse}; it is complete"
        )
    else:
        message = (
            f"build {build_id} interrupted by {name} during {phase}; its working file was removed "
            f"and {warehouse} was left untouched"
        )
    return CsrwhError(message, hint="run the build again when ready", exit_code=128 + signum)


@contextmanager
def _quiet_dbt_interrupt(guard: _SignalGuard) -> Iterator[None]:
    """dbt logs an interrupt as "Encountered an error" plus a stack trace; it is not one."""
    try:
        from dbt.cli import requires
    except ImportError:  # pragma: no cover - dbt layout changed
        yield
        return
    original = requires.fire_event

    def fire_event(event, *args, **kwargs):  # type: ignore[no-untyped-def]
        if guard.signum is not None and type(event).__name__ in (
            "MainStackTrace",
            "MainEncounteredError",
        ):
            return None
        return original(event, *args, **kwargs)

    requires.fire_event = fire_event
    try:
        yield
    finally:
        requires.fire_event = original


def _pause(phase: str, warehouse: Path) -> None:
    """Test hook: wait at ``phase`` while $CSRWH_TEST_PAUSE_FILE exists (see module doc)."""
    if os.environ.get(PAUSE_AT_ENV) != phase:
        return
    marker = Path(os.environ.get(PAUSE_FILE_ENV) or f"{warehouse}.paused")
    marker.write_text(f"{os.getpid()} {phase}\n", encoding="utf-8")
    console.print(f"paused at {phase} until {marker} is removed")
    try:
        deadline = time.monotonic() + 600
        while marker.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        try:
            marker.unlink()
        except FileNotFoundError:
            pass


def _disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return True
    return "No space left on device" in str(exc)


# --------------------------------------------------------------------------- published state


@dataclass
class _State:
    """What a warehouse file holds that the safety checks compare."""

    fingerprint: str | None = None
    inputs_digest: str | None = None
    build_id: str | None = None
    corpora: set[str] = field(default_factory=set)
    # (corpus, source_path, md5 of the record's bytes) -> how many
    rejects: dict[tuple[str, str, str], int] = field(default_factory=dict)
    # (schema.table, corpus or None) -> rows
    counts: dict[tuple[str, str | None], int] = field(default_factory=dict)


def _volume_tables() -> tuple[list[str], list[str]]:
    """(raw corpus tables, entity marts) whose row counts the volume check compares."""
    from ingest import registry

    raw = [f"raw.{t}" for t in registry.raw_tables()]
    marts = sorted(
        f"main.{p.stem}"
        for folder in ("core", "search")
        for p in (PROJECT_ROOT / "models" / "marts" / folder).glob("*.sql")
    )
    return raw, marts


def _read_state(database: Path, tables: list[str] | None = None, full: bool = True) -> _State:
    """Read ``database`` read-only through a private instance (never the per-process cache)."""
    import duckdb

    state = _State()
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"attach '{_sql_str(database)}' as w (read_only)")
        present = {
            (s, t): None
            for s, t in con.execute(
                "select schema_name, table_name from duckdb_tables() where database_name = 'w'"
            ).fetchall()
        }
        if full and ("main", "build_info") in present:
            columns = {
                c
                for (c,) in con.execute(
                    "select column_name from duckdb_columns() where database_name = 'w' "
                    "and schema_name = 'main' and table_name = 'build_info'"
                ).fetchall()
            }
            if "project_fingerprint" in columns:
                state.fingerprint = con.execute(
                    "select project_fingerprint from w.main.build_info"
                ).fetchone()[0]
            if "inputs_digest" in columns:
                state.inputs_digest = con.execute(
                    "select inputs_digest from w.main.build_info"
                ).fetchone()[0]
            state.build_id = con.execute("select build_id from w.main.build_info").fetchone()[0]
        if full and ("raw", "ingest_files") in present:
            state.corpora = {
                c
                for (c,) in con.execute("select distinct corpus from w.raw.ingest_files").fetchall()
            }
        if full and ("raw", "rejected_records") in present:
            for corpus, path, digest, n in con.execute(
                "select corpus, source_path, md5(coalesce(raw_bytes, encode(coalesce(raw_text, '')))), "
                "count(*) from w.raw.rejected_records group by all"
            ).fetchall():
                state.rejects[(corpus, path, digest)] = n
        for qualified in tables or []:
            schema, table = qualified.split(".", 1)
            if (schema, table) not in present:
                continue
            columns = [
                c
                for (c,) in con.execute(
                    "select column_name from duckdb_columns() where database_name = 'w' and schema_name = ? "
                    "and table_name = ? order by column_index",
                    [schema, table],
                ).fetchall()
            ]
            key = (
                "corpus"
                if "corpus" in columns
                else f"split_part(cast(\"{columns[0]}\" as varchar), ':', 1)"
            )
            for corpus, n in con.execute(
                f'select {key}, count(*) from w."{schema}"."{table}" group by all'
            ).fetchall():
                state.counts[(qualified, corpus)] = n
            state.counts.setdefault((qualified, None), 0)
    finally:
        con.close()
    return state


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")


def _ingest_files(database: Path) -> list[tuple[str, str, str, str]]:
    """Every landed file: (corpus, raw table, source path, sha256), sorted; [] before any ingest."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        con.execute(f"attach '{_sql_str(database)}' as w (read_only)")
        present = con.execute(
            "select count(*) from duckdb_tables() where database_name = 'w' "
            "and schema_name = 'raw' and table_name = 'ingest_files'"
        ).fetchone()[0]
        if not present:
            return []
        return con.execute(
            "select corpus, table_name, source_path, file_sha256 from w.raw.ingest_files order by all"
        ).fetchall()
    finally:
        con.close()


def changed_raw_tables(
    before: list[tuple[str, str, str, str]], after: list[tuple[str, str, str, str]]
) -> set[str]:
    """Raw tables (``cosrec__conversations``) one of whose files was added, removed or changed."""
    return {table for _, table, _, _ in set(before) ^ set(after)}


def _inputs_digest(database: Path) -> str:
    """sha256 over every landed file (corpus, table, path, sha256): what the marts are built from."""
    rows = _ingest_files(database)
    digest = hashlib.sha256()
    for row in rows:
        digest.update("\t".join(str(v) for v in row).encode("utf-8") + b"\n")
    return digest.hexdigest()


@dataclass
class _Volume:
    table: str
    published: int
    building: int
    max_shrink: float

    @property
    def shrink(self) -> float:
        return (
            0.0
            if self.published <= 0
            else max(0.0, (self.published - self.building) / self.published)
        )

    @property
    def too_much(self) -> bool:
        return self.shrink > self.max_shrink


def _volumes(
    published: _State, now: _State, tables: list[str], dropped: set[str], max_shrink: float
) -> list[_Volume]:
    out = []
    for table in tables:
        if not any(t == table for t, _ in published.counts):
            continue  # not in the published warehouse: nothing to compare with
        out.append(
            _Volume(table, _rows(published, table, dropped), _rows(now, table, dropped), max_shrink)
        )
    return out


def _rows(state: _State, table: str, dropped: set[str]) -> int:
    return sum(n for (t, c), n in state.counts.items() if t == table and c not in dropped)


def _record_volumes(
    database: Path, build_id: str, volumes: list[_Volume], allow_shrink: bool
) -> None:
    import datetime as dt

    from csrwh.validate import ExpectationOutcome, ValidationReport, record_results

    if not volumes:
        return
    pct = f"{volumes[0].max_shrink:.0%}"
    outcomes = [
        ExpectationOutcome(
            suite="volume",
            table=v.table,
            expectation=f"shrinks_at_most_{pct.rstrip('%')}_percent",
            expectation_type="csrwh_volume_against_published",
            severity="warning" if allow_shrink else "critical",
            success=not v.too_much,
            observed_value={
                "published_rows": v.published,
                "building_rows": v.building,
                "shrink": round(v.shrink, 4),
            },
            why=f"a table losing more than {pct} of its rows against the published build is "
            "damaged input until accepted (--allow-shrink)",
        )
        for v in volumes
    ]
    record_results(
        database,
        ValidationReport(
            run_id=build_id,
            database=database,
            validated_at=dt.datetime.now(dt.UTC).replace(tzinfo=None),
            outcomes=outcomes,
        ),
    )


# --------------------------------------------------------------------------- selective rebuilds


def _state_compat() -> dict[str, str]:
    """What must be equal for a saved dbt state to be compared with: tool versions and the
    project files dbt's state comparison does not see through (vars, profile settings)."""
    from dbt.version import __version__ as dbt_version

    files = hashlib.sha256()
    for name in ("dbt_project.yml", "profiles/profiles.yml"):
        files.update((PROJECT_ROOT / name).read_bytes() + b"\0")
    return {"csrwh": __version__, "dbt": str(dbt_version), "project_files": files.hexdigest()}


def _saved_state(warehouse: Path, published_build: str | None) -> tuple[str | None, dict]:
    """(why the saved state cannot be used or None, build.json with raw_sources as a set)."""
    folder = state_dir(warehouse)
    try:
        info = json.loads((folder / "build.json").read_text("utf-8"))
    except (OSError, ValueError):
        return f"no saved dbt state of the published build in {folder}", {}
    if not (folder / "manifest.json").is_file():
        return f"no saved dbt manifest in {folder}", {}
    if info.get("build_id") != published_build:
        saved = info.get("build_id")
        return (
            f"the saved dbt state is of build {saved}, not of the published {published_build}",
            {},
        )
    compat = info.get("compat", {})
    now = _state_compat()
    for key, what in (
        ("csrwh", "csrwh's version"),
        ("dbt", "dbt's version"),
        ("project_files", "dbt_project.yml or profiles/profiles.yml"),
    ):
        if compat.get(key) != now[key]:
            return f"{what} changed since the published build", {}
    info["raw_sources"] = set(info.get("raw_sources", []))
    return None, info


@dataclass
class _Selection:
    """A selective rebuild: the raw tables whose files changed and whether project code did."""

    raw_tables: set[str]
    code_changed: bool
    saved_suites: dict[str, str]

    @property
    def select(self) -> list[str]:
        from csrwh.dbt_sources import raw_tables

        # each corpus is a dbt source in schema raw (models/staging/<corpus>/_<corpus>__sources.yml)
        # a raw table without a dbt source has nothing downstream to rebuild
        declared = raw_tables()
        out = [
            f"source:{declared[table].source}.{declared[table].name}+"
            for table in sorted(self.raw_tables)
            if table in declared
        ]
        if self.code_changed:
            out.append("state:modified+")
        return out

    def describe(self) -> str:
        tables = ", ".join(sorted(self.raw_tables)) or "none"
        code = "; models, tests or suites changed (state:modified+)" if self.code_changed else ""
        return f"raw tables re-ingested: {tables}{code}; the rest is carried over from the published build"

    def suites(self, outcome: DbtOutcome) -> list[str]:
        """Suites to re-run: of re-ingested raw tables, of models dbt rebuilt, changed suites."""
        from csrwh.validation.suites import load_suites, suite_digests

        tables = {f"raw.{t}" for t in self.raw_tables}
        tables |= {
            f"main.{uid.split('.')[-1]}" for uid in outcome.timings if uid.startswith("model.")
        }
        digests = suite_digests()
        return [
            spec.name
            for spec in load_suites()
            if spec.table in tables or self.saved_suites.get(spec.name) != digests.get(spec.name)
        ]


def _carry_over(database: Path, previous: str, build_id: str, outcome: DbtOutcome) -> None:
    """Copy into ``build_id`` the published build's dq_results of what this build did not check
    again (suites not re-run, open_vocabulary tests dbt did not run), so the build's results
    describe the whole warehouse. Their ``validated_at`` stays the original one."""
    import duckdb

    from csrwh.novelty import OPEN_VOCABULARY
    from csrwh.validation.suites import load_suites

    suites = [spec.name for spec in load_suites()]
    executed = list(outcome.timings)
    with duckdb.connect(str(database)) as con:
        present = con.execute(
            "select count(*) from duckdb_tables() where schema_name = 'main' "
            "and table_name = 'dq_results'"
        ).fetchone()[0]
        if not present:
            return
        columns = [
            c
            for (c,) in con.execute(
                "select column_name from duckdb_columns() where schema_name = 'main' "
                "and table_name = 'dq_results' and column_name <> 'run_id' order by column_index"
            ).fetchall()
        ]
        listed = ", ".join(f'"{c}"' for c in columns)
        con.execute(
            f"insert into main.dq_results (run_id, {listed}) "
            f"select ?, {listed} from main.dq_results as published "
            "where published.run_id = ? and ("
            "  (list_contains(?, published.suite) and published.suite not in "
            "     (select suite from main.dq_results where run_id = ?))"
            "  or (published.suite = ? and not list_contains(?, published.expectation)))",
            [build_id, previous, suites, build_id, OPEN_VOCABULARY, executed],
        )


# --------------------------------------------------------------------------- the build


def build(
    data_dir: Path,
    warehouse: Path,
    corpora: list[str] | None = None,
    strict: bool = False,
    gates: list[Gate] | None = None,
    full_refresh: bool = False,
    *,
    allow_rejects: bool = False,
    drop_corpora: list[str] | tuple[str, ...] = (),
    allow_shrink: bool = False,
    max_shrink: float = DEFAULT_MAX_SHRINK,
    wait: bool = False,
    verbose: bool = False,
    full: bool = False,
) -> BuildResult:
    """Build the warehouse from `data_dir` and publish it to `warehouse` if every step passes.

    ``verbose`` shows dbt's per-node lines as they come (module doc, "Output"); ``full`` runs
    every dbt node and every suite instead of only what changed (module doc, "Rebuilds")."""
    build_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    warehouse = Path(warehouse)
    job = _Build(
        build_id,
        Path(data_dir),
        warehouse,
        corpora,
        strict,
        gates or [],
        full_refresh,
        allow_rejects,
        _drop_names(drop_corpora, Path(data_dir)),
        allow_shrink,
        max_shrink,
        verbose,
        full,
    )
    _ensure_folder(warehouse.parent)
    with _SignalGuard() as guard:
        job.guard = guard
        lock = BuildLock(warehouse, build_id, job.work)
        try:
            previous = lock.acquire(
                wait=wait,
                on_wait=lambda holder: console.print(
                    f"waiting for {holder.describe() if holder else 'another build'} of {warehouse} to finish…"
                ),
            )
        except KeyboardInterrupt:
            raise _interrupted(guard.signum, "lock", warehouse, build_id, False) from None
        try:
            with job.display:
                job.took_over(previous)
                return job.run()
        except KeyboardInterrupt:
            with guard.deferred():
                job.cleanup()
            raise _interrupted(
                guard.signum, job.phase, warehouse, build_id, job.result.published
            ) from None
        except CsrwhError:
            with guard.deferred():
                job.cleanup()
            raise
        except BaseException as exc:
            with guard.deferred():
                job.cleanup()
            if _disk_full(exc):
                raise CsrwhError(
                    f"build {build_id} ran out of disk space during {job.phase} in {warehouse.parent}; "
                    f"{warehouse} was left untouched",
                    hint="free space there (a build needs room for a copy of the warehouse) or build "
                    "elsewhere with --warehouse",
                ) from exc
            raise
        finally:
            lock.release()


def _ensure_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise not_writable_error(folder, exc) from None
        raise
    if not os.access(folder, os.W_OK | os.X_OK):
        raise not_writable_error(folder)


def _drop_names(names: list[str] | tuple[str, ...], data_dir: Path) -> set[str]:
    from ingest import registry

    out = set()
    for name in names or ():
        try:
            spec = registry.get(name)
        except KeyError:
            raise CsrwhError(
                f"--drop-corpus {name}: unknown corpus",
                hint="known corpora: " + ", ".join(registry.names()),
                exit_code=2,
            ) from None
        if (data_dir / spec.folder).is_dir():
            raise CsrwhError(
                f"--drop-corpus {spec.name}: its folder {data_dir / spec.folder} is present",
                hint=f"move {spec.folder}/ out of the data folder to drop the corpus, or leave out --drop-corpus",
                exit_code=2,
            )
        out.add(spec.name)
    return out


class _Build:
    """The state of one locked build; ``phase`` says where it is (for messages and cleanup)."""

    def __init__(
        self,
        build_id: str,
        data_dir: Path,
        warehouse: Path,
        corpora: list[str] | None,
        strict: bool,
        gates: list[Gate],
        full_refresh: bool,
        allow_rejects: bool,
        dropped: set[str],
        allow_shrink: bool,
        max_shrink: float,
        verbose: bool = False,
        full: bool = False,
    ) -> None:
        self.build_id = build_id
        self.data_dir = data_dir
        self.warehouse = warehouse
        self.corpora = corpora
        self.strict = strict
        self.gates = gates
        self.full_refresh = full_refresh
        self.allow_rejects = allow_rejects
        self.dropped = dropped
        self.allow_shrink = allow_shrink
        self.max_shrink = max_shrink
        self.work = building_path(warehouse, build_id)
        self.phase = "lock"
        self.guard = _SignalGuard()
        self.result = BuildResult(build_id=build_id, warehouse=warehouse, published=False)
        self.dbt_open = False
        self.verbose = verbose
        self.full = full
        self.display = _Display(console, build_id, verbose)
        # the file dbt's profile points at (dbt_path(); the working file if no link can be made)
        self.dbt_db = self.work
        # the published build's landed files, read from the working copy before ingest
        self.published_files: list[tuple[str, str, str, str]] = []
        # the next saved state (dbt manifest + build.json), moved into place on publish
        self.new_state = build_dir(warehouse) / f"state.new-{build_id}"

    # -- phases ---------------------------------------------------------------------
    def enter(self, phase: str) -> None:
        self.guard.check()
        self.phase = phase
        self.display.enter(phase)
        _pause(phase, self.warehouse)

    def note(self, line: str) -> None:
        self.result.notes.append(line)
        console.print(f"[yellow]note:[/yellow] {escape(line)}", soft_wrap=True)

    def took_over(self, previous: LockInfo | None) -> None:
        """Remove whatever dead builds left (we hold the lock: no other build is running)."""
        self.enter("lock")
        if previous is not None:
            self.note(f"took over the lock of {previous.describe()}, which is no longer running")
        prefix = self.warehouse.name + ".building"
        for leftover in sorted(self.warehouse.parent.glob(prefix + "*")):
            if leftover.name.startswith(self.work.name):
                continue
            try:
                leftover.unlink()
            except OSError:
                continue
            if not leftover.name.endswith(".wal"):
                self.note(
                    f"removed {leftover.name}, the working file of a build that did not finish"
                )
        # a dead build's hard link for dbt and half-written states (we hold the lock)
        _remove_db(dbt_path(self.warehouse))
        for stale in build_dir(self.warehouse).glob("state.*-*"):
            shutil.rmtree(stale, ignore_errors=True)

    def run(self) -> BuildResult:
        from ingest import run_ingest

        result, warehouse, work = self.result, self.warehouse, self.work
        started = time.perf_counter()

        self.enter("copy")
        _remove_db(work)
        if warehouse.exists() and not self.full_refresh:
            self._check_no_writer()
            shutil.copy2(warehouse, work)
            if wal_path(warehouse).exists():
                self._fold_wal()
        published_state = self._published_state()
        if work.exists():
            self.published_files = _ingest_files(work)
        result.seconds["copy"] = time.perf_counter() - started

        self.enter("ingest")
        step = time.perf_counter()
        summary = self._ingest(run_ingest)
        self.guard.check()
        result.seconds["ingest"] = time.perf_counter() - step
        result.records_rejected = summary.records_rejected

        if self.strict and summary.rejected_outstanding:
            kept = self.keep_failed()
            raise CsrwhError(
                f"{summary.rejected_outstanding} rejected record(s) and --strict is set; build "
                f"{self.build_id} was not published and {warehouse} was left untouched",
                hint=f"the rejects are in the kept build: csrwh sql --warehouse {kept} "
                '"select corpus, source_path, line_number, error from raw.rejected_records"'
                if kept
                else "re-run without --strict to land the good records and inspect the rejects",
                exit_code=EXIT_REFUSED,
            )

        fingerprint = project_fingerprint()
        inputs = _inputs_digest(work)
        if (
            not self.full_refresh
            and published_state is not None
            and published_state.fingerprint == fingerprint
            and published_state.inputs_digest == inputs
        ):
            _remove_db(work)
            result.up_to_date = True
            result.seconds["total"] = time.perf_counter() - started
            console.print(
                f"[green]Up to date[/green]: {warehouse} was built from these input files with these models"
            )
            return result

        raw_tables, mart_tables = _volume_tables()
        refusals = self._input_refusals(published_state, summary.missing_corpora)
        volumes: list[_Volume] = []
        if published_state is not None:
            now = _read_state(work, raw_tables, full=False)
            volumes = _volumes(published_state, now, raw_tables, self.dropped, self.max_shrink)
            refusals += self._shrink_refusals(volumes)
        if refusals:
            _record_volumes(work, self.build_id, volumes, self.allow_shrink)
            self.refuse(refusals)

        selection = self._plan(published_state, fingerprint)
        log_file = dbt_log_path(self.build_id)
        self.display.log_file = log_file
        self.enter("dbt")
        step = time.perf_counter()
        if self.verbose:
            console.print(
                f"[bold]dbt build[/bold] (staging views, marts, tests; also in {escape(str(log_file))})"
            )
        self.dbt_db = self._link_for_dbt()
        self.dbt_open = True
        args = ["build"]
        if selection is not None:
            args += ["--select", *selection.select, "--state", str(state_dir(warehouse))]
        try:
            with _quiet_dbt_interrupt(self.guard):
                outcome = run_dbt(
                    args,
                    self.dbt_db,
                    quiet=not self.verbose,
                    log_file=log_file,
                    on_event=self.display.dbt_event,
                    temp_dir=temp_dir(warehouse),
                )
        except CsrwhError:
            self.guard.check()  # dbt reports an interrupt as "could not run"
            raise
        self.dbt_open = False
        self._unlink_for_dbt()
        self.guard.check()
        self._stage_state()
        result.dbt = outcome
        result.seconds["dbt"] = time.perf_counter() - step
        failures: list[str] = []
        if not outcome.success:
            failures.extend(outcome.failures or [f"dbt build failed (see {outcome.log_file})"])

        if not failures and published_state is not None:
            marts = _volumes(
                published_state,
                _read_state(work, mart_tables, full=False),
                mart_tables,
                self.dropped,
                self.max_shrink,
            )
            volumes += marts
            _record_volumes(work, self.build_id, volumes, self.allow_shrink)
            refusals = self._shrink_refusals(marts)
            if refusals:
                self.refuse(refusals)

        if not failures:
            from csrwh.novelty import report as report_novelties

            self.enter("gate")
            step = time.perf_counter()
            result.novelties = report_novelties(work, self.build_id, result.dbt, console)
            result.seconds["novelty"] = time.perf_counter() - step
            _record_build(work, self.build_id, self.data_dir, fingerprint, inputs)
            suites = None if selection is None else selection.suites(outcome)
            for gate in self.gates:
                step = time.perf_counter()
                if suites is not None and "suites" in inspect.signature(gate).parameters:
                    failures.extend(gate(work, self.build_id, suites=suites))
                else:
                    failures.extend(gate(work, self.build_id))
                self.guard.check()  # GX reports an interrupt as a failed expectation
                result.seconds[getattr(gate, "__name__", "gate")] = time.perf_counter() - step
            if selection is not None and published_state is not None and published_state.build_id:
                _carry_over(work, published_state.build_id, self.build_id, outcome)

        if failures:
            kept = self.keep_failed()
            for line in failures[:20]:
                console.print(f"  [red]✗[/red] {escape(line)}")
            raise CsrwhError(
                f"build {self.build_id} failed ({len(failures)} problem(s)); the published warehouse "
                f"{warehouse} was left untouched",
                hint=f'inspect the rejected build with: csrwh sql --warehouse {kept} "..."'
                if kept
                else "re-run the build to see the failures again",
            )

        self.enter("publish")
        if wal_path(
            work
        ).exists():  # every writer checkpointed on close; a WAL here means one did not
            raise CsrwhError(
                f"build {self.build_id}: {wal_path(work)} still holds unwritten changes; not publishing",
                hint="another process may have the building database open; retry the build",
            )
        stale = wal_path(warehouse)
        if stale.exists():
            self._check_no_writer()
        with self.guard.deferred():
            self.guard.check()
            if stale.exists():
                aside = stale.with_name(f"{stale.name}.stale-{self.build_id}")
                os.replace(stale, aside)
                self.note(
                    f"moved the stale {stale.name} (left by a writer of the old file that did not close) "
                    f"to {aside.name}, so readers of the new file do not replay it"
                )
            os.replace(work, warehouse)
            result.published = True
            self._publish_state()
        self.guard.check()
        result.seconds["total"] = time.perf_counter() - started
        return result

    # -- ingest, selection and dbt's state ---------------------------------------------
    def _ingest(self, run_ingest: Callable[..., object]) -> object:
        """Ingest through a connection with the build's DuckDB settings (memory, threads, spill)."""
        import duckdb

        folder = temp_dir(self.warehouse)
        folder.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(self.work), config=duckdb_settings(folder))
        failed = True
        try:
            summary = run_ingest(self.data_dir, con, corpora=self.corpora)
            failed = False
        finally:
            try:
                con.close()  # checkpoints: can itself hit a full disk
            except duckdb.Error:
                if not failed:  # never mask the error that ended the run
                    raise
        return summary

    def _plan(self, published: _State | None, fingerprint: str) -> _Selection | None:
        """What dbt builds: None = every node; else the raw tables that changed and their
        descendants, plus what changed in the project (dbt ``state:modified+``)."""
        if self.full_refresh or published is None:
            return None
        if self.full:
            console.print("full build: --full")
            return None
        problem, saved = _saved_state(self.warehouse, published.build_id)
        changed = changed_raw_tables(self.published_files, _ingest_files(self.work))
        if problem is None:
            unknown = sorted(changed - saved.get("raw_sources", set()))
            if unknown:
                problem = f"raw table(s) {', '.join(unknown)} are not sources in the saved manifest"
        if problem is not None:
            console.print(f"full build: {escape(problem)}", soft_wrap=True)
            self.result.notes.append(f"full build: {problem}")
            return None
        selection = _Selection(
            raw_tables=changed,
            code_changed=published.fingerprint != fingerprint,
            saved_suites=saved.get("suites", {}),
        )
        console.print(f"selective build: {escape(selection.describe())}", soft_wrap=True)
        self.result.notes.append(f"selective build: {selection.describe()}")
        return selection

    def _link_for_dbt(self) -> Path:
        """Hard-link the working file to dbt_path() so dbt's profile path never changes."""
        link = dbt_path(self.warehouse)
        try:
            link.parent.mkdir(parents=True, exist_ok=True)
            _remove_db(link)
            os.link(self.work, link)
        except OSError as exc:
            console.print(
                f"note: cannot hard-link {self.work.name} to {link} ({exc.strerror}); dbt will "
                "reparse the project"
            )
            return self.work
        return link

    def _unlink_for_dbt(self) -> None:
        if self.dbt_db != self.work:
            if wal_path(self.dbt_db).exists():  # dbt's database was not checkpointed
                raise CsrwhError(
                    f"build {self.build_id}: {wal_path(self.dbt_db)} still holds unwritten changes",
                    hint="another process may have the building database open; retry the build",
                )
            _remove_db(self.dbt_db)
            self.dbt_db = self.work

    def _stage_state(self) -> None:
        """Keep this dbt run's manifest for the next build (published with the warehouse)."""
        shutil.rmtree(self.new_state, ignore_errors=True)
        manifest = dbt_target_path() / "manifest.json"
        if not manifest.is_file():
            return
        from csrwh.validation.suites import suite_digests

        self.new_state.mkdir(parents=True)
        shutil.copy2(manifest, self.new_state / "manifest.json")
        # the raw tables dbt reads: sources in schema raw (one dbt source per corpus)
        sources = sorted(
            node.get("identifier") or node["name"]
            for node in json.loads(manifest.read_text("utf-8")).get("sources", {}).values()
            if node.get("schema") == "raw"
        )
        info = {
            "build_id": self.build_id,
            "compat": _state_compat(),
            "raw_sources": sources,
            "suites": suite_digests(),
        }
        (self.new_state / "build.json").write_text(json.dumps(info, indent=1), "utf-8")

    def _publish_state(self) -> None:
        """Replace the saved state by this build's (after the warehouse was published)."""
        current = state_dir(self.warehouse)
        old = current.with_name(f"state.old-{self.build_id}")
        try:
            if current.exists():
                os.replace(current, old)
            if self.new_state.exists():
                os.replace(self.new_state, current)
        except OSError as exc:  # the next build notices the missing state and builds in full
            self.note(f"could not save dbt's state in {current} ({exc.strerror})")
        shutil.rmtree(old, ignore_errors=True)

    # -- checks ---------------------------------------------------------------------
    def _check_no_writer(self) -> None:
        """Refuse when another process has the published file open for writing."""
        import duckdb

        con = duckdb.connect(":memory:")
        try:
            con.execute(f"attach '{_sql_str(self.warehouse)}' as w (read_only)")
        except duckdb.Error as exc:
            text = str(exc)
            if "lock" in text.lower():
                raise CsrwhError(
                    f"{self.warehouse} is open for writing by another process ({text.splitlines()[0][:200]}); "
                    "not building over it",
                    hint="close that program (csrwh itself only ever replaces the published file) and retry",
                ) from None
            # e.g. a WAL that does not belong to the file: readers fail too; the build repairs it
        finally:
            con.close()

    def _fold_wal(self) -> None:
        """The published file has a WAL nobody holds: fold it into the working copy."""
        import duckdb

        stale = wal_path(self.warehouse)
        shutil.copy2(stale, wal_path(self.work))
        try:
            with duckdb.connect(str(self.work)) as con:
                con.execute("checkpoint")
        except duckdb.Error as exc:
            _remove_db(self.work)
            shutil.copy2(self.warehouse, self.work)
            self.note(
                f"{stale.name} does not belong to {self.warehouse.name} ({str(exc).splitlines()[0][:160]}); "
                "building without it"
            )
        else:
            self.note(f"folded {stale.name} (left by a writer that did not close) into the build")

    def _published_state(self) -> _State | None:
        """The published build's inputs, corpora, rejects and row counts (None: no published build)."""
        raw_tables, mart_tables = _volume_tables()
        source = self.work if self.work.exists() else self.warehouse
        if not self.warehouse.exists():
            return None
        try:
            return _read_state(source, raw_tables + mart_tables)
        except Exception as exc:  # noqa: BLE001 - an unreadable published file is replaced
            self.note(
                f"cannot read the published {self.warehouse.name} ({str(exc).splitlines()[0][:160]}); "
                "the checks against it are skipped"
            )
            return None

    def _input_refusals(self, published: _State | None, missing: list[str]) -> list[str]:
        refusals: list[str] = []
        now = _read_state(self.work)
        pub_rejects = published.rejects if published else {}
        new = {
            k: n - pub_rejects.get(k, 0)
            for k, n in now.rejects.items()
            if n > pub_rejects.get(k, 0)
        }
        if new:
            n_new = sum(new.values())
            files = sorted({f"{c}:{p}" for c, p, _ in new})
            line = (
                f"{n_new} rejected record(s) the published warehouse did not have, in {', '.join(files[:3])}"
                + (f" and {len(files) - 3} more file(s)" if len(files) > 3 else "")
            )
            if self.allow_rejects:
                self.result.accepted.append(line + " (accepted: --allow-rejects)")
            else:
                refusals.append(line + "; accept them with --allow-rejects")
        if published is not None:
            for corpus in sorted(set(missing) & published.corpora):
                line = f"corpus {corpus} is in the published warehouse but its folder is missing from {self.data_dir}"
                if corpus in self.dropped:
                    self.result.accepted.append(line + f" (dropped: --drop-corpus {corpus})")
                else:
                    refusals.append(line + f"; drop it with --drop-corpus {corpus}")
        return refusals

    def _shrink_refusals(self, volumes: list[_Volume]) -> list[str]:
        out = []
        for v in volumes:
            if not v.too_much:
                continue
            line = (
                f"{v.table} shrank from {v.published} to {v.building} rows ({v.shrink:.0%}, more than "
                f"{v.max_shrink:.0%})"
            )
            if self.allow_shrink:
                self.result.accepted.append(line + " (accepted: --allow-shrink)")
            else:
                out.append(line + "; accept it with --allow-shrink")
        return out

    # -- endings ---------------------------------------------------------------------
    def refuse(self, refusals: list[str]) -> None:
        kept = self.keep_failed()
        for line in refusals:
            console.print(f"  [red]✗[/red] {escape(line)}")
        first = refusals[0].split("; ")[0]
        more = f" (+{len(refusals) - 1} more above)" if len(refusals) > 1 else ""
        flags = sorted(
            {
                f
                for f in ("--allow-rejects", "--drop-corpus", "--allow-shrink")
                if any(f in r for r in refusals)
            }
        )
        raise CsrwhError(
            f"build {self.build_id} not published: {first}{more}; {self.warehouse} was left untouched",
            hint=f"accept with {' / '.join(flags)} after checking"
            + (
                f"; the refused build is kept at {kept} (see raw.rejected_records, main.dq_results)"
                if kept
                else ""
            ),
            exit_code=EXIT_REFUSED,
        )

    def keep_failed(self) -> Path | None:
        """Keep the working file as ``<warehouse>.failed`` (an old one never blocks this)."""
        if not self.work.exists():
            return None
        target = failed_path(self.warehouse)
        try:
            _remove_db(target)
            os.replace(self.work, target)
            return target
        except OSError:
            alternative = target.with_name(f"{target.name}-{self.build_id}")
            try:
                os.replace(self.work, alternative)
                return alternative
            except OSError:
                _remove_db(self.work)
                return None

    def cleanup(self) -> None:
        """After an interrupt or an error: close dbt's database and remove the working file."""
        if self.dbt_open:
            try:
                from csrwh.dbt_runner import release_database

                release_database(self.dbt_db)
            except Exception:  # noqa: BLE001, S110 - cleanup must go on
                pass
        if self.dbt_db != self.work:
            _remove_db(self.dbt_db)  # the hard link (and a WAL of it) only; never raises
            self.dbt_db = self.work
        shutil.rmtree(self.new_state, ignore_errors=True)
        if not self.result.published:
            _remove_db(self.work)


# --------------------------------------------------------------------------- `csrwh ingest`


@dataclass
class IngestResult:
    summary: object
    landed: Path


def ingest_only(data_dir: Path, warehouse: Path, corpora: list[str] | None = None) -> IngestResult:
    """`csrwh ingest`: land the data folder into ``<warehouse>.ingested``, a scratch copy of the
    published warehouse, to see what a build would land and reject. The published file is never
    written; only `csrwh build` publishes, through its gate."""
    from ingest import run_ingest

    warehouse = Path(warehouse)
    _ensure_folder(warehouse.parent)
    out = ingested_path(warehouse)
    scratch = warehouse.with_name(
        f"{warehouse.name}.ingesting-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    )
    with _SignalGuard() as guard:
        try:
            if warehouse.exists():
                shutil.copy2(warehouse, scratch)
            summary = run_ingest(data_dir, scratch, corpora=corpora)
            guard.check()
            with guard.deferred():
                _remove_db(out)
                os.replace(scratch, out)
        except KeyboardInterrupt:
            _remove_db(scratch)
            signum = guard.signum or signal.SIGINT
            raise CsrwhError(
                f"ingest interrupted by {signal.Signals(signum).name}; {warehouse} was not touched",
                hint="run it again when ready",
                exit_code=128 + signum,
            ) from None
        except BaseException as exc:
            _remove_db(scratch)
            if _disk_full(exc):
                raise CsrwhError(
                    f"ran out of disk space writing {scratch}",
                    hint="free space there or use another --warehouse",
                ) from exc
            raise
    return IngestResult(summary=summary, landed=out)


# --------------------------------------------------------------------------- bookkeeping


def project_fingerprint() -> str:
    """sha256 over everything that shapes the marts: dbt project, models, macros, seeds, tests, suites."""
    digest = hashlib.sha256(__version__.encode())
    names = ["dbt_project.yml", "profiles/profiles.yml"]
    for folder in ("models", "macros", "seeds", "tests/dbt", "expectations"):
        names.extend(
            str(p.relative_to(PROJECT_ROOT))
            for p in (PROJECT_ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        )
    for name in sorted(names):
        path = PROJECT_ROOT / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _published_fingerprint(warehouse: Path) -> str | None:
    """The fingerprint recorded by the last published build, if any."""
    if not warehouse.exists():
        return None
    try:
        return _read_state(warehouse).fingerprint
    except Exception:  # noqa: BLE001
        return None


def _record_build(
    database: Path, build_id: str, data_dir: Path, fingerprint: str, inputs: str
) -> None:
    """Write the build's id into the warehouse (`main.build_info`) so reports can cite it, with
    the digest of the input files the marts were built from (freshness of the next build)."""
    import duckdb

    with duckdb.connect(str(database)) as con:
        con.execute(
            "create or replace table main.build_info as select ? as build_id, "
            "current_timestamp as built_at, ? as data_dir, ? as project_fingerprint, "
            "? as csrwh_version, ? as inputs_digest, "
            "(select count(*) from raw.ingest_files) as n_input_files",
            [build_id, str(data_dir), fingerprint, __version__, inputs],
        )
