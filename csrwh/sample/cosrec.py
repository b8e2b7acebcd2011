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
    BASE32,
    EN_ADJECTIVES,
    EN_BRANDS,
    UPPER_ALNUM,
    article,
    gauss_int,
    jsonl_text,
    make_rng,
    rand_string,
    weighted,
    write_text,
)

FOLDER = "cosrec"

N_RAW = 150
N_CROWD = 40
N_CURATED = 6

ASPECTS = ("fluency", "informativeness", "logicality", "coherence")
INTENT_TYPES = ("recommendation", "search", "product_details")

# category -> (products, features, things one would search about)
CATALOGUE: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "automotive": (
        ("floor mats", "seat covers", "dash camera", "tire inflator", "roof rack"),
        ("fit", "installation", "weather resistance", "warranty", "cable length"),
        (
            "how to remove salt stains from car carpets",
            "rubber versus vinyl for car mats",
            "how often to check tire pressure in winter",
            "are dash cameras legal in every state",
        ),
    ),
    "books": (
        ("mystery novel", "cookbook", "biography", "travel guide", "graphic novel"),
        ("page count", "edition", "binding", "author background", "reading level"),
        (
            "history of the detective novel",
            "what makes a good travel guide",
            "differences between hardcover and paperback editions",
            "how graphic novels are made",
        ),
    ),
    "electronics": (
        ("wireless earbuds", "portable speaker", "e-reader", "smartwatch", "webcam"),
        ("battery life", "water resistance", "charging time", "screen size", "microphone"),
        (
            "how noise cancelling works",
            "what bluetooth codecs sound best",
            "is fast charging bad for batteries",
            "difference between LCD and e-ink screens",
        ),
    ),
    "home and kitchen": (
        ("cast iron skillet", "coffee grinder", "air purifier", "throw blanket", "knife set"),
        ("material", "weight", "cleaning", "noise level", "size"),
        (
            "how to season cast iron",
            "burr versus blade coffee grinders",
            "what a HEPA filter removes",
            "how to sharpen kitchen knives at home",
        ),
    ),
    "sports and outdoors": (
        ("trekking poles", "yoga mat", "camping lantern", "bike helmet", "sleeping bag"),
        ("grip", "thickness", "brightness", "ventilation", "temperature rating"),
        (
            "how to choose a sleeping bag temperature rating",
            "benefits of trekking poles",
            "how helmet safety standards work",
            "cork versus rubber yoga mats",
        ),
    ),
    "toys and games": (
        ("board game", "building set", "jigsaw puzzle", "plush toy", "science kit"),
        ("age range", "number of pieces", "play time", "safety", "number of players"),
        (
            "educational benefits of puzzles",
            "history of board games",
            "how to pick toys for toddlers",
            "what STEM toys teach",
        ),
    ),
    "beauty": (
        ("face serum", "hair dryer", "sunscreen", "nail kit", "shaving kit"),
        ("ingredients", "scent", "wattage", "SPF", "skin type"),
        (
            "what SPF numbers mean",
            "how ionic hair dryers work",
            "is vitamin C serum good for sensitive skin",
            "how to store nail polish",
        ),
    ),
    "pet supplies": (
        ("dog harness", "cat tree", "aquarium filter", "chew toy", "pet bed"),
        ("size", "washability", "flow rate", "durability", "stability"),
        (
            "how to measure a dog for a harness",
            "why cats need scratching posts",
            "how aquarium filtration works",
            "safe chew toys for puppies",
        ),
    ),
}

QUALIFIERS = (
    "for my {who}",
    "under {price} dollars",
    "that is easy to clean",
    "for everyday use",
    "for a small apartment",
    "as a birthday gift",
    "for beginners",
    "for my caf\u00e9",
    "with a matching d\u00e9cor",
    "that ships quickly",
)
WHO = ("sister", "dad", "grandmother", "son", "roommate", "partner", "coworker", "niece")

KEYWORDS = (
    "cheap",
    "durable",
    "value",
    "quality",
    "good",
    "great",
    "robust",
    "price",
    "easy to use",
    "reliable",
    "comfort",
    "style",
    "fun",
    "effective",
    "fragrant",
    "relaxing",
    "safety",
    "fast",
    "worth",
    "nostalgic",
    "educational",
    "practical",
    "portable",
    "good value",
)

PROFILE_OPENERS = (
    "Someone who values {a} and {b}",
    "A budget-aware shopper who prioritizes {a} over {b}",
    "An active person who appreciates {a}, {b} and {c}",
    "A parent who looks for {a} and {b} in everyday products",
    "A hobbyist who enjoys {hobby} and cares about {a}",
)
PROFILE_TRAITS = (
    "durability",
    "convenience",
    "good design",
    "fair prices",
    "fast delivery",
    "natural materials",
    "clear instructions",
    "quiet operation",
    "easy maintenance",
    "gift-worthy packaging",
    "long battery life",
    "comfortable fit",
)
HOBBIES = ("gardening", "baking", "hiking", "painting", "cycling", "reading", "camping", "knitting")


