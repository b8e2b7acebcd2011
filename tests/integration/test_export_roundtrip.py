"""What we export, we import: `csrwh export --format jsonl` dropped into custom/ builds again.

Issue 23: each corpus's exported records (``conversations.jsonl``: ``messages`` as
``{role, content}``, ``turn_annotations`` with each turn's intents and ratings, ``ratings`` as a
list) are written to ``custom/<corpus>/conversations.jsonl`` of a new data folder and built with
``csrwh build``. Every conversation, turn (role, text, order), rating (aspect, value, raw text,
rater, comment) and turn label (label, annotator, primary) comes back identical, under the
own-corpus ids: ``custom:<corpus>/<conversation_id>``, subsets ``<corpus>/<subset>``, users and
raters ``custom:<corpus>/<id>``; each rating on its scale, normalised alike (the export's
``corpora/<corpus>/corpus.json`` is copied beside its records); every user with their subset
and profile (``corpora/<corpus>/users.jsonl`` is copied too). Done for the generated sample (every corpus it has) and for the
real corpora in ../shared/corpora. A turn without text (NULL) is exported as "" (the
chat-template ``content`` is a string) and comes back as "".
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from csrwh.pipeline import build
from csrwh.reading.export import export


def own_corpus_from_export(warehouse: Path, root: Path) -> tuple[Path, dict[str, int]]:
    """Export ``warehouse`` as jsonl, split it by corpus into ``<root>/data/custom/<corpus>/``;
    the data folder and the number of conversations per corpus."""
    exported = root / "export"
    export(warehouse, exported, output_format="jsonl")
    data = root / "data"
    files: dict[str, object] = {}
    counts: dict[str, int] = {}
    try:
        with (exported / "conversations.jsonl").open(encoding="utf-8") as lines:
            for line in lines:
                corpus = json.loads(line)["corpus"]
                if corpus not in files:
                    folder = data / "custom" / corpus
                    folder.mkdir(parents=True)
                    files[corpus] = (folder / "conversations.jsonl").open("w", encoding="utf-8")
                files[corpus].write(line)  # type: ignore[attr-defined]
                counts[corpus] = counts.get(corpus, 0) + 1
    finally:
        for handle in files.values():
            handle.close()  # type: ignore[attr-defined]
    for corpus in counts:  # the export's description of each corpus (scales, licence, ...)
        for name in ("corpus.json", "users.jsonl"):  # ... and its users with their profiles
            described = exported / "corpora" / corpus / name
            (data / "custom" / corpus / name).write_bytes(described.read_bytes())
    return data, counts


#: per mart: the original rows (ids mapped as the own corpus names them) and the rebuilt rows
COMPARED = {
    "conversations": (
        """select 'custom:' || corpus || '/' || conversation_id, corpus || '/' || subset,
            domain_or_task, task_type, language,
            case when user_id is not null then 'custom:' || corpus || '/' || user_id end,
            system_id, user_sentiment, user_satisfaction, n_turns
        from original.main.conversations""",
        """select conversation_id, subset, domain_or_task, task_type, language, user_id, system_id,
            user_sentiment, user_satisfaction, n_turns
        from rebuilt.main.conversations""",
    ),
    "turns": (
        """select 'custom:' || corpus || '/' || conversation_id, turn_index, role, coalesce(text, '')
        from original.main.turns""",
        "select conversation_id, turn_index, role, text from rebuilt.main.turns",
    ),
    "ratings": (
        """select 'custom:' || corpus || '/' || conversation_id, turn_index, aspect, value, raw_value,
            rater_kind, case when rater_id is not null then 'custom:' || corpus || '/' || rater_id end,
            comment, scale_min, scale_max, higher_is_better, value_normalized
        from original.main.ratings""",
        """select conversation_id, turn_index, aspect, value, raw_value, rater_kind, rater_id, comment,
            scale_min, scale_max, higher_is_better, value_normalized
        from rebuilt.main.ratings""",
    ),
    "intents": (
        """select 'custom:' || corpus || '/' || conversation_id, turn_index, raw_label, annotator,
            is_primary
        from original.main.intents where turn_index is not null""",
        """select conversation_id, turn_index, raw_label, annotator, is_primary
        from rebuilt.main.intents""",
    ),
    # every user, also those without a conversation (profile users), with their profiles; the
    # users file names a user as the conversation records do (the global user_id)
    "users": (
        """select 'custom:' || corpus || '/' || user_id, corpus || '/' || user_id,
            corpus || '/' || subset, profile_text, keywords, attributes
        from original.main.users""",
        """select user_id, source_user_id, subset, profile_text, keywords, attributes
        from rebuilt.main.users""",
    ),
}


def assert_round_trip(
    original: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, int]:
    data, counts = own_corpus_from_export(original, root)
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(root / "target"))
    assert build(data, root / "warehouse" / "rebuilt.duckdb").published
    rows = {}
    with duckdb.connect() as con:
        con.execute(f"attach '{original}' as original (read_only)")
        con.execute(f"attach '{root / 'warehouse' / 'rebuilt.duckdb'}' as rebuilt (read_only)")
        corpora = dict(
            con.execute(
                "select split_part(source_conversation_id, '/', 1), count(*) "
                "from rebuilt.main.conversations group by all"
            ).fetchall()
        )
        assert corpora == counts  # one own corpus per exported corpus, every conversation
        for mart, (before, after) in COMPARED.items():
            lost, gained, n = con.execute(
                f"select (select count(*) from ({before} except all {after})),"
                f" (select count(*) from ({after} except all {before})),"
                f" (select count(*) from ({before}))"
            ).fetchone()
            assert (lost, gained) == (0, 0), f"{mart}: {lost} rows lost, {gained} rows new"
            rows[mart] = n
    return rows


def test_sample_export_builds_again_as_own_corpora(
    sample_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = assert_round_trip(sample_warehouse, tmp_path, monkeypatch)
    assert min(rows.values()) > 0, rows  # every kind of record took part


@pytest.mark.integration
def test_real_corpora_export_builds_again_as_own_corpora(
    real_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = assert_round_trip(real_warehouse, tmp_path, monkeypatch)
    assert min(rows.values()) > 0, rows
