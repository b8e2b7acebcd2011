"""One synthetic CoSRec conversation ("U:" / "S:" turns) and its annotations: quality ratings,
intents, users, profiles and keywords."""

from __future__ import annotations

import random

from csrwh.sample._common import (
    EN_ADJECTIVES,
    EN_BRANDS,
    article,
    gauss_int,
    rand_string,
    weighted,
)
from csrwh.sample.cosrec.vocabularies import (
    ASPECTS,
    CATALOGUE,
    HOBBIES,
    INTENT_TYPES,
    KEYWORDS,
    PROFILE_OPENERS,
    PROFILE_TRAITS,
    QUALIFIERS,
    WHO,
    amazon_user_id,
    asin,
)

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
