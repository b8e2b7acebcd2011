"""The commands that make the warehouse: sample, fetch, ingest, build, validate."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from csrwh import config
from csrwh.cli.options import (
    CorporaArg,
    DataDirOpt,
    FetchCorporaArg,
    WarehouseOpt,
    _complete_corpus,
    console,
)
from csrwh.errors import CsrwhError


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


def fetch(
    corpora: list[str] | None = FetchCorporaArg,
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


def ingest(
    corpora: list[str] | None = CorporaArg,
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
    from csrwh.pipeline import ingest_only

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


def build(
    corpora: list[str] | None = CorporaArg,
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
    verify: bool = typer.Option(
        False,
        "--verify",
        help="First read every block of the published warehouse, so DuckDB checks it against "
        "its stored checksum; a damaged file stops with the command that rebuilds it.",
    ),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        "-v",
        help="Show dbt's per-node lines as they run (always in the log the summary names).",
    ),
    engine: str = typer.Option(
        "duckdb",
        "--engine",
        # Rich reads `[spark]` as a style tag and drops it: the backslash keeps it in the help
        help="duckdb (the warehouse file) or spark: the same models on a local Spark session, "
        "every mart as Parquet in <warehouse>.spark/<mart>/ (pip install 'csrwh\\[spark]').",
    ),
    spark_remote: str | None = typer.Option(
        None,
        "--spark-remote",
        help="--engine spark on a cluster through its Spark Connect server (sc://HOST:PORT); "
        "needs --stage.",
        metavar="URL",
    ),
    spark_master: str | None = typer.Option(
        None,
        "--spark-master",
        help="--engine spark with the driver here against this master (default "
        "$CSRWH_SPARK_MASTER, else local[2]); spark://… needs --stage.",
        metavar="URL",
    ),
    stage: str | None = typer.Option(
        None,
        "--stage",
        help="A folder every Spark worker and this machine share (path or file: URI): the "
        "cluster build's raw layer and tables.",
        metavar="FOLDER",
    ),
    data_dir: Path | None = DataDirOpt,
    warehouse: Path | None = WarehouseOpt,
) -> None:
    """Ingest, run `dbt build` (models + tests), gate on the expectation suites, publish atomically.

    Refuses (exit 3) input that looks damaged against the published build unless accepted;
    exits 75 if another build of the warehouse is running (see --wait); 130/143 on SIGINT/SIGTERM.
    """
    config.check_env()  # bad CSRWH_MEMORY_LIMIT/CSRWH_THREADS: one line, even when up to date
    if engine not in ("duckdb", "spark"):
        raise CsrwhError(
            f"--engine {engine}: unknown engine", hint="use duckdb or spark", exit_code=2
        )
    if engine != "spark" and (spark_remote or spark_master or stage):
        raise CsrwhError(
            "--spark-remote, --spark-master and --stage apply to --engine spark",
            hint="add --engine spark",
            exit_code=2,
        )
    if engine == "spark":
        _build_spark(
            corpora,
            strict,
            allow_rejects,
            wait,
            verbose,
            data_dir,
            warehouse,
            refused=[
                name
                for name, on in (
                    ("--full-refresh", full_refresh),
                    ("--full", full),
                    ("--drop-corpus", bool(drop_corpus)),
                    ("--allow-shrink", allow_shrink),
                )
                if on
            ],
            cluster={"remote": spark_remote, "master": spark_master, "stage": stage},
        )
        return
    from csrwh.pipeline import build as do_build

    target = config.resolve_warehouse(warehouse)
    if verify and target.exists() and not full_refresh:
        from csrwh.pipeline.verify import verify_blocks

        n_tables = verify_blocks(target)
        console.print(
            f"verified {target}: every block of its {n_tables} tables matches its checksum",
            markup=False,
        )
    from csrwh.gate.run import gate

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


def _build_spark(
    corpora: list[str] | None,
    strict: bool,
    allow_rejects: bool,
    wait: bool,
    verbose: bool,
    data_dir: Path | None,
    warehouse: Path | None,
    refused: list[str],
    cluster: dict[str, str | None],
) -> None:
    """`csrwh build --engine spark` (csrwh/pipeline/spark.py)."""
    if refused:
        raise CsrwhError(
            f"{', '.join(refused)} only appl{'ies' if len(refused) == 1 else 'y'} to the "
            "DuckDB build (--engine duckdb)",
            hint="a Spark build always builds every model from the data folder",
            exit_code=2,
        )
    from csrwh.pipeline.spark import spark_build

    result = spark_build(
        config.resolve_data_dir(data_dir),
        config.resolve_warehouse(warehouse),
        corpora=corpora or None,
        strict=strict,
        allow_rejects=allow_rejects,
        wait=wait,
        verbose=verbose,
        **cluster,
    )
    console.print(
        f"[green]Published[/green] {escape(str(result.out))}/<mart>/ (Parquet; Spark build "
        f"{result.build_id}; {escape(result.summary())})",
        soft_wrap=True,
    )
    from csrwh.pipeline.spark import duckdb_pass_models

    by_duckdb = set(duckdb_pass_models())
    for name, why in sorted(result.excluded.items()):
        if name in by_duckdb:
            line = f"  built by DuckDB over the Spark tables: {name}: {why}"
        else:
            line = f"  excluded on Spark: {name} (and what is built from it): {why}"
        console.print(line, markup=False)
    console.print(
        f"Compare with the DuckDB build: python -m csrwh.pipeline.spark_parity --warehouse "
        f"{config.resolve_warehouse(warehouse)}",
        markup=False,
    )


def _refuse_protected_docs(docs: Path, warehouse: Path, data_dir: Path | None) -> None:
    """Refuse (one line) a --docs folder holding a file that is, by device and inode, a file of
    the warehouse or of the data folder (a hard link): Data Docs would be written through it."""
    from csrwh.reading.query import protected_file, protected_inodes

    if not docs.is_dir():
        return
    data = config.resolve_data_dir(data_dir)
    protected = protected_inodes(warehouse, data)
    for path in sorted(docs.rglob("*")):
        same = None if path.is_symlink() else protected_file(path, warehouse, data, protected)
        if same is not None:
            raise CsrwhError(
                f"--docs {docs}: {path} in it is the same file (a hard link) as {same}; "
                "refusing to write Data Docs there",
                hint=f"remove {path}, or choose another --docs folder",
                exit_code=2,
            )


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
    from csrwh.gate.run import print_summary, record_results, results_sidecar
    from csrwh.gate.run import validate as run_validation

    target = config.resolve_warehouse(warehouse)
    if docs is not None and not no_docs:
        _refuse_protected_docs(docs, target, data_dir)
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
