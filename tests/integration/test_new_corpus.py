"""Adding a first-class corpus touches only its own files and the registry (issue 12).

A copy of the project (the files git tracks or would track) gets a tiny new corpus ``foo``:
its ingest module, staging and intermediate models (the five ``_conformed`` models), its own
lookup seeds, its raw suite and its ``[[corpus]]`` entry in ``ingest/corpora.toml``. Then
``scripts/corpora_seed.py`` renders the generated files, and ``csrwh build`` of the copy
(its own code: PYTHONPATH) builds a data folder holding only foo. foo's rows must reach
``conversations``, ``turns``, ``ratings`` (on the scale of its own seed), ``intents`` (the family
of its own taxonomy seed) and ``users``; and the copy must differ from the original tree only
in foo's files, the registry and the generated files (docs/ADDING_A_CORPUS.md, Route 2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from ingest.registry import load

# --------------------------------------------------------------------------- corpus foo

FOO_OWN_FILES = {
    "ingest/foo.py": '''"""Foo: a tiny test corpus, one JSON dialogue per line (tests/integration/test_new_corpus.py)."""

from ingest.spec import FileSpec, Format, RecordKey

CORPUS = "foo"
FOLDER = "foo-data"

ABSENT_HINT = "put foo's dialogues.jsonl into <data dir>/foo-data"

FILES = (FileSpec("dialogues.jsonl", "foo__dialogues", Format.JSONL, RecordKey.field("id")),)
''',
    "models/staging/foo/_foo__sources.yml": """version: 2

sources:
  - name: foo
    schema: raw
    description: Foo dialogues as landed by ingest/foo.py.
    tables:
      - name: dialogues
        identifier: foo__dialogues
        description: One row per line of dialogues.jsonl.
""",
    "models/staging/foo/_foo__models.yml": """version: 2

models:
  - name: stg_foo__dialogues
    description: One row per Foo dialogue.
    config:
      meta:
        json_paths_read: ['$.id', '$.user', '$.split', '$.score', '$.turns']
  - name: stg_foo__turns
    description: One row per Foo turn.
    config:
      meta:
        json_paths_read: ['$.turns[].speaker', '$.turns[].text', '$.turns[].act']
""",
    "models/staging/foo/stg_foo__dialogues.sql": """with

source as (
    select * from {{ source('foo', 'dialogues') }}
),

renamed as (
    select
        payload ->> '$.id' as dialogue_id,
        payload ->> '$.user' as user_id,
        payload ->> '$.split' as split,
        source_path,
        record_index,
        cast(payload ->> '$.score' as double) as score
    from source
)

select * from renamed
""",
    "models/staging/foo/stg_foo__turns.sql": """with

source as (
    select * from {{ source('foo', 'dialogues') }}
),

renamed as (
    select
        source.payload ->> '$.id' as dialogue_id,
        turns.turn ->> '$.speaker' as speaker,
        turns.turn ->> '$.text' as turn_text,
        turns.turn ->> '$.act' as act,
        cast(turns.turn_position - 1 as integer) as turn_position
    from source
    cross join
        unnest(cast(source.payload -> '$.turns' as json [])) with ordinality
            as turns (turn, turn_position)
)

select * from renamed
""",
    "models/intermediate/foo/_foo__models.yml": """version: 2

models:
  - name: int_foo__conversations_conformed
    description: Foo dialogues in the conversations contract.
  - name: int_foo__turns_conformed
    description: Foo turns in the turns contract.
  - name: int_foo__ratings_conformed
    description: Foo dialogue scores in the ratings contract.
  - name: int_foo__intents_conformed
    description: Foo dialogue acts in the intents contract.
  - name: int_foo__users_conformed
    description: Foo users in the users contract.
  - name: int_foo__items_conformed
    description: The web documents Foo's bot answers with, in the items contract.
