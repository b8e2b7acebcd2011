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

import math
import random
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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
    """Token ids of every utterance for one tokeniser, as flat integer arrays with offsets,
    so that the unigram and bigram keys of any set of utterances are gathered with numpy.

    The utterances are tokenised once, by Arrow kernels that split exactly as the Python
    tokenisers do (see ``__init__``); a truncated utterance is tokenised by the tokeniser
    itself (:meth:`keys`)."""

    def __init__(self, lowered: Sequence[str] | pa.Array, variant: str) -> None:
        """``lowered``: the utterances lower-cased by ``str.lower``; ``variant``: whose tokens
        (``dataset``: :func:`dataset_tokens`, ``plain``: :func:`plain_tokens`)."""
        self.tokenize = dataset_tokens if variant == "dataset" else plain_tokens
        texts = lowered if isinstance(lowered, pa.Array) else pa.array(lowered, pa.large_string())
        if variant == "dataset":  # '.' and newlines removed, split on the space character
            texts = pc.replace_substring(pc.replace_substring(texts, ".", ""), "\n", "")
            lists = pc.split_pattern(texts, " ")
        else:  # str.split(): Arrow's whitespace is Python's (category Zs, or bidi WS, B, S)
            lists = pc.utf8_split_whitespace(texts)
        encoded = pc.dictionary_encode(pc.list_flatten(lists))
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        owner = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False).astype(np.int64)
        empty = pc.index(encoded.dictionary, "").as_py()
        if empty >= 0:  # empty tokens (runs of separators, ends) are dropped
            keep = codes != empty
            codes, owner = codes[keep], owner[keep]
        self._uniques = encoded.dictionary
        self._vocab: dict[str, int] | None = None
        lengths = np.bincount(owner, minlength=len(lowered)).astype(np.int64)
        self.unigrams = codes
        self.uni_len = lengths
        self.uni_start = np.cumsum(lengths) - lengths
        self.uni_owner = owner
        same = owner[:-1] == owner[1:]  # n-grams never cross utterances
        self.bigrams = ((codes[:-1] << 32) | codes[1:])[same]
        self.bi_owner = owner[:-1][same]
        self.bi_len = np.maximum(lengths - 1, 0)
        self.bi_start = np.cumsum(self.bi_len) - self.bi_len

    def keys(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Unigram and bigram keys of a text outside the encoded set (a truncated utterance)."""
        if self._vocab is None:
            self._vocab = dict(zip(self._uniques.to_pylist(), range(len(self._uniques))))
        vocab = self._vocab
        ids = np.asarray(
            [vocab.setdefault(t, len(vocab)) for t in self.tokenize(text)], dtype=np.int64
        )
        return ids, (ids[:-1] << 32) | ids[1:]

    def keys_of(self, utterances: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Unigram and bigram keys of the utterances (order does not matter to Distinct-n)."""
        return (
            _ranges(self.unigrams, self.uni_start, self.uni_len, utterances),
            _ranges(self.bigrams, self.bi_start, self.bi_len, utterances),
        )

    def distinct_of_mask(self, mask: np.ndarray) -> tuple[float, float]:
        """(Distinct-1, Distinct-2) of the utterances where ``mask`` is true."""
        uni, bi = self.unigrams[mask[self.uni_owner]], self.bigrams[mask[self.bi_owner]]
        return distinct(uni), distinct(bi)


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
    texts: Sequence[str],
    enc: _Encoded,
    max_words: int = MAX_WORDS,
    iterations: int = ITERATIONS,
    seed: int = SEED,
) -> tuple[float, float]:
    """(Distinct-1, Distinct-2) of the ``dataset`` variant over the utterances ``members``
    (indices into ``texts``, in file order)."""
    member = np.asarray(members, dtype=np.int64)
    member_words = np.asarray(words, dtype=np.int64)[member]
    total_words = int(member_words.sum())
    if total_words <= max_words:  # nothing is cut: every shuffle keeps every utterance
        uni, bi = enc.keys_of(member)
        d1, d2 = distinct(uni), distinct(bi)
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
        cut = " ".join(texts[members[positions[-1]]].split()[: max_words - count])
        uni, bi = enc.keys_of(kept)
        cut_uni, cut_bi = enc.keys(cut)
        d1s.append(distinct(np.concatenate([uni, cut_uni])))
        d2s.append(distinct(np.concatenate([bi, cut_bi])))
    return _mean(d1s), _mean(d2s)


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
    lowered = pa.array([t.lower() for t in u.text], type=pa.large_string())
    encoded = {"dataset": _Encoded(lowered, "dataset"), "plain": _Encoded(lowered, "plain")}
    del lowered
    # str.split() words: the plain tokens' count (lower() maps no character to or from whitespace)
    words = encoded["plain"].uni_len.tolist()
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
                key = (
                    variant,
                    members.tobytes(),
                )  # scopes with the same utterances (one system in a subset)
                if key not in cache:
                    if variant == "dataset":
                        cache[key] = truncated_distinct(members.tolist(), words, u.text, enc)
                    else:
                        cache[key] = enc.distinct_of_mask(mask)
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
                    len(set(conversation[members])),
                    len(members),
                    n_words,
                    *limits,
                    d1,
                    d2,
                )
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
    joined = turns.join(conversations, "conversation_id = c_id").filter(
        "text is not null and not coalesce(is_image, false)"
    )
    # one corpus at a time (as text_diversity does), so only its utterances are in memory
    rows: dict[str, list] = {name: [] for name in SCHEMA.names}
    for (corpus,) in joined.aggregate("corpus").order("corpus").fetchall():
        part = (
            joined.filter("corpus = '" + corpus.replace("'", "''") + "'")
            .order("source_path, source_record_index, conversation_id, turn_index")
            .project("corpus, subset, system_id, conversation_id, role, text")
        )
        columns = [list(col) for col in zip(*part.fetchall())]
        _corpus_rows(Utterances(*columns), rows)
        del columns
    return pa.table(rows, schema=SCHEMA)
