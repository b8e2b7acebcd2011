"""What the report notebooks import as ``R``: the read-only connection, queries as polars
frames, CSV writing (:func:`write_table`, byte-stable), table and figure display, and the
provenance header. The t and Wilson interval columns and the fixed figure layouts are
:mod:`csrwh.reading.plotting` (shared with ``csrwh.reading.figures``), which
``csrwh.reading.report`` re-exports for the notebooks."""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import html
import io
import math
import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from csrwh.config import PROJECT_ROOT
from csrwh.reading.report.page import _slug
from csrwh.reading.report.settings import (
    ALL_CORPUS_NAMES,
    CORPUS_NAMES,
    ENV_PROFILE,
    ENV_TABLES,
    ENV_WAREHOUSE,
    FIGURE_DPI,
    FLOAT_DECIMALS,
    TABLES_DIR,
)


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
    from csrwh.reading.query import connect_read_only

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


def present_corpora(con) -> dict[str, list[str]]:
    """Corpus -> its subsets with at least one conversation in the warehouse."""
    rows = con.sql(
        "select corpus, subset from conversations group by corpus, subset order by corpus, subset"
    ).fetchall()
    out: dict[str, list[str]] = {}
    for corpus, subset in rows:
        out.setdefault(corpus, []).append(subset)
    return out


def corpus_names(present: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """{corpus: display name} of the corpora in the warehouse (``present``), in the registry's
    order, your own corpora (``custom``) among them; a corpus the registry does not declare
    comes last, named by its id."""
    names = {c: n for c, n in ALL_CORPUS_NAMES.items() if c in present}
    return names | {c: c for c in present if c not in names}


def corpora_html(present: Mapping[str, Sequence[str]]) -> str:
    """The report's first line: every corpus in the warehouse with its subsets (an own
    corpus's are its ``custom/<name>`` folders), and the public corpora that are absent."""
    names = corpus_names(present)
    listed = ", ".join(
        f"{html.escape(name)} ({html.escape(', '.join(present[c]))})" for c, name in names.items()
    )
    absent = [n for c, n in CORPUS_NAMES.items() if c not in present]
    return (
        f"<p>Corpora in this warehouse: <strong>{listed or 'none'}</strong>."
        + (f" Not present: {', '.join(absent)} (their sections say so)." if absent else "")
        + "</p>"
    )


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
    table_class: str = "",
) -> str:
    """A deterministic HTML table (no ids, no random suffixes) of a polars/pandas frame.

    ``decimals``: float decimals (one for all columns, or per column, default 3);
    ``row_class``: a column whose first word becomes the row's ``status-<word>`` class;
    ``right``: text columns to right-align (numbers already formatted as text);
    ``table_class``: another class of the table (column widths, see the page's style)."""
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
        f'<div class="table-wrap"><table class="{f"report {table_class}".strip()}">'
        f"<thead><tr>{head}</tr></thead>"
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


@contextlib.contextmanager
def folded(title: str) -> Iterator[None]:
    """Show what the block displays folded under one ``<details>``: its summary is ``title``
    and how many tables and figures it holds (every one stays in the page, one click away)."""
    from IPython.display import HTML, display
    from IPython.utils.capture import capture_output

    with capture_output(stdout=False, stderr=False, display=True) as captured:
        yield
    parts = []
    for output in captured.outputs:
        data = output.data
        if "text/html" in data:
            parts.append(data["text/html"])
        elif "image/png" in data:
            parts.append(f'<img alt="" src="data:image/png;base64,{data["image/png"]}">')
        elif "text/plain" in data:
            parts.append(f"<pre>{html.escape(data['text/plain'])}</pre>")
    body = "".join(parts)
    n_tables, n_figures = body.count("<table"), body.count("<img")
    summary = f"{html.escape(title)} ({n_tables} tables, {n_figures} figures)"
    display(HTML(f'<details class="fold"><summary>{summary}</summary>{body}</details>'))


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
