"""text_diversity: Distinct-1 and Distinct-2 of the utterances of every corpus.

One row per corpus x subset x system x side x variant (see ``_diversity__models.yml``):

* scopes -- the whole corpus (subset and system ``(all)``), each subset (CRSArena: each
  crowdsourcing environment), each system (conversations with a ``system_id``) and each
  subset x system;
* sides -- ``all`` utterances (what the CRSArena-Dial analysis measures), ``user`` or
  ``system`` utterances only;
* variants -- ``dataset``: the CRSArena-Dial analysis' own definition, the default;
  ``plain``: every utterance, lower-cased whitespace tokens, no truncation.

The ``dataset`` variant follows the definition in CRSArena-Dial's ``tool/metrics.py`` (the
truncated Distinct-n of Joko et al. 2024 after Tevet et al. 2021) as its ``analysis.ipynb``
calls it (n = 2, tokenizer ``split``, lower-casing on):

1. the utterances in file order (conversations by source file and record position, then turn
   order) are shuffled with ``random.Random(42)``'s ``sample(utterances, len(utterances))``,
   100 times in a row from the one seeded generator;
2. each shuffle is truncated to 7,012 words: utterances are taken whole while the running
   count of their ``str.split()`` words stays within 7,012; the first that would overflow is
   cut to the words still allowed (joined by single spaces) and the walk stops;
3. each kept utterance is tokenised as the analysis does: lower-case, every ``.`` and every
   newline removed (words across a newline join), split on the space character only, empty
   tokens dropped; n-grams never cross utterances;
4. Distinct-n = distinct n-grams / n-grams over the kept utterances (0 without n-grams), and
   the figure is the mean of the 100 values (summed left to right, then divided by 100).

When a scope has no more than 7,012 words nothing is truncated and every shuffle gives the
same value (the figure is then not length-normalised: ``is_truncated`` is false).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

ALL = "(all)"
SIDES = ("all", "user", "system")
VARIANTS = ("dataset", "plain")
MAX_WORDS = 7012
ITERATIONS = 100
SEED = 42

SCHEMA = pa.schema(
    [
        ("corpus", pa.string()),
        ("subset", pa.string()),
        ("system_id", pa.string()),
        ("side", pa.string()),
        ("variant", pa.string()),
        ("n_conversations", pa.int64()),
        ("n_utterances", pa.int64()),
        ("n_words", pa.int64()),
        ("max_words", pa.int64()),
        ("is_truncated", pa.bool_()),
        ("iterations", pa.int64()),
        ("seed", pa.int64()),
        ("distinct_1", pa.float64()),
        ("distinct_2", pa.float64()),
    ]
)


def dataset_tokens(text: str) -> list[str]:
    """The analysis' ``split`` tokeniser with lower-casing."""
    return [t for t in text.lower().replace(".", "").replace("\n", "").split(" ") if t != ""]


def plain_tokens(text: str) -> list[str]:
    """Lower-cased whitespace tokens (``str.split()``: any Unicode whitespace)."""
    return text.lower().split()


