"""The corpus registry (ingest/corpora.toml): one declaration per corpus from which ingest,
fetch, sample, the CLI, report/export names and seeds/corpora.csv are derived."""

from __future__ import annotations

import csv
import importlib
import io
import os
import re
from pathlib import Path

import pytest
from shared_corpora import SHARED_CORPORA

from csrwh.cli import _corpus_ids
from csrwh.errors import CsrwhError
from csrwh.fetch import corpus_names, load_sources, resolve_corpora
from ingest import registry

# the datasets' documentation beside the real corpora: ../shared/docs/datasets
DATASET_DOCS = SHARED_CORPORA.parent / "docs" / "datasets"


# --------------------------------------------------------------------------- the seed


def test_committed_seed_is_the_registry_rendering():
    diff = registry.seed_differences()
    assert not diff, "\n".join(diff)


def test_seed_check_fails_naming_the_line_when_the_seed_differs(tmp_path, monkeypatch, capsys):
    text = registry.SEED_FILE.read_text(encoding="utf-8")
    stale = tmp_path / "corpora.csv"
    stale.write_text(text.replace("Apache-2.0", "MIT", 1), encoding="utf-8")
    diff = registry.seed_differences(stale)
    assert len(diff) == 1 and "line " in diff[0] and "MIT" in diff[0]
    monkeypatch.setattr(registry, "SEED_FILE", stale)
    assert registry.main(["seed", "--check"]) == 1
    assert "corpora_seed.py" in capsys.readouterr().err
    assert registry.main(["seed"]) == 0 and registry.main(["seed", "--check"]) == 0
    assert stale.read_text(encoding="utf-8") == text


def test_seed_has_a_row_per_declared_subset_with_a_citation_column():
    rows = list(csv.DictReader(io.StringIO(registry.render_seed())))
    assert list(rows[0]) == list(registry.SEED_COLUMNS)
    declared = [(c.id, s.name) for c in registry.declarations() for s in c.subsets]
    assert [(r["corpus"], r["subset"]) for r in rows] == declared
    for row in rows:
        assert "\n" not in row["citation"]  # one line: dbt seeds and dataset-card cells


# --------------------------------------------------------------------------- citations


@pytest.mark.parametrize("corpus", [c for c in registry.declarations() if not c.optional])
def test_citation_is_the_documented_one_or_says_unknown(corpus):
    """A citation is copied from the dataset's documentation, never invented."""
    doc = DATASET_DOCS / f"{corpus.folder}.md"
    if not doc.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{doc} not found (CI is set, so this is an error)")
        pytest.skip(f"{doc} not available")
    squash = lambda text: re.sub(r"\s+", " ", text).strip()
    if corpus.citation_known:
        assert corpus.citation.startswith("@")
        assert squash(corpus.citation) in squash(doc.read_text(encoding="utf-8"))
    else:
        assert corpus.citation_note  # and the documentation has no BibTeX entry to copy
        assert re.search(r"@\w+\{", doc.read_text(encoding="utf-8")) is None


# --------------------------------------------------------------------------- derivations


def test_modules_are_found_by_id_and_agree_with_the_registry():
    for c in registry.declarations():
        ingest_module = importlib.import_module(f"ingest.{c.id}")
        assert (ingest_module.CORPUS, ingest_module.FOLDER) == (c.id, c.folder)
        assert importlib.import_module(f"csrwh.sample.{c.id}").FOLDER == c.folder
    assert [s.name for s in registry.CORPORA] == registry.names()


def test_fetch_knows_exactly_the_corpora_with_an_upstream():
    expected = [c.folder for c in registry.declarations() if not c.optional]
    assert corpus_names() == expected == [c.folder for c in registry.upstreams()]
    table = load_sources()
    for c in registry.upstreams():
        assert table["corpora"][c.folder]["kind"] == c.upstream["kind"]
        assert table["corpora"][c.folder]["title"] == c.title


def test_every_name_resolves_to_the_same_corpus_in_every_command():
    from csrwh.build import _drop_names
    from csrwh.sample import _resolve as sample_resolve
    from ingest import _select as ingest_select

    for c in registry.declarations():
        for name in {*c.names, c.title.upper(), c.folder.replace("-", "_")}:
            assert registry.lookup(name) is c
            assert registry.get(name).name == c.id
            assert [s.name for s in ingest_select([name])] == [c.id]
            assert _drop_names([name], Path("/nonexistent")) == {c.id}
            assert sample_resolve([name]) == [c]
            assert _corpus_ids([name]) == [c.id]
            if not c.optional:
                assert resolve_corpora([name]) == [c.folder]
    assert registry.get("crs-arena").folder == "crsarena-dial"  # the alias issue 12 names


def test_unknown_names_are_one_clear_error():
    with pytest.raises(CsrwhError) as err:
        registry.resolve(["cosrec", "movielens"], option="--drop-corpus")
    assert err.value.message == "--drop-corpus movielens: unknown corpus"
    assert all(c in err.value.hint for c in registry.names()) and "crs-arena" in err.value.hint
    assert _corpus_ids(["movielens"]) == ["movielens"]  # export reports it itself


def test_display_names_follow_corpus_order():
    from csrwh.report.settings import CORPUS_NAMES

    public = [c.id for c in registry.declarations() if not c.optional]
    assert list(CORPUS_NAMES) == public and "custom" not in CORPUS_NAMES  # as before the registry
    assert CORPUS_NAMES["crsarena"] == registry.lookup("crsarena-dial").title


# --------------------------------------------------------------------------- bad registry files

_GOOD = """
[[corpus]]
id = "alpha"
folder = "alpha-data"
title = "Alpha"
aliases = ["al"]
"""


@pytest.mark.parametrize(
    "extra, problem",
    [
        (
            '[[corpus]]\nid = "beta"\naliases = ["AL"]\n',
            "the name 'AL' already names corpus 'alpha'",
        ),
        ('[[corpus]]\nid = "Beta-1"\n', "id 'Beta-1' is not a lowercase identifier"),
        (
            '[[corpus]]\nid = "beta"\n[corpus.upstream]\nurls = []\n',
            "[corpus.upstream] has no `kind`",
        ),
        ('[[corpus]]\nid = "beta"\naliases = "b"\n', "`aliases` must be a list of strings"),
        ("[[corpus]\n", "TOML"),
    ],
)
def test_bad_registry_file_is_a_one_line_error(tmp_path, extra, problem):
    path = tmp_path / "corpora.toml"
    path.write_text(_GOOD + extra, encoding="utf-8")
    with pytest.raises(CsrwhError) as err:
        registry.load(path)
    assert str(path) in err.value.message and problem in err.value.message
    assert "\n" not in err.value.message


def test_good_registry_file_loads(tmp_path):
    path = tmp_path / "corpora.toml"
    path.write_text(_GOOD, encoding="utf-8")
    (alpha,) = registry.load(path)
    assert alpha.names == ("alpha", "alpha-data", "Alpha", "al")
    assert not alpha.citation_known and alpha.upstream is None
