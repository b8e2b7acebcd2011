"""Synthetic corpora of your own ("custom", docs/ADDING_A_CORPUS.md) in the generic format.

Two small corpora under ``custom/``, clean by construction: ``travel_chat/`` (corpus.json,
conversations with ratings and labels, relevance judgments) and ``recipe_qa/`` (the bare
minimum). Same seed, same bytes.
Details: docs/internals.md#csrwh-sample-custom
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from csrwh.sample._common import (
    EN_ADJECTIVES,
    EN_NOUNS,
    jsonl_text,
    make_rng,
    title_case,
    write_text,
)

FOLDER = "custom"

TRAVEL = "travel_chat"
RECIPES = "recipe_qa"

#: conversations per corpus at scale 1
N_TRAVEL = 30
N_RECIPES = 10

CITIES = ("Lisbon", "Kyoto", "Oaxaca", "Tallinn", "Hobart", "Porto", "Ljubljana", "Valparaiso")
SEASONS = ("spring", "summer", "autumn", "winter")
SYSTEMS = ("assistant-a", "assistant-b")

CORPUS_JSON = {
    "description": "Synthetic travel-recommendation chats written by csrwh sample (not real data).",
    "licence": "CC0-1.0",
    "citation": "csrwh sample generator (synthetic)",
    "url": "https://example.org/travel_chat",
    "language": "en",
    "domain": "travel recommendation",
    "rater_kind": "user",
    "label_source": "human",
    "rating_scales": {
        "satisfaction": {"min": 1, "max": 5, "description": "How satisfied the user was overall"},
        "helpfulness": {"min": 0, "max": 2, "higher_is_better": True},
        "message_rating": {
            "min": 0,
            "max": 1,
            "description": "Thumbs down (0) or up (1) on an answer",
        },
    },
    "judgment_kinds": {
        "relevance": {
            "min": -1,
            "max": 3,
            "description": "How well a hotel suits the chat's request: -1 misleading, 0 not, 3 perfectly",
        },
    },
}

#: documents judged per topic, and topics that are no chat's id
HOTELS_PER_TOPIC = 4
N_EXTRA_TOPICS = 3


def _place(r: random.Random) -> str:
    return title_case(f"the {r.choice(EN_ADJECTIVES)} {r.choice(EN_NOUNS)}")


def _travel_messages(r: random.Random, city: str) -> list[dict]:
    messages: list[dict] = []
    if r.random() < 0.5:
        messages.append(
            {"role": "system", "text": "You are a friendly travel assistant. Be concise."}
        )
    season = r.choice(SEASONS)
    messages.append(
        {
            "role": "user",
            "text": f"I am going to {city} in {season}. Where should I stay?",
            "labels": ["ask_recommendation"],
        }
    )
    n_exchanges = r.randint(1, 3)
    for exchange in range(n_exchanges):
        place = _place(r)
        answer = {
            "role": "assistant",
            "text": f"Try {place} near the old town of {city}, a {r.choice(EN_ADJECTIVES)} choice.",
        }
        if r.random() < 0.6:
            answer["rating"] = r.randint(0, 1)
        messages.append(answer)
        label = "thanks" if exchange == n_exchanges - 1 else r.choice(("refine", "ask_detail"))
        texts = {
            "refine": f"Something cheaper than {place}, please.",
            "ask_detail": f"Is {place} close to a {r.choice(EN_NOUNS)}?",
            "thanks": f"Thanks, {place} sounds good.",
        }
        user = {"role": "user", "text": texts[label], "labels": [label]}
        if label == "refine" and r.random() < 0.3:
            user["labels"].append("ask_recommendation")
        messages.append(user)
    messages.append({"role": "assistant", "text": f"Enjoy {city} in {season}!"})
    return messages


def _travel(r: random.Random, n: int) -> list[dict]:
    records = []
    for i in range(1, n + 1):
        city = r.choice(CITIES)
        record: dict = {"id": f"tc-{i:04d}"}
        if r.random() < 0.25:
            record["subset"] = "pilot"
        record["user_id"] = f"u{r.randint(1, max(3, n // 3)):03d}"
        record["system_id"] = r.choice(SYSTEMS)
        record["messages"] = _travel_messages(r, city)
        record["ratings"] = {"satisfaction": r.randint(1, 5), "helpfulness": r.randint(0, 2)}
        record["metadata"] = {"channel": r.choice(("web", "app")), "duration_s": r.randint(40, 900)}
        records.append(record)
    return records


def _recipes(r: random.Random, n: int) -> list[dict]:
    records = []
    for i in range(1, n + 1):
        dish = f"{r.choice(EN_ADJECTIVES)} {r.choice(EN_NOUNS)} soup"
        minutes = r.choice((10, 20, 30, 45))
        records.append(
            {
                "id": str(i),
                "task": "cooking",
                "language": "en",
                "messages": [
                    {"role": "user", "text": f"How long does a {dish} take to cook?"},
                    {"role": "assistant", "text": f"About {minutes} minutes for a {dish}."},
                ],
            }
        )
    return records


def _judgments(r: random.Random, topics: list[str]) -> str:
    """TREC qrels lines: ``HOTELS_PER_TOPIC`` distinct hotels per topic, grades -1..3."""
    lines = []
    for topic in topics:
        for hotel in r.sample(range(1, 50), HOTELS_PER_TOPIC):
            lines.append(f"{topic} 0 hotel-{hotel:03d} {r.randint(-1, 3)}\n")
    return "".join(lines)


def write(folder: Path, scale: int, seed: int) -> list[str]:
    """Write the two custom corpora under ``folder``; return their paths."""
    travel = _travel(make_rng(seed, FOLDER, TRAVEL), N_TRAVEL * scale)
    recipes = _recipes(make_rng(seed, FOLDER, RECIPES), N_RECIPES * scale)
    files = {
        f"{TRAVEL}/corpus.json": json.dumps(CORPUS_JSON, indent=2) + "\n",
        f"{TRAVEL}/conversations.jsonl": jsonl_text(travel),
        f"{RECIPES}/questions.jsonl": jsonl_text(recipes),
        f"{TRAVEL}/relevance.qrels": _judgments(
            make_rng(seed, FOLDER, TRAVEL, "qrels"),
            [c["id"] for c in travel] + [f"q-{k}" for k in range(1, N_EXTRA_TOPICS + 1)],
        ),
    }
    for rel, text in files.items():
        write_text(folder / rel, text)
    return sorted(files)


__all__ = ["FOLDER", "write"]
