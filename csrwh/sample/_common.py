"""Shared helpers for the synthetic corpora: seeded RNGs, writers and small word banks.

Everything here is pure (no I/O at import time). Randomness always comes from a
``random.Random`` built by :func:`make_rng`, whose seed is derived with SHA-256 from the
user seed and a label, so that every corpus (and every part of a corpus) has its own
stream: generating one corpus alone gives the same bytes as generating all five.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


# --------------------------------------------------------------------------- randomness


def derive_seed(seed: int, *labels: object) -> int:
    """A 64-bit seed derived from ``seed`` and ``labels`` (stable across Python runs)."""
    text = "\x1f".join([str(int(seed)), *(str(label) for label in labels)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def make_rng(seed: int, *labels: object) -> random.Random:
    """A fresh ``random.Random`` for ``labels`` under the user ``seed``."""
    return random.Random(derive_seed(seed, *labels))


def weighted(r: random.Random, table: Mapping[T, float] | Sequence[tuple[T, float]]) -> T:
    """Draw one key of ``table`` with probability proportional to its weight."""
    items = list(table.items()) if isinstance(table, Mapping) else list(table)
    values = [k for k, _ in items]
    weights = [w for _, w in items]
    return r.choices(values, weights=weights, k=1)[0]


def clamp(value: float, lo: int, hi: int) -> int:
    return max(lo, min(hi, round(value)))


def gauss_int(r: random.Random, mu: float, sigma: float, lo: int, hi: int) -> int:
    return clamp(r.gauss(mu, sigma), lo, hi)


def geometric_extra(r: random.Random, p: float) -> int:
    """Number of successes before the first failure (mean p / (1 - p))."""
    n = 0
    while r.random() < p:
        n += 1
    return n


def uuid4(r: random.Random) -> str:
    """A version-4 UUID string drawn from ``r`` (not from the OS)."""
    return str(uuid.UUID(int=r.getrandbits(128), version=4))


def rand_string(r: random.Random, alphabet: str, n: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
HEX = "0123456789abcdef"
URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


# --------------------------------------------------------------------------- writing


def write_text(path: Path, text: str) -> None:
    """Write ``text`` as UTF-8 bytes exactly (no newline translation), as a new file renamed
    over ``path``: an earlier file there -- or a hard link to someone else's file -- is
    replaced, never written through."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(text.encode("utf-8"))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def jsonl_text(records: Iterable[Any], *, ensure_ascii: bool = True) -> str:
    """JSON Lines text: one ``json.dumps`` per line (default separators), final newline."""
    return "".join(json.dumps(rec, ensure_ascii=ensure_ascii) + "\n" for rec in records)


# --------------------------------------------------------------------------- English text

EN_ADJECTIVES = (
    "affordable",
    "bright",
    "compact",
    "cozy",
    "durable",
    "elegant",
    "fast",
    "gentle",
    "handmade",
    "lightweight",
    "modern",
    "natural",
    "portable",
    "quiet",
    "reliable",
    "rugged",
    "simple",
    "sleek",
    "sturdy",
    "vintage",
    "waterproof",
    "versatile",
    "warm",
    "colorful",
    "classic",
    "eco-friendly",
    "premium",
    "budget",
    "minimalist",
    "soft",
)

EN_NOUNS = (
    "harbor",
    "lantern",
    "orchard",
    "compass",
    "meadow",
    "river",
    "signal",
    "garden",
    "canyon",
    "falcon",
    "mirror",
    "island",
    "winter",
    "ember",
    "shadow",
    "voyage",
    "thunder",
    "circle",
    "horizon",
    "station",
    "forest",
    "letter",
    "summer",
    "engine",
    "bridge",
    "comet",
    "desert",
    "echo",
    "glacier",
    "kingdom",
    "market",
    "midnight",
)

EN_FILLER = (
    "honestly",
    "really",
    "actually",
    "probably",
    "definitely",
    "usually",
    "mostly",
    "especially",
    "certainly",
    "quite",
)

# Invented brand-like names (not real companies).
EN_BRANDS = (
    "Norvale",
    "Kestrix",
    "Alduro",
    "Brimwell",
    "Corvano",
    "Dunmere",
    "Elstrom",
    "Fayline",
    "Glenrow",
    "Harlux",
    "Ivermont",
    "Jorvik",
    "Lumaro",
    "Maplin",
    "Ostrava",
    "Pellora",
    "Quenby",
    "Rostell",
    "Sablewood",
    "Tervani",
)

FIRST_NAMES = (
    "Alex",
    "Sam",
    "Jordan",
    "Taylor",
    "Morgan",
    "Casey",
    "Riley",
    "Jamie",
    "Avery",
    "Quinn",
)


def title_case(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))


def en_phrase(r: random.Random, n: int) -> str:
    words = [r.choice(EN_ADJECTIVES if i % 2 == 0 else EN_NOUNS) for i in range(n)]
    return " ".join(words)


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


# --------------------------------------------------------------------------- Chinese text

ZH_COMMON = (
    "推荐",
    "如何",
    "哪个",
    "最好",
    "价格",
    "区别",
    "北京",
    "上海",
    "学生",
    "适合",
    "方法",
    "原因",
    "评价",
    "怎么样",
    "比较",
    "便宜",
    "简单",
    "初学者",
    "注意事项",
    "周末",
    "朋友",
    "家人",
    "预算",
    "时间",
    "地方",
    "经验",
    "效果",
    "选择",
    "问题",
    "建议",
)

ZH_TOPIC_WORDS = {
    "politics": ("政策", "选举", "外交", "法律", "改革", "会议", "新闻", "经济"),
    "others": ("电影", "考试", "租房", "宠物", "手机", "天气", "搬家", "快递"),
    "fashion": ("穿搭", "外套", "运动鞋", "口红", "发型", "配色", "围巾", "帽子"),
    "health": ("睡眠", "感冒", "减肥", "维生素", "跑步", "体检", "牙齿", "近视"),
    "history": ("唐朝", "丝绸之路", "长城", "故宫", "三国", "古代", "宋朝", "博物馆"),
    "food": ("火锅", "面条", "甜点", "咖啡", "烧烤", "饺子", "早餐", "奶茶"),
    "technology": ("人工智能", "芯片", "电池", "编程", "耳机", "相机", "电脑", "路由器"),
    "sports": ("篮球", "足球", "羽毛球", "马拉松", "游泳", "健身", "滑雪", "乒乓球"),
}

ZH_CONNECT = ("的", "和", "与", "还是", "以及", "关于", "对于")

ZH_ENDINGS = ("吗？", "呢？", "？", "。", "！", "吧。")


def zh_words(r: random.Random, bank: Sequence[str], n: int) -> list[str]:
    return [r.choice(bank) for _ in range(n)]


def zh_sentence(r: random.Random, bank: Sequence[str], n: int = 4) -> str:
    """A short Chinese sentence built from ``bank`` and common words."""
    parts: list[str] = []
    for i in range(n):
        parts.append(r.choice(bank) if i % 2 == 0 else r.choice(ZH_COMMON))
        if i < n - 1 and r.random() < 0.35:
            parts.append(r.choice(ZH_CONNECT))
    return "".join(parts) + r.choice(ZH_ENDINGS)
