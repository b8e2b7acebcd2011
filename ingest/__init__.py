"""Ingest: land every file of every corpus losslessly in the warehouse's ``raw`` schema.

``run_ingest(data_dir, "warehouse/csr.duckdb")`` (or a connection; ``corpora=``,
``progress=``): unchanged files are skipped, changed and vanished ones replaced or removed in
one transaction, bad records go to ``raw.rejected_records`` and the rest of their file lands.
Details: docs/internals.md#ingest
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import duckdb
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ingest import registry
from ingest.errors import DISK_FULL_LINE, CsrwhError
from ingest.spec import CorpusSpec
from ingest.summary import CorpusStats, IngestSummary

__all__ = ["CorpusStats", "IngestSummary", "print_summary", "reject_lines", "run_ingest"]

NO_DATA_HINT = (
    "write synthetic corpora with `csrwh sample --out data/sample` (then ingest with "
    "--data-dir data/sample), or download the real ones with `csrwh fetch`"
)


def _select(corpora: Sequence[str] | None) -> list[CorpusSpec]:
    return registry.specs(list(corpora or ()))


def run_ingest(
    data_dir: Path | str | os.PathLike[str],
    warehouse: Path | str | os.PathLike[str] | duckdb.DuckDBPyConnection,
    corpora: list[str] | None = None,
    progress: bool = True,
) -> IngestSummary:
    """Ingest ``corpora`` (default: all five) from ``data_dir`` into ``warehouse``.

    ``warehouse`` is a DuckDB file path (parent folders are created; the file is opened
    and closed here) or an open connection (left open). ``progress`` shows a rich progress
    bar over the files being loaded; the summary table always goes to stderr.
    """
    # imported here: ingest.run pulls in pyarrow, which `import ingest` (e.g. for ingest.errors,
    # which csrwh.config reads) need not load
    from ingest.run import Ingestor, _disk_full

    console = Console(stderr=True)
    scope = _select(corpora)
    data_dir = Path(data_dir).expanduser().resolve()
    if not data_dir.is_dir():
        raise CsrwhError(f"data folder {data_dir} does not exist", hint=NO_DATA_HINT)
    present = [c for c in scope if (data_dir / c.folder).is_dir()]
    if not present:
        looked = ", ".join(f"{c.folder}/" for c in scope)
        raise CsrwhError(f"no corpus found in {data_dir} (looked for {looked})", hint=NO_DATA_HINT)
    for c in scope:
        if c not in present and not c.optional:
            console.print(
                f"[yellow]corpus {c.name} is missing[/yellow] (no folder {escape(str(data_dir / c.folder))}): "
                f"{escape(c.absent_hint)}"
            )

    owned = not isinstance(warehouse, duckdb.DuckDBPyConnection)
    if owned:
        path = Path(warehouse).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(path))
    else:
        con = warehouse
    failed = True
    try:
        ingestor = Ingestor(con, data_dir, scope, present, registry.raw_tables())
        bar = Progress(
            TextColumn("[bold]ingest[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=console,
            transient=True,
            disable=not progress,
        )
        with bar:
            task = bar.add_task("scanning", total=None)
            summary = ingestor.run(
                on_plan=lambda n: bar.update(task, total=n, description=""),
                on_file=lambda name: bar.update(task, description=escape(name)),
                on_progress=lambda n: bar.advance(task, n),
            )
        failed = False
    finally:
        if owned:
            try:
                con.close()  # checkpoints: can itself hit a full disk
            except duckdb.Error as exc:
                if not failed:  # never mask the error that ended the run
                    if _disk_full(exc):
                        raise CsrwhError(
                            f"{DISK_FULL_LINE} in the ingest phase, closing {path}: "
                            "No space left on device",
                            hint="free disk space on that drive, then run again",
                        ) from exc
                    raise
    print_summary(summary, console)
    return summary


def reject_lines(summary: IngestSummary) -> list[str]:
    """This run's rejects, one line each: file, line and reason of the first
    :data:`~ingest.summary.REJECTS_LISTED`, then how many more there are."""
    out = []
    for path, line, reason in summary.rejects:
        where = f"{path} line {line}" if line is not None else path
        out.append(f"{where}: {' '.join(str(reason).split())}")
    more = summary.records_rejected - len(summary.rejects)
    if more > 0:
        out.append(f"… and {more} more rejected record(s) (all in raw.rejected_records)")
    return out


def print_rejects(summary: IngestSummary, console: Console) -> None:
    """Each new reject's file, line and reason (the first 20, then a count), on ``console``."""
    lines = reject_lines(summary)
    if lines:
        console.print("[red]rejected records[/red] (file, line, reason):")
    for line in lines:
        console.print(f"  {escape(line)}", soft_wrap=True)


def print_summary(summary: IngestSummary, console: Console | None = None) -> None:
    """The end-of-run table (per corpus) and the files with rejects, on stderr."""
    console = console or Console(stderr=True)
    table = Table(
        title=f"ingest {summary.batch_id} ({summary.seconds:.2f} s)", title_justify="left"
    )
    for col in ("corpus", "loaded", "unchanged", "removed", "records", "rejects"):
        table.add_column(col, justify="left" if col == "corpus" else "right")
    for name, s in summary.per_corpus.items():
        if name in summary.missing_corpora:
            label = f"{name} [yellow](missing)[/yellow]"
        else:
            label = name
        table.add_row(
            label,
            str(s.files_loaded),
            str(s.files_unchanged),
            str(s.files_removed),
            str(s.records_loaded),
            f"[red]{s.records_rejected}[/red]" if s.records_rejected else "0",
        )
    table.add_row(
        "[bold]total[/bold]",
        str(summary.files_loaded),
        str(summary.files_unchanged),
        str(summary.files_removed),
        str(summary.records_loaded),
        str(summary.records_rejected),
    )
    console.print(table)
    if summary.rejected_files:
        console.print("[red]files with rejected records[/red] (see raw.rejected_records):")
        for path, n in sorted(summary.rejected_files.items()):
            console.print(f"  {escape(path)}: {n}")
        print_rejects(summary, console)
    earlier = summary.rejected_outstanding - summary.records_rejected
    if earlier > 0:
        console.print(
            f"[yellow]{earlier} rejected record(s) of unchanged files from earlier runs remain[/yellow] "
            "in raw.rejected_records"
        )
    if summary.ignored_files:
        console.print(
            f"[dim]{len(summary.ignored_files)} file(s) matched no declared pattern and were not landed "
            f"(e.g. {escape(summary.ignored_files[0])})[/dim]"
        )
