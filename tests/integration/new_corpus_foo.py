"""Corpus foo of tests/integration/test_new_corpus.py: its own files (ingest module, models,
seeds, suites, page), its registry entry and its data -- a conversational search corpus in
formats of its own: dialogues in a gzip-compressed JSONL file, web documents in a TSV file with
a header, graded judgments (-2..4) in a TSV file without one."""

from __future__ import annotations

# --------------------------------------------------------------------------- corpus foo

FOO_OWN_FILES = {
    "ingest/foo.py": '''"""Foo: a tiny test corpus (tests/integration/test_new_corpus.py): one JSON dialogue
per line of a gzip file, documents and graded judgments in tab-separated files."""

from ingest.spec import Delimited, FileSpec, Format, RecordKey

CORPUS = "foo"
FOLDER = "foo-data"

ABSENT_HINT = "put foo's dialogues.jsonl.gz, documents.tsv and judgments.tsv into <data dir>/foo-data"

FILES = (
    FileSpec(
        "dialogues.jsonl.gz",
        "foo__dialogues",
        Format.JSONL,
        RecordKey.field("id"),
        compression="gzip",
    ),
    FileSpec(
        "documents.tsv",
        "foo__documents",
        Format.CSV,
        RecordKey.field("doc_id"),
        delimited=Delimited("\\t"),
    ),
    FileSpec(
        "judgments.tsv",
        "foo__judgments",
        Format.CSV,
        RecordKey.field("topic"),
        delimited=Delimited("\\t", header=False, columns=("topic", "doc", "grade")),
    ),
)
''',
    "models/staging/foo/_foo__sources.yml": """version: 2

sources:
  - name: foo
    schema: raw
    description: Foo dialogues as landed by ingest/foo.py.
    tables:
      - name: dialogues
        identifier: foo__dialogues
        description: One row per line of dialogues.jsonl.gz.
      - name: documents
        identifier: foo__documents
        description: One row per line of documents.tsv (doc_id, title, url).
      - name: judgments
        identifier: foo__judgments
        description: One row per line of judgments.tsv (topic, doc, grade).
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
  - name: stg_foo__documents
    description: One row per Foo document.
    config:
      meta:
        json_paths_read: ['$.doc_id', '$.title', '$.url']
  - name: stg_foo__judgments
    description: One row per Foo judgment.
    config:
      meta:
        json_paths_read: ['$.topic', '$.doc', '$.grade']
""",
    "models/staging/foo/stg_foo__documents.sql": """with

source as (
    select * from {{ source('foo', 'documents') }}
),

renamed as (
    select
        payload ->> '$.doc_id' as doc_id,
        payload ->> '$.title' as title,
        payload ->> '$.url' as url
    from source
)

select * from renamed
""",
    "models/staging/foo/stg_foo__judgments.sql": """with

source as (
    select * from {{ source('foo', 'judgments') }}
),

renamed as (
    select
        payload ->> '$.topic' as topic_id,
        payload ->> '$.doc' as doc_id,
        cast(payload ->> '$.grade' as integer) as grade
    from source
)

select * from renamed
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
  - name: int_foo__relevance_judgments_conformed
    description: Foo's graded judgments of documents for its dialogues, in the judgments contract.
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
    cast('foo:' || doc_id as varchar) as item_id,
    cast('foo' as varchar) as corpus,
    cast(doc_id as varchar) as source_item_id,
    cast('web_document' as varchar) as item_kind,
    cast(title as varchar) as title,
    cast(null as varchar) as description,
    cast(null as varchar) as category,
    cast(url as varchar) as url
from {{ ref('stg_foo__documents') }}
""",
    "models/intermediate/foo/int_foo__relevance_judgments_conformed.sql": """with

judgments as (
    select * from {{ ref('stg_foo__judgments') }}
),

documents as (
    select * from {{ ref('stg_foo__documents') }}
),

dialogues as (
    select * from {{ ref('stg_foo__dialogues') }}
)

select
    cast('foo:' || judgments.topic_id || ' ' || judgments.doc_id as varchar) as judgment_id,
    cast('foo' as varchar) as collection,
    cast('foo' as varchar) as corpus,
    cast(judgments.topic_id as varchar) as topic_id,
    cast(judgments.doc_id as varchar) as doc_id,
    cast(case when documents.doc_id is not null then 'foo:' || documents.doc_id end as varchar)
        as item_id,
    cast(case when dialogues.dialogue_id is not null then 'foo:' || dialogues.dialogue_id end
        as varchar) as conversation_id,
    cast(case when dialogues.dialogue_id is not null then 0 end as integer) as turn_index,
    cast(null as varchar) as intent_id,
    cast(null as integer) as user_index,
    cast(null as varchar) as user_id,
    cast(judgments.grade as integer) as grade,
    cast('graded' as varchar) as judgment_kind
from judgments
left join documents on judgments.doc_id = documents.doc_id
left join dialogues on judgments.topic_id = dialogues.dialogue_id
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
  - name: foo__judgment_kinds
    description: Foo's judgment kind and its grade scale.
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
    "seeds/foo/foo__judgment_kinds.csv": (
        "corpus,judgment_kind,grade_min,grade_max,is_implicit,description\n"
        "foo,graded,-2,4,false,Assessors' grade of a document for a dialogue: -2 spam .. 4 perfect\n"
    ),
    "docs/corpora/foo.md": "# Foo\n\nCorpus id `foo`: a tiny test corpus of movie dialogues.\n",
    "expectations/raw/foo__dialogues.yml": """table: raw.foo__dialogues
description: Foo dialogues.jsonl.gz, one dialogue per line.
include: [raw_table]
vars:
  corpus: foo
  source_path_regex: 'dialogues\\.jsonl\\.gz'
expectations: []
""",
    "expectations/raw/foo__documents.yml": """table: raw.foo__documents
description: Foo documents.tsv, one document per line.
include: [raw_table]
vars:
  corpus: foo
  source_path_regex: 'documents\\.tsv'
expectations: []
""",
    "expectations/raw/foo__judgments.yml": """table: raw.foo__judgments
description: Foo judgments.tsv, one graded judgment per line.
include: [raw_table]
vars:
  corpus: foo
  source_path_regex: 'judgments\\.tsv'
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
members = ["dialogues.jsonl.gz", "documents.tsv", "judgments.tsv"]
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

# documents.tsv (header doc_id, title, url) and judgments.tsv (no header: topic, doc, grade);
# the title of w3 holds a quoted tab (RFC 4180 quoting), topic q9 is no dialogue's id
FOO_DOCUMENTS = [
    ("w1", "Alien (1979) review", "https://example.org/alien"),
    ("w2", "Aliens sequel guide", "https://example.org/aliens"),
    ("w3", "Comedy\tclassics", "https://example.org/comedy"),
    ("w4", "Spam page", "https://example.org/spam"),
]
FOO_JUDGMENTS = [
    ("d1", "w1", 3),
    ("d1", "w2", 4),
    ("d1", "w4", -2),
    ("d3", "w3", 2),
    ("d3", "w4", -1),
    ("d3", "w9", 0),
    ("q9", "w1", 1),
]
