"""The own-corpus (custom) models, and the turns mart, fit in a small DuckDB memory limit.

* Long real conversations: the 1,833 conversations of RecLLMSim ``human_exp_V2``
  (../shared/corpora), written line for line in the own-corpus format (28 MB, ~17 KB a line),
  ran out of the build's 1 GiB in ``stg_custom__conversations`` (a view that parsed each
  payload once per field and per message part) while the same files built as the first-class
  corpus. The models parse each payload once (into a map of its keys) in eight slices of the
  raw table (macros/in_slices.sql) and unnest in the select list. Every custom staging and
  intermediate model's compiled SQL (from the real build's own manifest) is run, in
  dependency order, into a database holding only the ingested conversion, under LIMIT with two
  threads; an unsliced parse fails there (BENCHMARKS.md, "Own corpora at scale").
* More message text than LIMIT (three times it): ``int_custom__turns`` and the ``turns`` mart
  number turns with windows over keys alone and join the numbers back. A window given the
  texts holds them all: a million generated conversations ran out of the build's 1 GiB in
  ``int_custom__turns`` so (2026-11-29), and its former SQL fails here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from ingest import run_ingest

pytestmark = pytest.mark.integration

LIMIT = "128MiB"
#: the custom models in dependency order (staging, then intermediate)
MODELS = (
    ("staging", "stg_custom__corpora"),
    ("staging", "stg_custom__rating_scales"),
    ("staging", "stg_custom__conversations"),
    ("staging", "stg_custom__messages"),
    ("staging", "stg_custom__users"),
    ("intermediate", "int_custom__rating_scales"),
    ("intermediate", "int_custom__conversations"),
    ("intermediate", "int_custom__turns"),
    ("intermediate", "int_custom__conversations_conformed"),
    ("intermediate", "int_custom__turns_conformed"),
    ("intermediate", "int_custom__intents_conformed"),
    ("intermediate", "int_custom__ratings_conformed"),
    ("intermediate", "int_custom__users_conformed"),
)


def convert_human_exp_v2(corpora: Path, out: Path) -> tuple[int, int]:
    """Write ``human_exp_V2`` as one own-corpus JSONL file: (conversations, messages)."""
    root = corpora / "recllmsim" / "human_exp_V2"
    out.parent.mkdir(parents=True)
    n_conversations = n_messages = 0
    with out.open("w", encoding="utf-8") as lines:
        for path in sorted(root.rglob("*.json")):
            record = json.loads(path.read_text("utf-8"))
            messages = []
            for message in record.pop("history"):
                converted = {"role": message.pop("role"), "text": message.pop("content")}
                satisfaction = message.pop("satisfaction", None)
                if satisfaction is not None:
                    converted["rating"] = int(satisfaction)
                messages.append(converted | message)
            key = path.relative_to(root).as_posix()
            line = {"id": key, "user_id": path.parts[-3], "messages": messages} | record
            lines.write(json.dumps(line, ensure_ascii=False) + "\n")
            n_conversations += 1
            n_messages += len(messages)
    return n_conversations, n_messages


@pytest.fixture(scope="module")
def compiled(real_warehouse: Path) -> dict[str, str]:
    target = real_warehouse.parent.parent / "target"  # tests/conftest.py: _build_published
    nodes = json.loads((target / "manifest.json").read_text())["nodes"]
    names = [name for _, name in MODELS] + ["turns"]
    return {name: nodes[f"model.csrwh.{name}"]["compiled_code"] for name in names}


def _create_under_limit(database: Path, spill: Path, tables: list[tuple[str, str, str]]) -> None:
    """Create each ``(schema, table, sql)`` of ``tables`` in ``database``, in order, under LIMIT
    with two threads; running out of memory fails the test, naming the table."""
    config = {"memory_limit": LIMIT, "threads": "2", "temp_directory": str(spill)}
    with duckdb.connect(str(database), config=config) as con:
        for schema, table, sql in tables:
            con.execute(f"create schema if not exists {schema}")
            try:
                con.execute(f"create table {schema}.{table} as ({sql})")
            except duckdb.OutOfMemoryException as exc:
                pytest.fail(f"{schema}.{table} needs more than {LIMIT}: {exc}".splitlines()[0])


def _build_models(database: Path, compiled: dict[str, str], spill: Path) -> None:
    """Run every model of MODELS' compiled SQL into ``database`` under LIMIT, two threads."""
    _create_under_limit(database, spill, [(s, m, compiled[m]) for s, m in MODELS])


