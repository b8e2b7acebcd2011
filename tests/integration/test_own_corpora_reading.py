"""A warehouse of own corpora only (``custom/<name>/``), read end to end: a query log (user
turns only) publishes with a warning, and the report names, counts and charts every own
corpus. The input: the documented examples and the ``edge`` corpus of
tests/integration/custom_corpus_oracle.py, plus a ``querylog`` of search requests."""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path
from unittest import mock

import duckdb
import pytest
from custom_corpus_oracle import write_custom_data

from csrwh.gate.run import gate
from csrwh.pipeline import build

QUERY_LOG = "querylog"
N_QUERIES = 50


def write_query_log(data: Path) -> None:
    """A lab's search log: one user turn per conversation, nothing else."""
    folder = data / "custom" / QUERY_LOG
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"id": f"q{i}", "messages": [{"role": "user", "text": f"cheap flights {i}"}]})
        for i in range(N_QUERIES)
    ]
    (folder / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def own_build(module_tmp_path: Path):
    root = module_tmp_path
    with mock.patch.dict(os.environ, CSRWH_DBT_TARGET_PATH=str(root / "target")):
        data = root / "data"
        write_custom_data(data)
        write_query_log(data)
        warehouse = root / "warehouse" / "own.duckdb"
        result = build(data, warehouse, gates=[gate])  # what `csrwh build` runs
        yield data, warehouse, result


def own_corpora(data: Path) -> list[str]:
    return sorted(p.name for p in (data / "custom").iterdir() if any(p.glob("*.jsonl")))


def test_a_query_log_publishes_and_its_user_turn_share_is_a_warning(own_build) -> None:
    _, warehouse, result = own_build
    assert result.published
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            "select expectation, severity, success, offending_rows from dq_results "
            "where suite = 'turns' and expectation like '%user_turn_share%'"
        ).fetchall()
        n_queries = con.execute(
            "select count(*) from conversations where subset = ? and n_system_turns = 0",
            [QUERY_LOG],
        ).fetchone()[0]
    assert n_queries == N_QUERIES
    found = {name: (severity, success, offending) for name, severity, success, offending in rows}
    assert found["user_turn_share_plausible"][1] is True  # the public corpora's rule
    severity, success, offending = found["own_corpus_user_turn_share_unusual"]
    assert (severity, success) == ("warning", False)
    assert [(r["own_corpus"], r["user_share"]) for r in json.loads(offending)] == [
        (f"custom:{QUERY_LOG}", 1.0)
    ]


@pytest.fixture(scope="module")
def own_report(own_build, module_tmp_path: Path) -> Path:
    from csrwh.reading.report import build_report

    _, warehouse, _ = own_build
    out = module_tmp_path / "report"
    build_report(warehouse, out, progress=False)
    return out


def _table(out: Path, name: str) -> list[dict[str, str]]:
    with (out / "tables" / f"{name}.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_a_warehouse_of_own_corpora_gives_a_full_report(own_build, own_report: Path) -> None:
    data, warehouse, _ = own_build
    page = (own_report / "statistics.html").read_text("utf-8")
    header = re.search(r"Corpora in this warehouse: <strong>(.*?)</strong>", page)
    assert header is not None
    with duckdb.connect(str(warehouse), read_only=True) as con:
        subsets = [
            s
            for (s,) in con.execute(
                "select distinct subset from conversations order by 1"
            ).fetchall()
        ]
        n_custom = con.execute("select count(*) from conversations").fetchone()[0]
    assert header.group(1) == f"custom ({', '.join(subsets)})"
    for name in own_corpora(data):  # every own corpus is named
        assert any(s == name or s.startswith(f"{name}/") for s in subsets)
    lengths = _table(own_report, "conversation_length")
    assert [(r["corpus"], int(r["n_conversations"])) for r in lengths] == [("custom", n_custom)]
    for alt in (  # charted: lengths, utterance lengths, labels, ratings
        "Histograms of utterances per conversation per corpus",
        "Box plots of words per utterance by corpus and role",
        "Stacked bars of intent family shares",
        "Stacked bars of rating value shares per aspect",
    ):
        assert f'alt="{alt}"' in page, alt
