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
    if strict and summary.records_rejected:
        raise CsrwhError(
            f"{summary.records_rejected} record(s) rejected (--strict)",
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
    """Ingest, run `dbt build` (models + tests) and publish the warehouse atomically."""
    from csrwh.build import build as do_build

    target = config.resolve_warehouse(warehouse)
    result = do_build(
        config.resolve_data_dir(data_dir),
        target,
        corpora=corpora or None,
        strict=strict,
        full_refresh=full_refresh,
    )
    timings = ", ".join(f"{k} {v:.1f}s" for k, v in result.seconds.items())
    if result.up_to_date:
        console.print(f"{target} is up to date ({timings})")
        return
    console.print(f"[green]Published[/green] {target} (build {result.build_id}; {timings})")
    console.print(f'Query it with: csrwh sql --warehouse {target} "select * from corpus_stats"')


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


def main() -> None:
    """Entry point: run the app, turning known errors into one line plus a hint."""
    try:
        app(standalone_mode=False)
    except CsrwhError as exc:
        console.print(f"[red]error:[/red] {exc.message}")
        if exc.hint:
            console.print(f"[yellow]hint:[/yellow] {exc.hint}")
        sys.exit(exc.exit_code)
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
