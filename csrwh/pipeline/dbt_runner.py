"""Run dbt on a warehouse file in a child process, through dbt's public interface only.

:func:`run_dbt` starts ``python -m csrwh.pipeline.dbt_child`` (this venv's interpreter): it runs
``dbtRunner().invoke`` and sends dbt's events as JSON lines (dbt's ``msg_to_dict``) on a pipe of
their own, so what a Python model prints cannot mix with them; it filters out dbt's debug events
before serialising them, and its last line is dbt's result (node statuses, messages, compiled
SQL, test metadata), so no artefact of an earlier run can be read as this one's. This process
reads the events live (node log, console, progress), ends the child on a signal and reports a
killed child in one line. When the child exits, its DuckDB instance and memory go with it.
:func:`run_dbt_in_process` is the Spark build's (its SparkSession lives in this process).
Details: docs/internals.md#csrwh-pipeline-dbt_runner
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from csrwh.config import PROJECT_ROOT, duckdb_settings
from csrwh.errors import (
    CsrwhError,
    is_no_space,
    is_out_of_memory,
    no_space_line,
    out_of_memory_line,
)
from csrwh.pipeline.dbt_child import NOT_LOGGED, RESULT_KEY, DbtEvent, event_dict, result_dict


@dataclass
class DbtOutcome:
    """What a dbt invocation did: node statuses, failures and wall time."""

    success: bool
    seconds: float
    n_nodes: int = 0
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # tests that failed: (test unique_id, compiled SQL), to show their rows (failing_rows.py)
    failed_tests: list[tuple[str, str]] = field(default_factory=list)
    # open_vocabulary tests that warned: (test unique_id, vocabulary name, compiled SQL)
    open_vocabulary_warnings: list[tuple[str, str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    # node results by status (success, pass, warn, fail, error, skipped, ...)
    statuses: Counter[str] = field(default_factory=Counter)
    log_file: Path | None = None
    # why dbt parsed the whole project (its UnableToPartialParse reason); None: partial parse
    full_parse_reason: str | None = None
    # seconds from the invocation to dbt's "Found N models, ..." line (parse and setup)
    parse_seconds: float | None = None

    def node_summary(self) -> str:
        """``682 dbt nodes: 680 ok, 2 warn`` (models and seeds built, tests passed = ok)."""
        ok = self.statuses.get("success", 0) + self.statuses.get("pass", 0)
        rest = [
            f"{n} {status}"
            for status, n in sorted(self.statuses.items())
            if status not in ("success", "pass")
        ]
        return f"{self.n_nodes} dbt nodes: " + ", ".join([f"{ok} ok", *rest])


def dbt_target_path() -> Path:
    """dbt's target folder: ``$CSRWH_DBT_TARGET_PATH``, else ``<project>/target``."""
    return Path(os.environ.get("CSRWH_DBT_TARGET_PATH") or PROJECT_ROOT / "target")


@contextmanager
def dbt_target_subfolder(name: str) -> Iterator[Path]:
    """dbt's artefacts (manifest, partial parse) in ``<target>/<name>`` while the block runs,
    apart from the DuckDB builds'; ``$CSRWH_DBT_TARGET_PATH`` is put back as it was after."""
    saved = os.environ.get("CSRWH_DBT_TARGET_PATH")
    folder = dbt_target_path() / name
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(folder)
    try:
        yield folder
    finally:
        if saved is None:
            os.environ.pop("CSRWH_DBT_TARGET_PATH", None)
        else:
            os.environ["CSRWH_DBT_TARGET_PATH"] = saved


class _NodeLog:
    """dbt's console lines (info and above), timestamped, one per line, into a file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._fh = path.open("a", encoding="utf-8", buffering=1)  # line-buffered: tail -f works

    def __call__(self, msg: Any) -> None:
        line = _console_line(msg)
        if line is None:
            return
        with self._lock:
            if not self._fh.closed:
                self._fh.write(line + "\n")

    def close(self) -> None:
        with self._lock:
            self._fh.close()


def _console_line(msg: Any) -> str | None:
    """``HH:MM:SS  <msg>`` for an event dbt's console shows at info level, else None."""
    info = msg.info
    if info.level not in ("info", "warn", "error") or info.name in NOT_LOGGED:
        return None
    return f"{time.strftime('%H:%M:%S')}  {info.msg}".rstrip()


def _console_lines(msg: Any) -> None:
    """dbt's console at info level (``csrwh build -v``): its lines on stdout."""
    line = _console_line(msg)
    if line is not None:
        print(line, flush=True)


