"""The ``dataset`` variant of text_diversity (the analysis' truncated Distinct-n), set-based.

Called by :mod:`csrwh.measures.distinct_n`: the 100 seeded shuffles per scope are drawn from the
words per utterance alone, the kept texts streamed once, and the distinct n-grams of each
shuffle counted in SQL. No shuffle's texts are held in Python.
Details: docs/internals.md#csrwh-measures-truncated
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from csrwh.measures.shuffles import Draws, mean, sample_to_overflow
from csrwh.measures.tokens import (
    arrow_dataset_tokens,
    keyed_texts,
    lower,
    release,
    token_grams,
)

__all__ = ["Scope", "dataset_figures"]


@dataclass
class Scope:
    """One scope x side: its groups, counts and figures (filled by the engine)."""

    subset: str
    system: str
    side: str
    groups: list[int]
    n_utterances: int = 0
    n_words: int = 0
    n_bigrams: int = 0
    n_conversations: int = 0
    distinct: dict[int, int] = field(default_factory=dict)
    reads: list[int] = field(default_factory=list)  # ids of its dataset-variant reads
    dataset: tuple[float, float] | None = None


def _members(con, utt: str, scope: Scope) -> tuple[np.ndarray, np.ndarray]:
    """The scope's utterances in file order: ords and words."""
    table = con.sql(
        f"select ord, n_words from {utt} where list_contains(?, g) order by ord",
        params=[scope.groups],
    ).to_arrow_table()
    return (
        table.column("ord").to_numpy().astype(np.int64),
        table.column("n_words").to_numpy().astype(np.int64),
    )


def _plan(con, tag: str, scopes: list[Scope], limits: tuple[int, int, int]) -> list:
    """Draw every scope's shuffles into ``kept`` and ``cuts``; return the scopes that share
    another's utterances (one system in a subset) as ``(scope, first)``."""
    max_words, iterations, seed = limits
    writer = con.cursor()
    cache: dict = {}
    same = []
    next_read = 0
    for scope in scopes:
        ords, words = _members(con, f"{tag}.utt", scope)
        key = (len(ords), hashlib.blake2b(ords.tobytes(), digest_size=32).digest())
        if key in cache:
            same.append((scope, cache[key]))
            continue
        cache[key] = scope
        total = int(words.sum())
        read_ids, kept, cuts = [], [], []
        if total <= max_words:  # nothing is cut: one read of every utterance
            read_ids.append(next_read)
            kept.append(ords)
        else:
            draws = Draws(seed)
            n = len(ords)
            weights = words.tolist()
            ahead = (2 * max_words * n) // total + 64  # words read ahead per shuffle
            for i in range(iterations):
                # random.sample(members, n) up to the utterance that overflows max_words, then
                # the draws of the elements not taken (LazySample.__next__, .finish)
                positions, count = sample_to_overflow(draws, n, weights, max_words, ahead)
                draws.skip(n - len(positions))
                at = np.asarray(positions, dtype=np.int64)
                read_ids.append(next_read + i)
                kept.append(ords[at[:-1]])
                cuts.append((next_read + i, int(ords[at[-1]]), max_words - count))
        scope.reads = read_ids
        next_read += len(read_ids)
        lengths = [len(k) for k in kept]
        writer.from_arrow(
            pa.table(
                {
                    "read_id": pa.array(np.repeat(read_ids, lengths), pa.int64()),
                    "ord": pa.array(np.concatenate(kept) if kept else [], pa.int64()),
                }
            )
        ).insert_into(f"{tag}.kept")
        if cuts:
            writer.from_arrow(
                pa.table(
                    {
                        name: pa.array(col, pa.int64())
                        for name, col in zip(
                            ("read_id", "ord", "words"), zip(*cuts, strict=True), strict=True
                        )
                    }
                )
            ).insert_into(f"{tag}.cuts")
    return same


def _insert_hashed(writer, grams: pa.Table, target: str) -> None:
    """Insert (key, n, gram) rows with each gram as its 128-bit md5 (``md5_number``): a read's
    n-grams are compared by it (a collision, ~1e-20 for a billion distinct n-grams, would be
    needed to change a figure), so long tokens (Chinese text has few spaces) stay 16 bytes; a
    key's repeated n-grams are inserted once (only the distinct ones of a read are counted)."""
    name = f"_td_grams_{id(grams)}"
    writer.register(name, grams)
    try:
        key = grams.schema.names[0]
        writer.execute(
            f"insert into {target} select distinct {key}, n, md5_number(gram) from {name}"
        )
    finally:
        writer.unregister(name)


def _owners(lengths: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)


