"""Each corpus of the registry is one dbt source (its own staging folder, schema raw) holding
exactly the raw tables its ingest writes, and every description resolves its {% docs %} block."""

from __future__ import annotations

from pathlib import Path

import pytest

from csrwh.dbt_support.dbt_sources import raw_tables
from ingest import registry


def test_one_dbt_source_per_corpus_with_exactly_its_raw_tables() -> None:
    declared = raw_tables()
    for corpus in registry.CORPORA:
        in_source = {t.identifier for t in declared.values() if t.source == corpus.name}
        assert in_source == set(corpus.tables), corpus.name
        for table in corpus.tables:
            assert declared[table].name == table.removeprefix(f"{corpus.name}__")


def test_descriptions_resolve_their_docs_blocks() -> None:
    for table in raw_tables().values():
        assert table.description and "{{" not in table.description
        if table.source != "ingest":  # the landing tables; ingest's bookkeeping lists no columns
            assert table.columns["payload"] and "{{" not in table.columns["payload"]


def _project(root: Path, description: str) -> Path:
    staging = root / "models" / "staging" / "demo"
    staging.mkdir(parents=True)
    (root / "models" / "staging" / "_raw__docs.md").write_text(
        "{% docs raw_payload %}\nThe record.\n{% enddocs %}\n", encoding="utf-8"
    )
    (staging / "_demo__sources.yml").write_text(
        "version: 2\nsources:\n  - name: demo\n    schema: raw\n    tables:\n"
        "      - name: things\n        identifier: demo__things\n"
        f"        columns:\n          - name: payload\n            description: '{description}'\n",
        encoding="utf-8",
    )
    return root


def test_a_docs_block_is_substituted_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    good = _project(tmp_path / "good", '{{ doc("raw_payload") }}')
    assert raw_tables(good)["demo__things"].columns == {"payload": "The record."}
    bad = _project(tmp_path / "bad", '{{ doc("raw_payloads") }}')
    with pytest.raises(ValueError, match=r"demo\.things: doc\('raw_payloads'\) has no"):
        raw_tables(bad)
