"""csrwh.measures.tokens.token_grams: the one n-gram table both text_diversity engines' set
work reads (``distinct_n``'s plain grams, ``truncated``'s dataset grams)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pyarrow as pa

from csrwh.measures.tokens import arrow_dataset_tokens, dataset_tokens, token_grams


def _texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = ["a", "b", "Cc", "dd.", "é", "象", ""]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) for _ in range(n)]


def test_grams_are_each_texts_unigrams_and_bigrams_with_its_label() -> None:
    texts = _texts(300, 7) + ["", "one", "x y"]
    tokens, lengths = arrow_dataset_tokens(pa.array([t.lower() for t in texts], pa.large_string()))
    owner = np.repeat(np.arange(len(texts)), lengths)
    labels = np.arange(len(texts), dtype=np.int64) * 10 + 3  # each text's key, not its position
    table = token_grams(tokens, owner, labels[owner], "k")
    assert table.column_names == ["k", "n", "gram"]
    assert [str(f.type) for f in table.schema] == ["int64", "int8", "large_string"]
    expected = []
    for i, text in enumerate(texts):
        toks = dataset_tokens(text)
        expected += [(int(labels[i]), 1, t) for t in toks]
        expected += [(int(labels[i]), 2, f"{a} {b}") for a, b in itertools.pairwise(toks)]
    found = list(zip(*table.to_pydict().values(), strict=True))
    assert sorted(found) == sorted(expected)  # bigrams never cross texts, none lost


def test_no_tokens_give_an_empty_table() -> None:
    empty = pa.array([], pa.large_string())
    table = token_grams(empty, np.array([], np.int64), np.array([], np.int64), "ord")
    assert table.num_rows == 0 and table.column_names == ["ord", "n", "gram"]
