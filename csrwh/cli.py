"""The `csrwh` command line: fetch, sample, ingest, build, sql, export."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

from csrwh import config
from csrwh.errors import CsrwhError

os.environ.setdefault("DO_NOT_TRACK", "1")

app = typer.Typer(
    help="CSR Warehouse: land five conversational search & recommendation corpora in DuckDB, "
    "model them with dbt, gate them with expectations and query them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)

DataDirOpt = typer.Option(
    None, "--data-dir", envvar="CSRWH_DATA_DIR", help="Corpora folder (default data/raw)."
)
WarehouseOpt = typer.Option(
    None, "--warehouse", envvar="CSRWH_WAREHOUSE", help="Warehouse file (default warehouse/csr.duckdb)."
)


@app.command()
def sample(
    out: Path = typer.Option(..., "--out", help="Folder to write the synthetic corpora into."),
    scale: int = typer.Option(1, "--scale", min=1, help="Volume multiplier (for benchmarks)."),
    seed: int = typer.Option(0, "--seed", help="Random seed; same seed, same bytes."),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Write format-faithful synthetic files for all five corpora (upstream layouts)."""
    from csrwh.sample import generate

    counts = generate(out, scale=scale, seed=seed)
    for corpus, n in counts.items():
        console.print(f"  {corpus}: {n} files")
    console.print(f"[green]Sample corpora written to[/green] {out}")