""",
    "models/intermediate/foo/int_foo__conversations_conformed.sql": """select
    cast('foo:' || dialogue_id as varchar) as conversation_id,
    cast('foo' as varchar) as corpus,
    cast(split as varchar) as subset,
    cast(dialogue_id as varchar) as source_conversation_id,
    cast('movies' as varchar) as domain_or_task,
    cast('en' as varchar) as language,
    cast('foo:' || user_id as varchar) as user_id,
    cast(null as varchar) as system_id,
    cast(null as timestamp) as started_at,
    cast(null as timestamp) as ended_at,
    cast(null as varchar) as user_sentiment,
    cast(null as double) as user_satisfaction,
    cast(null as varchar) as task_description,
    cast(null as varchar) as task_type,
    cast(null as varchar) as profile,
    cast(source_path as varchar) as source_path,
    cast(record_index as bigint) as source_record_index,
    cast(null as varchar) as source_attributes
from {{ ref('stg_foo__dialogues') }}
""",
    "models/intermediate/foo/int_foo__turns_conformed.sql": """select
    cast('foo:' || dialogue_id as varchar) as conversation_id,
    cast(turn_position as integer) as turn_index,
    cast(case speaker when 'user' then 'user' else 'system' end as varchar) as role,
    cast(turn_text as varchar) as text,
    cast(null as varchar) as text_translation,
    cast(null as timestamp) as created_at,
    cast(false as boolean) as is_image,
    cast(turn_position as varchar) as source_turn_id
from {{ ref('stg_foo__turns') }}
""",
    "models/intermediate/foo/int_foo__ratings_conformed.sql": """select
    cast('foo:' || dialogue_id as varchar) as conversation_id,
    cast(null as integer) as turn_index,
    cast(null as varchar) as item_id,
    cast('user' as varchar) as rater_kind,
    cast('foo:' || user_id as varchar) as rater_id,
    cast('score' as varchar) as aspect,
    cast(score as double) as value,
    cast(null as varchar) as raw_value,
    cast(null as varchar) as comment
from {{ ref('stg_foo__dialogues') }}
where score is not null
""",
    "models/intermediate/foo/int_foo__intents_conformed.sql": """select
    cast('foo:' || dialogue_id as varchar) as conversation_id,
    cast(turn_position as integer) as turn_index,
    cast('author' as varchar) as annotator,
    cast(case speaker when 'user' then 'foo_act' else 'foo_bot_act' end as varchar) as label_scheme,
    cast(act as varchar) as raw_label,
    cast(true as boolean) as is_primary,
    cast(null as varchar) as standalone_query,
    cast(null as varchar) as intent_id,
    cast('human' as varchar) as source
from {{ ref('stg_foo__turns') }}
where act is not null
""",
    "models/intermediate/foo/int_foo__items_conformed.sql": """select
    cast('foo:doc-' || dialogue_id || '-' || turn_position as varchar) as item_id,
    cast('foo' as varchar) as corpus,
    cast('doc-' || dialogue_id || '-' || turn_position as varchar) as source_item_id,
    cast('web_document' as varchar) as item_kind,
    cast(turn_text as varchar) as title,
    cast(null as varchar) as description,
    cast(null as varchar) as category,
    cast(null as varchar) as url
from {{ ref('stg_foo__turns') }}
where speaker <> 'user'
""",
    "models/intermediate/foo/int_foo__users_conformed.sql": """select distinct
    cast('foo:' || user_id as varchar) as user_id,
    cast('foo' as varchar) as corpus,
    cast(user_id as varchar) as source_user_id,
    cast(null as varchar) as subset,
    cast(null as varchar) as profile_text,
    cast(null as varchar) as keywords,
    cast(null as varchar) as attributes
from {{ ref('stg_foo__dialogues') }}
""",
    "seeds/foo/_foo__seeds.yml": """version: 2

seeds:
  - name: foo__rating_scales
    description: Foo's rating aspect with its scale.
  - name: foo__intent_taxonomy
    description: Foo's dialogue acts mapped to the shared intent families.
  - name: foo__label_schemes
    description: Which role's turns each of Foo's label schemes labels.
  - name: foo__item_kinds
    description: Foo's item kinds.
