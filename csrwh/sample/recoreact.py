"""Synthetic RecoReact (modelscope.cn/datasets/microsoft/RecoReact), nine JSONL files.

The real files are not available here; fields follow the dataset card. Each line is
``json.dumps(record)`` (default separators, ``ensure_ascii=True``), final newline.
Ids are strings: ``pid`` ``<domain>_<NNNN>``, ``uid`` 24 hex characters, ``iid``
``<domain>-<NNNNN>``. Every impression shows three rounds of 12 items drawn without
replacement from the products in the user's ``categories``; ``selected1..3`` are
subsets of those shown items (possibly empty).

Volumes at scale 1: 20 users (60 impressions) per domain; products news 60, travel 60,
food 120.
"""

from __future__ import annotations

import random
from pathlib import Path

from csrwh.sample._common import (
    EN_ADJECTIVES,
    EN_NOUNS,
    HEX,
    gauss_int,
    jsonl_text,
    make_rng,
    rand_string,
    title_case,
    weighted,
    write_text,
)

FOLDER = "recoreact"
DOMAINS = ("news", "travel", "food")
N_USERS = 20
N_PRODUCTS = {"news": 60, "travel": 60, "food": 120}
SHOWN = 12

CATEGORIES = {
    "news": (
        "technology",
        "health",
        "money",
        "food",
        "travel",
        "home",
        "parenting",
        "entertainment",
        "science",
        "productivity",
    ),
    "travel": (
        "beach",
        "city",
        "mountains",
        "national park",
        "historic",
        "island",
        "countryside",
        "desert",
    ),
    "food": (
        "chicken",
        "beef",
        "pork",
        "seafood",
        "vegetarian",
        "pasta",
        "salad",
        "soup",
        "dessert",
        "breakfast",
    ),
}
SOURCE_TYPES = {
    "news": ("news websites", "social media", "television", "podcasts", "newsletters", "print"),
    "travel": (
        "travel blogs",
        "friends and family",
        "guidebooks",
        "social media",
        "travel agencies",
        "review sites",
    ),
    "food": (
        "recipe websites",
        "cookbooks",
        "social media",
        "family recipes",
        "cooking shows",
        "meal kits",
    ),
}
COMPANIONS = ("partner", "friends", "family", "kids", "alone", "coworkers", "roommates")
FREQUENCY = ("several times a day", "daily", "a few times a week", "weekly", "rarely")
SYLLABLES = (
    "kel",
    "dor",
    "ami",
    "var",
    "lin",
    "os",
    "tor",
    "ena",
    "bri",
    "sal",
    "mon",
    "ria",
    "quel",
    "zan",
    "por",
    "vik",
)
SIDES = (
    "roasted potatoes",
    "garlic rice",
    "sautéed greens",
    "couscous",
    "corn salad",
    "glazed carrots",
    "herb farro",
    "mashed sweet potatoes",
)
SAUCES = ("lemon butter", "chimichurri", "honey mustard", "miso glaze", "tomato jam", "salsa verde")


def _place(r: random.Random) -> str:
    name = "".join(r.choice(SYLLABLES) for _ in range(r.randint(2, 3))).capitalize()
    return r.choice(
        (name, f"Lake {name}", f"Port {name}", f"{name} Valley", f"{name} Island", f"San {name}")
    )


def _product(r: random.Random, domain: str, i: int) -> dict:
    category = r.choice(CATEGORIES[domain])
    pid = f"{domain}_{i:04d}"
    adj, noun = r.choice(EN_ADJECTIVES), r.choice(EN_NOUNS)
    if domain == "news":
        title = r.choice(
            (
                f"How to Make Your {title_case(category)} Routine More {title_case(adj)}",
                f"The {title_case(adj)} Guide to {title_case(noun)} {title_case(category)}",
                f"{r.randint(3, 12)} {title_case(category)} Tips Nobody Tells You",
                f"Why You Should Rethink Your {title_case(noun)} Habits",
            )
        )
        description = (
            f"A {adj} look at {category}: practical advice on {noun}s, common mistakes "
            f"and what to try instead."
        )
    elif domain == "travel":
        title = _place(r)
        description = (
            f"{title} is a {adj} {category} destination known for its {noun}s, local "
            f"markets and {r.choice(EN_ADJECTIVES)} views."
        )
    else:
        side = r.choice(SIDES)
        sauce = r.choice(SAUCES)
        dish = f"{title_case(adj)} {title_case(category)}"
        title = f"{dish} with {title_case(side)} & {title_case(sauce)}"
        description = (
            f"A {adj} {category} dish served with {side}; ready in about "
            f"{r.choice((20, 25, 30, 35, 40, 45))} minutes."
        )
    return {
        "pid": pid,
        "title": title,
        "description": description,
        "thumbnail": f"https://thumbnails.example.org/{domain}/{pid}.jpg",
        "category": category,
    }


def _text(r: random.Random, options: tuple[str, ...], **kw) -> str:
    return r.choice(options).format(**kw)