class _ConsoleErrors:
    """dbt's error lines on the console, as dbt prints them with ``--quiet`` (``HH:MM:SS  msg``),
    except DuckDB's out-of-memory errors: their text ends in DuckDB's advice to ``SET threads``
    and ``memory_limit``, which a build's user cannot do; the build prints one line naming
    CSRWH_MEMORY_LIMIT and CSRWH_THREADS for them instead (:func:`csrwh.errors.out_of_memory_line`).
    """

    def __call__(self, msg: Any) -> None:
        info = msg.info
        if info.level != "error" or is_out_of_memory(str(info.msg)):
            return
        print(f"{time.strftime('%H:%M:%S')}  {info.msg}".rstrip(), flush=True)


class _ParseWatch:
    """Notes whether dbt parsed the whole project and when parsing ended."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.full_parse_reason: str | None = None
        self.parse_seconds: float | None = None

    def __call__(self, msg: Any) -> None:
        name = msg.info.name
        if name == "UnableToPartialParse":
            self.full_parse_reason = str(msg.data.reason)
        elif name == "FoundStats" and self.parse_seconds is None:
            self.parse_seconds = time.perf_counter() - self.started


def _guarded(callback: Callable[[Any], None]) -> Callable[[Any], None]:
    """A callback whose errors never break the run (interrupts still propagate)."""

    def call(msg: Any) -> None:
        try:
            callback(msg)
        except Exception:  # noqa: BLE001, S110 - progress display only
            pass

    return call


def default_temp_dir(database: Path) -> Path:
    """Where DuckDB spills for ``database`` unless told otherwise: ``<database>.build/tmp``."""
    database = Path(database)
    return database.with_name(database.name + ".build") / "tmp"


def dbt_file_log_level() -> str:
    """The level of dbt's own log (``<target>/logs/dbt.log``): ``info`` (a line per node and its
    errors), ``debug`` (every SQL statement, connection and cache event) with ``CSRWH_DEBUG=1``.
    Writing the debug lines was 8 % of the dbt threads' samples in a profile (py-spy) of a
    one-record rebuild of the real corpora."""
    return "debug" if os.environ.get("CSRWH_DEBUG") else "info"


def _dbt_arguments(args: list[str], database: Path, temp_dir: Path | None) -> list[str]:
    """dbt's command line for ``args`` on ``database`` (and the environment its profile reads:
    ``profiles/profiles.yml``). dbt's console is off: the caller shows its events."""
    os.environ["DO_NOT_TRACK"] = "1"
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    os.environ["CSRWH_DBT_PATH"] = str(database)
    temp = Path(temp_dir) if temp_dir is not None else default_temp_dir(database)
    temp.mkdir(parents=True, exist_ok=True)
    settings = duckdb_settings(temp)
    os.environ["CSRWH_DBT_MEMORY_LIMIT"] = settings["memory_limit"]
    os.environ["CSRWH_DBT_THREADS"] = settings["threads"]
    os.environ["CSRWH_DBT_TEMP_DIR"] = settings["temp_directory"]
    os.environ["CSRWH_DBT_ZSTD_MIN_STRING_LENGTH"] = settings["zstd_min_string_length"]
    # CSRWH_DBT_TARGET_PATH lets concurrent builds (e.g. parallel tests) keep apart artefacts.
    target = dbt_target_path()
    return [
        "--log-path",
        str(target / "logs"),
        "--log-level-file",
        dbt_file_log_level(),
        "--log-level",
        "none",
        *args,
        "--project-dir",
        str(PROJECT_ROOT),
        "--profiles-dir",
        str(PROJECT_ROOT / "profiles"),
        "--target-path",
        str(target),
    ]


class _Listeners:
    """The callbacks of one dbt run: node log, console (errors only when ``quiet``), the
    caller's ``on_event`` and the parse facts (:class:`_ParseWatch`)."""

    def __init__(
        self, quiet: bool, log_file: Path | None, on_event: Callable[[Any], None] | None
    ) -> None:
        self.node_log = _NodeLog(log_file) if log_file is not None else None
        self.watch = _ParseWatch()
        console = _ConsoleErrors() if quiet else _console_lines
        callbacks = [self.node_log, console, on_event, self.watch]
        self.callbacks = [_guarded(c) for c in callbacks if c is not None]

    def __call__(self, event: Any) -> None:
        for callback in self.callbacks:
            callback(event)

    def close(self) -> None:
        if self.node_log is not None:
            self.node_log.close()


