"""Run dbt in-process (dbtRunner) against a given warehouse file.

A stable per-warehouse profile path keeps dbt's partial parse between builds; DuckDB's memory,
threads and spill folder come from :func:`csrwh.config.duckdb_settings`. The models whose working
memory is Python's run one at a time, freed heap is handed back after each, and dbt's long-lived
objects are kept out of the garbage collector's reach while the nodes run.
Details: docs/internals.md#csrwh-pipeline-dbt_runner
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from csrwh.config import PROJECT_ROOT, duckdb_settings
from csrwh.errors import CsrwhError, is_out_of_memory, out_of_memory_line
from csrwh.heap import FrozenHeap, frozen_heap


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


#: events dbt's own console filter leaves out at info level
_NOT_LOGGED = frozenset({"CacheAction", "CacheDumpGraph"})


class _NodeLog:
    """dbt's console lines (info and above), timestamped, one per line, into a file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._fh = path.open("a", encoding="utf-8", buffering=1)  # line-buffered: tail -f works

    def __call__(self, msg: Any) -> None:
        info = msg.info
        if info.level not in ("info", "warn", "error") or info.name in _NOT_LOGGED:
            return
        line = f"{time.strftime('%H:%M:%S')}  {info.msg}".rstrip()
        with self._lock:
            if not self._fh.closed:
                self._fh.write(line + "\n")

    def close(self) -> None:
        with self._lock:
            self._fh.close()


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


class _FreezeParsedManifest:
    """Freezes the heap (:mod:`csrwh.heap`) once dbt has parsed the project (its
    "Found N models, ..." event): the manifest lives until dbt returns, and the collections
    while the nodes run need not visit it."""

    def __init__(self, heap: FrozenHeap) -> None:
        self.heap = heap

    def __call__(self, msg: Any) -> None:
        if msg.info.name == "FoundStats":
            self.heap.freeze()


def return_freed_memory() -> None:
    """Collect garbage and hand the C heap's free pages back to the system (glibc's
    ``malloc_trim``; elsewhere only the collection)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (:func:`csrwh.libc.glibc`), or None."""
    from csrwh.libc import glibc

    libc = glibc()
    return None if libc is None else libc.malloc_trim


_HEAVY_MODEL_LOCK = threading.Lock()


def is_heavy_model(node: Any) -> bool:
    """A model whose working memory is Python's: a Python model, or a SQL model whose config
    has ``meta: {one_at_a_time: true}`` (it calls the build's Python functions on every row)."""
    if getattr(node, "resource_type", None) != "model":
        return False
    if getattr(node, "language", None) == "python":
        return True
    meta = getattr(getattr(node, "config", None), "meta", None) or {}
    return bool(meta.get("one_at_a_time"))


def heavy_models_one_at_a_time() -> None:
    """Make dbt run at most one heavy model (:func:`is_heavy_model`) at a time in this process:
    its runner's compile and execute under one lock (the wait comes before dbt's compile timing,
    so a node's timings in ``run_results.json`` are the time it held the lock), and the freed
    heap handed back before the next one starts. dbt's queue also holds a heavy model back
    while another is in progress (:func:`_heavy_models_wait_in_the_queue`), so a waiting one
    does not take a dbt thread from the SQL nodes. Idempotent; other nodes are not affected."""
    from dbt.task.base import BaseRunner

    _heavy_models_wait_in_the_queue()

    run = BaseRunner.compile_and_execute
    if getattr(run, "csrwh_one_at_a_time", False):
        return

    def one_at_a_time(self: Any, manifest: Any, ctx: Any) -> Any:
        if not is_heavy_model(self.node):
            return run(self, manifest, ctx)
        with _HEAVY_MODEL_LOCK:
            try:
                return run(self, manifest, ctx)
            finally:
                return_freed_memory()

    one_at_a_time.csrwh_one_at_a_time = True  # type: ignore[attr-defined]
    BaseRunner.compile_and_execute = one_at_a_time  # type: ignore[method-assign]