def test_custom_models_fit_in_a_small_memory_limit_on_long_conversations(
    real_corpora: Path, real_warehouse: Path, compiled: dict[str, str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    n_conversations, n_messages = convert_human_exp_v2(
        real_corpora, data / "custom" / "human_exp_v2" / "conversations.jsonl"
    )
    # the compiled SQL names the catalogue after the real build's file: csr
    database = tmp_path / f"{real_warehouse.stem}.duckdb"
    summary = run_ingest(data, database, corpora=["custom"], progress=False)
    assert (summary.records_loaded, summary.records_rejected) == (n_conversations, 0)

    _build_models(database, compiled, tmp_path / "spill")
    with duckdb.connect(str(database)) as con:
        rows = dict(
            con.execute(
                "select 'conversations', count(*) from intermediate.int_custom__conversations "
                "union all select 'messages', count(*) from staging.stg_custom__messages "
                "union all select 'turns', count(*) from intermediate.int_custom__turns "
                "union all select 'message ratings', count(*) "
                "from intermediate.int_custom__ratings_conformed"
            ).fetchall()
        )
        rated = con.execute(
            "select count(*) from staging.stg_custom__messages where rating is not null"
        ).fetchone()[0]
    assert rows["conversations"] == n_conversations
    assert rows["messages"] == rows["turns"] == n_messages  # user and assistant messages only
    assert rows["message ratings"] == rated > 0


#: messages of ~1.6 KB (eight a conversation, one a system message): ~430 MB of text, over three
#: times LIMIT
MESSAGES = 270_000


def test_custom_turns_fit_in_a_small_memory_limit_with_more_text_than_it(
    real_warehouse: Path, compiled: dict[str, str], tmp_path: Path
) -> None:
    """int_custom__turns numbers the turns over the messages' keys, so its memory does not grow
    with their text: a window over the messages themselves (with their text) ran out of the
    build's 1 GiB at a million generated conversations, and of LIMIT here."""
    database = tmp_path / f"{real_warehouse.stem}.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute(f"attach '{real_warehouse}' as published (read_only)")
        for schema, model in (
            ("staging", "stg_custom__messages"),
            ("intermediate", "int_custom__conversations"),
        ):
            con.execute(f"create schema if not exists {schema}")
            con.execute(
                f"create table {schema}.{model} as select * from published.{schema}.{model} limit 0"
            )
        con.execute("detach published")
        con.execute(
            "insert into intermediate.int_custom__conversations (conversation_id, corpus_name, "
            "source_path, record_index) select 'custom:generated/' || i, 'generated', "
            "'generated/part-00000.jsonl', i from range(?) as t(i)",
            [MESSAGES // 8],
        )
        con.execute(
            "insert into staging.stg_custom__messages (source_path, record_index, role, "
            "message_text, message_index) select 'generated/part-00000.jsonl', i // 8, "
            "case when i % 8 = 0 then 'system' when i % 2 = 1 then 'user' else 'assistant' end, "
            "repeat('a message of a long conversation ', 48) || i, i % 8 from range(?) as t(i)",
            [MESSAGES],
        )
        text_bytes = con.execute(
            "select sum(strlen(message_text)) from staging.stg_custom__messages"
        ).fetchone()[0]
    assert text_bytes > 3 * 2**20 * int(LIMIT.removesuffix("MiB")), text_bytes

    _create_under_limit(
        database,
        tmp_path / "spill",
        [("intermediate", "int_custom__turns", compiled["int_custom__turns"])],
    )
    with duckdb.connect(str(database)) as con:
        turns, numbered, first = con.execute(
            "select count(*), count(*) filter (where turn_index = message_index - 1), "
            "count(*) filter (where turn_index = 0 and role = 'system') "
            "from intermediate.int_custom__turns"
        ).fetchone()
    # each conversation: a system message (no turn), then user, assistant, ... (turns 0-6)
    assert turns == numbered == MESSAGES // 8 * 7
    assert first == 0


def test_turns_mart_fits_in_a_small_memory_limit_with_more_text_than_it(
    real_warehouse: Path, compiled: dict[str, str], tmp_path: Path
) -> None:
    """The turns mart reads the merged-turn index (a window of int_turns_unioned) apart from the
    texts and joins it by key: read with the texts, the window held every text at once. The
    real warehouse, with MESSAGES long own-corpus turns added, under LIMIT."""
    database = tmp_path / f"{real_warehouse.stem}.duckdb"
    shutil.copy(real_warehouse, database)
    with duckdb.connect(str(database)) as con:
        real_turns = con.execute("select count(*) from main.turns").fetchone()[0]
        con.execute(
            "insert into intermediate.int_custom__turns (conversation_id, corpus_name, role, "
            "message_text, turn_index, message_index) select 'custom:generated/' || (i // 8), "
            "'generated', case when i % 2 = 0 then 'user' else 'system' end, "
            "repeat('a message of a long conversation ', 48) || i, i % 8, i % 8 "
            "from range(?) as t(i)",
            [MESSAGES],
        )
        text_bytes = con.execute(
            "select sum(strlen(message_text)) from intermediate.int_custom__turns"
        ).fetchone()[0]
    assert text_bytes > 3 * 2**20 * int(LIMIT.removesuffix("MiB")), text_bytes

    _create_under_limit(database, tmp_path / "spill", [("main", "turns_again", compiled["turns"])])
    with duckdb.connect(str(database)) as con:
        turns, generated, merged = con.execute(
            "select count(*), count(*) filter (where corpus = 'custom'), count(*) filter "
            "(where corpus = 'custom' and merged_turn_index = turn_index) from main.turns_again"
        ).fetchone()
        changed = con.execute(
            "select count(*) from (select * from main.turns except all "
            "select * from main.turns_again where corpus <> 'custom')"
        ).fetchone()[0]
    # user and system alternate: every turn is a merged turn of its own
    assert (turns, generated, merged) == (real_turns + MESSAGES, MESSAGES, MESSAGES)
    assert changed == 0  # the real corpora's turns are the published ones
