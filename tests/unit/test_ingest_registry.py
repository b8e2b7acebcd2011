"""The corpus declarations: tables, patterns, hints; and a round trip over the sample generator."""

from __future__ import annotations

import importlib
import tomllib

import pytest

from ingest import registry, run_ingest
from ingest.discover import discover
from ingest.spec import FileSpec, Format, RecordKey, _glob_regex


def test_corpora_are_the_registry_files_entries_in_order():
    """The ids and folders (read here from ingest/corpora.toml directly) are the ingest specs'."""
    entries = tomllib.loads(registry.REGISTRY_FILE.read_text(encoding="utf-8"))["corpus"]
    assert registry.names() == [e["id"] for e in entries]
    assert [c.folder for c in registry.CORPORA] == [e.get("folder", e["id"]) for e in entries]
    tables = registry.raw_tables()
    assert len(tables) == len(set(tables)) >= len(registry.CORPORA)
    for c in registry.CORPORA:
        assert all(t.startswith(c.name + "__") for t in c.tables)


@pytest.mark.parametrize("corpus", registry.declarations(), ids=registry.names())
def test_corpus_modules_declare_files_as_data(corpus):
    mod = importlib.import_module(f"ingest.{corpus.id}")
    assert mod.__doc__ and len(mod.__doc__.strip()) > 40
    assert mod.FILES and all(isinstance(f, FileSpec) for f in mod.FILES)
    # the hint for an absent corpus says how to get it: by hand (a zip) or `csrwh fetch`
    kind = (corpus.upstream or {}).get("kind")
    if kind == "manual_zip":
        assert "--from-zip" in mod.ABSENT_HINT and ".zip" in mod.ABSENT_HINT
    elif kind is not None:
        assert f"csrwh fetch {corpus.id}" in mod.ABSENT_HINT


def test_lookup_by_name_or_folder():
    assert registry.get("crsarena") is registry.get("crsarena-dial") is registry.get(" CRSArena ")
    # and by alias (ingest once said "unknown corpus" for what fetch accepted)
    assert registry.get("crs-arena") is registry.get("crsarena")
    with pytest.raises(KeyError):
        registry.get("nope")


@pytest.mark.parametrize(
    "pattern, path, ok",
    [
        ("dataset/*/conversations.jsonl", "dataset/raw/conversations.jsonl", True),
        ("dataset/*/conversations.jsonl", "dataset/a/b/conversations.jsonl", False),
        ("dataset/*/conversations.jsonl", "dataset/raw/conversations.jsonl.bak", False),
        ("**/*.json", "top.json", True),
        ("**/*.json", "real_human_user/User_1/\u65c5\u884c\u89c4\u5212/0.json", True),
        ("**/*.json", "a/b.jsonl", False),
        ("*-products.jsonl", "news-products.jsonl", True),
        ("*-products.jsonl", "sub/news-products.jsonl", False),
        ("Dialogs.json", "Dialogs.json", True),
        ("Dialogs.json", "xDialogs.json", False),
        ("data/crs_arena_dial_*.json", "data/crs_arena_dial_open.json", True),
        ("data/crs_arena_dial_*.json", "data/merged/crs_arena_dial_open.json", False),
        ("data/votes_?.csv", "data/votes_a.csv", True),
    ],
)
def test_glob(pattern, path, ok):
    assert (_glob_regex(pattern).match(path) is not None) is ok


def test_discover_ignores_dot_files_and_reports_unmatched(tmp_path, write_file):
    root = tmp_path / "cosrec"
    write_file(root, "dataset/crowd/quality.jsonl", "{}\n")
    write_file(root, "dataset/crowd/.quality.jsonl.swp", "x")
    write_file(root, ".git/dataset/crowd/quality.jsonl", "{}\n")
    write_file(root, ".csrwh-manifest.json", "{}")
    write_file(root, "README.md", "#")
    files, ignored = discover(registry.get("cosrec"), root)
    assert [(f.rel, f.spec.table) for f in files] == [
        ("dataset/crowd/quality.jsonl", "cosrec__quality")
    ]
    assert ignored == ["README.md"]


def test_record_key_kinds():
    assert RecordKey.field("pid").describe() == "field 'pid'"
    assert {f.format for f in registry.get("cosrec").files} == {Format.JSONL, Format.QRELS}


def test_sample_generator_round_trip(tmp_path, duck):
    """Every file the synthetic generator writes lands, with zero rejects, in all 15 tables."""
    sample = pytest.importorskip("csrwh.sample")
    if not hasattr(sample, "generate"):
        pytest.skip("csrwh.sample.generate not available yet")
    counts = sample.generate(tmp_path / "data", scale=1, seed=7)
    s = run_ingest(tmp_path / "data", duck, progress=False)
    assert s.records_rejected == 0, s.rejected_files
    assert s.missing_corpora == []
    assert s.files_loaded == sum(counts.values())
    empty = [
        t
        for t in registry.raw_tables()
        if duck.execute(f"SELECT count(*) FROM raw.{t}").fetchone()[0] == 0
    ]
    # the sample's own corpora have no users.jsonl (one would change the golden reports); the
    # users file is landed by tests/unit/test_custom_users.py and test_build_custom.py
    assert empty == ["custom__users"]
    again = run_ingest(tmp_path / "data", duck, progress=False)
    assert again.files_loaded == 0 and again.files_unchanged == s.files_loaded
