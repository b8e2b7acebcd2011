"""Plotting helpers shared by the published figures (``csrwh.reading.figures``) and the report
(``csrwh.reading.report``), below both: interval columns of a frame (Student's t, Wilson) and
their error-bar lengths, label widths in the report's font, and a figure's fixed layout by
margins in inches (which :func:`csrwh.reading.report.show_figure` keeps)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def with_mean_interval(
    frame, mean: str, sd: str, n: str, prefix: str = "ci95", confidence: float = 0.95
):
    """``frame`` plus ``<prefix>_low`` / ``<prefix>_high``: Student's t interval of the mean in
    column ``mean`` from its sample sd and number of observations (``csrwh.measures.stats.mean_interval``;
    NULL where n < 2)."""
    import polars as pl

    from csrwh.measures.stats import mean_interval

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
    proportion ``successes / n`` (``csrwh.measures.stats.wilson_interval``; NULL where n = 0)."""
    import polars as pl

    from csrwh.measures.stats import wilson_interval

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
