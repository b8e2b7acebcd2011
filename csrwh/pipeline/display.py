"""What a build shows while it runs (package doc, "Output") and where dbt's per-node lines go."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Self

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from csrwh.pipeline.dbt_runner import dbt_target_path

console = Console(stderr=True)

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
    """What a build shows while it runs (package doc, "Output").

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
        """dbt's event callback (a :class:`~csrwh.pipeline.dbt_child.DbtEvent`, as dbt's
        messages: ``info.name``, ``data``): count started and finished nodes."""
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