def child_command(dbt_args: list[str], events_fd: int) -> list[str]:
    """The child process's command line (:mod:`csrwh.pipeline.dbt_child`)."""
    return [
        sys.executable,
        "-m",
        "csrwh.pipeline.dbt_child",
        "--events-fd",
        str(events_fd),
        *dbt_args,
    ]


def run_dbt(
    args: list[str],
    database: Path,
    quiet: bool = False,
    *,
    log_file: Path | None = None,
    on_event: Callable[[Any], None] | None = None,
    temp_dir: Path | None = None,
) -> DbtOutcome:
    """Run `dbt <args>` on `database` in a child process (module doc); never raises for failed
    nodes. Raises :class:`CsrwhError` when dbt could not run or its process died.

    ``quiet`` leaves only dbt's error lines on the console; ``log_file`` gets dbt's console
    lines (appended); ``on_event`` is called with each event dbt's console would show and each
    finished node (a :class:`~csrwh.pipeline.dbt_child.DbtEvent`); ``temp_dir`` is DuckDB's
    spill folder (default :func:`default_temp_dir`)."""
    temp = Path(temp_dir) if temp_dir is not None else default_temp_dir(database)

    def in_child(dbt_args: list[str], listeners: _Listeners) -> dict[str, Any]:
        return _run_child(dbt_args, listeners, f"dbt {args[0]}", temp, log_file)

    outcome = _invoke(args, database, temp, quiet, log_file, on_event, in_child)
    release_database(database)
    return outcome


def run_dbt_in_process(
    args: list[str],
    database: Path,
    quiet: bool = False,
    *,
    log_file: Path | None = None,
    on_event: Callable[[Any], None] | None = None,
    temp_dir: Path | None = None,
) -> DbtOutcome:
    """:func:`run_dbt` in this process (``dbtRunner(callbacks=...).invoke``): for the Spark
    build, whose dbt-spark ``session`` method uses this process's SparkSession."""
    from dbt.cli.main import dbtRunner

    def in_process(dbt_args: list[str], listeners: _Listeners) -> dict[str, Any]:
        def listen(msg: Any) -> None:
            record = event_dict(msg)
            if record is not None:
                listeners(DbtEvent(record))

        return result_dict(dbtRunner(callbacks=[listen]).invoke(dbt_args))

    return _invoke(args, database, temp_dir, quiet, log_file, on_event, in_process)


def _invoke(
    args: list[str],
    database: Path,
    temp_dir: Path | None,
    quiet: bool,
    log_file: Path | None,
    on_event: Callable[[Any], None] | None,
    invoke: Callable[[list[str], _Listeners], dict[str, Any]],
) -> DbtOutcome:
    """dbt's arguments for ``args``, ``invoke`` run with the listeners, and its report read:
    what :func:`run_dbt` and :func:`run_dbt_in_process` share."""
    dbt_args = _dbt_arguments(args, database, temp_dir)
    listeners = _Listeners(quiet, log_file, on_event)
    try:
        started = listeners.watch.started = time.perf_counter()
        report = invoke(dbt_args, listeners)
    finally:
        listeners.close()
    seconds = time.perf_counter() - started
    _could_not_run(report, args, log_file)
    return _outcome(report, seconds, log_file, listeners.watch, temp_dir)


def child_environment() -> dict[str, str]:
    """The child's environment: this one, with OpenBLAS on one thread whatever the user set.
    The models' BLAS calls are small (dbt runs two nodes at once on two cores), and with any
    other value the leaderboard's pin (:mod:`csrwh.measures.ranking`) would scan the loaded
    libraries from a dbt worker thread, which can deadlock against another thread's import of
    a C extension (dl_iterate_phdr's lock against the GIL)."""
    return {**os.environ, "OPENBLAS_NUM_THREADS": "1"}


def _run_child(
    dbt_args: list[str], listen: Callable[[Any], None], what: str, temp: Path, log_file: Path | None
) -> dict[str, Any]:
    """Run the child, hand each event to ``listen`` as it comes, return dbt's result. The child
    has its own process group: a Ctrl-C at the terminal reaches this process only, which
    ends the child (:func:`_end`) before the interrupt goes on."""
    read, write = os.pipe()
    try:
        child = subprocess.Popen(
            child_command(dbt_args, write),
            pass_fds=(write,),
            stdin=subprocess.DEVNULL,
            process_group=0,
            env=child_environment(),
        )
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    report: dict[str, Any] | None = None
    ended = False
    try:
        with os.fdopen(read, "r", encoding="utf-8", errors="replace") as events:
            for line in events:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if RESULT_KEY in record:
                    report = record[RESULT_KEY]
                else:
                    listen(DbtEvent(record))
        code = child.wait()
        ended = True
    finally:
        if not ended:
            _end(child, temp)
    if code < 0:
        _remove_spill_files(temp)
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = " (the system's out-of-memory killer sends it)" if -code == signal.SIGKILL else ""
        raise CsrwhError(
            f"{what} was killed by {name}{why}",
            hint=f"dbt's per-node lines: {log_file}" if log_file else "run the build again",
        )
    if report is None:
        raise CsrwhError(
            f"{what} ended with exit code {code} before reporting its result",
            hint=f"see dbt's log in {dbt_target_path() / 'logs'}",
        )
    return report


