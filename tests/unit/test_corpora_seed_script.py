"""scripts/corpora_seed.py renders both generated files in memory and validates them before it
writes either: a bad project leaves both files as they were."""

from __future__ import annotations

import importlib.util

import pytest

from csrwh.config import PROJECT_ROOT
from ingest import registry


def _corpora_seed():
    spec = importlib.util.spec_from_file_location(
        "corpora_seed", PROJECT_ROOT / "scripts" / "corpora_seed.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project tree holding one conformed model, one lookup seed and both generated files,
    the seed file stale (as after a registry edit), the script pointed at it."""
    seed = _corpora_seed()
    corpus = registry.names()[0]
    model = tmp_path / "models" / "intermediate" / corpus / f"int_{corpus}__turns_conformed.sql"
    model.parent.mkdir(parents=True)
    model.write_text("select 1\n", encoding="utf-8")
    corpora = tmp_path / "seeds" / "corpora.csv"
    corpora.parent.mkdir(parents=True)
    corpora.write_text(registry.render_seed().replace("\n", "\nstale,line\n", 1), "utf-8")
    macro = tmp_path / seed.MACRO_FILE
    macro.parent.mkdir(parents=True)
    macro.write_text(seed.render_macros(tmp_path), encoding="utf-8")
    monkeypatch.setattr(seed, "ROOT", tmp_path)
    monkeypatch.setattr(registry, "SEED_FILE", corpora)
    return seed, tmp_path, corpus, (corpora, macro)


def test_a_bad_conformed_model_name_leaves_both_files_byte_identical(project, capsys):
    seed, root, corpus, files = project
    bad = root / "models" / "intermediate" / corpus / f"int_{corpus}__not_a_mart_conformed.sql"
    bad.write_text("select 1\n", encoding="utf-8")
    before = {path: path.read_bytes() for path in files}
    assert seed.main([]) == 1
    err = capsys.readouterr().err
    assert "'not_a_mart' is not a core mart" in err and len(err.strip().splitlines()) == 1
    assert {path: path.read_bytes() for path in files} == before
    assert sorted(p.name for p in files[0].parent.iterdir()) == ["corpora.csv"]  # no temp file


def test_a_good_project_rewrites_both_files(project):
    seed, root, _, (corpora, macro) = project
    macro.write_text("stale\n", encoding="utf-8")
    assert seed.main(["--check"]) == 1
    assert seed.main([]) == 0
    assert corpora.read_text(encoding="utf-8") == registry.render_seed()
    assert macro.read_text(encoding="utf-8") == seed.render_macros(root)
    assert seed.main(["--check"]) == 0