class _Encoded:
    """Token ids of every utterance for one tokeniser, as flat arrays with offsets, so that
    unigram and bigram keys of any set of utterances can be counted with numpy."""

    def __init__(self, texts: Sequence[str], tokenize) -> None:
        self.tokenize = tokenize
        tokens = [tokenize(text) for text in texts]
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        flat = np.empty(int(lengths.sum()), dtype=object)
        flat[:] = list(chain.from_iterable(tokens))
        codes, self._uniques = pd.factorize(flat) if len(flat) else (np.zeros(0, np.int64), [])
        self._vocab: dict[str, int] | None = None
        self.unigrams = np.asarray(codes, dtype=np.int64)
        self.uni_end = np.cumsum(lengths)
        self.uni_start = self.uni_end - lengths
        self.uni_owner = np.repeat(np.arange(len(tokens)), lengths)
        same = self.uni_owner[:-1] == self.uni_owner[1:]
        self.bigrams = ((self.unigrams[:-1] << 32) | self.unigrams[1:])[same]
        self.bi_owner = self.uni_owner[:-1][same]
        bi_lengths = np.maximum(lengths - 1, 0)
        self.bi_end = np.cumsum(bi_lengths)
        self.bi_start = self.bi_end - bi_lengths

    def keys(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Unigram and bigram keys of a text outside the encoded set (a truncated utterance)."""
        if self._vocab is None:
            self._vocab = {token: i for i, token in enumerate(self._uniques)}
        vocab = self._vocab
        ids = np.asarray([vocab.setdefault(t, len(vocab)) for t in self.tokenize(text)], dtype=np.int64)
        return ids, (ids[:-1] << 32) | ids[1:]

    def keys_of(self, utterances: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Unigram and bigram keys of the utterances (order does not matter to Distinct-n)."""
        if len(utterances) * 1000 > len(self.unigrams) * 3:  # many of a small corpus: one mask
            mask = np.zeros(len(self.uni_start), dtype=bool)
            mask[np.asarray(utterances, dtype=np.int64)] = True
            return self.keys_of_mask(mask)
        uni = [self.unigrams[self.uni_start[u]:self.uni_end[u]] for u in utterances]
        bi = [self.bigrams[self.bi_start[u]:self.bi_end[u]] for u in utterances]
        return _concat(uni), _concat(bi)

    def keys_of_mask(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.unigrams[mask[self.uni_owner]], self.bigrams[mask[self.bi_owner]]


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def distinct(keys: np.ndarray) -> float:
    """Distinct n-grams / n-grams (0.0 without n-grams, as the analysis)."""
    if len(keys) == 0:
        return 0.0
    ordered = np.sort(keys)
    return (1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))) / len(keys)


def _mean(values: Sequence[float]) -> float:
    total = 0.0
    for v in values:  # left to right, as Python's sum() of floats up to 3.11
        total += v
    return total / len(values)


class LazySample:
    """``rng.sample(range(n), n)`` drawn one element at a time.

    CPython's ``Random.sample`` (3.2 on; k = n always takes its pool branch) draws
    ``j = rng._randbelow(n - i)`` for i = 0 .. n-1 -- ``getrandbits(m.bit_length())`` repeated
    until below m -- and takes ``pool[j]``, moving ``pool[n - i - 1]`` into its place. This
    makes the same draws, keeping the pool sparse; :meth:`finish` makes the draws of the
    elements not taken, so the generator ends where ``sample`` leaves it."""

    def __init__(self, rng: random.Random, n: int) -> None:
        self._getrandbits = rng.getrandbits
        self._n = n
        self._i = 0
        self._pool: dict[int, int] = {}

    def __next__(self) -> int:
        m = self._n - self._i
        if m <= 0:
            raise StopIteration
        getrandbits, k = self._getrandbits, m.bit_length()
        r = getrandbits(k)
        while r >= m:
            r = getrandbits(k)
        pool = self._pool
        value = pool.get(r, r)
        pool[r] = pool.get(m - 1, m - 1)
        self._i += 1
        return value

    def __iter__(self):
        return self

    def finish(self) -> None:
        """Make the draws of every element not yet taken, without building them."""
        getrandbits = self._getrandbits
        m = self._n - self._i
        self._i = self._n
        while m > 0:
            k = m.bit_length()
            low = 1 << (k - 1)
            for bound in range(m, low - 1, -1):  # the bounds sharing this bit length
                r = getrandbits(k)
                while r >= bound:
                    r = getrandbits(k)
            m = low - 1


def truncated_distinct(
    members: Sequence[int], words: Sequence[int], texts: Sequence[str], enc: _Encoded,
    max_words: int = MAX_WORDS, iterations: int = ITERATIONS, seed: int = SEED,
) -> tuple[float, float]:
    """(Distinct-1, Distinct-2) of the ``dataset`` variant over the utterances ``members``
    (indices into ``texts``, in file order)."""
    total_words = sum(words[m] for m in members)
    if total_words <= max_words:  # nothing is cut: every shuffle keeps every utterance
        uni, bi = enc.keys_of(members)
        d1, d2 = distinct(uni), distinct(bi)
        return _mean([d1] * iterations), _mean([d2] * iterations)
    rng = random.Random(seed)
    n = len(members)
    d1s: list[float] = []
    d2s: list[float] = []
    for _ in range(iterations):
        order = LazySample(rng, n)
        kept: list[int] = []
        count = 0
        cut: str | None = None
        for position in order:
            u = members[position]
            if count + words[u] <= max_words:
                kept.append(u)
                count += words[u]
            else:
                cut = " ".join(texts[u].split()[: max_words - count])
                break
        order.finish()
        uni, bi = enc.keys_of(kept)
        if cut is not None:
            cut_uni, cut_bi = enc.keys(cut)
            uni, bi = np.concatenate([uni, cut_uni]), np.concatenate([bi, cut_bi])
        d1s.append(distinct(uni))
        d2s.append(distinct(bi))
    return _mean(d1s), _mean(d2s)


