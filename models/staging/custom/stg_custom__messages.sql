{{ config(materialized="table") }}
{#-
    One row per element of a custom conversation's `messages` array, in array order, with the
    element of the same position of `turn_annotations` (as `csrwh export` writes it) when the
    record has one. A table, and one parse of each payload (by one from_json that keeps only
    the messages and annotations), unnested in the select list: a lateral
    `cross join unnest(...)` over the payload is decorrelated into a hash join on the whole
    payload (issue 23; the RecLLMSim staging had the same fix, issue 14).
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
        from_json(
            payload, '{"messages": ["MAP(VARCHAR, JSON)"], "turn_annotations": ["JSON"]}'
        ) as record
    from source

),

unnested as (

    select
        source_path,
        record_index,
        -- lists unnest side by side: each message with its position and its annotation (NULL
        -- past the end of the shorter list; ingest rejects more annotations than messages)
        unnest(record.messages) as message,
        unnest(range(len(record.messages))) as message_index,
        unnest(record.turn_annotations) as annotation_json
    from parsed

),

annotated as (

    select
        *,
        -- the message's element of `turn_annotations`, parsed (a small document of its own)
        from_json(
            annotation_json,
            '{"intents": [{"label": "VARCHAR", "annotator": "VARCHAR", "is_primary": "BOOLEAN"}], '
            || '"ratings": {{ custom_rating_list_structure() }}}'
        ) as annotation
    from unnested

),

renamed as (

    select
        ----------  ids
        -- the raw record the message belongs to (ids may be missing or repeated there)
        source_path,
        record_index,

        ----------  strings
        message['role'] ->> '$' as role,
        -- `text`, or `content` (the chat-template name `csrwh export` writes) when there is no `text`
        case
            when message['text'] is not null then message['text'] ->> '$'
            else message['content'] ->> '$'
        end as message_text,
        -- ["<label>", ...], JSON (unnested in int_custom__intents_conformed)
        message['labels'] as labels,
        -- a number, JSON (a value that is not one is kept as written in ratings.raw_value)
        message['rating'] as rating,
        -- the message's element of `turn_annotations` (as `csrwh export` writes it):
        -- its intents [{"label", "annotator"?, "is_primary"?}] and its ratings, one entry per
        -- rating as in stg_custom__conversations.rating_entries
        annotation.intents as annotation_intents,
        list_transform(
            annotation.ratings,
            lambda entry: {{ custom_rating_entry(
                "entry.aspect", "entry.value", "entry.raw_value", "entry.rater_id",
                "entry.rater_kind", "entry.comment"
            ) }}
        ) as annotation_ratings,

        ----------  numerics
        -- 0-based position in the `messages` array
        cast(message_index as integer) as message_index

    from annotated
    where message_index is not null

)

select * from renamed
