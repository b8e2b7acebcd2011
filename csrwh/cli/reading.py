"""The commands that read it: dashboard, sql, tables, describe, export, eval, report."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.markup import escape

from csrwh import config
from csrwh.cli.options import (
    DataDirOpt,
    WarehouseOpt,
    _complete_corpus,
    _corpus_ids,
    _stdout,
    console,
)
from csrwh.errors import CsrwhError, ensure_port_free


def dashboard(
    port: int = typer.Option(8501, "--port", min=1, max=65535, help="Port on 127.0.0.1."),
    open_browser: bool = typer.Option(False, "--open/--no-open", help="Open a browser tab."),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Start the local web dashboard (Streamlit) over the published warehouse, read-only."""
    from csrwh.reading.dashboard import serve

    ensure_port_free(port)
    serve(config.resolve_warehouse(warehouse), port=port, open_browser=open_browser)


def sql(
    query: str = typer.Argument(..., help="SQL to run against the warehouse (read-only)."),
    csv: Path | None = typer.Option(
        None,
        "--csv",
        help="Write the result to this CSV file ('-': standard output); "
        "BLOB columns are written as lowercase hex.",
    ),
    parquet: Path | None = typer.Option(
        None, "--parquet", help="Write the result to this Parquet file."
    ),
    max_rows: int = typer.Option(50, "--max-rows", help="Rows to print (the file gets all)."),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Run a query against the warehouse; print a table (plain CSV when piped) or write
    CSV/Parquet (never over the warehouse, its files, the data folder or a directory). In CSV,
    BLOB columns (e.g. raw.rejected_records.raw_bytes) are lowercase hex."""
    from csrwh.reading.query import run_query

    run_query(
        config.resolve_warehouse(warehouse),
        query,
        csv=csv,
        parquet=parquet,
        max_rows=max_rows,
        data_dir=config.resolve_data_dir(data_dir),
    )


def tables(
    show_all: bool = typer.Option(
        False, "--all", help="Also intermediate, staging, seed, raw and bookkeeping tables."
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """List the marts with row counts and one-line descriptions (--all: every table)."""
    from csrwh.reading import catalog
    from csrwh.reading.query import connect_read_only

    with connect_read_only(config.resolve_warehouse(warehouse)) as con:
        found = catalog.list_tables(con, include_all=show_all)
    _stdout().print(catalog.tables_view(found))
    if not show_all:
        console.print("Columns of a table: csrwh describe TABLE; every table: csrwh tables --all")


def describe(
    table: str = typer.Argument(
        ..., help="Table name: a mart (turns) or schema.table (staging.stg_…)."
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Show a table's description and its columns with types and descriptions."""
    from csrwh.reading import catalog
    from csrwh.reading.query import connect_read_only

    with connect_read_only(config.resolve_warehouse(warehouse)) as con:
        info, cols = catalog.describe(con, table)
    _stdout().print(catalog.describe_view(info, cols))


def export(
    out: Path = typer.Option(Path("exports"), "--out", help="Folder to export into."),
    output_format: str = typer.Option(
        "parquet",
        "--format",
        help="Conversation records as parquet, jsonl or hf (datasets save_to_disk).",
    ),
    corpus: list[str] | None = typer.Option(
        None,
        "--corpus",
        help="Export only this corpus (repeat for several; default: all).",
        autocompletion=_complete_corpus,
    ),
    trec: bool = typer.Option(
        False,
        "--trec",
        help="Also write the exported corpora's relevance judgments and topics as TREC files to "
        "<out>/trec, a folder per corpus.",
    ),
    trec_dir: Path | None = typer.Option(
        None,
        "--trec-dir",
        help="Write the TREC files here instead (implies --trec): a new or empty folder, or an "
        "earlier export's, as --out.",
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Export the conversation records (one per conversation, chat messages) and every mart
    (Parquet, in <out>/marts/) with a dataset card README.md (Hugging Face conventions)."""
    from csrwh.reading.export import export as do_export

    result = do_export(
        config.resolve_warehouse(warehouse),
        out,
        output_format=output_format,
        corpora=_corpus_ids(corpus),
        trec_dir=trec_dir if trec_dir is not None else (out / "trec" if trec else None),
    )
    from rich.markup import escape

    console.print(
        f"[green]Exported[/green] {result.n_conversations} conversations ({output_format}) and "
        f"{len(result.marts)} marts to {escape(str(out))}; dataset card {escape(str(result.card))}",
        soft_wrap=True,
    )
    if result.trec_files:
        console.print(
            f"TREC qrels and topics: {escape(str(result.trec_files[0].parent.parent))}",
            soft_wrap=True,
        )


def eval_run(
    run_file: Path = typer.Argument(
        ..., help="TREC run file: `topic Q0 doc rank score tag` per line."
    ),
    corpus: str | None = typer.Option(
        None,
        "--corpus",
        help="Whose judgments: a corpus name, or custom:<name> for your own corpus (default: the "
        "one corpus with judgments).",
        autocompletion=_complete_corpus,
    ),
    qrels: str = typer.Option(
        "all",
        "--qrels",
        help="One of the corpus' judgment kinds (CoSRec: search, recommendation), or all (also "
        "broken down by kind).",
    ),
    measure: list[str] | None = typer.Option(
        None, "--measure", help="ir_measures name, repeatable (default: nDCG@10, P@5, AP, RR)."
    ),
    per_topic: bool = typer.Option(False, "--per-topic", help="Also give every topic's values."),
    output_format: str = typer.Option("table", "--format", help="table, json or csv (to stdout)."),
    save: str | None = typer.Option(
        None,
        "--save",
        help="Store the evaluation as NAME in <warehouse stem>.evals.duckdb (dashboard Leaderboard).",
    ),
    replace: bool = typer.Option(
        False, "--replace", help="With --save: overwrite the evaluation saved as NAME."
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Evaluate a TREC run against one corpus' relevance judgments (ir_measures; aggregate as
    trec_eval: the mean over the judged topics the run answers)."""
    import json

    from csrwh.reading import evaluate as E

    if output_format not in E.FORMATS:
        raise CsrwhError(
            f"unknown --format {output_format!r}",
            hint=f"use one of {', '.join(E.FORMATS)}",
            exit_code=2,
        )
    if replace and save is None:
        raise CsrwhError(
            "--replace needs --save NAME", hint="csrwh eval RUN --save NAME --replace", exit_code=2
        )
    target = config.resolve_warehouse(warehouse)
    report = E.evaluate_file(target, run_file, qrels, measure or E.DEFAULT_MEASURES, corpus=corpus)
    saved = None
    if save is not None:
        from csrwh.reading import eval_sidecar

        sidecar = eval_sidecar.sidecar_path(target)
        eval_sidecar.save_report(report, save, sidecar, replace=replace)
        saved = f"saved as {save.strip()!r} in {sidecar}"
    if output_format == "json":
        print(
            json.dumps(
                E.report_dict(report, per_topic), indent=2, ensure_ascii=False, allow_nan=False
            )
        )
    elif output_format == "csv":
        sys.stdout.write(E.report_csv(report, per_topic))
        console.print(E.AGGREGATION + ".", soft_wrap=True)
    else:
        E.print_table(report, per_topic)
    if saved:
        from rich.markup import escape

        console.print(f"[green]{escape(saved)}[/green]", soft_wrap=True)


def report(
    out: Path = typer.Option(
        Path("reports"), "--out", help="Folder for statistics.html and tables/."
    ),
    screenshot: bool = typer.Option(
        False, "--screenshot", help="Also render the page in headless Chromium (statistics.png)."
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Execute the statistics notebooks against the warehouse: statistics.html + tables/*.csv."""
    from csrwh.reading.report import build_report, check_render

    page = build_report(config.resolve_warehouse(warehouse), out)
    console.print(f"[green]Report written to[/green] {escape(str(page))}")
    if screenshot:
        check = check_render(page, page.with_suffix(".png"))
        if not check.ok:
            raise CsrwhError(
                f"report did not render cleanly: {check.status} {check.console}",
                hint="install Debian's chromium: apt-get install -y chromium",
            )
        console.print(f"Screenshot: {page.with_suffix('.png')}", markup=False)