def _heavy_models_wait_in_the_queue() -> None:
    """dbt's graph queue hands out a heavy model only when no other heavy model is in progress.

    dbt's main thread takes every ready node off the queue (``GraphQueue.get``) and gives it to
    its thread pool at once; a heavy model given out while another runs would hold a pool
    thread on the lock of :func:`heavy_models_one_at_a_time` (real corpora: ~30 s of one of the
    two threads while ``text_diversity`` ran, with ``turns`` and its marts ready). Here such a
    node goes back into the queue's ready set, unstarted, and is queued again when the heavy
    model in progress is done (``GraphQueue.mark_done``); meanwhile the queue gives out the SQL
    nodes. Idempotent."""
    from dbt.graph.queue import GraphQueue

    get, mark_done = GraphQueue.get, GraphQueue.mark_done
    if getattr(get, "csrwh_one_at_a_time", False):
        return

    def heavy_in_progress(queue: Any, but: str) -> bool:
        return any(
            uid != but and is_heavy_model(queue.manifest.expect(uid)) for uid in queue.in_progress
        )

    def get_light_first(self: Any, block: bool = True, timeout: float | None = None) -> Any:
        while True:
            node = get(self, block=block, timeout=timeout)
            if not is_heavy_model(node):
                return node
            with self.lock:
                if not heavy_in_progress(self, node.unique_id):
                    return node
                # back to queued, not in progress; its put is counted again when it returns
                self.in_progress.discard(node.unique_id)
                self.queued.add(node.unique_id)
                self.__dict__.setdefault("csrwh_waiting", []).append(node.unique_id)
                self.inner.task_done()

    def mark_done_then_requeue(self: Any, node_id: str) -> None:
        mark_done(self, node_id)
        with self.lock:
            waiting = self.__dict__.get("csrwh_waiting") or []
            if not waiting or heavy_in_progress(self, ""):
                return
            for uid in waiting:
                self.inner.put((self._scores[uid], uid))
            waiting.clear()

    get_light_first.csrwh_one_at_a_time = True  # type: ignore[attr-defined]
    get_light_first.__wrapped__ = get  # type: ignore[attr-defined]
    mark_done_then_requeue.__wrapped__ = mark_done  # type: ignore[attr-defined]
    GraphQueue.get = get_light_first  # type: ignore[method-assign]
    GraphQueue.mark_done = mark_done_then_requeue  # type: ignore[method-assign]


def _guarded(callback: Callable[[Any], None]) -> Callable[[Any], None]:
    """A callback whose errors never break dbt (interrupts still propagate)."""

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


