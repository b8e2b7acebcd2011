"""text_diversity's in-memory engine counts a shuffle's distinct n-grams exactly on the real
corpora: ``in_memory.distinct_count`` (numpy's sort) of the engine's own n-gram keys equals
the count of a Python ``set`` of the n-grams, tokenised by the analysis' Python tokeniser.

Samples drawn as the ``dataset`` variant's shuffles are (utterances at random, up to 7,012
words) from each real corpus, and the whole of the two small corpora (46,644 to 132,079 keys).
"""

from __future__ import annotations

import random
from pathlib import Path

import duckdb
import numpy as np
import pytest

from csrwh.measures import distinct_n as dn
from csrwh.measures import in_memory

pytestmark = pytest.mark.integration

SAMPLES = 25


@pytest.fixture(scope="module")
def texts(real_warehouse: Path) -> dict[str, list[str]]:
    """Each real corpus's utterances as text_diversity reads them (file order)."""
    with duckdb.connect(str(real_warehouse), read_only=True) as con:
        rows = con.execute(
            "select c.corpus, t.text from intermediate.int_turns_unioned t join conversations c "
            "using (conversation_id) where t.text is not null and not coalesce(t.is_image, false) "
            "order by c.source_path, c.source_record_index, t.conversation_id, t.turn_index"
        ).fetchall()
    out: dict[str, list[str]] = {}
    for corpus, text in rows:
        out.setdefault(corpus, []).append(text)
    assert {"cosrec", "crsarena", "recllmsim"} <= set(out)
    return out


def _grams(tokens: list[list[str]], n: int) -> list[tuple[str, ...]]:
    return [tuple(t[j : j + n]) for t in tokens for j in range(len(t) - n + 1)]


def _check(enc, lines: list[str], members: np.ndarray) -> tuple[int, int]:
    """The engine's keys of the utterances ``members``, counted, against Python sets."""
    uni, bi = enc.keys_of(members)
    tokens = [dn.dataset_tokens(lines[i]) for i in members.tolist()]
    unigrams, bigrams = _grams(tokens, 1), _grams(tokens, 2)
    assert (len(uni), len(bi)) == (len(unigrams), len(bigrams))
    assert in_memory.distinct_count(uni) == len(set(unigrams))
    assert in_memory.distinct_count(bi) == len(set(bigrams))
    return len(uni), len(bi)


@pytest.mark.parametrize("corpus", ["cosrec", "crsarena", "recllmsim"])
def test_shuffle_counts_are_the_python_sets(texts: dict[str, list[str]], corpus: str) -> None:
    lines = texts[corpus]
    enc = in_memory._Encoded([t.lower() for t in lines], "dataset")
    words = [len(t.split()) for t in lines]
    rng = random.Random(corpus)
    for _ in range(SAMPLES):
        members, count = [], 0
        for i in rng.sample(range(len(lines)), len(lines)):
            if count + words[i] > dn.MAX_WORDS:
                break
            members.append(i)
            count += words[i]
        n_uni, _ = _check(enc, lines, np.asarray(members, dtype=np.int64))
        assert n_uni > 1000  # a shuffle's worth of keys


@pytest.mark.parametrize("corpus", ["cosrec", "crsarena"])  # RecLLMSim's sets: ~1 GB
def test_whole_corpus_counts_are_the_python_sets(texts: dict[str, list[str]], corpus: str) -> None:
    lines = texts[corpus]
    enc = in_memory._Encoded([t.lower() for t in lines], "dataset")
    n_uni, n_bi = _check(enc, lines, np.arange(len(lines), dtype=np.int64))
    assert min(n_uni, n_bi) > 40_000


@pytest.mark.parametrize(
    "keys",
    [
        [],
        [7],
        [3, 3, 3],
        [5, -1, 5, 2**63 - 1, -(2**63), -1, 0, 2**63 - 1],
        list(range(1000)) * 3,
    ],
)
def test_distinct_count_edge_cases(keys: list[int]) -> None:
    assert in_memory.distinct_count(np.asarray(keys, dtype=np.int64)) == len(set(keys))
