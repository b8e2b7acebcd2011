"""The in-memory engine of the ``text_diversity`` mart: the fast path for small corpora.

For a corpus of at most :data:`csrwh.measures.diversity.IN_MEMORY_BYTES` of text: tokenised once
into numpy token ids, about half the CPU of the bounded engine, with memory that grows with the
corpus. Same rows as the bounded engine.
Details: docs/internals.md#csrwh-measures-in_memory
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from csrwh.measures import distinct_n as dn
from csrwh.measures.shuffles import Draws, mean, sample_to_overflow
from csrwh.measures.tokens import dataset_tokens, plain_tokens, release

__all__ = ["corpus_rows", "truncated_distinct"]


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
        release()

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
        release()

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


def distinct_count(keys: np.ndarray) -> int:
    """How many distinct values the int64 ``keys`` hold, exactly: sorted by numpy, a value
    starts wherever a key differs from the one before it. On the real corpora's shuffles
    (~7,000 keys each) the fastest exact count measured: 0.5-0.6x the time of a hand-written
    hash-slot counter, far less than ``np.unique`` (a hash table, then a sort, in numpy 2.4),
    pandas or polars (``benchmarks/distinct_counts.py``)."""
    if len(keys) == 0:
        return 0
    ordered = np.sort(keys)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def distinct(keys: np.ndarray) -> float:
    """Distinct n-grams / n-grams (0.0 without n-grams, as the analysis)."""
    if len(keys) == 0:
        return 0.0
    return distinct_count(keys) / len(keys)


def truncated_distinct(
    members: Sequence[int],
    words: Sequence[int],
    texts: Sequence[str] | _Encoded,
    enc: _Encoded,
    max_words: int,
    iterations: int,
    seed: int,
) -> tuple[float, float]:
    """(Distinct-1, Distinct-2) of the ``dataset`` variant over the utterances ``members``
    (indices into ``texts``, in file order; ``texts``: the utterances, or their ``plain``
    encoding, which gives the first words of the truncated one: :func:`_first_words`)."""
    member = np.asarray(members, dtype=np.int64)
    member_words = np.asarray(words, dtype=np.int64)[member]
    total_words = int(member_words.sum())
    if total_words <= max_words:  # nothing is cut: every shuffle keeps every utterance
        d1, d2 = enc.distinct_of(member)
        return mean([d1] * iterations), mean([d2] * iterations)
    draws = Draws(seed)
    n = len(members)
    weights = member_words.tolist()
    ahead = (2 * max_words * n) // total_words + 64  # words read ahead per shuffle, ~1.4 each
    d1s: list[float] = []
    d2s: list[float] = []
    for _ in range(iterations):
        # random.sample(members, n) up to the utterance that overflows max_words, then the
        # draws of the elements not taken (LazySample.__next__, LazySample.finish)
        positions, count = sample_to_overflow(draws, n, weights, max_words, ahead)
        draws.skip(n - len(positions))
        kept = member[np.asarray(positions[:-1], dtype=np.int64)]
        cut = _first_words(texts, int(member[positions[-1]]), max_words - count)
        uni, bi = enc.keys_of(kept)
        cut_uni, cut_bi = enc.keys(cut)
        d1s.append(distinct(np.concatenate([uni, cut_uni])))
        d2s.append(distinct(np.concatenate([bi, cut_bi])))
    return mean(d1s), mean(d2s)


def _first_words(texts: Sequence[str] | _Encoded, i: int, count: int) -> str:
    """The first ``count`` ``str.split()`` words of the i-th text, joined by spaces: from the
    texts, or from their ``plain`` encoding (its words lower-cased: the same to the dataset
    tokeniser, which lower-cases -- ``str.lower`` is idempotent, changes no whitespace and
    lower-cases a word alike alone or in its text)."""
    if isinstance(texts, _Encoded):
        return texts.first_words(i, count)
    return " ".join(texts[i].split()[:count])


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
    arrival: Callable[[], np.ndarray] | None,
    rows: dict[str, list],
    limits: tuple[int, int, int],
) -> None:
    """Append the rows of one corpus. ``u``: its utterances in file order (columns subset,
    system_id, conversation_id, role); ``texts``: batches of their ``text`` column, in file
    order, or in any order with ``arrival()`` giving (once they are read), for each utterance
    of ``u``, the position of its text among them. The texts are tokenised batch by batch
    and not kept. The rows go to ``rows`` (column lists). ``limits``: (max words,
    iterations, seed)."""
    max_words, iterations, seed = limits
    encoded = {variant: _Encoded.fed(variant) for variant in dn.VARIANTS}
    for batch in texts:
        for chunk in _chunks(batch.column("text")):
            lowered = pa.array([t.lower() for t in chunk.to_pylist()], pa.large_string())
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
    for c, s, m in dn.scopes_of(keys):
        in_scope = np.ones(n, dtype=bool)
        if s != dn.ALL:
            in_scope &= subset == code_of_subset.get(s, -2) if s is not None else subset == -1
        if m != dn.ALL:
            in_scope &= system == code_of_system[m]
        for side in dn.SIDES:
            mask = in_scope if side == "all" else in_scope & (role == code_of_role.get(side, -2))
            members = np.flatnonzero(mask)
            if len(members) == 0:
                continue
            n_words = int(words[members].sum())
            n_conversations = int(np.count_nonzero(np.bincount(conversation[members])))
            # scopes with the same utterances (one system in a subset) share their figures
            digest = hashlib.blake2b(members.tobytes(), digest_size=32).digest()
            for variant in dn.VARIANTS:
                enc = encoded[variant]
                key = (variant, len(members), digest)
                if key not in cache:
                    if variant == "dataset":
                        cache[key] = truncated_distinct(
                            members, words, encoded["plain"], enc, max_words, iterations, seed
                        )
                    else:
                        cache[key] = enc.distinct_of(members)
                d1, d2 = cache[key]
                if variant == "dataset":
                    limits = (max_words, n_words > max_words, iterations, seed)
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
                for name, value in zip(dn.SCHEMA.names, values, strict=True):
                    rows[name].append(value)


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
        read = getattr(texts, "to_arrow_reader", None) or texts.fetch_record_batch
        reader = read(dn.BATCH_ROWS)
        try:
            for batch in reader:
                arrived.append(pa.table({key: batch.column(key) for key in keys}))
                yield batch
        finally:  # the session's result is finished: the model's next query can run
            reader.close()

    def arrival() -> np.ndarray:
        return _arrival(ordered.select(keys), pa.concat_tables(arrived))

    return ordered, batches(), arrival


def corpus_rows(utterances, corpus: str, rows: dict[str, list]) -> None:
    """Append the rows of one corpus to ``rows`` (column lists of the mart's schema), from a
    DuckDB relation of its utterances (the columns of
    :func:`csrwh.measures.distinct_n.corpus_rows`; keys checked unique by the caller,
    :func:`csrwh.measures.diversity.corpus_rows`)."""
    u, texts, arrival = _from_duckdb(utterances)
    _corpus_rows(corpus, u, texts, arrival, rows, (dn.MAX_WORDS, dn.ITERATIONS, dn.SEED))
    del u
    release()