""",
    "seeds/foo/foo__rating_scales.csv": (
        "corpus,aspect,scale_min,scale_max,higher_is_better,level,description\n"
        "foo,score,1,5,true,conversation,User's score of the dialogue\n"
    ),
    "seeds/foo/foo__intent_taxonomy.csv": (
        "label_scheme,raw_label,intent_family,description\n"
        "foo_act,ask_rec,request/recommendation,User asks for a recommendation\n"
        "foo_act,thank,chitchat,User thanks\n"
        "foo_bot_act,answer,answer,Bot answers\n"
    ),
    # labels on the bot's turns, and items of a kind no other corpus has: declared here
    "seeds/foo/foo__label_schemes.csv": (
        "corpus,label_scheme,labelled_role,description\n"
        "foo,foo_act,user,The user's dialogue acts\n"
        "foo,foo_bot_act,system,The bot's dialogue acts\n"
    ),
    "seeds/foo/foo__item_kinds.csv": (
        "corpus,item_kind,description\nfoo,web_document,A web page the bot answers with\n"
    ),
    "docs/corpora/foo.md": "# Foo\n\nCorpus id `foo`: a tiny test corpus of movie dialogues.\n",
    "expectations/raw/foo__dialogues.yml": """table: raw.foo__dialogues
description: Foo dialogues.jsonl, one dialogue per line.
include: [raw_table]
vars:
  corpus: foo
  source_path_regex: 'dialogues\\.jsonl'
expectations: []
""",
    "expectations/marts/foo__conversations.yml": """table: main.conversations
description: Foo's conversations against raw.foo__dialogues, one turn per element of turns.
include: [conversations_match_raw]
vars:
  corpus: foo
  raw_conversations: |-
    select 'foo:' || record_key as conversation_id,
        json_array_length(payload, 'turns') as raw_turns
    from raw.foo__dialogues
""",
}

FOO_REGISTRY_ENTRY = """
[[corpus]]
id = "foo"
folder = "foo-data"
title = "Foo"
aliases = ["foo-ds"]
homepage = "https://example.org/foo"
licence = "CC0-1.0"
languages = ["en"]
domain = "movies"
citation = "unknown"
citation_note = "a test corpus"

[[corpus.subset]]
name = "train"
description = "Foo's dialogues"

[corpus.upstream]
kind = "manual_zip"
members = ["dialogues.jsonl"]
"""

# the data: (id, user, split, score, [(speaker, text, act)])
FOO_DIALOGUES = [
    (
        "d1",
        "u1",
        "train",
        4,
        [("user", "Any film like Alien?", "ask_rec"), ("bot", "Aliens.", "answer")],
    ),
    ("d2", "u2", "train", 2, [("user", "Thanks a lot", "thank"), ("bot", "Bye!", None)]),
    ("d3", "u1", "train", 5, [("user", "Something funny?", "ask_rec")]),
]

GENERATED = {"seeds/corpora.csv", "macros/generated/corpus_registry.sql"}
REGISTRY = "ingest/corpora.toml"


def _project_files(root: Path) -> list[str]:
    """The files git tracks or would track (not ignored), that exist in the working tree."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.decode()
    return sorted({p for p in out.split("\0") if p and (root / p).is_file()})


def _tree(root: Path, files: list[str]) -> dict[str, bytes]:
    return {p: (root / p).read_bytes() for p in files if (root / p).is_file()}