# --------------------------------------------------------------------------- ids


def asin(r: random.Random) -> str:
    """An Amazon-ASIN-like id: B0 + 8 upper alnum (sometimes a 10-digit ISBN for books)."""
    if r.random() < 0.01:
        return "1" + "".join(r.choice("0123456789") for _ in range(9))
    return "B0" + rand_string(r, UPPER_ALNUM, 8)


def msmarco_passage(r: random.Random) -> str:
    """An MS MARCO v2.1 segmented-document id like msmarco_v2.1_doc_04_469058939#12_1075523386."""
    return (
        f"msmarco_v2.1_doc_{r.randint(0, 58):02d}_{r.randint(1_000_000, 1_999_999_999)}"
        f"#{r.randint(0, 20)}_{r.randint(100_000_000, 2_999_999_999)}"
    )


def amazon_user_id(r: random.Random) -> str:
    """A 28-character uppercase Amazon-reviews-style user id (A + base32 + A/Q)."""
    return "A" + rand_string(r, "EFGH", 1) + rand_string(r, BASE32, 25) + r.choice("AQ")


# --------------------------------------------------------------------------- conversations


class _Need:
    """One user utterance: its text, the intent behind it and a stand-alone formulation."""

    __slots__ = ("kind", "need", "product", "text")

    def __init__(self, text: str, kind: str | None, need: str, product: str | None = None):
        self.text = text
        self.kind = kind
        self.need = need
        self.product = product


def _model_name(r: random.Random, noun: str) -> str:
    series = rand_string(r, "ABCDEFGHKMRSTVXZ", 1)
    return f"{r.choice(EN_BRANDS)} {series}{r.randint(2, 990)} {noun.title()}"


def _user_utterance(r: random.Random, i: int, n: int, cat: str, state: dict) -> _Need:
    _, features, topics = CATALOGUE[cat]
    noun = state["noun"]
    if i == 0:
        adj = r.choice(EN_ADJECTIVES)
        qual = r.choice(QUALIFIERS).format(
            who=r.choice(WHO), price=r.choice((25, 40, 60, 100, 150))
        )
        state["need"] = f"{adj} {noun} {qual}"
        opener = r.choice(("Hi, I'm looking for", "Hello! I want to buy", "Hey there, I need"))
        tail = r.choice(("Any suggestions?", "Can you help?", "What would you recommend?", ""))
        text = f"{opener} {article(adj)} {adj} {noun} {qual}. {tail}".rstrip()
        return _Need(text, "recommendation", state["need"])
    if i == n - 1 and r.random() < 0.55:
        text = r.choice(
            (
                "Thanks, that's really helpful!",
                "Great, I think I'll go with that one.",
                "Perfect, thank you for your help.",
                "Okay, I'll think about it. Thanks!",
            )
        )
        return _Need(text, None, "")
    kind = weighted(r, {"recommendation": 0.36, "search": 0.29, "product_details": 0.35})
    if kind == "recommendation":
        adj = r.choice(EN_ADJECTIVES)
        extra = r.choice(features)
        state["need"] = f"{adj} {noun} with good {extra}"
        text = r.choice(
            (
                f"Do you have anything more {adj}? Good {extra} matters to me.",
                f"Could you suggest {article(adj)} {adj} {noun} with good {extra}?",
                f"What about {article(adj)} {adj} option? I care about {extra}.",
            )
        )
        return _Need(text, kind, state["need"])
    if kind == "search":
        topic = r.choice(topics)
        text = r.choice(
            (
                f"Before I decide, can you tell me {topic}?",
                f"I'm curious: {topic}?",
                f"Could you explain {topic}? I'd like to understand it first.",
            )
        )
        return _Need(text, kind, topic)
    feature = r.choice(features)
    model = state["model"]
    text = r.choice(
        (
            f"What is the {feature} like on the {model}?",
            f"Can you tell me more about the {feature} of the {model}?",
            f"How is the {model} in terms of {feature}?",
        )
    )
    return _Need(text, kind, f"{feature} of {model}", product=state["asin"])


