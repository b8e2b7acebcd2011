"""The Python models' fast paths give the very values of the plain definitions they replace.

text_diversity draws ``random.Random(42)``'s shuffles from pre-generated words and tokenises
with Arrow kernels; the Bradley-Terry bootstrap builds each resample's win matrix with numpy
and fits with scipy's OpenBLAS on one thread; token counts run on threads. Each is checked
here against the slow, literal version (exact equality, never approximate)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from threadpoolctl import ThreadpoolController

from csrwh.measures import distinct_n as dn
from csrwh.measures import ranking as stats
from csrwh.measures import shuffles
from csrwh.measures import text as text_measures
from csrwh.measures.tokens import arrow_dataset_tokens

td = shuffles  # the seeded shuffles of text_diversity (csrwh.measures)


# --------------------------------------------------------------------------- seeded shuffles


def _reference_shuffles(n: int, prefixes: list[int], seed: int = 42) -> tuple[list[list[int]], int]:
    """LazySample (itself checked against random.sample): the first elements of consecutive
    shuffles, and the generator's next 32-bit word afterwards."""
    rng = random.Random(seed)
    out = []
    for k in prefixes:
        lazy = td.LazySample(rng, n)
        out.append([next(lazy) for _ in range(k)])
        lazy.finish()
    return out, rng.getrandbits(32)


def _fast_shuffles(draws, n: int, prefixes: list[int]) -> list[list[int]]:
    out = []
    for k in prefixes:
        # weights of 1 and max_words k - 1: the k-th element is the first to overflow
        positions, count = td.sample_to_overflow(draws, n, [1] * n, k - 1, 64)
        assert len(positions) == k and count == k - 1
        out.append(positions)
        draws.skip(n - k)
    return out


@pytest.mark.parametrize(
    "n", [1, 2, 3, 7, 63, 64, 65, 511, 512, 513, 1023, 1024, 1025, 4519, 9000, 70000]
)
def test_draws_make_random_samples_draws(n: int) -> None:
    prefixes = [min(n, k) for k in (1, 40, 700)]
    expected, next_word = _reference_shuffles(n, prefixes)
    draws = td.Draws(42)
    assert _fast_shuffles(draws, n, prefixes) == expected
    assert draws.peek(1) == [next_word]  # the generator ends where sample() leaves it


def test_draws_fallback_walk_gives_the_same_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    expected, next_word = _reference_shuffles(3000, [50, 50])
    monkeypatch.setattr(td.Draws, "_tries", lambda self, m, count: self._walk(m, count))
    draws = td.Draws(42)
    assert _fast_shuffles(draws, 3000, [50, 50]) == expected
    assert draws.peek(1) == [next_word]


def test_draws_skip_walked_in_python_throughout(monkeypatch: pytest.MonkeyPatch) -> None:
    expected, next_word = _reference_shuffles(5000, [10, 10])
    monkeypatch.setattr(td.Draws, "_FEW", 1 << 20)  # every bound walked in Python
    monkeypatch.setattr(td.Draws, "_BLOCK", 16)  # words read from the generator in small blocks
    draws = td.Draws(42)
    assert _fast_shuffles(draws, 5000, [10, 10]) == expected
    assert draws.peek(1) == [next_word]


def test_draws_skip_solves_a_bit_length_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bit length's bounds solved at most _LEVEL at a time (bounded memory): same draws."""
    expected, next_word = _reference_shuffles(70000, [40, 40])
    monkeypatch.setattr(td.Draws, "_LEVEL", 1000)
    draws = td.Draws(42)
    assert _fast_shuffles(draws, 70000, [40, 40]) == expected
    assert draws.peek(1) == [next_word]


# --------------------------------------------------------------------------- tokenisation

ALL_WHITESPACE = "".join(chr(cp) for cp in range(sys.maxunicode + 1) if chr(cp).isspace())


def test_arrow_whitespace_split_is_python_str_split() -> None:
    characters = [chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF]
    pieces = pc.list_value_length(
        pc.utf8_split_whitespace(pa.array([f"a{c}b" for c in characters]))
    ).to_numpy()
    assert [c for c, k in zip(characters, pieces, strict=True) if (k == 2) != c.isspace()] == []


def test_lower_never_makes_or_removes_whitespace() -> None:
    """So a text's str.split() words are its lower-cased plain tokens (text_diversity's n_words)."""
    bad = [
        cp
        for cp in range(sys.maxunicode + 1)
        if not 0xD800 <= cp <= 0xDFFF
        and (
            chr(cp).isspace() != any(ch.isspace() for ch in chr(cp).lower())
            or (chr(cp).isspace() and chr(cp).lower() != chr(cp))
        )
    ]
    assert bad == []


