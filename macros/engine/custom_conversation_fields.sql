{#-
    stg_custom__conversations' columns (models/staging/custom/stg_custom__conversations.sql), as
    the CTEs parsed, with_messages and renamed over the CTE `source_cte` (the raw lines): one
    parse of each payload into a map of its keys, every column cut from that map.

    DuckDB: the map holds each value as JSON (MAP(VARCHAR, JSON)), the messages a list of such
    maps; lambdas over them. Spark: the map holds each value in the form
    macros/engine/json_text.sql documents (from_json to map<string,string>: a string without
    its quotes, an object or array as its JSON text in document order), and a second, typed
    view of the same payload (a variant cast to map<string,variant>) says which values are
    strings -- the text form cannot tell "12" from 12 -- so other_fields writes each value back
    as the JSON it was. Spark's arrays are 0-based (transform's index is the position), its
    to_json would drop NULL fields (other_fields is written with concat, not to_json).
-#}
{% macro custom_conversation_fields(source_cte) -%}
    {{ return(adapter.dispatch('custom_conversation_fields', 'csrwh')(source_cte)) }}
{%- endmacro %}

{% macro default__custom_conversation_fields(source_cte) -%}
parsed as (

    select
        source_path,
        record_index,
        line_number,
        ingested_at,
        -- the record's keys, each value as JSON text (NULL when a key is written twice: the
        -- raw suite fails on such a record)
        from_json(payload, '"MAP(VARCHAR, JSON)"') as fields
    from {{ source_cte }}

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
{%- endmacro %}

{#- A JSON value written back as JSON text on Spark: its text form and its variant (NULL when the key is absent). -#}
{% macro csrwh_custom_spark_json(text_expr, typed_expr) -%}
    case
        when {{ typed_expr }} is null or schema_of_variant({{ typed_expr }}) = 'VOID' then 'null'
        when schema_of_variant({{ typed_expr }}) = 'STRING'
            then regexp_extract(to_json(array({{ text_expr }})), '^\[(.*)\]$', 1)
        else {{ text_expr }}
    end
{%- endmacro %}

{#- A key as a JSON string on Spark. -#}
{% macro csrwh_custom_spark_json_key(key_expr) -%}
    regexp_extract(to_json(array({{ key_expr }})), '^\[(.*)\]$', 1)
{%- endmacro %}

{% macro spark__custom_conversation_fields(source_cte) -%}
parsed as (

    select
        source_path,
        record_index,
        line_number,
        ingested_at,
        -- the record's keys, each value as text (a string without quotes, other JSON as written)
        from_json(payload, 'map<string,string>') as fields,
        -- the same keys typed (a variant per value): which values are strings
        try_variant_get(try_parse_json(payload), '$', 'map<string,variant>') as typed
    from {{ source_cte }}

),

with_messages as (

    select
        *,
        coalesce(fields['id'], fields['conversation_id']) as id_text,
        case when fields['id'] is not null then typed['id'] else typed['conversation_id'] end as id_typed,
        from_json(fields['messages'], 'array<map<string,string>>') as messages,
        try_variant_get(typed['messages'], '$', 'array<map<string,variant>>') as typed_messages
    from parsed

),

renamed as (

    select
        ----------  ids
        split_part(source_path, '/', 1) as corpus_name,
        case
            when schema_of_variant(id_typed) = 'STRING' and id_text <> ''
                then id_text
        end as source_id,
        fields['user_id'] as source_user_id,
        fields['system_id'] as system_id,

        ----------  strings
        nullif(fields['subset'], '') as subset,
        fields['task'] as task,
        fields['domain_or_task'] as domain_or_task,
        fields['task_type'] as task_type,
        fields['user_sentiment'] as user_sentiment,
        fields['language'] as language,
        case
            when schema_of_variant(typed['ratings']) like 'OBJECT%' then transform(
                map_entries(from_json(fields['ratings'], 'map<string,string>')),
                entry -> {{ custom_rating_entry("entry.key", "entry.value") }}
            )
            when schema_of_variant(typed['ratings']) like 'ARRAY%' then transform(
                from_json(fields['ratings'], '{{ custom_rating_list_structure() }}'),
                entry -> {{ custom_rating_entry(
                    "entry.aspect", "entry.value", "entry.raw_value", "entry.rater_id",
                    "entry.rater_kind", "entry.comment"
                ) }}
            )
        end as rating_entries,
        concat('{', array_join(concat(
            transform(
                filter(
                    map_keys(fields),
                    field_key -> not array_contains(
                        array(
                            'id', 'subset', 'task', 'user_id', 'system_id', 'ratings', 'messages',
                            'domain_or_task', 'task_type', 'user_sentiment', 'user_satisfaction'
                        ),
                        field_key
                    )
                    and not (field_key = 'conversation_id' and fields['id'] is null)
                ),
                field_key -> concat(
                    {{ csrwh_custom_spark_json_key('field_key') }}, ':',
                    {{ csrwh_custom_spark_json("fields[field_key]", "typed[field_key]") }}
                )
            ),
            case
                when exists(message_parts, part -> true)
                    then array(concat('"messages":[', array_join(message_parts, ','), ']'))
                else cast(array() as array<string>)
            end
        ), ','), '}') as other_fields,
        source_path,

        ----------  numerics
        try_cast(fields['user_satisfaction'] as double) as user_satisfaction,
        record_index,
        line_number,

        ----------  booleans
        fields is not null and not exists(messages, message -> message is null) as is_parsed,

        ----------  timestamps
        ingested_at

    from (
        select
            *,
            -- the message parts no turn column, intent or rating holds, as
            -- {"message_index", "message"} (see the DuckDB version above)
            filter(
                transform(
                    messages,
                    (message, position) -> case
                        when message['role'] not in ('user', 'assistant') or message['role'] is null
                            then concat(
                                '{"message_index":', cast(position as string), ',"message":',
                                get_json_object(fields['messages'], concat('$[', cast(position as string), ']')),
                                '}'
                            )
                        when exists(
                                map_keys(message),
                                message_key -> message_key not in ('role', 'text', 'labels', 'rating')
                                and not (message_key = 'content' and message['text'] is null)
                            )
                            then concat(
                                '{"message_index":', cast(position as string), ',"message":{',
                                array_join(transform(
                                    filter(
                                        map_keys(message),
                                        message_key -> message_key not in ('role', 'text', 'labels', 'rating')
                                        and not (message_key = 'content' and message['text'] is null)
                                    ),
                                    message_key -> concat(
                                        {{ csrwh_custom_spark_json_key('message_key') }}, ':',
                                        {{ csrwh_custom_spark_json(
                                            "message[message_key]",
                                            "try_element_at(typed_messages, position + 1)[message_key]"
                                        ) }}
                                    )
                                ), ','),
                                '}}'
                            )
                    end
                ),
                part -> part is not null
            ) as message_parts
        from with_messages
    ) as with_parts

)
{%- endmacro %}