def _end(child: subprocess.Popen, temp: Path) -> None:
    """Terminate the child's process group and wait for it (killed after 30 s), then remove
    DuckDB's spill files it left."""
    if child.poll() is None:
        try:
            os.killpg(child.pid, signal.SIGTERM)
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        except ProcessLookupError:
            child.wait()
    _remove_spill_files(temp)


def _remove_spill_files(temp: Path) -> None:
    """DuckDB's spill files (``duckdb_temp_*``) a killed child left in ``temp``."""
    for path in temp.glob("duckdb_temp*"):
        try:
            path.unlink()
        except OSError:
            pass


def _could_not_run(report: dict[str, Any], args: list[str], log_file: Path | None) -> None:
    if report.get("exception") is not None:
        raise CsrwhError(
            f"dbt {args[0]} could not run: {report['exception']}",
            hint=f"check the dbt project files (dbt_project.yml, models/) and {log_file or dbt_target_path() / 'logs' / 'dbt.log'}",
        )


def _outcome(
    report: dict[str, Any],
    seconds: float,
    log_file: Path | None,
    watch: _ParseWatch,
    temp_dir: Path | None = None,
) -> DbtOutcome:
    """The :class:`DbtOutcome` of dbt's result (:func:`~csrwh.pipeline.dbt_child.result_dict`);
    ``temp_dir`` is DuckDB's spill folder, named in a failure when the spill filled its disk."""
    outcome = DbtOutcome(
        success=bool(report.get("success")),
        seconds=seconds,
        log_file=log_file,
        full_parse_reason=watch.full_parse_reason,
        parse_seconds=watch.parse_seconds,
    )
    for node in report.get("results") or []:
        status, name = node["status"], node["unique_id"]
        if name.startswith("operation."):  # a project hook (on-run-start): not a node
            if status not in ("success", "pass"):
                outcome.failures.append(failure_line(name, SimpleNamespace(**node), temp_dir))
            continue
        outcome.n_nodes += 1
        outcome.statuses[status] += 1
        outcome.timings[name] = float(node.get("execution_time") or 0.0)
        compiled = node.get("compiled_code")
        if status in ("error", "fail", "runtime error"):
            outcome.failures.append(failure_line(name, SimpleNamespace(**node), temp_dir))
            if status == "fail" and compiled:
                outcome.failed_tests.append((name, compiled))
        elif status == "warn":
            outcome.warnings.append(f"{name}: {node.get('message', '')}")
            if node.get("test_name") == "open_vocabulary":
                vocabulary = str((node.get("test_kwargs") or {}).get("vocabulary", ""))
                outcome.open_vocabulary_warnings.append((name, vocabulary, compiled or ""))
    return outcome


def failure_line(name: str, node_result: Any, spill_dir: Path | None = None) -> str:
    """The build's line for a failed dbt node: ``<node>: <status> <dbt's message>``, or one line
    naming CSRWH_MEMORY_LIMIT and CSRWH_THREADS when DuckDB ran out of memory, one naming
    ``spill_dir`` and the room it had when the spill filled its disk, and one beginning
    :data:`~csrwh.errors.DISK_FULL_LINE` when a write found the disk full."""
    status = str(getattr(node_result, "status", ""))
    message = getattr(node_result, "message", "") or ""
    if is_out_of_memory(message):
        return out_of_memory_line(
            "dbt", name, message, spill_dir=str(spill_dir) if spill_dir else None
        )
    if is_no_space(message):
        return no_space_line("dbt", name, message)
    return f"{name}: {status} {message}".strip()


def release_database(database: Path) -> None:
    """Checkpoint ``database`` after dbt: its WAL folded into the file, which the build renames
    next (dbt's process has ended, so nothing else has it open)."""
    import duckdb

    if Path(database).exists():
        with duckdb.connect(str(database)) as con:
            con.execute("checkpoint")
