"""The report runner: execute the notebooks headless with nbclient, write ``statistics.html``
(through :mod:`csrwh.reading.report.page`) and let the notebooks write ``tables/*.csv``; ``main`` is
``python -m csrwh.reading.report``."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError
from csrwh.reading.report.page import _ANSI, _export_body, _page
from csrwh.reading.report.render import check_render
from csrwh.reading.report.settings import (
    CELL_TIMEOUT_S,
    ENV_GENERATED_AT,
    ENV_PROFILE,
    ENV_TABLES,
    ENV_WAREHOUSE,
    LEGACY_TABLES,
    MANIFEST_NAME,
    NOTEBOOK_DIR,
    NOTEBOOKS,
    REPORT_MARKER,
    REPORT_NAME,
    TABLES_DIR,
)


def build_report(
    warehouse: Path,
    out_dir: Path = Path("reports"),
    notebooks: Sequence[Path] | None = None,
    progress: bool = True,
    timings: dict[str, Any] | None = None,
) -> Path:
    """Execute the report notebooks against ``warehouse``; write the HTML and the CSV tables.

    Args:
        warehouse: a built warehouse file (opened read-only by the notebooks).
        out_dir: where ``statistics.html`` and ``tables/`` go (created). What an earlier
            report wrote there (its manifest, ``.csrwh-report.json``) is replaced, so no stale
            table survives; nothing else in the folder is touched, and a file of the user's
            where the report would write stops it before anything is replaced.
        notebooks: jupytext ``.py`` notebooks to run, in order (default: :data:`NOTEBOOKS`
            in ``notebooks/``).
        progress: print which notebook and section runs (stderr).
        timings: if given, filled with where the time went (seconds, wall clock): ``read``
            (jupytext), ``kernel_start``, ``cells`` (one ``(notebook, cell index, section,
            seconds)`` per code cell), ``kernel_stop``, ``export`` (notebook -> HTML),
            ``write`` (page) and ``total``; ``figures`` lists ``(alt text, seconds)`` per
            figure the notebooks rendered (layout, drawing and PNG encoding, measured in the
            kernel by :func:`show_figure`). ``benchmarks/report.py`` prints them.

    Returns:
        The path of the HTML report.

    Raises:
        CsrwhError: the warehouse is missing, or a notebook cell failed (the message names
            the notebook and the cell's error).
    """
    import jupytext
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    started = time.perf_counter()
    warehouse = Path(warehouse).expanduser().resolve()
    if not warehouse.is_file():
        raise CsrwhError(
            f"warehouse {warehouse} does not exist",
            hint="build it first: make demo (sample data) or make build (real corpora)",
        )
    out_dir = Path(out_dir).expanduser().resolve()
    tables = out_dir / TABLES_DIR
    owned = _earlier_outputs(out_dir)
    _ensure_out_dir(out_dir)
    # the notebooks write into a staging folder; only after they all ran are the tables moved
    # into tables/, replacing what an earlier report wrote (its manifest) and nothing else
    staging = Path(tempfile.mkdtemp(prefix=".csrwh-report-", dir=out_dir))
    paths = [Path(p) for p in notebooks] if notebooks else [NOTEBOOK_DIR / n for n in NOTEBOOKS]
    generated_at = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    env = {
        ENV_WAREHOUSE: str(warehouse),
        ENV_TABLES: str(staging),
        ENV_GENERATED_AT: generated_at,
        "MPLBACKEND": "Agg",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "DO_NOT_TRACK": "1",
    }
    spent: dict[str, Any] = {
        "read": 0.0,
        "kernel_start": 0.0,
        "cells": [],
        "kernel_stop": 0.0,
        "export": 0.0,
        "write": 0.0,
        "figures": [],
    }
    profile = None
    if timings is not None:
        handle, name = tempfile.mkstemp(prefix="csrwh-report-figures-", suffix=".tsv")
        os.close(handle)
        profile = Path(name)
        env[ENV_PROFILE] = str(profile)
    say = _printer(progress)
    bodies: list[str] = []
    toc: list[tuple[int, str, str]] = []
    try:
        with _environ(env):
            for path in paths:
                t0 = time.perf_counter()
                say(f"report: running notebook {path.name}")
                nb = jupytext.read(path)
                for index, cell in enumerate(nb.cells):
                    cell["id"] = (
                        f"{path.stem}-{index}"  # jupytext draws random ids; the page must not vary
                    )
                nb.metadata["kernelspec"] = {
                    "name": "python3",
                    "display_name": "Python 3",
                    "language": "python",
                }
                sections = _section_titles(nb)
                clock = _CellClock(path.name, sections, say, time.perf_counter())
                spent["read"] += clock.started - t0
                client = NotebookClient(
                    nb,
                    kernel_name="python3",
                    timeout=CELL_TIMEOUT_S,
                    startup_timeout=120,
                    resources={"metadata": {"path": str(path.parent)}},
                    on_notebook_start=clock.on_notebook_start,
                    on_cell_start=clock.on_cell_start,
                    on_cell_executed=clock.on_cell_executed,
                    extra_arguments=["--IPKernelApp.log_level=ERROR"],
                    # the notebook closed its read-only connection: no need to wait for a graceful exit
                    shutdown_kernel="immediate",
                )
                try:
                    client.execute()
                except CellExecutionError as exc:
                    first = _ANSI.sub("", str(exc)).strip().splitlines()  # IPython colours
                    raise CsrwhError(
                        f"notebook {path.name} failed: {first[-1] if first else exc}",
                        hint="run it interactively (jupytext --to notebook) or re-run with CSRWH_DEBUG=1",
                    ) from exc
                executed = time.perf_counter()
                spent["kernel_start"] += clock.ready - clock.started
                spent["kernel_stop"] += executed - clock.last_end
                spent["cells"].extend(clock.cells)
                _strip_stderr(nb, say)
                body, headings = _export_body(nb)
                spent["export"] += time.perf_counter() - executed
                bodies.append(body)
                toc.extend(headings)
                say(f"report:   {path.name} done in {time.perf_counter() - t0:.1f}s")
        t_write = time.perf_counter()
        report = out_dir / REPORT_NAME
        written = _publish_tables(staging, tables, owned)
        _replace_text(report, _page(bodies, toc))
        _write_manifest(out_dir, [REPORT_NAME, *written])
        spent["write"] = time.perf_counter() - t_write
        if profile is not None:
            spent["figures"] = _read_figure_profile(profile)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if profile is not None:
            profile.unlink(missing_ok=True)
    spent["total"] = time.perf_counter() - started
    if timings is not None:
        timings.update(spent)
    n_tables = len(written)
    say(f"report: wrote {report} and {n_tables} tables in {spent['total']:.1f}s")
    return report


def _ensure_out_dir(out_dir: Path) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise CsrwhError(
            f"report folder {out_dir} is a file",
            hint="give --out a folder (new or an earlier report's)",
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CsrwhError(
            f"cannot create report folder {out_dir}: {exc.strerror or exc}",
            hint="give --out a folder you can write",
        ) from None


def _is_report_page(path: Path) -> bool:
    """An earlier ``statistics.html`` written by ``csrwh report`` (its footer says so)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return REPORT_MARKER in fh.read()
    except OSError:
        return False


def _earlier_outputs(out_dir: Path) -> set[str]:
    """What an earlier report wrote in ``out_dir`` (paths relative to it), from its manifest
    (:data:`MANIFEST_NAME`). Refuses a ``statistics.html`` there that no report wrote. A page
    of a report older than the manifest owns itself only: its tables are replaced by name
    (:func:`_publish_tables`), never removed."""
    manifest = out_dir / MANIFEST_NAME
    owned: set[str] = set()
    if manifest.is_file():
        try:
            listed = json.loads(manifest.read_text(encoding="utf-8")).get("files", [])
        except (OSError, ValueError, AttributeError) as exc:
            raise CsrwhError(
                f"report manifest {manifest} is unreadable ({exc})",
                hint="remove it if the folder holds no files of yours, or choose another --out",
            ) from None
        owned = {str(p) for p in listed if _inside(str(p))}
    page = out_dir / REPORT_NAME
    if page.exists() and REPORT_NAME not in owned:
        if not _is_report_page(page):
            raise CsrwhError(
                f"{page} exists and was not written by csrwh report; not overwriting it",
                hint="move that file away or choose another --out folder",
            )
        owned.add(REPORT_NAME)
        owned.add(LEGACY_TABLES)
    return owned


def _inside(relative: str) -> bool:
    """A manifest entry that stays inside the report folder (no absolute path, no ``..``)."""
    parts = Path(relative).parts
    return bool(parts) and not Path(relative).is_absolute() and ".." not in parts


def _publish_tables(staging: Path, tables: Path, owned: set[str]) -> list[str]:
    """Move the staged CSVs into ``tables/``; remove the tables an earlier report wrote that
    this one did not. A file in ``tables/`` that no report wrote is never touched; one with the
    name of a new table makes the report stop before anything is replaced. Returns the
    written paths relative to the report folder."""
    new = sorted(p.name for p in staging.glob("*.csv"))
    names = [f"{TABLES_DIR}/{name}" for name in new]
    legacy = LEGACY_TABLES in owned
    clashes = [
        tables / name
        for name, rel in zip(new, names)
        if (tables / name).exists() and rel not in owned and not legacy
    ]
    if clashes:
        raise CsrwhError(
            f"{clashes[0]} exists and was not written by csrwh report; not overwriting it",
            hint="move that file away or choose another --out folder",
        )
    if tables.exists() and not tables.is_dir():
        raise CsrwhError(
            f"{tables} is a file, not the report's tables folder",
            hint="move that file away or choose another --out folder",
        )
    tables.mkdir(exist_ok=True)
    for rel in sorted(owned - set(names) - {REPORT_NAME, LEGACY_TABLES}):
        stale = tables.parent / rel
        if stale.is_file() and not stale.is_symlink():
            stale.unlink()
    for name in new:
        os.replace(staging / name, tables / name)
    return names


def _replace_text(path: Path, text: str) -> None:
    """Write ``path`` as a new file renamed over the old one, never through it: an earlier
    file there that is a hard link to another file (an input, the warehouse) leaves that one
    untouched, and a full disk leaves the earlier file whole."""
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _write_manifest(out_dir: Path, files: Sequence[str]) -> None:
    """Record what this report wrote, so the next run replaces exactly those files."""
    text = json.dumps({"written_by": "csrwh report", "files": sorted(files)}, indent=1) + "\n"
    _replace_text(out_dir / MANIFEST_NAME, text)


class _CellClock:
    """nbclient hooks: progress by section, and how long the kernel took to start and each
    code cell to run (from its start hook to its execute_reply)."""

    def __init__(self, notebook: str, sections: Mapping[int, str], say, started: float) -> None:
        self.notebook, self.sections, self.say = notebook, sections, say
        self.started = self.ready = self.last_end = started
        self.seen: set[str] = set()
        self.cells: list[tuple[str, int, str, float]] = []
        self._begin = started

    def on_notebook_start(self, **_: Any) -> None:
        self.ready = self.last_end = time.perf_counter()

    def on_cell_start(self, cell: Any, cell_index: int, **_: Any) -> None:
        self._begin = time.perf_counter()
        title = self.sections.get(cell_index)
        if title and title not in self.seen:
            self.seen.add(title)
            self.say(f"report:   section {title}")

    def on_cell_executed(self, cell: Any, cell_index: int, **_: Any) -> None:
        self.last_end = time.perf_counter()
        section = self.sections.get(cell_index, "")
        self.cells.append((self.notebook, cell_index, section, self.last_end - self._begin))


def _read_figure_profile(path: Path) -> list[tuple[str, float]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        seconds, _, alt = line.partition("\t")
        out.append((alt, float(seconds)))
    return out


def _printer(enabled: bool):
    def say(message: str) -> None:
        if enabled:
            print(message, file=sys.stderr, flush=True)

    return say


@contextlib.contextmanager
def _environ(values: Mapping[str, str]) -> Iterator[None]:
    """Set environment variables for the kernel (it inherits ours) and restore them after."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*$", re.MULTILINE)


def _section_titles(nb: Any) -> dict[int, str]:
    """Cell index -> the latest level-2 heading above it (for progress messages)."""
    out: dict[int, str] = {}
    current = None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for level, text in _HEADING.findall(cell.source):
                if len(level) == 2 or current is None:
                    current = text
        elif current:
            out[index] = current
    return out


def _strip_stderr(nb: Any, say) -> None:
    """Drop stderr streams (warnings) from the page; echo them to the console instead."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                say("report:   (kernel stderr) " + output.get("text", "").strip()[:500])
                continue
            kept.append(output)
        cell["outputs"] = kept


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m csrwh.reading.report [--warehouse W] [--out DIR] [--screenshot]`` (until ``csrwh report`` is wired)."""
    import argparse

    from csrwh.config import resolve_warehouse

    parser = argparse.ArgumentParser(
        prog="python -m csrwh.reading.report", description=build_report.__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--warehouse",
        default=None,
        help="warehouse file (default $CSRWH_WAREHOUSE or warehouse/csr.duckdb)",
    )
    parser.add_argument("--out", default="reports", help="output folder (default reports/)")
    parser.add_argument(
        "--screenshot",
        action="store_true",
        help="also render in headless Chromium and save statistics.png",
    )
    args = parser.parse_args(argv)
    try:
        page = build_report(resolve_warehouse(args.warehouse), Path(args.out))
        if args.screenshot:
            check = check_render(page, page.with_suffix(".png"))
            print(f"report: render {check.status}; screenshot {check.screenshot}", file=sys.stderr)
            if not check.ok:
                return 1
    except CsrwhError as exc:
        print(
            f"error: {exc.message}" + (f"\nhint: {exc.hint}" if exc.hint else ""), file=sys.stderr
        )
        return exc.exit_code
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
