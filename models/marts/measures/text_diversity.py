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

import ctypes
import ctypes.util
import hashlib
import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

ALL = "(all)"
SIDES = ("all", "user", "system")
VARIANTS = ("dataset", "plain")
MAX_WORDS = 7012
#: Utterances fetched from DuckDB at a time (their texts are tokenised and dropped).
BATCH_ROWS = 8192
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
    """Token ids of every utterance for one tokeniser, as one flat int32 array with offsets,
    so that the unigram and bigram keys of any set of utterances are gathered with numpy
    (bigram keys are made from the gathered unigrams, never stored for the whole corpus).

    The utterances are tokenised once, by Arrow kernels that split exactly as the Python
    tokenisers do (see ``__init__``); a truncated utterance is tokenised by the tokeniser
    itself (:meth:`keys`)."""

    def __init__(self, lowered: Sequence[str] | pa.Array | pa.ChunkedArray, variant: str) -> None:
        """``lowered``: the utterances lower-cased by ``str.lower``; ``variant``: whose tokens
        (``dataset``: :func:`dataset_tokens`, ``plain``: :func:`plain_tokens`). (The model
        feeds the chunks itself: :meth:`fed`.)"""
        self._start(variant)
        texts = lowered if isinstance(lowered, pa.Array | pa.ChunkedArray) else pa.array(lowered)
        for chunk in _chunks(texts):
            self._add(chunk)
        self._finish()

    @classmethod
    def fed(cls, variant: str) -> _Encoded:
        """An encoding to be fed lower-cased chunks (:meth:`_add`), then :meth:`_finish`-ed."""
        encoded = cls.__new__(cls)
        encoded._start(variant)
        return encoded

    def _start(self, variant: str) -> None:
        self.variant = variant
        self.tokenize = dataset_tokens if variant == "dataset" else plain_tokens
        self._vocabulary: pa.Array | None = None
        self._code_chunks: list[np.ndarray] = []
        self._length_chunks: list[np.ndarray] = []

    def _add(self, chunk: pa.Array) -> None:
        """Tokenise the next lower-cased utterances (only this chunk's copies are made)."""
        if self.variant == "dataset":  # '.' and newlines removed, split on the space character
            chunk = pc.replace_substring(pc.replace_substring(chunk, ".", ""), "\n", "")
            lists = pc.split_pattern(chunk, " ")
        else:  # str.split(): Arrow's whitespace is Python's (category Zs, or bidi WS, B, S)
            lists = pc.utf8_split_whitespace(chunk)
        tokens = pc.list_flatten(lists)
        owner = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
        kept = pc.greater(pc.binary_length(tokens), 0)  # empty tokens (runs of separators,
        tokens = tokens.filter(kept)  # ends) are dropped
        owner = owner[kept.to_numpy(zero_copy_only=False)]
        self._length_chunks.append(np.bincount(owner, minlength=len(chunk)).astype(np.int64))
        del lists, owner, kept
        local = pc.dictionary_encode(tokens)
        del tokens
        # the chunk's own dictionary mapped onto the corpus's (new tokens appended, so ids
        # are in order of first appearance)
        if self._vocabulary is None:
            mapping = np.arange(len(local.dictionary), dtype=np.int32)
            self._vocabulary = local.dictionary
        else:
            found = pc.index_in(local.dictionary, value_set=self._vocabulary)
            mapping = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int32)
            new = mapping < 0
            mapping[new] = len(self._vocabulary) + np.arange(np.count_nonzero(new))
            fresh = local.dictionary.filter(pc.is_null(found))
            self._vocabulary = pa.concat_arrays([self._vocabulary, fresh])
        self._code_chunks.append(mapping[local.indices.to_numpy(zero_copy_only=False)])
        _release()

    def _finish(self) -> None:
        if self._vocabulary is None:
            self._vocabulary = pa.array([], pa.large_string())
        self._uniques = self._vocabulary
        self.vocabulary_size = len(self._uniques)
        self.unigrams = (
            np.concatenate(self._code_chunks) if self._code_chunks else np.zeros(0, np.int32)
        )
        lengths = (
            np.concatenate(self._length_chunks) if self._length_chunks else np.zeros(0, np.int64)
        )
        del self._code_chunks, self._length_chunks, self._vocabulary
        self._lookup: tuple[np.ndarray, np.ndarray] | None = None
        self.uni_len = lengths
        self.uni_start = np.cumsum(lengths) - lengths
        _release()

    def reorder(self, order: np.ndarray) -> None:
        """Renumber the utterances: utterance i becomes the former ``order[i]``."""
        self.uni_len = self.uni_len[order]
        self.uni_start = self.uni_start[order]

    def first_words(self, utterance: int, count: int) -> str:
        """The first ``count`` tokens of an utterance joined by spaces (with the ``plain``
        tokeniser: its first ``str.split()`` words, lower-cased)."""
        start = int(self.uni_start[utterance])
        ids = self.unigrams[start : start + min(count, int(self.uni_len[utterance]))]
        return " ".join(self._uniques.take(pa.array(ids)).to_pylist())

    def _ids(self, tokens: list[str]) -> np.ndarray:
        """The ids of ``tokens``; a token outside the vocabulary gets an id of its own above
        it (the same id for the same token within this call)."""
        if self._lookup is None:  # the vocabulary's str hashes, sorted, not its strings
            hashes = np.empty(len(self._uniques), dtype=np.int64)
            step = 1 << 16
            for at in range(0, len(self._uniques), step):
                chunk = self._uniques.slice(at, step).to_pylist()
                hashes[at : at + len(chunk)] = [hash(t) for t in chunk]
            order = np.argsort(hashes, kind="stable").astype(np.int64)
            self._lookup = (hashes[order], order)
        hashes, order = self._lookup
        wanted = np.fromiter((hash(t) for t in tokens), dtype=np.int64, count=len(tokens))
        at = np.searchsorted(hashes, wanted)
        ids = np.full(len(tokens), -1, dtype=np.int64)
        hit = np.flatnonzero(at < len(hashes))
        hit = hit[hashes[at[hit]] == wanted[hit]]
        if len(hit):  # the first vocabulary entry of the hash: the token, barring collisions
            candidates = order[at[hit]]
            same = pc.equal(
                self._uniques.take(pa.array(candidates)),
                pa.array([tokens[i] for i in hit], self._uniques.type),
            ).to_numpy(zero_copy_only=False)
            ids[hit[same]] = candidates[same]
        fresh: dict[str, int] = {}
        for i in np.flatnonzero(ids < 0).tolist():  # collisions walked, new tokens numbered
            token, h, j = tokens[i], int(wanted[i]), int(at[i])
            while j < len(hashes) and hashes[j] == h:
                if self._uniques[int(order[j])].as_py() == token:
                    ids[i] = int(order[j])
                    break
                j += 1
            else:
                ids[i] = fresh.setdefault(token, self.vocabulary_size + len(fresh))
        return ids

    def keys(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Unigram and bigram keys of a text outside the encoded set (a truncated utterance)."""
        ids = self._ids(self.tokenize(text))
        return ids, (ids[:-1] << 32) | ids[1:]

    def keys_of(self, utterances: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Unigram and bigram keys of the utterances (order does not matter to Distinct-n)."""
        lengths = self.uni_len[utterances]
        uni = _ranges(self.unigrams, self.uni_start, self.uni_len, utterances).astype(np.int64)
        return uni, _bigrams(uni, lengths)

    def distinct_of(self, utterances: np.ndarray, chunk: int = 1 << 20) -> tuple[float, float]:
        """(Distinct-1, Distinct-2) of the utterances, gathered a chunk of about ``chunk``
        tokens at a time (so a whole corpus never holds all its keys at once)."""
        seen = np.zeros(self.vocabulary_size, dtype=bool)
        n_uni = n_bi = 0
        bigram_sets: list[np.ndarray] = []
        ends = np.cumsum(self.uni_len[utterances])
        at = 0
        while at < len(utterances):
            stop = int(np.searchsorted(ends, (ends[at - 1] if at else 0) + chunk, side="right"))
            stop = max(stop, at + 1)
            part = utterances[at:stop]
            uni = _ranges(self.unigrams, self.uni_start, self.uni_len, part)
            seen[uni] = True
            n_uni += len(uni)
            bi = _bigrams(uni.astype(np.int64), self.uni_len[part])
            del uni
            n_bi += len(bi)
            if len(bi):
                bigram_sets.append(_sorted_unique(bi))
            del bi
            if len(bigram_sets) > 1:
                bigram_sets = [_sorted_unique(np.concatenate(bigram_sets))]
            at = stop
        d1 = int(np.count_nonzero(seen)) / n_uni if n_uni else 0.0
        d2 = len(bigram_sets[0]) / n_bi if n_bi else 0.0
        return d1, d2


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, sorted (by sorting: numpy's hash-based ``unique`` is slower here)."""
    ordered = np.sort(keys)
    if len(ordered) < 2:
        return ordered
    new = np.empty(len(ordered), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return ordered[new]


def _bigrams(uni: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Bigram keys of gathered unigrams (int64), utterance by utterance: ``lengths`` tokens
    each, n-grams never crossing utterances."""
    if len(uni) < 2:
        return np.zeros(0, dtype=np.int64)
    same = np.ones(len(uni) - 1, dtype=bool)
    last = np.cumsum(lengths) - 1  # an utterance's last token pairs with nothing
    same[last[(lengths > 0) & (last < len(uni) - 1)]] = False
    return ((uni[:-1] << 32) | uni[1:])[same]


def _lower(chunk: pa.Array) -> pa.Array:
    """The texts lower-cased by Python's ``str.lower``."""
    return pa.array([t.lower() for t in chunk.to_pylist()], pa.large_string())


def _release() -> None:
    """Hand freed pages back to the system: the Arrow pool's (mimalloc and jemalloc keep
    them) and, with glibc, the C heap's (``malloc_trim``)."""
    pa.default_memory_pool().release_unused()
    if _TRIM:
        _TRIM[0](0)


def _malloc_trim():
    try:
        return [ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim]
    except (OSError, AttributeError):  # not glibc
        return []


_TRIM = _malloc_trim()


def _chunks(texts: pa.Array | pa.ChunkedArray, size: int = 1 << 22):
    """The texts as consecutive slices of about ``size`` bytes (at least one text each)."""
    if len(texts) == 0:
        yield pa.array([], pa.large_string())
        return
    ends = np.cumsum(pc.fill_null(pc.binary_length(texts), 0).to_numpy(zero_copy_only=False))
    at = 0
    while at < len(texts):
        base = int(ends[at - 1]) if at else 0
        stop = max(int(np.searchsorted(ends, base + size, side="right")), at + 1)
        chunk = texts.slice(at, stop - at)
        if isinstance(chunk, pa.ChunkedArray):
            chunk = chunk.combine_chunks()
        yield chunk.cast(pa.large_string())
        at = stop


def _ranges(
    values: np.ndarray, start: np.ndarray, length: np.ndarray, which: np.ndarray
) -> np.ndarray:
    """``values[start[i]:start[i] + length[i]]`` for every i in ``which``, concatenated."""
    lengths = length[which]
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=values.dtype)
    shift = start[which] - (np.cumsum(lengths) - lengths)
    return values[np.repeat(shift, lengths) + np.arange(total)]


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
    elements not taken, so the generator ends where ``sample`` leaves it. (The reference for
    :class:`_Draws`, which makes the same draws from pre-generated words.)"""

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


class _Draws:
    """The draws of ``random.Random(seed)``'s ``_randbelow``, made from its 32-bit words.

    ``getrandbits(k)`` for k <= 32 is the generator's next 32-bit word shifted right by
    ``32 - k`` (one word per call), so ``_randbelow(m)`` -- ``getrandbits(m.bit_length())``
    until below m -- needs only the word stream. numpy's ``MT19937`` is the same generator
    (Mersenne Twister, same tempering); started from ``random.Random(seed).getstate()`` its
    ``random_raw`` gives the very words ``random.Random(seed)`` would draw, read ahead in
    blocks here, so no Python call is made per word. (Bounds stay below 2**32: one word per
    try.)"""

    _BLOCK = 1 << 16
    _FEW = 512  # bounds sharing a bit length: fewer than this are walked in Python

    def __init__(self, seed: int) -> None:
        state = random.Random(seed).getstate()[1]
        self._bitgen = np.random.MT19937()
        self._bitgen.state = {
            "bit_generator": "MT19937",
            "state": {"key": np.asarray(state[:-1], dtype=np.uint32), "pos": state[-1]},
        }
        self._buffer = np.zeros(0, dtype=np.int64)
        self._at = 0  # next unused word of _buffer
        self._guesses: dict[tuple[int, int], np.ndarray] = {}

    def _ahead(self, count: int) -> np.ndarray:
        """The next ``count`` unused words (read from the generator as needed)."""
        if len(self._buffer) - self._at < count:
            fresh = self._bitgen.random_raw(max(count, self._BLOCK)).astype(np.int64)
            self._buffer = np.concatenate([self._buffer[self._at :], fresh])
            self._at = 0
        return self._buffer[self._at : self._at + count]

    def peek(self, count: int) -> list[int]:
        """The next ``count`` unused words, not consumed (see :meth:`consume`)."""
        return self._ahead(count).tolist()

    def consume(self, words: int) -> None:
        self._at += words

    def skip(self, m: int) -> None:
        """The draws ``_randbelow(m)``, ``_randbelow(m - 1)``, ..., ``_randbelow(1)``, their
        values unused (what ``LazySample.finish`` draws)."""
        while m >= self._FEW:
            low = 1 << (m.bit_length() - 1)
            used = self._tries(m, m - low + 1)  # may read more words (and move _at) first
            self._at += used
            m = low - 1
        while m > 0:  # the few last bounds, walked one try at a time
            words = self.peek(2 * m + 64)
            at = 0
            try:
                while m > 0:
                    shift = 32 - m.bit_length()
                    low = 1 << (31 - shift)
                    while m >= low:
                        if words[at] >> shift < m:
                            m -= 1
                        at += 1
            except IndexError:  # more tries than words read ahead: read more, go on
                pass
            self._at += at

    def _tries(self, m: int, count: int) -> int:
        """How many words the draws for the bounds m, m - 1, ..., m - count + 1 (all of one
        bit length) use.

        Solved on an array of words rather than walked: with ``r`` a try's top bits and
        ``c`` the tries accepted before it, a try is accepted when ``r < m - c``. From a
        first guess of the counts (:meth:`_first_guess`), the acceptances are recomputed from
        the counts of the previous round until nothing changes. A fixed point is the walk
        itself (each try's acceptance follows from the ones before it), and after j rounds
        at least the first j tries are settled, so the rounds end (in practice in 2 to 5)."""
        k = m.bit_length()
        shift = 32 - k
        expected = (1 << k) * math.log((m + 0.5) / (m - count + 0.5))  # tries: sum of 2**k / bound
        window = int(1.1 * expected + 8 * math.sqrt(expected) + 64)
        while True:
            room = m - (self._ahead(window) >> shift)  # accepted: fewer than `room` before it
            before = np.empty(window, dtype=np.int64)
            accepted = self._first_guess(m, k, window) < room
            for _ in range(64):
                before[0] = 0
                np.cumsum(accepted[:-1], out=before[1:])
                again = before < room
                if np.array_equal(again, accepted):
                    break
                accepted = again
            else:  # not settled (never seen): walk the tries in Python
                return self._walk(m, count)
            if before[-1] + accepted[-1] >= count:
                return int(np.searchsorted(before, count))  # through the count-th acceptance
            window *= 2  # unusually many rejections: more words

    def _first_guess(self, m: int, k: int, window: int) -> np.ndarray:
        """Tries accepted before each try, as expected (m * (1 - exp(-t / 2**k)) before try
        t): a start that settles in fewer rounds. Any start gives the same fixed point; this
        one is kept per (m, window), as every shuffle of a scope asks for the same."""
        key = (m, window)
        guess = self._guesses.get(key)
        if guess is None:
            t = np.arange(window, dtype=np.float64)
            guess = np.floor(m * -np.expm1(-t / (1 << k))).astype(np.int64)
            self._guesses[key] = guess
        return guess

    def _walk(self, m: int, count: int) -> int:
        """:meth:`_tries` one try at a time."""
        words = self.peek(2 * count + 64)
        at = 0
        shift = 32 - m.bit_length()
        while count > 0:
            if at == len(words):
                words = self.peek(2 * len(words))
            if words[at] >> shift < m:
                m -= 1
                count -= 1
            at += 1
        return at


def truncated_distinct(
    members: Sequence[int],
    words: Sequence[int],
    texts: Sequence[str] | _Encoded,
    enc: _Encoded,
    max_words: int = MAX_WORDS,
    iterations: int = ITERATIONS,
    seed: int = SEED,
) -> tuple[float, float]:
    """(Distinct-1, Distinct-2) of the ``dataset`` variant over the utterances ``members``
    (indices into ``texts``, in file order; ``texts``: the utterances, or their ``plain``
    encoding, which gives the first words of the truncated one: :func:`_first_words`)."""
    member = np.asarray(members, dtype=np.int64)
    member_words = np.asarray(words, dtype=np.int64)[member]
    total_words = int(member_words.sum())
    if total_words <= max_words:  # nothing is cut: every shuffle keeps every utterance
        d1, d2 = enc.distinct_of(member)
        return _mean([d1] * iterations), _mean([d2] * iterations)
    draws = _Draws(seed)
    n = len(members)
    weights = member_words.tolist()
    ahead = (2 * max_words * n) // total_words + 64  # words read ahead per shuffle, ~1.4 each
    d1s: list[float] = []
    d2s: list[float] = []
    for _ in range(iterations):
        # random.sample(members, n) up to the utterance that overflows max_words, then the
        # draws of the elements not taken (LazySample.__next__, LazySample.finish)
        positions, count = _sample_to_overflow(draws, n, weights, max_words, ahead)
        draws.skip(n - len(positions))
        kept = member[np.asarray(positions[:-1], dtype=np.int64)]
        cut = _first_words(texts, int(member[positions[-1]]), max_words - count)
        uni, bi = enc.keys_of(kept)
        cut_uni, cut_bi = enc.keys(cut)
        d1s.append(distinct(np.concatenate([uni, cut_uni])))
        d2s.append(distinct(np.concatenate([bi, cut_bi])))
    return _mean(d1s), _mean(d2s)


def _first_words(texts: Sequence[str] | _Encoded, i: int, count: int) -> str:
    """The first ``count`` ``str.split()`` words of the i-th text, joined by spaces: from the
    texts, or from their ``plain`` encoding (its words lower-cased: the same to the dataset
    tokeniser, which lower-cases -- ``str.lower`` is idempotent, changes no whitespace and
    lower-cases a word alike alone or in its text)."""
    if isinstance(texts, _Encoded):
        return texts.first_words(i, count)
    return " ".join(texts[i].split()[:count])


def _sample_to_overflow(
    draws: _Draws, n: int, weights: list[int], max_words: int, ahead: int
) -> tuple[list[int], int]:
    """The positions ``random.sample(range(n), n)`` takes up to and including the first one
    whose ``weights`` overflow ``max_words`` (LazySample.__next__, one draw at a time from
    ``ahead`` words read ahead), and the weight taken before it; the tries are consumed."""
    words = draws.peek(ahead)
    end = len(words)
    at = 0
    pool: dict[int, int] = {}
    positions: list[int] = []
    count = 0
    for m in range(n, 0, -1):
        shift = 32 - m.bit_length()
        while True:  # _randbelow(m)
            if at == end:
                words = draws.peek(2 * end)
                end = len(words)
            r = words[at] >> shift
            at += 1
            if r < m:
                break
        position = pool.get(r, r)
        pool[r] = pool.get(m - 1, m - 1)
        positions.append(position)
        if count + weights[position] > max_words:
            draws.consume(at)
            return positions, count
        count += weights[position]
    raise ValueError("no utterance overflows max_words")  # callers cut only when one does


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
    return _scopes(zip(u.corpus, u.subset, u.system_id, strict=True))


def _scopes(keys) -> list[tuple[str, str, str]]:
    """(corpus, subset, system) of every scope of the (corpus, subset, system) ``keys``."""
    out = set()
    for corpus, subset, system in keys:
        out.add((corpus, ALL, ALL))
        out.add((corpus, subset, ALL))
        if system is not None:
            out.add((corpus, ALL, system))
            out.add((corpus, subset, system))
    return sorted(out)


def _codes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list]:
    """Integer codes of a column (NULL: -1) and the value of each code."""
    encoded = pc.dictionary_encode(column)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.unify_dictionaries().combine_chunks()
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int32)
    return codes, encoded.dictionary.to_pylist()


def _corpus_rows(
    corpus: str,
    u: pa.Table,
    texts: Iterable[pa.RecordBatch | pa.Table],
    arrival: Callable[[], np.ndarray] | None = None,
    rows: dict[str, list] | None = None,
) -> None:
    """Append the rows of one corpus. ``u``: its utterances in file order (columns subset,
    system_id, conversation_id, role); ``texts``: batches of their ``text`` column, in file
    order, or in any order with ``arrival()`` giving (once they are read), for each utterance
    of ``u``, the position of its text among them. The texts are tokenised batch by batch
    and not kept. The rows go to ``rows`` (column lists)."""
    encoded = {variant: _Encoded.fed(variant) for variant in VARIANTS}
    for batch in texts:
        for chunk in _chunks(batch.column("text")):
            lowered = _lower(chunk)
            for enc in encoded.values():
                enc._add(lowered)
            del lowered
    order = arrival() if arrival is not None else None
    for enc in encoded.values():
        enc._finish()
        if order is not None:
            enc.reorder(order)
    del order
    n = u.num_rows
    # str.split() words: the plain tokens' count (lower() maps no character to or from whitespace)
    words = encoded["plain"].uni_len
    subset, subsets = _codes(u.column("subset"))
    system, systems = _codes(u.column("system_id"))
    role, roles = _codes(u.column("role"))
    conversation, _ = _codes(u.column("conversation_id"))
    code_of_subset = {value: code for code, value in enumerate(subsets)}
    code_of_system = {value: code for code, value in enumerate(systems)}
    code_of_role = {value: code for code, value in enumerate(roles)}
    keys = [
        (corpus, subsets[a] if a >= 0 else None, systems[b] if b >= 0 else None)
        for a, b in np.unique(np.stack([subset, system], axis=1), axis=0).tolist()
    ]
    cache: dict[tuple[str, int, bytes], tuple[float, float]] = {}
    for c, s, m in _scopes(keys):
        in_scope = np.ones(n, dtype=bool)
        if s != ALL:
            in_scope &= subset == code_of_subset.get(s, -2) if s is not None else subset == -1
        if m != ALL:
            in_scope &= system == code_of_system[m]
        for side in SIDES:
            mask = in_scope if side == "all" else in_scope & (role == code_of_role.get(side, -2))
            members = np.flatnonzero(mask)
            if len(members) == 0:
                continue
            n_words = int(words[members].sum())
            n_conversations = int(np.count_nonzero(np.bincount(conversation[members])))
            # scopes with the same utterances (one system in a subset) share their figures
            digest = hashlib.blake2b(members.tobytes(), digest_size=32).digest()
            for variant in VARIANTS:
                enc = encoded[variant]
                key = (variant, len(members), digest)
                if key not in cache:
                    if variant == "dataset":
                        cache[key] = truncated_distinct(members, words, encoded["plain"], enc)
                    else:
                        cache[key] = enc.distinct_of(members)
                d1, d2 = cache[key]
                if variant == "dataset":
                    limits = (MAX_WORDS, n_words > MAX_WORDS, ITERATIONS, SEED)
                else:
                    limits = (None, False, 1, None)
                values = (
                    c,
                    s,
                    m,
                    side,
                    variant,
                    n_conversations,
                    len(members),
                    n_words,
                    *limits,
                    d1,
                    d2,
                )
                for name, value in zip(SCHEMA.names, values, strict=True):
                    rows[name].append(value)


_COLUMNS = ("subset", "system_id", "conversation_id", "role")


def text_diversity(u: Utterances) -> pa.Table:
    """The mart from the utterances in file order (rows in key order)."""
    rows: dict[str, list] = {name: [] for name in SCHEMA.names}
    for corpus in sorted(set(u.corpus)):
        keep = [i for i, c in enumerate(u.corpus) if c == corpus]
        part = pa.table(
            {name: pa.array([getattr(u, name)[i] for i in keep], pa.string()) for name in _COLUMNS}
        )
        texts = pa.table({"text": pa.array([u.text[i] for i in keep], pa.string())})
        _corpus_rows(corpus, part, [texts], rows=rows)
    return pa.table(rows, schema=SCHEMA)


def _arrival(ordered: pa.Table, arrived: pa.Table) -> np.ndarray:
    """For each row of ``ordered``, the position of the row with its key among ``arrived``
    (both: the same ``conversation_id, turn_index`` keys, each once)."""
    left = ordered.append_column("position", pa.array(np.arange(ordered.num_rows)))
    right = arrived.append_column("arrival", pa.array(np.arange(arrived.num_rows)))
    matched = left.join(right, ["conversation_id", "turn_index"], join_type="inner")
    if matched.num_rows != ordered.num_rows or arrived.num_rows != ordered.num_rows:
        raise ValueError(
            f"text_diversity: {ordered.num_rows} utterances but {arrived.num_rows} texts "
            f"({matched.num_rows} matched on conversation_id, turn_index)"
        )
    arrival = np.empty(ordered.num_rows, dtype=np.int64)
    arrival[matched.column("position").to_numpy()] = matched.column("arrival").to_numpy()
    return arrival


def _from_duckdb(in_corpus) -> tuple[pa.Table, Iterator[pa.RecordBatch], Callable]:
    """A corpus's utterances for :func:`_corpus_rows`: the small columns sorted in file order,
    the texts streamed unsorted (a sort would hold them all) with the keys that place them."""
    keys = ["conversation_id", "turn_index"]
    ordered = (
        in_corpus.order("source_path, source_record_index, conversation_id, turn_index")
        .project("conversation_id, turn_index, subset, system_id, role")
        .to_arrow_table()
    )
    texts = in_corpus.project("conversation_id, turn_index, text")
    arrived: list[pa.Table] = []

    def batches() -> Iterator[pa.RecordBatch]:
        reader = getattr(texts, "to_arrow_reader", None) or texts.fetch_record_batch
        for batch in reader(BATCH_ROWS):
            arrived.append(pa.table({key: batch.column(key) for key in keys}))
            yield batch

    def arrival() -> np.ndarray:
        return _arrival(ordered.select(keys), pa.concat_tables(arrived))

    return ordered, batches(), arrival


#: The inputs of a corpus's rows: a corpus whose rows of these columns are unchanged keeps
#: its rows (``csrwh.building.partitions``).
INPUT_COLUMNS = (
    "conversation_id",
    "turn_index",
    "role",
    "text",
    "subset",
    "system_id",
    "source_path",
    "source_record_index",
)


def model(dbt, session):
    from csrwh.building.partitions import (
        code_version,
        corpus_digests,
        previous_digests,
        save_digests,
    )

    dbt.config(
        materialized="incremental",
        incremental_strategy="replace",
        on_schema_change="sync_all_columns",
    )
    turns = dbt.ref("int_turns_unioned").project(
        "conversation_id, turn_index, role, text, is_image"
    )
    conversations = dbt.ref("conversations").project(
        "conversation_id as c_id, corpus, subset, system_id, source_path, source_record_index"
    )
    joined = turns.join(conversations, "conversation_id = c_id").filter(
        "text is not null and not coalesce(is_image, false)"
    )
    # per-corpus partitions: a corpus whose inputs and code are unchanged is carried over
    version = code_version(__file__, packages=["numpy", "pyarrow"])
    digests = corpus_digests(joined, INPUT_COLUMNS)
    previous = previous_digests(session, dbt, version)
    carried = sorted(c for c, digest in digests.items() if previous.get(c) == digest)
    # one corpus at a time, as Arrow columns (no Python string per utterance): only its
    # utterances are in memory
    rows: dict[str, list] = {name: [] for name in SCHEMA.names}
    for corpus in sorted(set(digests) - set(carried)):
        in_corpus = joined.filter("corpus = '" + corpus.replace("'", "''") + "'")
        _corpus_rows(corpus, *_from_duckdb(in_corpus), rows=rows)
    computed = pa.table(rows, schema=SCHEMA)
    if carried:
        kept = (
            session.sql(f"select * from {dbt.this}")
            .filter(f"list_contains({_sql_list(carried)}, corpus)")
            .to_arrow_table()
            .select(SCHEMA.names)
            .cast(SCHEMA)
        )
        computed = pa.concat_tables([kept, computed])
    save_digests(session, dbt, version, digests)
    return computed.sort_by([("corpus", "ascending")])


def _sql_list(values: Iterable[str]) -> str:
    """A SQL list literal of strings."""
    return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + "]"