def _system_utterance(r: random.Random, need: _Need, state: dict) -> str:
    model = state["model"]
    if need.kind == "recommendation":
        return r.choice(
            (
                (
                    f"Sure! The {model} is a popular choice. Reviewers call it "
                    f'"{r.choice(EN_ADJECTIVES)}" and it fits what you described. '
                    f"Would you like other options too?"
                ),
                (
                    f"Great choice! I'd suggest the {model} \u2013 it is "
                    f"{r.choice(EN_ADJECTIVES)} and well reviewed. What else matters to you?"
                ),
                (
                    f"That sounds like a good plan. The {model} could work well for you; "
                    f"do you have a budget in mind?"
                ),
            )
        )
    if need.kind == "search":
        return r.choice(
            (
                (
                    f"Good question. In short, it depends on use: most people find that "
                    f"{r.choice(EN_ADJECTIVES)} designs last longer and need less care."
                ),
                (
                    f"From what I know, experts usually recommend checking the materials "
                    f"first, then comparing {r.choice(EN_ADJECTIVES)} options side by side."
                ),
            )
        )
    if need.kind == "product_details":
        return r.choice(
            (
                (
                    f"The {model} is rated well on that point; a few reviews wish it were more "
                    f"{r.choice(EN_ADJECTIVES)}, but most buyers are happy."
                ),
                (
                    f"According to the listing, the {model} performs solidly there and "
                    f"comes with a {r.randint(1, 3)}-year warranty."
                ),
            )
        )
    return r.choice(
        (
            "You're welcome! Enjoy your purchase.",
            "Happy to help. Let me know if you need anything else!",
            "Glad I could help \u2013 good luck with your choice!",
        )
    )


def _conversation(r: random.Random, n_user: int) -> tuple[str, list[_Need]]:
    cat = r.choice(sorted(CATALOGUE))
    noun = r.choice(CATALOGUE[cat][0])
    state = {"noun": noun, "model": _model_name(r, noun), "asin": asin(r), "need": noun}
    lines: list[str] = []
    needs: list[_Need] = []
    for i in range(n_user):
        need = _user_utterance(r, i, n_user, cat, state)
        needs.append(need)
        lines.append("U: " + need.text)
        if i < n_user - 1 or r.random() < 0.82:
            lines.append("S: " + _system_utterance(r, need, state))
    return "\n".join(lines), needs


def _n_user_utterances(r: random.Random) -> int:
    return gauss_int(r, 8.0, 2.2, 4, 17)


# --------------------------------------------------------------------------- annotations


def _variant(r: random.Random, text: str) -> str:
    """A human-like reformulation of a stand-alone query."""
    words = text.split(" ")
    roll = r.random()
    if roll < 0.25 and len(words) > 3:
        cut = r.randint(2, len(words) - 1)
        return " ".join(words[cut:] + words[:cut])
    if roll < 0.45:
        return r.choice(("looking for ", "need ", "info on ", "find ")) + text
    if roll < 0.6 and len(words) > 3:
        drop = r.randrange(len(words))
        return " ".join(w for j, w in enumerate(words) if j != drop)
    if roll < 0.7:
        return text.lower()
    return text


def _quality(
    r: random.Random, n_annotators: int, mean: float, sd: float = 1.0
) -> list[dict[str, int]]:
    out = []
    for _ in range(n_annotators):
        keys = list(ASPECTS)
        if r.random() < 0.35:
            r.shuffle(keys)
        out.append({k: gauss_int(r, mean, sd, 1, 5) for k in keys})
    return out


def _intent_annotations(r: random.Random, needs: list[_Need]) -> list[dict]:
    result = []
    for u, need in enumerate(needs):
        if need.kind is None:
            if r.random() < 0.8:
                continue
        elif r.random() < 0.07 and u > 0:
            continue
        n_ann = weighted(r, {5: 0.55, 4: 0.28, 3: 0.17})
        per = []
        for _ in range(n_ann):
            if need.kind is None or r.random() < 0.06:
                per.append([])
                continue
            k = 2 if r.random() < 0.05 else 1
            items = []
            for _ in range(k):
                t = need.kind if r.random() < 0.8 else r.choice(INTENT_TYPES)
                items.append({"type": t, "query": _variant(r, need.need)})
            per.append(items)
        result.append({"utterance": u, "intent_annotations": per})
    if not result:
        result.append(
            {
                "utterance": 0,
                "intent_annotations": [
                    [{"type": "recommendation", "query": needs[0].need}] for _ in range(3)
                ],
            }
        )
    return result


def _users(r: random.Random, weights: dict[int, float]) -> list[str]:
    n = weighted(r, weights)
    return sorted({amazon_user_id(r) for _ in range(n)})


def _profile(r: random.Random) -> str:
    a, b, c = r.sample(PROFILE_TRAITS, 3)
    first = r.choice(PROFILE_OPENERS).format(a=a, b=b, c=c, hobby=r.choice(HOBBIES))
    second = r.choice(
        (
            "They tend to read reviews carefully before buying.",
            "They are easily disappointed by products that break early.",
            "They often buy gifts for family and friends.",
            "They prefer brands with good customer service.",
        )
    )
    return f"{first}. {second}"


def _keywords(r: random.Random) -> list[str]:
    n = weighted(r, {4: 0.6, 5: 0.17, 3: 0.11, 2: 0.07, 1: 0.05})
    return r.sample(KEYWORDS, n)


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
