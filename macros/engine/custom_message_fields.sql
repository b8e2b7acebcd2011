{#-
    stg_custom__messages' columns (models/staging/custom/stg_custom__messages.sql), as the CTEs
    parsed, unnested, annotated and renamed over the CTE `source_cte` (the raw lines): one
    parse of each payload keeping only the messages and turn_annotations, unnested in the
    select list. DuckDB unnests the messages, their positions and the annotations side by side;
    Spark posexplodes the messages (positions from 0, as message_index) and takes the
    annotation of the same position with try_element_at (1-based; NULL past the end). On Spark
    every JSON value is in the form macros/engine/json_text.sql documents.

    The engine bodies write the CTEs parsed, unnested and annotated (`annotated`: source_path,
    record_index, message as a map of its keys, message_index, annotation); the columns,
    `renamed`, are written once below, through json_text and list_transform.
-#}
{% macro custom_message_fields(source_cte) -%}
{{ adapter.dispatch('custom_message_fields', 'csrwh')(source_cte) }},

renamed as (

    select
        ----------  ids
        -- the raw record the message belongs to (ids may be missing or repeated there)
        source_path,
        record_index,

        ----------  strings
        {{ json_text("message['role']") }} as role,
        -- `text`, or `content` (the chat-template name `csrwh export` writes) when there is no `text`
        case
            when message['text'] is not null then {{ json_text("message['text']") }}
            else {{ json_text("message['content']") }}
        end as message_text,
        -- ["<label>", ...], JSON (unnested in int_custom__intents_conformed)
        message['labels'] as labels,
        -- a number, JSON (a value that is not one is kept as written in ratings.raw_value)
        message['rating'] as rating,
        -- the message's element of `turn_annotations` (as `csrwh export` writes it):
        -- its intents [{"label", "annotator"?, "is_primary"?}] and its ratings, one entry per
        -- rating as in stg_custom__conversations.rating_entries
        annotation.intents as annotation_intents,
        {{ list_transform(
            "annotation.ratings",
            "entry",
            custom_rating_entry(
                "entry.aspect", "entry.value", "entry.raw_value", "entry.rater_id",
                "entry.rater_kind", "entry.comment"
            )
        ) }} as annotation_ratings,

        ----------  numerics
        -- 0-based position in the `messages` array
        cast(message_index as integer) as message_index

    from annotated
    where message_index is not null

)
{%- endmacro %}

{% macro default__custom_message_fields(source_cte) -%}
parsed as (

    select
        source_path,
        record_index,
        from_json(
            payload, '{"messages": ["MAP(VARCHAR, JSON)"], "turn_annotations": ["JSON"]}'
        ) as record
    from {{ source_cte }}

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

)
{%- endmacro %}

{% macro spark__custom_message_fields(source_cte) -%}
parsed as (

    select
        source_path,
        record_index,
        from_json(
            payload, 'struct<messages: array<map<string,string>>, turn_annotations: array<string>>'
        ) as record
    from {{ source_cte }}

),

unnested as (

    select
        parsed.source_path,
        parsed.record_index,
        messages.message,
        messages.message_index,
        try_element_at(parsed.record.turn_annotations, cast(messages.message_index + 1 as int)) as annotation_json
    from parsed
    lateral view posexplode(parsed.record.messages) messages as message_index, message

),

annotated as (

    select
        *,
        from_json(
            annotation_json,
            'struct<intents: array<struct<label: string, annotator: string, is_primary: boolean>>, '
            || 'ratings: {{ custom_rating_list_structure() }}>'
        ) as annotation
    from unnested

)
{%- endmacro %}
