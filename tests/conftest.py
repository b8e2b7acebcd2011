"""Shared pytest fixtures (keep this small: corpus-specific fixtures live in the test files)."""

from __future__ import annotations

import shutil
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


@pytest.fixture(scope="module")
def module_tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """A folder for one test module's shared files (a built warehouse, generated data),
    removed when the module is done unless one of its tests failed -- as pyproject's
    ``tmp_path_retention_policy = "failed"`` does for ``tmp_path``. A real-corpora build is
    ~250 MB: kept to the end of the session, the suite's folders reached 9 GB and filled
    CI's disk."""
    path = tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2])
    failed_before = request.session.testsfailed
    yield path
    if request.session.testsfailed == failed_before:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture()
def isolated_dbt_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Give this test's dbt runs their own target/ so parallel workers never share artefacts."""
    target = tmp_path / "dbt_target"
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(target))
    return target


def _build_published(data: Path, root: Path) -> Path:
    """Build ``data`` through the real ingest + dbt build + gate into ``root``; the published file."""
    import os

    from csrwh.building import build

    saved = os.environ.get("CSRWH_DBT_TARGET_PATH")
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(root / "target")
    try:
        result = build(data, root / "warehouse" / "csr.duckdb")
    finally:
        if saved is None:
            os.environ.pop("CSRWH_DBT_TARGET_PATH", None)
        else:
            os.environ["CSRWH_DBT_TARGET_PATH"] = saved
    assert result.published
    return root / "warehouse" / "csr.duckdb"


@pytest.fixture(scope="session")
def sample_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated sample (scale 1, seed 0) built once per test session. Read it only
    (copy it to change it)."""
    from csrwh.sample import generate

    root = tmp_path_factory.mktemp("sample_warehouse")
    generate(root / "data", scale=1, seed=0)
    return _build_published(root / "data", root)


@pytest.fixture(scope="session")
def real_warehouse(real_corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """../shared/corpora built once per test session. Read it only (copy it to change it)."""
    return _build_published(real_corpora, tmp_path_factory.mktemp("real_warehouse"))
