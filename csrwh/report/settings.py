"""The report's fixed settings: where the notebooks are, the environment the runner passes to
the kernel, the CSV float format, figure resolution, the packages the header lists and the
corpora's display names."""

from __future__ import annotations

from csrwh.config import PROJECT_ROOT

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


def _corpus_names() -> dict[str, str]:
    from ingest import registry

    return registry.display_names(optional=False)


#: {corpus id: display name} of the public corpora, in corpus order: the corpus registry's
#: titles (ingest/corpora.toml); your own corpora (custom) have no section of their own
CORPUS_NAMES: dict[str, str] = _corpus_names()
