"""The seeded shuffles of text_diversity's ``dataset`` variant: ``random.Random(42)``'s
``sample(utterances, len(utterances))``, 100 times in a row from one generator, made from the
generator's own 32-bit words (numpy's ``MT19937`` from the same state) with no Python call per
word (moved from ``models/marts/measures/text_diversity.py``; the draws are unchanged).

:class:`LazySample` is the reference (CPython's ``Random.sample`` one element at a time);
:class:`Draws` makes the same draws; :func:`sample_to_overflow` takes a shuffle's positions up
to the utterance that overflows the word budget.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

__all__ = ["Draws", "LazySample", "mean", "sample_to_overflow"]


def mean(values: Sequence[float]) -> float:
    """The mean, summed left to right (as the analysis' ``sum()`` of floats)."""
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
    :class:`Draws`, which makes the same draws from pre-generated words.)"""

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


class Draws:
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
    _LEVEL = 1 << 20  # bounds solved on arrays at a time (their words: ~2 per bound)

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
        while m >= self._FEW:  # a bit length's bounds, at most _LEVEL at a time (memory)
            low = 1 << (m.bit_length() - 1)
            count = min(m - low + 1, self._LEVEL)
            used = self._tries(m, count)  # may read more words (and move _at) first
            self._at += used
            m -= count
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


def sample_to_overflow(
    draws: Draws, n: int, weights: list[int], max_words: int, ahead: int
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