def run_dbt(
    args: list[str],
    database: Path,
    quiet: bool = False,
    *,
    log_file: Path | None = None,
    on_event: Callable[[Any], None] | None = None,
    temp_dir: Path | None = None,
) -> DbtOutcome:
    """Invoke `dbt <args>` in-process on `database`; never raises for failed nodes.

    ``quiet`` leaves only dbt's error lines on the console; ``log_file`` gets dbt's console
    lines (appended); ``on_event`` is called with every dbt event message; ``temp_dir`` is
    DuckDB's spill folder (default :func:`default_temp_dir`)."""
    os.environ["DO_NOT_TRACK"] = "1"
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    os.environ["CSRWH_DBT_PATH"] = str(database)
    temp = Path(temp_dir) if temp_dir is not None else default_temp_dir(database)
    temp.mkdir(parents=True, exist_ok=True)
    settings = duckdb_settings(temp)
    os.environ["CSRWH_DBT_MEMORY_LIMIT"] = settings["memory_limit"]
    os.environ["CSRWH_DBT_THREADS"] = settings["threads"]
    os.environ["CSRWH_DBT_TEMP_DIR"] = settings["temp_directory"]
    from dbt.cli.main import dbtRunner

    heavy_models_one_at_a_time()
    full_args = [
        *args,
        "--project-dir",
        str(PROJECT_ROOT),
        "--profiles-dir",
        str(PROJECT_ROOT / "profiles"),
    ]
    # CSRWH_DBT_TARGET_PATH lets concurrent builds (e.g. parallel tests) keep apart artefacts.
    target = dbt_target_path()
    full_args += ["--target-path", str(target)]
    cli_flags = ["--log-path", str(target / "logs"), "--log-level-file", dbt_file_log_level()]
    console_errors = None
    if quiet:  # dbt's console off; its error lines through _ConsoleErrors
        cli_flags += ["--log-level", "none"]
        console_errors = _ConsoleErrors()
    node_log = _NodeLog(log_file) if log_file is not None else None
    watch = _ParseWatch()
    try:
        # what is alive now (dbt's modules) and after parsing (the manifest) lives until dbt
        # returns: frozen for the run (csrwh.heap)
        with frozen_heap() as heap:
            freeze = _FreezeParsedManifest(heap)
            callbacks = [
                c for c in (node_log, console_errors, on_event, watch, freeze) if c is not None
            ]
            started = watch.started = time.perf_counter()
            result = dbtRunner(callbacks=[_guarded(c) for c in callbacks]).invoke(
                [*cli_flags, *full_args]
            )
    finally:
        if node_log is not None:
            node_log.close()
    seconds = time.perf_counter() - started
    if result.exception is not None and result.result is None:
        raise CsrwhError(
            f"dbt {args[0]} could not run: {result.exception}",
            hint=f"check the dbt project files (dbt_project.yml, models/) and {log_file or target / 'logs' / 'dbt.log'}",
        )
    release_database(database)
    outcome = DbtOutcome(
        success=bool(result.success),
        seconds=seconds,
        log_file=log_file,
        full_parse_reason=watch.full_parse_reason,
        parse_seconds=watch.parse_seconds,
    )
    results = getattr(result.result, "results", None) or []
    for node_result in results:
        outcome.n_nodes += 1
        status = str(getattr(node_result, "status", ""))
        outcome.statuses[status] += 1
        node = getattr(node_result, "node", None)
        name = getattr(node, "unique_id", "?")
        outcome.timings[name] = float(getattr(node_result, "execution_time", 0.0) or 0.0)
        if status in ("error", "fail", "runtime error"):
            outcome.failures.append(failure_line(name, node_result))
            compiled = getattr(node, "compiled_code", None)
            if status == "fail" and compiled:
                outcome.failed_tests.append((name, compiled))
        elif status == "warn":
            outcome.warnings.append(f"{name}: {getattr(node_result, 'message', '')}")
            metadata = getattr(node, "test_metadata", None)
            if metadata is not None and getattr(metadata, "name", "") == "open_vocabulary":
                vocabulary = str((getattr(metadata, "kwargs", None) or {}).get("vocabulary", ""))
                compiled = getattr(node, "compiled_code", None) or ""
                outcome.open_vocabulary_warnings.append((name, vocabulary, compiled))
    return outcome


def failure_line(name: str, node_result: Any) -> str:
    """The build's line for a failed dbt node: ``<node>: <status> <dbt's message>``, or one line
    naming CSRWH_MEMORY_LIMIT and CSRWH_THREADS when DuckDB ran out of memory."""
    status = str(getattr(node_result, "status", ""))
    message = getattr(node_result, "message", "") or ""
    if is_out_of_memory(message):
        return out_of_memory_line("dbt", name, message)
    return f"{name}: {status} {message}".strip()


def release_database(database: Path) -> None:
    """Close the DuckDB database dbt-duckdb keeps open between invocations, and checkpoint it.

    dbt-duckdb caches its environment (and so an open DuckDB instance) at class level for the
    life of the process. The orchestrator renames the database file after dbt, so the
    instance must be closed and its WAL folded into the file first.
    """
    import duckdb

    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # pragma: no cover - adapter layout changed
        DuckDBConnectionManager = None
    if DuckDBConnectionManager is not None:
        with DuckDBConnectionManager._LOCK:
            env = DuckDBConnectionManager._ENV
            if env is not None:
                env.close()
                DuckDBConnectionManager._ENV = None
    return_freed_memory()
    if Path(database).exists():
        with duckdb.connect(str(database)) as con:
            con.execute("checkpoint")
