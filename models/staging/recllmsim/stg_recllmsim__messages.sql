{{ config(materialized="table") }}
{#- A table, not a view: RecLLMSim payloads are whole files (~48 MB of JSON); unnesting them once keeps every downstream model and test from re-parsing them. -#}

with

source as (

    select * from {{ source('recllmsim', 'conversations') }}

),

unnested as (

    select
        source.record_key as conversation_id,
        history.message,
        history.message_number
    from source
    cross join
        unnest(cast(source.payload -> '$.history' as json[]))
        with ordinality as history (message, message_number)

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || (message_number - 1) as message_id,
        conversation_id,

        ----------  strings
        -- "user" or "assistant"
        message ->> '$.role' as role,
        message ->> '$.content' as content,
        message ->> '$.content_zh' as content_zh,
        -- human_exp_V2 assistant messages: the user's satisfaction with the message, '1'..'5'
        message ->> '$.satisfaction' as satisfaction,
        -- human_exp_V2 assistant messages: the user's free-text reason for the satisfaction
        message ->> '$.reason' as reason,

        ----------  json
        -- user messages: a string (LLM-agent files) or a list of Chinese labels (real humans)
        message -> '$.intent' as intent,
        message -> '$.intent_zh' as intent_zh,
        -- assistant messages: {hallucination: bool, memo} (LLM-agent files) or
        -- "是" / "否" / "无法判断" (real humans)
        message -> '$.hallucination' as hallucination,

        ----------  numerics
        -- 0-based position of the message in the file's history
        cast(message_number - 1 as integer) as message_index

    from unnested

)

select * from renamed
