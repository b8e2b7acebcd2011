"""`csrwh build` on the real corpora: dbt passes clean, and corpus_stats equals counts
computed here straight from the files (json / line parsing — a different code path)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import duckdb
import pytest

from csrwh.build import build

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def real_build(real_corpora: Path, tmp_path_factory: pytest.TempPathFactory):
    import os

    root = tmp_path_factory.mktemp("real_build")
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(root / "target")
    try:
        result = build(real_corpora, root / "csr.duckdb")
    finally:
        os.environ.pop("CSRWH_DBT_TARGET_PATH", None)
    con = duckdb.connect(str(root / "csr.duckdb"), read_only=True)
    yield result, con
    con.close()


def stats(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], dict]:
    frame = con.sql("select * from corpus_stats").pl()
    return {(row["corpus"], row["subset"]): row for row in frame.iter_rows(named=True)}


def test_build_publishes_with_no_dbt_error_or_warning(real_build) -> None:
    result, _ = real_build
    assert result.published
    assert result.dbt is not None and result.dbt.success
    assert result.dbt.failures == [] and result.dbt.warnings == []
    assert result.records_rejected == 0


def test_cosrec_counts_match_the_files(real_build, real_corpora: Path) -> None:
    _, con = real_build
    figures = stats(con)
    for partition in ("crowd", "curated"):
        lines = (real_corpora / "cosrec/dataset" / partition / "conversations.jsonl").read_text("utf-8").splitlines()
        texts = [next(iter(json.loads(line).values())) for line in lines if line.strip()]
        utterances = [u for text in texts for u in text.split("\n") if u.startswith(("U:", "S:"))]
        row = figures[("cosrec", partition)]
        assert row["n_conversations"] == len(texts)
        assert row["n_user_turns"] == sum(u.startswith("U:") for u in utterances)
        assert row["n_turns"] == len(utterances)


def test_crsarena_counts_match_the_files(real_build, real_corpora: Path) -> None:
    _, con = real_build
    figures = stats(con)
    for environment in ("open", "closed"):
        dialogues = json.loads((real_corpora / f"crsarena-dial/data/crs_arena_dial_{environment}.json").read_text("utf-8"))
        row = figures[("crsarena", environment)]
        assert row["n_conversations"] == len(dialogues)
        assert row["n_turns"] == sum(len(d["conversation"]) for d in dialogues)
        assert row["n_user_turns"] == sum(
            u["participant"] == "USER" for d in dialogues for u in d["conversation"]
        )
        with open(real_corpora / f"crsarena-dial/data/votes_{environment}.csv", newline="", encoding="utf-8") as fh:
            n_votes = sum(1 for _ in csv.DictReader(fh))
        assert con.execute("select count(*) from votes where environment = ?", [environment]).fetchall()[0][0] == n_votes


def test_recllmsim_counts_match_the_files(real_build, real_corpora: Path) -> None:
    _, con = real_build
    figures = stats(con)
    for subset in ("LLM_agent_user", "real_human_user"):
        files = sorted((real_corpora / "recllmsim" / subset).rglob("*.json"))
        histories = [json.loads(p.read_text("utf-8"))["history"] for p in files]
        row = figures[("recllmsim", subset)]
        assert row["n_conversations"] == len(files)
        assert row["n_user_turns"] == sum(m["role"] == "user" for h in histories for m in h)
        assert row["n_turns"] == sum(len(h) for h in histories)


def test_relevance_judgments_cover_every_qrels_line(real_build, real_corpora: Path) -> None:
    _, con = real_build
    lines = [l for l in (real_corpora / "cosrec/dataset/curated/qrels.qrels").read_text("utf-8").splitlines() if l.strip()]
    kinds = con.execute(
        "select judgment_kind, count(*) from relevance_judgments group by 1 order by 1"
    ).fetchall()
    assert dict(kinds) == {
        "recommendation": sum("#" in l.split()[0] for l in lines),
        "search": sum("#" not in l.split()[0] for l in lines),
    }
