"""Corpus foo of tests/integration/test_new_corpus.py: its own files (ingest module, models,
seeds, suites, page), its registry entry and its data."""

from __future__ import annotations

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