@app.command()
def fetch(
    corpora: Optional[List[str]] = typer.Argument(None, help="Corpora to fetch (default: all)."),
    from_zip: Optional[Path] = typer.Option(
        None, "--from-zip", help="ConvSearch: the main-part zip you downloaded by hand."
    ),
    force: bool = typer.Option(False, "--force", help="Download again even if present."),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Download corpora from their public upstreams into the data folder."""
    from csrwh.fetch import fetch as do_fetch

    do_fetch(corpora or [], config.resolve_data_dir(data_dir), from_zip=from_zip, force=force)


@app.command()
def ingest(
    corpora: Optional[List[str]] = typer.Argument(None, help="Corpora to ingest (default: all present)."),
    strict: bool = typer.Option(False, "--strict", help="Exit non-zero if any record is rejected."),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Land every file of every corpus losslessly in the warehouse's `raw` schema."""
    from ingest import run_ingest

    summary = run_ingest(
        config.resolve_data_dir(data_dir),
        config.resolve_warehouse(warehouse),
        corpora=corpora or None,
    )
    if strict and summary.rejected_outstanding:
        raise CsrwhError(
            f"{summary.rejected_outstanding} rejected record(s) in raw.rejected_records (--strict)",
            hint="inspect them with: csrwh sql \"select * from raw.rejected_records\"",
            exit_code=3,
        )


@app.command()
def build(
    corpora: Optional[List[str]] = typer.Argument(None, help="Corpora to ingest (default: all present)."),
    strict: bool = typer.Option(False, "--strict", help="Fail the build if any record is rejected."),
    full_refresh: bool = typer.Option(
        False, "--full-refresh", help="Start from an empty database instead of the last published one."
    ),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Ingest, run `dbt build` (models + tests), gate on the expectation suites, publish atomically."""
    from csrwh.build import build as do_build

    target = config.resolve_warehouse(warehouse)
    from csrwh.validate import gate

    result = do_build(
        config.resolve_data_dir(data_dir),
        target,
        corpora=corpora or None,
        strict=strict,
        full_refresh=full_refresh,
        gates=[gate],
    )
    timings = ", ".join(f"{k} {v:.1f}s" for k, v in result.seconds.items())
    if result.up_to_date:
        console.print(f"{target} is up to date ({timings})")
        return
    console.print(f"[green]Published[/green] {target} (build {result.build_id}; {timings})")
    console.print(f'Query it with: csrwh sql --warehouse {target} "select * from corpus_stats"')


@app.command()
def validate(
    suites: Optional[List[str]] = typer.Argument(
        None, help="Suite names, 'raw', 'marts' or patterns like 'raw.cosrec__*' (default: all)."
    ),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="Run id in dq_results (default: validate-<UTC>)."),
    docs: Path = typer.Option(Path("reports/data_docs"), "--docs", help="Data Docs folder."),
    no_docs: bool = typer.Option(False, "--no-docs", help="Skip rendering Data Docs."),
    no_record: bool = typer.Option(False, "--no-record", help="Do not append to main.dq_results."),
    show_all: bool = typer.Option(False, "--all", help="List passing expectations too."),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Run the expectation suites (expectations/) against the warehouse; exit 1 on a critical failure."""
    import time

    from csrwh.validate import print_summary
    from csrwh.validate import validate as run_validation

    outcome = run_validation(
        config.resolve_warehouse(warehouse),
        run_id or time.strftime("validate-%Y%m%dT%H%M%SZ", time.gmtime()),
        suites=suites or None,
        data_docs_dir=None if no_docs else docs,
        record=not no_record,
    )
    print_summary(outcome, console, show_passed=show_all)
    if not outcome.success:
        raise CsrwhError(
            f"{len(outcome.critical_failures)} critical expectation(s) failed",
            hint="see the table above and reports/data_docs/index.html",
        )


@app.command()
def dashboard(
    port: int = typer.Option(8501, "--port", help="Port on 127.0.0.1."),
    open_browser: bool = typer.Option(False, "--open/--no-open", help="Open a browser tab."),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Start the local web dashboard (Streamlit) over the published warehouse, read-only."""
    from csrwh.dashboard import serve

    serve(config.resolve_warehouse(warehouse), port=port, open_browser=open_browser)


@app.command()
def sql(
    query: str = typer.Argument(..., help="SQL to run against the warehouse (read-only)."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Write the result to this CSV file."),
    parquet: Optional[Path] = typer.Option(None, "--parquet", help="Write the result to this Parquet file."),
    max_rows: int = typer.Option(50, "--max-rows", help="Rows to print (the file gets all)."),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Run a query against the warehouse; print a table or write CSV/Parquet."""
    from csrwh.query import run_query

    run_query(config.resolve_warehouse(warehouse), query, csv=csv, parquet=parquet, max_rows=max_rows)


@app.command()
def export(
    out: Path = typer.Option(Path("exports"), "--out", help="Folder for the Parquet files."),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Write every mart to Parquet (one file per mart)."""
    from csrwh.query import export_marts

    written = export_marts(config.resolve_warehouse(warehouse), out)
    console.print(f"[green]Wrote {len(written)} marts[/green] to {out}")


@app.command()
def report(
    out: Path = typer.Option(Path("reports"), "--out", help="Folder for statistics.html and tables/."),
    screenshot: bool = typer.Option(
        False, "--screenshot", help="Also render the page in headless Chromium (statistics.png)."
    ),
    data_dir: Optional[Path] = DataDirOpt,
    warehouse: Optional[Path] = WarehouseOpt,
) -> None:
    """Execute the statistics notebooks against the warehouse: statistics.html + tables/*.csv."""
    from csrwh.report import build_report, check_render

    page = build_report(config.resolve_warehouse(warehouse), out)
    console.print(f"[green]Report written to[/green] {page}")
    if screenshot:
        check = check_render(page, page.with_suffix(".png"))
        if not check.ok:
            raise CsrwhError(
                f"report did not render cleanly: {check.status} {check.console}",
                hint="install Debian's chromium: apt-get install -y chromium",
            )
        console.print(f"Screenshot: {page.with_suffix('.png')}")


def _exit(code: int) -> None:
    """Exit; after Great Expectations + duckdb-engine were loaded, skip interpreter teardown,
    where nanobind prints pages of harmless 'leaked instance' warnings from those bindings."""
    if "great_expectations" in sys.modules:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def main() -> None:
    """Entry point: run the app, turning known errors into one line plus a hint."""
    try:
        app(standalone_mode=False)
        _exit(0)
    except CsrwhError as exc:
        console.print(f"[red]error:[/red] {exc.message}")
        if exc.hint:
            console.print(f"[yellow]hint:[/yellow] {exc.hint}")
        _exit(exc.exit_code)
    except Exception as exc:  # click usage errors and the like
        import click

        if isinstance(exc, click.exceptions.Exit):
            sys.exit(exc.exit_code)
        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        if isinstance(exc, click.exceptions.Abort):
            sys.exit(130)
        console.print(f"[red]error:[/red] {type(exc).__name__}: {exc}")
        console.print("[yellow]hint:[/yellow] re-run with CSRWH_DEBUG=1 for the full traceback")
        if os.environ.get("CSRWH_DEBUG"):
            raise
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
