"""The Distinct-n engine's text stream reads its key table once, however many batches the texts
take (csrwh.measures.distinct_n._stream): a per-batch lookup in it made the mart's cost grow
with the square of the corpus's length."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from csrwh.measures import distinct_n

TEXTS = 1_000
BATCH = 100


def _work(con: duckdb.DuckDBPyConnection) -> list[int]:
    """src (texts) and utt (keys, read through a view that counts the rows it hands out)."""
    con.execute(
        f"create table src as select 'c' || (i // 4) as conversation_id, (i % 4)::integer "
        "as turn_index, case when i % 2 = 0 then 'user' else 'assistant' end as role, "
        "'Word w' || (i % 7) || ' x' || i as text, 's' || (i % 3) as subset, "
        f"null::varchar as system_id from range({TEXTS}) t(i)"
    )
    con.execute(
        "create table utt_rows as select (row_number() over (order by conversation_id, "
        "turn_index) - 1)::bigint as ord, conversation_id, turn_index, (dense_rank() over "
        "(order by subset, system_id, role) - 1)::bigint as g, subset, system_id, role from src"
    )
    handed = [0]

    def seen(ords: pa.Array) -> pa.Array:
        handed[0] += len(ords)
        return pa.array([True] * len(ords))

    con.create_function("seen", seen, ["BIGINT"], "BOOLEAN", type="arrow")
    con.execute("create view utt as select * from utt_rows where seen(ord)")
    con.execute(
        "create table counts as select conversation_id, turn_index, 0::bigint as n_words, "
        "0::bigint as n_bytes from utt_rows limit 0"
    )
    con.execute("create table grams (n tinyint, g bigint, gram varchar)")
    return handed


def test_stream_reads_the_keys_once_whatever_the_batches():
    con = duckdb.connect()
    handed = _work(con)
    distinct_n._stream(con, "src", "utt", "counts", "grams", BATCH)
    assert handed[0] <= TEXTS, (
        f"{handed[0]} key rows read for {TEXTS} texts in batches of {BATCH}: the keys are "
        "read again per batch"
    )
    # every text counted once, with its own key and its own group's grams
    assert con.execute(
        "select count(*), count(distinct (conversation_id, turn_index)), sum(n_words) from counts"
    ).fetchall() == [(TEXTS, TEXTS, 3 * TEXTS)]
    expected = con.execute(
        "select count(distinct (g, lower(w))) from (select g, unnest(string_split(text, ' ')) "
        "as w from src join utt_rows using (conversation_id, turn_index))"
    ).fetchone()[0]
    assert (
        con.execute("select count(distinct (g, gram)) from grams where n = 1").fetchone()[0]
        == expected
    )
