"""Synthetic CoSRec (github.com/CAMEO-22/CoSRec) in its upstream layout.

Byte format copied from the real files: every ``.jsonl`` line is ``json.dumps`` of a
one-key object ``{"<conversation id>": value}`` with default separators and
``ensure_ascii=True`` (non-ASCII written as ``\\uXXXX``), one line per conversation, final
newline; ``qrels.qrels`` is TAB separated ``topic<TAB>0<TAB>doc<TAB>grade`` with a final
newline, grouped by topic in intent order, documents sorted within a topic.

Volumes at scale 1: Raw 150, Crowd 40, Curated 6 conversations (about 8 user utterances,
16 lines, per conversation, like upstream).
"""

from __future__ import annotations

import random
from pathlib import Path

from csrwh.sample._common import (
    gauss_int,
    jsonl_text,
    make_rng,
    weighted,
    write_text,
)
from csrwh.sample.cosrec.conversations import (
    _conversation,
    _intent_annotations,
    _keywords,
    _n_user_utterances,
    _profile,
    _quality,
    _users,
    _variant,
)
from csrwh.sample.cosrec.vocabularies import (
    FOLDER,
    N_CROWD,
    N_CURATED,
    N_RAW,
    amazon_user_id,
    asin,
    msmarco_passage,
)

# --------------------------------------------------------------------------- partitions


def _raw(r: random.Random, n: int) -> str:
    records = []
    for i in range(1, n + 1):
        text, _ = _conversation(r, _n_user_utterances(r))
        records.append({f"CoSRec-Raw_{i}": text})
    return jsonl_text(records)


def _crowd(r: random.Random, n: int) -> dict[str, str]:
    conv, qual, ann, kw, prof = [], [], [], [], []
    n_profiled = max(1, round(n * 0.63))  # upstream: 184 of 291 have keywords/profiles
    for i in range(1, n + 1):
        cid = f"CoSRec-Crowd_{i}"
        text, needs = _conversation(r, _n_user_utterances(r))
        conv.append({cid: text})
        qual.append({cid: _quality(r, weighted(r, {5: 0.74, 4: 0.26}), 3.6)})
        ann.append({cid: _intent_annotations(r, needs)})
        if i <= n_profiled:
            users = _users(r, {1: 0.41, 2: 0.11, 3: 0.08, 4: 0.09, 5: 0.31})
            kw_users = list(users)
            if r.random() < 0.1:  # upstream: keywords sometimes list one more user
                kw_users = sorted(set(users) | {amazon_user_id(r)})
            prof.append({cid: {u: _profile(r) for u in users}})
            kw.append({cid: {u: _keywords(r) for u in kw_users}})
    return {
        "dataset/crowd/conversations.jsonl": jsonl_text(conv),
        "dataset/crowd/quality.jsonl": jsonl_text(qual),
        "dataset/crowd/intent_annotations.jsonl": jsonl_text(ann),
        "dataset/crowd/keywords.jsonl": jsonl_text(kw),
        "dataset/crowd/profiles.jsonl": jsonl_text(prof),
    }


def _curated(r: random.Random, n: int) -> dict[str, str]:
    conv, qual, intents, kw, prof, qrels = [], [], [], [], [], []
    for i in range(1, n + 1):
        cid = f"CoSRec-Curated_{i}"
        text, needs = _conversation(r, gauss_int(r, 7.5, 1.5, 5, 11))
        conv.append({cid: text})
        qual.append({cid: _quality(r, weighted(r, {5: 0.7, 4: 0.3}), 4.5, 0.6)})
        users = _users(r, {2: 0.4, 3: 0.6})
        prof.append({cid: {u: _profile(r) for u in users}})
        kw.append({cid: {u: _keywords(r) for u in users}})
        utts = []
        for u, need in enumerate(needs):
            if need.kind is None or (u > 0 and r.random() < 0.05):
                continue
            kinds = [need.kind]
            if r.random() < 0.14:
                kinds.append(
                    r.choice(("recommendation", "search"))
                    if need.kind != "product_details"
                    else "product_details"
                )
            items = []
            for idx, kind in enumerate(kinds):
                iid = f"{cid}_{u}_{idx}"
                base = need.need if idx == 0 else _variant(r, need.need)
                n_var = weighted(r, {3: 0.45, 2: 0.29, 4: 0.16, 1: 0.07, 5: 0.03})
                variants = [base] + [_variant(r, base) for _ in range(n_var - 1)]
                item: dict = {"id": iid, "type": kind}
                if kind == "product_details":
                    item["product"] = need.product or asin(r)
                item["query_variants"] = variants
                items.append(item)
                if kind == "recommendation":
                    for ux in range(len(users)):
                        qrels.extend(_judgements(r, f"{iid}#{ux}", asin, 10, 24))
                elif kind == "search":
                    qrels.extend(_judgements(r, iid, msmarco_passage, 12, 30))
            utts.append({"utterance": u, "intents": items})
        intents.append({cid: utts})
    return {
        "dataset/curated/conversations.jsonl": jsonl_text(conv),
        "dataset/curated/quality.jsonl": jsonl_text(qual),
        "dataset/curated/intents.jsonl": jsonl_text(intents),
        "dataset/curated/keywords.jsonl": jsonl_text(kw),
        "dataset/curated/profiles.jsonl": jsonl_text(prof),
        "dataset/curated/qrels.qrels": "".join(f"{t}\t0\t{d}\t{g}\n" for t, d, g in qrels),
    }


def _judgements(
    r: random.Random, topic: str, make_doc, lo: int, hi: int
) -> list[tuple[str, str, int]]:
    docs = sorted({make_doc(r) for _ in range(r.randint(lo, hi))})
    return [(topic, d, weighted(r, {0: 0.35, 1: 0.28, 2: 0.37})) for d in docs]


def write(folder: Path, scale: int, seed: int) -> list[str]:
    """Write the CoSRec files under ``folder``; return their relative POSIX paths."""
    files: dict[str, str] = {}
    files["dataset/raw/conversations.jsonl"] = _raw(make_rng(seed, FOLDER, "raw"), N_RAW * scale)
    files.update(_crowd(make_rng(seed, FOLDER, "crowd"), N_CROWD * scale))
    files.update(_curated(make_rng(seed, FOLDER, "curated"), N_CURATED * scale))
    for rel in sorted(files):
        write_text(folder / rel, files[rel])
    return sorted(files)


__all__ = ["FOLDER", "write"]
