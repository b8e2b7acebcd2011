"""The `csrwh` command line: fetch, sample, ingest, build, sql, export."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from csrwh import config
from csrwh.errors import CsrwhError, ensure_port_free

os.environ.setdefault("DO_NOT_TRACK", "1")

app = typer.Typer(
    help="CSR Warehouse: land five conversational search & recommendation corpora in DuckDB, "
    "model them with dbt, gate them with expectations and query them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)


def _print_version(value: bool) -> None:
    if value:
        from csrwh import __version__

        print(f"csrwh {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """CSR Warehouse: land five conversational search & recommendation corpora in DuckDB, model them
    with dbt, gate them with expectations and query them."""


def _complete_corpus(incomplete: str) -> list[str]:
    """Shell completion of corpus names: every name and alias of the corpus registry."""
    from ingest import registry

    return [n for n in registry.all_names() if n.startswith(incomplete.lower())]


def _corpus_ids(names: list[str] | None) -> list[str]:
    """Corpus names (ids, folders, titles or aliases) as the corpus registry's ids; a name the
    registry does not know is passed on unchanged for the command to report."""
    from ingest import registry

    out = []
    for name in names or ():
        try:
            out.append(registry.lookup(name).id)
        except KeyError:
            out.append(name)
    return out


DataDirOpt = typer.Option(
    None, "--data-dir", envvar="CSRWH_DATA_DIR", help="Corpora folder (default data/raw)."
)
WarehouseOpt = typer.Option(
    None,
    "--warehouse",
    envvar="CSRWH_WAREHOUSE",
    help="Warehouse file (default warehouse/csr.duckdb).",
)


@app.command()
def sample(
    out: Path = typer.Option(..., "--out", help="Folder to write the synthetic corpora into."),
    scale: int = typer.Option(1, "--scale", min=1, help="Volume multiplier (for benchmarks)."),
    seed: int = typer.Option(0, "--seed", help="Random seed; same seed, same bytes."),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Write format-faithful synthetic files for all five corpora (upstream layouts)."""
    from csrwh.sample import generate

    counts = generate(out, scale=scale, seed=seed)
    for corpus, n in counts.items():
        console.print(f"  {corpus}: {n} files", markup=False)
    console.print(f"[green]Sample corpora written to[/green] {escape(str(out))}")