def _user(r: random.Random, domain: str) -> dict:
    sources = r.sample(SOURCE_TYPES[domain], r.randint(1, 3))
    user: dict = {
        "uid": rand_string(r, HEX, 24),
        "source_types": sources,
        "desc_sources": _text(
            r,
            (
                "I mostly use {s} and check it {f}.",
                "Usually {s}, sometimes recommendations from friends.",
                "I rely on {s} because it is quick.",
                "{s}",
            ),
            s=sources[0],
            f=r.choice(FREQUENCY),
        ),
    }
    if domain == "news":
        user["frequency"] = [r.choice(FREQUENCY)]
        user["reasons"] = _text(
            r,
            (
                "To stay informed about {c}.",
                "Mostly for work and to learn about {c}.",
                "I like reading about {c} in my free time.",
            ),
            c=r.choice(CATEGORIES[domain]),
        )
        user["demand"] = r.randint(1, 5)
    else:
        user["companions"] = r.sample(COMPANIONS, r.randint(1, 3))
    user.update(
        {
            "personalized": weighted(r, {1: 0.05, 2: 0.1, 3: 0.25, 4: 0.35, 5: 0.25}),
            "explore": weighted(r, {1: 0.05, 2: 0.1, 3: 0.25, 4: 0.35, 5: 0.25}),
            "desc_selection": _text(
                r,
                (
                    "I pick what looks {a} and fits my time.",
                    "Mostly by the title and picture.",
                    "I choose things that are {a} and new to me.",
                    "Based on reviews and price.",
                ),
                a=r.choice(EN_ADJECTIVES),
            ),
            "task_clear": weighted(r, {2: 0.05, 3: 0.15, 4: 0.4, 5: 0.4}),
            "task_difficult": weighted(r, {1: 0.35, 2: 0.35, 3: 0.2, 4: 0.08, 5: 0.02}),
            "dialogue_helpful": weighted(r, {1: 0.1, 2: 0.15, 3: 0.3, 4: 0.3, 5: 0.15}),
            "recs_satisfied": weighted(r, {1: 0.08, 2: 0.17, 3: 0.3, 4: 0.3, 5: 0.15}),
            "task_feedback": r.choice(
                (
                    "",
                    "None",
                    "It was fun.",
                    "The recommendations felt random at first.",
                    "Some pictures did not load.",
                    "Interesting study, thanks!",
                )
            ),
        }
    )
    return user


def _rating9(r: random.Random) -> int:
    return gauss_int(r, 5.8, 2.0, 1, 9)


def _rating5(r: random.Random) -> int:
    return gauss_int(r, 3.5, 1.0, 1, 5)


def _impressions(
    r: random.Random, domain: str, user: dict, products: list[dict], counter: list[int]
) -> list[dict]:
    cats = r.sample(CATEGORIES[domain], r.randint(2, 4))
    pool = sorted(p["pid"] for p in products if p["category"] in cats)
    for extra in CATEGORIES[domain]:  # make sure 12 items can be shown
        if len(pool) >= SHOWN:
            break
        if extra not in cats:
            cats.append(extra)
            pool = sorted(p["pid"] for p in products if p["category"] in cats)
    out = []
    for rnd in (1, 2, 3):
        counter[0] += 1
        record: dict = {
            "iid": f"{domain}-{counter[0]:05d}",
            "uid": user["uid"],
            "round": rnd,
            "categories": list(cats),
            "request": _text(
                r,
                (
                    "I'm looking for something {a} about {c}.",
                    "Show me {c} options that are {a}.",
                    "Anything {a}, preferably {c}.",
                    "{c}",
                ),
                a=r.choice(EN_ADJECTIVES),
                c=r.choice(cats),
            ),
        }
        for step in (1, 2, 3):
            shown = r.sample(pool, min(SHOWN, len(pool)))
            k = weighted(r, {0: 0.08, 1: 0.25, 2: 0.3, 3: 0.22, 4: 0.1, 5: 0.05})
            record[f"selected{step}"] = sorted(r.sample(shown, k))
        record["update1"] = _text(
            r,
            (
                "More {c}, please.",
                "Less {c} and more {a} things.",
                "These are good, keep going.",
                "Something more {a}.",
            ),
            c=r.choice(cats),
            a=r.choice(EN_ADJECTIVES),
        )
        record["update2"] = _text(
            r,
            (
                "Better. Maybe fewer {c}.",
                "I still want more {a} options.",
                "Perfect.",
                "No changes.",
            ),
            c=r.choice(cats),
            a=r.choice(EN_ADJECTIVES),
        )
        for step in (1, 2, 3):
            record[f"rating{step}"] = _rating9(r)
        record["summary"] = _text(
            r,
            (
                "The user likes {a} {c} and dislikes repetitive suggestions.",
                "Prefers {c}; wants {a} items.",
                "Interested in {c} with a {a} style.",
            ),
            a=r.choice(EN_ADJECTIVES),
            c=r.choice(cats),
        )
        record["rating_summary"] = _rating9(r)
        for key in (
            "good_suggestions",
            "good_selections",
            "good_request_match",
            "good_summary_match",
        ):
            record[key] = _rating5(r)
        out.append(record)
    return out


def write(folder: Path, scale: int, seed: int) -> list[str]:
    """Write the nine RecoReact files under ``folder``; return their names."""
    written = []
    for domain in DOMAINS:
        r = make_rng(seed, FOLDER, domain)
        products = [_product(r, domain, i) for i in range(1, N_PRODUCTS[domain] * scale + 1)]
        users = [_user(r, domain) for _ in range(N_USERS * scale)]
        counter = [0]
        impressions = [imp for u in users for imp in _impressions(r, domain, u, products, counter)]
        for entity, records in (
            ("products", products),
            ("users", users),
            ("impressions", impressions),
        ):
            rel = f"{domain}-{entity}.jsonl"
            write_text(folder / rel, jsonl_text(records))
            written.append(rel)
    return sorted(written)


__all__ = ["DOMAINS", "FOLDER", "write"]