def _tokenise(con, src: str, tag: str, batch_rows: int) -> None:
    """Stream the texts any read holds; their n-grams and counts into the work tables."""
    cuts: dict[int, list[tuple[int, int]]] = {}
    for read_id, ord_, words in con.execute(f"select * from {tag}.cuts").fetchall():
        cuts.setdefault(ord_, []).append((read_id, words))
    # the keys of the utterances any read holds (a table: the texts stream past them)
    con.execute(
        f"create table {tag}.need as select u.ord, u.conversation_id, u.turn_index "
        f"from {tag}.utt u semi join (select ord from {tag}.kept union select ord from "
        f"{tag}.cuts) n using (ord)"
    )
    con.execute(f"checkpoint {tag}")
    writer = con.cursor()  # con's result stays open while the batches are written
    for batch in keyed_texts(con, src, f"{tag}.need", "k.ord", batch_rows):
        ords = batch.column("ord").to_numpy(zero_copy_only=False).astype(np.int64)
        lowered = lower(batch.column("text"))
        tokens, lengths = arrow_dataset_tokens(lowered)
        owner = _owners(lengths)
        _insert_hashed(writer, token_grams(tokens, owner, ords[owner], "ord"), f"{tag}_out.dgrams")
        writer.from_arrow(
            pa.table({"ord": ords, "n1": lengths, "n2": np.maximum(lengths - 1, 0)})
        ).insert_into(f"{tag}_out.dcounts")
        # cut utterances: their first str.split() words, lower-cased (the same to the
        # dataset tokeniser, which lower-cases)
        cut_reads, cut_texts = [], []
        for i in np.flatnonzero(np.isin(ords, np.fromiter(cuts, np.int64, len(cuts)))):
            words_of = lowered[int(i)].as_py().split()
            for read_id, words in cuts[int(ords[i])]:
                cut_reads.append(read_id)
                cut_texts.append(" ".join(words_of[:words]))
        if cut_reads:
            reads = np.asarray(cut_reads, np.int64)
            tokens, lengths = arrow_dataset_tokens(pa.array(cut_texts, pa.large_string()))
            owner = _owners(lengths)
            grams = token_grams(tokens, owner, reads[owner], "read_id")
            _insert_hashed(writer, grams, f"{tag}_out.cutgrams")
            del grams
            writer.from_arrow(
                pa.table({"read_id": reads, "n1": lengths, "n2": np.maximum(lengths - 1, 0)})
            ).insert_into(f"{tag}_out.cutcounts")
        del lowered, tokens, owner
        release()


#: Kept utterances whose reads' distinct n-grams one query counts: the reads are counted a
#: range of read ids at a time, so the set DuckDB makes distinct (and may spill) stays this size
#: whatever the corpus's.
KEPT_ROWS_PER_PASS = 250_000


def _read_ranges(con, tag: str, rows: int) -> list[tuple[int, int]]:
    """(first, last) read ids of consecutive ranges holding about ``rows`` kept and cut
    utterances each (a range holds at least one read)."""
    counts = con.execute(
        f"select read_id, count(*) from (select read_id from {tag}.kept union all "
        f"select read_id from {tag}.cuts) group by read_id order by read_id"
    ).fetchall()
    ranges: list[list[int]] = []
    held = 0
    for read_id, count in counts:
        if ranges and held + count <= rows:
            ranges[-1][1] = read_id
            held += count
        else:
            ranges.append([read_id, read_id])
            held = count
    return [(first, last) for first, last in ranges]


def dataset_figures(
    con, src: str, tag: str, scopes: list[Scope], batch_rows: int, limits: tuple[int, int, int]
) -> None:
    """Set every scope's ``dataset`` figures (Distinct-1, Distinct-2): module doc.
    ``limits``: (max words, iterations, seed)."""
    for ddl in (
        "kept (read_id bigint, ord bigint)",
        "cuts (read_id bigint, ord bigint, words bigint)",
        "_out.dgrams (ord bigint, n tinyint, gram uhugeint)",
        "_out.dcounts (ord bigint, n1 bigint, n2 bigint)",
        "_out.cutgrams (read_id bigint, n tinyint, gram uhugeint)",
        "_out.cutcounts (read_id bigint, n1 bigint, n2 bigint)",
    ):
        con.execute(f"create table {tag}{'.' if not ddl.startswith('_') else ''}{ddl}")
    same = _plan(con, tag, scopes, limits)
    con.execute(f"checkpoint {tag}")
    _tokenise(con, src, tag, batch_rows)
    con.execute(f"checkpoint {tag}_out")
    totals = {
        read_id: (n1, n2)
        for read_id, n1, n2 in con.execute(
            f"select read_id, sum(n1)::bigint, sum(n2)::bigint from (select k.read_id, d.n1, "
            f"d.n2 from {tag}.kept k join {tag}_out.dcounts d using (ord) union all select * from "
            f"{tag}_out.cutcounts) group by read_id"
        ).fetchall()
    }
    found: dict[tuple[int, int], int] = {}
    for first, last in _read_ranges(con, tag, KEPT_ROWS_PER_PASS):
        for read_id, n, count in con.execute(
            f"select read_id, n, count(*) from (select k.read_id, g.n, g.gram from {tag}.kept k "
            f"join {tag}_out.dgrams g using (ord) where k.read_id between $first and $last "
            f"union select read_id, n, gram from {tag}_out.cutgrams "
            "where read_id between $first and $last) group by all",
            {"first": first, "last": last},
        ).fetchall():
            found[(read_id, n)] = count
    iterations = limits[1]
    for scope in scopes:
        if not scope.reads:
            continue
        d1s, d2s = [], []
        for read_id in scope.reads:
            n1, n2 = totals.get(read_id, (0, 0))
            d1s.append(found.get((read_id, 1), 0) / n1 if n1 else 0.0)
            d2s.append(found.get((read_id, 2), 0) / n2 if n2 else 0.0)
        if len(scope.reads) == 1:  # not cut: the same value every shuffle
            d1s, d2s = d1s * iterations, d2s * iterations
        scope.dataset = (mean(d1s), mean(d2s))
    for scope, first in same:
        scope.dataset = first.dataset
    for table in (
        "kept",
        "cuts",
        "need",
        "_out.dgrams",
        "_out.dcounts",
        "_out.cutgrams",
        "_out.cutcounts",
    ):
        con.execute(f"drop table {tag}{'.' if not table.startswith('_') else ''}{table}")
