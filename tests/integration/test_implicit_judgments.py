"""The implicit judgments of the generated sample: RecoReact's selections and ConvSearch's
clicks land in `relevance_judgments`, checked against the sample's own files read here with
plain ``json`` (the build records the folder it read in ``build_info.data_dir``).

* RecoReact: topic ``<domain>:<uid>#<round>`` (one user's round), document the product id,
  grade 1 for every product in the round's ``selected1..3``; the files do not list the items
  shown, so there are no 0 grades.
* ConvSearch: topic the query request id, document the ``href`` of a clicked result on any of
  the query's SERPs, grade 1; navigator-tab clicks are not results; the SERP logs list clicks
  only, so there are no 0 grades.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from csrwh.sample import convsearch as convsearch_sample
from csrwh.sample import recoreact as recoreact_sample


@pytest.fixture(scope="module")
def warehouse(sample_warehouse: Path):
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        yield con


@pytest.fixture(scope="module")
def data_dir(warehouse) -> Path:
    (path,) = warehouse.execute("select data_dir from build_info").fetchone()
    return Path(path)


def judgments(con, corpus: str) -> dict[tuple[str, str], tuple]:
    """(topic, doc) -> (grade, kind, conversation_id, turn_index, user_id, item_id, judgment_id)."""
    rows = con.execute(
        "select topic_id, doc_id, grade, judgment_kind, conversation_id, turn_index, user_id, "
        "item_id, judgment_id, collection from relevance_judgments where corpus = ?",
        [corpus],
    ).fetchall()
    out = {(r[0], r[1]): r[2:] for r in rows}
    assert len(out) == len(rows), f"{corpus}: a (topic, doc) pair is judged twice"
    return out


def source_turn_ids(con) -> dict[tuple[str, int], str]:
    rows = con.execute("select conversation_id, turn_index, source_turn_id from turns").fetchall()
    return {(c, i): s for c, i, s in rows}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


# --------------------------------------------------------------------------- RecoReact


def recoreact_expected(folder: Path) -> tuple[dict, dict]:
    """((topic, pid) -> (conversation id, impression id, item id or None)), {topic: iid}."""
    expected: dict[tuple[str, str], tuple[str, str, str | None]] = {}
    for domain in recoreact_sample.DOMAINS:
        pids = {p["pid"] for p in read_jsonl(folder / f"{domain}-products.jsonl")}
        for impression in read_jsonl(folder / f"{domain}-impressions.jsonl"):
            uid, iid = impression["uid"], impression["iid"]
            topic = f"{domain}:{uid}#{impression['round']}"
            for step in (1, 2, 3):
                for pid in impression.get(f"selected{step}") or []:
                    item = f"recoreact:{domain}:{pid}" if pid in pids else None
                    expected[(topic, pid)] = (f"recoreact:{domain}:{uid}", iid, item)
    return expected


def test_recoreact_selections_are_judgments_of_each_round(warehouse, data_dir: Path) -> None:
    expected = recoreact_expected(data_dir / recoreact_sample.FOLDER)
    got = judgments(warehouse, "recoreact")
    assert expected, "the sample must have selections"
    assert set(got) == set(expected)
    turn_sources = source_turn_ids(warehouse)
    for (topic, pid), (conversation, iid, item) in expected.items():
        grade, kind, conversation_id, turn_index, user_id, item_id, judgment_id, collection = got[
            (topic, pid)
        ]
        assert (grade, kind, collection) == (1, "selection", "recoreact")
        assert judgment_id == f"recoreact:{topic} {pid}"
        # a RecoReact conversation is one user's session in one domain: same global id
        assert conversation_id == user_id == conversation
        assert item_id == item
        # the topic's turn is the round's request
        assert turn_sources[(conversation_id, turn_index)] == f"{iid}:request"


def test_a_product_selected_in_two_steps_of_a_round_is_one_judgment(
    warehouse, data_dir: Path
) -> None:
    folder = data_dir / recoreact_sample.FOLDER
    repeated = [
        (f"{domain}:{imp['uid']}#{imp['round']}", pid)
        for domain in recoreact_sample.DOMAINS
        for imp in read_jsonl(folder / f"{domain}-impressions.jsonl")
        for pid in set(imp["selected1"]) & (set(imp["selected2"]) | set(imp["selected3"]))
    ]
    assert repeated, "the sample must select some product twice in one round"
    got = judgments(warehouse, "recoreact")
    assert all(got[key][0] == 1 for key in repeated)


# --------------------------------------------------------------------------- ConvSearch


def test_convsearch_clicks_are_judgments_of_their_query(warehouse, data_dir: Path) -> None:
    queries = json.loads(
        (data_dir / convsearch_sample.FOLDER / "SearchBehaviors.json").read_text("utf-8")
    )
    expected: dict[tuple[str, str], tuple[str, str]] = {}
    tab_clicks = set()
    for query in queries:
        topic = str(query["id"])
        for serp in query["serp_pagelogs"]:
            for click in json.loads(serp["clicked_results"]):
                if click["type"] == "tab":
                    tab_clicks.add((topic, click["href"]))
                    continue
                dialogue = f"convsearch:{query['belong_dialog']}"
                expected[(topic, click["href"])] = (dialogue, str(query["belong_turn"]))
    got = judgments(warehouse, "convsearch")
    assert expected and tab_clicks, "the sample must have result clicks and tab clicks"
    assert set(got) == set(expected)
    assert not tab_clicks & set(got)
    turn_sources = source_turn_ids(warehouse)
    for (topic, href), (dialogue, turn_id) in expected.items():
        grade, kind, conversation_id, turn_index, user_id, item_id, judgment_id, collection = got[
            (topic, href)
        ]
        assert (grade, kind, collection) == (1, "click", "convsearch")
        assert judgment_id == f"convsearch:{topic} {href}"
        assert conversation_id == dialogue
        assert turn_sources[(conversation_id, turn_index)] == turn_id
        # the agent clicked, not the conversation's user; web results are not items
        assert user_id is None and item_id is None


# --------------------------------------------------------------------------- kinds


@pytest.mark.parametrize(("corpus", "kind"), [("recoreact", "selection"), ("convsearch", "click")])
def test_implicit_kinds_are_declared_with_their_scale(warehouse, corpus: str, kind: str) -> None:
    kinds = warehouse.execute(
        "select distinct judgment_kind from relevance_judgments where corpus = ?", [corpus]
    ).fetchall()
    assert kinds == [(kind,)]
    declared = warehouse.execute(
        "select grade_min, grade_max, is_implicit from seeds.judgment_kinds "
        "where corpus = ? and judgment_kind = ?",
        [corpus, kind],
    ).fetchall()
    assert declared == [(0, 1, True)]
    (outside,) = warehouse.execute(
        "select count(*) from relevance_judgments where corpus = ? and grade not between 0 and 1",
        [corpus],
    ).fetchone()
    assert outside == 0