def _tricky_lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = [
        "The",
        "film.",
        "e.g.",
        "ΣΟΦΟΣ",
        "İstanbul",
        "ǅemal",
        "...",
        "a.b",
        "x",
        "Star",
        "Wars",
        "你好",
        "ß",
    ]
    lines = []
    for i in range(count):
        if i % 17 == 3:
            lines.append("")
            continue
        parts = [
            rng.choice(words)
            + rng.choice([" ", "  ", "\n", "\t", "\u00a0", "\u3000", "\x1c", " \n ", "."])
            for _ in range(rng.randint(1, 12))
        ]
        lines.append("".join(parts) + rng.choice(["", " ", ALL_WHITESPACE]))
    return lines


def test_arrow_tokenisers_are_the_python_tokenisers() -> None:
    lines = _tricky_lines(400, 1) + [ALL_WHITESPACE, "." * 5, "A.B. c"]
    lowered = pa.array([line.lower() for line in lines], pa.large_string())
    tokens, lengths = arrow_dataset_tokens(lowered)
    tokens, at = tokens.to_pylist(), 0
    for line, length in zip(lines, lengths.tolist(), strict=True):
        assert tokens[at : at + length] == dn.dataset_tokens(line)
        at += length
    words, grams = dn._plain_grams(lowered, np.zeros(len(lines), np.int64))
    assert words.tolist() == [len(line.split()) for line in lines]
    plain = [dn.plain_tokens(line) for line in lines]
    unigrams = {t for tokens in plain for t in tokens}
    bigrams = {f"{t[j]} {t[j + 1]}" for t in plain for j in range(len(t) - 1)}
    found = grams.to_pydict()
    assert {g for n, g in zip(found["n"], found["gram"], strict=True) if n == 1} == unigrams
    assert {g for n, g in zip(found["n"], found["gram"], strict=True) if n == 2} == bigrams


def _reference_truncated(lines: list[str], max_words: int) -> tuple[float, float]:
    """The model's former walk: LazySample, keys by a dict of tokens, distinct by sorting."""
    rng = random.Random(42)
    tokens = [dn.dataset_tokens(line) for line in lines]
    values = {1: [], 2: []}
    for _ in range(100):
        order = td.LazySample(rng, len(lines))
        kept, count, cut = [], 0, None
        for i in order:
            n_words = len(lines[i].split())
            if count + n_words <= max_words:
                kept.append(tokens[i])
                count += n_words
            else:
                cut = dn.dataset_tokens(" ".join(lines[i].split()[: max_words - count]))
                break
        order.finish()
        if cut is not None:
            kept.append(cut)
        for n in (1, 2):
            grams = [tuple(t[j : j + n]) for t in kept for j in range(len(t) - n + 1)]
            values[n].append(len(set(grams)) / len(grams) if grams else 0.0)
    return td.mean(values[1]), td.mean(values[2])


@pytest.mark.parametrize("count, max_words", [(700, 60), (2500, 400), (1200, 7012)])
def test_truncated_distinct_is_the_former_walk(
    monkeypatch: pytest.MonkeyPatch, count: int, max_words: int
) -> None:
    lines = _tricky_lines(count, count)
    monkeypatch.setattr(dn, "MAX_WORDS", max_words)
    n = len(lines)
    table = dn.text_diversity(
        dn.Utterances(
            ["c"] * n, ["s"] * n, [None] * n, [f"c{i}" for i in range(n)], ["user"] * n, lines
        )
    ).to_pylist()
    row = next(
        r
        for r in table
        if r["variant"] == "dataset" and r["side"] == "all" and r["subset"] == dn.ALL
    )
    assert (row["distinct_1"], row["distinct_2"]) == _reference_truncated(lines, max_words)


# --------------------------------------------------------------------------- Bradley-Terry


def _reference_bootstrap(battles, n_samples: int, seed: int) -> dict[str, tuple[float, float]]:
    """The former bootstrap: every resample as a list of battles through bradley_terry()."""
    ordered = sorted({name for battle in battles for name in battle[:2]})
    rng = np.random.default_rng(seed)
    samples = np.full((n_samples, len(ordered)), np.nan)
    column = {name: i for i, name in enumerate(ordered)}
    for s in range(n_samples):
        picks = rng.integers(0, len(battles), size=len(battles))
        for name, value in stats.bradley_terry([battles[i] for i in picks]).items():
            samples[s, column[name]] = value
    tail = 100.0 * (1.0 - 0.95) / 2.0  # as bradley_terry_bootstrap computes it (2.500000000000002),
    # which on an AVX-512 machine interpolates differently from 2.5 in the last bit
    low = np.nanpercentile(samples, tail, axis=0)
    high = np.nanpercentile(samples, 100.0 - tail, axis=0)
    return {name: (float(low[i]), float(high[i])) for i, name in enumerate(ordered)}


