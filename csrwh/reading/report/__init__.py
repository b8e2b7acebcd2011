"""`csrwh report`: the statistics report, executed from notebooks against the marts.

:func:`build_report` runs the jupytext notebooks of ``notebooks/`` headless and writes one
self-contained ``statistics.html`` (renders offline), the key tables as CSV (byte-identical
between runs on the same warehouse) and a list of what it wrote. Everything the notebooks and
callers use is importable from ``csrwh.reading.report`` itself.
Details: docs/internals.md#csrwh-reading-report
"""

from __future__ import annotations

from csrwh.reading.plotting import (  # the notebooks use them as R.<name>
    interval_errors,
    margins,
    text_inches,
    with_mean_interval,
    with_wilson_interval,
)
from csrwh.reading.report.notebook import (
    connect,
    corpora_html,
    corpus_names,
    folded,
    is_count_column,
    present_corpora,
    query,
    setup_matplotlib,
    show_absent,
    show_figure,
    show_html,
    show_table,
    table_html,
    tables_path,
    warehouse_path,
    write_table,
)
from csrwh.reading.report.page import _export_body, _page
from csrwh.reading.report.provenance import (
    input_files,
    inputs_digest,
    package_versions,
    show_provenance,
)
from csrwh.reading.report.published import show_comparison
from csrwh.reading.report.render import RenderCheck, check_render, find_chromium
from csrwh.reading.report.runner import build_report, main
from csrwh.reading.report.settings import (
    ALL_CORPUS_NAMES,
    CELL_TIMEOUT_S,
    CORPUS_NAMES,
    ENV_GENERATED_AT,
    ENV_PROFILE,
    ENV_TABLES,
    ENV_WAREHOUSE,
    FIGURE_DPI,
    FLOAT_DECIMALS,
    MANIFEST_NAME,
    NOTEBOOK_DIR,
    NOTEBOOKS,
    PACKAGES,
    REPORT_MARKER,
    REPORT_NAME,
    TABLES_DIR,
)

__all__ = [
    "ALL_CORPUS_NAMES",
    "CELL_TIMEOUT_S",
    "CORPUS_NAMES",
    "ENV_GENERATED_AT",
    "ENV_PROFILE",
    "ENV_TABLES",
    "ENV_WAREHOUSE",
    "FIGURE_DPI",
    "FLOAT_DECIMALS",
    "MANIFEST_NAME",
    "NOTEBOOKS",
    "NOTEBOOK_DIR",
    "PACKAGES",
    "REPORT_MARKER",
    "REPORT_NAME",
    "TABLES_DIR",
    "RenderCheck",
    "_export_body",
    "_page",
    "build_report",
    "check_render",
    "connect",
    "corpora_html",
    "corpus_names",
    "find_chromium",
    "folded",
    "input_files",
    "inputs_digest",
    "interval_errors",
    "is_count_column",
    "main",
    "margins",
    "package_versions",
    "present_corpora",
    "query",
    "setup_matplotlib",
    "show_absent",
    "show_comparison",
    "show_figure",
    "show_html",
    "show_provenance",
    "show_table",
    "table_html",
    "tables_path",
    "text_inches",
    "warehouse_path",
    "with_mean_interval",
    "with_wilson_interval",
    "write_table",
]