def _env(copy: Path, target: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CSRWH_")}
    env.update(
        PYTHONPATH=str(copy),
        DO_NOT_TRACK="1",
        CSRWH_DBT_TARGET_PATH=str(target),
    )
    return env


@pytest.fixture(scope="module")
def foo_project(module_tmp_path: Path) -> dict:
    """The copy with corpus foo added and the generated files rendered; what changed."""
    root = module_tmp_path
    copy = root / "project"
    files = _project_files(PROJECT_ROOT)
    original = _tree(PROJECT_ROOT, files)
    for rel, content in original.items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes(content)

    for rel, text in FOO_OWN_FILES.items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_text(text, encoding="utf-8")
    registry = copy / REGISTRY
    registry.write_text(registry.read_text(encoding="utf-8") + FOO_REGISTRY_ENTRY, "utf-8")
    rendered = subprocess.run(
        [sys.executable, "scripts/corpora_seed.py"],
        check=False,
        cwd=copy,
        env=_env(copy, root / "target"),
        capture_output=True,
        text=True,
    )
    assert rendered.returncode == 0, rendered.stderr

    after = _tree(copy, _project_files_no_git(copy))
    changed = {p for p in after if original.get(p) != after[p]} | (set(original) - set(after))
    return {"root": root, "copy": copy, "changed": changed}


def _project_files_no_git(root: Path) -> list[str]:
    """Every file of the copy (it has no .git; nothing ignored was copied, nothing run yet)."""
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def test_a_new_corpus_changes_only_its_own_files_the_registry_and_generated_files(foo_project):
    allowed = set(FOO_OWN_FILES) | {REGISTRY} | GENERATED
    changed = foo_project["changed"]
    assert changed - allowed == set(), (
        f"shared files a new corpus had to change: {changed - allowed}"
    )
    # the generated files do change: the registry reaches dbt through them
    assert GENERATED <= changed
    check = subprocess.run(
        [sys.executable, "scripts/corpora_seed.py", "--check"],
        check=False,
        cwd=foo_project["copy"],
        env=_env(foo_project["copy"], foo_project["root"] / "target"),
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    copy = foo_project["copy"]
    generated = (copy / "macros/generated/corpus_registry.sql").read_text("utf-8")
    # the copy's registry, foo last; each list in registry order, read from the copy's files
    ids = [c.id for c in load(copy / REGISTRY)]
    assert ids[-1] == "foo"
    assert f"{{{{ return({ids!r}) }}}}" in generated
    for lookup in ("intent_taxonomy", "label_schemes", "item_kinds"):
        having = [i for i in ids if (copy / "seeds" / i / f"{i}__{lookup}.csv").is_file()]
        assert "foo" in having and f"'{lookup}': {having!r}," in generated
    conformed = [
        i for i in ids if (copy / f"models/intermediate/{i}/int_{i}__items_conformed.sql").is_file()
    ]
    assert "foo" in conformed and f"'items': {conformed!r}," in generated


@pytest.fixture(scope="module")
def foo_warehouse(foo_project) -> Path:
    """``csrwh build`` in the copy (its own code) of a data folder holding only foo."""
    root, copy = foo_project["root"], foo_project["copy"]
    data = root / "data" / "foo-data"
    data.mkdir(parents=True)
    lines = [
        json.dumps(
            {
                "id": i,
                "user": user,
                "split": split,
                "score": score,
                "turns": [
                    {"speaker": s, "text": t, **({"act": a} if a else {})} for s, t, a in turns
                ],
            }
        )
        for i, user, split, score, turns in FOO_DIALOGUES
    ]
    (data / "dialogues.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    warehouse = root / "warehouse" / "csr.duckdb"
    code = (
        "import sys; from pathlib import Path; import csrwh.config as c; "
        f"assert c.PROJECT_ROOT == Path({str(copy)!r}), c.PROJECT_ROOT; "
        "from csrwh.cli import main; sys.argv = ['csrwh'] + sys.argv[1:]; main()"
    )
    built = subprocess.run(
        [sys.executable, "-c", code, "build", "--data-dir", str(root / "data")]
        + ["--warehouse", str(warehouse)],
        check=False,
        cwd=copy,
        env=_env(copy, root / "target"),
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, (built.stdout + built.stderr)[-6000:]
    assert warehouse.is_file()
    return warehouse


def _rows(warehouse: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_foo_reaches_the_marts(foo_warehouse: Path):
    conversations = _rows(
        foo_warehouse,
        "select conversation_id, subset, user_id, n_turns from conversations "
        "where corpus = 'foo' order by 1",
    )
    assert conversations == [
        (f"foo:{i}", split, f"foo:{user}", len(turns)) for i, user, split, _, turns in FOO_DIALOGUES
    ]
    turns = _rows(
        foo_warehouse,
        "select conversation_id, turn_index, role, text from turns where corpus = 'foo' order by 1, 2",
    )
    assert turns == [
        (f"foo:{i}", k, "user" if s == "user" else "system", t)
        for i, _, _, _, ts in FOO_DIALOGUES
        for k, (s, t, _) in enumerate(ts)
    ]
    # the scale comes from seeds/foo/foo__rating_scales.csv: 1..5
    ratings = _rows(
        foo_warehouse,
        "select conversation_id, aspect, value, scale_min, scale_max, value_normalized "
        "from ratings where corpus = 'foo' order by 1",
    )
    assert ratings == [
        (f"foo:{i}", "score", float(score), 1.0, 5.0, (score - 1) / 4)
        for i, _, _, score, _ in FOO_DIALOGUES
    ]
    # the family comes from seeds/foo/foo__intent_taxonomy.csv
    families = {"ask_rec": "request/recommendation", "thank": "chitchat", "answer": "answer"}
    intents = _rows(
        foo_warehouse,
        "select conversation_id, turn_index, label_scheme, raw_label, intent_family from intents "
        "where corpus = 'foo' order by 1, 2",
    )
    assert intents == [
        (f"foo:{i}", k, "foo_act" if s == "user" else "foo_bot_act", a, families[a])
        for i, _, _, _, ts in FOO_DIALOGUES
        for k, (s, _, a) in enumerate(ts)
        if a
    ]
    # items of foo's own kind (seeds/foo/foo__item_kinds.csv), one per bot turn
    items = _rows(
        foo_warehouse, "select item_id, item_kind, title from items where corpus = 'foo' order by 1"
    )
    assert items == [
        (f"foo:doc-{i}-{k}", "web_document", t)
        for i, _, _, _, ts in FOO_DIALOGUES
        for k, (s, t, _) in enumerate(ts)
        if s != "user"
    ]
    users = _rows(foo_warehouse, "select user_id from users where corpus = 'foo' order by 1")
    assert users == [(u,) for u in sorted({f"foo:{user}" for _, user, _, _, _ in FOO_DIALOGUES})]
    # the lookups the marts join are the union of the corpora's own seeds, foo's included
    scales = _rows(
        foo_warehouse,
        "select aspect, scale_min, scale_max from seeds.rating_scales where corpus = 'foo'",
    )
    assert scales == [("score", 1, 5)]


def test_foos_own_suites_gated_its_build(foo_warehouse: Path):
    """The gate ran foo's raw suite and its conversations suite (its rows of the mart against
    its raw records), both from foo's own files, and they passed."""
    results = _rows(
        foo_warehouse,
        "select suite, expectation, success from main.dq_results "
        "where suite in ('raw.foo__dialogues', 'foo__conversations') order by 1, 2",
    )
    assert ("foo__conversations", "one_conversation_per_ingested_record", True) in results
    assert ("foo__conversations", "turn_counts_match_raw", True) in results
    assert ("raw.foo__dialogues", "corpus_matches_table", True) in results
    assert ("raw.foo__dialogues", "source_path_in_upstream_layout", True) in results
    assert all(success for _, _, success in results)
    # the shared intents rule read foo's label schemes: its labels on the bot's turns passed
    shared = _rows(
        foo_warehouse,
        "select success from main.dq_results "
        "where suite = 'intents' and expectation = 'labels_on_the_right_role'",
    )
    assert shared == [(True,)]
