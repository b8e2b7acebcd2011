"""Shared pytest fixtures (keep this small: corpus-specific fixtures live in the test files)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from shared_corpora import require_real_corpora


@pytest.fixture
def duck():
    """An in-memory DuckDB connection, closed after the test."""
    con = duckdb.connect()
    yield con
    con.close()


@pytest.fixture
def write_file():
    """``write_file(root, "a/b.json", text_or_bytes) -> Path``: creates parent folders;
    ``str`` content is written as UTF-8 bytes exactly (no newline translation)."""

    def _write(root: Path, rel: str, content: str | bytes) -> Path:
        path = Path(root, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return _write


@pytest.fixture(scope="session")
def real_corpora() -> Path:
    """The real corpora for integration tests (see require_real_corpora)."""
    return require_real_corpora()


@pytest.fixture()
def isolated_dbt_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Give this test's dbt runs their own target/ so parallel workers never share artefacts."""
    target = tmp_path / "dbt_target"
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(target))
    return target
