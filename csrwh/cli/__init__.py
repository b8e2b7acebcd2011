"""The `csrwh` command line: fetch, sample, ingest, build, sql, export.

The app and its entry point are here; the commands are in :mod:`csrwh.cli.building` (sample,
fetch, ingest, build, validate) and :mod:`csrwh.cli.reading` (dashboard, sql, tables, describe,
export, eval, report), registered below in the order ``csrwh --help`` lists them; how a run ends
(one-line errors, exit codes) is in :mod:`csrwh.cli.failures`.
"""

from __future__ import annotations

import os

import typer

from csrwh.cli import building, reading
from csrwh.cli.failures import _click_exceptions, _exit, _os_error, _report
from csrwh.cli.options import _corpus_ids, console
from csrwh.errors import CsrwhError

__all__ = ["_corpus_ids", "_os_error", "app", "console", "main"]

app = typer.Typer(
    help="CSR Warehouse: land five conversational search & recommendation corpora in DuckDB, "
    "model them with dbt, gate them with expectations and query them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from csrwh.version import __version__

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


app.command()(building.sample)
app.command()(building.fetch)
app.command()(building.ingest)
app.command()(building.build)
app.command()(building.validate)
app.command()(reading.dashboard)
app.command()(reading.sql)
app.command()(reading.tables)
app.command()(reading.describe)
app.command()(reading.export)
app.command("eval")(reading.eval_run)
app.command()(reading.report)


def main() -> None:
    """Entry point: run the app, turning known errors into one line plus a hint."""
    try:
        code = app(prog_name="csrwh", standalone_mode=False)
        if code == 130:  # typer returns, not raises, a Ctrl-C it caught (non-standalone mode)
            raise KeyboardInterrupt
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
