"""What the commands share: the stderr console, the --data-dir / --warehouse options, corpus
names through the corpus registry, and stdout for tables."""

from __future__ import annotations

import os
import sys

import typer
from rich.console import Console

os.environ.setdefault("DO_NOT_TRACK", "1")

console = Console(stderr=True)


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


def _stdout() -> Console:
    """Console for tables on stdout: the terminal's width, or wide enough not to wrap in a pipe."""
    return Console(width=None if sys.stdout.isatty() else 200)
