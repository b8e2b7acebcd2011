"""text_diversity's engine (``csrwh.measures.distinct_n``) gives the figures of the mart's
definition, computed literally: Python sets of n-grams, ``random.Random(42)``'s own ``sample``
walk (``LazySample``), whole scopes in memory -- the former implementation's reference.

The engine streams the texts from DuckDB in batches, counts distinct n-grams in SQL and reads
back only the utterances the shuffles keep; the test makes its batches and reads small so every
path (many batches, many read rounds, shared scopes, truncated and whole scopes) is taken.
"""

from __future__ import annotations

import importlib.util
import random
import sys

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.measures import distinct_n as dn
from csrwh.measures import diversity, in_memory, truncated
from csrwh.measures.shuffles import LazySample, mean

WORDS = ["The", "film.", "e.g.", "ΣΟΦΟΣ", "ΟΔΟΣ", "İstanbul", "ǅemal", "...", "a.b", "x", "你好"]
SEPARATORS = [" ", "  ", "\n", "\t", "\u00a0", " \n ", ".", "\u3000", "\x1c"]


def _load_model():
    path = PROJECT_ROOT / "models/marts/measures/text_diversity.py"
    spec = importlib.util.spec_from_file_location("text_diversity_engine_model", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        if i % 29 == 5:
            lines.append("")
            continue
        words = rng.randint(1, 14)
        lines.append(
            "".join(rng.choice(WORDS) + rng.choice(SEPARATORS) for _ in range(words)).strip(" ")
        )
    return lines


def _distinct(grams: list) -> float:
    return len(set(grams)) / len(grams) if grams else 0.0


def _grams(tokens: list[list[str]], n: int) -> list[tuple[str, ...]]:
    return [tuple(t[j : j + n]) for t in tokens for j in range(len(t) - n + 1)]


def _reference_dataset(texts: list[str], max_words: int) -> tuple[float, float, bool]:
    """The analysis' truncated Distinct-n, literally (the former model's walk)."""
    n_words = sum(len(t.split()) for t in texts)
    tokens = [dn.dataset_tokens(t) for t in texts]
    if n_words <= max_words:
        d1, d2 = _distinct(_grams(tokens, 1)), _distinct(_grams(tokens, 2))
        return mean([d1] * dn.ITERATIONS), mean([d2] * dn.ITERATIONS), False
    rng = random.Random(dn.SEED)
    values = {1: [], 2: []}
    for _ in range(dn.ITERATIONS):
        order = LazySample(rng, len(texts))
        kept, count = [], 0
        for i in order:
            words = len(texts[i].split())
            if count + words > max_words:
                kept.append(dn.dataset_tokens(" ".join(texts[i].split()[: max_words - count])))
                break
            kept.append(tokens[i])
            count += words
        order.finish()
        for n in (1, 2):
            values[n].append(_distinct(_grams(kept, n)))
    return mean(values[1]), mean(values[2]), True


def _reference(utterances: list[tuple], max_words: int) -> list[dict]:
    """The mart's rows from (corpus, subset, system_id, conversation_id, role, text) in file
    order."""
    rows = []
    for corpus in sorted({u[0] for u in utterances}):
        mine = [u for u in utterances if u[0] == corpus]
        for _, s, m in dn.scopes_of({(corpus, u[1], u[2]) for u in mine}):
            for side in dn.SIDES:
                members = [
                    u
                    for u in mine
                    if (s == dn.ALL or u[1] == s)
                    and (m == dn.ALL or u[2] == m)
                    and (side == "all" or u[4] == side)
                ]
                if not members:
                    continue
                texts = [u[5] for u in members]
                n_words = sum(len(t.split()) for t in texts)
                plain = [dn.plain_tokens(t) for t in texts]
                figures = {
                    "dataset": _reference_dataset(texts, max_words),
                    "plain": (_distinct(_grams(plain, 1)), _distinct(_grams(plain, 2)), False),
                }
                for variant in dn.VARIANTS:
                    d1, d2, truncated = figures[variant]
                    dataset = variant == "dataset"
                    rows.append(
                        {
                            "corpus": corpus,
                            "subset": s,
                            "system_id": m,
                            "side": side,
                            "variant": variant,
                            "n_conversations": len({u[3] for u in members}),
                            "n_utterances": len(members),
                            "n_words": n_words,
                            "max_words": max_words if dataset else None,
                            "is_truncated": truncated,
                            "iterations": dn.ITERATIONS if dataset else 1,
                            "seed": dn.SEED if dataset else None,
                            "distinct_1": d1,
                            "distinct_2": d2,
                        }
                    )
    return rows


def _warehouse(lines: list[str], seed: int) -> tuple[duckdb.DuckDBPyConnection, list[tuple]]:
    """int_turns_unioned and conversations stored shuffled; the utterances in file order."""
    rng = random.Random(seed)
    conversations, turns = [], []
    per = 6
    for c in range(len(lines) // per):
        corpus = "crsarena" if c % 5 else "cosrec"
        conversation = f"{corpus}:c{c:04d}"
        subset = rng.choice(["open", "closed", "o'brien"])
        system = rng.choice(["kbrd", "unicrs", None])
        conversations.append((conversation, corpus, subset, system, f"f{c % 3}", c))
        for t in range(per):
            role = "user" if t % 2 == 0 else "system"
            turns.append((conversation, t, role, lines[c * per + t], None))
    turns.append(("crsarena:c0001", 99, "user", None, None))  # no text: not an utterance
    turns.append(("crsarena:c0002", 99, "user", "an image", True))  # an image: neither
    by_key = {(t[0], t[1]): t for t in turns}
    in_order = [
        (
            corpus,
            subset,
            system,
            conversation,
            by_key[(conversation, t)][2],
            by_key[(conversation, t)][3],
        )
        for conversation, corpus, subset, system, _, _ in sorted(
            conversations, key=lambda r: (r[4], r[5], r[0])
        )
        for t in range(per)
    ]
    rng.shuffle(turns)
    rng.shuffle(conversations)
    con = duckdb.connect()
    con.execute(
        "create table int_turns_unioned (conversation_id varchar, turn_index integer, "
        "role varchar, text varchar, is_image boolean)"
    )
    con.executemany("insert into int_turns_unioned values (?, ?, ?, ?, ?)", turns)
    con.execute(
        "create table conversations (conversation_id varchar, corpus varchar, subset varchar, "
        "system_id varchar, source_path varchar, source_record_index integer)"
    )
    con.executemany("insert into conversations values (?, ?, ?, ?, ?, ?)", conversations)
    return con, in_order


class _Dbt:
    """dbt-duckdb's ``dbt`` object as a Python model sees it, built from nothing."""

    is_incremental = False

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

        class _This:
            database, schema, identifier = "memory", "main", "text_diversity"

            def __repr__(self) -> str:
                return '"memory"."main"."text_diversity"'

        self.this = _This()

        class _Config:
            def __call__(self, **kwargs) -> None:
                pass

            def get(self, key, default=None):
                return default

        self.config = _Config()

    def ref(self, name: str):
        return self._con.table(name)


@pytest.mark.parametrize("engine", ["bounded", "in_memory"])
@pytest.mark.parametrize("max_words, batch_rows", [(400, 50), (7012, 8192)])
def test_model_is_the_definition(
    monkeypatch: pytest.MonkeyPatch, max_words: int, batch_rows: int, engine: str
) -> None:
    model = _load_model()
    con, in_order = _warehouse(_lines(2400, max_words), max_words)
    monkeypatch.setattr(dn, "MAX_WORDS", max_words)
    monkeypatch.setattr(dn, "BATCH_ROWS", batch_rows)
    # small batches: the reads' distinct n-grams counted a few reads at a time
    monkeypatch.setattr(truncated, "KEPT_ROWS_PER_PASS", batch_rows)
    # every corpus in the bounded engine, or every one in memory
    monkeypatch.setattr(diversity, "IN_MEMORY_BYTES", -1 if engine == "bounded" else 2**40)
    got = model.model(_Dbt(con), con).to_pylist()
    expected = _reference(in_order, max_words)
    assert len(got) == len(expected) > 0
    assert got == expected
    assert {row["is_truncated"] for row in got} == {True, False}
    # the engine's work tables are gone
    assert con.execute(
        "select count(*) from duckdb_tables() where table_name like '_td_%'"
    ).fetchone() == (0,)


def test_duplicate_utterance_keys_are_an_error() -> None:
    model = _load_model()
    con, _ = _warehouse(_lines(60, 2), 1)
    con.execute(
        "insert into int_turns_unioned select * from int_turns_unioned where turn_index = 0 "
        "and text is not null limit 1"
    )
    with pytest.raises(ValueError, match="utterances but .* distinct"):
        model.model(_Dbt(con), con)


def _rows_with(monkeypatch, con, in_memory_bytes: int) -> list[dict]:
    monkeypatch.setattr(diversity, "IN_MEMORY_BYTES", in_memory_bytes)
    return _load_model().model(_Dbt(con), con).to_pylist()


@pytest.mark.parametrize("max_words", [400, 7012])
def test_in_memory_and_bounded_engines_give_the_same_rows(
    monkeypatch: pytest.MonkeyPatch, max_words: int
) -> None:
    """The same data through both engines, and through both at once (the smaller corpus in
    memory, the larger bounded): the same rows, in the same order."""
    con, _ = _warehouse(_lines(3000, max_words + 1), max_words + 1)
    monkeypatch.setattr(dn, "MAX_WORDS", max_words)
    monkeypatch.setattr(dn, "BATCH_ROWS", 64)
    sizes = dict(
        con.execute(
            "select c.corpus, sum(strlen(t.text)) from int_turns_unioned t join conversations c "
            "using (conversation_id) where t.text is not null and not coalesce(t.is_image, false) "
            "group by all"
        ).fetchall()
    )
    assert sizes["cosrec"] < sizes["crsarena"]
    bounded = _rows_with(monkeypatch, con, -1)
    assert bounded == _rows_with(monkeypatch, con, 2**40)
    assert bounded == _rows_with(monkeypatch, con, sizes["cosrec"])  # one corpus each way
    assert {row["is_truncated"] for row in bounded} == {True, False}


def test_small_corpora_take_the_in_memory_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A corpus of at most IN_MEMORY_BYTES of text never reaches the bounded engine (its work
    databases and SQL passes cost the real corpora twice the CPU: issue 26); a larger one
    does."""
    con, _ = _warehouse(_lines(600, 3), 3)
    calls: list[str] = []
    real_bounded, real_in_memory = dn._corpus_rows, in_memory.corpus_rows

    def bounded(con, corpus, *args):
        calls.append(f"bounded {corpus}")
        return real_bounded(con, corpus, *args)

    def in_mem(utterances, corpus, rows):
        calls.append(f"in_memory {corpus}")
        return real_in_memory(utterances, corpus, rows)

    monkeypatch.setattr(dn, "_corpus_rows", bounded)
    monkeypatch.setattr(in_memory, "corpus_rows", in_mem)  # as diversity calls it
    _load_model().model(_Dbt(con), con)
    assert calls == ["in_memory cosrec", "in_memory crsarena"]
    calls.clear()
    small = con.execute(
        "select sum(strlen(t.text)) from int_turns_unioned t join conversations c "
        "using (conversation_id) where c.corpus = 'cosrec' and t.text is not null "
        "and not coalesce(t.is_image, false)"
    ).fetchall()[0][0]
    monkeypatch.setattr(diversity, "IN_MEMORY_BYTES", small)
    _load_model().model(_Dbt(con), con)
    assert calls == ["in_memory cosrec", "bounded crsarena"]


def test_work_tables_hold_each_gram_once_per_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounded engine's work tables grow with the distinct n-grams, not with the words: a
    batch's plain n-grams are inserted once per scope group (one batch here: once in all), a
    kept utterance's (a cut read's) hashed n-grams once per utterance (read)."""
    con, _ = _warehouse(_lines(2400, 400), 400)
    monkeypatch.setattr(dn, "MAX_WORDS", 400)
    monkeypatch.setattr(dn, "BATCH_ROWS", 100_000)
    monkeypatch.setattr(diversity, "IN_MEMORY_BYTES", -1)
    counted: dict[str, tuple[int, int]] = {}
    real_stream, real_tokenise = dn._stream, truncated._tokenise

    def count(con, table: str, key: str) -> tuple[int, int]:
        return con.execute(
            f"select count(*), count(distinct ({key}, n, gram)) from {table}"
        ).fetchone()

    def stream(con, src, utt, counts, grams, batch_rows):
        real_stream(con, src, utt, counts, grams, batch_rows)
        counted["plain"] = count(con, grams, "g")

    def tokenise(con, src, tag, batch_rows):
        real_tokenise(con, src, tag, batch_rows)
        counted["kept"] = count(con, f"{tag}_out.dgrams", "ord")
        counted["cut"] = count(con, f"{tag}_out.cutgrams", "read_id")

    monkeypatch.setattr(dn, "_stream", stream)
    monkeypatch.setattr(truncated, "_tokenise", tokenise)
    _load_model().model(_Dbt(con), con)
    assert set(counted) == {"plain", "kept", "cut"}
    for name, (rows, distinct) in counted.items():
        assert rows == distinct > 0, name
