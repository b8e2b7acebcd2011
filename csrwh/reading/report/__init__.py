"""`csrwh report`: the statistics report, executed from notebooks against the marts.

The analysis lives in ``notebooks/`` as jupytext percent-format ``.py`` files (reviewable
in git, no outputs). :func:`build_report` executes them headless with nbclient in a
``python3`` kernel of this interpreter, passing the warehouse through ``CSRWH_WAREHOUSE``,
and writes

* ``<out_dir>/statistics.html`` -- one self-contained page: the notebooks' markdown and
  outputs (no code); tables as HTML, plots as base64 PNG, no script or style loaded from
  anywhere (it renders offline); a small inline script sets ``data-report-status="ok"`` on
  ``<body>`` once the page and its images loaded without a script error;
* ``<out_dir>/.csrwh-report.json`` -- what this run wrote: the next run replaces exactly
  those files and leaves anything else in the folder alone;
* ``<out_dir>/tables/*.csv`` -- the key tables, written by the notebooks through
  :func:`write_table` (stable row order from the SQL, fixed float formatting), so two runs
  on the same warehouse give byte-identical files. The HTML differs only in the
  ``<span id="generated-at">`` timestamp.

One module per concern:

* :mod:`~csrwh.reading.report.runner` -- :func:`build_report` (execute, write) and ``main``
  (``python -m csrwh.reading.report``); ``build_report(timings=...)`` records where the time goes
  (``benchmarks/report.py``);
* :mod:`~csrwh.reading.report.page` -- executed notebooks to the HTML page;
* :mod:`~csrwh.reading.report.notebook` and :mod:`~csrwh.reading.report.provenance` -- what the notebooks
  import as ``R`` (connection, queries, CSV writing, table/figure display, the provenance
  header), with the interval columns and figure layouts of :mod:`csrwh.reading.plotting`;
* :mod:`~csrwh.reading.report.published` -- section 2, the published figures beside the warehouse's
  (the comparison itself is :func:`csrwh.reading.figures.compare`);
* :mod:`~csrwh.reading.report.render` -- the headless Chromium render check;
* :mod:`~csrwh.reading.report.settings` -- paths, environment variable names, formats, display names.

Everything the notebooks and callers use is importable from ``csrwh.reading.report`` itself.
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
