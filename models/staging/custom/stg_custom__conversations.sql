{{ config(materialized="table") }}
{#-
    One row per line of custom/<name>/*.jsonl (docs/ADDING_A_CORPUS.md): the conversation's
    fields typed and renamed. Nothing is dropped: `other_fields` keeps every part of the record
    no other column or model reads (metadata, keys the format does not know, system messages,
    unknown message keys), which becomes conversations.source_attributes.

    A table, not a view, and one parse (issue 23, BENCHMARKS.md "Own corpora at scale"): the
    payload is parsed once into a map of its keys (each value as JSON text) and the messages
    once more into a list of maps; every column below is cut from those maps. DuckDB keeps
    every JSON parse of a 2,048-row chunk until the chunk is done, so the old view -- one parse
    per field and per message part, read again by every downstream model -- ran out of 1 GiB on
    28 MB of conversations.
-#}

with

source as (

    -- in eight slices: each parse below holds an eighth of a chunk of lines (macros/in_slices.sql)
    select * from {{ in_slices(source('custom', 'conversations'), 'record_key') }}

),

parsed as (

    select
        source_path,
        record_index,
        line_number,
        ingested_at,
        -- the record's keys, each value as JSON text (NULL when a key is written twice: the
        -- raw suite fails on such a record)
        from_json(payload, '"MAP(VARCHAR, JSON)"') as fields
    from source

),

with_messages as (

    select
        *,
        -- `id`, or `conversation_id` (a `csrwh export` record) when the record has no `id`
        coalesce(fields['id'], fields['conversation_id']) as id_json,
        from_json(fields['messages'], '["MAP(VARCHAR, JSON)"]') as messages
    from parsed

),

renamed as (

    select
        ----------  ids
        -- the corpus name: the folder under custom/ (source_path is '<name>/<file>.jsonl')
        split_part(source_path, '/', 1) as corpus_name,
        -- the id when it is a non-empty string, else NULL (ingest rejects such records (ingest/custom.py))
        case
            when json_type(id_json) = 'VARCHAR' and id_json ->> '$' <> ''
                then id_json ->> '$'
        end as source_id,
        fields['user_id'] ->> '$' as source_user_id,
        fields['system_id'] ->> '$' as system_id,

        ----------  strings
        nullif(fields['subset'] ->> '$', '') as subset,
        fields['task'] ->> '$' as task,
        -- a conformed column's own name (as `csrwh export` writes it) wins over `task`
        fields['domain_or_task'] ->> '$' as domain_or_task,
        fields['task_type'] ->> '$' as task_type,
        fields['user_sentiment'] ->> '$' as user_sentiment,
        fields['language'] ->> '$' as language,
        -- conversation-level ratings, one entry per rating (unnested in
        -- int_custom__ratings_conformed): from {"<aspect>": number} (rater and comment NULL), or
        -- from [{"aspect", "value", "raw_value"?, "rater_id"?, "rater_kind"?, "comment"?}] as
        -- `csrwh export` writes them; `rating` is the value as JSON
        case json_type(fields['ratings'])
            when 'OBJECT' then list_transform(
                map_entries(from_json(fields['ratings'], '"MAP(VARCHAR, JSON)"')),
                lambda entry: {{ custom_rating_entry("entry.key", "entry.value") }}
            )
            when 'ARRAY' then list_transform(
                from_json(fields['ratings'], '{{ custom_rating_list_structure() }}'),
                lambda entry: {{ custom_rating_entry(
                    "entry.aspect", "entry.value", "entry.raw_value", "entry.rater_id",
                    "entry.rater_kind", "entry.comment"
                ) }}
            )
        end as rating_entries,
        -- the record without the keys modelled elsewhere (metadata, language and unknown keys
        -- stay), plus "messages": every message part no turn column, intent or rating holds --
        -- a whole message when it is not a user/assistant turn (system messages), else its
        -- keys other than role, text (or `content` standing for it), labels and rating -- as
        -- {"message_index", "message"}
        to_json(
            map_from_entries(
                list_concat(
                    list_filter(
                        map_entries(fields),
                        lambda field: field.key not in (
                            'id', 'subset', 'task', 'user_id', 'system_id', 'ratings', 'messages',
                            'domain_or_task', 'task_type', 'user_sentiment', 'user_satisfaction'
                        )
                        and not (field.key = 'conversation_id' and fields['id'] is null)
                    ),
                    list_transform(
                        list_filter(
                            [
                                list_filter(
                                    list_transform(
                                        messages,
                                        lambda message, position: case
                                            when (message['role'] ->> '$') not in ('user', 'assistant')
                                                or message['role'] is null
                                                then json_object('message_index', position - 1, 'message', to_json(message))
                                            when len(
                                                    list_filter(
                                                        map_keys(message),
                                                        lambda message_key: message_key not in ('role', 'text', 'labels', 'rating')
                                                        and not (message_key = 'content' and message['text'] is null)
                                                    )
                                                ) > 0
                                                then json_object(
                                                    'message_index', position - 1,
                                                    'message', to_json(
                                                        map_from_entries(
                                                            list_filter(
                                                                map_entries(message),
                                                                lambda part: part.key not in ('role', 'text', 'labels', 'rating')
                                                                and not (part.key = 'content' and message['text'] is null)
                                                            )
                                                        )
                                                    )
                                                )
                                        end
                                    ),
                                    lambda part: part is not null
                                )
                            ],
                            lambda parts: len(parts) > 0
                        ),
                        lambda parts: struct_pack(key := 'messages', value := to_json(parts))
                    )
                )
            )
        ) as other_fields,
        source_path,

        ----------  numerics
        -- a conformed column's own name, as `csrwh export` writes it
        try_cast(fields['user_satisfaction'] ->> '$' as double) as user_satisfaction,
        record_index,
        line_number,

        ----------  booleans
        -- the record parsed into one value per key (false: a key written twice; the raw suite fails)
        fields is not null and len(list_filter(messages, lambda message: message is null)) = 0 as is_parsed,

        ----------  timestamps
        ingested_at

    from with_messages

)

select * from renamed
