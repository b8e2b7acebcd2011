"""Tests for csrwh.sample: deterministic, format-faithful synthetic corpora."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from csrwh.errors import CsrwhError
from csrwh.sample import CORPORA, MARKER, generate
from ingest import registry
from ingest.spec import Format

COSREC_FILES = [
    "dataset/raw/conversations.jsonl",
    *(
        f"dataset/crowd/{n}.jsonl"
        for n in ("conversations", "quality", "intent_annotations", "keywords", "profiles")
    ),
    *(
        f"dataset/curated/{n}.jsonl"
        for n in ("conversations", "quality", "intents", "keywords", "profiles")
    ),
    "dataset/curated/qrels.qrels",
]
CRSARENA_FILES = [
    "data/crs_arena_dial_open.json",
    "data/crs_arena_dial_closed.json",
    "data/votes_open.csv",
    "data/votes_closed.csv",
]
RECOREACT_FILES = [
    f"{d}-{e}.jsonl"
    for d in ("news", "travel", "food")
    for e in ("products", "users", "impressions")
]


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def jsonl(path: Path) -> list:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _lines(text: str) -> int:
    return len(text.splitlines())


def _csv_rows(text: str) -> int:
    return len(list(csv.reader(io.StringIO(text)))) - 1  # the header row is no record


#: records in a file of each format, counted the way ingest reads the format
RECORDS_IN = {
    Format.JSONL: _lines,
    Format.QRELS: _lines,
    Format.CSV: _csv_rows,
    Format.JSON_ARRAY: lambda text: len(json.loads(text)),
    Format.JSON_FILE: lambda text: 1,
}


def n_records(root: Path) -> dict[str, int]:
    """Records per corpus folder: each file counted by the format its corpus' file spec
    (ingest/<id>.py, through the registry) declares for it."""
    counts = {c: 0 for c in CORPORA}
    for p in root.rglob("*"):
        if not p.is_file() or p.name.startswith("."):
            continue
        folder, *rest = p.relative_to(root).parts
        spec = registry.get(folder).spec_for("/".join(rest))
        assert spec is not None, f"{p}: the sample wrote a file its corpus does not declare"
        assert spec.format in RECORDS_IN, f"{p}: no record count for format {spec.format}"
        counts[folder] += RECORDS_IN[spec.format](p.read_text(encoding="utf-8"))
    return counts


@pytest.fixture(scope="module")
def sample(module_tmp_path) -> tuple[Path, dict[str, int]]:
    out = module_tmp_path
    counts = generate(out, scale=1, seed=0)
    return out, counts


# --------------------------------------------------------------------------- API and determinism


def test_returns_file_counts_per_corpus(sample):
    out, counts = sample
    assert list(counts) == list(CORPORA)
    for corpus, n in counts.items():
        files = [p for p in (out / corpus).rglob("*") if p.is_file() and p.name != MARKER]
        assert len(files) == n
    assert counts["cosrec"] == len(COSREC_FILES)
    assert counts["crsarena-dial"] == 4
    assert counts["convsearch"] == 2
    assert counts["recoreact"] == 9


def test_same_seed_same_bytes_and_other_seed_differs(sample, tmp_path):
    out, _ = sample
    again = tmp_path / "again"
    generate(again, scale=1, seed=0)
    assert snapshot(again) == snapshot(out)

    other = tmp_path / "other"
    generate(other, scale=1, seed=1)
    first, second = snapshot(out), snapshot(other)
    for corpus in CORPORA:
        a = {k: v for k, v in first.items() if k.startswith(corpus + "/") and MARKER not in k}
        b = {k: v for k, v in second.items() if k.startswith(corpus + "/") and MARKER not in k}
        assert a != b, corpus
    for rel in COSREC_FILES + RECOREACT_FILES:
        prefix = "cosrec/" if rel.startswith("dataset") else "recoreact/"
        assert first[prefix + rel] != second[prefix + rel], rel


def test_single_corpus_matches_full_run(sample, tmp_path):
    out, _ = sample
    counts = generate(tmp_path, corpora=["crsarena", "recoreact"])
    assert list(counts) == ["crsarena-dial", "recoreact"]
    mine = snapshot(tmp_path)
    full = snapshot(out)
    assert mine == {k: v for k, v in full.items() if k.split("/")[0] in counts}


def test_unknown_corpus_and_bad_scale_raise(tmp_path):
    with pytest.raises(CsrwhError):
        generate(tmp_path, corpora=["nope"])
    with pytest.raises(CsrwhError):
        generate(tmp_path, scale=0)


def test_rerun_with_smaller_scale_removes_stale_files(tmp_path):
    generate(tmp_path, scale=2, corpora=["recllmsim"])
    big = {p for p in (tmp_path / "recllmsim").rglob("*.json") if p.name != MARKER}
    counts = generate(tmp_path, scale=1, corpora=["recllmsim"])
    small = {p for p in (tmp_path / "recllmsim").rglob("*.json") if p.name != MARKER}
    assert len(small) == counts["recllmsim"] < len(big)
    assert not (tmp_path / "recllmsim/real_human_user/User_7").exists()
    assert not (tmp_path / "recllmsim/human_exp_V2/User_3").exists()
    assert (tmp_path / "recllmsim/human_exp_V2/User_2").is_dir()


def test_a_rerun_never_writes_through_a_hard_link(tmp_path):
    """An earlier sample's data file that became a hard link to someone else's file is replaced
    by a new file on a rerun: the other file keeps its bytes."""
    out = tmp_path / "out"
    generate(out, corpora=["recoreact"])
    written = sorted(p for p in (out / "recoreact").glob("*.jsonl"))
    precious = tmp_path / "precious.jsonl"
    precious.write_bytes(b"my own data\n")
    for path in written:
        path.unlink()
        os.link(precious, path)
    generate(out, corpora=["recoreact"])
    assert precious.read_bytes() == b"my own data\n"
    assert written and all(p.read_bytes() != b"my own data\n" for p in written)
    assert not list((out / "recoreact").glob(".*.tmp"))


def test_refuses_to_overwrite_fetched_data(tmp_path):
    (tmp_path / "cosrec").mkdir()
    (tmp_path / "cosrec/.csrwh-manifest.json").write_text("{}")
    with pytest.raises(CsrwhError):
        generate(tmp_path, corpora=["cosrec"])


def test_scale_two_doubles_the_records(sample, tmp_path):
    out, _ = sample
    one = n_records(out)
    generate(tmp_path, scale=2)
    two = n_records(tmp_path)
    for corpus in CORPORA:
        assert 1.7 <= two[corpus] / one[corpus] <= 2.3, (corpus, one[corpus], two[corpus])


# --------------------------------------------------------------------------- CoSRec


def test_cosrec_files_and_one_key_lines(sample):
    out, _ = sample
    root = out / "cosrec"
    for rel in COSREC_FILES:
        assert (root / rel).is_file(), rel
    for rel in COSREC_FILES:
        if not rel.endswith(".jsonl"):
            continue
        text = (root / rel).read_text(encoding="utf-8")
        assert text.endswith("\n")
        for line in text.splitlines():
            record = json.loads(line)
            assert isinstance(record, dict) and len(record) == 1
            assert line == json.dumps(record)  # upstream: default separators, ASCII escapes
    raw = jsonl(root / "dataset/raw/conversations.jsonl")
    assert 100 <= len(raw) <= 200
    assert next(iter(raw[0])) == "CoSRec-Raw_1"


def test_cosrec_conversations_alternate_and_annotations_fit(sample):
    out, _ = sample
    root = out / "cosrec/dataset"
    convs = {k: v for r in jsonl(root / "crowd/conversations.jsonl") for k, v in r.items()}
    n_user_total = 0
    for text in convs.values():
        lines = text.split("\n")
        assert lines[0].startswith("U: ")
        for i, line in enumerate(lines):
            assert line.startswith("U: " if i % 2 == 0 else "S: ")
        n_user_total += sum(line.startswith("U: ") for line in lines)
    assert 6 <= n_user_total / len(convs) <= 10

    annotated = 0
    for record in jsonl(root / "crowd/intent_annotations.jsonl"):
        ((cid, utterances),) = record.items()
        n_user = sum(line.startswith("U: ") for line in convs[cid].split("\n"))
        annotated += len(utterances)
        for u in utterances:
            assert 0 <= u["utterance"] < n_user
            assert 3 <= len(u["intent_annotations"]) <= 5
            for per_annotator in u["intent_annotations"]:
                for item in per_annotator:
                    assert item["type"] in ("recommendation", "search", "product_details")
    assert annotated < n_user_total  # not every user utterance is annotated

    for record in jsonl(root / "crowd/quality.jsonl"):
        ((_, ratings),) = record.items()
        assert len(ratings) in (4, 5)
        for rating in ratings:
            assert set(rating) == {"fluency", "coherence", "logicality", "informativeness"}
            assert all(1 <= v <= 5 for v in rating.values())

    n_profiles = len(jsonl(root / "crowd/profiles.jsonl"))
    assert n_profiles == len(jsonl(root / "crowd/keywords.jsonl")) < len(convs)


def test_cosrec_qrels_reference_intents_and_users(sample):
    out, _ = sample
    root = out / "cosrec/dataset/curated"
    profiles = {k: sorted(v) for r in jsonl(root / "profiles.jsonl") for k, v in r.items()}
    intents = {}
    for record in jsonl(root / "intents.jsonl"):
        ((cid, utterances),) = record.items()
        for u in utterances:
            for item in u["intents"]:
                assert item["id"].startswith(f"{cid}_{u['utterance']}_")
                intents[item["id"]] = (cid, item["type"])
    text = (root / "qrels.qrels").read_text()
    assert text.endswith("\n")
    kinds = set()
    for line in text.splitlines():
        topic, zero, doc, grade = line.split("\t")
        assert zero == "0" and grade in ("0", "1", "2")
        if "#" in topic:
            intent, user = topic.split("#")
            cid, kind = intents[intent]
            assert kind == "recommendation"
            assert 0 <= int(user) < len(profiles[cid])
            assert len(doc) == 10
        else:
            assert intents[topic][1] == "search"
            assert doc.startswith("msmarco_v2.1_doc_") and "#" in doc
        kinds.add("#" in topic)
    assert kinds == {True, False}


# --------------------------------------------------------------------------- CRSArena-Dial


def test_crsarena_dialogues(sample):
    out, _ = sample
    root = out / "crsarena-dial/data"
    for rel in CRSARENA_FILES:
        assert (out / "crsarena-dial" / rel).is_file()
    for env in ("open", "closed"):
        text = (root / f"crs_arena_dial_{env}.json").read_text(encoding="utf-8")
        dialogues = json.loads(text)
        assert isinstance(dialogues, list) and dialogues
        assert text == json.dumps(
            dialogues, indent=4
        )  # upstream bytes: indent 4, ASCII, no final NL
        for d in dialogues:
            agent, user = d["agent"]["id"], d["user"]["id"]
            assert agent == agent.lower()
            assert d["conversation ID"] == f"{agent}_{user}"
            assert d["metadata"]["sentiment"] in ("satisfied", "frustrated")
            for i, u in enumerate(d["conversation"]):
                assert u["utterance ID"] == f"{agent}-{user}_{i}"
                assert u["participant"] == ("USER" if i % 2 == 0 else "AGENT")


def test_crsarena_votes_csv(sample):
    out, _ = sample
    root = out / "crsarena-dial/data"
    for env in ("open", "closed"):
        raw = (root / f"votes_{env}.csv").read_bytes()
        assert raw.startswith(b"session_id,user_id,crs1,crs2,vote,feedback\r\n")
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
        header, body = rows[0], rows[1:]
        assert header == ["session_id", "user_id", "crs1", "crs2", "vote", "feedback"]
        assert len(body) > len({tuple(r) for r in body})  # an exact duplicate
        assert any("\n" in r[5] for r in body)  # a multi-line feedback
        assert any('"' in r[5] for r in body)  # embedded quotes
        assert any(r[5] == "" for r in body) or env == "closed"
        for r in body:
            assert r[4] in (r[2], r[3], "tie")
            assert r[0][:4] == "2024"
        dialogues = json.loads((root / f"crs_arena_dial_{env}.json").read_text())
        keys = {(d["user"]["id"], d["agent"]["id"]) for d in dialogues}
        linked = sum((r[1], r[2]) in keys or (r[1], r[3]) in keys for r in body)
        assert linked > len(body) / 2


# --------------------------------------------------------------------------- ConvSearch


def test_convsearch(sample):
    out, _ = sample
    root = out / "convsearch"
    dialogs = json.loads((root / "Dialogs.json").read_text(encoding="ascii"))
    behaviours = json.loads((root / "SearchBehaviors.json").read_text(encoding="ascii"))
    assert isinstance(dialogs, list) and isinstance(behaviours, list)
    assert "\\u" in (root / "Dialogs.json").read_text(encoding="ascii")  # Chinese escaped

    agent_turns = {}
    images = 0
    for d in dialogs:
        assert isinstance(d["start_time"], float)
        assert d["topic_user"] in (
            "politics",
            "others",
            "fashion",
            "health",
            "history",
            "food",
            "technology",
            "sports",
        )
        for t in d["turns"]:
            assert isinstance(t["time"], float)
            labels = t.get("intent-primary-class") or t.get("action-primary-class")
            assert len(labels) == 3
            if t["is_image"]:
                images += 1
                assert t["content"] == "" and t["image_name"]
            if t["initiator"] == "agent":
                agent_turns[t["id"]] = d["id"]
    assert images > 0
    total = sum(len(d["turns"]) for d in dialogs)
    merged = sum(
        1 + sum(a["initiator"] != b["initiator"] for a, b in zip(d["turns"], d["turns"][1:]))
        for d in dialogs
    )
    assert merged < total

    with_clicks = 0
    for b in behaviours:
        assert b["source"] in ("baidu", "sogou", "bing", "zhihu", "douban")
        assert agent_turns[b["belong_turn"]] == b["belong_dialog"]
        clicked = False
        for page in b["serp_pagelogs"]:
            assert isinstance(page["clicked_results"], str)
            results = json.loads(page["clicked_results"])
            assert isinstance(results, list)
            clicked |= bool(results)
            assert isinstance(page["start_time"], int) and page["start_time"] > 10**12
        with_clicks += clicked
        for page in b["landingpage_pagelogs"]:
            assert 0 <= page["helpfulness-pagelog"] <= 4
    assert 0.4 < with_clicks / len(behaviours) < 0.8


# --------------------------------------------------------------------------- RecoReact


def test_recoreact(sample):
    out, _ = sample
    root = out / "recoreact"
    for rel in RECOREACT_FILES:
        assert (root / rel).is_file()
    sizes = {}
    for domain in ("news", "travel", "food"):
        products = {p["pid"]: p for p in jsonl(root / f"{domain}-products.jsonl")}
        users = {u["uid"]: u for u in jsonl(root / f"{domain}-users.jsonl")}
        impressions = jsonl(root / f"{domain}-impressions.jsonl")
        sizes[domain] = len(products)
        assert len(impressions) == 3 * len(users)
        extra = {"frequency", "reasons", "demand"} if domain == "news" else {"companions"}
        for u in users.values():
            assert extra <= set(u)
        for imp in impressions:
            assert imp["uid"] in users and imp["round"] in (1, 2, 3)
            for k in (1, 2, 3):
                assert 1 <= imp[f"rating{k}"] <= 9
                for pid in imp[f"selected{k}"]:
                    assert products[pid]["category"] in imp["categories"]
            assert 1 <= imp["rating_summary"] <= 9
            assert 1 <= imp["good_summary_match"] <= 5
    assert sizes["food"] > sizes["news"] and sizes["food"] > sizes["travel"]