class Utterances(NamedTuple):
    """The scoped utterances, one list per column, in file order."""

    corpus: list[str]
    subset: list[str]
    system_id: list[str | None]
    conversation_id: list[str]
    role: list[str]
    text: list[str]


def scopes(u: Utterances) -> list[tuple[str, str, str]]:
    """(corpus, subset, system) of every scope with utterances, in key order."""
    out = set()
    for corpus, subset, system in zip(u.corpus, u.subset, u.system_id, strict=True):
        out.add((corpus, ALL, ALL))
        out.add((corpus, subset, ALL))
        if system is not None:
            out.add((corpus, ALL, system))
            out.add((corpus, subset, system))
    return sorted(out)


def _corpus_rows(u: Utterances, rows: dict[str, list]) -> None:
    """Append the rows of one corpus (``u`` holds its utterances only)."""
    words = [len(t.split()) for t in u.text]
    encoded = {"dataset": _Encoded(u.text, dataset_tokens), "plain": _Encoded(u.text, plain_tokens)}
    subset = np.asarray(u.subset, dtype=object)
    system = np.asarray([s if s is not None else "" for s in u.system_id], dtype=object)
    has_system = np.asarray([s is not None for s in u.system_id], dtype=bool)
    role = np.asarray(u.role, dtype=object)
    conversation = np.asarray(u.conversation_id, dtype=object)
    words_arr = np.asarray(words, dtype=np.int64)
    cache: dict[tuple[str, bytes], tuple[float, float]] = {}
    for c, s, m in scopes(u):
        in_scope = np.ones(len(u.text), dtype=bool)
        if s != ALL:
            in_scope &= subset == s
        if m != ALL:
            in_scope &= has_system & (system == m)
        for side in SIDES:
            mask = in_scope if side == "all" else in_scope & (role == side)
            members = np.flatnonzero(mask)
            if len(members) == 0:
                continue
            n_words = int(words_arr[members].sum())
            for variant in VARIANTS:
                enc = encoded[variant]
                key = (variant, members.tobytes())  # scopes with the same utterances (one system in a subset)
                if key not in cache:
                    if variant == "dataset":
                        cache[key] = truncated_distinct(members.tolist(), words, u.text, enc)
                    else:
                        uni, bi = enc.keys_of_mask(mask)
                        cache[key] = (distinct(uni), distinct(bi))
                d1, d2 = cache[key]
                if variant == "dataset":
                    limits = (MAX_WORDS, n_words > MAX_WORDS, ITERATIONS, SEED)
                else:
                    limits = (None, False, 1, None)
                values = (c, s, m, side, variant, len(set(conversation[members])), len(members), n_words,
                          *limits, d1, d2)
                for name, value in zip(SCHEMA.names, values, strict=True):
                    rows[name].append(value)


def text_diversity(u: Utterances) -> pa.Table:
    """The mart from the utterances in file order (rows in key order)."""
    rows: dict[str, list] = {name: [] for name in SCHEMA.names}
    for corpus in sorted(set(u.corpus)):
        keep = [i for i, c in enumerate(u.corpus) if c == corpus]
        _corpus_rows(Utterances(*([column[i] for i in keep] for column in u)), rows)
    return pa.table(rows, schema=SCHEMA)


def model(dbt, session):
    dbt.config(materialized="table")
    turns = dbt.ref("turns").project("conversation_id, turn_index, role, text, is_image")
    conversations = dbt.ref("conversations").project(
        "conversation_id as c_id, corpus, subset, system_id, source_path, source_record_index"
    )
    joined = (
        turns.join(conversations, "conversation_id = c_id")
        .filter("text is not null and not coalesce(is_image, false)")
        .order("corpus, source_path, source_record_index, conversation_id, turn_index")
        .project("corpus, subset, system_id, conversation_id, role, text")
    )
    columns = list(zip(*joined.fetchall())) or [[] for _ in range(6)]
    return text_diversity(Utterances(*(list(col) for col in columns)))