@app.command()
def fetch(
    corpora: list[str] | None = typer.Argument(
        None, help="Corpora to fetch (default: all).", autocompletion=_complete_corpus
    ),
    from_zip: Path | None = typer.Option(
        None, "--from-zip", help="ConvSearch: the main-part zip you downloaded by hand."
    ),
    force: bool = typer.Option(False, "--force", help="Download again even if present."),
    allow_suspect: bool = typer.Option(
        False,
        "--allow-suspect",
        help="Swap in what was fetched even when a file of it lands no record or it holds "
        "less than half the files or records of the folder it replaces.",
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Download corpora from their public upstreams into the data folder."""
    from csrwh.fetch import fetch as do_fetch

    do_fetch(
        corpora or [],
        config.resolve_data_dir(data_dir),
        from_zip=from_zip,
        force=force,
        allow_suspect=allow_suspect,
    )


@app.command()
def ingest(
    corpora: list[str] | None = typer.Argument(
        None, help="Corpora to ingest (default: all present).", autocompletion=_complete_corpus
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Exit non-zero (3) if any record is rejected."
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Land every file of every corpus losslessly in the `raw` schema of <warehouse>.ingested.

    A scratch copy of the published warehouse plus this ingest, to see what a build would land
    and reject; the published warehouse itself is only ever replaced by `csrwh build`.
    """
    config.check_env()
    from csrwh.building import ingest_only

    target = config.resolve_warehouse(warehouse)
    result = ingest_only(config.resolve_data_dir(data_dir), target, corpora=corpora or None)
    summary = result.summary
    if strict and summary.rejected_outstanding:
        raise CsrwhError(
            f"{summary.rejected_outstanding} rejected record(s) in raw.rejected_records (--strict)",
            hint=f"inspect them with: csrwh sql --warehouse {result.landed} "
            '"select corpus, source_path, line_number, error from raw.rejected_records"',
            exit_code=3,
        )
    console.print(
        f"Landed in {result.landed} (scratch copy; {target} is unchanged: `csrwh build` publishes)",
        markup=False,
    )


@app.command()
def build(
    corpora: list[str] | None = typer.Argument(
        None, help="Corpora to ingest (default: all present).", autocompletion=_complete_corpus
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Fail the build if any record is rejected."
    ),
    full_refresh: bool = typer.Option(
        False,
        "--full-refresh",
        help="Start from an empty database instead of the last published one.",
    ),
    full: bool = typer.Option(
        False,
        "--full",
        help="Run every dbt node and every expectation suite, not only what the changed input "
        "files and project files affect.",
    ),
    allow_rejects: bool = typer.Option(
        False,
        "--allow-rejects",
        help="Publish even with rejected records the published warehouse did not have.",
    ),
    drop_corpus: list[str] | None = typer.Option(
        None,
        "--drop-corpus",
        help="Publish without this corpus although the published warehouse has it "
        "(its folder is gone); repeatable.",
        metavar="NAME",
        autocompletion=_complete_corpus,
    ),
    allow_shrink: bool = typer.Option(
        False,
        "--allow-shrink",
        help="Publish even if a raw table or mart lost more than 10% of its rows.",
    ),
    wait: bool = typer.Option(
        False, "--wait", help="If another build of this warehouse runs, wait for it."
    ),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        "-v",
        help="Show dbt's per-node lines as they run (always in the log the summary names).",
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Ingest, run `dbt build` (models + tests), gate on the expectation suites, publish atomically.

    Refuses (exit 3) input that looks damaged against the published build unless accepted;
    exits 75 if another build of the warehouse is running (see --wait); 130/143 on SIGINT/SIGTERM.
    """
    config.check_env()  # bad CSRWH_MEMORY_LIMIT/CSRWH_THREADS: one line, even when up to date
    from csrwh.building.allocator import tune_for_build

    tune_for_build()  # before Arrow is imported or a thread started (csrwh/building/allocator.py)
    from csrwh.building import build as do_build

    target = config.resolve_warehouse(warehouse)
    from csrwh.building.gate.run import gate

    result = do_build(
        config.resolve_data_dir(data_dir),
        target,
        corpora=corpora or None,
        strict=strict,
        full_refresh=full_refresh,
        gates=[gate],
        allow_rejects=allow_rejects,
        drop_corpora=drop_corpus or (),
        allow_shrink=allow_shrink,
        wait=wait,
        verbose=verbose,
        full=full,
    )
    if result.up_to_date:
        console.print(f"{target} is up to date ({result.summary()})", markup=False)
        return
    for line in result.accepted:
        console.print(f"[yellow]accepted:[/yellow] {escape(line)}")
    console.print(
        f"[green]Published[/green] {escape(str(target))} (build {result.build_id}; "
        f"{escape(result.summary())})",
        soft_wrap=True,
    )
    console.print(
        f'Query it with: csrwh sql --warehouse {target} "select * from corpus_stats"',
        markup=False,
    )


@app.command()
def validate(
    suites: list[str] | None = typer.Argument(
        None, help="Suite names, 'raw', 'marts' or patterns like 'raw.cosrec__*' (default: all)."
    ),
    run_id: str | None = typer.Option(
        None, "--run-id", help="Run id in dq_results (default: validate-<UTC>)."
    ),
    docs: Path | None = typer.Option(
        None, "--docs", help="Data Docs folder (default: <warehouse>.data_docs/ beside it)."
    ),
    no_docs: bool = typer.Option(False, "--no-docs", help="Skip rendering Data Docs."),
    no_record: bool = typer.Option(
        False, "--no-record", help="Do not append to dq_results in <warehouse stem>.dq.duckdb."
    ),
    show_all: bool = typer.Option(False, "--all", help="List passing expectations too."),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Run the expectation suites (expectations/) against the warehouse, read-only; exit 1 on a
    critical failure. Results go to dq_results in <warehouse stem>.dq.duckdb beside it (the
    published warehouse is never written: only `csrwh build` replaces it)."""
    import time

    config.check_env()
    from csrwh.building.gate.run import print_summary, record_results, results_sidecar
    from csrwh.building.gate.run import validate as run_validation

    target = config.resolve_warehouse(warehouse)
    outcome = run_validation(
        target,
        run_id or time.strftime("validate-%Y%m%dT%H%M%SZ", time.gmtime()),
        suites=suites or None,
        data_docs_dir=None if no_docs else (docs or "beside"),
        record=False,
    )
    print_summary(outcome, console, show_passed=show_all)
    if not no_record:
        sidecar = results_sidecar(target)
        record_results(sidecar, outcome)
        console.print(f"Results recorded in {sidecar} (table dq_results)", markup=False)
    if not outcome.success:
        raise CsrwhError(
            f"{len(outcome.critical_failures)} critical expectation(s) failed",
            hint="see the table above"
            + (f" and {outcome.data_docs_index}" if outcome.data_docs_index else ""),
        )


@app.command()
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


@app.command()
def sql(
    query: str = typer.Argument(..., help="SQL to run against the warehouse (read-only)."),
    csv: Path | None = typer.Option(
        None, "--csv", help="Write the result to this CSV file ('-': standard output)."
    ),
    parquet: Path | None = typer.Option(
        None, "--parquet", help="Write the result to this Parquet file."
    ),
    max_rows: int = typer.Option(50, "--max-rows", help="Rows to print (the file gets all)."),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Run a query against the warehouse; print a table (plain CSV when piped) or write
    CSV/Parquet (never over the warehouse, its files, the data folder or a directory)."""
    from csrwh.reading.query import run_query

    run_query(
        config.resolve_warehouse(warehouse),
        query,
        csv=csv,
        parquet=parquet,
        max_rows=max_rows,
        data_dir=config.resolve_data_dir(data_dir),
    )


def _stdout() -> Console:
    """Console for tables on stdout: the terminal's width, or wide enough not to wrap in a pipe."""
    return Console(width=None if sys.stdout.isatty() else 200)


@app.command()
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


@app.command()
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


@app.command()
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
        False, "--trec", help="Also write CoSRec's qrels and topics as TREC files to <out>/trec."
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
            f"TREC qrels and topics: {escape(str(result.trec_files[0].parent))}", soft_wrap=True
        )


@app.command("eval")
def eval_run(
    run_file: Path = typer.Argument(
        ..., help="TREC run file: `topic Q0 doc rank score tag` per line."
    ),
    qrels: str = typer.Option(
        "all",
        "--qrels",
        help="Judgments: search, recommendation, or all (also broken down by kind).",
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
    """Evaluate a TREC run against CoSRec's relevance judgments (ir_measures; aggregate as
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
    report = E.evaluate_file(target, run_file, qrels, measure or E.DEFAULT_MEASURES)
    saved = None
    if save is not None:
        sidecar = E.sidecar_path(target)
        E.save_report(report, save, sidecar, replace=replace)
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


@app.command()
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


def _exit(code: int) -> None:
    """Exit; after Great Expectations + duckdb-engine were loaded, skip interpreter teardown,
    where nanobind prints pages of harmless 'leaked instance' warnings from those bindings."""
    if "great_expectations" in sys.modules:
        _release_semaphores()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def _release_semaphores() -> None:
    """Run multiprocessing's exit finalizers, which os._exit skips: they unlink the named
    semaphores of dbt's locks, which the resource tracker would otherwise report as
    "2 leaked semaphore objects" after every build."""
    if "multiprocessing.util" not in sys.modules:
        return
    from multiprocessing import util

    run = getattr(util, "_run_finalizers", None)  # what multiprocessing's atexit hook calls
    if run is not None:
        run(0)  # it reports and skips a finalizer that raises


def _click_exceptions() -> dict[str, tuple[type, ...]]:
    """click's exception classes: typer vendors its own copy (typer._click) besides click."""
    found: dict[str, list[type]] = {
        "Exit": [typer.Exit],
        "Abort": [typer.Abort],
        "ClickException": [],
    }
    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            module = __import__(name, fromlist=["ClickException"])
        except ImportError:
            continue
        for kind, classes in found.items():
            cls = getattr(module, kind, None)
            if cls is not None:
                classes.append(cls)
    return {kind: tuple(classes) for kind, classes in found.items()}


def _os_error(exc: OSError) -> CsrwhError | None:
    """Known OS conditions as one line with a hint that fixes them."""
    import errno
    import socket
    import urllib.error

    where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
    if exc.errno == errno.ENOSPC:
        return CsrwhError(
            f"no space left on device{where}", hint="free some disk space, or write elsewhere"
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return CsrwhError(
            f"cannot write{where}: {exc.strerror}",
            hint="choose a writable place (--warehouse, --out, CSRWH_DATA_DIR) or fix its permissions",
        )
    if exc.errno == errno.ENOTDIR:
        return CsrwhError(
            f"cannot write{where}: a part of that path is a file, not a folder",
            hint="choose a path whose folders are folders (--out, --warehouse, --csv, …)",
        )
    if exc.errno == errno.EISDIR:
        return CsrwhError(
            f"cannot write{where}: it is a directory, not a file",
            hint="name a file, not a folder",
        )
    if exc.errno == errno.EEXIST:
        return CsrwhError(
            f"cannot create{where}: something is already there (a file where a folder is needed?)",
            hint="choose a new path (--out, --warehouse, …)",
        )
    if isinstance(exc, (urllib.error.URLError, socket.gaierror, ConnectionError, TimeoutError)):
        reason = getattr(exc, "reason", exc)
        return CsrwhError(
            f"network unreachable: {reason}",
            hint="check the connection (or proxy) and retry; CSRWH_MIRROR=http://host/ fetches from a mirror",
        )
    return None


def main() -> None:
    """Entry point: run the app, turning known errors into one line plus a hint."""
    try:
        app(prog_name="csrwh", standalone_mode=False)
        _exit(0)
    except CsrwhError as exc:
        _report(exc)
        _exit(exc.exit_code)
    except KeyboardInterrupt:
        console.print("[red]error:[/red] interrupted")
        _exit(130)
    except Exception as exc:  # click usage errors and the like
        kinds = _click_exceptions()
        if isinstance(exc, kinds["Exit"]):
            _exit(getattr(exc, "exit_code", 0))
        if isinstance(exc, kinds["ClickException"]):  # usage errors print as usage
            exc.show()
            _exit(exc.exit_code)
        if isinstance(exc, kinds["Abort"]):
            _exit(130)
        if isinstance(exc, OSError) and not os.environ.get("CSRWH_DEBUG"):
            known = _os_error(exc)
            if known is not None:
                _report(known)
                _exit(known.exit_code)
        console.print(f"[red]error:[/red] {type(exc).__name__}: {exc}")
        console.print("[yellow]hint:[/yellow] re-run with CSRWH_DEBUG=1 for the full traceback")
        if os.environ.get("CSRWH_DEBUG"):
            raise
        _exit(1)


def _report(exc: CsrwhError) -> None:
    from rich.markup import escape

    console.print(f"[red]error:[/red] {escape(exc.message)}", soft_wrap=True)
    if exc.hint:
        console.print(f"[yellow]hint:[/yellow] {escape(exc.hint)}", soft_wrap=True)


if __name__ == "__main__":  # pragma: no cover
    main()
