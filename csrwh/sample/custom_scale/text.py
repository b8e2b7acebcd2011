"""Message text of a given size in UTF-8 bytes, cut from a per-language pool of words."""

from __future__ import annotations

import random
from dataclasses import dataclass

from csrwh.sample._common import (
    EN_ADJECTIVES,
    EN_FILLER,
    EN_NOUNS,
    ZH_COMMON,
    ZH_CONNECT,
    ZH_TOPIC_WORDS,
    derive_seed,
)

# ----------------------------------------------------------------------------- text

_ZH_WORDS = ZH_COMMON + tuple(w for words in ZH_TOPIC_WORDS.values() for w in words)
_EN_WORDS = EN_ADJECTIVES + EN_NOUNS + EN_FILLER + (
    "the", "a", "and", "or", "to", "of", "in", "for", "with", "you", "it", "is", "can", "this",
)  # fmt: skip
_POOL_CHARS = 64 * 1024  # > the longest message (27,462 bytes) in characters of either language


def _pool(language: str) -> str:
    """64 Ki characters of running text (the same for every seed): sentences, numbered
    points in bold and paragraphs, as the real answers are laid out. Messages are slices."""
    r = random.Random(derive_seed(0, "custom_scale", "pool", language))
    parts: list[str] = []
    size = 0
    point = 0
    while size < _POOL_CHARS:
        if language == "zh":
            words = [r.choice(_ZH_WORDS) for _ in range(r.randint(3, 9))]
            sentence = "".join(
                w + (r.choice(ZH_CONNECT) if r.random() < 0.3 else "") for w in words
            )
            sentence += r.choice(("。", "，", "！", "？", "；"))
        else:
            sentence = " ".join(r.choice(_EN_WORDS) for _ in range(r.randint(5, 16)))
            sentence = sentence[0].upper() + sentence[1:] + r.choice((". ", ", ", "! ", "? "))
        if r.random() < 0.08:
            point += 1
            head = r.choice(_ZH_WORDS) if language == "zh" else r.choice(EN_NOUNS).title()
            sentence = f"\n\n{point}. **{head}**{'：' if language == 'zh' else ': '}{sentence}"
        parts.append(sentence)
        size += len(sentence)
    return "".join(parts)[:_POOL_CHARS]


@dataclass(frozen=True)
class _Pool:
    text: str  # the pool twice over, so that a slice may start anywhere
    bytes_per_char: float

    @classmethod
    def of(cls, language: str) -> _Pool:
        text = _pool(language)
        return cls(text + text, len(text.encode()) / len(text))

    def slice(self, r: random.Random, n_bytes: int) -> str:
        chars = max(1, min(_POOL_CHARS, round(n_bytes / self.bytes_per_char)))
        start = r.randrange(_POOL_CHARS)
        return self.text[start : start + chars].strip() or self.text[start]


_POOLS: dict[str, _Pool] = {}


def _text(r: random.Random, language: str, n_bytes: int) -> str:
    if language not in _POOLS:
        _POOLS[language] = _Pool.of(language)
    return _POOLS[language].slice(r, n_bytes)