def test_bootstrap_win_matrices_give_the_former_intervals() -> None:
    rng = random.Random(3)
    systems = [f"s{i}" for i in range(9)]
    battles = []
    for _ in range(150):
        a, b = rng.sample(systems, 2)
        battles.append((a, b, rng.choice(["a", "b", "tie", "a"])))
    battles += [("rare", "s1", "a"), ("s2", "rare", "tie")]  # missing from many resamples
    assert stats.bradley_terry_bootstrap(battles, n_samples=60, seed=11) == _reference_bootstrap(
        battles, 60, 11
    )


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in stats.scipy_blas().info()]


def test_one_blas_thread_pins_scipys_openblas_and_restores_it() -> None:
    stats._fit_log_strengths(np.zeros((1, 1)), 0.1)  # scipy (and its OpenBLAS) loaded
    numpy_blas = [lib for lib in ThreadpoolController().info() if "numpy.libs" in lib["filepath"]]
    before = _blas_threads()
    assert before, "scipy's wheel bundles an OpenBLAS on this platform"
    stats.scipy_blas().limit(limits=2)  # as a machine with busy cores would have it
    try:
        with stats._one_blas_thread():
            with stats._one_blas_thread():  # nested: one limit, restored by the outer one
                assert _blas_threads() == [1] * len(before)
            assert _blas_threads() == [1] * len(before)
            assert [
                lib for lib in ThreadpoolController().info() if "numpy.libs" in lib["filepath"]
            ] == numpy_blas  # numpy's own OpenBLAS untouched
        assert _blas_threads() == [2] * len(before)
    finally:
        stats.scipy_blas().limit(limits=before[0])


def test_one_blas_thread_pins_even_before_scipy_is_imported() -> None:
    """In a fresh process (a bootstrap called first) scipy's OpenBLAS is loaded by the pin
    itself, so there is one to pin: without that, the bootstrap's thousand fits ran on
    OpenBLAS's spinning threads (~13x the CPU on a busy machine)."""
    child = (
        "import sys\n"
        "from csrwh.measures import ranking\n"
        "assert 'scipy' not in sys.modules\n"
        "with ranking._one_blas_thread():\n"
        "    print([lib['num_threads'] for lib in ranking.scipy_blas().info()])\n"
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True)
    threads = json.loads(done.stdout)
    assert threads and set(threads) == {1}, done.stdout


def test_one_blas_thread_changes_no_bit() -> None:
    battles = [("a", "b", "a"), ("b", "c", "tie"), ("c", "a", "b"), ("a", "c", "a")] * 5
    stats._fit_log_strengths(np.zeros((1, 1)), 0.1)
    before = _blas_threads()
    inside = stats.bradley_terry(battles)  # under _one_blas_thread
    assert _blas_threads() == before
    stats.scipy_blas().limit(limits=max(2, before[0]))  # the same fit on OpenBLAS's threads
    stats._blas_users += 1  # as if a caller held _one_blas_thread: it then changes nothing
    try:
        assert stats.bradley_terry(battles) == inside
    finally:
        stats._blas_users -= 1
        stats.scipy_blas().limit(limits=before[0])


# --------------------------------------------------------------------------- text measures


def test_token_count_is_the_same_on_any_number_of_threads() -> None:
    texts = [None, "", "hello world", "你好，世界", "<|endoftext|>"] + _tricky_lines(600, 9)
    one = text_measures.token_count(texts, threads=1)
    assert text_measures.token_count(texts, threads=3) == one
    encoding = text_measures.cl100k_base()
    assert one == [None if t is None else len(encoding.encode_ordinary(t)) for t in texts]


def test_word_token_cache_is_is_word() -> None:
    for token in ["你好", "，", "🙂", "15", " ", "iPhone", "…", "Ⅻ", "_"]:
        assert text_measures._WORD_TOKENS[token] == int(text_measures._is_word(token))
    assert not text_measures.is_chinese("plain ascii text 123")


def test_one_blas_thread_scans_nothing_when_openblas_started_on_one_thread(monkeypatch) -> None:
    """The dbt child starts with OPENBLAS_NUM_THREADS=1: the pin then leaves the libraries
    unscanned (threadpoolctl's scan from a dbt worker thread deadlocked against another
    thread's import of a C extension)."""
    import threadpoolctl

    def no_scan(*args, **kwargs):
        raise AssertionError("the loaded libraries were scanned")

    monkeypatch.setattr(threadpoolctl, "ThreadpoolController", no_scan)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    battles = [("a", "b", "a"), ("b", "c", "tie"), ("c", "a", "b")] * 3
    assert stats.bradley_terry(battles)  # fits, under _one_blas_thread, without a scan
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    with pytest.raises(AssertionError, match="scanned"):
        stats.bradley_terry(battles)
