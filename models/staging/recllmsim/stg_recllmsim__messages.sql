{{ config(materialized="table") }}
{#- A table, not a view: RecLLMSim payloads are whole files (~48 MB of JSON); unnesting them once keeps every downstream model and test from re-parsing them. -#}

with

source as (

    select * from {{ source('recllmsim', 'conversations') }}

),

{#- Memory: the payload is parsed once, by one from_json that keeps
    only the message fields, and the list is unnested in the select list. A lateral
    `cross join unnest(...)` is decorrelated by DuckDB into a hash join on the whole payload,
    and `payload -> '$.history'` plus one `->>` per field re-parsed it (1.6 GB peak on the real
    corpora; ~0.3 GB now, same rows). -#}
histories as (

    select
        record_key as conversation_id,
        {{ json_struct('payload', {'history': [{
            'role': 'VARCHAR', 'content': 'VARCHAR', 'content_zh': 'VARCHAR',
            'satisfaction': 'VARCHAR', 'reason': 'VARCHAR',
            'intent': 'JSON', 'intent_zh': 'JSON', 'hallucination': 'JSON',
        }]}) }}.history as messages
    from source

),

unnested as (

    select
        conversation_id,
        -- two lists of the same length unnest side by side: each message with its position
        {{ unnest_with_index('messages', 'message', 'message_index') }}
    from histories

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || message_index as message_id,
        conversation_id,

        ----------  strings
        -- "user" or "assistant"
        message.role as role,
        message.content as content,
        message.content_zh as content_zh,
        -- human_exp_V2 assistant messages: the user's satisfaction with the message, '1'..'5'
        message.satisfaction as satisfaction,
        -- human_exp_V2 assistant messages: the user's free-text reason for the satisfaction
        message.reason as reason,

        ----------  json
        -- user messages: a string (LLM-agent files) or a list of Chinese labels (real humans)
        message.intent as intent,
        message.intent_zh as intent_zh,
        -- assistant messages: {hallucination: bool, memo} (LLM-agent files) or
        -- "是" / "否" / "无法判断" (real humans)
        message.hallucination as hallucination,

        ----------  numerics
        -- 0-based position of the message in the file's history
        cast(message_index as integer) as message_index

    from unnested

)

select * from renamed
