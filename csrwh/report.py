"""`csrwh report`: the statistics report, executed from notebooks against the marts.

The analysis lives in ``notebooks/`` as jupytext percent-format ``.py`` files (reviewable
in git, no outputs). :func:`build_report` executes them headless with nbclient in a
``python3`` kernel of this interpreter, passing the warehouse through ``CSRWH_WAREHOUSE``,
and writes

* ``<out_dir>/statistics.html`` -- one self-contained page: the notebooks' markdown and
  outputs (no code), written by :func:`_export_body`; tables as HTML, plots as base64 PNG,
  no script or style loaded from anywhere (it renders offline); a small inline
  script sets ``data-report-status="ok"`` on ``<body>`` once the page and its images loaded
  without a script error (a headless browser check reads it);
* ``<out_dir>/tables/*.csv`` -- the key tables, written by the notebooks through
  :func:`write_table` (stable row order from the SQL, fixed float formatting), so two runs
  on the same warehouse give byte-identical files. The HTML differs only in the
  ``<span id="generated-at">`` timestamp.

The second half of this module holds the small helpers the notebooks import (read-only
connection, table/figure display and fixed figure layouts, t and Wilson interval columns, CSV
writing, provenance header) and the headless Chromium render check used by the tests.
``build_report(timings=...)`` records where the time goes (``benchmarks/report.py``).
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import html
import io
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError

NOTEBOOK_DIR = PROJECT_ROOT / "notebooks"
# Executed in this order; their outputs make one page.
NOTEBOOKS: tuple[str, ...] = ("statistics.py",)
REPORT_NAME = "statistics.html"
TABLES_DIR = "tables"

ENV_WAREHOUSE = "CSRWH_WAREHOUSE"
ENV_TABLES = "CSRWH_REPORT_TABLES"
ENV_GENERATED_AT = "CSRWH_REPORT_GENERATED_AT"
ENV_PROFILE = (
    "CSRWH_REPORT_PROFILE"  # set by build_report(timings=...): show_figure logs its time there
)

FLOAT_DECIMALS = 6  # CSV float format: fixed, so runs are byte-identical
FIGURE_DPI = 100
CELL_TIMEOUT_S = 300
PACKAGES = (
    "csrwh",
    "duckdb",
    "polars",
    "pyarrow",
    "pandas",
    "numpy",
    "scipy",
    "matplotlib",
    "dbt-core",
    "dbt-duckdb",
    "jupytext",
    "nbclient",
    "nbformat",
    "ipykernel",
    "mistune",
)
CORPUS_NAMES = {
    "cosrec": "CoSRec",
    "crsarena": "CRSArena-Dial",
    "convsearch": "ConvSearch",
    "recllmsim": "RecLLMSim",
    "recoreact": "RecoReact",
}


# --------------------------------------------------------------------------- runner


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
        out_dir: where ``statistics.html`` and ``tables/`` go (created; ``tables/`` is
            emptied first so no stale table survives).
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
    if tables.exists():
        shutil.rmtree(tables)
    tables.mkdir(parents=True)
    paths = [Path(p) for p in notebooks] if notebooks else [NOTEBOOK_DIR / n for n in NOTEBOOKS]
    generated_at = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    env = {
        ENV_WAREHOUSE: str(warehouse),
        ENV_TABLES: str(tables),
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
                    first = str(exc).strip().splitlines()
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
        out_dir.mkdir(parents=True, exist_ok=True)
        report = out_dir / REPORT_NAME
        report.write_text(_page(bodies, toc), encoding="utf-8")
        spent["write"] = time.perf_counter() - t_write
        if profile is not None:
            spent["figures"] = _read_figure_profile(profile)
    finally:
        if profile is not None:
            profile.unlink(missing_ok=True)
    spent["total"] = time.perf_counter() - started
    if timings is not None:
        timings.update(spent)
    n_tables = len(list(tables.glob("*.csv")))
    say(f"report: wrote {report} and {n_tables} tables in {spent['total']:.1f}s")
    return report


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


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_TAG = re.compile(r"<[^>]+>")


def _text(value: Any) -> str:
    """A notebook string field (a string, or a list of lines once read from a file)."""
    return "".join(value) if isinstance(value, list) else str(value)


def _markdown_renderer(headings: list[tuple[int, str, str]]):
    """Markdown -> HTML (raw HTML passes through) whose headings carry ids: ``_slug`` of the
    heading's text, made unique with ``-2``, ``-3``...; level-2 headings go to ``headings``
    (the table of contents) as ``(2, id, text)``."""
    import mistune

    used: dict[str, int] = {}

    class Renderer(mistune.HTMLRenderer):
        def heading(self, text: str, level: int, **attrs: Any) -> str:
            plain = html.unescape(_TAG.sub("", text)).strip()
            anchor = _slug(plain) or "section"
            used[anchor] = used.get(anchor, 0) + 1
            if used[anchor] > 1:
                anchor = f"{anchor}-{used[anchor]}"
            if level == 2:
                headings.append((level, anchor, plain))
            return f'<h{level} id="{anchor}">{text}</h{level}>\n'

    return mistune.create_markdown(
        renderer=Renderer(escape=False), plugins=["table", "strikethrough"]
    )


def _output_html(output: Any, markdown) -> str:
    """One cell output as HTML: rich HTML as it is, PNGs as data URIs, text escaped."""
    kind = output.get("output_type")
    if kind in ("display_data", "execute_result"):
        data = output.get("data", {})
        if "text/html" in data:
            inner = _text(data["text/html"])
        elif "image/png" in data:
            inner = f'<img alt="" src="data:image/png;base64,{_text(data["image/png"]).strip()}">'
        elif "text/markdown" in data:
            inner = markdown(_text(data["text/markdown"]))
        elif "text/plain" in data:
            inner = f"<pre>{html.escape(_text(data['text/plain']))}</pre>"
        else:
            return ""
    elif kind == "stream":
        inner = f"<pre>{html.escape(_text(output.get('text', '')))}</pre>"
    elif kind == "error":  # only with allow_errors; build_report stops on an error
        trace = _ANSI.sub("", "\n".join(_text(line) for line in output.get("traceback", [])))
        inner = f'<pre class="cell-error">{html.escape(trace)}</pre>'
    else:
        return ""
    return f'<div class="output">{inner}</div>'


def _export_body(nb: Any) -> tuple[str, list[tuple[int, str, str]]]:
    """Notebook -> HTML fragment (markdown cells and code outputs, no code, no prompts) and its
    level-2 headings ``(2, id, title)`` for the table of contents.

    Written here rather than by nbconvert's HTML exporter, which re-parses the finished page
    with BeautifulSoup (3 s of the report's run on the real corpora, its import 1.7 s); the
    page only needs markdown, HTML outputs and images."""
    headings: list[tuple[int, str, str]] = []
    markdown = _markdown_renderer(headings)
    parts = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(f'<div class="markdown">{markdown(_text(cell.source))}</div>')
        elif cell.cell_type == "code":
            parts.extend(filter(None, (_output_html(o, markdown) for o in cell.get("outputs", []))))
    return "\n".join(parts), headings


_CSS = """
:root { --fg:#1d2125; --muted:#5b6670; --line:#d9dee3; --head:#f3f5f7; --accent:#2f5d8a; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: var(--fg);
       margin: 0; line-height: 1.45; font-size: 14px; background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 32px 64px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-top: 8px; border-top: 2px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 6px; }
a { color: var(--accent); }
p, li { max-width: 960px; }
nav.toc { background: var(--head); border: 1px solid var(--line); padding: 8px 16px; margin: 12px 0; }
nav.toc ol { margin: 4px 0; padding-left: 22px; columns: 2; }
.table-wrap { max-width: 100%; overflow-x: auto; }
/* set by the load script on a table wider than the page: a visible cue that it scrolls */
.table-wrap.scrolls { border-right: 3px solid var(--accent); box-shadow: inset -12px 0 10px -10px rgba(0,0,0,.35); }
.scroll-cue { color: var(--accent); font-size: 12px; margin: 6px 0 -4px; }
table.report { border-collapse: collapse; margin: 8px 0 16px; font-size: 12.5px; }
table.report th, table.report td { border: 1px solid var(--line); padding: 3px 8px; }
table.report th { background: var(--head); text-align: left; font-weight: 600; }
table.report td.figure { min-width: 300px; }
table.report td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.report td.null { color: var(--muted); text-align: center; }
tr.status-differs td { background: #fff1f0; }
tr.status-explained td { background: #fffbe6; }
tr.status-match td.status { color: #1d6b36; }
.absent { border-left: 4px solid #c9a227; background: #fffbe6; padding: 6px 12px; margin: 8px 0; }
.provenance dt { font-weight: 600; float: left; clear: left; width: 170px; }
.provenance dd { margin-left: 180px; margin-bottom: 2px; font-family: "DejaVu Sans Mono", monospace; font-size: 12.5px; word-break: break-all; }
details { margin: 6px 0 12px; }
details summary { cursor: pointer; color: var(--accent); }
code, .mono { font-family: "DejaVu Sans Mono", monospace; font-size: 12.5px; }
img { max-width: 100%; height: auto; display: block; margin: 6px 0 14px; }
.output pre { white-space: pre-wrap; font-size: 12.5px; }
.caption { color: var(--muted); font-size: 12.5px; margin-top: -8px; }
footer { color: var(--muted); font-size: 12px; margin-top: 48px; }
"""

# Sets body[data-report-status] once the page loaded: "ok", or why not (a script error,
# an image that did not decode). A headless browser reads it with --dump-dom.
_STATUS_SCRIPT = """
(function () {
  var problems = [];
  window.addEventListener("error", function (e) {
    problems.push("error: " + (e.message || (e.target && (e.target.src || e.target.href)) || "unknown"));
  }, true);
  window.addEventListener("load", function () {
    var wraps = document.querySelectorAll(".table-wrap"), scrolling = 0;
    for (var w = 0; w < wraps.length; w++) {
      if (wraps[w].scrollWidth > wraps[w].clientWidth + 1) {
        scrolling++;
        wraps[w].className += " scrolls";
        var cue = document.createElement("p");
        cue.className = "scroll-cue";
        cue.textContent = "\u21c6 wider than the page: scroll sideways for more columns";
        wraps[w].parentNode.insertBefore(cue, wraps[w]);
      }
    }
    var imgs = document.images, broken = 0;
    for (var i = 0; i < imgs.length; i++) {
      if (!imgs[i].complete || imgs[i].naturalWidth === 0) { broken++; }
    }
    if (broken) { problems.push(broken + " image(s) did not render"); }
    var status = problems.length ? problems.join("; ") : "ok";
    document.body.setAttribute("data-report-status", status);
    document.body.setAttribute("data-report-images", String(imgs.length));
    document.body.setAttribute("data-report-scrolling", String(scrolling));
    var el = document.getElementById("render-status");
    if (el) { el.textContent = status === "ok" ? "rendered" : status; }
  });
})();
"""


def _page(bodies: Sequence[str], toc: Sequence[tuple[int, str, str]]) -> str:
    items = "".join(
        f'<li><a href="#{html.escape(anchor)}">{html.escape(title)}</a></li>'
        for _, anchor, title in toc
    )
    nav = f'<nav class="toc"><strong>Contents</strong><ol>{items}</ol></nav>' if items else ""
    body = "\n".join(bodies)
    # the TOC goes after the first section (title + provenance) of the first notebook
    marker = '<div id="toc-here"></div>'
    body = body.replace(marker, nav, 1) if marker in body else nav + body
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>CSR Warehouse statistics report</title>\n"
        f'<style>{_CSS}</style>\n</head>\n<body data-report-status="loading">\n<main>\n'
        f"{body}\n"
        "<footer>Generated by <code>csrwh report</code> from the warehouse marts. "
        'Render check: <span id="render-status">not run</span>.</footer>\n'
        f"</main>\n<script>{_STATUS_SCRIPT}</script>\n</body>\n</html>\n"
    )


# --------------------------------------------------------------------------- notebook helpers


def warehouse_path() -> Path:
    """The warehouse the notebook reads: $CSRWH_WAREHOUSE, else warehouse/demo.duckdb."""
    raw = os.environ.get(ENV_WAREHOUSE)
    return Path(raw) if raw else PROJECT_ROOT / "warehouse" / "demo.duckdb"


def tables_path() -> Path:
    """Where :func:`write_table` writes: $CSRWH_REPORT_TABLES, else reports/tables."""
    raw = os.environ.get(ENV_TABLES)
    return Path(raw) if raw else PROJECT_ROOT / "reports" / TABLES_DIR


def connect(warehouse: Path | None = None):
    """Read-only connection, single-threaded so floating-point aggregates are reproducible."""
    from csrwh.query import connect_read_only

    con = connect_read_only(Path(warehouse) if warehouse else warehouse_path())
    con.execute("SET threads = 1")
    return con


def query(con, sql: str, params: Mapping[str, Any] | None = None):
    """Run SQL, return a polars DataFrame (decimals as floats)."""
    import polars as pl

    frame = con.sql(sql, params=dict(params) if params else None).pl()
    casts = [
        pl.col(name).cast(pl.Float64) for name, dtype in frame.schema.items() if dtype.is_decimal()
    ]
    return frame.with_columns(casts) if casts else frame


def with_mean_interval(
    frame, mean: str, sd: str, n: str, prefix: str = "ci95", confidence: float = 0.95
):
    """``frame`` plus ``<prefix>_low`` / ``<prefix>_high``: Student's t interval of the mean in
    column ``mean`` from its sample sd and number of observations (``csrwh.stats.mean_interval``;
    NULL where n < 2)."""
    import polars as pl

    from csrwh.stats import mean_interval

    bounds = [
        mean_interval(m, s, k, confidence)
        for m, s, k in zip(
            frame[mean].to_list(), frame[sd].to_list(), frame[n].to_list(), strict=True
        )
    ]
    return frame.with_columns(
        pl.Series(f"{prefix}_low", [b[0] for b in bounds], dtype=pl.Float64),
        pl.Series(f"{prefix}_high", [b[1] for b in bounds], dtype=pl.Float64),
    )


def with_wilson_interval(
    frame, successes: str, n: str, prefix: str = "ci95", confidence: float = 0.95
):
    """``frame`` plus ``<prefix>_low`` / ``<prefix>_high``: Wilson's score interval of the
    proportion ``successes / n`` (``csrwh.stats.wilson_interval``; NULL where n = 0)."""
    import polars as pl

    from csrwh.stats import wilson_interval

    bounds = [
        wilson_interval(int(k), int(m), confidence) if m else (None, None)
        for k, m in zip(frame[successes].to_list(), frame[n].to_list(), strict=True)
    ]
    return frame.with_columns(
        pl.Series(f"{prefix}_low", [b[0] for b in bounds], dtype=pl.Float64),
        pl.Series(f"{prefix}_high", [b[1] for b in bounds], dtype=pl.Float64),
    )


def interval_errors(frame, value: str, prefix: str = "ci95"):
    """``[below, above]`` error-bar lengths of ``value`` to its interval columns (0 where the
    interval is NULL), for matplotlib's ``yerr`` / ``xerr``."""
    import numpy as np

    centre = frame[value].cast(float).fill_null(float("nan")).to_numpy()
    low = frame[f"{prefix}_low"].fill_null(float("nan")).to_numpy()
    high = frame[f"{prefix}_high"].fill_null(float("nan")).to_numpy()
    return [np.nan_to_num(centre - low), np.nan_to_num(high - centre)]


def present_corpora(con) -> dict[str, list[str]]:
    """Corpus -> its subsets with at least one conversation in the warehouse."""
    rows = con.sql(
        "select corpus, subset from conversations group by corpus, subset order by corpus, subset"
    ).fetchall()
    out: dict[str, list[str]] = {}
    for corpus, subset in rows:
        out.setdefault(corpus, []).append(subset)
    return out


def _normalise_floats(frame):
    import polars as pl

    exprs = []
    for name, dtype in frame.schema.items():
        if dtype.is_float():
            rounded = pl.col(name).round(FLOAT_DECIMALS)
            # NaN/inf -> null; -0.0 -> 0.0 (so the text never depends on the sign of zero)
            exprs.append(
                pl.when(rounded.is_nan() | rounded.is_infinite())
                .then(None)
                .when(rounded == 0)
                .then(pl.lit(0.0, dtype=dtype))
                .otherwise(rounded)
                .alias(name)
            )
    return frame.with_columns(exprs) if exprs else frame


def write_table(frame, name: str) -> Path:
    """Write a report table as ``tables/<name>.csv``: rows in the given order, floats with
    :data:`FLOAT_DECIMALS` decimals, NaN written as empty, UTF-8, ``\\n`` line ends."""
    import polars as pl

    if not isinstance(frame, pl.DataFrame):
        frame = pl.from_pandas(frame)
    out = tables_path()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.csv"
    _normalise_floats(frame).write_csv(path, float_precision=FLOAT_DECIMALS, line_terminator="\n")
    return path


_COUNT_COLUMN = re.compile(
    r"^(n|num)_|_count$|^(battles|wins|ties|losses|conversations|turns|count|len)$"
)
_NOT_A_COUNT = re.compile(r"mean|avg|share|rate|ratio|median|p\d\d|sd|std")


def is_count_column(name: str) -> bool:
    """A column that holds counts by its name (``n_*``, ``*_count``, battles/wins/...): shown
    as integers even when the query gave floats (a SUM, a pivot with gaps)."""
    return bool(_COUNT_COLUMN.search(name)) and not _NOT_A_COUNT.search(name)


def _fmt(value: Any, decimals: int) -> tuple[str, str]:
    """(text, css class) of one table cell."""
    if value is None or (isinstance(value, float) and (math.isnan(value) or math.isinf(value))):
        return "–", "null"
    if isinstance(value, bool):
        return ("yes" if value else "no"), ""
    if isinstance(value, int):
        return f"{value:,}", "num"
    if isinstance(value, float):
        text = f"{value:,.{decimals}f}"
        if text.startswith("-") and not any(ch in "123456789" for ch in text):
            text = text[1:]  # no "-0.000"
        return text, "num"
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat(), ""
    return str(value), ""


def table_html(
    frame,
    decimals: int | Mapping[str, int] = 3,
    row_class: str | None = None,
    right: Sequence[str] = (),
) -> str:
    """A deterministic HTML table (no ids, no random suffixes) of a polars/pandas frame.

    ``decimals``: float decimals (one for all columns, or per column, default 3);
    ``row_class``: a column whose first word becomes the row's ``status-<word>`` class;
    ``right``: text columns to right-align (numbers already formatted as text)."""
    import polars as pl

    if not isinstance(frame, pl.DataFrame):
        frame = pl.from_pandas(frame)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    rows = []
    classes = frame[row_class].to_list() if row_class and row_class in frame.columns else None
    # count columns print as integers when every value is whole
    counts = {
        name
        for name, dtype in frame.schema.items()
        if dtype.is_float()
        and is_count_column(name)
        and all(
            v is None or (not math.isnan(v) and float(v).is_integer())
            for v in frame[name].to_list()
        )
    }
    # per column, once: decimals, whether a count, whether right-aligned, its css name
    columns = [
        (
            decimals.get(name, 3) if isinstance(decimals, Mapping) else decimals,
            name in counts,
            name in right,
            _slug(name),
        )
        for name in frame.columns
    ]
    for i, row in enumerate(frame.iter_rows()):
        cells = []
        for (d, is_count, is_right, slug), value in zip(columns, row):
            if is_count and isinstance(value, float) and value.is_integer():
                value = int(value)
            text, css = _fmt(value, d)
            if is_right and css != "null":
                css = "num"
            css = f"{css} {slug}" if css else slug
            cells.append(f'<td class="{css}">{html.escape(text)}</td>')
        tr_class = f' class="status-{_slug(str(classes[i]).split(" ")[0])}"' if classes else ""
        rows.append(f"<tr{tr_class}>{''.join(cells)}</tr>")
    return (
        f'<div class="table-wrap"><table class="report"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def show_table(
    frame,
    decimals: int | Mapping[str, int] = 3,
    caption: str | None = None,
    row_class: str | None = None,
    right: Sequence[str] = (),
) -> None:
    """Display a table in the notebook output (an HTML output, embedded in the report)."""
    from IPython.display import HTML, display

    cap = f'<p class="caption">{html.escape(caption)}</p>' if caption else ""
    display(HTML(table_html(frame, decimals, row_class, right) + cap))


def show_html(markup: str) -> None:
    from IPython.display import HTML, display

    display(HTML(markup))


def show_absent(corpus: str) -> None:
    """The standard notice for a section whose corpus is not in the warehouse."""
    show_html(
        f'<p class="absent"><strong>{html.escape(CORPUS_NAMES.get(corpus, corpus))}:</strong> '
        "corpus not present in this warehouse.</p>"
    )


def setup_matplotlib() -> None:
    """Agg backend, fixed fonts and sizes, no metadata: identical PNG bytes on every run."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    matplotlib.rcParams.update(
        {
            "figure.dpi": FIGURE_DPI,
            "savefig.dpi": FIGURE_DPI,
            "font.family": "DejaVu Sans",
            "font.size": 9,
            "axes.titlesize": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "svg.hashsalt": "csrwh-report",
            "path.simplify": True,
        }
    )


def text_inches(labels: Iterable[Any], fontsize: float) -> float:
    """Width in inches of the widest of ``labels`` in the report's font at ``fontsize`` points
    (0 for none): sizes a figure's margins for :func:`margins`."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    prop = FontProperties(family="DejaVu Sans", size=fontsize)
    widths = [
        text_to_path.get_text_width_height_descent(str(label), prop, ismath=False)[0]
        for label in labels
    ]
    return max(widths, default=0.0) / 72.0


def margins(
    fig, left: float, right: float, bottom: float, top: float, wgap: float = 0.0, hgap: float = 0.0
) -> None:
    """Place a figure's subplot grid by margins and gaps between panels in inches: a fixed
    layout, which :func:`show_figure` then keeps (matplotlib's tight layout measures every
    text of the figure first, a third of its drawing time)."""
    width, height = fig.get_size_inches()
    grid = fig.axes[0].get_subplotspec().get_gridspec() if fig.axes else None
    rows, cols = grid.get_geometry() if grid is not None else (1, 1)
    panel_w = (width - left - right - (cols - 1) * wgap) / cols
    panel_h = (height - top - bottom - (rows - 1) * hgap) / rows
    fig.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - top / height,
        wspace=wgap / panel_w if cols > 1 else None,
        hspace=hgap / panel_h if rows > 1 else None,
    )
    fig._csrwh_fixed_layout = True


def show_figure(fig, alt: str = "", tight: bool | Mapping[str, Any] | None = None) -> None:
    """Lay out a matplotlib figure, embed it as a PNG output (no timestamps or software tags)
    and close it. ``tight``: matplotlib's tight layout (True, or its keyword arguments, e.g.
    ``{"rect": ...}``) or the figure's own layout (False); by default tight unless
    :func:`margins` placed the figure. With $CSRWH_REPORT_PROFILE set
    (``build_report(timings=...)``), the seconds this took are appended to that file."""
    import matplotlib.pyplot as plt
    from IPython.display import HTML, display

    t0 = time.perf_counter()
    if tight is None:
        tight = not getattr(fig, "_csrwh_fixed_layout", False)
    if tight:
        fig.tight_layout(**(tight if isinstance(tight, Mapping) else {}))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI, metadata={"Software": None}, bbox_inches=None)
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    profile = os.environ.get(ENV_PROFILE)
    if profile:
        with open(profile, "a", encoding="utf-8") as log:
            log.write(f"{time.perf_counter() - t0:.6f}\t{alt}\n")
    display(HTML(f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'))


def package_versions() -> list[tuple[str, str]]:
    out = [("python", platform.python_version())]
    for name in PACKAGES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return out


def input_files(con):
    """raw.ingest_files as a table: one row per input file with its sha256."""
    return query(
        con,
        "select corpus, source_path, table_name, size_bytes, n_records, file_sha256 "
        "from raw.ingest_files order by corpus, source_path",
    )


def inputs_digest(rows: Iterable[tuple[str, str, str]]) -> str:
    """sha256 over sorted ``corpus/path<TAB>sha256`` lines: one fingerprint of a set of inputs."""
    lines = sorted(f"{corpus}/{path}\t{sha}" for corpus, path, sha in rows)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def show_provenance(con) -> None:
    """The report header: build, inputs (sha256 of every file), package versions."""
    build = query(con, "select build_id, built_at, data_dir from build_info").row(0, named=True)
    files = input_files(con)
    write_table(files, "input_files")
    generated = (
        os.environ.get(ENV_GENERATED_AT)
        or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    )
    per_corpus = []
    for corpus in sorted(set(files["corpus"].to_list())):
        sub = files.filter(files["corpus"] == corpus)
        per_corpus.append(
            f"<dt>{html.escape(CORPUS_NAMES.get(corpus, corpus))}</dt><dd>{sub.height:,} files, "
            f"{sum(sub['size_bytes'].to_list()):,} bytes, inputs sha256 "
            f"{inputs_digest(zip(sub['corpus'], sub['source_path'], sub['file_sha256']))}</dd>"
        )
    all_digest = inputs_digest(zip(files["corpus"], files["source_path"], files["file_sha256"]))
    versions = ", ".join(f"{html.escape(n)} {html.escape(v)}" for n, v in package_versions())
    built_at = build["built_at"]
    built_text = built_at.isoformat() if hasattr(built_at, "isoformat") else str(built_at)
    listing = table_html(
        files.select("corpus", "source_path", "size_bytes", "n_records", "file_sha256")
    )
    show_html(
        '<dl class="provenance">'
        f'<dt>Report generated</dt><dd><span id="generated-at">{html.escape(generated)}</span></dd>'
        f"<dt>Warehouse build</dt><dd>{html.escape(str(build['build_id']))} (built {html.escape(built_text)})</dd>"
        f"<dt>Data folder</dt><dd>{html.escape(str(build['data_dir']))}</dd>"
        f"<dt>All inputs</dt><dd>{files.height:,} files, sha256 {all_digest}</dd>"
        + "".join(per_corpus)
        + f"<dt>Software</dt><dd>{versions}</dd></dl>"
        f"<details><summary>sha256 of every input file ({files.height:,})</summary>{listing}</details>"
        '<div id="toc-here"></div>'
    )


# --------------------------------------------------------------------------- render check


CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)
_CONSOLE_LINE = re.compile(r":CONSOLE[:(]")
_STATUS_ATTR = re.compile(r'<body[^>]*\bdata-report-status="([^"]*)"')
_IMAGES_ATTR = re.compile(r'<body[^>]*\bdata-report-images="([^"]*)"')
_SCROLLING_ATTR = re.compile(r'<body[^>]*\bdata-report-scrolling="([^"]*)"')


def find_chromium() -> str | None:
    """Path of a Chromium/Chrome binary ($CSRWH_CHROMIUM first), or None."""
    explicit = os.environ.get("CSRWH_CHROMIUM")
    if explicit:
        return explicit if shutil.which(explicit) else None
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class RenderCheck:
    """Outcome of rendering the report in headless Chromium."""

    status: str  # what the page's own script reported ("ok" when fine)
    images: int  # images the page holds
    console: list[str] = field(default_factory=list)  # console messages (the page logs none)
    screenshot: Path | None = None
    scrolling: int = 0  # tables wider than the page (each gets a visible scroll cue)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and not self.console and self.screenshot is not None


def check_render(
    report: Path,
    screenshot: Path,
    chromium: str | None = None,
    window: tuple[int, int] = (1280, 2000),
    timeout_s: int = 120,
) -> RenderCheck:
    """Render ``report`` in headless Chromium: read the status the page's script sets
    (``--dump-dom``), collect console messages (``--enable-logging=stderr``; the page writes
    none, so any is an error) and save a PNG screenshot of the first screen."""
    binary = chromium or find_chromium()
    if not binary:
        raise CsrwhError("no chromium binary found", hint="apt-get install -y chromium")
    url = Path(report).resolve().as_uri()
    screenshot = Path(screenshot).resolve()
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    console: list[str] = []
    with tempfile.TemporaryDirectory(prefix="csrwh-chromium-") as profile:
        common = [
            binary,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
        ]
        dom = subprocess.run(
            [*common, f"--window-size={window[0]},{window[1]}", "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        console += [ln for ln in dom.stderr.splitlines() if _CONSOLE_LINE.search(ln)]
        if screenshot.exists():
            screenshot.unlink()
        shot = subprocess.run(
            [*common, f"--window-size={window[0]},{window[1]}", f"--screenshot={screenshot}", url],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        console += [ln for ln in shot.stderr.splitlines() if _CONSOLE_LINE.search(ln)]
    status_match = _STATUS_ATTR.search(dom.stdout)
    images_match = _IMAGES_ATTR.search(dom.stdout)
    scrolling_match = _SCROLLING_ATTR.search(dom.stdout)
    status = (
        status_match.group(1) if status_match else f"no status (chromium exit {dom.returncode})"
    )
    return RenderCheck(
        status=html.unescape(status),
        images=int(images_match.group(1)) if images_match else 0,
        scrolling=int(scrolling_match.group(1)) if scrolling_match else 0,
        console=console,
        screenshot=screenshot if screenshot.is_file() and screenshot.stat().st_size > 0 else None,
    )


# --------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m csrwh.report [--warehouse W] [--out DIR] [--screenshot]`` (until ``csrwh report`` is wired)."""
    import argparse

    from csrwh.config import resolve_warehouse

    parser = argparse.ArgumentParser(
        prog="python -m csrwh.report", description=build_report.__doc__.splitlines()[0]
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
