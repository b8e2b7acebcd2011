"""Where things live: project root, data folder and warehouse file.

Every command takes ``--data-dir`` and ``--warehouse``; when omitted they come from
``CSRWH_DATA_DIR`` / ``CSRWH_WAREHOUSE`` and then from the defaults below.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = Path("data/raw")
DEFAULT_WAREHOUSE = Path("warehouse/csr.duckdb")
DEMO_DATA_DIR = Path("data/sample")
DEMO_WAREHOUSE = Path("warehouse/demo.duckdb")


def resolve_data_dir(value: str | os.PathLike[str] | None = None) -> Path:
    """The corpora folder: explicit value, else $CSRWH_DATA_DIR, else data/raw."""
    raw = value if value not in (None, "") else os.environ.get("CSRWH_DATA_DIR") or DEFAULT_DATA_DIR
    return Path(raw).expanduser().resolve()


def resolve_warehouse(value: str | os.PathLike[str] | None = None) -> Path:
    """The published warehouse file: explicit value, else $CSRWH_WAREHOUSE, else warehouse/csr.duckdb."""
    raw = (
        value if value not in (None, "") else os.environ.get("CSRWH_WAREHOUSE") or DEFAULT_WAREHOUSE
    )
    return Path(raw).expanduser().resolve()
