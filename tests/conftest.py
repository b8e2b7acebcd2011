"""Shared pytest fixtures (keep this small: corpus-specific fixtures live in the test files)."""

from __future__ import annotations

import shutil
from pathlib import Path
from unittest import mock

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

    from csrwh.pipeline import build

    with mock.patch.dict(os.environ, CSRWH_DBT_TARGET_PATH=str(root / "target")):
        result = build(data, root / "warehouse" / "csr.duckdb")
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


@pytest.fixture()
def warehouse_copy(sample_warehouse: Path, tmp_path: Path) -> Path:
    """A copy of the sample warehouse in its own folder (there a test may change it, or write
    beside it: the evaluations sidecar)."""
    copy = tmp_path / "wh" / "csr.duckdb"
    copy.parent.mkdir()
    shutil.copy2(sample_warehouse, copy)
    return copy


@pytest.fixture(scope="module")
def judgments(sample_warehouse: Path) -> dict[str, dict[str, dict[str, dict[str, int]]]]:
    """The sample's relevance judgments, collection -> kind (each of its kinds and 'all') ->
    topic -> doc -> grade, read from the mart with plain SQL (an oracle's input, not csrwh's
    reader)."""
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        rows = con.execute(
            "select collection, judgment_kind, topic_id, doc_id, grade from relevance_judgments"
        ).fetchall()
    out: dict[str, dict[str, dict[str, dict[str, int]]]] = {}
    for collection, kind, topic, doc, grade in rows:
        kinds = out.setdefault(collection, {"all": {}})
        kinds.setdefault(kind, {}).setdefault(topic, {})[doc] = grade
        kinds["all"].setdefault(topic, {})[doc] = grade
    assert len(out) > 1, "the sample must judge in several collections"
    assert any(len(kinds) > 2 for kinds in out.values()), "and one with several kinds"
    return out
