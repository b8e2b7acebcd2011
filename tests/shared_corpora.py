"""Where the real corpora are for integration tests: ../shared/corpora beside the repository,
or $CSRWH_SHARED_CORPORA. (A module with its own name: several conftest.py files exist, so
`from conftest import ...` would be ambiguous.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_CORPORA = Path(
    os.environ.get("CSRWH_SHARED_CORPORA")
    or Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
)
REAL_CORPUS_FOLDERS = ("cosrec", "crsarena-dial", "recllmsim")


def require_real_corpora() -> Path:
    """../shared/corpora (or $CSRWH_SHARED_CORPORA); skip only when absent and CI is unset."""
    if SHARED_CORPORA.is_dir() and any((SHARED_CORPORA / c).is_dir() for c in REAL_CORPUS_FOLDERS):
        return SHARED_CORPORA
    if os.environ.get("CI"):
        pytest.fail(f"real corpora not found at {SHARED_CORPORA} (CI is set, so this is an error)")
    pytest.skip(f"real corpora not found at {SHARED_CORPORA} (set CSRWH_SHARED_CORPORA)")
