"""What the synthetic CoSRec files are made of: sizes, aspects, intent types, the product
categories and phrases, and the upstream id shapes (ASINs, MS MARCO passages, Amazon users)."""

from __future__ import annotations

import random

from csrwh.sample._common import (
    BASE32,
    UPPER_ALNUM,
    rand_string,
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
