"""The corpus registry (ingest/corpora.toml): one declaration per corpus from which ingest,
fetch, sample, the CLI, report/export names and seeds/corpora.csv are derived."""

from __future__ import annotations

import csv
import importlib
import importlib.util
import io
import re
from pathlib import Path

import pytest

from csrwh.cli import _corpus_ids
from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from csrwh.fetch import corpus_names, load_sources, resolve_corpora
from ingest import registry

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


# --------------------------------------------------------------------------- what dbt reads


def _corpora_seed():
    """scripts/corpora_seed.py as a module (it renders the generated macro file)."""
    spec = importlib.util.spec_from_file_location(
        "corpora_seed", PROJECT_ROOT / "scripts" / "corpora_seed.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_macro_file_is_the_rendering():
    diff = _corpora_seed().macro_differences()
    assert not diff, "\n".join(diff)


def test_generated_lists_are_the_conformed_models_and_seeds_on_disk():
    """Read independently of the renderer: every int_<id>__<mart>_conformed model and every
    seeds/<id>/<id>__<lookup>.csv on disk is listed for its corpus, and nothing else is."""
    seed = _corpora_seed()
    on_disk = {
        (p.parent.name, p.stem.removeprefix(f"int_{p.parent.name}__").removesuffix("_conformed"))
        for p in (PROJECT_ROOT / "models" / "intermediate").glob("*/int_*_conformed.*")
    }
    listed = {(c, mart) for mart, ids in seed.conformed_models().items() for c in ids}
    assert listed == on_disk
    assert {("custom", "turns"), ("recllmsim", "behaviour_labels"), ("cosrec", "items")} <= listed
    seeds_on_disk = {
        (p.parent.name, p.stem.split("__", 1)[1])
        for p in (PROJECT_ROOT / "seeds").glob("*/*__*.csv")
    }
    listed = {(c, lookup) for lookup, ids in seed.corpus_seeds().items() for c in ids}
    assert listed == seeds_on_disk and ("recllmsim", "questionnaire_options") in listed


def test_shared_core_marts_name_no_corpus():
    """Adding a corpus touches only its own files: the shared core marts (SQL and their yml)
    hold no corpus id as a SQL literal -- no `case` branch, no `where:` filter per corpus."""
    literal = re.compile(r"'(" + "|".join(map(re.escape, registry.names())) + r")'")
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted((PROJECT_ROOT / "models" / "marts" / "core").iterdir())
        if path.suffix in (".sql", ".yml")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []


def test_own_lookup_models_are_listed_for_their_corpus():
    """An own lookup model (int_<id>__<lookup> of OWN_LOOKUPS) on disk is what
    corpus_models_by_lookup lists."""
    seed = _corpora_seed()
    on_disk = {
        lookup: sorted(
            p.parent.name
            for p in (PROJECT_ROOT / "models" / "intermediate").glob(f"*/int_*__{lookup}.*")
        )
        for lookup in seed.OWN_LOOKUPS
    }
    assert seed.corpus_lookup_models() == on_disk and "custom" in on_disk["rating_scales"]


def _mini_project(root: Path) -> Path:
    """A project tree with one conformed model and one lookup seed, its macro file rendered."""
    (root / "models" / "intermediate" / "cosrec").mkdir(parents=True)
    (root / "models" / "intermediate" / "cosrec" / "int_cosrec__turns_conformed.sql").write_text(
        "select 1", encoding="utf-8"
    )
    (root / "seeds" / "crsarena").mkdir(parents=True)
    (root / "seeds" / "crsarena" / "crsarena__rating_scales.csv").write_text("a\n", "utf-8")
    seed = _corpora_seed()
    (root / seed.MACRO_FILE).parent.mkdir(parents=True)
    (root / seed.MACRO_FILE).write_text(seed.render_macros(root), encoding="utf-8")
    assert seed.macro_differences(root) == []
    return root


@pytest.mark.parametrize(
    "change, line",
    [
        ("models/intermediate/crsarena/int_crsarena__users_conformed.sql", "'users': ['crsarena']"),
        ("models/intermediate/cosrec/int_cosrec__turns_conformed.sql", "'turns': []"),
        ("seeds/recllmsim/recllmsim__known_values.csv", "'known_values': ['recllmsim']"),
        ("seeds/crsarena/crsarena__rating_scales.csv", "'rating_scales': []"),
    ],
)
def test_macro_check_fails_when_a_model_or_seed_is_added_or_removed(tmp_path, change, line):
    seed = _corpora_seed()
    root = _mini_project(tmp_path)
    path = root / change
    if path.exists():
        path.unlink()  # listed, no longer on disk
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("select 1\n", encoding="utf-8")  # on disk, not listed
    diff = seed.macro_differences(root)
    assert len(diff) == 1 and "corpus_registry.sql line " in diff[0] and line in diff[0]


def test_macro_check_names_the_file_and_fails_the_script(tmp_path, monkeypatch, capsys):
    seed = _corpora_seed()
    root = _mini_project(tmp_path)
    monkeypatch.setattr(seed, "ROOT", root)
    corpora = root / "seeds" / "corpora.csv"
    corpora.write_text(registry.render_seed(), encoding="utf-8")
    monkeypatch.setattr(registry, "SEED_FILE", corpora)
    assert seed.main(["--check"]) == 0
    (root / "seeds" / "cosrec").mkdir()
    (root / "seeds" / "cosrec" / "cosrec__intent_taxonomy.csv").write_text("a\n", "utf-8")
    assert seed.main(["--check"]) == 1
    assert "corpus_registry.sql line" in capsys.readouterr().err
    assert seed.main([]) == 0 and seed.main(["--check"]) == 0  # rewritten


@pytest.mark.parametrize(
    "rel, problem",
    [
        (
            "models/intermediate/movielens/int_movielens__turns_conformed.sql",
            "not in ingest/corpora.toml",
        ),
        (
            "models/intermediate/cosrec/int_cosrec__votes_conformed.sql",
            "'votes' is not a core mart",
        ),
        (
            "models/marts/core/int_cosrec__turns_conformed.sql",
            "belongs in models/intermediate/cosrec/",
        ),
        ("seeds/movielens/movielens__rating_scales.csv", "not in ingest/corpora.toml"),
        ("seeds/cosrec/crsarena__rating_scales.csv", "belongs in seeds/crsarena/"),
    ],
)
def test_misplaced_model_or_seed_is_a_one_line_error_naming_the_file(tmp_path, rel, problem):
    seed = _corpora_seed()
    root = _mini_project(tmp_path)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("x\n", encoding="utf-8")
    with pytest.raises(CsrwhError) as err:
        seed.render_macros(root)
    assert err.value.message.startswith(rel) and problem in err.value.message
    assert "\n" not in err.value.message


# --------------------------------------------------------------------------- citations


@pytest.mark.parametrize("corpus", registry.declarations(), ids=registry.names())
def test_every_corpus_has_its_page_in_the_project(corpus):
    """The registry points every corpus to its page in the project (docs/corpora/<id>.md unless
    its entry names another), and the page names the corpus."""
    doc = PROJECT_ROOT / corpus.doc
    assert doc.is_file(), f"{corpus.id}: {corpus.doc} not found"
    assert doc.resolve().is_relative_to(PROJECT_ROOT / "docs")
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# ") and f"`{corpus.id}`" in text


@pytest.mark.parametrize("corpus", registry.declarations(), ids=registry.names())
def test_citation_is_the_documented_one_or_says_unknown(corpus):
    """A citation is the one the corpus' page gives (copied from the dataset's documentation),
    never invented; an unknown one is explained, and the page has no BibTeX entry either."""
    text = (PROJECT_ROOT / corpus.doc).read_text(encoding="utf-8")
    squash = lambda text: re.sub(r"\s+", " ", text).strip()
    if corpus.citation_known:
        assert corpus.citation.startswith("@")
        assert squash(corpus.citation) in squash(text)
    else:
        assert corpus.citation_note
        assert re.search(r"@\w+\{", text) is None


def test_a_corpus_entry_may_name_its_page(tmp_path):
    declared = tmp_path / "corpora.toml"
    declared.write_text(
        '[[corpus]]\nid = "alpha"\n\n[[corpus]]\nid = "beta"\ndoc = "docs/beta/README.md"\n',
        encoding="utf-8",
    )
    alpha, beta = registry.load(declared)
    assert (alpha.doc, beta.doc) == ("docs/corpora/alpha.md", "docs/beta/README.md")


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
    from csrwh.pipeline.run import _drop_names
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


def _unknown_at_ingest(tmp_path):
    from ingest import run_ingest

    run_ingest(tmp_path, tmp_path / "w.duckdb", ["movielens"], progress=False)


def _unknown_at_sample(tmp_path):
    from csrwh.sample import generate

    generate(tmp_path / "sample", corpora=["movielens"])


def _unknown_at_fetch(tmp_path):
    from csrwh.fetch import fetch

    fetch(["cosrec", "movielens"], tmp_path, mirror="http://127.0.0.1:9")


def _unknown_at_build(tmp_path):
    from csrwh.pipeline import build

    build(tmp_path, tmp_path / "w.duckdb", drop_corpora=["movielens"])


def _unknown_in_the_up_to_date_check(tmp_path, monkeypatch):
    from csrwh.pipeline import uptodate

    published = tmp_path / "w.duckdb"
    published.write_bytes(b"")
    monkeypatch.setattr(uptodate, "published_file_differs", lambda _: None)
    # not an error there (the build goes on and ingest raises it): the reason, same words
    raise CsrwhError(uptodate.why_not_up_to_date(tmp_path, published, ["movielens"]))


@pytest.mark.parametrize(
    "entry, prefix",
    [
        (_unknown_at_ingest, ""),
        (_unknown_at_sample, ""),
        (_unknown_at_fetch, ""),
        (_unknown_at_build, "--drop-corpus "),
        (_unknown_in_the_up_to_date_check, ""),
    ],
)
def test_unknown_corpus_is_the_registry_message_at_every_entry_point(
    tmp_path, monkeypatch, entry, prefix
):
    """One resolver (registry.resolve), one message: ingest, sample, fetch, build's
    --drop-corpus and the no-change check all say '<name>: unknown corpus' with the same hint."""
    with pytest.raises(CsrwhError) as err:
        registry.resolve(["movielens"])
    expected_hint = err.value.hint
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CsrwhError) as err:
        if entry is _unknown_in_the_up_to_date_check:
            entry(tmp_path, monkeypatch)
        else:
            entry(tmp_path)
    assert err.value.message == f"{prefix}movielens: unknown corpus"
    if entry is not _unknown_in_the_up_to_date_check:
        assert err.value.hint == expected_hint
    assert not (tmp_path / "cosrec").exists() and not (tmp_path / "sample").exists()


def test_fetch_names_a_known_corpus_without_upstream_as_such():
    with pytest.raises(CsrwhError) as err:
        resolve_corpora(["custom"])
    assert err.value.message == "custom: corpus custom has no upstream to fetch"
    assert "cosrec" in err.value.hint and "custom" not in err.value.hint


def test_display_names_follow_corpus_order():
    from csrwh.reading.report.settings import CORPUS_NAMES

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
        ('[[corpus]]\nid = "beta"\nturn_roles = ["bot"]\n', "`turn_roles` must list some of"),
        ('[[corpus]]\nid = "beta"\nturn_roles = []\n', "`turn_roles` must list some of"),
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
    assert alpha.turn_roles == ("user", "system")  # the default: both sides
    user_only = _GOOD.replace('id = "alpha"', 'id = "alpha"\nturn_roles = ["user"]')
    path.write_text(user_only + '[[corpus.subset]]\nname = "s"\ndescription = "d"\n', "utf-8")
    (alpha,) = registry.load(path)
    assert alpha.turn_roles == ("user",)
    assert {row["turn_roles"] for row in registry.seed_rows((alpha,))} == {"user"}
